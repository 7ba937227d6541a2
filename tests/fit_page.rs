//! Where k GPUs fit, as an owner and a member read it, fed fixture answers (no network):
//! the question read from the address, one verdict per reservation best first with its
//! reason and age, a launch link only where it fits, and the form writing the question back.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    button, copy_summary, markdown_tables, mount_with, now, numbers, provide_console, reservation, seed_nodes, settle,
    sleep, table_rows, text, until, Answer, FakeApi, FakeClipboard,
};
use leptos::prelude::*;
use reservations_console::api::models::NodesResponse;
use reservations_console::pages::fit::{FitBoard, FitPage};
use reservations_console::reads::fleet::FleetStore;
use reservations_console::reads::nodes::use_nodes;
use reservations_console::router::Router;
use reservations_console::state::Role;
use serde_json::json;
use std::sync::Arc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Ready nodes of 8 GPUs with these GPUs in use.
fn ready_nodes(in_use: &[i64]) -> NodesResponse {
    let nodes: Vec<_> = in_use
        .iter()
        .enumerate()
        .map(|(i, used)| json!({ "display_name": format!("node-{}", i + 1), "state": "ready", "gpus": 8, "gpus_in_use": used, "workloads": [] }))
        .collect();
    serde_json::from_value(json!({ "nodes": nodes, "workloads_unknown": false })).unwrap()
}

fn unreachable_nodes() -> NodesResponse {
    serde_json::from_value(json!({
        "nodes": [{ "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": null, "workloads": [] }],
        "workloads_unknown": true
    }))
    .unwrap()
}

/// Reservations in atl: 3 (8 + 4 free), 7 (3 + 3 free: fragmented for 4), 12 (seed: 2 free);
/// in ams (H100): 9 (not read yet), 6 (region unreachable); 4 ended, 11 past due.
/// Mounted at `address` as `role`; the runner's own address is put back by [`restore`].
fn mount_fit(role: Role, address: &str) -> (web_sys::HtmlElement, String) {
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(address)).unwrap();
    let (host, ()) = mount_with(move || {
        let state = provide_console(role);
        let store = FleetStore::new();
        let session = state.session_id_untracked().unwrap();
        store.begin(session);
        let nodes = use_nodes();
        nodes.begin_current();
        let h100 = "NVIDIA-H100-80GB-HBM3";
        let list = vec![
            reservation(json!({ "id": 12 })),
            reservation(json!({ "id": 3 })),
            reservation(json!({ "id": 7 })),
            reservation(json!({ "id": 9, "region_id": "ams", "gpu_type": h100 })),
            reservation(json!({ "id": 6, "region_id": "ams", "gpu_type": h100 })),
            reservation(json!({ "id": 4, "status": "ended" })),
            reservation(json!({ "id": 11, "status": "past_due" })),
        ];
        store.receive_list(session, Ok(list), now());
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now());
        nodes.receive(session, 3, Ok(Arc::new(ready_nodes(&[0, 4]))), now());
        nodes.receive(session, 7, Ok(Arc::new(ready_nodes(&[5, 5]))), now());
        nodes.receive(session, 6, Ok(Arc::new(unreachable_nodes())), now());
        nodes.receive(session, 11, Ok(Arc::new(ready_nodes(&[0]))), now());
        ((), view! { <Router><FitBoard store/></Router> })
    });
    (host, before)
}

fn restore(before: &str) {
    web_sys::window().unwrap().history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(before)).unwrap();
}

/// Each row's reservation, verdict and launch link (if any).
fn verdicts(host: &web_sys::HtmlElement) -> Vec<(String, String, Option<String>)> {
    let rows = host.query_selector_all("table.fit-table tbody tr").unwrap();
    (0..rows.length())
        .map(|i| {
            let row = rows.item(i).unwrap().unchecked_into::<web_sys::Element>();
            let id = row.query_selector("th a").unwrap().unwrap().text_content().unwrap();
            let verdict = row.query_selector(".badge").unwrap().unwrap().text_content().unwrap();
            let launch = row.query_selector("a.button").unwrap().map(|a| a.get_attribute("href").unwrap());
            (id, verdict, launch)
        })
        .collect()
}

fn row_text(host: &web_sys::HtmlElement, id: &str) -> String {
    let rows = host.query_selector_all("table.fit-table tbody tr").unwrap();
    (0..rows.length())
        .map(|i| rows.item(i).unwrap().text_content().unwrap())
        .find(|t| t.starts_with(id))
        .unwrap_or_else(|| panic!("no row {id}"))
}

fn owned(rows: &[(&str, &str, Option<&str>)]) -> Vec<(String, String, Option<String>)> {
    rows.iter().map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), c.map(str::to_owned))).collect()
}

#[wasm_bindgen_test]
async fn a_member_reads_each_reservation_verdict_best_first_with_a_launch_link_only_where_it_fits() {
    let (host, before) = mount_fit(Role::Member, "/fit?gpus=4");
    settle().await;
    let (found, page) = (verdicts(&host), text(&host));
    let (fits, fragmented, full) = (row_text(&host, "#3"), row_text(&host, "#7"), row_text(&host, "#12"));
    let (unread, unreachable, past_due) = (row_text(&host, "#9"), row_text(&host, "#6"), row_text(&host, "#11"));
    restore(&before);
    assert_eq!(
        found,
        owned(&[
            ("#3", "Fits now", Some("/reservations/3/launch?gpus=4")),
            ("#7", "Fragmented", None),
            ("#12", "Full", None),
            ("#6", "Unknown", None),
            ("#9", "Unknown", None),
            ("#4", "Closed", None),
            ("#11", "Closed", None),
        ])
    );
    assert!(fits.contains("3 replicas of 4 GPUs fit now, on 2 ready nodes."), "{fits}");
    assert!(fits.contains("node-2: 4 free · node-1: 8 free"), "{fits}");
    assert!(fits.contains("updated 0 s ago"), "{fits}");
    assert!(fragmented.contains("6 GPUs are free in total, but no ready node has 4 GPUs free together: the largest block on one node is 3 GPUs"), "{fragmented}");
    assert!(full.contains("Full: 2 GPUs free on ready nodes, 4 needed"), "{full}");
    assert!(unread.contains("The nodes have not been read yet.") && unread.contains("not read yet"), "{unread}");
    assert!(unreachable.contains("The region cannot be reached right now"), "{unreachable}");
    assert!(past_due.contains("New launches paused until the overdue payment is made"), "{past_due}");
    assert!(page.contains("Room for 4 GPUs on one node each."), "{page}");
    assert!(!page.contains('$'), "no money on this page: {page}");
}

#[wasm_bindgen_test]
async fn the_owner_reads_the_same_verdicts_as_a_member() {
    let (member, before) = mount_fit(Role::Member, "/fit?gpus=2&replicas=2");
    settle().await;
    let member_page = text(&member);
    restore(&before);
    let (owner, before) = mount_fit(Role::Owner, "/fit?gpus=2&replicas=2");
    settle().await;
    let (owner_page, found) = (text(&owner), verdicts(&owner));
    restore(&before);
    assert_eq!(owner_page, member_page);
    assert_eq!(found[0], ("#3".to_owned(), "Fits now".to_owned(), Some("/reservations/3/launch?gpus=2".to_owned())));
    assert!(owner_page.contains("Room for 2 × 2 GPUs on one node each."), "{owner_page}");
    assert!(!owner_page.contains('$'), "{owner_page}");
}

/// The launch page's "Expected to succeed" caveat, word for word.
const PAYMENT_CAVEAT: &str = "Assumed per reservation: the API does not say whether an overdue payment on another \
                              reservation of the account also pauses launches here.";

#[wasm_bindgen_test]
async fn fits_now_says_the_same_payment_caveat_as_the_launch_page_and_only_when_something_fits() {
    let (host, before) = mount_fit(Role::Member, "/fit?gpus=4");
    settle().await;
    let caveat = host.query_selector(".fit-caveat").unwrap().map(|p| p.text_content().unwrap());
    restore(&before);
    assert_eq!(caveat.as_deref(), Some(PAYMENT_CAVEAT));
    let (host, before) = mount_fit(Role::Member, "/fit?gpus=8&replicas=3");
    settle().await;
    let (found, page) = (verdicts(&host), text(&host));
    restore(&before);
    assert!(found.iter().all(|row| row.1 != "Fits now"), "{found:?}");
    assert!(!page.contains("Assumed per reservation"), "{page}");
}

#[wasm_bindgen_test]
async fn a_region_or_gpu_type_filter_leaves_the_others_not_asked() {
    let (host, before) = mount_fit(Role::Member, "/fit?gpus=1&region=ams");
    settle().await;
    let found = verdicts(&host);
    let atl = row_text(&host, "#3");
    restore(&before);
    let asked: Vec<&str> = found.iter().filter(|r| r.1 != "Not asked").map(|r| r.0.as_str()).collect();
    assert_eq!(asked, ["#6", "#9"], "{found:?}");
    assert!(atl.contains("Another region than asked."), "{atl}");
}

#[wasm_bindgen_test]
async fn an_address_with_invalid_values_is_explained_and_judges_nothing() {
    let (host, before) = mount_fit(Role::Member, "/fit?gpus=0&replicas=lots");
    settle().await;
    let (page, rows) = (text(&host), verdicts(&host).len());
    restore(&before);
    assert!(page.contains("This address's question cannot be read:"), "{page}");
    assert!(page.contains("The address's number of GPUs is not a whole number from 1 to 100000."), "{page}");
    assert!(page.contains("The address's number of replicas is not"), "{page}");
    assert_eq!(rows, 0);
}

#[wasm_bindgen_test]
async fn the_form_writes_the_question_into_the_address_and_the_verdicts_follow() {
    let (host, before) = mount_fit(Role::Member, "/fit?tz=utc");
    settle().await;
    let asked_nothing = text(&host).contains("Say how many GPUs to find room for.");
    let input = |id: &str, value: &str| {
        let el = host.query_selector(id).unwrap().unwrap().unchecked_into::<web_sys::HtmlInputElement>();
        el.set_value(value);
        el.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    };
    input("#fit-gpus", "2");
    let region = host.query_selector("#fit-region").unwrap().unwrap().unchecked_into::<web_sys::HtmlSelectElement>();
    region.set_value("atl");
    region.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    settle().await;
    let form = host.query_selector("form.fit-form").unwrap().unwrap().unchecked_into::<web_sys::HtmlFormElement>();
    form.request_submit().unwrap();
    settle().await;
    let address = web_sys::window().unwrap().location().search().unwrap();
    let seed = row_text(&host, "#12");
    restore(&before);
    assert!(asked_nothing);
    assert_eq!(address, "?tz=utc&gpus=2&region=atl", "the question is in the address, other keys kept");
    assert!(seed.contains("1 replica of 2 GPUs fit now, on 1 ready node."), "{seed}");
}

#[wasm_bindgen_test]
async fn right_after_connect_the_nodes_the_session_holds_are_judged_at_once_and_not_read_again() {
    // The reservations list (right after Connect) read #12's nodes just now; #3 and #7 not.
    let list = vec![reservation(json!({ "id": 12 })), reservation(json!({ "id": 3 })), reservation(json!({ "id": 7 }))];
    let nodes = json!({ "nodes": [{ "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 0, "workloads": [] }], "workloads_unknown": false });
    let api = FakeApi::new(vec![("/api/gpu-reservations", vec![Answer::ok(serde_json::to_value(&list).unwrap())])]);
    for id in [12, 3, 7] {
        api.answer(&format!("/api/gpu-reservations/{id}/nodes"), vec![Answer::ok(nodes.clone())]);
    }
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some("/fit?gpus=4")).unwrap();
    let (host, ()) = mount_with(|| {
        provide_console(Role::Member);
        let held = use_nodes();
        let session = held.begin_current().unwrap();
        held.receive(session, 12, Ok(Arc::new(ready_nodes(&[0, 4]))), chrono::Utc::now());
        provide_context(FleetStore::new());
        ((), view! { <Router><FitPage/></Router> })
    });
    // The list's answer, then the verdicts (a browser may take a few tasks to hand it over).
    let mut at_once = Vec::new();
    for _ in 0..40 {
        settle().await;
        at_once = verdicts(&host);
        if !at_once.is_empty() {
            break;
        }
        sleep(25).await;
    }
    // The first round of nodes, one request each at the 600 ms gap, then the details.
    sleep(2_500).await;
    let sent = api.paths();
    drop(api);
    restore(&before);
    assert_eq!(at_once.iter().find(|row| row.0 == "#12").map(|row| row.1.as_str()), Some("Fits now"), "{at_once:?}");
    let nodes_read: Vec<&str> = sent.iter().map(String::as_str).filter(|path| path.ends_with("/nodes")).collect();
    assert_eq!(
        nodes_read,
        ["/api/gpu-reservations/3/nodes", "/api/gpu-reservations/7/nodes"],
        "the first round reads only the nodes the session does not hold: {sent:?}"
    );
}

#[wasm_bindgen_test]
async fn a_refused_list_read_says_why_with_its_request_id_and_retry_reads_it_again() {
    let list = serde_json::to_value(vec![reservation(json!({ "id": 12 }))]).unwrap();
    let api = FakeApi::new(vec![
        ("/api/gpu-reservations", vec![Answer::error(403, "forbidden", "req_list"), Answer::ok(list)]),
        ("/api/gpu-reservations/12/nodes", vec![Answer::ok(serde_json::to_value(ready_nodes(&[0])).unwrap())]),
    ]);
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some("/fit?gpus=4")).unwrap();
    let (host, ()) = mount_with(|| {
        provide_console(Role::Member);
        provide_context(FleetStore::new());
        ((), view! { <Router><FitPage/></Router> })
    });
    until(true, || text(&host).contains("req_list")).await;
    let refused = text(&host);
    assert!(!refused.contains("Reading the reservations"), "a refused read is not shown as one under way: {refused}");
    button(&host, "Retry").expect("a Retry beside the failure").click();
    until(true, || verdicts(&host).iter().any(|row| row.0 == "#12" && row.1 == "Fits now")).await;
    restore(&before);
    assert_eq!(api.paths()[..2], ["/api/gpu-reservations", "/api/gpu-reservations"], "Retry read the list again");
}

#[wasm_bindgen_test]
async fn a_failed_nodes_read_says_why_with_its_request_id_and_an_old_fits_now_is_marked_stale() {
    let failure = || {
        let mut error = reservations_console::api::error::ApiError::network("the connection was reset");
        error.request_id = Some("req_nodes".to_owned());
        error
    };
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some("/fit?gpus=4")).unwrap();
    let (host, ()) = mount_with(move || {
        let state = provide_console(Role::Member);
        let store = FleetStore::new();
        let session = state.session_id_untracked().unwrap();
        store.begin(session);
        let nodes = use_nodes();
        nodes.begin_current();
        let list = vec![reservation(json!({ "id": 12 })), reservation(json!({ "id": 3 }))];
        store.receive_list(session, Ok(list), now());
        // #12: never read, its read failed. #3: read ten minutes ago; fits then.
        nodes.receive(session, 12, Err(failure()), now());
        nodes.receive(session, 3, Ok(Arc::new(ready_nodes(&[0]))), now() - chrono::TimeDelta::minutes(10));
        ((), view! { <Router><FitBoard store/></Router> })
    });
    settle().await;
    restore(&before);
    let rows = host.query_selector_all("tbody tr").unwrap();
    let row_text = |i: u32| rows.item(i).unwrap().text_content().unwrap_or_default();
    let (first, second) = (row_text(0), row_text(1));
    let (fits, failed) = if first.contains("#3") { (first, second) } else { (second, first) };
    assert!(failed.contains("req_nodes") && !failed.contains("not read yet"), "the cause and request id: {failed}");
    assert!(fits.contains("Fits now") && fits.contains("Stale"), "an old verdict is marked stale: {fits}");
}

#[wasm_bindgen_test]
async fn the_copied_verdicts_are_those_shown_at_the_question_s_own_address() {
    let (host, before) = mount_fit(Role::Owner, "/fit?gpus=4&key=eco_test_key");
    settle().await;
    let clipboard = FakeClipboard::accepting();
    let copied = copy_summary(&host, ".fit-page", &clipboard, false, false).await;
    let shown = table_rows(&host, "table.fit-table tbody tr");
    restore(&before);
    assert!(copied.starts_with("# Where GPUs fit now\n\nAs of 2 Dec 2026, 09:30 UTC: http"), "{copied}");
    assert!(copied.lines().nth(2).unwrap().ends_with("/fit?gpus=4"), "the question, nothing else: {copied}");
    assert!(!copied.contains("eco_test_key"), "{copied}");
    assert!(copied.contains("Room for 4 GPUs on one node each."), "{copied}");
    assert!(!copied.contains('$') && !copied.contains("include amounts"), "{copied}");
    let copied_rows = &markdown_tables(&copied)[0][1..];
    assert_eq!(copied_rows.len(), shown.len());
    for (copy, page) in copied_rows.iter().zip(&shown) {
        assert_eq!(copy[0].split_whitespace().next(), page[0].split_whitespace().next(), "the same reservation");
        assert_eq!(copy[1], page[1], "its verdict");
        assert_eq!(numbers(&copy[2]), numbers(&page[2]), "its reason and rooms: {copy:?} {page:?}");
    }
}
