//! Everything that fetches, keeps or re-reads, and when: the poll drivers, the stores of
//! what was read (kept for the session where pages share it), the read a route starts as
//! it is opened, and the one rule for "is this answer still mine" ([`generation`]). May
//! import `api`, `domain`, `router`, `state` and `browser`; never `components` or `pages`.

pub mod accounts;
pub mod fit_watch;
pub mod fleet;
pub mod generation;
pub mod live;
pub mod nodes;
pub mod org;
pub mod pacer;
pub mod placements;
pub mod remote;
pub mod reservations;
pub mod session;

use crate::api::client;
use crate::router::Route;
use crate::state::ConnectionState;

/// Sends the first read of `route` as it is opened, beside the fetch of its page's code
/// rather than after it: on a large reservation the two take about as long, and one after
/// the other they made the first grid of 10,000 nodes wait for both. The answer arrives as
/// text ([`client::send_ahead`]): the page, once here, takes it as its first poll and
/// decodes it, so the first load does not carry the `/nodes` decoding. Not sent when the
/// store holds an answer of the last second, which the page shows without a read. A fresh
/// load's first read is sent earlier still, by `index.html`, for the same addresses
/// ([`Route::first_read`]).
pub fn read_ahead(route: &Route, state: ConnectionState, nodes: nodes::NodesStore) {
    let (Route::Nodes { .. }, Some(id), Some(path)) = (route, route.reservation_number(), route.first_read()) else {
        return;
    };
    if let (Some(connection), false) = (state.connection_untracked(), nodes.has_fresh(id)) {
        client::send_ahead(&connection, &path);
    }
}
