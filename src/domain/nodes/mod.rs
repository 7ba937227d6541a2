//! One reservation's nodes: GPU figures, the grid, finding nodes and workloads, windowing.

pub mod capacity;
pub mod filter;
pub mod grid;
pub mod window;
pub mod workload;
