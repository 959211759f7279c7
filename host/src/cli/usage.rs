//! Bad usage: what the user typed cannot work. It exits 2, like clap's own errors, and
//! is found before anything is launched.

use crate::domain::flags::FlagError;

/// An error in what was asked for, as opposed to a failure while doing it, typed
/// (`export::flag_error` words it).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub FlagError);

/// Arguments that cannot work, as the command's error (exit 2).
pub fn flag(e: FlagError) -> anyhow::Error {
    UsageError(e).into()
}

/// A `--browser` that names none this tool can launch, with the ones it can.
pub fn unknown_browser(given: &str) -> FlagError {
    FlagError::UnknownBrowser {
        given: given.to_owned(),
        known: crate::launch::browsers::LAUNCHABLE
            .iter()
            .map(|l| l.key.to_owned())
            .collect(),
    }
}

/// The typed usage error `e` carries, if any: what the tests read, never the words.
pub fn flag_of(e: &anyhow::Error) -> Option<&FlagError> {
    e.downcast_ref::<UsageError>().map(|u| &u.0)
}
