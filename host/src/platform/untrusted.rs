//! Untrusted text (a peer's message type, a field's value, a parser's error that quotes
//! one) as a log line or an error reply may show it: its first chars and how many more
//! there were. A 64 MiB value must not become a 64 MiB log line or reply.

use std::fmt::{self, Display, Write};

/// How many chars of an untrusted value a line or a reply shows.
pub const MAX_CHARS: usize = 200;

/// `value`, cut after [`MAX_CHARS`] chars (on a char boundary) with `…[+N more chars]`.
/// Display shows it as it is; Debug of a `&str` escapes it, quoted, so that a newline
/// in it cannot forge a log line.
pub struct Clipped<T>(pub T);

impl<T: Display> Display for Clipped<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_clipped(f, &self.0, MAX_CHARS)
    }
}

impl fmt::Debug for Clipped<&str> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Cut first: escaping all of a 64 MiB value only to drop it is the slow part.
        let (head, _, dropped) = split(self.0, MAX_CHARS);
        write!(f, "{head:?}")?;
        more(f, dropped)
    }
}

/// Writes the first `max` chars of `value` to `out`, then how many more there were.
/// `value` may be written in pieces (a parser's error, a log record's arguments).
pub fn write_clipped(out: &mut impl Write, value: impl Display, max: usize) -> fmt::Result {
    let mut budget = Budget {
        out,
        left: max,
        dropped: 0,
    };
    write!(budget, "{value}")?;
    more(budget.out, budget.dropped)
}

/// Passes on the first `left` chars written to it and counts the rest.
struct Budget<'a, W> {
    out: &'a mut W,
    left: usize,
    dropped: usize,
}

impl<W: Write> Write for Budget<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let (head, kept, dropped) = split(s, self.left);
        self.left -= kept;
        self.dropped += dropped;
        self.out.write_str(head)
    }
}

/// The first `n` chars of `s`, how many that is, and how many chars follow them.
fn split(s: &str, n: usize) -> (&str, usize, usize) {
    match s.char_indices().nth(n) {
        Some((at, _)) => (&s[..at], n, s[at..].chars().count()),
        None => (s, s.chars().count(), 0),
    }
}

fn more(f: &mut impl Write, dropped: usize) -> fmt::Result {
    if dropped > 0 {
        write!(f, "…[+{dropped} more chars]")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number in `…[+N more chars]`, if any.
    fn dropped(shown: &str) -> Option<usize> {
        let tail = shown.rsplit_once("…[+")?.1;
        tail.strip_suffix(" more chars]")?.parse().ok()
    }

    #[test]
    fn short_text_is_shown_whole() {
        assert_eq!(Clipped("hello").to_string(), "hello");
        assert_eq!(format!("{:?}", Clipped("a\nb")), format!("{:?}", "a\nb"));
        assert_eq!(dropped(&Clipped("x".repeat(MAX_CHARS)).to_string()), None);
    }

    #[test]
    fn long_text_keeps_its_first_chars_and_reports_the_rest() {
        let long = "A".repeat(1_000_000);
        let shown = Clipped(long.as_str()).to_string();
        assert!(shown.starts_with(&"A".repeat(MAX_CHARS)));
        assert_eq!(dropped(&shown), Some(1_000_000 - MAX_CHARS));
        let debug = format!("{:?}", Clipped(long.as_str()));
        assert_eq!(dropped(&debug), Some(1_000_000 - MAX_CHARS));
        assert!(debug.len() < MAX_CHARS + 40, "{}", debug.len());
    }

    #[test]
    fn cuts_fall_on_char_boundaries_and_count_chars_not_bytes() {
        // Two- and four-byte chars, so a byte count would cut inside one.
        let text: String = "\u{85}🦀".repeat(MAX_CHARS);
        let shown = Clipped(text.as_str()).to_string();
        let head = shown.rsplit_once("…[+").unwrap().0;
        assert_eq!(head.chars().count(), MAX_CHARS);
        assert_eq!(dropped(&shown), Some(MAX_CHARS));
        // Escaped, each U+0085 is six chars, but the count is still of the value's chars.
        assert_eq!(
            dropped(&format!("{:?}", Clipped(text.as_str()))),
            Some(MAX_CHARS)
        );
    }

    #[test]
    fn a_value_written_in_pieces_is_clipped_as_one() {
        let err = serde_json::from_str::<u32>(&format!("\"{}\"", "B".repeat(5000))).unwrap_err();
        let full = err.to_string().chars().count();
        let mut shown = String::new();
        write_clipped(&mut shown, &err, 50).unwrap();
        assert_eq!(dropped(&shown), Some(full - 50));
        assert_eq!(shown.rsplit_once("…[+").unwrap().0.chars().count(), 50);
    }
}
