//! The vocabulary: pure types that import nothing else in the crate.

pub mod pin;
