//! The overview as a person reads it, fed fixture answers (no network): the sums by region
//! and GPU type that add up with unknown never counted free, the owner's idle cost, and a
//! member's figures without any cost.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    copy_summary, markdown_tables, mount_with, now, numbers, owner_detail, provide_console, reservation, seed_nodes,
    settle, table_rows, text, FakeClipboard,
};
use leptos::prelude::{Get, Memo, RwSignal, Update};
use reservations_console::api::error::{ApiError, ResponseHeaders};
use reservations_console::api::models::Timestamp;
use reservations_console::api::models::{NodesResponse, ReservationDetail};
use reservations_console::components::alerts_bell::{AlertsBell, BellSlot};
use reservations_console::components::header::Header;
use reservations_console::components::notify::NotifyChoice;
use reservations_console::domain::alerts::{Alert, Severity};
use reservations_console::pages::overview::OverviewBoard;
use reservations_console::reads::fleet::FleetStore;
use reservations_console::reads::nodes::{use_nodes, NodesStore};
use reservations_console::router::Router;
use reservations_console::state::Role;
use serde_json::json;
use std::sync::Arc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// An answer from a region that cannot be reached: the node is there, its use is not known.
fn unreachable_nodes() -> NodesResponse {
    serde_json::from_value(json!({
        "nodes": [{ "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": null, "workloads": [] }],
        "workloads_unknown": true
    }))
    .unwrap()
}

/// One ready node of 8 GPUs, all idle.
fn idle_node() -> NodesResponse {
    serde_json::from_value(json!({
        "nodes": [{ "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 0, "workloads": [] }],
        "workloads_unknown": false
    }))
    .unwrap()
}

fn detail(id: i64, rate: Option<f64>) -> ReservationDetail {
    let mut d = owner_detail(json!({ "id": id }));
    match rate {
        Some(rate) => d.payment.as_mut().unwrap().rate_usd_per_gpu_hour = serde_json::from_value(json!(rate)).unwrap(),
        None => d.payment = None,
    }
    d
}

/// The overview's stores for a session of `role`, provided as the app provides them and
/// watching what is read (as the overview's loop does).
struct Fleet {
    store: FleetStore,
    nodes: NodesStore,
    session: u64,
}

fn fleet(role: Role) -> Fleet {
    let state = provide_console(role);
    let store = FleetStore::new();
    leptos::prelude::provide_context(store);
    let session = state.session_id_untracked().unwrap();
    store.begin(session);
    store.watch();
    let nodes = use_nodes();
    nodes.begin_current();
    Fleet { store, nodes, session }
}

/// Reservation 12 (atl, read: 6 in use, 2 free, 8 under maintenance), 9 (ams, not read
/// yet), 6 (ams, region unreachable) and 4 (ended: no nodes), as `role` reads them.
fn mount_fleet(role: Role) -> web_sys::HtmlElement {
    let (host, ()) = mount_with(move || {
        let Fleet { store, nodes, session } = fleet(role);
        let h100 = "NVIDIA-H100-80GB-HBM3";
        let list = vec![
            reservation(json!({ "id": 12, "node_count": 2, "reserved_gpus": 16 })),
            reservation(json!({ "id": 9, "region_id": "ams", "gpu_type": h100, "node_count": 1, "reserved_gpus": 8 })),
            reservation(json!({ "id": 6, "region_id": "ams", "gpu_type": h100, "node_count": 1, "reserved_gpus": 8 })),
            reservation(json!({ "id": 4, "status": "ended", "node_count": 8, "reserved_gpus": 64 })),
        ];
        store.receive_list(session, Ok(list), now());
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now());
        nodes.receive(session, 6, Ok(Arc::new(unreachable_nodes())), now());
        let owner = role == Role::Owner;
        for (id, rate) in [(12, 1.25), (9, 1.25), (6, 2.0)] {
            store.receive_detail(session, detail(id, owner.then_some(rate)));
        }
        ((), leptos::view! { <OverviewBoard store/> })
    });
    host
}

#[wasm_bindgen_test]
async fn the_sums_add_up_by_region_and_gpu_type_and_unknown_is_never_free() {
    let host = mount_fleet(Role::Member);
    settle().await;
    let page = text(&host);
    assert!(
        page.contains(
            "32 GPUs = 6 in use + 2 free to launch on + 0 idle, launches closed + 8 not available + 16 unknown"
        ),
        "the sum line: {page}"
    );
    assert_eq!(
        table_rows(&host, "#by-region tbody tr, #by-region tfoot tr"),
        [
            ["ams", "16", "0", "0", "0", "0", "16"],
            ["atl", "16", "6", "2", "0", "8", "0"],
            ["All", "32", "6", "2", "0", "8", "16"],
        ],
        "the unreachable region and the unread reservation are unknown, not free or zero in use"
    );
    let by_type = table_rows(&host, "#by-gpu-type tbody tr, #by-gpu-type tfoot tr");
    assert_eq!(by_type.last().unwrap(), &["All", "32", "6", "2", "0", "8", "16"]);
    assert_eq!(by_type.len(), 3, "two GPU types and the sum: {by_type:?}");
    let per_reservation = table_rows(&host, "table.fleet-table tbody tr");
    let ids: Vec<&str> = per_reservation.iter().map(|r| r[0].split_whitespace().next().unwrap()).collect();
    assert_eq!(ids, ["#12", "#9", "#6"], "the ended reservation has no nodes and is left out");
    assert!(per_reservation[1][0].contains("not read yet"), "{:?}", per_reservation[1]);
    assert!(per_reservation[2][0].contains("Stale updated 0 s ago — region unreachable"), "{:?}", per_reservation[2]);
    assert!(per_reservation[0][0].ends_with("updated 0 s ago"), "{:?}", per_reservation[0]);
}

#[wasm_bindgen_test]
async fn the_owner_sees_what_the_idle_gpus_cost_per_reservation_and_in_total() {
    let host = mount_fleet(Role::Owner);
    settle().await;
    let line = text(&host.query_selector(".idle-cost").unwrap().unwrap().unchecked_into());
    // 2 free GPUs on ready nodes × $1.25; 9 and 6, whose use is unknown, are named, not counted.
    assert!(line.starts_with("$2.50/h of reserved capacity is idle and open to launches ($60.00 a day)"), "{line}");
    assert!(
        line.ends_with(
            "Not counted: #9 and #6, whose GPUs' use is unknown (not read yet, or the region could not be reached)."
        ),
        "{line}"
    );
    let per_reservation = table_rows(&host, "table.fleet-table tbody tr");
    assert_eq!(per_reservation[0][7], "$2.50/h$60.00/day");
    assert_eq!(per_reservation[1][7], "unknown", "not read yet: never $0.00");
    assert_eq!(per_reservation[2][7], "unknown", "region unreachable: never $0.00");
}

/// Reservation 12 (active: 6 in use, 2 free, 8 under maintenance), 8 (past due) and 5
/// (suspended), both with their nodes ready and idle, as `role` reads them.
fn mount_closed(role: Role) -> web_sys::HtmlElement {
    let (host, ()) = mount_with(move || {
        let Fleet { store, nodes, session } = fleet(role);
        let stops = (now() + chrono::TimeDelta::days(2)).to_rfc3339();
        let list = vec![
            reservation(json!({ "id": 12, "node_count": 2, "reserved_gpus": 16 })),
            reservation(
                json!({ "id": 8, "status": "past_due", "stops_at": stops, "node_count": 1, "reserved_gpus": 8 }),
            ),
            reservation(json!({ "id": 5, "status": "suspended", "node_count": 1, "reserved_gpus": 8 })),
        ];
        store.receive_list(session, Ok(list), now());
        let idle = idle_node();
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now());
        nodes.receive(session, 8, Ok(Arc::new(idle.clone())), now());
        nodes.receive(session, 5, Ok(Arc::new(idle)), now());
        for (id, rate) in [(12, 1.25), (8, 1.25), (5, 6.8)] {
            store.receive_detail(session, detail(id, (role == Role::Owner).then_some(rate)));
        }
        ((), leptos::view! { <OverviewBoard store/> })
    });
    host
}

#[wasm_bindgen_test]
async fn idle_gpus_of_past_due_and_suspended_reservations_are_not_counted_free_to_launch_on() {
    let host = mount_closed(Role::Owner);
    settle().await;
    let page = text(&host);
    assert!(
        page.contains(
            "32 GPUs = 6 in use + 2 free to launch on + 16 idle, launches closed + 8 not available + 0 unknown"
        ),
        "{page}"
    );
    let line = text(&host.query_selector(".idle-cost").unwrap().unwrap().unchecked_into());
    assert!(line.starts_with("$2.50/h of reserved capacity is idle and open to launches ($60.00 a day)"), "{line}");
    // 8 idle on #8 at $1.25 and 8 on #5 at $6.80.
    assert!(
        line.contains("A further $64.40/h ($1,545.60 a day) sits idle on reservations closed to launches"),
        "{line}"
    );
    assert!(line.contains("Assumed: a suspended reservation still accrues its rate"), "{line}");
    let per_reservation = table_rows(&host, "table.fleet-table tbody tr");
    assert_eq!(per_reservation[1][1..7], ["8", "0", "0", "8", "0", "0"], "#8: idle, launches closed");
    assert_eq!(per_reservation[2][1..7], ["8", "0", "0", "8", "0", "0"], "#5: idle, launches closed");
    assert_eq!(per_reservation[2][7], "$54.40/h$1,305.60/dayassumed", "{:?}", per_reservation[2]);
    let assumed = host.query_selector("tr[data-reservation='5'] .assumed").unwrap().unwrap();
    assert!(assumed
        .get_attribute("title")
        .unwrap()
        .starts_with("Assumed: a suspended reservation still accrues its rate"));
    assert_eq!(per_reservation[1][7], "$10.00/h$240.00/day", "past due: no assumption");

    let member = mount_closed(Role::Member);
    settle().await;
    let page = text(&member);
    assert!(page.contains("2 free to launch on + 16 idle, launches closed"), "{page}");
    // The suspended row's accrual is an assumption about money: not a member's to read.
    assert!(!page.contains('$') && member.query_selector(".fleet-table .assumed").unwrap().is_none(), "{page}");
    assert!(!page.contains("accrues"), "{page}");
}

#[wasm_bindgen_test]
async fn a_failed_read_says_its_cause_and_request_id_in_the_row() {
    let (host, ()) = mount_with(move || {
        let Fleet { store, nodes, session } = fleet(Role::Member);
        let list = vec![
            reservation(json!({ "id": 12, "node_count": 2, "reserved_gpus": 16 })),
            reservation(json!({ "id": 9, "region_id": "ams", "node_count": 1, "reserved_gpus": 8 })),
        ];
        store.receive_list(session, Ok(list), now());
        let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req-7f3a")]);
        let failed = || ApiError::from_response(503, &headers, r#"{"error":"region_busy"}"#, now());
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now());
        nodes.receive(session, 12, Err(failed()), now());
        nodes.receive(session, 9, Err(ApiError::network("offline")), now());
        ((), leptos::view! { <OverviewBoard store/> })
    });
    settle().await;
    let per_reservation = table_rows(&host, "table.fleet-table tbody tr");
    assert!(
        per_reservation[0][0].contains(
            "Stale updated 0 s ago — the latest read failed. The service is temporarily unavailable: \
             The API is overloaded or being updated. Request id req-7f3a"
        ),
        "{:?}",
        per_reservation[0]
    );
    assert!(
        per_reservation[1][0].contains("Stale not read: the read failed. Could not reach the API:"),
        "{:?}",
        per_reservation[1]
    );
    assert!(per_reservation[1][0].ends_with("Request id none sent"), "{:?}", per_reservation[1]);
}

/// Reservations 12 (2 free GPUs at $1.25) and 8 (8 free), whose detail read failed (503,
/// request id req-9c1e) and 3 (8 free), whose detail is not read yet, as `role` reads them.
fn mount_rate_missing(role: Role) -> web_sys::HtmlElement {
    let (host, ()) = mount_with(move || {
        let Fleet { store, nodes, session } = fleet(role);
        let list = vec![
            reservation(json!({ "id": 12, "node_count": 2, "reserved_gpus": 16 })),
            reservation(json!({ "id": 8, "node_count": 1, "reserved_gpus": 8 })),
            reservation(json!({ "id": 3, "node_count": 1, "reserved_gpus": 8 })),
        ];
        store.receive_list(session, Ok(list), now());
        let idle = idle_node();
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now());
        nodes.receive(session, 8, Ok(Arc::new(idle.clone())), now());
        nodes.receive(session, 3, Ok(Arc::new(idle)), now());
        store.receive_detail(session, detail(12, (role == Role::Owner).then_some(1.25)));
        let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req-9c1e")]);
        let failed = ApiError::from_response(503, &headers, r#"{"error":"region_busy"}"#, now());
        store.receive_detail_error(session, 8, failed);
        ((), leptos::view! { <OverviewBoard store/> })
    });
    host
}

#[wasm_bindgen_test]
async fn one_rate_not_read_leaves_the_known_idle_cost_shown_as_partial_and_says_why() {
    let host = mount_rate_missing(Role::Owner);
    settle().await;
    let line = text(&host.query_selector(".idle-cost").unwrap().unwrap().unchecked_into());
    assert!(
        line.starts_with("Partial At least $2.50/h of reserved capacity is idle and open to launches ($60.00 a day)"),
        "the known part, labelled partial: {line}"
    );
    assert!(line.contains("Not counted: #3, whose rate is not read."), "{line}");
    assert!(
        line.contains(
            "Not counted: #8, whose rate could not be read: The service is temporarily unavailable: \
             The API is overloaded or being updated. Request id req-9c1e"
        ),
        "which reservation, the cause and the request id: {line}"
    );
    let per_reservation = table_rows(&host, "table.fleet-table tbody tr");
    assert_eq!(per_reservation[0][7], "$2.50/h$60.00/day");
    assert_eq!((per_reservation[1][7].as_str(), per_reservation[2][7].as_str()), ("rate not read", "rate not read"));
}

#[wasm_bindgen_test]
async fn a_member_whose_detail_read_failed_still_sees_no_money() {
    let host = mount_rate_missing(Role::Member);
    settle().await;
    let page = text(&host);
    assert!(page.contains("What idle capacity costs is the account owner's view"), "{page}");
    assert!(!page.contains('$') && !page.contains("rate"), "no money and no rate words for a member: {page}");
}

#[wasm_bindgen_test]
async fn a_member_sees_the_gpu_figures_and_never_a_cost() {
    let host = mount_fleet(Role::Member);
    settle().await;
    let page = text(&host);
    assert!(page.contains("What idle capacity costs is the account owner's view"), "{page}");
    assert!(!page.contains('$'), "no money figure for a member: {page}");
    assert!(host.query_selector(".idle-cost-cell").unwrap().is_none());
    assert!(page.contains("32 GPUs = 6 in use"), "{page}");
}

#[wasm_bindgen_test]
async fn each_reservation_draws_its_use_since_the_tab_opened_without_inline_styles() {
    let (host, ()) = mount_with(|| {
        let Fleet { store, nodes, session } = fleet(Role::Member);
        store.receive_list(
            session,
            Ok(vec![reservation(json!({ "id": 12, "node_count": 2, "reserved_gpus": 16 }))]),
            now(),
        );
        let earlier = now() - chrono::TimeDelta::minutes(10);
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), earlier);
        let mut quieter = seed_nodes();
        quieter.nodes[0].gpus_in_use = Some(2);
        nodes.receive(session, 12, Ok(Arc::new(quieter)), now());
        ((), leptos::view! { <OverviewBoard store/> })
    });
    settle().await;
    let line = host.query_selector("svg.spark polyline").unwrap().expect("a line is drawn");
    // 6 of the 16 GPUs in use ten minutes ago (node-2 is under maintenance: not in use), 2
    // now: from 37.5 % down to 12.5 %, full use at the top of the 28-unit-high drawing.
    assert_eq!(line.get_attribute("points").unwrap(), "0.0,17.5 120.0,24.5");
    let stats = text(&host.query_selector(".spark-stats").unwrap().unwrap().unchecked_into());
    assert_eq!(stats, "min 12 % · avg 25 % · max 38 % · under 20 % 50 % of the time");
    assert!(host.query_selector("[style]").unwrap().is_none(), "no inline style anywhere (the CSP forbids them)");
}

#[wasm_bindgen_test]
async fn the_bell_counts_the_alerts_and_a_member_reads_no_payment_words() {
    let (host, ()) = mount_with(|| {
        let Fleet { store, session, .. } = fleet(Role::Member);
        let stops = (now() + chrono::TimeDelta::hours(5)).to_rfc3339();
        let list = vec![
            reservation(json!({ "id": 8, "status": "past_due", "stops_at": stops })),
            reservation(json!({ "id": 5, "status": "suspended" })),
            reservation(json!({ "id": 12 })),
        ];
        store.receive_list(session, Ok(list), now());
        ((), leptos::view! { <AlertsBell/> })
    });
    settle().await;
    // The list is built the first time the bell is opened.
    assert!(host.query_selector(".alerts-list").unwrap().is_none());
    host.query_selector("summary").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
    console_fixtures::sleep(50).await;
    settle().await;
    assert_eq!(text(&host.query_selector(".alerts-count").unwrap().unwrap().unchecked_into()), "2");
    let items: Vec<String> = {
        let found = host.query_selector_all(".alerts-list li").unwrap();
        (0..found.length()).map(|i| found.item(i).unwrap().text_content().unwrap()).collect()
    };
    assert_eq!(items.len(), 2);
    assert!(items[0].starts_with("Critical") && items[0].contains("#8"), "soonest critical first: {items:?}");
    for item in &items {
        for word in ["pay", "invoice", "overdue", "$"] {
            assert!(!item.to_lowercase().contains(word), "{word:?} for a member: {item}");
        }
    }
}

/// Runs `code` as a function body in the test page; what it returns.
fn js(code: &str) -> JsValue {
    js_sys::Function::new_no_args(code).call0(&JsValue::NULL).unwrap()
}

/// The texts of the notifications the stand-in showed, in order.
fn notifications_shown() -> String {
    js("return window.__notify.shown.join(' | ')").as_string().unwrap()
}

/// The tab hidden or shown, as the browser tells it.
fn set_hidden(hidden: bool) {
    js(&format!(
        "window.__hidden = {hidden}; document.dispatchEvent(new Event('visibilitychange', {{ bubbles: true }}))"
    ));
}

fn critical(reservation: i64, text: &str, at: Option<Timestamp>) -> Alert {
    Alert {
        severity: Severity::Critical,
        reservation,
        text: text.into(),
        at,
        stops: false,
        launch: None,
        account: String::new(),
    }
}

#[wasm_bindgen_test]
async fn notifications_are_off_and_ask_nothing_until_notify_me_then_tell_new_critical_alerts_of_a_hidden_tab_once() {
    // The Notification API's stand-in counts what is asked and shown and answers "granted";
    // the tab says it is hidden until told otherwise.
    js("window.__realNotification = window.Notification;
        window.__notify = { asked: 0, shown: [] };
        window.Notification = class {
            constructor(title, options) { window.__notify.shown.push(options.body); }
            static get permission() { return 'default'; }
            static requestPermission() { window.__notify.asked += 1; return Promise.resolve('granted'); }
        };
        window.__hidden = true;
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => window.__hidden });");
    let stop = Some(now() + chrono::TimeDelta::hours(5));
    let (host, list) = mount_with(move || {
        provide_console(Role::Owner);
        let list = RwSignal::new(vec![critical(8, "#8 stops in 5 hours", stop)]);
        let alerts = Memo::new(move |_| list.get());
        (list, leptos::view! { <NotifyChoice alerts/> })
    });
    settle().await;
    let asked = || js("return window.__notify.asked").as_f64().unwrap();
    assert!(text(&host).starts_with("Off."), "{}", text(&host));
    list.update(|l| l.push(critical(5, "#5 suspended", None)));
    settle().await;
    assert_eq!((asked(), notifications_shown()), (0.0, String::new()), "off by default: nothing asked, nothing shown");

    // The person clicks on the tab shown: the browser is asked, once.
    set_hidden(false);
    host.query_selector("button").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
    console_fixtures::sleep(20).await;
    settle().await;
    assert_eq!(asked(), 1.0);
    assert!(text(&host).starts_with("On for this tab"), "{}", text(&host));
    list.update(|l| l.push(critical(6, "#6 suspended", None)));
    settle().await;
    set_hidden(true);
    settle().await;
    assert_eq!(notifications_shown(), "", "alerts there before, or seen on screen, are not told");

    // Hidden: a new critical alert is told once; a warning never.
    list.update(|l| {
        l.push(Alert {
            severity: Severity::Warning,
            reservation: 9,
            text: "#9 term ends".into(),
            at: None,
            stops: false,
            launch: None,
            account: String::new(),
        });
        l.push(critical(7, "#7 stops in 3 hours", stop));
    });
    settle().await;
    list.update(|l| l.last_mut().unwrap().text = "#7 stops in 2 hours".into());
    settle().await;
    assert_eq!(notifications_shown(), "#7 stops in 3 hours");
    assert_eq!(asked(), 1.0);
    js("window.Notification = window.__realNotification; delete document.hidden;");
}

#[wasm_bindgen_test]
async fn once_the_overview_is_left_the_bell_says_how_old_its_node_alerts_are() {
    let (host, ()) = mount_with(|| {
        let Fleet { store, nodes, session } = fleet(Role::Owner);
        let list = vec![reservation(json!({ "id": 12 })), reservation(json!({ "id": 9 }))];
        store.receive_list(session, Ok(list), now());
        // What the overview read before it was left: 9 ten minutes ago, 12 a minute ago.
        nodes.receive(session, 9, Ok(Arc::new(seed_nodes())), now() - chrono::TimeDelta::minutes(10));
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now() - chrono::TimeDelta::minutes(1));
        ((), leptos::view! { <AlertsBell/> })
    });
    settle().await;
    host.query_selector("summary").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
    console_fixtures::sleep(50).await;
    settle().await;
    let age = host.query_selector(".alerts-age").unwrap().expect("the panel says how old the reads are");
    assert_eq!(
        text(&age.unchecked_into()),
        "Node and use alerts are from reads up to 10 min ago; the overview keeps them current."
    );
}

/// Before a page that reads the alerts has been opened, the header's bell is a link to the
/// overview with no count (none was read, so none is shown as zero); once one has, it is
/// the bell with its count.
#[wasm_bindgen_test]
async fn the_header_links_to_the_overview_until_the_alerts_are_read_then_counts_them() {
    let (host, slot) = mount_with(|| {
        let Fleet { store, session, .. } = fleet(Role::Member);
        let stops = (now() + chrono::TimeDelta::hours(5)).to_rfc3339();
        store.receive_list(
            session,
            Ok(vec![reservation(json!({ "id": 8, "status": "past_due", "stops_at": stops }))]),
            now(),
        );
        let slot = BellSlot::new();
        leptos::prelude::provide_context(slot);
        (slot, leptos::view! { <Router><Header/></Router> })
    });
    settle().await;
    let link = host.query_selector(".alerts-bell a.alerts-summary").unwrap().expect("the bell links to the overview");
    assert_eq!(link.get_attribute("href").as_deref(), Some("/overview"));
    assert_eq!(link.get_attribute("aria-label").as_deref(), Some("Alerts: not read yet; the overview reads them"));
    assert!(host.query_selector(".alerts-count").unwrap().is_none(), "no count before any page read the alerts");
    slot.install();
    settle().await;
    assert!(host.query_selector(".alerts-bell a").unwrap().is_none(), "the link gives way to the bell");
    assert_eq!(text(&host.query_selector(".alerts-count").unwrap().unwrap().unchecked_into()), "1");
}

/// A reservation closed to launches says so in its row beside the badge, as the idle cost
/// line does: past due pauses new launches, suspended stops them and its workloads; an
/// active row says nothing of launches.
#[wasm_bindgen_test]
async fn a_past_due_or_suspended_row_says_what_its_status_does_to_launches() {
    let (host, ()) = mount_with(|| {
        let Fleet { store, nodes, session } = fleet(Role::Member);
        let list = vec![
            reservation(json!({ "id": 8, "status": "past_due", "stops_at": "2026-12-05T09:30:00Z" })),
            reservation(json!({ "id": 5, "status": "suspended" })),
            reservation(json!({ "id": 12 })),
        ];
        store.receive_list(session, Ok(list), now());
        for id in [8, 5, 12] {
            nodes.receive(session, id, Ok(Arc::new(idle_node())), now());
        }
        ((), leptos::view! { <OverviewBoard store/> })
    });
    settle().await;
    let cell = |id: i64| {
        let found = host.query_selector(&format!("tr[data-reservation='{id}'] td[data-label='Reservation']")).unwrap();
        found.unwrap_or_else(|| panic!("no row of #{id}")).text_content().unwrap()
    };
    assert!(cell(8).contains("New launches paused"), "{}", cell(8));
    assert!(cell(5).contains("Launches and workloads stopped"), "{}", cell(5));
    assert!(!cell(12).to_lowercase().contains("launches"), "an active row says nothing of launches: {}", cell(12));
}

/// The text of the first element `selector` finds.
fn text_of(host: &web_sys::HtmlElement, selector: &str) -> String {
    text(&host.query_selector(selector).unwrap().unwrap().unchecked_into())
}

#[wasm_bindgen_test]
async fn the_copied_summary_holds_the_figures_the_overview_shows_with_amounts_when_the_owner_asks() {
    let host = mount_fleet(Role::Owner);
    settle().await;
    let clipboard = FakeClipboard::accepting();
    let copied = copy_summary(&host, ".overview-page .page-actions", &clipboard, false, true).await;
    assert!(copied.starts_with("# Overview\n\nAs of 2 Dec 2026, 09:30 UTC: http"), "{copied}");
    assert!(copied.lines().nth(2).unwrap().ends_with("/overview"), "the page's address: {copied}");
    assert!(!copied.contains("eco_test_key"), "never the key: {copied}");
    assert!(copied.contains(&text_of(&host, ".fleet-sum-line")), "the sum line as shown: {copied}");
    let idle = copied.lines().find(|l| l.contains("of reserved capacity is idle")).expect("the idle cost");
    assert_eq!(numbers(idle), numbers(&text_of(&host, ".idle-cost")), "{idle}");
    let plain = copy_summary(&host, ".overview-page .page-actions", &clipboard, true, true).await;
    let idle = plain.lines().find(|l| l.contains("of reserved capacity is idle")).expect("the idle cost");
    assert_eq!(idle, text_of(&host, ".idle-cost"), "the page's words, word for word");
    let tables = markdown_tables(&copied);
    assert_eq!(tables.len(), 3, "by region, by GPU type, by reservation: {copied}");
    assert_eq!(tables[0][1..], table_rows(&host, "#by-region tbody tr, #by-region tfoot tr")[..]);
    assert_eq!(tables[1][1..], table_rows(&host, "#by-gpu-type tbody tr, #by-gpu-type tfoot tr")[..]);
    let shown = table_rows(&host, "table.fleet-table tbody tr");
    assert_eq!(tables[2].len() - 1, shown.len());
    for (copy, page) in tables[2][1..].iter().zip(&shown) {
        assert_eq!(copy[0].split_whitespace().next(), page[0].split_whitespace().next(), "the same reservation");
        assert_eq!(copy[1..7], page[1..7], "its split as shown");
        assert_eq!(numbers(&copy[7]), numbers(&page[7]), "its idle cost as shown: {copy:?} {page:?}");
    }
}

#[wasm_bindgen_test]
async fn the_owner_copy_holds_no_money_unless_asked_and_a_member_is_not_offered_it() {
    let host = mount_fleet(Role::Owner);
    settle().await;
    let clipboard = FakeClipboard::accepting();
    let copied = copy_summary(&host, ".overview-page .page-actions", &clipboard, true, false).await;
    assert!(!copied.contains('$'), "{copied}");
    assert!(copied.contains("- atl: Reserved: 16 · In use: 6 · Free to launch on: 2"), "plain text: {copied}");
    drop(host);
    let host = mount_fleet(Role::Member);
    settle().await;
    let offered = text_of(&host, ".overview-page .copy-summary");
    assert!(!offered.contains("include amounts"), "{offered}");
    let copied = copy_summary(&host, ".overview-page .page-actions", &clipboard, false, false).await;
    assert!(!copied.contains('$') && !copied.contains("Idle cost"), "{copied}");
    assert_eq!(markdown_tables(&copied)[0][1..], table_rows(&host, "#by-region tbody tr, #by-region tfoot tr")[..]);
}

#[wasm_bindgen_test]
async fn a_browser_that_refuses_the_clipboard_is_said_so_beside_the_button() {
    let host = mount_fleet(Role::Member);
    settle().await;
    let clipboard = FakeClipboard::refusing("Write permission denied.");
    let button = host.query_selector(".overview-page .copy-summary button").unwrap().unwrap();
    button.unchecked_into::<web_sys::HtmlElement>().click();
    settle().await;
    assert_eq!(text_of(&host, ".overview-page .copy-outcome"), "The browser refused to copy: Write permission denied.");
    assert!(clipboard.copied().is_empty());
}

#[wasm_bindgen_test]
async fn a_failed_list_read_keeps_the_list_marked_stale_in_the_words_of_every_read() {
    let (host, ()) = mount_with(|| {
        let Fleet { store, session, .. } = fleet(Role::Member);
        store.receive_list(session, Ok(vec![reservation(json!({ "id": 12 }))]), now());
        store.receive_list(session, Err(ApiError::network("the connection was reset")), now());
        ((), leptos::view! { <OverviewBoard store/> })
    });
    settle().await;
    // The words a page's own read says (`components::remote::RemoteStatus`), its Refresh aside.
    assert_eq!(
        text_of(&host, ".remote-line.stale"),
        "Stale Last updated 0 s ago — the latest refresh failed, so this may be out of date."
    );
    assert!(text_of(&host, "table.fleet-table").contains("#12"), "the list kept: {}", text(&host));
}
