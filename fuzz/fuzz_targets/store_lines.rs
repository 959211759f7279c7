//! Any bytes as a results store: the reader skips what it cannot parse, names it, and
//! never panics; every record it returns came from a complete line.
#![no_main]
use libfuzzer_sys::fuzz_target;
use unobserved::store::parse_lines;

fuzz_target!(|data: &[u8]| {
    let contents = parse_lines(data, 0, std::path::Path::new("fuzz.jsonl"));
    let lines = data.split(|&b| b == b'\n').count();
    assert!(contents.records.len() + contents.warnings.len() <= lines);
});
