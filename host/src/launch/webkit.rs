//! The WebKit adapter: MiniBrowser in a private (throwaway) session, opening the page
//! the run's own `serve` session serves. Never `--automation` (WebDriver mode) and no
//! WebDriver: the page starts the offered run by itself.

use std::path::Path;

/// The command line: a private session; over TLS, it accepts the run's throwaway
/// certificate (MiniBrowser has no per-certificate trust, so the session ignores TLS
/// errors; it visits only the run's own loopback URLs).
pub fn args(url: &str, tls: bool) -> Vec<String> {
    let mut a = vec!["--private".to_owned()];
    if tls {
        a.push("--ignore-tls-errors".into());
    }
    a.push(url.to_owned());
    a
}

/// WebKitGTK's version, which its user agent does not carry: `MiniBrowser --version`
/// prints "WebKitGTK 2.50.6".
pub fn version(program: &Path, display: &str) -> Option<String> {
    let out = std::process::Command::new(program)
        .arg("--version")
        .env("DISPLAY", display)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().last()?;
    version
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit())
        .then(|| version.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_automation_and_tls_errors_only_for_a_tls_run() {
        let plain = args("http://127.0.0.1:1/bench/serve.html#t", false);
        assert_eq!(
            plain,
            ["--private", "http://127.0.0.1:1/bench/serve.html#t"]
        );
        let tls = args("u", true);
        assert!(tls.contains(&"--ignore-tls-errors".to_owned()));
        assert!(!tls.iter().chain(&plain).any(|a| a.contains("automation")));
    }
}
