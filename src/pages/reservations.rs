//! Reservations: every reservation of the account, newest first (the API's order), with
//! what needs action on top and filters by region and status.

use crate::api::client;
use crate::api::models::Reservation;
use crate::components::banner::ActionBanner;
use crate::components::flag::Flag;
use crate::components::header::set_page_title;
use crate::components::placements::{InUseFigure, Placements};
use crate::components::remote::{Remote, RemoteStatus};
use crate::components::status_badge::StatusWithExplanation;
use crate::components::time::{zone, TermDates};
use crate::domain::capacity::capacity_text;
use crate::domain::status::{needs_action, reservation_status_in, Banner};
use crate::domain::text::visible_controls;
use crate::domain::time::{countdown, term_mismatch, term_text, Zone};
use crate::router::{query_string, query_value, use_location, Navigation};
use crate::state::{use_clock, use_connection, use_time_zone, Role, TimeZone};
use leptos::prelude::*;

#[component]
pub fn ReservationsPage() -> impl IntoView {
    set_page_title("Reservations");
    let list = Remote::new(|conn| async move { client::list_reservations(&conn).await });
    let placements = Placements::default();
    placements.read_after(Memo::new(move |_| list.fetched_at()), move || list.data().unwrap_or_default());
    let filters = url_filters();
    view! {
        <div class="page-head">
            <div>
                <h1>"Reservations"</h1>
                <p class="subtitle">"GPU capacity reserved to this account, newest first."</p>
            </div>
        </div>
        <RemoteStatus remote=list what="reservations"/>
        {move || list.data().map(|reservations| view! { <ReservationsView reservations placements filters/> })}
    }
}

/// The list's filters: a region and a status (its wire value), empty for all.
#[derive(Clone, Copy)]
pub struct ListFilters {
    region: RwSignal<String>,
    status: RwSignal<String>,
}

impl Default for ListFilters {
    fn default() -> Self {
        ListFilters { region: RwSignal::new(String::new()), status: RwSignal::new(String::new()) }
    }
}

/// Filters kept in the address, `?region=atl&status=past_due` (and `tz=utc` while times are
/// in UTC), so that a filtered list can be bookmarked and shared. Only these three are
/// written back: nothing else that sits in the address is carried on. An address with
/// `tz=utc` switches times to UTC; one without leaves the switch as the user set it. Call
/// it inside the `<Router>`.
pub fn url_filters() -> ListFilters {
    let location = use_location();
    let query = location.query();
    let tz = use_time_zone();
    let read = move |q: &str, key: &str| query_value(q, key).unwrap_or_default();
    let follow_zone = move |q: &str| {
        if query_value(q, "tz").as_deref() == Some("utc") && tz.0.get_untracked() != TimeZone::Utc {
            tz.0.set(TimeZone::Utc);
        }
    };
    let filters = query.with_untracked(|q| {
        follow_zone(q);
        ListFilters { region: RwSignal::new(read(q, "region")), status: RwSignal::new(read(q, "status")) }
    });
    // A link or back/forward changed the address: the filters and the zone follow.
    Effect::new(move || {
        query.with(|q| {
            for (signal, key) in [(filters.region, "region"), (filters.status, "status")] {
                let value = read(q, key);
                if signal.get_untracked() != value {
                    signal.set(value);
                }
            }
            follow_zone(q);
        })
    });
    // A filter or the zone changed: the address follows, in place of the current entry.
    Effect::new(move || {
        let zone = if tz.get() == TimeZone::Utc { "utc".to_owned() } else { String::new() };
        let wanted = query_string(&[("region", filters.region.get()), ("status", filters.status.get()), ("tz", zone)]);
        if query.with_untracked(|q| q.as_str() != wanted) {
            let path = location.path().get_untracked();
            location.navigate(&format!("{path}{wanted}"), Navigation::Replace);
        }
    });
    filters
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
pub fn ReservationsView(
    reservations: Vec<Reservation>,
    /// GPUs in use per reservation; none shown without.
    #[prop(optional)]
    placements: Placements,
    /// Bound to the address on the page ([`url_filters`]); on their own without.
    #[prop(optional)]
    filters: ListFilters,
) -> impl IntoView {
    let all = StoredValue::new(reservations);
    let ListFilters { region, status } = filters;
    let tz = use_time_zone();
    let regions = all.with_value(|list| distinct(list, |r| (r.region_id.clone(), r.region_id.clone())));
    let now = use_clock().now_untracked();
    let statuses = all.with_value(|list| {
        distinct(list, |r| (r.status.as_str().to_owned(), reservation_status_in(r, now, Zone::Utc).label))
    });
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
    let state = use_connection();
    let banners = move || {
        let owner = state.role() == Role::Owner;
        all.with_value(|list| {
            // Identical banners (two reservations awaiting payment) become one with both links.
            let mut grouped: Vec<(Banner, Vec<(String, String)>)> = Vec::new();
            for r in list {
                let Some(banner) = needs_action(r, zone(tz.get()), owner) else { continue };
                let link = (format!("/reservations/{}", r.id), format!("reservation #{}", r.id));
                match grouped.iter_mut().find(|(b, _)| *b == banner) {
                    Some((_, links)) => links.push(link),
                    None => grouped.push((banner, vec![link])),
                }
            }
            grouped.into_iter().map(|(banner, links)| view! { <ActionBanner banner links/> }).collect::<Vec<_>>()
        })
    };
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
        {move || {
            let banners = banners();
            (!banners.is_empty()).then(|| view! {
                <section class="banners" aria-label="Needs your action">{banners}</section>
            })
        }}
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
                            <ReservationRow r placements/>
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
    // ASCII: the labels are ours, and Unicode's case tables would cost the first load ~10 KB.
    let id = format!("filter-{}", label.to_ascii_lowercase());
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

#[component]
fn ReservationRow(r: Reservation, placements: Placements) -> impl IntoView {
    let clock = use_clock();
    let tz = use_time_zone();
    let (nodes, mismatch) = capacity_text(&r);
    let term_off = term_mismatch(&r);
    let term = term_text(&r);
    let id = r.id;
    let row = StoredValue::new(r.clone());
    view! {
        <tr>
            <td data-label="Reservation">
                <a class="row-link" href=format!("/reservations/{id}")>{format!("#{id}")}</a>
                <span class="cell-sub">
                    {r.contract_ref.as_deref().map_or_else(|| "no contract ref".to_owned(), |c| visible_controls(c).into_owned())}
                </span>
            </td>
            <td data-label="Status">
                {move || row.with_value(|r| view! {
                    <StatusWithExplanation status=reservation_status_in(r, clock.now(), zone(tz.get()))/>
                })}
            </td>
            <td data-label="GPU type">
                <span class="gpu-type">{visible_controls(&r.gpu_type).into_owned()}</span>
                <span class="cell-sub">{format!("region {}", visible_controls(&r.region_id))}</span>
            </td>
            <td data-label="Reserved GPUs" class="num">
                <strong>{r.reserved_gpus}</strong>
                <span class="cell-sub">{nodes}</span>
                {mismatch.map(|text| view! { <Flag text class="cell-sub"/> })}
                <InUseFigure placements id class="cell-sub"/>
            </td>
            <td data-label="Term">{term}</td>
            <td data-label="Start → end">
                <TermDates r=r.clone()/>
                {term_off.map(|text| view! { <Flag text class="cell-sub"/> })}
            </td>
            <td data-label="Next">
                {move || row.with_value(|r| countdown(r, clock.now())).unwrap_or_else(|| "—".to_owned())}
            </td>
        </tr>
    }
}
