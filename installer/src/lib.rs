//! Registers the `unobserved` native messaging host with browsers. The browsers and
//! where each one looks are data (`browsers.rs`); the code only walks the table.

pub mod ids;
pub mod manifest;
