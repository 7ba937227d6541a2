//! Everything that fetches, keeps or re-reads, and when: the poll drivers, the stores of
//! what was read (kept for the session where pages share it), the read a route starts as
//! it is opened, and the one rule for "is this answer still mine" ([`generation`]). May
//! import `api`, `domain`, `router`, `state` and `browser`; never `components` or `pages`.

pub mod fleet;
pub mod generation;
pub mod live;
pub mod nodes;
pub mod placements;
pub mod remote;
pub mod session;

use crate::router::Route;
use crate::state::{ConnectionState, Lifetime};

/// Starts the first read of `route` as it is opened, beside the fetch of its page's code
/// rather than after it: on a large reservation the two take about as long, and one after
/// the other they made the first grid of 10,000 nodes wait for both. It is sent even when
/// the page left behind was reading the same nodes (the page shows that answer at once,
/// with its age, and this read brings it up to date). Its answer lands in the store the
/// page reads; the page, once here, takes it as its first poll. A fresh load's first read
/// is sent earlier still, by `index.html`, for the same addresses ([`Route::first_read`]).
pub fn read_ahead(route: &Route, state: ConnectionState, nodes: nodes::NodesStore) {
    if let Route::Nodes(raw_id) = route {
        if let (Ok(id), true) = (raw_id.parse::<i64>(), state.is_connected_untracked()) {
            drop(nodes.fetch_new(id, Lifetime::Page));
        }
    }
}
