//! Bad usage: what the user typed cannot work. It exits 2, like clap's own errors, and
//! is found before anything is launched.

use crate::domain::flags::FlagError;

/// An error in what was asked for, as opposed to a failure while doing it: `run`'s
/// flags typed, other commands' in their own words.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error("{0}")]
    Said(String),
    #[error("{0}")]
    Flag(FlagError),
}

/// `return Err(usage("..."))`-style helper.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError::Said(message.into()).into()
}

/// `run`'s flags that cannot work, typed (`export::flag_error` words them).
pub fn flag(e: FlagError) -> anyhow::Error {
    UsageError::Flag(e).into()
}

/// The typed flag error `e` carries, if any: what the tests read, never the words.
pub fn flag_of(e: &anyhow::Error) -> Option<&FlagError> {
    match e.downcast_ref::<UsageError>() {
        Some(UsageError::Flag(f)) => Some(f),
        _ => None,
    }
}
