//! One workload on a reservation: every node it runs on, its GPUs there and the total,
//! from the reservation's placement polled like the Nodes page (see `reads::live`), through the session's store of it (`reads::nodes`). The
//! workload links of Nodes and the launch banner lead here.

use crate::api::assumptions::provider_console_path;
use crate::api::enums::WorkloadKind;
use crate::api::error::ApiError;
use crate::browser::set_page_title;
use crate::components::api_text::ApiText;
use crate::components::data_table::{Column, DataTable, Scroller};
use crate::components::error_panel::ErrorPanel;
use crate::components::reservation_route::{for_reservation_id, ReservationCrumbs};
use crate::domain::explain::ErrorContext;
use crate::domain::nodes::capacity::gpus_text;
use crate::domain::nodes::grid::kind_label;
use crate::domain::nodes::workload::locate;
use crate::domain::words::text::visible_controls;
use crate::reads::live::{page_interval, Live};
use crate::reads::nodes::use_nodes;
use crate::reads::reservations::use_reservations;
use crate::router::{use_location, Route};
use crate::state::{use_connection, Lifetime};
use leptos::prelude::*;

#[component]
pub fn WorkloadPage() -> impl IntoView {
    for_reservation_id(|id| {
        let route = use_location().route().read_untracked().clone();
        let Route::Workload { kind, id: raw_workload, .. } = route else {
            return view! { <ErrorPanel error=ApiError::invalid_request("Not a workload page.")/> }.into_any();
        };
        // Digits alone, as every link of the console writes it; only the parsed id is shown.
        let workload =
            Some(&raw_workload).filter(|w| w.bytes().all(|b| b.is_ascii_digit())).and_then(|w| w.parse::<i64>().ok());
        match workload {
            Some(workload) => view! { <WorkloadLive id kind=WorkloadKind::from(kind.as_str()) workload/> }.into_any(),
            None => {
                set_page_title("Not a workload");
                let error = ApiError::invalid_request(
                    "This address does not name a workload: its id must be a whole number, as in \
                     /reservations/12/workloads/gpu_cluster/418.",
                );
                view! { <ErrorPanel error/> }.into_any()
            }
        }
    })
}

/// The page's heading and title: the kind's name when the address holds a kind the console
/// knows, else "Workload". The address's text is whoever wrote the link's (words posing as
/// the page's), so a kind it spells otherwise is never shown; it only finds the workload.
fn heading(kind: &WorkloadKind, workload: i64) -> String {
    match kind {
        WorkloadKind::Unknown(_) => format!("Workload #{workload}"),
        known => format!("{} #{workload}", kind_label(known)),
    }
}

/// The workload's page in the provider's own console, in a new tab, only when the user set
/// that console's origin on Connect (the path is an assumption).
fn provider_link(kind: &WorkloadKind, workload: i64) -> Option<impl IntoView> {
    let origin = use_connection().connection_untracked()?.console_origin()?.to_owned();
    let path = provider_console_path(kind, workload)?;
    Some(view! {
        <div class="page-actions">
            <a class="button button-secondary provider-link" href=format!("{origin}{path}") target="_blank" rel="noopener noreferrer">
                "Open in the provider's console"
            </a>
        </div>
    })
}

#[component]
fn WorkloadLive(id: i64, kind: WorkloadKind, workload: i64) -> impl IntoView {
    let reservation = use_reservations().detail_remote(id);
    let nodes = use_nodes();
    // The answers land in the store, which the view reads.
    let live = Live::start(page_interval(), move || nodes.fetch(id, Lifetime::Page));
    let error = move || nodes.with(id, |read| read.error.clone());
    let context = Signal::derive(move || {
        reservation.data().map_or_else(ErrorContext::default, |d| ErrorContext::of(&d.reservation))
    });
    let title = heading(&kind, workload);
    set_page_title(&title);
    let provider = provider_link(&kind, workload);
    let placement = move || {
        nodes.with(id, |read| {
            read.latest.as_ref().map(|f| (f.value.workloads_unknown, locate(&f.value, &kind, workload)))
        })
    };
    view! {
        <section class="workload-page" data-poll-count=move || live.polls().to_string()>
            <ReservationCrumbs id here="Workload"/>
            <div class="page-head">
                <h1 class="workload-title">{title}</h1>
                {provider}
            </div>
            {move || {
                error().filter(|e| !e.is_unauthorized()).map(|error| {
                    view! { <ErrorPanel error context=context.get() retry=Callback::new(move |()| live.resume())/> }
                })
            }}
            {move || match placement() {
                None => view! { <p class="muted">"Reading where it runs…"</p> }.into_any(),
                Some((true, _)) => view! {
                    <p class="banner tone-warning" role="status">
                        "The region cannot be reached: where this workload runs is unknown until it answers."
                    </p>
                }
                .into_any(),
                Some((false, None)) => view! {
                    <p class="banner tone-info" role="status">
                        {format!(
                            "No node of reservation #{id} lists this workload now: it has ended, or runs elsewhere."
                        )}
                    </p>
                }
                .into_any(),
                Some((false, Some(found))) => {
                    let total = gpus_text(found.total_gpus);
                    let node_count = found.nodes.len();
                    view! {
                        <section class="panel">
                            <p class="workload-name" title=visible_controls(&found.name).into_owned()>
                                <ApiText text=found.name.clone()/>
                            </p>
                            <DataTable
                                class="data-table workload-nodes"
                                scroller=Scroller::None
                                caption=format!("Where it runs on reservation #{id}")
                                columns=vec![Column::text("Node"), Column::figures("GPUs")]
                                foot=move || view! {
                                    <tr>
                                        <th scope="row">{format!("Total on {node_count} node{}", if node_count == 1 { "" } else { "s" })}</th>
                                        <td class="num workload-total">{total}</td>
                                    </tr>
                                }
                            >
                                {found
                                    .nodes
                                    .into_iter()
                                    .map(|(node, gpus)| view! { <tr><td><ApiText text=node/></td><td class="num">{gpus}</td></tr> })
                                    .collect_view()}
                            </DataTable>
                        </section>
                    }
                    .into_any()
                }
            }}
        </section>
    }
}
