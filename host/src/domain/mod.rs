//! The vocabulary, pure: types every layer names and none of them owns. Nothing here
//! imports anything else from the crate.

pub mod conditions;
