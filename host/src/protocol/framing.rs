//! Chrome/Firefox native messaging framing: a u32 length in native byte order, then
//! that many bytes of UTF-8 JSON.

use byteorder::{NativeEndian, ReadBytesExt, WriteBytesExt};
use std::io::{self, ErrorKind, Read, Write};

/// Largest browser-to-host message we accept (Chrome's own limit is 64 MiB).
pub const MAX_INCOMING: u32 = 64 * 1024 * 1024;
/// Largest host-to-browser message: Chrome closes the port on anything bigger.
pub const MAX_OUTGOING: usize = 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The length said more than we accept. The body has been skipped, so the stream
    /// is still in sync and the session can go on.
    #[error("frame of {0} bytes is over the {MAX_INCOMING}-byte cap; skipped")]
    TooLarge(u32),
    /// A zero length: nothing follows, the stream is still in sync.
    #[error("frame with a zero length")]
    ZeroLength,
    /// stdin ended inside a header or a body: the stream is desynchronised.
    #[error("stream ended inside a frame ({got} of {expected} bytes)")]
    Truncated { expected: usize, got: usize },
    #[error("i/o error reading a frame: {0}")]
    Io(#[from] io::Error),
}

impl FrameError {
    /// Whether the next byte on the stream is the start of a new frame.
    pub fn stream_in_sync(&self) -> bool {
        matches!(self, FrameError::TooLarge(_) | FrameError::ZeroLength)
    }
}

/// Reads one frame. `Ok(None)` is a clean end of stream between frames.
pub fn read_frame(r: &mut impl Read) -> Result<Option<Vec<u8>>, FrameError> {
    let mut header = [0u8; 4];
    let got = read_full(r, &mut header)?;
    if got == 0 {
        return Ok(None);
    }
    if got < 4 {
        return Err(FrameError::Truncated { expected: 4, got });
    }
    let len = (&header[..]).read_u32::<NativeEndian>()?;
    if len == 0 {
        return Err(FrameError::ZeroLength);
    }
    if len > MAX_INCOMING {
        // Drain without buffering so the next frame lines up again.
        let skipped = io::copy(&mut r.take(len as u64), &mut io::sink())?;
        if skipped < len as u64 {
            return Err(FrameError::Truncated {
                expected: len as usize,
                got: skipped as usize,
            });
        }
        return Err(FrameError::TooLarge(len));
    }
    let mut body = vec![0u8; len as usize];
    let got = read_full(r, &mut body)?;
    if got < body.len() {
        return Err(FrameError::Truncated {
            expected: body.len(),
            got,
        });
    }
    Ok(Some(body))
}

/// Writes one frame, refusing (never sending) anything over [`MAX_OUTGOING`].
pub fn write_frame(w: &mut impl Write, json: &[u8]) -> io::Result<()> {
    if json.len() > MAX_OUTGOING {
        return Err(io::Error::new(
            ErrorKind::InvalidInput,
            format!(
                "reply of {} bytes is over the {MAX_OUTGOING}-byte limit",
                json.len()
            ),
        ));
    }
    w.write_u32::<NativeEndian>(json.len() as u32)?;
    w.write_all(json)?;
    w.flush()
}

/// Like `read_exact`, but reports how much arrived instead of failing on a short read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut v = (body.len() as u32).to_ne_bytes().to_vec();
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn round_trip_preserves_the_message() {
        let mut wire = Vec::new();
        write_frame(&mut wire, br#"{"type":"hello"}"#).unwrap();
        write_frame(&mut wire, br#"{"type":"run-finished"}"#).unwrap();
        let mut r = &wire[..];
        assert_eq!(read_frame(&mut r).unwrap().unwrap(), br#"{"type":"hello"}"#);
        assert_eq!(
            read_frame(&mut r).unwrap().unwrap(),
            br#"{"type":"run-finished"}"#
        );
        assert!(
            read_frame(&mut r).unwrap().is_none(),
            "clean EOF between frames"
        );
    }

    #[test]
    fn length_is_native_endian() {
        let mut wire = Vec::new();
        write_frame(&mut wire, b"{}").unwrap();
        assert_eq!(&wire[..4], &2u32.to_ne_bytes());
    }

    #[test]
    fn oversized_frame_is_skipped_and_the_stream_stays_in_sync() {
        let big = vec![b' '; MAX_INCOMING as usize + 1];
        let mut wire = frame(&big);
        wire.extend(frame(br#"{"type":"hello"}"#));
        let mut r = &wire[..];
        let err = read_frame(&mut r).unwrap_err();
        assert!(matches!(err, FrameError::TooLarge(n) if n == MAX_INCOMING + 1));
        assert!(err.stream_in_sync());
        assert_eq!(read_frame(&mut r).unwrap().unwrap(), br#"{"type":"hello"}"#);
    }

    #[test]
    fn a_frame_at_exactly_the_cap_is_accepted() {
        let body = vec![b' '; MAX_INCOMING as usize];
        let wire = frame(&body);
        assert_eq!(
            read_frame(&mut &wire[..]).unwrap().unwrap().len(),
            MAX_INCOMING as usize
        );
    }

    #[test]
    fn zero_length_is_an_in_sync_error() {
        let mut wire = 0u32.to_ne_bytes().to_vec();
        wire.extend(frame(b"{}"));
        let mut r = &wire[..];
        let err = read_frame(&mut r).unwrap_err();
        assert!(matches!(err, FrameError::ZeroLength) && err.stream_in_sync());
        assert_eq!(read_frame(&mut r).unwrap().unwrap(), b"{}");
    }

    #[test]
    fn truncated_header_and_body_desynchronise() {
        let err = read_frame(&mut &[1u8, 0][..]).unwrap_err();
        assert!(matches!(
            err,
            FrameError::Truncated {
                expected: 4,
                got: 2
            }
        ));
        assert!(!err.stream_in_sync());

        let mut wire = 10u32.to_ne_bytes().to_vec();
        wire.extend_from_slice(b"{\"a\"");
        let err = read_frame(&mut &wire[..]).unwrap_err();
        assert!(matches!(
            err,
            FrameError::Truncated {
                expected: 10,
                got: 4
            }
        ));
    }

    #[test]
    fn oversized_reply_is_refused_and_nothing_is_written() {
        let mut wire = Vec::new();
        let err = write_frame(&mut wire, &vec![b'x'; MAX_OUTGOING + 1]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(wire.is_empty(), "no partial frame may reach the browser");
        write_frame(&mut wire, &vec![b'x'; MAX_OUTGOING]).unwrap();
    }
}
