//! One API read kept for the page that shows it: the data last received (kept when a
//! refresh fails), the latest error, and whether a read is under way. The views of it are
//! `components::remote`.

use super::generation::Generation;
use crate::api::client::Connection;
use crate::api::error::ApiError;
use crate::state::{use_clock, use_connection, ConnectionState};
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use std::future::Future;
use std::pin::Pin;

/// One read's answer as [`Remote::from_reads`] takes it: the data, with when it was read.
pub type Read<T> = Pin<Box<dyn Future<Output = Result<Fetched<T>, ApiError>>>>;

/// Data as received, with when.
#[derive(Clone, Debug, PartialEq)]
pub struct Fetched<T> {
    pub value: T,
    pub at: DateTime<Utc>,
}

/// Everything known about the read, for one session only.
#[derive(Clone, Debug)]
struct Snapshot<T> {
    session: u64,
    data: Option<Fetched<T>>,
    error: Option<ApiError>,
    loading: bool,
}

impl<T> Snapshot<T> {
    fn empty(session: u64) -> Self {
        Snapshot { session, data: None, error: None, loading: true }
    }
}

/// A read that refetches when the connection (or any signal the fetch closure reads)
/// changes, and on [`Remote::refetch`]. Only a refetch keeps the data on screen meanwhile:
/// data from an earlier key, or for another id, is dropped at once, never shown as this.
pub struct Remote<T: 'static> {
    snapshot: RwSignal<Snapshot<T>, LocalStorage>,
    /// Bumped by `refetch`; the fetch closure tracks it.
    retries: RwSignal<u64>,
    state: ConnectionState,
}

impl<T> Clone for Remote<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Remote<T> {}

impl<T: Clone + 'static> Remote<T> {
    /// `fetch` is called synchronously (signals it reads are tracked) with the current
    /// connection, through [`ConnectionState::send`] (a 401 ends the session).
    pub fn new<F, Fut>(fetch: F) -> Self
    where
        F: Fn(Connection) -> Fut + 'static,
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        let (state, clock) = (use_connection(), use_clock());
        Self::from_reads(move |_anew| {
            let sent = state.send(&fetch);
            Box::pin(async move { sent.await.map(|value| Fetched { value, at: clock.now_untracked() }) })
        })
    }

    /// A read whose answer may come from a store: `read(anew)` is called synchronously
    /// (signals it reads are tracked), `anew` on a Refresh or Retry (the store must read
    /// again then, fresh or not), and answers the data with when it was read.
    pub fn from_reads(read: impl Fn(bool) -> Read<T> + 'static) -> Self {
        let state = use_connection();
        let snapshot = RwSignal::new_local(Snapshot::empty(0));
        let retries = RwSignal::new(0);
        let answered_retry = StoredValue::new(0);
        let reads = Generation::default();
        // Owned by the current reactive owner (the page): lives as long as the page does.
        Effect::new(move || {
            let retry = retries.get();
            let is_retry = answered_retry.get_value() != retry;
            answered_retry.set_value(retry);
            let Some(session) = state.session().map(|s| s.id) else { return };
            let request = read(is_retry);
            let ticket = reads.next();
            snapshot.update(|s| {
                if s.session != session || !is_retry {
                    *s = Snapshot::empty(session);
                }
                s.loading = true;
            });
            leptos::task::spawn_local(async move {
                let result = request.await;
                // The page may be gone by now, or a newer request may have replaced this one.
                if !ticket.current() {
                    return;
                }
                snapshot.try_update(|s| {
                    if s.session != session {
                        return;
                    }
                    s.loading = false;
                    match result {
                        Ok(fetched) => {
                            s.data = Some(fetched);
                            s.error = None;
                        }
                        Err(err) => s.error = Some(err),
                    }
                });
            });
        });
        Remote { snapshot, retries, state }
    }

    fn current<R>(&self, f: impl FnOnce(&Snapshot<T>) -> Option<R>) -> Option<R> {
        let session = self.state.session().map(|s| s.id)?;
        self.snapshot.with(|s| if s.session == session { f(s) } else { None })
    }

    /// The data last received with the current key (tracked).
    pub fn data(&self) -> Option<T> {
        self.current(|s| s.data.as_ref().map(|d| d.value.clone()))
    }

    pub fn fetched_at(&self) -> Option<DateTime<Utc>> {
        self.current(|s| s.data.as_ref().map(|d| d.at))
    }

    /// The error of the latest attempt, if it failed.
    pub fn error(&self) -> Option<ApiError> {
        self.current(|s| s.error.clone())
    }

    pub fn loading(&self) -> bool {
        self.current(|s| Some(s.loading)).unwrap_or(true)
    }

    /// Reads again. Nothing happens once the page is gone (a late callback).
    pub fn refetch(&self) {
        self.retries.try_update(|n| *n += 1);
    }
}
