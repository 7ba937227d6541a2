//! `/fit`'s make-room panel: for each reservation where `K` GPUs are free but not together
//! (or too few are free), what to stop on one node so that they fit, and where the stopped
//! workloads could go again (`domain::fleet::make_room`). Advisory: nothing is sent. The kinds to
//! keep running are in the address (`?keep=inference_instance,gpu_cluster`), set by the
//! checkboxes. Only `/fit` uses it, so it lives in that page's lazy chunk.

use crate::api::assumptions::LAUNCH_LANDS_ON_ROOM;
use crate::api::enums::WorkloadKind;
use crate::components::api_text::ApiText;
use crate::domain::fleet::make_room::{make_room, Keep, Offer, Plan, Stopped, BEST_ORDER};
use crate::domain::nodes::capacity::gpus_text;
use crate::domain::nodes::grid::kind_label;
use crate::domain::nodes::workload::workload_page_path;
use crate::domain::words::address::{query_replacing, reservation_address};
use crate::domain::words::count;
use crate::domain::words::shown::account_name;
use crate::reads::fleet::FleetStore;
use crate::router::{use_location, Navigation};
use leptos::prelude::*;
use std::num::NonZeroU32;

/// The panel, for the reservations `offered` (id and whether to show it without a plan).
#[component]
pub fn MakeRoom(
    store: FleetStore,
    gpus: NonZeroU32,
    #[prop(into)] offered: Signal<Vec<(i64, Offer)>>,
    /// The label of the account the reservations are of (empty: the connection's), which
    /// every link names ([`reservation_address`]).
    #[prop(optional)]
    account: String,
) -> impl IntoView {
    let title = StoredValue::new(make_room_title(&account));
    let account = StoredValue::new(account);
    let location = use_location();
    let query = location.query();
    let keep = Memo::new(move |_| query.with(|q| Keep::from_query(q)));
    let plans = Memo::new(move |_| {
        let list = store.reservations().unwrap_or_default();
        let keep = keep.get();
        offered
            .get()
            .into_iter()
            .filter_map(|(id, offer)| {
                let r = list.iter().find(|r| r.id == id)?;
                let nodes = store.read(id).latest?;
                let plan = make_room(r, &nodes.value, gpus, &keep);
                (plan.is_ok() || offer == Offer::Always).then_some((id, plan.map_err(|why| why.text())))
            })
            .collect::<Vec<_>>()
    });
    let set_kept = move |kind: &WorkloadKind, kept: bool| {
        let value = keep.with_untracked(|k| k.with(kind, kept).query_value());
        let wanted = query.with_untracked(|q| query_replacing(q, &[("keep", value)]));
        let path = location.path().get_untracked();
        location.navigate(&format!("{path}{wanted}"), Navigation::Replace);
    };
    // Drawn anew each time the panel shows (a view is not `Clone` in the release build).
    let checkboxes = move || {
        WorkloadKind::KNOWN
            .iter()
            .map(|kind| {
                let (on_change, shown) = (kind.clone(), kind.clone());
                view! {
                    <label class="make-room-keep">
                        <input
                            type="checkbox"
                            name="keep"
                            value=kind.as_str().to_owned()
                            prop:checked=move || keep.with(|k| k.keeps(&shown))
                            on:change=move |ev| set_kept(&on_change, event_target_checked(&ev))
                        />
                        " " {kind_label(kind)}
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <Show when=move || plans.with(|p| !p.is_empty())>
            <section class="panel make-room" aria-label=title.get_value()>
                <h2>{title.get_value()}</h2>
                <p>
                    {format!("What to stop so that {} are free together on one ready node, and where the stopped workloads fit again. ", gpus_text(i64::from(gpus.get())))}
                    {BEST_ORDER}
                </p>
                <p class="muted make-room-advisory">
                    "Advisory only: the API has no call to stop or move a workload; nothing is sent. Each workload is stopped or moved where it is managed: its page links there."
                </p>
                <fieldset class="make-room-keeps">
                    <legend>"Never stop"</legend>
                    {checkboxes()}
                </fieldset>
                {move || plans.get().into_iter().map(|(id, plan)| view! {
                    <article class="make-room-plan" data-reservation=id.to_string()>
                        <h3><a href=account.with_value(|a| reservation_address(a, id, "", &[]))>{format!("Reservation #{id}")}</a></h3>
                        {match plan {
                            Ok(plan) => view! { <PlanView id plan account=account.get_value()/> }.into_any(),
                            Err(why) => view! { <p class="muted make-room-none">{why}</p> }.into_any(),
                        }}
                    </article>
                }).collect_view()}
            </section>
        </Show>
    }
}

/// One reservation's best plan.
#[component]
fn PlanView(id: i64, plan: Plan, account: String) -> impl IntoView {
    let Plan { node, stop, displaced, hosts } = plan;
    let summary = format!(
        "Stop {} ({} displaced in all) to free the GPUs together on ",
        count(stop.len(), "workload"),
        gpus_text(displaced)
    );
    let hosts = match hosts {
        1 => "1 node could host one.".to_owned(),
        n => format!("{} could host one.", count(n, "node")),
    };
    view! {
        <p class="make-room-summary">{summary}<strong><ApiText text=node/></strong>"."</p>
        <ul class="make-room-stops">
            {stop.into_iter().map(|s| view! { <StoppedItem id s account=account.clone()/> }).collect_view()}
        </ul>
        <p class="muted">{hosts}</p>
        <p class="muted make-room-assumed"><span class="assumed">{LAUNCH_LANDS_ON_ROOM}</span></p>
    }
}

/// A workload to stop: its page, kind, GPUs, and where it fits again.
#[component]
fn StoppedItem(id: i64, s: Stopped, account: String) -> impl IntoView {
    let gpus = if s.gpus == s.gpus_here {
        gpus_text(s.gpus)
    } else {
        format!("{} here, {} on all its nodes", gpus_text(s.gpus_here), gpus_text(s.gpus))
    };
    let again = match s.relaunch {
        Some(parts) => {
            let at: Vec<String> = parts.iter().map(|(node, g)| format!("{node} ({})", gpus_text(*g))).collect();
            view! { <span class="make-room-again">"fits again on "<ApiText text=at.join(", ")/></span> }.into_any()
        }
        None => view! { <span class="make-room-again muted">"no room to launch it again here"</span> }.into_any(),
    };
    view! {
        <li data-kind=s.kind.as_str().to_owned()>
            <a href=workload_page_path(&account, id, &s.kind, s.id)><ApiText text=s.name/></a>
            {format!(" · {} · {gpus} · ", kind_label(&s.kind))}
            {again}
        </li>
    }
}

/// The panel's title: "Make room", naming the account when it is not the connection's
/// (several accounts each have one on `/fit`).
fn make_room_title(account: &str) -> String {
    if account.is_empty() {
        "Make room".to_owned()
    } else {
        format!("Make room in {}", account_name(account))
    }
}
