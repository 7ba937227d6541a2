//! GPUs in use per reservation, read once from each reservation's `/nodes` when a list or
//! detail is shown: the figure beside a reservation's reserved GPUs on the list and detail.

use crate::api::client;
use crate::api::error::ApiError;
use crate::api::models::{NodesResponse, Reservation};
use crate::components::html::Html;
use crate::domain::capacity::{runs_workloads, InUseOfReserved};
use crate::domain::explain::{explain, ErrorContext};
use crate::domain::polling;
use crate::state::use_connection;
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::HashMap;
use std::time::Duration;

/// One reservation's placement read, for its GPUs-in-use figure.
#[derive(Clone, Debug, PartialEq)]
pub enum Placement {
    Loading,
    Read(InUseOfReserved),
    Failed(ApiError),
}

/// GPUs in use per reservation (by id), read once each time the page is shown or
/// refreshed: a summary, not the live view, so never polled. Only reservations whose
/// nodes run workloads are read; the others have no entry.
#[derive(Clone, Copy)]
pub struct Placements {
    reads: RwSignal<HashMap<i64, Placement>>,
    /// Bumped by every read: an older read still under way stops writing.
    generation: StoredValue<u64>,
}

impl Default for Placements {
    fn default() -> Self {
        Placements { reads: RwSignal::new(HashMap::new()), generation: StoredValue::new(0) }
    }
}

impl Placements {
    /// What is known of reservation `id` (tracked).
    pub fn get(&self, id: i64) -> Option<Placement> {
        self.reads.with(|reads| reads.get(&id).cloned())
    }

    /// Marks `list`'s reservations that run workloads as loading, dropping anything read
    /// before; returns them.
    pub fn start(&self, list: &[Reservation]) -> Vec<Reservation> {
        let wanted: Vec<Reservation> = list.iter().filter(|r| runs_workloads(&r.status)).cloned().collect();
        self.generation.update_value(|g| *g += 1);
        self.reads.set(wanted.iter().map(|r| (r.id, Placement::Loading)).collect());
        wanted
    }

    /// One reservation's `/nodes` answer.
    pub fn receive(&self, r: &Reservation, result: Result<NodesResponse, ApiError>) {
        let placement = match result {
            Ok(response) => Placement::Read(InUseOfReserved::of(r, &response)),
            Err(error) => Placement::Failed(error),
        };
        // A no-op once the page is gone.
        self.reads.try_update(|reads| reads.insert(r.id, placement));
    }

    /// Reads the placements of `list()` each time `fetched` changes (a list or detail was
    /// received): one request at a time, and after a 429 or 503 none before its
    /// `retry-after`, so the reads stay far inside the 200 requests a minute of CONTRACT.md.
    pub fn read_after(
        self,
        fetched: Memo<Option<DateTime<Utc>>>,
        list: impl Fn() -> Vec<Reservation> + Send + Sync + 'static,
    ) {
        let state = use_connection();
        Effect::new(move || {
            if fetched.get().is_none() {
                return;
            }
            if !untrack(|| state.is_connected()) {
                return;
            }
            let wanted = untrack(|| self.start(&list()));
            let generation = self.generation.get_value();
            spawn_local(async move {
                let current = move || self.generation.try_get_value() == Some(generation);
                // The table paints first: decoding a large reservation's placement (270 KB
                // for 1,000 nodes) would hold the frame that shows it.
                after_first_paint().await;
                for r in wanted {
                    if !current() {
                        return;
                    }
                    let result = state.send(|c| async move { client::nodes(&c, r.id).await }).await;
                    if !current() {
                        return;
                    }
                    let wait = result.as_ref().err().and_then(ApiError::retry_after);
                    self.receive(&r, result);
                    if let Some(wait) = wait {
                        sleep(polling::server_wait(wait)).await;
                    }
                }
            });
        });
    }
}

/// Resolves once the page's first contentful paint is on screen (and at least one frame
/// after the caller's change was painted), so that secondary reads never compete with it.
/// `requestAnimationFrame` runs before a frame's paint, but the frame reaches the screen
/// later: under Lighthouse's observed load, reads sent two frames on still left before
/// the table was shown, and its simulation counted them, one round trip each, in the time
/// to the table's paint. The browser reports the first contentful paint (Paint Timing)
/// once it was presented; a browser that never reports it waits [`PAINT_FRAMES`] frames.
/// Without a window, only the posted task.
async fn after_first_paint() {
    for frame in 1..=PAINT_FRAMES {
        let painted = js_sys::Promise::new(&mut |resolve, _| {
            let requested = web_sys::window().and_then(|w| w.request_animation_frame(&resolve).ok());
            if requested.is_none() {
                let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(painted).await;
        if frame >= 2 && first_paint_shown() {
            break;
        }
    }
    sleep(Duration::ZERO).await;
}

/// Frames [`after_first_paint`] waits at most: half a second at 60 Hz.
const PAINT_FRAMES: u32 = 30;

/// Whether the browser reported the page's first contentful paint as presented. Also
/// false without a window or the Paint Timing API.
fn first_paint_shown() -> bool {
    web_sys::window()
        .and_then(|w| w.performance())
        .is_some_and(|p| p.get_entries_by_name("first-contentful-paint").length() > 0)
}

/// Resolves after `wait` (the caller bounds it, e.g. by [`polling::server_wait`]), through
/// the same timer helper as every other wait of the console.
pub async fn sleep(wait: Duration) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let resolve = move || drop(resolve.call0(&wasm_bindgen::JsValue::NULL));
        set_timeout(resolve, wait);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// "6 of 32 GPUs in use", "placement unknown (region unreachable)", a muted "…" while
/// reading, "—" with the mapped error on hover when the read failed; nothing for a
/// reservation whose nodes run no workloads.
#[component]
pub fn InUseFigure(placements: Placements, id: i64, class: &'static str) -> impl IntoView {
    move || {
        placements.get(id).map(|placement| match placement {
            Placement::Loading => view! {
                <span class=format!("{class} in-use muted") aria-busy="true">
                    <span aria-hidden="true">"…"</span>
                    <span class="visually-hidden">"Reading GPUs in use"</span>
                </span>
            }
            .into_any(),
            Placement::Read(figure @ InUseOfReserved::Known { .. }) => {
                view! { <span class=format!("{class} in-use")>{figure.to_string()}</span> }.into_any()
            }
            Placement::Read(figure @ (InUseOfReserved::Unknown | InUseOfReserved::NodeUnreadable)) => view! {
                <span class=format!("{class} in-use tone-text-warning")>"⚠ " {figure.to_string()}</span>
            }
            .into_any(),
            Placement::Failed(error) => {
                let why = why_unread(&error);
                let title = why.clone();
                view! {
                    <span class=format!("{class} in-use muted") title=title>
                        <span aria-hidden="true">"—"</span>
                        <span class="visually-hidden">{why}</span>
                    </span>
                }
                .into_any()
            }
        })
    }
}

/// Why a reservation's GPUs in use are not shown, with the request id to quote.
fn why_unread(error: &ApiError) -> String {
    let text = explain(error, &ErrorContext::default());
    let request = error.request_id.as_ref().map(|id| format!(" Request id {id}.")).unwrap_or_default();
    format!("GPUs in use could not be read: {}. {}{request}", text.title, text.explanation)
}

/// [`InUseFigure`]'s markup, for a view written as one piece of HTML.
pub fn write_in_use(html: &mut Html, placement: Option<&Placement>, class: &'static str) {
    let Some(placement) = placement else { return };
    html.markup(r#"<span class=""#).markup(class);
    match placement {
        Placement::Loading => html.markup(
            r#" in-use muted" aria-busy="true"><span aria-hidden="true">…</span><span class="visually-hidden">Reading GPUs in use</span>"#,
        ),
        Placement::Read(figure @ InUseOfReserved::Known { .. }) => html.markup(r#" in-use">"#).text(figure),
        Placement::Read(figure @ (InUseOfReserved::Unknown | InUseOfReserved::NodeUnreadable)) => {
            html.markup(r#" in-use tone-text-warning">⚠ "#).text(figure)
        }
        Placement::Failed(error) => {
            let why = why_unread(error);
            html.markup(r#" in-use muted" title=""#).text(&why);
            html.markup(r#""><span aria-hidden="true">—</span><span class="visually-hidden">"#).text(&why).markup("</span>")
        }
    };
    html.markup("</span>");
}
