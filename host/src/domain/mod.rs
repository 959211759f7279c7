//! The vocabulary, pure: types and limits that say what things are, with no I/O. This
//! module imports nothing else in the crate (a test below reads its sources to keep it
//! so); everything else may import it.
//!
//! - `conditions`: what the machine did while a run measured (issue 36).
//! - `limits`: every number a plan, a page or a peer may give, and its bounds.
//! - `received`: what the sink recorded of one upload (`Received`, its `ChunkTally`),
//!   and what the host found when it looked (`Receipt`).
//! - `pin`: a certificate's SHA-256, as a remote sink's URL pins it.
//! - `host_name`: a name or address other devices reach this machine by (`PublicHost`).
//! - `workload`: workload modules (names, the contract, what a run records of one) and
//!   the API a body arm uploads through.

pub mod conditions;
pub mod host_name;
pub mod limits;
pub mod pin;
pub mod received;
pub mod workload;

#[cfg(test)]
mod tests {
    /// Every file of `domain/` names nothing of the crate outside it.
    #[test]
    fn the_domain_imports_nothing_else_in_the_crate() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/domain");
        let mut files = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                // Spelt in pieces, so that this test's own lines do not match.
                let (krate, own, up) = (["crate", "::"].concat(), "domain", "super::".repeat(2));
                let code = line.split("//").next().unwrap_or("");
                let outside = code.contains(&krate) && !code.contains(&[&krate, own].concat())
                    || code.contains(&up);
                assert!(!outside, "{}:{}: {line}", path.display(), n + 1);
            }
            files += 1;
        }
        assert!(files >= 3, "read {files} files");
    }
}
