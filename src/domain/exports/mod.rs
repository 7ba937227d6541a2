//! Files the console hands to other tools, built from what it already read.

pub mod csv;
pub mod focus;
pub mod ics;
pub mod summary;
