//! Reservations: every reservation of the account, newest first (the API's order), with
//! what needs action on top and filters by region and status.

use crate::api::client;
use crate::api::enums::ReservationStatus;
use crate::api::models::Reservation;
use crate::components::banner::ActionBanner;
use crate::components::header::set_page_title;
use crate::components::remote::{Remote, RemoteStatus};
use crate::components::status_badge::StatusWithExplanation;
use crate::components::time::UtcDate;
use crate::domain::status::{needs_action, reservation_status, Banner};
use crate::domain::time::countdown;
use crate::state::use_clock;
use leptos::prelude::*;

#[component]
pub fn ReservationsPage() -> impl IntoView {
    set_page_title("Reservations");
    let list = Remote::new(|conn| async move { client::list_reservations(&conn).await });
    view! {
        <div class="page-head">
            <div>
                <h1>"Reservations"</h1>
                <p class="subtitle">"GPU capacity reserved to this account, newest first."</p>
            </div>
        </div>
        <RemoteStatus remote=list what="reservations"/>
        {move || list.data().map(|reservations| view! { <ReservationsView reservations/> })}
    }
}

/// The distinct (value, label) pairs of a column, in the order they first appear.
fn distinct(reservations: &[Reservation], pair: impl Fn(&Reservation) -> (String, String)) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for r in reservations {
        let p = pair(r);
        if !seen.iter().any(|(v, _)| *v == p.0) {
            seen.push(p);
        }
    }
    seen
}

/// Banners, filters and the table, from a list already read.
#[component]
pub fn ReservationsView(reservations: Vec<Reservation>) -> impl IntoView {
    let all = StoredValue::new(reservations);
    let region = RwSignal::new(String::new());
    let status = RwSignal::new(String::new());
    let regions = all.with_value(|list| distinct(list, |r| (r.region_id.clone(), r.region_id.clone())));
    let now = use_clock().now_untracked();
    let statuses =
        all.with_value(|list| distinct(list, |r| (r.status.as_str().to_owned(), reservation_status(r, now).label)));
    let shown = Memo::new(move |_| {
        let (region, status) = (region.get(), status.get());
        all.with_value(|list| {
            list.iter()
                .filter(|r| region.is_empty() || r.region_id == region)
                .filter(|r| status.is_empty() || r.status.as_str() == status)
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    let total = all.with_value(Vec::len);
    let banners = all.with_value(|list| {
        // Identical banners (two reservations awaiting payment) become one with both links.
        let mut grouped: Vec<(Banner, Vec<(String, String)>)> = Vec::new();
        for r in list {
            let Some(banner) = needs_action(r) else { continue };
            let link = (format!("/reservations/{}", r.id), format!("reservation #{}", r.id));
            match grouped.iter_mut().find(|(b, _)| *b == banner) {
                Some((_, links)) => links.push(link),
                None => grouped.push((banner, vec![link])),
            }
        }
        grouped
            .into_iter()
            .map(|(banner, links)| view! { <ActionBanner banner links/> })
            .collect::<Vec<_>>()
    });
    if total == 0 {
        return view! {
            <div class="panel empty">
                <h2>"No reservations yet"</h2>
                <p class="panel-note">
                    "This account holds no reserved GPU capacity. Reservations are set up by "
                    "EcoLink; once one is, it appears here."
                </p>
            </div>
        }
        .into_any();
    }

    view! {
        {(!banners.is_empty()).then(|| view! {
            <section class="banners" aria-label="Needs your action">{banners}</section>
        })}
        <section class="panel" aria-labelledby="list-title">
            <div class="panel-head">
                <h2 id="list-title" class="visually-hidden">"All reservations"</h2>
                <div class="filters" role="search" aria-label="Filter reservations">
                    <Filter label="Region" all="All regions" options=regions chosen=region/>
                    <Filter label="Status" all="All statuses" options=statuses chosen=status/>
                </div>
                <p class="muted num" aria-live="polite">
                    {move || {
                        let n = shown.with(Vec::len);
                        if n == total { format!("{total} reservations") } else { format!("{n} of {total} reservations") }
                    }}
                </p>
            </div>
            <div class="table-wrap">
                <table class="data-table stack-table reservations-table">
                    <thead>
                        <tr>
                            <th scope="col">"Reservation"</th>
                            <th scope="col">"Status"</th>
                            <th scope="col">"GPU type"</th>
                            <th scope="col" class="num">"Reserved GPUs"</th>
                            <th scope="col">"Term"</th>
                            <th scope="col">"Start → end (UTC)"</th>
                            <th scope="col">"Next"</th>
                        </tr>
                    </thead>
                    <tbody>
                        <For each=move || shown.get() key=|r| r.id let:r>
                            <ReservationRow r/>
                        </For>
                    </tbody>
                </table>
            </div>
            {move || shown.with(Vec::is_empty).then_some(view! {
                <p class="panel-note">"No reservation matches these filters."</p>
            })}
        </section>
    }
    .into_any()
}

/// A labelled select over the values present in the list.
#[component]
fn Filter(
    label: &'static str,
    all: &'static str,
    /// (value, label) pairs.
    options: Vec<(String, String)>,
    chosen: RwSignal<String>,
) -> impl IntoView {
    let id = format!("filter-{}", label.to_lowercase());
    view! {
        <div class="filter">
            <label for=id.clone()>{label}</label>
            <select id=id on:change:target=move |ev| chosen.set(ev.target().value()) prop:value=move || chosen.get()>
                <option value="">{all}</option>
                {options.into_iter().map(|(value, text)| view! { <option value=value>{text}</option> }).collect::<Vec<_>>()}
            </select>
        </div>
    }
}

/// "4 nodes × 8 GPUs", and a warning when the API's total disagrees with the product.
pub fn capacity_text(r: &Reservation) -> (String, Option<String>) {
    let product = r.node_count * r.gpus_per_node;
    let nodes = format!("{} node{} × {} GPUs", r.node_count, if r.node_count == 1 { "" } else { "s" }, r.gpus_per_node);
    let mismatch = (product != r.reserved_gpus)
        .then(|| format!("The API reports {} reserved GPUs, not {product}.", r.reserved_gpus));
    (nodes, mismatch)
}

/// "12 months, billed monthly"; an unknown period is shown as sent.
pub fn term_text(r: &Reservation) -> String {
    let months = format!("{} month{}", r.term_months, if r.term_months == 1 { "" } else { "s" });
    if r.billing_period.is_known() {
        format!("{months}, billed {}", r.billing_period)
    } else {
        format!("{months}, billed “{}” (unrecognised period)", r.billing_period)
    }
}

#[component]
fn ReservationRow(r: Reservation) -> impl IntoView {
    let clock = use_clock();
    let (nodes, mismatch) = capacity_text(&r);
    let term = term_text(&r);
    let id = r.id;
    let row = StoredValue::new(r.clone());
    view! {
        <tr>
            <td data-label="Reservation">
                <a class="row-link" href=format!("/reservations/{id}")>{format!("#{id}")}</a>
                <span class="cell-sub">
                    {r.contract_ref.clone().unwrap_or_else(|| "no contract ref".to_owned())}
                </span>
            </td>
            <td data-label="Status">
                {move || row.with_value(|r| view! { <StatusWithExplanation status=reservation_status(r, clock.now())/> })}
            </td>
            <td data-label="GPU type">
                <span class="gpu-type">{r.gpu_type.clone()}</span>
                <span class="cell-sub">{format!("region {}", r.region_id)}</span>
            </td>
            <td data-label="Reserved GPUs" class="num">
                <strong>{r.reserved_gpus}</strong>
                <span class="cell-sub">{nodes}</span>
                {mismatch.map(|m| view! { <span class="cell-sub tone-text-warning">"⚠ " {m}</span> })}
            </td>
            <td data-label="Term">{term}</td>
            <td data-label="Start → end">
                <TermDates r=r.clone()/>
            </td>
            <td data-label="Next">
                {move || row.with_value(|r| countdown(r, clock.now())).unwrap_or_else(|| "—".to_owned())}
            </td>
        </tr>
    }
}

/// Start → end (billing dates, UTC), or why there are none yet; `ended_at` when it differs.
#[component]
pub fn TermDates(r: Reservation) -> impl IntoView {
    match (r.starts_at, r.ends_at) {
        (Some(start), Some(end)) => view! {
            <span class="nowrap"><UtcDate at=start/></span>
            " → "
            <span class="nowrap"><UtcDate at=end/></span>
            {r.ended_at.filter(|e| *e != end).map(|at| view! {
                <span class="cell-sub">"ended " <UtcDate at/></span>
            })}
        }
        .into_any(),
        (Some(start), None) => view! { <UtcDate at=start/> " → no end set" }.into_any(),
        (None, _) if r.status == ReservationStatus::AwaitingPayment => {
            view! { <span class="muted">"Set when the first invoice is paid"</span> }.into_any()
        }
        (None, _) => view! { <span class="muted">"Not set yet"</span> }.into_any(),
    }
}
