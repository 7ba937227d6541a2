//! One API read shown on a page ([`Remote`]): the data last received (kept on screen when a
//! refresh fails, marked stale with its age), the latest error with a Retry, and a loading state.

use crate::components::error_panel::ErrorPanel;
use crate::domain::explain::ErrorContext;
use crate::domain::words::time::{updated_ago, utc_title};
use crate::reads::remote::Remote;
use crate::state::use_clock;
use chrono::{DateTime, Utc};
use leptos::prelude::*;

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
            Some(at) => {
                let refresh = view! {
                    <button type="button" class="link-button" on:click=move |_| remote.refetch() disabled=loading>
                        {if loading { "Refreshing…" } else { "Refresh" }}
                    </button>
                };
                Some(if failed {
                    view! { <p class="remote-line stale"><Stale at/> " " {refresh}</p> }.into_any()
                } else {
                    view! { <p class="remote-line">"Updated " <Age at/> " " {refresh}</p> }.into_any()
                })
            }
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

/// Data kept on screen though its latest read failed: the mark, its age and why. The one
/// wording of every read shown so, a page's [`Remote`] and the overview's list alike.
#[component]
pub fn Stale(at: DateTime<Utc>) -> impl IntoView {
    view! {
        <span class="stale-mark">"Stale"</span>
        " Last updated " <Age at/> " — the latest refresh failed, so this may be out of date."
    }
}

/// How long ago `at` was, ticking, its time in UTC in the title.
#[component]
fn Age(at: DateTime<Utc>) -> impl IntoView {
    let clock = use_clock();
    view! { <time datetime=at.to_rfc3339() title=utc_title(at)>{move || updated_ago(clock.now(), at)}</time> }
}
