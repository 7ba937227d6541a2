//! What `cargo xtask` shares with the end-to-end tests: the build's Content-Security-Policy
//! and the nginx configuration generated from the built `dist/`, so that the nginx test
//! serves the build with the very file an operator gets (only its upstream told apart).

pub mod csp;
pub mod nginx;

/// The console's pages by address (`Page`, `PAGES`): the router's own table, included, so
/// that the addresses nginx answers with the page are the router's.
#[path = "../../src/router/table.rs"]
pub mod pages;

/// Errors end the run and are read by a person, so a message is all they carry.
pub type Result<T = ()> = std::result::Result<T, String>;
