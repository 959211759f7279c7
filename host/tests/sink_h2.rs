//! The TLS sink speaks HTTP/2 and HTTP/1.1, chosen by ALPN, with HTTP/2's own limits:
//! streams per connection and header-list size, advertised and enforced, and the
//! body cap as over HTTP/1.1. curl for real uploads; a raw frame client (rustls, frames
//! written by hand) for what curl would never send.

mod common;
use common::{tls_sink, TlsSink};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::Arc;
use tokio_rustls::rustls;

/// curl PUT of `body` with `flag` (--http2 / --http1.1); (HTTP version curl used, reply).
fn curl_put(s: &TlsSink, flag: &str, body: &str) -> (String, String) {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "20", flag, "--cacert", &s.cert_path])
        .args(["--resolve", &format!("localhost:{}:127.0.0.1", s.port)])
        .args([
            "-X",
            "PUT",
            "--data-binary",
            body,
            "-w",
            "\n%{http_version} %{http_code}",
        ])
        .arg(format!("https://localhost:{}{}", s.port, s.path))
        .output()
        .expect("curl is needed (scripts/ensure-deps.sh installs it)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (reply, meta) = text.rsplit_once('\n').unwrap_or(("", ""));
    (meta.to_owned(), reply.to_owned())
}

const ABC_SHA256: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

#[test]
fn alpn_picks_http2_when_offered_and_http1_otherwise_and_both_verify() {
    let s = tls_sink(&[]);
    let (meta, reply) = curl_put(&s, "--http2", "abc");
    assert_eq!(meta, "2 200", "{reply}");
    let v: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        (v["sha256"].as_str(), v["protocol"].as_str()),
        (Some(ABC_SHA256), Some("h2"))
    );
    let (meta, reply) = curl_put(&s, "--http1.1", "abc");
    assert_eq!(meta, "1.1 200", "{reply}");
    let v: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        (v["sha256"].as_str(), v["protocol"].as_str()),
        (Some(ABC_SHA256), Some("http/1.1"))
    );
}

#[test]
fn a_body_over_the_cap_is_refused_over_http2_too() {
    let s = tls_sink(&["--max-body", "1000"]);
    let (meta, _) = curl_put(&s, "--http2", &"x".repeat(2000));
    assert_eq!(meta, "2 413");
}

/// A TLS connection that offered only h2, with the client preface and empty SETTINGS sent.
fn h2_connection(s: &TlsSink) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(s.cert_der.clone().into()).unwrap();
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec()];
    let conn =
        rustls::ClientConnection::new(Arc::new(config), "localhost".try_into().unwrap()).unwrap();
    let tcp = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    tcp.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    tls.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    write_frame(&mut tls, 0x4, 0, 0, &[]);
    tls.flush().unwrap();
    assert_eq!(tls.conn.alpn_protocol(), Some(&b"h2"[..]));
    tls
}

fn write_frame(w: &mut impl Write, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    let len = payload.len() as u32;
    let mut head = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
    head.extend_from_slice(&stream.to_be_bytes());
    w.write_all(&head).unwrap();
    w.write_all(payload).unwrap();
}

/// (type, flags, stream, payload) of the next frame, or None when the connection ends.
fn read_frame(r: &mut impl Read) -> Option<(u8, u8, u32, Vec<u8>)> {
    let mut head = [0u8; 9];
    r.read_exact(&mut head).ok()?;
    let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
    let stream = u32::from_be_bytes([head[5] & 0x7f, head[6], head[7], head[8]]);
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload).ok()?;
    Some((head[3], head[4], stream, payload))
}

/// HPACK: a literal header field without indexing, new name, no Huffman coding.
fn literal(block: &mut Vec<u8>, name: &str, value: &str) {
    block.push(0x00);
    for s in [name, value] {
        let n = s.len();
        if n < 127 {
            block.push(n as u8);
        } else {
            block.push(127);
            let mut rest = n - 127;
            while rest >= 128 {
                block.push((rest % 128) as u8 | 0x80);
                rest /= 128;
            }
            block.push(rest as u8);
        }
        block.extend_from_slice(s.as_bytes());
    }
}

/// The request headers of a real upload to the sink (one it accepts and then waits on
/// for the body), plus `extra` headers.
fn put_headers(s: &TlsSink, extra: usize) -> Vec<u8> {
    let mut block = Vec::new();
    let authority = format!("localhost:{}", s.port);
    for (n, v) in [
        (":method", "PUT"),
        (":scheme", "https"),
        (":path", s.path.as_str()),
        (":authority", authority.as_str()),
    ] {
        literal(&mut block, n, v);
    }
    for i in 0..extra {
        literal(&mut block, &format!("x-{i}"), "y");
    }
    block
}

/// Reads the server's SETTINGS, acknowledges them, and returns them.
fn settings(tls: &mut impl Read) -> Vec<(u16, u32)> {
    let (kind, _, _, payload) = read_frame(tls).expect("the server's SETTINGS");
    assert_eq!(kind, 0x4, "the server speaks first with SETTINGS");
    payload
        .chunks(6)
        .map(|c| {
            (
                u16::from_be_bytes([c[0], c[1]]),
                u32::from_be_bytes([c[2], c[3], c[4], c[5]]),
            )
        })
        .collect()
}

/// Frames until the server resets `stream` or goes away: (type, error code). Other
/// streams' frames (an answer, or a reset once answered) are passed over.
fn refusal(tls: &mut impl Read, stream: u32) -> Option<(u8, u32)> {
    while let Some((kind, _, id, payload)) = read_frame(tls) {
        match kind {
            // RST_STREAM: the error code; GOAWAY: last stream id, then the code.
            0x3 if id == stream => {
                return Some((kind, u32::from_be_bytes(payload[0..4].try_into().unwrap())))
            }
            0x7 => return Some((kind, u32::from_be_bytes(payload[4..8].try_into().unwrap()))),
            _ => {}
        }
    }
    None
}

#[test]
fn http2_advertises_its_stream_and_header_limits() {
    let s = tls_sink(&[]);
    let mut tls = h2_connection(&s);
    let got = settings(&mut tls);
    // SETTINGS_MAX_CONCURRENT_STREAMS (3) and SETTINGS_MAX_HEADER_LIST_SIZE (6).
    assert!(got.contains(&(0x3, 16)), "{got:?}");
    assert!(got.contains(&(0x6, 16 * 1024)), "{got:?}");
}

#[test]
fn a_seventeenth_open_stream_is_refused() {
    let s = tls_sink(&[]);
    let mut tls = h2_connection(&s);
    settings(&mut tls);
    write_frame(&mut tls, 0x4, 0x1, 0, &[]); // SETTINGS ACK: the limits now bind
                                             // Seventeen uploads opened (END_HEADERS, no END_STREAM), none finished.
    for i in 0..17u32 {
        write_frame(&mut tls, 0x1, 0x4, 2 * i + 1, &put_headers(&s, 0));
    }
    tls.flush().unwrap();
    let ended = refusal(&mut tls, 33).expect("the server refused the 17th stream");
    // REFUSED_STREAM (7) on the extra stream, or the connection closed as a protocol error (1).
    assert!(matches!(ended, (0x3, 0x7) | (0x7, 0x1)), "{ended:?}");
}

#[test]
fn a_header_list_over_16_kib_is_not_served() {
    let s = tls_sink(&[]);
    let mut tls = h2_connection(&s);
    settings(&mut tls);
    write_frame(&mut tls, 0x4, 0x1, 0, &[]);
    // 600 tiny headers: 4 KiB on the wire, but 600 × (1 + 3 + 32) bytes of header list.
    write_frame(&mut tls, 0x1, 0x4 | 0x1, 1, &put_headers(&s, 600));
    tls.flush().unwrap();
    // A 431 on stream 1, or the stream reset / connection closed: never the upload's 200.
    let answer = loop {
        match read_frame(&mut tls) {
            Some((0x1, _, 1, block)) => break format!("status {:?}", status_of(&block)),
            Some((kind @ (0x3 | 0x7), ..)) => break format!("frame {kind}"),
            Some(_) => continue,
            None => break "closed".into(),
        }
    };
    assert!(
        answer == "status Some(\"431\")" || answer.starts_with("frame") || answer == "closed",
        "an oversized header list got {answer}"
    );
}

/// The `:status` at the head of a response's header block: an indexed static entry, or
/// a literal with the static name `:status` whose digits may be Huffman-coded.
fn status_of(block: &[u8]) -> Option<String> {
    const STATIC: [&str; 7] = ["200", "204", "206", "304", "400", "404", "500"];
    let first = *block.first()?;
    if (0x88..=0x8e).contains(&first) {
        return Some(STATIC[(first - 0x88) as usize].into());
    }
    // 0x48: with incremental indexing, 0x08: without, 0x18: never indexed; name index 8.
    if ![0x48, 0x08, 0x18].contains(&first) {
        return None;
    }
    let (huffman, len) = (block[1] & 0x80 != 0, (block[1] & 0x7f) as usize);
    let value = &block[2..2 + len];
    if !huffman {
        return Some(String::from_utf8_lossy(value).into_owned());
    }
    // HPACK's Huffman codes for the digits: 0-2 in five bits, 3-9 in six.
    let code = |d: u8| {
        if d < 3 {
            (d as u32, 5)
        } else {
            (0b011001 + (d as u32 - 3), 6)
        }
    };
    let bits: String = value.iter().map(|b| format!("{b:08b}")).collect();
    let (mut out, mut at) = (String::new(), 0);
    'next: while at < bits.len() {
        for d in 0..10u8 {
            let (c, n) = code(d);
            if bits.get(at..at + n) == Some(&format!("{c:0n$b}")[..]) {
                out.push((b'0' + d) as char);
                at += n;
                continue 'next;
            }
        }
        break; // the rest is padding (all ones)
    }
    Some(out)
}

#[test]
fn the_tls_ceilings_are_measured_over_h1_and_h2_and_a_refusal_is_an_error() {
    use unobserved::domain::arm::Transport;
    use unobserved::sink::ceiling_tls::measure;
    let s = tls_sink(&["--max-body", "1MiB"]);
    let chain = std::fs::read_to_string(&s.cert_path).unwrap();
    for t in [Transport::H1Tls, Transport::H2] {
        let c = measure(&s.url, &chain, t, 1 << 20).unwrap();
        let (lo, hi) = c.receive_range;
        assert!(
            0.0 < lo && lo <= c.receive_mbps && c.receive_mbps <= hi,
            "{t}: {c:?}"
        );
        // A body over the sink's cap is answered 413: no ceiling, an error.
        assert!(measure(&s.url, &chain, t, (1 << 20) + 1).is_err(), "{t}");
    }
}
