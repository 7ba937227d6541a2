//! The two APIs the console speaks, and nothing about views.

pub mod assumptions;
pub mod client;
pub mod enums;
pub mod error;
pub mod escape;
pub mod first_read;
pub mod limits;
pub mod models;
pub mod money;
pub mod org;
pub mod timestamp;

#[cfg(test)]
mod decode_props;
