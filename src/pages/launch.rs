//! Launch on a reservation: a form whose GPU type and region come from the reservation,
//! which says before sending which documented answer the current data predicts, sends the
//! launch once (no double submit) and shows the mapped error or the new instance. A
//! reservation whose status closes launches gets no form: a launch names only a region and
//! a GPU type, so one sent from it would land on another reservation. A launch left without
//! an answer is looked for on the nodes, never sent again by itself.

use crate::api::client;
use crate::api::enums::WorkloadKind;
use crate::api::error::{ApiError, ErrorKind};
use crate::api::models::{LaunchRequest, LaunchedInstance, NodesResponse, Reservation};
use crate::components::api_text::ApiText;
use crate::components::error_panel::ErrorPanel;
use crate::components::field::{CheckField, Field};
use crate::components::remote::RemoteStatus;
use crate::components::reservation_route::{for_reservation_id, route_account, ReservationCrumbs};
use crate::components::status_badge::StatusBadge;
use crate::domain::explain::{Action, ErrorContext};
use crate::domain::money::launched::{billing_text, instance_ids, look_for_launch, Sighting};
use crate::domain::nodes::capacity::{
    accepts_launches, free_gpus, gpus_text, is_inconsistent, predict_launch, success_caveat, totals, Prediction,
};
use crate::domain::nodes::workload::workload_page_path;
use crate::domain::status::{launch_access, reservation_status};
use crate::domain::words::address::{query_value, reservation_address};
use crate::domain::words::text::visible_controls;
use crate::reads::nodes::use_nodes;
use crate::reads::remote::Remote;
use crate::reads::reservations::{use_reservations, ReservationsStore};
use crate::router::use_location;
use crate::state::{use_clock, use_connection, Lifetime, Role};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

#[component]
pub fn LaunchPage() -> impl IntoView {
    for_reservation_id(|id| view! { <LaunchOn id/> })
}

#[component]
fn LaunchOn(id: i64) -> impl IntoView {
    let state = use_connection();
    let reservation = use_reservations().detail_remote(id);
    // Through the session's store of each reservation's nodes: an answer the Nodes page or the
    // overview got a moment ago is reused, a read under way is joined, and what this page
    // reads is what they show next.
    let store = use_nodes();
    let reads = StoredValue::new(0_u32);
    let nodes = Remote::new(move |_| {
        // The first read may reuse a fresh answer; a re-read (after a launch) must not.
        let first = reads.try_update_value(|n| std::mem::replace(n, *n + 1) == 0).unwrap_or(false);
        if first {
            store.fetch_fresh(id, Lifetime::Page)
        } else {
            store.fetch_new(id, Lifetime::Page)
        }
    });
    let pending = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Result<LaunchedInstance, ApiError>>);
    // Only new data redraws the form (a refresh starting must not reset what was typed).
    let reservation_data = Memo::new(move |_| reservation.data().map(|d| d.reservation));
    let gpus_asked = use_location().query().with_untracked(|q| query_value(q, "gpus"));
    let submit = Callback::new(move |request: LaunchRequest| {
        if !state.is_connected_untracked() {
            return;
        }
        pending.set(true);
        outcome.set(None);
        spawn_local(async move {
            // Not aborted when the page is left: an abort would not undo the launch, only
            // lose its answer.
            let result = state.send_for(Lifetime::Session, |c| async move { client::launch(&c, &request).await }).await;
            // `try_set` hands the value back when the page was left meanwhile.
            if outcome.try_set(Some(result)).is_none() {
                pending.set(false);
                // What was free has changed (or was not what the console thought).
                nodes.refetch();
            }
        });
    });
    view! {
        <ReservationCrumbs id here="Launch"/>
        <div class="page-head">
            <div>
                <h1>{format!("Launch on reservation #{id}")}</h1>
                <p class="subtitle">"A GPU instance on the reserved nodes, billed by the reservation."</p>
            </div>
            <div class="page-actions">
                <a class="button button-secondary" href=reservation_address(&route_account(), id, "/nodes", &[])>"See the nodes"</a>
            </div>
        </div>
        <RemoteStatus remote=reservation what="the reservation"/>
        <div class="launch-layout">
            {move || reservation_data.get().map(|reservation| view! {
                <LaunchForm
                    reservation
                    nodes=Signal::derive(move || nodes.data())
                    pending=pending.into()
                    outcome=outcome.into()
                    submit
                    reread=Callback::new(move |()| nodes.refetch())
                    gpus_asked=gpus_asked.clone().unwrap_or_else(|| "1".to_owned())
                />
            })}
            <aside class="panel free-now" aria-labelledby="free-now-heading">
                <h2 id="free-now-heading">"Free GPUs now"</h2>
                <RemoteStatus remote=nodes what="the nodes"/>
                {move || nodes.data().map(|response| view! { <FreeNow response/> })}
            </aside>
        </div>
    }
}

/// Ready nodes shown at most in the free list; the rest are counted.
const FREE_LISTED: usize = 8;

/// The ready nodes with the most free GPUs, where a launch can go; a node whose counts
/// disagree is left out and named.
#[component]
pub fn FreeNow(response: Arc<NodesResponse>) -> impl IntoView {
    if response.workloads_unknown {
        return view! { <p class="muted">"The region cannot be reached: free GPUs are unknown."</p> }.into_any();
    }
    let mut ready: Vec<(i64, i64, &str)> = response
        .nodes
        .iter()
        .filter(|n| accepts_launches(n))
        .filter(|n| !is_inconsistent(n))
        .filter_map(|n| free_gpus(n, false).map(|free| (free, n.gpus, n.display_name.as_str())))
        .collect();
    ready.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.2.cmp(b.2)));
    let left_out: Vec<String> = response
        .nodes
        .iter()
        .filter(|n| accepts_launches(n) && is_inconsistent(n))
        .map(|n| visible_controls(&n.display_name).into_owned())
        .collect();
    let more = ready.len().saturating_sub(FREE_LISTED);
    let rows = ready
        .into_iter()
        .take(FREE_LISTED)
        .map(|(free, gpus, name)| {
            view! {
                <li>
                    <span class="free-node">{visible_controls(name).into_owned()}</span>
                    <span class="num">{format!("{free} free of {gpus}")}</span>
                </li>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <ol class="free-list">{rows}</ol>
        {(more > 0).then(|| view! { <p class="muted">{format!("and {more} more ready nodes")}</p> })}
        {(!left_out.is_empty()).then(|| view! {
            <p class="muted">{format!(
                "Left out: {} (more GPUs in use than the node has; counted 0 free).",
                left_out.join(", ")
            )}</p>
        })}
        <p class="field-help">"A launch takes all its GPUs from one ready node."</p>
    }
    .into_any()
}

/// "Predicted answer" in words, and the CSS tone it is shown in.
pub fn prediction_text(p: &Prediction) -> (&'static str, String) {
    match p {
        // Predicted from this reservation's own status: "expected", with the caveat /fit says too.
        Prediction::Fits { node } => ("ok", format!("Expected to succeed: it fits on {node}. {}", success_caveat())),
        Prediction::WouldFail { status, code, explanation } => (
            "danger",
            format!(
                "Expected to fail with HTTP {status}{}: {explanation}",
                code.map(|c| format!(" {c}")).unwrap_or_default()
            ),
        ),
        Prediction::Unknown(why) => ("neutral", format!("The answer cannot be predicted: {why}")),
    }
}

/// A name as sent: trimmed, not empty, at most this many characters.
const MAX_NAME: usize = 63;

fn name_problem(name: &str) -> Option<String> {
    let name = name.trim();
    if name.is_empty() {
        Some("Give the instance a name.".to_owned())
    } else if name.chars().count() > MAX_NAME {
        Some(format!("Use at most {MAX_NAME} characters."))
    } else {
        None
    }
}

fn gpus_problem(raw: &str, per_node: i64) -> Result<i64, String> {
    match raw.trim().parse::<i64>() {
        Ok(n) if (1..=per_node.max(1)).contains(&n) => Ok(n),
        _ => Err(format!("Enter a whole number of GPUs from 1 to {}.", per_node.max(1))),
    }
}

/// No answer came: the request may or may not have reached the API.
fn unanswered(error: &ApiError) -> bool {
    error.status.is_none() && matches!(error.kind, ErrorKind::Timeout | ErrorKind::Network | ErrorKind::Cancelled)
}

/// The form on data already read; `submit` sends, `reread` reads the nodes again. Tests
/// mount it on fixtures.
#[component]
pub fn LaunchForm(
    reservation: Reservation,
    nodes: Signal<Option<Arc<NodesResponse>>>,
    pending: Signal<bool>,
    outcome: Signal<Option<Result<LaunchedInstance, ApiError>>>,
    submit: Callback<LaunchRequest>,
    reread: Callback<()>,
    /// The GPUs asked for by the address (`?gpus=K`, as the fit page links): the field
    /// starts with it, and the usual check says when it does not fit.
    #[prop(optional)]
    gpus_asked: Option<String>,
) -> impl IntoView {
    if !launch_access(&reservation.status).allows_launch() {
        return view! { <LaunchesClosed reservation/> }.into_any();
    }
    let r = StoredValue::new(reservation);
    let per_node = r.with_value(|r| r.gpus_per_node);
    let reservation_id = r.with_value(|r| r.id);
    let gpus = RwSignal::new(gpus_asked.unwrap_or_else(|| "1".to_owned()));
    let name = RwSignal::new(String::new());
    let interruptible = RwSignal::new(false);
    let shown_problems = RwSignal::new(false);
    // Retry sends the request that failed, not what the form holds by then.
    let last_request = StoredValue::new(None::<LaunchRequest>);
    // The GPU instances on the nodes when it was sent: an unanswered launch is a new one.
    let instances_before = StoredValue::new(Vec::new());

    let gpus_value = move || gpus_problem(&gpus.get(), per_node);
    let prediction = Memo::new(move |_| {
        let count = gpus.with(|g| g.trim().parse::<i64>().unwrap_or(0));
        nodes.with(|n| r.with_value(|r| predict_launch(r, n.as_deref(), count, interruptible.get())))
    });
    let fit = move || {
        nodes.with(|n| {
            n.as_ref().map(|n| match totals(n).largest_fit {
                Some(largest) => format!("Largest launch that fits on one node now: {}.", gpus_text(largest)),
                None if n.workloads_unknown => "Free GPUs are unknown: the region cannot be reached.".to_owned(),
                None => "Free GPUs are unknown: no node's figures could be read.".to_owned(),
            })
        })
    };

    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if pending.get_untracked() {
            return;
        }
        shown_problems.set(true);
        let (Ok(count), None) = (gpus_value(), name_problem(&name.get_untracked())) else { return };
        let (region_id, gpu_type) = r.with_value(|r| (r.region_id.clone(), r.gpu_type.clone()));
        let request = LaunchRequest {
            region_id,
            gpu_type,
            gpus: count,
            name: name.get_untracked().trim().to_owned(),
            interruptible: interruptible.get_untracked().then_some(true),
        };
        last_request.set_value(Some(request.clone()));
        instances_before.set_value(nodes.with_untracked(|n| n.as_deref().map(instance_ids).unwrap_or_default()));
        submit.run(request);
    };
    let gpus_error = move || shown_problems.get().then(|| gpus_value().err()).flatten();
    let name_error = move || shown_problems.get().then(|| name_problem(&name.get())).flatten();
    let context = r.with_value(ErrorContext::of).acting(Action::Launch);

    view! {
        <section class="panel launch-panel" aria-labelledby="launch-heading">
            <h2 id="launch-heading">"New GPU instance"</h2>
            <form class="launch-form" on:submit=on_submit novalidate=true aria-busy=move || pending.get().to_string()>
                <dl class="facts launch-fixed">
                    <div><dt>"GPU type"</dt><dd><ApiText text=r.with_value(|r| r.gpu_type.clone())/></dd></div>
                    <div><dt>"Region"</dt><dd><ApiText text=r.with_value(|r| r.region_id.clone())/></dd></div>
                    <div><dt>"GPUs per node"</dt><dd class="num">{per_node.to_string()}</dd></div>
                </dl>
                <p class="field-help">"GPU type and region are the reservation's; a launch elsewhere is not covered by it."</p>
                <Field
                    label="GPUs"
                    id="launch-gpus"
                    help=move || view! { {fit}" All GPUs of a launch are on one node." }
                    error=Signal::derive(gpus_error)
                >
                    <input
                        name="gpus"
                        type="number"
                        inputmode="numeric"
                        min="1"
                        max=per_node.max(1).to_string()
                        step="1"
                        bind:value=gpus
                    />
                </Field>
                <Field label="Name" id="launch-name" error=Signal::derive(name_error)>
                    <input
                        name="name"
                        type="text"
                        autocomplete="off"
                        spellcheck="false"
                        maxlength=MAX_NAME.to_string()
                        bind:value=name
                    />
                </Field>
                <CheckField
                    label="Interruptible"
                    name="interruptible"
                    checked=interruptible
                    help="Reserved capacity is never interruptible: the API refuses a launch that asks for it."
                />
                <p
                    class=move || format!("prediction tone-{}", prediction_text(&prediction.get()).0)
                    role="status"
                    aria-live="polite"
                >
                    <strong>"Predicted answer: "</strong>
                    {move || prediction_text(&prediction.get()).1}
                </p>
                <button type="submit" class="button" disabled=move || pending.get()>
                    {move || if pending.get() { "Launching…" } else { "Launch" }}
                </button>
            </form>
            {move || outcome.get().map(|result| match result {
                Ok(instance) => view! { <Launched reservation=reservation_id instance/> }.into_any(),
                Err(error) if unanswered(&error) => {
                    let name = last_request.with_value(|r| r.as_ref().map(|r| r.name.clone())).unwrap_or_default();
                    view! {
                        <Unanswered
                            error
                            reservation=reservation_id
                            name
                            before=instances_before.get_value()
                            nodes
                            reread
                        />
                    }
                    .into_any()
                }
                Err(error) => {
                    let retry = Callback::new(move |()| {
                        if let Some(request) = last_request.get_value().filter(|_| !pending.get_untracked()) {
                            submit.run(request);
                        }
                    });
                    // The account's list, when the tab has read it: where a reservation_only
                    // refusal can send the user instead.
                    let list = use_context::<ReservationsStore>().and_then(|r| r.reservations()).unwrap_or_default();
                    view! { <ErrorPanel error context=context.clone().with_live(&list) retry/> }.into_any()
                }
            })}
        </section>
    }
    .into_any()
}

/// The launch page of a reservation whose status closes launches: why, and no form.
#[component]
fn LaunchesClosed(reservation: Reservation) -> impl IntoView {
    let status = reservation_status(&reservation, use_clock().now_untracked());
    view! {
        <section class="panel launch-panel launches-closed" aria-labelledby="launch-heading">
            <h2 id="launch-heading">"Launches are closed on this reservation"</h2>
            <p><StatusBadge label=status.label tone=status.tone/>" "{launch_access(&reservation.status).words()}</p>
            <p>
                "Nothing is sent from this page: a launch names only a region and a GPU type, so one sent from \
                here would go to another reservation of the account with the same ones, or be refused."
            </p>
        </section>
    }
}

/// A launch that got no answer (a timeout, a broken connection): it may have been made.
/// Never offered again as a Retry; the nodes, read again, tell whether it appeared.
#[component]
fn Unanswered(
    error: ApiError,
    reservation: i64,
    name: String,
    before: Vec<i64>,
    nodes: Signal<Option<Arc<NodesResponse>>>,
    reread: Callback<()>,
) -> impl IntoView {
    let why = error.message.unwrap_or_default();
    let shown = visible_controls(&name).into_owned();
    let sighting = {
        let shown = shown.clone();
        move || {
            nodes.with(|n| match n.as_ref().map(|n| look_for_launch(n, &name, &before)) {
                Some(Sighting::Found { node, id }) => view! {
                    "It was launched: "
                    <a href=workload_page_path(&route_account(), reservation, &WorkloadKind::GpuInstance, id)>{shown.clone()}</a>
                    {format!(" (#{id}) runs on {}.", visible_controls(&node))}
                }
                .into_any(),
                Some(Sighting::NotSeen) => format!(
                    "“{shown}” is not on the nodes as last read. It may still appear: launching again now could \
                     start a second instance."
                )
                .into_any(),
                Some(Sighting::Unknown) | None => {
                    "The nodes cannot show it now (the region cannot be reached, or they are not read yet).".into_any()
                }
            })
        }
    };
    view! {
        <section class="error-panel unanswered" role="alert">
            <h2 class="error-title">"No answer to the launch: it may have been made"</h2>
            <p>{format!("{why} The launch may have reached the API all the same; it is not sent again by itself.")}</p>
            <p class="launch-sighting" role="status">{sighting}</p>
            <button type="button" class="button button-secondary" on:click=move |_| reread.run(())>
                "Read the nodes again"
            </button>
        </section>
    }
}

/// The new instance, and how it is billed: by the reservation at $0/h, or — should the
/// answer say otherwise — what it says, flagged (a rate only to the owner).
#[component]
fn Launched(reservation: i64, instance: LaunchedInstance) -> impl IntoView {
    let (billing, expected) = billing_text(&instance, use_connection().role() == Role::Owner);
    let gpus = gpus_text(instance.gpus);
    view! {
        <div class=if expected { "banner tone-ok launched" } else { "banner tone-warning launched" } role="status">
            <strong class="banner-title">"Launched"</strong>
            " "
            <span class="banner-body">
                <a href=workload_page_path(&route_account(), reservation, &WorkloadKind::GpuInstance, instance.id)>{visible_controls(&instance.name).into_owned()}</a>
                {format!(" (#{}) · {gpus} · {billing}", instance.id)}
                {(!expected).then_some(" — not what a launch on the reservation should answer.")}
            </span>
        </div>
    }
}
