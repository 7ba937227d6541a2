//! One API read shown on a page: the data last received (kept on screen when a refresh
//! fails, marked stale with its age), the latest error with a Retry, and a loading state.

use crate::api::client::Connection;
use crate::api::error::ApiError;
use crate::components::error_panel::ErrorPanel;
use crate::components::time::Ago;
use crate::domain::explain::ErrorContext;
use crate::state::{use_clock, use_connection, ConnectionState};
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use std::future::Future;

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
        let state = use_connection();
        let clock = use_clock();
        let snapshot = RwSignal::new_local(Snapshot::empty(0));
        let retries = RwSignal::new(0);
        let answered_retry = StoredValue::new(0);
        // Bumped by every request: an older one still under way stops writing.
        let latest = StoredValue::new(0u64);
        // Owned by the current reactive owner (the page): lives as long as the page does.
        Effect::new(move || {
            let retry = retries.get();
            let is_retry = answered_retry.get_value() != retry;
            answered_retry.set_value(retry);
            let Some(session) = state.session().map(|s| s.id) else { return };
            let request = state.send(&fetch);
            latest.update_value(|n| *n += 1);
            let this = latest.get_value();
            snapshot.update(|s| {
                if s.session != session || !is_retry {
                    *s = Snapshot::empty(session);
                }
                s.loading = true;
            });
            leptos::task::spawn_local(async move {
                let result = request.await;
                // The page may be gone by now (every write is a `try_`, a no-op on a
                // disposed signal), or a newer request may have replaced this one.
                if latest.try_get_value() != Some(this) {
                    return;
                }
                snapshot.try_update(|s| {
                    if s.session != session {
                        return;
                    }
                    s.loading = false;
                    match result {
                        Ok(value) => {
                            s.data = Some(Fetched { value, at: clock.now_untracked() });
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

/// The state line above a page's data: loading, the error with Retry, and — when data is
/// on screen — its age, marked stale when the last refresh failed.
#[component]
pub fn RemoteStatus<T: Clone + 'static>(
    remote: Remote<T>,
    /// What is being read, for the status text ("reservations").
    what: &'static str,
    #[prop(optional)] context: ErrorContext,
) -> impl IntoView {
    let retry = Callback::new(move |()| remote.refetch());
    let line = move || {
        let at = remote.fetched_at();
        let failed = remote.error().is_some();
        let loading = remote.loading();
        match at {
            None if loading => Some(
                view! {
                    <p class="remote-line" aria-busy="true">{format!("Loading {what}…")}</p>
                }
                .into_any(),
            ),
            None => None,
            Some(at) => Some(
                view! {
                    <p class="remote-line" class:stale=failed>
                        {failed.then_some(view! { <span class="stale-mark">"Stale"</span> " " })}
                        {if failed { "Last updated " } else { "Updated " }}
                        <Ago at/>
                        {failed.then_some(" — the latest refresh failed, so this may be out of date.")}
                        " "
                        <button
                            type="button"
                            class="link-button"
                            on:click=move |_| remote.refetch()
                            disabled=loading
                        >
                            {if loading { "Refreshing…" } else { "Refresh" }}
                        </button>
                    </p>
                }
                .into_any(),
            ),
        }
    };
    let context = StoredValue::new(context);
    view! {
        // Not a live region: the age ticks every second. The error panel is an alert.
        <div class="remote-status">
            {line}
            {move || {
                remote
                    .error()
                    .filter(|e| !e.is_unauthorized())
                    .map(|error| {
                        view! { <ErrorPanel error context=context.get_value() busy=Signal::derive(move || remote.loading()) retry/> }
                    })
            }}
        </div>
    }
}
