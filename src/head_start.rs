//! A Nodes page's first read, sent by the router beside the fetch of the page's code rather
//! than after it: on a large reservation the two take about as long, and one after the other
//! they made the first grid of 10,000 nodes wait for both (`cargo xtask bench`).

use crate::api::client;
use crate::api::error::ApiError;
use crate::api::models::NodesResponse;
use crate::components::lazy_page::poll_once;
use crate::live::now_ms;
use crate::state::{ConnectionState, Sent};
use futures_channel::oneshot;
use leptos::prelude::*;
use std::cell::Cell;
use std::rc::Rc;

/// How long an answer may wait for its page: an older one is dropped and the page reads
/// anew, so its first figures are never older than its own first read would be.
pub(crate) const FRESH_MS: f64 = 1_000.0;

struct Started {
    reservation: i64,
    session: u64,
    answer: oneshot::Receiver<Result<NodesResponse, ApiError>>,
    answered_at: Rc<Cell<Option<f64>>>,
}

/// The `/nodes` read started for the Nodes page being loaded, in the app's context. It goes
/// through the one door ([`ConnectionState::send`]) for that page, so leaving the page aborts
/// it and a 401 ends the session as for any read.
#[derive(Clone, Copy)]
pub struct NodesHeadStart(StoredValue<Option<Started>, LocalStorage>);

impl Default for NodesHeadStart {
    fn default() -> Self {
        NodesHeadStart(StoredValue::new_local(None))
    }
}

impl NodesHeadStart {
    /// Sends the read of reservation `raw_id`'s nodes now, in place of any earlier one; nothing
    /// for an id that is not one (the page explains it) or without a session.
    pub fn start(&self, state: ConnectionState, raw_id: &str) {
        let (Ok(reservation), Some(session)) = (raw_id.parse::<i64>(), state.session_id_untracked()) else {
            self.0.set_value(None);
            return;
        };
        let (deliver, answer) = oneshot::channel();
        let answered_at = Rc::new(Cell::new(None));
        let stamp = Rc::clone(&answered_at);
        let answered = move |result| {
            stamp.set(Some(now_ms()));
            let _ = deliver.send(result);
        };
        // Polled once here, so the request leaves now, before the route renders the page
        // (whose code is fetched in that render), not in a task queued after it.
        match poll_once(state.send(move |c| async move { client::nodes(&c, reservation).await })) {
            Ok(result) => answered(result),
            Err(sent) => leptos::task::spawn_local(async move { answered(sent.await) }),
        }
        self.0.set_value(Some(Started { reservation, session, answer, answered_at }));
    }

    /// The read started for `reservation` in the current session, still running or answered
    /// within [`FRESH_MS`]; taken once, so every later poll sends its own.
    pub fn take(&self, state: ConnectionState, reservation: i64) -> Option<Sent<NodesResponse>> {
        let started = self.0.try_update_value(Option::take).flatten()?;
        let fresh = started.answered_at.get().is_none_or(|at| now_ms() - at <= FRESH_MS);
        let ours = started.reservation == reservation && state.session_id_untracked() == Some(started.session);
        if !(ours && fresh) {
            return None;
        }
        Some(Box::pin(async move {
            // The sender is dropped only with its task, which always sends: never in practice.
            match started.answer.await {
                Ok(result) => result,
                Err(_) => Err(ApiError::network(client::CANCELLED)),
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    /// `index.html`'s inline script sends a fresh load's first read (`api::first_read`). Being
    /// JavaScript, it cannot call the console's code: it writes the kept key's entry and this
    /// module's freshness rule again, and they must stay the console's.
    #[test]
    fn the_inline_script_reads_the_kept_key_and_keeps_an_answer_as_the_head_start_does() {
        let page = include_str!("../index.html");
        let entry = format!("sessionStorage.getItem(\"{}\")", crate::state::KEPT_CONNECTION);
        assert!(page.contains(&entry), "index.html reads {entry}");
        let fresh = format!("const FRESH_MS = {};", super::FRESH_MS);
        assert!(page.contains(&fresh), "index.html keeps an answer as long: {fresh}");
        assert!(
            page.contains(crate::api::first_read::GLOBAL),
            "index.html leaves window.{}",
            crate::api::first_read::GLOBAL
        );
    }
}
