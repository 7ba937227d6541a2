//! Reservations: every reservation of the account, newest first (the API's order), with
//! what needs action on top and filters by region and status.

use crate::api::models::{Reservation, Timestamp};
use crate::browser::{set_page_title, true_from_next_task};
use crate::components::banner::ActionBanner;
use crate::components::data_table::{Column, DataTable};
use crate::components::flag::write_flag;
use crate::components::html::Html;
use crate::components::placements::write_in_use;
use crate::components::remote::RemoteStatus;
use crate::components::status_badge::write_status;
use crate::components::time::{write_term_dates, zone};
use crate::domain::nodes::capacity::capacity_text;
use crate::domain::status::{needs_action, reservation_status_in, Banner};
use crate::domain::words::address::{query_replacing, query_value, reservation_address};
use crate::domain::words::time::{countdown, term_mismatch, term_text, Zone};
use crate::reads::placements::{Placement, Placements};
use crate::reads::reservations::use_reservations;
use crate::router::{use_location, Navigation};
use crate::state::{use_clock, use_connection, use_time_zone, Role, TimeZone};
use leptos::prelude::*;

#[component]
pub fn ReservationsPage() -> impl IntoView {
    set_page_title("Reservations");
    let list = use_reservations().list_remote();
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
        {move || list.data().map(|reservations| view! { <ReservationsView reservations placements filters rows_in_next_task=true/> })}
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
/// in UTC), so that a filtered list can be bookmarked and shared. They are written by the
/// one rule of `domain::words::address` (every other pair kept in its place). An address with
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
        let pairs = [("region", filters.region.get()), ("status", filters.status.get()), ("tz", zone)];
        let wanted = query.with_untracked(|q| query_replacing(q, &pairs));
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
    /// The rows drawn in the task after the rest. V8 compiles each function of the wasm at
    /// its first call, on the page's thread: drawn in one task, the list's first draw was
    /// one long task (120 ms at a 4× slower CPU, 87 of them compiling), which counted whole
    /// in the page's blocking time.
    #[prop(optional)]
    rows_in_next_task: bool,
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
                let Some(banner) = needs_action(r, None, zone(tz.get()), owner) else { continue };
                let link = (reservation_address("", r.id, "", &[]), format!("reservation #{}", r.id));
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
    let rows_due = rows_in_next_task.then(true_from_next_task);

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
            <DataTable
                class="data-table stack-table reservations-table"
                columns=vec![
                    Column::text("Reservation"),
                    Column::text("Status"),
                    Column::text("GPU type"),
                    Column::figures("Reserved GPUs"),
                    Column::text("Term"),
                    Column::text("Start → end (UTC)"),
                    Column::text("Next"),
                ]
            >
                <For each=move || if rows_due.is_none_or(|due| due.get()) { shown.get() } else { Vec::new() } key=|r| r.id let:r>
                    <ReservationRow r placements/>
                </For>
            </DataTable>
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

/// One row: its cells written as one piece of HTML ([`Html`], the API's text escaped) and
/// set whole, as the node cards' bodies are. The first render's time went to building the
/// rows element by element, dozens of calls out of wasm for each; this is one. The memo
/// rebuilds the string as the clock, the zone or the row's GPUs in use change, and the DOM
/// is touched only when the text differs (the countdowns move by the day, not the second).
/// The link is a plain `<a href>`: the router follows the app's own links wherever they are.
#[component]
fn ReservationRow(r: Reservation, placements: Placements) -> impl IntoView {
    let clock = use_clock();
    let tz = use_time_zone();
    let id = r.id;
    let cells = Memo::new(move |_| row_cells(&r, clock.now(), zone(tz.get()), placements.get(id).as_ref()));
    view! { <tr prop:innerHTML=move || cells.get()></tr> }
}

/// A row's cells, as HTML.
fn row_cells(r: &Reservation, now: Timestamp, zone: Zone, placement: Option<&Placement>) -> String {
    let mut html = Html::with_capacity(1536);
    html.markup(r#"<td data-label="Reservation"><a class="row-link" href="/reservations/"#).text(r.id);
    html.markup(r#"">#"#).text(r.id).markup(r#"</a><span class="cell-sub">"#);
    html.text(r.contract_ref.as_deref().unwrap_or("no contract ref")).markup("</span></td>");
    html.markup(r#"<td data-label="Status">"#);
    write_status(&mut html, &reservation_status_in(r, now, zone));
    html.markup(r#"</td><td data-label="GPU type"><span class="gpu-type">"#).text(&r.gpu_type);
    html.markup(r#"</span><span class="cell-sub">region "#).text(&r.region_id).markup("</span></td>");
    let (nodes, mismatch) = capacity_text(r);
    html.markup(r#"<td data-label="Reserved GPUs" class="num"><strong>"#).text(r.reserved_gpus);
    html.markup(r#"</strong><span class="cell-sub">"#).text(nodes).markup("</span>");
    if let Some(text) = mismatch {
        write_flag(&mut html, &text, "cell-sub");
    }
    write_in_use(&mut html, placement, "cell-sub");
    html.markup(r#"</td><td data-label="Term">"#).text(term_text(r));
    html.markup(r#"</td><td data-label="Start → end">"#);
    write_term_dates(&mut html, r);
    if let Some(text) = term_mismatch(r) {
        write_flag(&mut html, &text, "cell-sub");
    }
    html.markup(r#"</td><td data-label="Next">"#);
    html.text(countdown(r, now).as_deref().unwrap_or("—")).markup("</td>");
    html.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::error::{ApiError, ResponseHeaders};
    use crate::api::models::tests::SEED_LIST;
    use chrono::TimeDelta;

    fn seed() -> Reservation {
        serde_json::from_str::<Vec<Reservation>>(SEED_LIST).unwrap().remove(0)
    }

    #[test]
    fn a_row_is_seven_cells_with_a_plain_link_and_the_api_text_escaped() {
        let mut r = seed();
        r.contract_ref = Some(r#"<img src=x onerror="alert(1)">"#.into());
        r.gpu_type = "\u{202E}fdp.exe".into();
        let now = r.starts_at.unwrap() + TimeDelta::days(31);
        let html = row_cells(&r, now, Zone::Utc, Some(&Placement::Loading));
        assert!(
            html.starts_with(
                r#"<td data-label="Reservation"><a class="row-link" href="/reservations/12">#12</a><span class="cell-sub">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</span></td>"#
            ),
            "{html}"
        );
        assert_eq!(html.matches("<td ").count(), 7, "{html}");
        assert!(
            html.contains(r#"<span class="badge tone-ok"><bdi>Active</bdi></span><p class="status-explanation"><bdi>"#),
            "{html}"
        );
        assert!(html.contains(r#"<span class="gpu-type">⟨RLO⟩fdp.exe</span>"#), "{html}");
        assert!(html.contains(r#"<strong>32</strong><span class="cell-sub">4 nodes × 8 GPUs</span>"#), "{html}");
        assert!(html.contains(r#"<span class="cell-sub in-use muted" aria-busy="true">"#), "{html}");
        assert!(
            html.contains(
                r#"<span class="nowrap"><time class="num" datetime="2026-11-01T00:00:00+00:00" title="2026-11-01 00:00:00 UTC">1 Nov 2026</time></span> → "#
            ),
            "{html}"
        );
        assert!(!html.contains("flag"), "seed 004's figures add up: {html}");
    }

    #[test]
    fn a_row_flags_what_does_not_add_up_and_shows_a_failed_read_with_its_reason() {
        let mut r = seed();
        r.reserved_gpus = 30;
        let failed = ApiError::from_response(503, &ResponseHeaders::default(), "", r.starts_at.unwrap());
        let html = row_cells(&r, r.starts_at.unwrap(), Zone::Utc, Some(&Placement::Failed(failed)));
        assert!(
            html.contains(
                r#"<span class="cell-sub tone-text-warning flag">⚠ The API reports 30 reserved GPUs, not 32.</span>"#
            ),
            "{html}"
        );
        assert!(
            html.contains(r#"<span class="cell-sub in-use muted" title="GPUs in use could not be read: The service is temporarily unavailable."#),
            "{html}"
        );
        assert!(
            html.contains(r#"<span aria-hidden="true">—</span><span class="visually-hidden">GPUs in use"#),
            "{html}"
        );
    }
}
