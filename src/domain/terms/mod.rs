//! A reservation's term over time: amendments, renewals, the capacity timeline and what
//! stops when a deadline comes.

pub mod amendments;
pub mod at_risk;
pub mod renewal;
pub mod timeline;
