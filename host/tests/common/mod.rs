//! Shared by the integration tests and benches: the real binary, started the way a
//! browser starts its native host (origin argument, pipes, state dir from the
//! environment), spoken to in frames.
#![allow(dead_code)]

pub mod runs;
pub mod serve;
pub mod store_lines;

use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_unobserved");

/// A benchmark's setting from the environment, or its default.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
pub const CHROMIUM_ORIGIN: &str = "chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm/";

pub struct Host {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: ChildStdout,
}

impl Host {
    /// Started as Chromium would start it.
    pub fn chromium(state: &std::path::Path) -> Host {
        Host::start(state, &[CHROMIUM_ORIGIN])
    }

    pub fn start(state: &std::path::Path, args: &[&str]) -> Host {
        Host::start_with_env(state, args, &[])
    }

    /// With extra environment, e.g. a fault to inject.
    pub fn start_with_env(state: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Host {
        Host::spawn(state, args, env, Stdio::null())
    }

    /// Started as Chromium would start it, its stderr going to `stderr`.
    pub fn chromium_with_stderr(state: &std::path::Path, stderr: std::fs::File) -> Host {
        Host::spawn(state, &[CHROMIUM_ORIGIN], &[], stderr.into())
    }

    fn spawn(state: &std::path::Path, args: &[&str], env: &[(&str, &str)], stderr: Stdio) -> Host {
        let mut child = Command::new(BIN)
            .args(args)
            .envs(env.iter().copied())
            .env("UNOBSERVED_STATE_DIR", state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        Host {
            stdin: child.stdin.take(),
            stdout: child.stdout.take().unwrap(),
            child,
        }
    }

    /// Sends one message and returns the host's reply.
    pub fn send(&mut self, msg: &Value) -> Value {
        let body = serde_json::to_vec(msg).unwrap();
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(&(body.len() as u32).to_ne_bytes()).unwrap();
        stdin.write_all(&body).unwrap();
        stdin.flush().unwrap();
        self.recv()
    }

    /// Starts a run of small Blob uploads in this session: the host takes samples only
    /// for runs its own session started.
    pub fn start_run(&mut self, run_id: &str) {
        let plan =
            serde_json::json!({"size_bytes": 1024, "reps": 1000, "warmup": 0, "bodies": ["Blob"]});
        self.start_run_of(run_id, plan);
    }

    /// Starts a run of `plan`: its samples must fit it.
    pub fn start_run_of(&mut self, run_id: &str, plan: Value) {
        let run = serde_json::json!({"type": "run-started", "run": {"run_id": run_id,
            "browser": "Chromium", "browser_version": "156", "os": "Linux",
            "extension_version": "0.1.0", "source": "job", "started_at": "2026-11-30T00:00:00Z",
            "plan": plan}});
        let reply = self.send(&run);
        assert_eq!(reply["type"], "run-started", "{reply}");
    }

    pub fn recv(&mut self) -> Value {
        let mut len = [0u8; 4];
        self.stdout.read_exact(&mut len).unwrap();
        let mut body = vec![0u8; u32::from_ne_bytes(len) as usize];
        self.stdout.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// Closes stdin, as a browser does when it goes away.
    pub fn hang_up(&mut self) {
        drop(self.stdin.take());
    }

    pub fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `unobserved sink <args>` with a state dir of its own, ended when dropped.
pub struct SinkProcess {
    pub child: Child,
    /// The upload URL it printed first.
    pub url: String,
    pub state: tempfile::TempDir,
}

impl SinkProcess {
    pub fn start(args: &[&str]) -> SinkProcess {
        SinkProcess::start_with_env(args, &[])
    }

    /// With extra environment, e.g. a benchmark's seam.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> SinkProcess {
        let state = tempfile::tempdir().unwrap();
        let dir = state.path().to_owned();
        SinkProcess::spawn(&dir, state, args, env)
    }

    /// On a state dir of the caller's (where `--tls` keeps its certificate), which
    /// outlives this sink.
    pub fn start_in(state: &std::path::Path, args: &[&str]) -> SinkProcess {
        SinkProcess::spawn(state, tempfile::tempdir().unwrap(), args, &[])
    }

    fn spawn(
        state_dir: &std::path::Path,
        state: tempfile::TempDir,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> SinkProcess {
        let mut child = Command::new(BIN)
            .arg("sink")
            .args(args)
            .envs(env.iter().copied())
            .env("UNOBSERVED_STATE_DIR", state_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        SinkProcess {
            child,
            url: line.trim().to_owned(),
            state,
        }
    }

    /// host:port of the URL.
    pub fn authority(&self) -> String {
        let rest = self
            .url
            .split_once("://")
            .map_or(self.url.as_str(), |(_, r)| r);
        rest.split('/').next().unwrap().to_owned()
    }

    /// The URL's path, token included.
    pub fn path(&self) -> String {
        format!("/{}", self.url.splitn(4, '/').nth(3).unwrap_or(""))
    }
}

impl Drop for SinkProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `unobserved report ARGS…` over the store in `state`; it must exit 0.
#[allow(dead_code)] // not every test binary reports
pub fn report(state: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .arg("report")
        .args(args)
        .env("UNOBSERVED_STATE_DIR", state)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `unobserved sink` over TLS on a free loopback port, with a fresh self-signed
/// certificate for `localhost`.
#[allow(dead_code)] // only the TLS tests use it
pub struct TlsSink {
    /// The upload URL it printed first.
    pub url: String,
    pub cert_der: Vec<u8>,
    pub cert_path: String,
    pub port: u16,
    /// `/upload/<token>`
    pub path: String,
    _sink: SinkProcess,
    _dir: tempfile::TempDir,
}

/// Starts a TLS sink with `extra` arguments.
#[allow(dead_code)] // only the TLS tests use it
pub fn tls_sink(extra: &[&str]) -> TlsSink {
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_path, cert.cert.pem()).unwrap();
    std::fs::write(&key_path, cert.signing_key.serialize_pem()).unwrap();
    let mut args = vec![
        "--listen",
        "127.0.0.1:0",
        "--tls-cert",
        cert_path.to_str().unwrap(),
        "--tls-key",
        key_path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let sink = SinkProcess::start(&args);
    let url = sink.url.clone();
    let (port, path) = url
        .strip_prefix("https://127.0.0.1:")
        .and_then(|rest| rest.split_once('/'))
        .map(|(port, path)| (port.parse().unwrap(), format!("/{path}")))
        .unwrap_or_default();
    TlsSink {
        url,
        cert_der: cert.cert.der().to_vec(),
        cert_path: cert_path.to_str().unwrap().to_owned(),
        port,
        path,
        _sink: sink,
        _dir: dir,
    }
}
