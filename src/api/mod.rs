//! The two APIs the console speaks, and nothing about views.

pub mod enums;
pub mod models;
pub mod org;
