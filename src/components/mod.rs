//! Small reusable views. Pages compose them; none of them fetches.

pub mod csv_button;
pub mod error_panel;
pub mod header;
pub mod money;
pub mod usage_bar;
