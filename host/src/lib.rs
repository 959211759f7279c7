//! Unobserved: measure fetch() uploads in an everyday browser with nothing attached,
//! and verify every byte that arrives.

pub mod cli;
pub mod conditions;
pub mod domain;
pub mod export;
pub mod launch;
pub mod modules;
pub mod native;
pub mod platform;
pub mod protocol;
pub mod report;
pub mod serve;
pub mod sink;
pub mod stats;
pub mod store;
pub mod verify;
