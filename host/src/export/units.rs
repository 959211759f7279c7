//! How sizes are written for people: the one formatter every layer uses (reports,
//! exports, plan errors), so no layer reaches up into `export` for it.

/// 33554432 -> "32 MiB", 1536 -> "1.5 KiB". Kept by hand: bytesize always prints a
/// decimal ("32.0 MiB") and goes on to TiB, and this text is in saved reports.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 {
        format!("{v} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
