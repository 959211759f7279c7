//! The words of `unobserved workload list`.

use crate::modules::registry::{Now, Registered};

/// One line per registered module: its name, path, and whether its file changed.
pub fn list(entries: &[Registered], now: &[Now]) -> String {
    if entries.is_empty() {
        return "no workload modules are registered (`unobserved workload add NAME PATH`)\n".into();
    }
    let mut out = String::new();
    for (e, now) in entries.iter().zip(now) {
        let state = match now {
            Now::Unchanged => format!("sha256 {}", e.sha256),
            Now::Changed { sha256 } => {
                format!(
                    "changed since it was added: sha256 {sha256} (was {})",
                    e.sha256
                )
            }
            Now::Unusable { why } => format!("cannot be run: {why}"),
        };
        out += &format!("{}\t{}\t{state}\n", e.name, e.path.display());
    }
    out
}
