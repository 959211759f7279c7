//! Bad usage: what the user typed cannot work. It exits 2, like clap's own errors, and
//! is found before anything is launched.

/// An error in what was asked for, as opposed to a failure while doing it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// `return Err(usage!("..."))`-style helper.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError(message.into()).into()
}
