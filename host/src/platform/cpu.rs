//! The CPU a figure was measured on, with the flags that decide which code paths run
//! (SHA-NI above all: `ring` hashes 3-4x faster with it). Every stored run and every
//! benchmark names it, because one machine is one sample.

/// The flags that change what the sink and the browser can do per byte.
pub const FLAGS: [&str; 5] = ["sha_ni", "avx2", "avx512f", "aes", "pclmulqdq"];

/// "AMD EPYC (2 logical cores; sha_ni avx2 avx512f aes pclmulqdq)", where the OS tells.
pub fn describe() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))?
        .split(':')
        .nth(1)?
        .trim()
        .to_owned();
    let cores = info.lines().filter(|l| l.starts_with("processor")).count();
    let flags: Vec<&str> = info
        .lines()
        .find(|l| l.starts_with("flags"))
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    let have: Vec<&str> = FLAGS.into_iter().filter(|f| flags.contains(f)).collect();
    Some(format!(
        "{model} ({cores} logical cores; {})",
        have.join(" ")
    ))
}
