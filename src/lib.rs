//! The reserved-GPU console: a Leptos client-side app over the EcoHash Compute API
//! (reserved GPU nodes) and the org capacity API.

pub mod api;
pub mod domain;
