//! "Tell me when it fits": the watch of a `/fit` question (`reads::fit_watch`), started on
//! `/fit` and listed in the bell, each with since when, how close the best node is, and a
//! way to stop it. Comes with the `/fit` page's code and the bell's panel, not the first load.

use crate::components::time::zone;
use crate::domain::fleet::fit::Question;
use crate::domain::words::time::{format_time, updated_ago};
use crate::reads::fit_watch::Watching;
use crate::reads::fleet::{FleetStore, ReadStatus};
use crate::state::{use_clock, use_time_zone};
use leptos::prelude::*;

/// Why the watch ends with the tab, said wherever it is offered or shown.
const ENDS_WITH_THE_TAB: &str = "The watch lives in this tab: closing it ends the watch. Telling you with the tab \
     closed would need a push server, which the API does not have.";

/// On `/fit`, under the verdicts: the watch of `question` under way, or the button that starts it.
#[component]
pub fn WatchQuestion(store: FleetStore, question: Question) -> impl IntoView {
    let (watch, clock) = (store.fit_watch(), use_clock());
    let question = StoredValue::new(question);
    move || {
        let watching = watch.get();
        let this = watching.as_ref().filter(|w| question.with_value(|q| w.watch.question == *q)).cloned();
        match this {
            Some(watching) => view! { <div class="panel fit-watch"><WatchState store watching/></div> }.into_any(),
            None => {
                let replaces =
                    watching.map(|w| format!("This replaces the watch for room for {}.", w.watch.question.text()));
                view! {
                    <div class="panel fit-watch">
                        <button type="button" class="button button-secondary" on:click=move |_| watch.start(store, question.get_value(), clock)>
                            "Tell me when it fits"
                        </button>
                        <p class="muted">
                            "The console keeps reading on its usual schedule and raises an alert in the bell (and a "
                            "notification, if you turned them on there) the moment a reservation turns to “Fits now”. "
                            {ENDS_WITH_THE_TAB} " " {replaces}
                        </p>
                    </div>
                }
                .into_any()
            }
        }
    }
}

/// The watch under way, for the bell's list (nothing when there is none).
#[component]
pub fn WatchInBell(store: FleetStore) -> impl IntoView {
    move || {
        store
            .fit_watch()
            .get()
            .map(|watching| view! { <li class="alert-item fit-watch"><WatchState store watching/></li> })
    }
}

/// What is watched, since when, how close, whether anything reads, and Stop watching.
#[component]
fn WatchState(store: FleetStore, watching: Watching) -> impl IntoView {
    let (clock, tz) = (use_clock(), use_time_zone());
    let Watching { watch, closeness, fired } = watching;
    let since = watch.since;
    let href = format!("/fit{}", watch.question.query());
    let close = closeness.map_or_else(|| "nothing read yet says how close".to_owned(), |c| c.text());
    let told = match fired.len() {
        0 => String::new(),
        n => format!(
            " Fitted {}, each told in the bell.",
            crate::domain::words::count(i64::try_from(n).unwrap_or(i64::MAX), "time")
        ),
    };
    // Only the pages that read the fleet (overview, /fit, capacity) read every reservation.
    let idle = move || {
        (store.status() == ReadStatus::Stopped).then(|| {
            view! {
                <p class="muted">
                    "Nothing on this page reads every reservation: open " <a href=href.clone()>"the question"</a>
                    " or the overview for the watch to see new reads."
                </p>
            }
        })
    };
    view! {
        <p class="fit-watch-state">
            <strong>{format!("Watching for room for {}", watch.question.text())}</strong>
            {move || format!(
                " since {} ({}): {close}.",
                format_time(since, zone(tz.get())),
                updated_ago(clock.now(), since)
            )}
            {told}
        </p>
        {idle}
        <p class="muted">{ENDS_WITH_THE_TAB}</p>
        <button type="button" class="button button-secondary" on:click=move |_| store.fit_watch().cancel()>
            "Stop watching"
        </button>
    }
}
