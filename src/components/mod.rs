//! Small reusable views. Pages compose them; only `remote` talks to the API (through the
//! fetch closure a page gives it).

pub mod accounts_panel;
pub mod alerts_bell;
pub mod api_text;
pub mod at_risk;
pub mod banner;
pub mod bar_chart;
pub mod copy_summary;
pub mod data_table;
pub mod download_button;
pub mod error_panel;
pub mod field;
pub mod fit_watch;
pub mod flag;
pub mod fleet_reads;
pub mod gpu_grid;
pub mod header;
pub mod html;
pub mod launch_link;
pub mod lazy_page;
pub mod make_room;
pub mod money;
pub mod node_filters;
pub mod notify;
pub mod payment_panel;
pub mod placements;
pub mod remote;
pub mod reservation_route;
pub mod sparkline;
pub mod status_badge;
pub mod time;
pub mod timeline;
pub mod usage_bar;
