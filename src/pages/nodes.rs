//! Nodes, live: a card per node with a cell per GPU, totals that add up, and the
//! placement polled on the schedule of CONTRACT.md (see `reads::live`). What this session
//! already read of the reservation's nodes (`reads::nodes`) is shown at once, with its age.
//! When the region cannot be reached the last known placement stays on screen, marked
//! stale, never zeros.

use crate::api::error::ApiError;
use crate::api::models::{NodesResponse, ReservationDetail};
use crate::browser::timed;
use crate::components::api_text::ApiText;
use crate::components::download_button::DownloadButton;
use crate::components::error_panel::ErrorPanel;
use crate::components::gpu_grid::{GpuGrid, NodeStore};
use crate::components::launch_link::LaunchLink;
use crate::components::node_filters::{url_node_filter, FoundWorkloads, NodeFilters};
use crate::components::reservation_route::{for_reservation_id, ReservationCrumbs};
use crate::components::status_badge::StatusBadge;
use crate::components::time::{zone, Time};
use crate::domain::explain::{could_not_read, ErrorContext};
use crate::domain::exports::csv::placement_csv;
use crate::domain::nodes::capacity::{gpus_text, inconsistencies, totals, Totals};
use crate::domain::nodes::filter::{found_workloads, NodeFilter};
use crate::domain::polling::retry_words;
use crate::domain::status::{closed_capacity_note, launch_access, reservation_status};
use crate::domain::words::time::{format_time_of_day, updated_ago};
use crate::domain::words::{self, figure};
use crate::reads::live::{page_interval, Live, LiveStatus};
use crate::reads::nodes::{use_nodes, NodesRead, NodesStore};
use crate::reads::reservations::use_reservations;
use crate::state::{use_clock, use_time_zone, Lifetime};
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use std::sync::Arc;

#[component]
pub fn NodesPage() -> impl IntoView {
    for_reservation_id(|id| view! { <NodesLive id/> })
}

/// The User Timing measure of the latest answer's apply to the cards (see [`timed`]).
pub const NODES_APPLY: &str = "nodes-apply";

/// What the page shows of the placement: the cards, drawn from reservation `id`'s entry
/// in the session's [`NodesStore`] (read there, never copied).
#[derive(Clone, Copy)]
pub struct NodesModel {
    pub store: NodeStore,
    nodes: NodesStore,
    id: i64,
    /// The answer on the cards (its identity and time): each is drawn once.
    drawn: StoredValue<Option<(usize, DateTime<Utc>)>>,
}

impl NodesModel {
    /// The model of reservation `id`: the cards drawn at once from what this session
    /// already read of it, and again at every answer the store receives (this page's
    /// polls, the read sent as it opened, any other page's).
    pub fn of(nodes: NodesStore, id: i64) -> Self {
        let model = NodesModel { store: NodeStore::default(), nodes, id, drawn: StoredValue::new(None) };
        untrack(|| model.show_latest());
        Effect::new(move |_| {
            nodes.with(id, |read| read.latest.as_ref().map(|f| f.at));
            model.show_latest();
        });
        model
    }

    /// What is known of the reservation's nodes (tracked).
    fn with<R>(&self, f: impl FnOnce(&NodesRead) -> R) -> R {
        self.nodes.with(self.id, f)
    }

    /// One answer, received at `at`, put in the store as the page's polls put theirs, and
    /// drawn at once. A failure keeps everything already shown.
    pub fn receive(&self, result: Result<NodesResponse, ApiError>, at: DateTime<Utc>) {
        if let Some(session) = self.nodes.begin_current() {
            self.nodes.receive(session, self.id, result.map(Arc::new), at);
            self.show_latest();
        }
    }

    /// Draws the latest answer on the cards, unless they show it already.
    fn show_latest(&self) {
        let Some(latest) = untrack(|| self.with(|r| r.latest.clone())) else { return };
        let identity = Some((Arc::as_ptr(&latest.value) as usize, latest.at));
        if self.drawn.try_with_value(|drawn| *drawn == identity) != Some(false) {
            return;
        }
        self.drawn.set_value(identity);
        timed(NODES_APPLY, || {
            self.store.apply(&latest.value);
            self.store.record(&latest.value, latest.at);
        });
    }

    pub fn error(&self) -> Option<ApiError> {
        self.with(|r| r.error.clone())
    }

    fn latest_at(&self) -> Option<DateTime<Utc>> {
        self.with(NodesRead::at)
    }

    /// The region could not be read in the latest answer.
    fn unreachable(&self) -> bool {
        self.with(|r| r.reachable() == Some(false))
    }

    /// What is on screen may be out of date: the region is unreachable or the latest poll failed.
    fn stale(&self) -> bool {
        self.unreachable() || self.with(|r| r.error.is_some())
    }

    /// The placement file of the latest answer (GPUs in use say `unknown` while the
    /// region cannot be read).
    fn csv(&self) -> String {
        untrack(|| {
            self.with(|r| match &r.latest {
                Some(f) => placement_csv(&f.value),
                None => placement_csv(&NodesResponse { workloads_unknown: true, ..NodesResponse::default() }),
            })
        })
    }
}

/// The live page of one reservation.
#[component]
fn NodesLive(id: i64) -> impl IntoView {
    let reservation = use_reservations().detail_remote(id);
    let nodes = use_nodes();
    let model = NodesModel::of(nodes, id);
    // The first poll takes the read sent as the page was opened (or an answer just read).
    let first = StoredValue::new(true);
    // The answers land in the store, which the model reads.
    let live =
        Live::start(page_interval(), move || match first.try_update_value(|first| std::mem::replace(first, false)) {
            Some(true) => nodes.fetch_fresh(id, Lifetime::Page),
            _ => nodes.fetch(id, Lifetime::Page),
        });
    let context = Signal::derive(move || {
        reservation.data().map_or_else(ErrorContext::default, |d| ErrorContext::of(&d.reservation))
    });
    let csv = Callback::new(move |()| model.csv());
    let filter = url_node_filter();
    view! {
        <section class="nodes-page" data-poll-count=move || live.polls().to_string()>
            <ReservationCrumbs id here="Nodes"/>
            <div class="page-head">
                <div>
                    <h1>{format!("Nodes of reservation #{id}")}</h1>
                    // A line in its place while the reservation is read, so that the grid
                    // does not move down when it comes (it often comes after the nodes),
                    // and why when it could not be read.
                    {move || match (reservation.data(), reservation.error()) {
                        (Some(detail), _) => view! { <ReservationLine detail/> }.into_any(),
                        (None, Some(error)) if !reservation.loading() => view! {
                            <p class="subtitle">
                                {could_not_read("The reservation", &error)} " "
                                <button type="button" class="link-button" on:click=move |_| reservation.refetch()>
                                    "Retry"
                                </button>
                            </p>
                        }
                        .into_any(),
                        (None, _) => view! { <p class="subtitle">"Reading the reservation…"</p> }.into_any(),
                    }}
                </div>
                <div class="page-actions">
                    <DownloadButton label="Download placement (CSV)" filename=format!("placement-{id}.csv") contents=csv/>
                    {move || reservation.data().map(|detail| view! { <LaunchLink id status=detail.reservation.status/> })}
                </div>
            </div>
            <LiveBar live model/>
            {move || {
                model.error().filter(|e| !e.is_unauthorized()).map(|error| {
                    view! { <ErrorPanel error context=context.get() retry=Callback::new(move |()| live.resume())/> }
                })
            }}
            <NodesBoard
                model
                reservation=id
                filter
                closed=Signal::derive(move || {
                    reservation.data().and_then(|d| closed_capacity_note(launch_access(&d.reservation.status)))
                })
            />
        </section>
    }
}

/// "12 active · atl · 4 nodes × 8 GPUs of NVIDIA-…": what the grid is of. Public for its test.
#[component]
pub fn ReservationLine(detail: ReservationDetail) -> impl IntoView {
    let r = detail.reservation;
    let status = reservation_status(&r, use_clock().now_untracked());
    view! {
        <p class="subtitle">
            <StatusBadge label=status.label tone=status.tone/>
            {format!(" {} × {} of ", words::count(r.node_count, "node"), words::count(r.gpus_per_node, "GPU"))}
            <ApiText text=r.gpu_type/>
            " in region "
            <ApiText text=r.region_id/>
        </p>
    }
}

/// The polling state in words, with pause/resume. Only the state and what went wrong are
/// a live region, so a screen reader hears each change once (paused, resumed, a failed
/// poll, stopped and why, recovered); the data's age ticks beside it, unannounced.
#[component]
pub fn LiveBar(live: Live, model: NodesModel) -> impl IntoView {
    let time_zone = use_time_zone();
    let clock = use_clock();
    let words = move || match live.status() {
        LiveStatus::Live => ("live", "Live"),
        LiveStatus::Retrying { .. } => ("retrying", "Retrying"),
        LiveStatus::Hidden => ("paused", "Paused while this tab is hidden"),
        LiveStatus::Paused => ("paused", "Paused"),
        LiveStatus::Idle => ("stopped", "Stopped after 30 minutes without activity"),
        LiveStatus::Failed => ("stopped", "Stopped after an error"),
    };
    let failed = move || model.with(|r| r.error.is_some());
    let condition = move || {
        let mut text = if failed() {
            " — the latest poll failed, shown as stale".to_owned()
        } else if model.unreachable() {
            " — region unreachable, placement shown as stale".to_owned()
        } else {
            String::new()
        };
        if let LiveStatus::Retrying { failures, wait, asked } = live.status() {
            let next = clock.now_untracked() + chrono::TimeDelta::from_std(wait).unwrap_or(chrono::TimeDelta::MAX);
            let next_at = format_time_of_day(next, zone(time_zone.get()));
            text.push_str(&format!("; {}", retry_words(failures, wait, asked, &next_at)));
        }
        text
    };
    let age = move || match model.latest_at() {
        Some(at) if failed() => format!("last updated {}", updated_ago(clock.now(), at)),
        Some(at) => format!("updated {}", updated_ago(clock.now(), at)),
        None => "loading…".to_owned(),
    };
    let control = move || {
        let status = live.status();
        let (label, action): (&str, fn(&Live)) = match status {
            LiveStatus::Idle | LiveStatus::Failed => ("Resume polling", Live::resume),
            LiveStatus::Paused => ("Resume", Live::resume),
            _ => ("Pause", Live::pause),
        };
        view! {
            <button type="button" class="button button-secondary" on:click=move |_| action(&live)>{label}</button>
        }
    };
    view! {
        <div class="live-bar">
            <p class="live-status">
                <span class=move || format!("live-dot {}", words().0) aria-hidden="true"></span>
                <span class="live-state" role="status" aria-live="polite" aria-atomic="true">
                    <strong>{move || words().1}</strong>
                    {condition}
                </span>
                <span aria-hidden="true">"·"</span>
                <span class="num live-age">{age}</span>
            </p>
            {control}
        </div>
    }
}

/// Everything drawn from the model: the unreachable notice, the totals, the key and the
/// grid. Tests mount this on fixture answers.
#[component]
pub fn NodesBoard(
    model: NodesModel,
    reservation: i64,
    /// The reservation's note when its status closes launches (said in the Capacity panel).
    #[prop(into, optional)]
    closed: Signal<Option<String>>,
    /// The finding bar's filter (kept in the address by the page); none shows every node.
    #[prop(optional)]
    filter: Option<RwSignal<NodeFilter>>,
) -> impl IntoView {
    let nodes_of =
        move |pick: &dyn Fn(&NodesResponse) -> usize| model.with(|r| r.latest.as_ref().map_or(0, |f| pick(&f.value)));
    let shown = filter.map(|filter| {
        Memo::new(move |_| {
            model.with(|r| r.latest.as_ref().map(|f| filter.with(|flt| flt.apply(&f.value.nodes))).unwrap_or_default())
        })
    });
    let finding = filter.zip(shown).map(|(filter, shown)| {
        let found = Signal::derive(move || {
            model.with(|r| r.latest.as_ref().map(|f| filter.with(|flt| found_workloads(&f.value.nodes, &flt.search))).unwrap_or_default())
        });
        view! {
            <NodeFilters filter shown=Signal::derive(move || shown.with(Vec::len)) total=Signal::derive(move || nodes_of(&|r| r.nodes.len()))/>
            <FoundWorkloads reservation found/>
        }
    });
    // Cells only (no workload lists) unless asked otherwise, once there are more nodes than
    // a screen holds cards of.
    let chosen = RwSignal::new(None::<bool>);
    let compact = Signal::derive(move || chosen.get().unwrap_or_else(|| model.store.len() > COMPACT_ABOVE));
    let latest_totals = Memo::new(move |_| model.with(|r| r.latest.as_ref().map(|f| totals(&f.value))));
    let has_totals = Memo::new(move |_| latest_totals.with(Option::is_some));
    // Summed again only when a new answer with the placement known arrives.
    let known_at = Memo::new(move |_| model.with(|r| r.known.as_ref().map(|f| f.at)));
    let known_totals = Memo::new(move |_| {
        known_at.track();
        untrack(|| model.with(|r| r.known.as_ref().map(|f| (totals(&f.value), f.at))))
    });
    let flagged = Memo::new(move |_| {
        model.with(|r| {
            r.latest.as_ref().map_or(0, |f| f.value.nodes.iter().filter(|n| !inconsistencies(n).is_empty()).count())
        })
    });
    // The totals of the latest answer stay after a failed poll, marked with their time.
    let stale_since = Signal::derive(move || model.with(|r| r.error.is_some()).then(|| model.latest_at()).flatten());
    let unreachable = move || {
        model.unreachable().then(|| {
            let last = model.with(|r| r.known.as_ref().map(|f| f.at));
            view! {
                <div class="banner tone-warning unreachable" role="status">
                    <strong class="banner-title">
                        "Region unreachable — placement unknown"
                        {last.map(|at| view! { ", last known at " <Time at/> })}
                    </strong>
                    " "
                    <span class="banner-body">
                        {if last.is_some() {
                            "The cards keep the last known placement, marked stale, until the region answers again."
                        } else {
                            "The placement has not been read yet; GPUs in use and free are unknown."
                        }}
                    </span>
                </div>
            }
        })
    };
    view! {
        {unreachable}
        // Mounted once, when the first answer arrives; each poll then updates its figures in
        // place, so an unchanged total costs no DOM change.
        {move || has_totals.get().then(|| view! {
            <TotalsPanel totals=latest_totals last_known=known_totals flagged stale_since closed/>
        })}
        // Nodes whose figures could not be read are nodes all the same (named by the totals).
        {move || match model.with(|r| r.latest.as_ref().map(|f| f.value.nodes.is_empty() && f.value.unreadable_nodes.is_empty())) {
            None => Some(view! { <p class="muted">"Reading the nodes…"</p> }),
            Some(true) => Some(view! { <p class="panel muted">"No nodes yet: they are listed once EcoLink has assigned them."</p> }),
            Some(false) => None,
        }}
        <section class="panel nodes-panel" aria-labelledby="nodes-heading" hidden=move || model.store.is_empty()>
            <div class="panel-head">
                <h2 id="nodes-heading">"Nodes"</h2>
                <label class="check compact-choice">
                    <input type="checkbox" prop:checked=compact on:change=move |ev| chosen.set(Some(event_target_checked(&ev)))/>
                    <span>"Cells only"</span>
                </label>
            </div>
            {finding}
            <Key/>
            <GpuGrid reservation store=model.store stale=Signal::derive(move || model.stale()) compact shown/>
        </section>
    }
}

/// Nodes above which the grid starts as cells only.
const COMPACT_ABOVE: usize = 48;

/// A figure, or "unknown" (never zero) when the region or the nodes could not be read.
fn known(value: Option<i64>) -> String {
    value.map_or_else(|| "unknown".to_owned(), figure)
}

/// The capacity figures of the latest answer (`totals` is set whenever this is mounted).
#[component]
fn TotalsPanel(
    totals: Memo<Option<Totals>>,
    last_known: Memo<Option<(Totals, DateTime<Utc>)>>,
    flagged: Memo<usize>,
    /// When the figures shown were received, while the latest poll failed.
    stale_since: Signal<Option<DateTime<Utc>>>,
    closed: Signal<Option<String>>,
) -> impl IntoView {
    let read = move |field: fn(&Totals) -> String| move || totals.with(|t| t.as_ref().map(field).unwrap_or_default());
    let sum = move |t: &Totals| match (t.gpus, t.in_use, t.free, t.unavailable) {
        (Some(gpus), Some(u), Some(f), Some(n)) => {
            format!(
                "{} = {} in use + {} free + {} not available",
                words::count(gpus, "GPU"),
                figure(u),
                figure(f),
                figure(n)
            )
        }
        (Some(gpus), ..) if t.unreadable.nodes.is_empty() => {
            format!("{}; use and free are unknown while the region cannot be reached", words::count(gpus, "GPU"))
        }
        _ => "GPUs, use and free are unknown: no node's figures could be read.".to_owned(),
    };
    // Shown only while the region is unreachable (in use unknown) and it was read before.
    let last = move || {
        let unknown_now = totals.with(|t| t.as_ref().is_some_and(|t| t.in_use.is_none()));
        last_known.get().filter(|_| unknown_now).map(|(t, at)| {
            view! {
                <p class="totals-last">
                    "Last known at " <Time at/> ": "
                    {format!(
                        "{} in use, {} free, largest launch on one node {}.",
                        known(t.in_use),
                        known(t.free),
                        known(t.largest_fit)
                    )}
                </p>
            }
        })
    };
    view! {
        <section class="panel totals-panel" class:stale=move || stale_since.with(Option::is_some) aria-labelledby="totals-heading">
            <h2 id="totals-heading">"Capacity"</h2>
            {move || stale_since.get().map(|at| view! {
                <p class="totals-stale">
                    <span class="stale-mark">"Stale"</span>
                    " as of " <Time at/> " — the latest poll failed; these are the figures last received."
                </p>
            })}
            <dl class="facts compact-facts">
                <div><dt>"GPUs"</dt><dd class="num">{read(|t| known(t.gpus))}</dd></div>
                <div><dt>"In use"</dt><dd class="num">{read(|t| known(t.in_use))}</dd></div>
                <div><dt>"Free on ready nodes"</dt><dd class="num">{read(|t| known(t.free))}</dd></div>
                <div>
                    <dt>"Not available"</dt>
                    <dd class="num">{read(|t| known(t.unavailable))}<span class="sub">"on nodes preparing or under maintenance"</span></dd>
                </div>
                <div>
                    <dt>"Largest launch on one node"</dt>
                    <dd class="num">{read(|t| t.largest_fit.map_or_else(|| "unknown".to_owned(), gpus_text))}</dd>
                </div>
            </dl>
            {move || closed.get().map(|note| view! { <p class="totals-closed" role="note">{note}</p> })}
            <p class="totals-sum num">{read(sum)}</p>
            {move || totals.with(|t| t.as_ref().and_then(Totals::inconsistent_text))
                .map(|why| view! { <p class="totals-flag" role="note">{why}</p> })}
            {last}
            {move || {
                let flagged = flagged.get();
                (flagged > 0).then(|| view! {
                    <p class="totals-flag" role="note">
                        {format!(
                            "{flagged} {} figures that do not add up; they are shown as reported and flagged on their cards.",
                            if flagged == 1 { "node reports" } else { "nodes report" }
                        )}
                    </p>
                })
            }}
        </section>
    }
}

/// What the cell colours mean (each cell also carries its workload's number and a title).
#[component]
fn Key() -> impl IntoView {
    const ENTRIES: [(&str, &str); 9] = [
        ("k-gpu-instance", "GPU instance"),
        ("k-gpu-cluster", "GPU cluster"),
        ("k-inference", "Model instance"),
        ("k-fine-tune", "Fine-tune"),
        ("k-unknown", "Unrecognised kind"),
        ("unlisted", "In use, no workload listed"),
        ("free", "Free"),
        ("free idle", "Idle, node not taking launches"),
        ("unknown", "Unknown"),
    ];
    view! {
        <ul class="grid-key" aria-label="Cell colours">
            {ENTRIES.iter().map(|(class, label)| view! {
                <li><span class=format!("key-swatch {class}") aria-hidden="true"></span>{*label}</li>
            }).collect::<Vec<_>>()}
        </ul>
    }
}
