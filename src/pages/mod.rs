//! One file per route.

pub mod capacity;
pub mod connect;
pub mod fit;
pub mod launch;
pub mod ledger;
pub mod nodes;
pub mod org;
pub mod overview;
pub mod reservation;
pub mod reservations;
pub mod workload;
