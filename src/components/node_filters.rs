//! The Nodes page's finding bar: state, free GPUs, workload kind, search and sort, kept in
//! the address (as the reservations list keeps its filters), and "showing K of N nodes".
//! What is shown is decided by `domain::nodes::filter`.

use crate::api::enums::{NodeState, WorkloadKind};
use crate::components::api_text::ApiText;
use crate::components::reservation_route::route_account;
use crate::domain::nodes::filter::{nodes_named, showing_text, FoundWorkload, NodeFilter, SortBy};
use crate::domain::nodes::grid::{kind_label, state_label};
use crate::domain::nodes::workload::workload_page_path;
use crate::domain::words::count;
use crate::router::{use_location, Navigation};
use leptos::prelude::*;

/// The filter read from the address, and written back (replacing the current entry) when it
/// changes; a link or back/forward changes it too. Call it inside the `<Router>`.
pub fn url_node_filter() -> RwSignal<NodeFilter> {
    let location = use_location();
    let query = location.query();
    let filter = RwSignal::new(query.with_untracked(|q| NodeFilter::from_query(q)));
    Effect::new(move || {
        let read = query.with(|q| NodeFilter::from_query(q));
        if filter.with_untracked(|f| *f != read) {
            filter.set(read);
        }
    });
    Effect::new(move || {
        let wanted = filter.with(|f| query.with_untracked(|q| f.to_query(q)));
        if query.with_untracked(|q| *q != wanted) {
            let path = location.path().get_untracked();
            location.navigate(&format!("{path}{wanted}"), Navigation::Replace);
        }
    });
    filter
}

/// The bar. `shown` and `total` are node counts.
#[component]
pub fn NodeFilters(
    filter: RwSignal<NodeFilter>,
    #[prop(into)] shown: Signal<usize>,
    #[prop(into)] total: Signal<usize>,
) -> impl IntoView {
    let states = [NodeState::Ready, NodeState::Preparing, NodeState::UnderMaintenance];
    let kinds =
        [WorkloadKind::GpuInstance, WorkloadKind::GpuCluster, WorkloadKind::InferenceInstance, WorkloadKind::FineTune];
    let state_value = move || filter.with(|f| f.state.as_ref().map(|s| s.as_str().to_owned()).unwrap_or_default());
    let kind_value = move || filter.with(|f| f.kind.as_ref().map(|k| k.as_str().to_owned()).unwrap_or_default());
    view! {
        <form class="node-filters" role="search" aria-label="Find nodes" on:submit=|ev| ev.prevent_default()>
            <label>
                "Search "
                <input
                    type="search"
                    name="q"
                    placeholder="node, workload name or id"
                    prop:value=move || filter.with(|f| f.search.clone())
                    on:input=move |ev| filter.update(|f| f.search = event_target_value(&ev))
                />
            </label>
            <label>
                "State "
                <select name="state" prop:value=state_value on:change=move |ev| {
                    let v = event_target_value(&ev);
                    filter.update(|f| f.state = (!v.is_empty()).then(|| NodeState::from(v.as_str())));
                }>
                    <option value="">"Any"</option>
                    {states.into_iter().map(|s| view! { <option value=s.as_str().to_owned()>{state_label(&s).0}</option> }).collect_view()}
                </select>
            </label>
            <label>
                "Free GPUs at least "
                <input
                    type="number"
                    name="free"
                    min="0"
                    inputmode="numeric"
                    prop:value=move || filter.with(|f| f.min_free.map(|n| n.to_string()).unwrap_or_default())
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        filter.update(|f| f.min_free = v.trim().parse().ok().filter(|n: &i64| *n > 0));
                    }
                />
            </label>
            <label>
                "Workload "
                <select name="kind" prop:value=kind_value on:change=move |ev| {
                    let v = event_target_value(&ev);
                    filter.update(|f| f.kind = (!v.is_empty()).then(|| WorkloadKind::from(v.as_str())));
                }>
                    <option value="">"Any"</option>
                    {kinds.into_iter().map(|k| view! { <option value=k.as_str().to_owned()>{kind_label(&k)}</option> }).collect_view()}
                </select>
            </label>
            <label>
                "Sort "
                <select name="sort" prop:value=move || filter.with(|f| f.sort.as_query().to_owned()) on:change=move |ev| {
                    let v = event_target_value(&ev);
                    filter.update(|f| f.sort = SortBy::from_query(&v));
                }>
                    <option value="">"As listed"</option>
                    <option value="name">"Name"</option>
                    <option value="free">"Free GPUs (most first)"</option>
                    <option value="in_use">"GPUs in use (most first)"</option>
                </select>
            </label>
            <output class="node-count" aria-live="polite">{move || showing_text(shown.get(), total.get())}</output>
        </form>
    }
}

/// Workloads the search found, each once however many nodes its replicas are on: its total
/// GPUs and its nodes (the first few named), linked to the workload view.
#[component]
pub fn FoundWorkloads(reservation: i64, #[prop(into)] found: Signal<Vec<FoundWorkload>>) -> impl IntoView {
    let account = route_account();
    move || {
        found.with(|found| {
            (!found.is_empty()).then(|| {
                let items = found
                    .iter()
                    .map(|w| {
                        let href = workload_page_path(&account, reservation, &w.kind, w.id);
                        // The name, the kind (an unrecognised one as the API spelled it) and
                        // the node names are the API's text, each isolated.
                        view! {
                            <li class="found-workload">
                                <a href=href><ApiText text=w.at.name.clone()/></a>
                                " · "
                                <ApiText text=kind_label(&w.kind)/>
                                {format!(
                                    " #{} · {} on {}: ",
                                    w.id,
                                    count(w.at.total_gpus, "GPU"),
                                    count(w.at.nodes.len(), "node")
                                )}
                                <ApiText text=nodes_named(&w.at.nodes)/>
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <div class="found-workloads">
                        <h3>"Workloads found"</h3>
                        <ul>{items}</ul>
                    </div>
                }
            })
        })
    }
}
