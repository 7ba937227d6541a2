//! Plain Rust over the API models: what the pages show, computed without a DOM so that
//! native `cargo test` covers it fast.

pub mod money;
