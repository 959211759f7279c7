//! `error`: the extension reports a failure of its own. The host logs it and answers
//! `error-logged` so that replies stay one per message.

use crate::platform::untrusted::Clipped;
use crate::protocol::Outgoing;

pub fn handle(message: String, code: Option<i64>) -> Outgoing {
    // Untrusted text: escaped, so a newline in it cannot forge a log line.
    log::warn!(
        "extension reported an error{}: {:?}",
        code.map(|c| format!(" ({c})")).unwrap_or_default(),
        Clipped(message.as_str())
    );
    Outgoing::ErrorLogged
}
