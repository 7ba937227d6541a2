//! How the pages of the overview's reads (the overview, `/fit`, `/capacity`) say what they
//! read and how old it is: one view for all three. The list's state with its failure, Retry
//! and age ([`ListStatus`]); how the loop reads ([`ReadLine`]); each reservation's nodes,
//! their age, the stale mark and a failed read's cause and request id ([`Freshness`]).

use crate::api::error::ApiError;
use crate::components::error_panel::ErrorPanel;
use crate::components::remote::Stale;
use crate::domain::explain::{explain, ErrorContext};
use crate::domain::polling::fleet::{every_words, older_than_two_refreshes, KEY_LIMIT_PER_MINUTE, OVERVIEW_PER_MINUTE};
use crate::domain::words::time::{ago_seconds, updated_ago};
use crate::reads::fleet::{FleetStore, ReadStatus};
use crate::reads::nodes::NodesRead;
use crate::state::{use_clock, use_connection, Role};
use leptos::prelude::*;
use std::time::Duration;

/// The list's failure, with why, the request id and a Retry, over the list kept from before
/// (marked stale, with its age). A 401 ends the session instead, but for an account added
/// beside the connection, whose 401 ends nothing: its rows say it.
#[component]
pub fn ListStatus(store: FleetStore) -> impl IntoView {
    let retry = Callback::new(move |()| store.retry());
    view! {
        <div class="remote-status">
            {move || {
                let error = store.list_error().filter(|e| !e.is_unauthorized() || store.is_added())?;
                let kept = store.list_at().map(|at| view! { <p class="remote-line stale"><Stale at/></p> });
                Some(view! { {kept} <ErrorPanel error retry/> })
            }}
        </div>
    }
}

/// How the page reads: one request at a time, each reservation every N s, and why.
#[component]
pub fn ReadLine(store: FleetStore) -> impl IntoView {
    let status = move || match store.status() {
        ReadStatus::Reading | ReadStatus::Stopped => None,
        ReadStatus::Hidden => Some("Paused while this tab is hidden."),
        ReadStatus::Idle => {
            Some("Paused after 30 minutes without activity: move the pointer or press a key to resume.")
        }
    };
    let state = use_connection();
    let clock = use_clock();
    // Tabs open and close: looked at again every second.
    let share = move || {
        clock.now();
        let share = state.tab_share();
        tab_share_words(share.tabs(), share.per_minute())
    };
    view! {
        <p class="overview-reads muted">
            {move || match store.interval() {
                Some(every) => format!(
                    "Each reservation's nodes are read every {}, one request at a time for the whole page: \
                     at most {OVERVIEW_PER_MINUTE} requests a minute, half of the key's limit, whatever the \
                     number of reservations. ",
                    every_words(every)
                ),
                None if store.list_error().is_some() => String::new(),
                None => "Reading the reservations… ".to_owned(),
            }}
            <span class="tab-share">{share}</span>
            {move || status().map(|s| view! { <strong role="status">{s}</strong> })}
        </p>
    }
}

/// What this tab may send of the key's 200 requests a minute, shared with the console's
/// other tabs (`state::TabShare`).
fn tab_share_words(tabs: u32, per_minute: u32) -> String {
    match tabs {
        1 => format!("This tab may use all {KEY_LIMIT_PER_MINUTE} of the key's requests a minute: no other console tab is open. "),
        n => format!(
            "{n} console tabs are open: each may use {per_minute} of the key's {KEY_LIMIT_PER_MINUTE} requests a minute, \
             so this page's reads may come slower than said. "
        ),
    }
}

/// A failed read in the error panel's words (its title and explanation, short enough for a
/// row) and its request id.
#[component]
pub fn ReadFailure(error: ApiError, context: ErrorContext) -> impl IntoView {
    let text = explain(&error, &context);
    view! {
        <span class="read-failure">
            {format!(" {}: {} Request id ", text.title, text.explanation)}
            {match error.request_id {
                Some(id) => view! { <code class="request-id">{id}</code> }.into_any(),
                None => view! { <span class="muted">"none sent"</span> }.into_any(),
            }}
        </span>
    }
}

/// "updated 4 s ago", or the stale mark and why; a failed read says its cause and request
/// id in the error panel's words (its title and explanation, short enough for a row).
#[component]
pub fn Freshness(store: FleetStore, id: i64, context: ErrorContext) -> impl IntoView {
    let clock = use_clock();
    let state = use_connection();
    let failure = move |error: ApiError| {
        let owner = state.role() == Role::Owner;
        view! { <ReadFailure error context=ErrorContext { owner, ..context.clone() }/> }
    };
    move || {
        let NodesRead { latest: nodes, error, .. } = store.read(id);
        let interval = store.refresh_interval();
        let Some(fetched) = nodes else {
            return match error {
                Some(error) => {
                    view! { <span class="stale-mark">"Stale"</span> " not read: the read failed." {failure(error)} }
                        .into_any()
                }
                None => view! { <span class="muted">"not read yet"</span> }.into_any(),
            };
        };
        let seconds = ago_seconds(clock.now(), fetched.at);
        let why = if error.is_some() {
            Some("the latest read failed.")
        } else if fetched.value.workloads_unknown {
            Some("region unreachable")
        } else if older_than_two_refreshes(Duration::from_secs(seconds), interval) {
            Some("older than two refreshes")
        } else {
            None
        };
        let age = format!("updated {}", updated_ago(clock.now(), fetched.at));
        match why {
            Some(why) => view! {
                <span class="stale-mark">"Stale"</span>
                <span class="num">{format!(" {age} — {why}")}</span>
                {error.map(&failure)}
            }
            .into_any(),
            None => view! { <span class="num">{age}</span> }.into_any(),
        }
    }
}
