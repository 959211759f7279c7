//! Registers the `unobserved` native messaging host with browsers. The browsers and
//! where each one looks are data (`browsers.rs`); the code only walks the table.

pub mod action;
pub mod apply;
pub mod browsers;
pub mod doctor;
pub mod files;
pub mod ids;
pub mod layout;
pub mod manifest;
pub mod plan;
pub mod receipt;
pub mod registry;
pub mod roots;
pub mod sandbox;
pub mod trust;
