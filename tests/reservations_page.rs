//! The reservations list as a person reads it, mounted on fixture data.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    first_text, mount, mount_with, now, provide_console, provide_zone, reservation, seed_nodes, settle, text, HostAt,
};
use leptos::prelude::*;
use reservations_console::api::error::{ApiError, ResponseHeaders};
use reservations_console::browser::{now_ms, sleep};
use reservations_console::domain::words::time::{format_time, Zone};
use reservations_console::pages::reservations::{url_filters, ReservationsView};
use reservations_console::reads::placements::{Placement, Placements};
use reservations_console::router::Router;
use reservations_console::state::{Role, TimeZone};
use serde_json::json;
use std::collections::BTreeMap;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn list_of_every_status() -> Vec<reservations_console::api::models::Reservation> {
    vec![
        reservation(
            json!({ "id": 20, "status": "assigning", "region_id": "ord", "starts_at": "2027-01-01T00:00:00Z", "ends_at": "2028-01-01T00:00:00Z" }),
        ),
        reservation(
            json!({ "id": 19, "status": "scheduled", "starts_at": "2027-01-01T00:00:00Z", "ends_at": "2028-01-01T00:00:00Z" }),
        ),
        reservation(json!({ "id": 18, "status": "awaiting_payment", "starts_at": null, "ends_at": null })),
        reservation(json!({ "id": 12, "status": "active" })),
        reservation(
            json!({ "id": 11, "status": "past_due", "past_due_since": "2026-11-25T00:00:00Z", "stops_at": "2026-12-04T09:30:00Z" }),
        ),
        reservation(json!({ "id": 10, "status": "suspended" })),
        reservation(
            json!({ "id": 9, "status": "ended", "starts_at": "2025-11-01T00:00:00Z", "ends_at": "2026-11-01T00:00:00Z", "ended_at": "2026-11-01T00:00:00Z" }),
        ),
    ]
}

#[wasm_bindgen_test]
fn every_status_reads_as_a_word_with_its_explanation() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationsView reservations=list_of_every_status()/> }
    });
    let page = text(&host);
    for label in ["Assigning", "Scheduled", "Awaiting payment", "Active", "Past due", "Suspended", "Ended"] {
        assert!(page.contains(label), "{label} missing from: {page}");
    }
    assert!(page.contains("The reserved GPUs are yours; the term ends in 10 months."), "{page}");
    assert!(page.contains("workloads stop in 2 days"), "{page}");
    assert!(page.contains("Set when the first invoice is paidstarts when the first invoice is paid"), "{page}");
    assert!(page.contains("the workloads on this reservation were stopped"), "{page}");
}

#[wasm_bindgen_test]
fn rows_keep_the_api_order_newest_first() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationsView reservations=list_of_every_status()/> }
    });
    let links = host.query_selector_all("a.row-link").unwrap();
    let ids: Vec<String> = (0..links.length()).map(|i| links.item(i).unwrap().text_content().unwrap()).collect();
    assert_eq!(ids, ["#20", "#19", "#18", "#12", "#11", "#10", "#9"]);
}

#[wasm_bindgen_test]
fn banners_on_top_for_past_due_awaiting_payment_and_suspended() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationsView reservations=list_of_every_status()/> }
    });
    let banners = host.query_selector_all(".banners .banner").unwrap();
    let titles: Vec<String> = (0..banners.length())
        .map(|i| banners.item(i).unwrap().dyn_into::<web_sys::Element>().unwrap())
        .map(|b| b.query_selector(".banner-title").unwrap().unwrap().text_content().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Starts when the first invoice is paid",
            "Payment overdue: new launches are paused",
            "Suspended: workloads were stopped",
        ]
    );
    let past_due = banners.item(1).unwrap().text_content().unwrap();
    assert!(past_due.contains("stopped on 4 Dec 2026, 09:30 UTC"), "{past_due}");
    let link = banners.item(1).unwrap().dyn_into::<web_sys::Element>().unwrap().query_selector("a").unwrap().unwrap();
    assert_eq!(link.get_attribute("href").as_deref(), Some("/reservations/11"));
    assert_eq!(link.text_content().as_deref(), Some("reservation #11"));
}

#[wasm_bindgen_test]
fn identical_banners_are_merged_with_a_link_to_each_reservation() {
    let host = mount(|| {
        provide_console(Role::Member);
        let awaiting =
            |id| reservation(json!({ "id": id, "status": "awaiting_payment", "starts_at": null, "ends_at": null }));
        view! { <ReservationsView reservations=vec![awaiting(17), awaiting(16)]/> }
    });
    assert_eq!(host.query_selector_all(".banner").unwrap().length(), 1);
    assert!(text(&host).contains("Open reservation #17, reservation #16"), "{}", text(&host));
}

/// The page draws its rows a task after its banners and filters, so that its first draw
/// (compiled at first call, on the page's thread) is two tasks and not one long one.
#[wasm_bindgen_test]
async fn rows_drawn_in_the_next_task_follow_the_banners_there() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationsView reservations=list_of_every_status() rows_in_next_task=true/> }
    });
    let rows = |host: &web_sys::HtmlElement| host.query_selector_all("tbody tr").unwrap().length();
    assert!(host.query_selector(".banner").unwrap().is_some(), "{}", text(&host));
    assert!(host.query_selector("#filter-region").unwrap().is_some());
    assert_eq!(rows(&host), 0, "no row in the task that drew the banners");
    sleep(Duration::from_millis(20)).await;
    settle().await;
    assert_eq!(rows(&host), list_of_every_status().len() as u32, "{}", text(&host));
}

#[wasm_bindgen_test]
fn a_row_shows_capacity_term_dates_and_contract_ref() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationsView reservations=vec![reservation(json!({}))]/> }
    });
    let page = text(&host);
    assert!(page.contains("324 nodes × 8 GPUs"), "reserved GPUs, then nodes × GPUs per node: {page}");
    assert!(page.contains("12 months, billed monthly"), "{page}");
    assert!(page.contains("1 Nov 2026 → 1 Nov 2027"), "{page}");
    assert!(page.contains("MSA-2026-014"), "{page}");
    assert!(page.contains("NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition"), "{page}");
    assert!(page.contains("region atl"), "{page}");
    assert!(host.query_selector(".banner").unwrap().is_none(), "an active reservation needs no action");
    assert!(host.query_selector(".flag").unwrap().is_none(), "seed 004's figures add up: {page}");
}

#[wasm_bindgen_test]
fn a_total_that_disagrees_with_nodes_times_gpus_is_flagged() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationsView reservations=vec![reservation(json!({ "reserved_gpus": 30 }))]/> }
    });
    assert!(text(&host).contains("The API reports 30 reserved GPUs, not 32."));
}

#[wasm_bindgen_test]
fn an_unknown_status_is_shown_as_sent_and_marked_unrecognised() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationsView reservations=vec![reservation(json!({ "status": "hibernating", "billing_period": "fortnightly" }))]/> }
    });
    let badge = host.query_selector(".badge.tone-unknown").unwrap().expect("an unknown-tone badge");
    assert_eq!(badge.text_content().unwrap(), "hibernating (unrecognised)");
    assert!(text(&host).contains("billed “fortnightly” (unrecognised period)"));
}

#[wasm_bindgen_test]
fn markup_in_a_contract_ref_is_shown_as_text() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! {
            <ReservationsView reservations=vec![reservation(json!({
                "contract_ref": "<img src=x onerror=alert(1)>",
                "region_id": "<b>atl</b>"
            }))]/>
        }
    });
    assert!(host.query_selector("img").unwrap().is_none());
    assert!(host.query_selector("td b").unwrap().is_none());
    let page = text(&host);
    assert!(page.contains("<img src=x onerror=alert(1)>"), "{page}");
    assert!(page.contains("region <b>atl</b>"), "{page}");
}

#[wasm_bindgen_test]
async fn filtering_by_region_and_status_narrows_the_rows() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationsView reservations=list_of_every_status()/> }
    });
    let rows = || host.query_selector_all("tbody tr").unwrap().length();
    assert_eq!(rows(), 7);

    choose(&host, "#filter-region", "ord").await;
    assert_eq!(rows(), 1);
    assert!(text(&host).contains("1 of 7 reservations"));

    choose(&host, "#filter-region", "").await;
    choose(&host, "#filter-status", "past_due").await;
    assert_eq!(rows(), 1);
    assert!(text(&host).contains("#11"));

    choose(&host, "#filter-region", "ord").await;
    assert_eq!(rows(), 0);
    assert!(text(&host).contains("No reservation matches these filters."));
}

async fn choose(host: &web_sys::HtmlElement, select: &str, value: &str) {
    let select: web_sys::HtmlSelectElement = host.query_selector(select).unwrap().unwrap().unchecked_into();
    select.set_value(value);
    select.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    settle().await;
}

#[wasm_bindgen_test]
fn an_empty_account_says_so() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationsView reservations=vec![]/> }
    });
    assert!(text(&host).contains("No reservations yet"));
    assert!(host.query_selector("table").unwrap().is_none());
}

/// The row of reservation `id` (its link reads `#id`).
fn row(host: &web_sys::HtmlElement, id: i64) -> web_sys::Element {
    let rows = host.query_selector_all("tbody tr").unwrap();
    (0..rows.length())
        .map(|i| rows.item(i).unwrap().unchecked_into::<web_sys::Element>())
        .find(|tr| tr.query_selector("a.row-link").unwrap().unwrap().text_content().unwrap() == format!("#{id}"))
        .unwrap_or_else(|| panic!("no row #{id}"))
}

fn in_use(host: &web_sys::HtmlElement, id: i64) -> Option<web_sys::Element> {
    row(host, id).query_selector(".in-use").unwrap()
}

#[wasm_bindgen_test]
async fn running_reservations_show_gpus_in_use_of_the_reserved_unknown_never_as_zero() {
    let list = vec![
        reservation(json!({ "id": 13 })),
        reservation(json!({ "id": 12, "region_id": "ams" })),
        reservation(json!({ "id": 11, "status": "past_due" })),
        reservation(json!({ "id": 10 })),
        reservation(json!({ "id": 9, "status": "ended" })),
    ];
    let shown = list.clone();
    let (host, placements) = mount_with(move || {
        provide_console(Role::Member);
        let placements = Placements::default();
        (placements, view! { <ReservationsView reservations=shown placements/> })
    });
    let read: Vec<i64> = placements.start(&list).iter().map(|r| r.id).collect();
    assert_eq!(read, [13, 12, 11, 10], "an ended reservation runs nothing, so it is not read");
    settle().await;
    let loading = in_use(&host, 11).expect("a placeholder while reading");
    assert_eq!(loading.query_selector("[aria-hidden]").unwrap().unwrap().text_content().unwrap(), "…");
    assert!(loading.class_list().contains("muted"));

    let mut unreachable = seed_nodes();
    unreachable.workloads_unknown = true;
    let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req-42")]);
    placements.receive(&list[0], Ok(&seed_nodes()));
    placements.receive(&list[1], Ok(&unreachable));
    placements.receive(&list[3], Err(ApiError::from_response(503, &headers, "", now())));
    settle().await;

    assert_eq!(in_use(&host, 13).unwrap().text_content().unwrap(), "6 of 32 GPUs in use");
    let unknown = in_use(&host, 12).unwrap().text_content().unwrap();
    assert_eq!(unknown, "⚠ placement unknown (region unreachable)");
    let failed = in_use(&host, 10).unwrap();
    assert_eq!(failed.query_selector("[aria-hidden]").unwrap().unwrap().text_content().unwrap(), "—");
    let why = failed.get_attribute("title").unwrap();
    assert!(why.starts_with("GPUs in use could not be read: The service is temporarily unavailable."), "{why}");
    assert!(why.ends_with("Request id req-42."), "{why}");
    assert!(row(&host, 10).text_content().unwrap().contains("324 nodes × 8 GPUs"), "the rest of the row stays");
    assert!(in_use(&host, 9).is_none());
}

#[wasm_bindgen_test]
fn dates_that_disagree_with_the_term_are_flagged_in_words() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationsView reservations=vec![reservation(json!({ "ends_at": "2027-10-01T00:00:00Z" }))]/> }
    });
    let flag = host.query_selector("td[data-label='Start → end'] .flag").unwrap().expect("a flag by the dates");
    assert!(flag.class_list().contains("tone-text-warning"));
    assert_eq!(
        flag.text_content().unwrap(),
        "⚠ 1 Nov 2026 → 1 Oct 2027 is 11 months, not the 12-month term (that would end 1 Nov 2027)."
    );
}

#[wasm_bindgen_test]
async fn past_due_times_follow_the_utc_local_switch() {
    let (host, zone_switch) = mount_with(|| {
        provide_console(Role::Member);
        let r = reservation(
            json!({ "id": 11, "status": "past_due", "past_due_since": "2026-11-25T00:00:00Z", "stops_at": "2026-12-04T09:30:00Z" }),
        );
        (provide_zone(TimeZone::Utc), view! { <ReservationsView reservations=vec![r]/> })
    });
    let explanation = || first_text(&host, ".status-explanation");
    let banner = || first_text(&host, ".banner-body");
    assert!(explanation().starts_with("A payment is overdue since 25 Nov 2026, 00:00 UTC."), "{}", explanation());
    assert!(explanation().contains("(4 Dec 2026, 09:30 UTC)"), "{}", explanation());
    assert!(banner().contains("stopped on 4 Dec 2026, 09:30 UTC unless"), "{}", banner());

    zone_switch.0.set(TimeZone::Local);
    settle().await;
    let local = |rfc3339: &str| format_time(rfc3339.parse().unwrap(), Zone::System);
    let (since, stop) = (local("2026-11-25T00:00:00Z"), local("2026-12-04T09:30:00Z"));
    assert!(explanation().starts_with(&format!("A payment is overdue since {since}.")), "{}", explanation());
    assert!(explanation().contains(&format!("({stop})")), "{}", explanation());
    assert!(banner().contains(&format!("stopped on {stop} unless")), "{}", banner());
    assert!(!explanation().contains("UTC") && !banner().contains("UTC"));
}

/// The list with its filters bound to the address, as the page has it.
#[component]
fn AddressedList() -> impl IntoView {
    let filters = url_filters();
    view! { <ReservationsView reservations=list_of_every_status() filters/> }
}

#[wasm_bindgen_test]
async fn filters_and_the_zone_are_read_from_the_address_and_written_back_to_it() {
    let window = web_sys::window().unwrap();
    let history = window.history().unwrap();
    let before = window.location().href().unwrap();
    history.replace_state_with_url(&JsValue::NULL, "", Some("/reservations?status=past_due&tz=utc")).unwrap();
    let (host, zone_switch) = mount_with(|| {
        provide_console(Role::Member);
        (provide_zone(TimeZone::Local), view! { <Router><AddressedList/></Router> })
    });
    settle().await;
    let rows = || host.query_selector_all("tbody tr").unwrap().length();
    let select =
        |id: &str| host.query_selector(id).unwrap().unwrap().unchecked_into::<web_sys::HtmlSelectElement>().value();
    assert_eq!(rows(), 1, "a bookmarked filter applies at once");
    assert!(text(&host).contains("#11"));
    assert_eq!(select("#filter-status"), "past_due");
    assert_eq!(zone_switch.get(), TimeZone::Utc, "a shared link can fix the zone");

    choose(&host, "#filter-region", "ord").await;
    let filtered = window.location().search().unwrap();
    zone_switch.0.set(TimeZone::Local);
    settle().await;
    let local = window.location().search().unwrap();
    history.replace_state_with_url(&JsValue::NULL, "", Some(&before)).unwrap();
    assert_eq!(filtered, "?region=ord&status=past_due&tz=utc");
    assert_eq!(rows(), 0);
    assert_eq!(local, "?region=ord&status=past_due", "local times need no parameter");
}

#[wasm_bindgen_test]
async fn a_rows_link_opens_the_reservation_in_place() {
    let at = HostAt::new("/reservations");
    let host = at.host.clone();
    // Unmounted at the end, so that its click listener leaves with it.
    let mounted = leptos::mount::mount_to(host.clone(), || {
        provide_console(Role::Member);
        view! { <Router><ReservationsView reservations=list_of_every_status()/></Router> }
    });
    settle().await;
    // A document load would drop this mark along with the test.
    js_sys::Reflect::set(&js_sys::global(), &"listMark".into(), &JsValue::TRUE).unwrap();
    row(&host, 12).query_selector("a.row-link").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
    settle().await;
    let path = web_sys::window().unwrap().location().pathname().unwrap();
    drop(mounted);
    drop(at);
    assert_eq!(path, "/reservations/12", "the row's link, written as HTML, is followed by the router");
    assert_eq!(js_sys::Reflect::get(&js_sys::global(), &"listMark".into()).unwrap(), JsValue::TRUE);
}

/// The list's placement reads keep a gap between requests, not one burst: the key's 200 a
/// minute are shared by every page and tab. Each read here fails at once (the test page
/// serves no API), so the gap between their ends is the gap between their requests.
#[wasm_bindgen_test]
async fn the_lists_placement_reads_keep_a_gap_between_requests() {
    let ids = [13, 12, 10];
    let list: Vec<_> = ids.iter().map(|id| reservation(json!({ "id": id }))).collect();
    let (_host, placements) = mount_with(move || {
        provide_console(Role::Member);
        let placements = Placements::default();
        placements.read_after(Memo::new(|_| Some(now())), move || list.clone());
        (placements, ())
    });
    let (started, mut ended) = (now_ms(), BTreeMap::new());
    while ended.len() < ids.len() && now_ms() - started < 10_000.0 {
        for id in ids {
            if !matches!(placements.get(id), None | Some(Placement::Loading)) {
                ended.entry(id).or_insert_with(now_ms);
            }
        }
        sleep(Duration::from_millis(20)).await;
    }
    let ends: Vec<f64> = ids.iter().filter_map(|id| ended.get(id).copied()).collect();
    assert_eq!(ends.len(), 3, "every placement read ended: {ended:?}");
    assert!(ends.windows(2).all(|w| w[1] - w[0] >= 550.0), "reads in a burst (ms): {ends:?}");
}
