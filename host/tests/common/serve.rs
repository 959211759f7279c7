//! `unobserved serve` as a test starts it: its own state dir, the URL it prints first,
//! and plain HTTP to its page messages.
#![allow(dead_code)]

use super::BIN;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};

pub struct Serve {
    pub child: Child,
    /// The page URL, printed first.
    pub url: String,
    /// The QR code's lines after the URL, when one was asked for (up to the blank line).
    pub qr: Vec<String>,
    pub state: tempfile::TempDir,
}

impl Serve {
    pub fn start(args: &[&str], qr: bool) -> Serve {
        let state = tempfile::tempdir().unwrap();
        Serve::start_in(state, args, qr, &[])
    }

    pub fn start_in(
        state: tempfile::TempDir,
        args: &[&str],
        qr: bool,
        env: &[(&str, &str)],
    ) -> Serve {
        let (child, mut out, line) = spawn(state.path(), args, env);
        let mut qr_lines = Vec::new();
        if qr {
            loop {
                let mut l = String::new();
                out.read_line(&mut l).unwrap();
                let l = l.trim_end_matches('\n');
                if l.is_empty() {
                    break;
                }
                qr_lines.push(l.to_owned());
            }
        }
        // The rest (each run's table) is not read by these tests; keep the pipe drained.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        Serve {
            child,
            url: line,
            qr: qr_lines,
            state,
        }
    }

    /// host:port of the URL.
    pub fn authority(&self) -> String {
        self.url
            .split("://")
            .nth(1)
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_owned()
    }

    pub fn port(&self) -> u16 {
        self.authority()
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    }

    pub fn token(&self) -> String {
        self.url.rsplit('#').next().unwrap().to_owned()
    }

    /// The store's lines, parsed.
    pub fn store(&self) -> Vec<Value> {
        std::fs::read_to_string(self.state.path().join("results.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `unobserved serve ARGS` on the state dir `state` (maybe another serve's), serving once
/// it printed its URL: the process, the rest of its stdout, and the URL.
pub fn spawn(
    state: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (Child, BufReader<std::process::ChildStdout>, String) {
    let mut child = Command::new(BIN)
        .arg("serve")
        .args(args)
        .envs(env.iter().copied())
        .env("UNOBSERVED_STATE_DIR", state)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    (child, out, line.trim().to_owned())
}

/// A reply: status and JSON body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
    /// The body as it came (a page's HTML).
    pub text: String,
}

/// One HTTP/1.1 request on its own connection to `addr`, naming `host`, with a body
/// (POST) or without (GET), and headers; the reply read to its end.
pub fn request(
    addr: &str,
    host: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Reply {
    let stream = std::net::TcpStream::connect(addr).unwrap();
    request_on(stream, host, method, path, headers, body)
}

/// A TCP connection to `addr` from the loopback address `from` (127.0.0.2 and up are
/// other peers of a sink on 127.0.0.1, as other devices would be).
pub fn connect_from(from: std::net::Ipv4Addr, addr: std::net::SocketAddr) -> std::net::TcpStream {
    try_connect_from(from, addr).expect("connects from another loopback address")
}

/// `connect_from`, or None when the connection cannot be made (a sink under pressure).
pub fn try_connect_from(
    from: std::net::Ipv4Addr,
    addr: std::net::SocketAddr,
) -> Option<std::net::TcpStream> {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).ok()?;
    socket
        .bind(&std::net::SocketAddr::from((from, 0)).into())
        .ok()?;
    socket.connect(&addr.into()).ok()?;
    Some(socket.into())
}

/// `request` on a connection already made.
pub fn request_on(
    mut stream: std::net::TcpStream,
    host: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Reply {
    // A reply that never comes fails the test (status 0) instead of hanging it.
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(120)))
        .unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        head.push_str(&format!(
            "content-type: application/json\r\ncontent-length: {}\r\n",
            b.len()
        ));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    if let Some(b) = body {
        // A body over the cap may be refused before it is all read.
        let _ = stream.write_all(b);
    }
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    Reply {
        status,
        body: serde_json::from_str(body).unwrap_or(Value::Null),
        text: body.to_owned(),
    }
}

impl Serve {
    /// A page message to this serve, by the name in its URL.
    pub fn call(&self, method: &str, what: &str, body: Option<&Value>) -> Reply {
        let body = body.map(|b| serde_json::to_vec(b).unwrap());
        let ua = [("user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/60.5 Safari/605.1.15")];
        let addr = format!("127.0.0.1:{}", self.port());
        request(
            &addr,
            &self.authority(),
            method,
            &format!("/serve/{}/{what}", self.token()),
            &ua,
            body.as_deref(),
        )
    }
}
