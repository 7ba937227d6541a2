//! Plain Rust over the API models: what the pages show, computed without a DOM so that
//! native `cargo test` covers it fast. Nothing here reads a clock: `now` is passed in.

pub mod address;
pub mod alerts;
pub mod amendments;
pub mod at_risk;
pub mod billing;
pub mod capacity;
pub mod capacity_timeline;
pub mod csv;
pub mod explain;
pub mod fit;
pub mod fleet;
pub mod fleet_history;
pub mod fleet_poll;
pub mod grid;
pub mod launched;
pub mod ledger;
pub mod make_room;
pub mod node_filter;
pub mod org_capacity;
pub mod polling;
pub mod renewal;
pub mod status;
pub mod tab_share;
pub mod text;
pub mod time;
pub mod window;
pub mod words;
pub mod workload;
