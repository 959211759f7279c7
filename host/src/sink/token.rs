//! Per-session upload tokens: unguessable, and compared in constant time.

use subtle::ConstantTimeEq;

/// 128 random bits as 32 hex digits.
pub fn generate() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source is unavailable");
    hex::encode(bytes)
}

pub fn matches(expected: &str, presented: &str) -> bool {
    // Lengths are public (always 32 for ours); contents are compared without early exit.
    expected.len() == presented.len() && bool::from(expected.as_bytes().ct_eq(presented.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_and_distinct() {
        let (a, b) = (generate(), generate());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn only_the_exact_token_matches() {
        let t = generate();
        assert!(matches(&t, &t.clone()));
        assert!(!matches(&t, ""));
        assert!(!matches(&t, &t[..31]));
        assert!(!matches(&t, &format!("{t}0")));
        let mut flipped = t.clone().into_bytes();
        flipped[31] = if flipped[31] == b'0' { b'1' } else { b'0' };
        assert!(!matches(&t, std::str::from_utf8(&flipped).unwrap()));
    }
}
