//! Plain Rust over the API models: what the pages show, computed without a DOM so that
//! native `cargo test` covers it fast. Nothing here reads a clock: `now` is passed in.

pub mod accounts;
pub mod alerts;
pub mod explain;
pub mod exports;
pub mod fleet;
pub mod money;
pub mod nodes;
pub mod polling;
pub mod status;
pub mod terms;
pub mod words;
