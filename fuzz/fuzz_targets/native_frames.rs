//! Any byte stream on the host's stdin: frames are read until the stream ends or
//! desynchronises, and every frame body goes through the message parser. Nothing may
//! panic, and an in-sync error must leave the reader at a frame boundary.
#![no_main]
use libfuzzer_sys::fuzz_target;
use unobserved::protocol::{parse_incoming, read_frame};

fuzz_target!(|data: &[u8]| {
    let mut input = data;
    for _ in 0..64 {
        match read_frame(&mut input) {
            Ok(None) => break,
            Ok(Some(body)) => {
                let _ = parse_incoming(&body);
            }
            Err(e) if e.stream_in_sync() => continue,
            Err(_) => break,
        }
    }
});
