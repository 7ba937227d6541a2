//! A failed call, explained: what happened, why, what to do, and the request id that
//! support asks for, with a Retry. A condition that ends by itself (429, 503) is a calm
//! notice that waits, not an alert.

use crate::api::error::ApiError;
use crate::domain::explain::{explain, is_self_healing, ErrorContext};
use crate::domain::polling::server_wait;
use crate::state::{ConnectionState, Role};
use leptos::prelude::*;
use std::time::Duration;

#[component]
pub fn ErrorPanel(
    error: ApiError,
    #[prop(optional)] context: ErrorContext,
    /// Shown as a Retry button when given.
    /// The Retry is disabled while true: its read is under way (one read in flight).
    #[prop(optional, into)]
    busy: Signal<bool>,
    #[prop(optional, into)] retry: Option<Callback<()>>,
) -> impl IntoView {
    // Only the owner is told to pay; the role is the connection's (none in a bare mount).
    let owner = use_context::<ConnectionState>().is_some_and(|state| state.role_untracked() == Role::Owner);
    let text = explain(&error, &ErrorContext { owner, ..context });
    let calm = is_self_healing(&error);
    let status = error.status.map(|s| s.to_string());
    let wait = error.retry_after().map(|d| format!("{} s", d.as_secs().max(1)));
    // A Retry before the server's retry-after (obeyed up to the same cap as the live
    // loop) would only be refused again: it waits, counting down.
    let countdown = RwSignal::new(error.retry_after().map_or(0, |d| server_wait(d).as_secs_f64().ceil() as u64));
    if (retry.is_some() || calm) && countdown.get_untracked() > 0 {
        let tick = set_interval_with_handle(
            move || {
                countdown.try_update(|n| *n = n.saturating_sub(1));
            },
            Duration::from_secs(1),
        )
        .ok();
        on_cleanup(move || {
            if let Some(tick) = tick {
                tick.clear();
            }
        });
    }
    view! {
        <section class=if calm { "error-panel notice" } else { "error-panel" } role=if calm { "status" } else { "alert" }>
            <h2 class="error-title">{text.title}</h2>
            <p>{text.explanation}</p>
            {(calm && countdown.get_untracked() > 0).then(|| view! {
                <p class="notice-wait">
                    {move || match countdown.get() {
                        0 => "The wait is over.".to_owned(),
                        n => format!("Waiting: {n} s left before the next try."),
                    }}
                </p>
            })}
            <p class="error-remedy">
                <strong>"What to do: "</strong>
                {text.remedy}
            </p>
            <dl class="facts facts-inline">
                {status.map(|s| view! { <div><dt>"HTTP status"</dt><dd class="num">{s}</dd></div> })}
                {error.code.map(|c| view! { <div><dt>"Code"</dt><dd><code>{c}</code></dd></div> })}
                {wait.map(|w| view! { <div><dt>"Retry after"</dt><dd class="num">{w}</dd></div> })}
                <div>
                    <dt>"Request id"</dt>
                    <dd>
                        {match error.request_id {
                            Some(id) => view! { <code class="request-id">{id}</code> }.into_any(),
                            None => view! { <span class="muted">"none sent"</span> }.into_any(),
                        }}
                    </dd>
                </div>
            </dl>
            {retry.map(|retry| view! {
                <button
                    type="button"
                    class="button"
                    on:click=move |_| retry.run(())
                    disabled=move || { busy.get() || countdown.get() > 0 }
                >
                    {move || match countdown.get() {
                        _ if busy.get() => "Retrying…".to_owned(),
                        0 => "Retry".to_owned(),
                        n => format!("Retry in {n} s"),
                    }}
                </button>
            })}
        </section>
    }
}
