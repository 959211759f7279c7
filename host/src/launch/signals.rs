//! The signals that end `unobserved run`: Ctrl-C, `timeout`/CI/`docker stop`, a closed
//! terminal. Each ends the run the same way (end record, browser group killed, profile
//! deleted) and exits 128 + its number.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Interrupt,
    Terminate,
    Hangup,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Hangup => "SIGHUP",
        }
    }

    pub fn exit_code(self) -> i32 {
        use crate::platform::exit;
        match self {
            Signal::Interrupt => exit::SIGINT,
            Signal::Terminate => exit::SIGTERM,
            Signal::Hangup => exit::SIGHUP,
        }
    }
}

/// Listens for all three from the moment it is made.
pub struct Signals {
    #[cfg(unix)]
    streams: [(Signal, tokio::signal::unix::Signal); 3],
}

impl Signals {
    #[cfg(unix)]
    pub fn listen() -> std::io::Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Signals {
            streams: [
                (Signal::Interrupt, signal(SignalKind::interrupt())?),
                (Signal::Terminate, signal(SignalKind::terminate())?),
                (Signal::Hangup, signal(SignalKind::hangup())?),
            ],
        })
    }

    #[cfg(not(unix))]
    pub fn listen() -> std::io::Result<Signals> {
        Ok(Signals {})
    }

    /// The next signal to arrive.
    #[cfg(unix)]
    pub async fn recv(&mut self) -> Signal {
        let [(a, sa), (b, sb), (c, sc)] = &mut self.streams;
        tokio::select! {
            _ = sa.recv() => *a,
            _ = sb.recv() => *b,
            _ = sc.recv() => *c,
        }
    }

    #[cfg(not(unix))]
    pub async fn recv(&mut self) -> Signal {
        let _ = tokio::signal::ctrl_c().await;
        Signal::Interrupt
    }
}
