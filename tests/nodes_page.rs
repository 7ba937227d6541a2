//! The live node view as a person reads it, fed fixture answers (no network), and the
//! poll loop that drives it.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;
mod live_support;
mod page_support;

use chrono::{DateTime, Utc};
use console_fixtures::{
    first_text, member_detail, mount, mount_with, now, page_style, provide_console, settle, settle_drawn, sleep, text,
    until, Answer, HostAt, MutationObserver,
};
use leptos::prelude::*;
use live_support::{polled, slow_api, start_live_showing};
use page_support::{fact, titles};
use reservations_console::api::enums::{NodeState, ReservationStatus};
use reservations_console::api::error::{ApiError, ResponseHeaders};
use reservations_console::api::models::NodesResponse;
use reservations_console::components::gpu_grid::{GpuGrid, NodeStore};
use reservations_console::domain::nodes::filter::NodeFilter;
use reservations_console::domain::polling::Interval;
use reservations_console::domain::status::{closed_capacity_note, launch_access};
use reservations_console::pages::nodes::{LiveBar, NodesBoard, NodesModel, NodesPage};
use reservations_console::reads::live::{Live, LiveStatus};
use reservations_console::reads::nodes::use_nodes;
use reservations_console::router::Router;
use reservations_console::state::Role;
use serde_json::json;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Every change under an element, as MutationObserver records.
struct Recorder {
    observer: MutationObserver,
    seen: Rc<std::cell::RefCell<Vec<JsValue>>>,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl Recorder {
    fn start(target: &web_sys::Element) -> Self {
        let seen = Rc::new(std::cell::RefCell::new(Vec::new()));
        let callback = {
            let seen = Rc::clone(&seen);
            Closure::<dyn FnMut(js_sys::Array)>::new(move |records: js_sys::Array| {
                seen.borrow_mut().extend(records.iter())
            })
        };
        let observer = MutationObserver::new(callback.as_ref().unchecked_ref());
        let options =
            js_sys::JSON::parse(r#"{"subtree":true,"childList":true,"attributes":true,"characterData":true}"#).unwrap();
        observer.observe(target, &options);
        Recorder { observer, seen, _callback: callback }
    }

    /// The MutationObserver records since the last call.
    fn records(&self) -> Vec<JsValue> {
        let mut records: Vec<JsValue> = self.seen.borrow_mut().drain(..).collect();
        records.extend(self.observer.take_records().iter());
        records
    }

    /// The nodes changed since the last call (for a text node, the node itself).
    fn take(&self) -> Vec<web_sys::Node> {
        self.records()
            .iter()
            .map(|r| js_sys::Reflect::get(r, &"target".into()).unwrap().unchecked_into::<web_sys::Node>())
            .collect()
    }
}

fn nodes(value: serde_json::Value) -> NodesResponse {
    serde_json::from_value(value).unwrap()
}

/// Seed 004's example: node-1 runs a cluster (4) and a notebook (2); node-2 is under
/// maintenance.
fn seed_nodes() -> NodesResponse {
    nodes(json!({
        "nodes": [
            { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 6, "workloads": [
                { "kind": "gpu_cluster", "id": 418, "name": "train-run-7", "gpus": 4 },
                { "kind": "gpu_instance", "id": 902, "name": "notebook", "gpus": 2, "billing": "reserved" }
            ] },
            { "display_name": "node-2", "state": "under_maintenance", "gpus": 8, "gpus_in_use": 0, "workloads": [] }
        ],
        "workloads_unknown": false
    }))
}

fn unreachable_nodes() -> NodesResponse {
    nodes(json!({
        "nodes": [
            { "display_name": "node-1", "state": "ready", "gpus": 8 },
            { "display_name": "node-2", "state": "under_maintenance", "gpus": 8 }
        ],
        "workloads_unknown": true
    }))
}

fn at(minutes_before_now: i64) -> DateTime<Utc> {
    now() - chrono::TimeDelta::minutes(minutes_before_now)
}

/// Mounts the board on `answers`, received one after the other.
async fn board(answers: Vec<NodesResponse>) -> web_sys::HtmlElement {
    board_of(answers.into_iter().map(Ok).collect()).await
}

/// Mounts the board on poll results, received a minute apart, the last one a minute ago.
async fn board_of(results: Vec<Result<NodesResponse, ApiError>>) -> web_sys::HtmlElement {
    let host = mount(move || {
        provide_console(Role::Member);
        let model = NodesModel::of(use_nodes(), 12);
        let count = results.len() as i64;
        for (i, result) in results.into_iter().enumerate() {
            model.receive(result, at(count - i as i64));
        }
        view! { <NodesBoard model reservation=12/> }
    });
    settle_drawn().await;
    host
}

fn server_error() -> ApiError {
    let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req-500-n")]);
    ApiError::from_response(500, &headers, r#"{"error":"internal"}"#, now())
}

fn card(host: &web_sys::HtmlElement, name: &str) -> web_sys::Element {
    let cards = host.query_selector_all(".node-card").unwrap();
    (0..cards.length())
        .map(|i| cards.item(i).unwrap().unchecked_into::<web_sys::Element>())
        .find(|c| c.query_selector(".node-name").unwrap().unwrap().text_content().unwrap() == name)
        .unwrap_or_else(|| panic!("no card for {name}"))
}

fn cell_titles(card: &web_sys::Element) -> Vec<String> {
    titles(card, "li.gpu-cell")
}

#[wasm_bindgen_test]
async fn every_gpu_is_a_cell_labelled_by_its_workload_and_free_cells_show() {
    let host = board(vec![seed_nodes()]).await;
    let node = card(&host, "node-1");
    assert_eq!(
        cell_titles(&node),
        [
            "GPU 1 · train-run-7 (GPU cluster #418)",
            "GPU 2 · train-run-7 (GPU cluster #418)",
            "GPU 3 · train-run-7 (GPU cluster #418)",
            "GPU 4 · train-run-7 (GPU cluster #418)",
            "GPU 5 · notebook (GPU instance #902)",
            "GPU 6 · notebook (GPU instance #902)",
            "GPU 7 · free",
            "GPU 8 · free",
        ]
    );
    assert_eq!(node.query_selector_all("li.gpu-cell.free").unwrap().length(), 2);
    let links = node.query_selector_all("a.workload-name").unwrap();
    let hrefs: Vec<String> = (0..links.length())
        .map(|i| links.item(i).unwrap().unchecked_into::<web_sys::Element>().get_attribute("href").unwrap())
        .collect();
    assert_eq!(hrefs, ["/reservations/12/workloads/gpu_cluster/418", "/reservations/12/workloads/gpu_instance/902"]);
    let node_text = node.text_content().unwrap();
    assert!(node_text.contains("6 of 8 in use · 2 free"), "{node_text}");
    assert!(node_text.contains("GPU instance #902 · 2 GPUs"), "{node_text}");
    // Under maintenance: its GPUs are idle, not free to launch on.
    let maintenance = card(&host, "node-2");
    assert_eq!(maintenance.query_selector_all("li.gpu-cell.free.idle").unwrap().length(), 8);
    assert!(maintenance.text_content().unwrap().contains("0 of 8 in use · 8 idle, not taking launches"));
}

#[wasm_bindgen_test]
async fn totals_add_up_and_name_the_largest_launch_on_one_node() {
    let host = board(vec![seed_nodes()]).await;
    let page = text(&host);
    assert!(page.contains("16 GPUs = 6 in use + 2 free + 8 not available"), "{page}");
    assert_eq!(fact(&host, "GPUs"), "16");
    assert_eq!(fact(&host, "In use"), "6");
    assert_eq!(fact(&host, "Free on ready nodes"), "2");
    assert_eq!(fact(&host, "Largest launch on one node"), "2 GPUs");
}

#[wasm_bindgen_test]
async fn when_no_node_could_be_read_its_gpus_are_unknown_with_why_never_zero() {
    let set_apart = nodes(json!({
        "nodes": [{ "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 18446744073709551615u64, "workloads": [] }],
        "workloads_unknown": false
    }));
    let host = board(vec![set_apart]).await;
    let page = text(&host);
    assert_eq!(fact(&host, "GPUs"), "unknown");
    assert!(page.contains("GPUs, use and free are unknown: no node's figures could be read."), "{page}");
    assert!(page.contains("could not be read: its 8 GPUs are unknown"), "{page}");
}

#[wasm_bindgen_test]
async fn a_reservation_closed_to_launches_says_so_in_the_capacity_panel_beside_the_free_figures() {
    let closed = closed_capacity_note(launch_access(&ReservationStatus::PastDue));
    assert!(closed.is_some());
    for (note, shown) in [(closed, true), (closed_capacity_note(launch_access(&ReservationStatus::Active)), false)] {
        let host = mount(move || {
            provide_console(Role::Member);
            let model = NodesModel::of(use_nodes(), 12);
            model.receive(Ok(seed_nodes()), now());
            view! { <NodesBoard model reservation=12 closed=Signal::derive(move || note.clone())/> }
        });
        settle_drawn().await;
        let panel = host.query_selector(".totals-panel").unwrap().expect("the Capacity panel");
        let said = panel.query_selector(".totals-closed").unwrap().map(|p| p.text_content().unwrap());
        assert_eq!(said.is_some(), shown, "{said:?}");
        if let Some(said) = said {
            assert!(said.starts_with("Launches are closed on this reservation"), "{said}");
            assert_eq!(fact(&host, "Free on ready nodes"), "2", "the free figures stay beside the note");
        }
    }
}

#[wasm_bindgen_test]
async fn an_unreachable_region_keeps_the_last_placement_marked_stale_never_zero() {
    let host = board(vec![seed_nodes(), unreachable_nodes()]).await;
    let page = text(&host);
    assert!(page.contains("Region unreachable — placement unknown, last known at 2 Dec 2026, 09:28 UTC"), "{page}");
    for label in ["In use", "Free on ready nodes", "Largest launch on one node"] {
        assert_eq!(fact(&host, label), "unknown", "{label}");
    }
    assert!(page.contains("Last known at 2 Dec 2026, 09:28 UTC: 6 in use, 2 free"), "{page}");
    assert!(host.query_selector(".node-grid.stale").unwrap().is_some());
    let node = card(&host, "node-1");
    assert_eq!(cell_titles(&node)[0], "GPU 1 · train-run-7 (GPU cluster #418)");
}

#[wasm_bindgen_test]
async fn a_failed_poll_marks_the_totals_stale_with_their_time_and_keeps_the_figures() {
    let host = board_of(vec![Ok(seed_nodes()), Err(server_error())]).await;
    let panel = host.query_selector(".totals-panel").unwrap().expect("the totals stay");
    assert!(panel.class_list().contains("stale"));
    let words = panel.query_selector(".totals-stale").unwrap().expect("a stale line").text_content().unwrap();
    assert_eq!(
        words,
        "Stale as of 2 Dec 2026, 09:28 UTC — the latest poll failed; these are the figures last received."
    );
    assert_eq!(fact(&host, "In use"), "6", "the figures are kept, never zeroed");
    assert_eq!(fact(&host, "Free on ready nodes"), "2");

    let recovered = board_of(vec![Ok(seed_nodes()), Err(server_error()), Ok(seed_nodes())]).await;
    let panel = recovered.query_selector(".totals-panel").unwrap().unwrap();
    assert!(!panel.class_list().contains("stale"));
    assert!(panel.query_selector(".totals-stale").unwrap().is_none(), "a good poll clears the mark");
}

#[wasm_bindgen_test]
async fn a_region_unreachable_from_the_start_shows_unknown_cells() {
    let host = board(vec![unreachable_nodes()]).await;
    let page = text(&host);
    assert!(page.contains("Region unreachable — placement unknown"), "{page}");
    assert!(page.contains("The placement has not been read yet"), "{page}");
    let node = card(&host, "node-1");
    assert_eq!(node.query_selector_all("li.gpu-cell.unknown").unwrap().length(), 8);
    assert_eq!(node.query_selector_all("li.gpu-cell.free").unwrap().length(), 0);
    assert!(node.text_content().unwrap().contains("8 GPUs · use unknown"));
}

#[wasm_bindgen_test]
async fn an_unknown_state_and_kind_are_shown_as_sent_and_marked_unrecognised() {
    let host = board(vec![nodes(json!({ "nodes": [
        { "display_name": "node-9", "state": "hibernating", "gpus": 4, "gpus_in_use": 2, "workloads": [
            { "kind": "batch_job", "id": 5, "name": "nightly", "gpus": 2 }
        ] }
    ] }))])
    .await;
    let node = card(&host, "node-9");
    let node_text = node.text_content().unwrap();
    assert!(node_text.contains("hibernating (unrecognised)"), "{node_text}");
    assert!(node_text.contains("batch_job (unrecognised) #5"), "{node_text}");
    // The console's own workload page shows any kind, so the name links there.
    let name = node.query_selector("a.workload-name").unwrap().unwrap();
    assert_eq!(name.get_attribute("href").as_deref(), Some("/reservations/12/workloads/batch_job/5"));
    assert_eq!(node.query_selector_all("li.gpu-cell.k-unknown").unwrap().length(), 2);
}

#[wasm_bindgen_test]
async fn a_workload_named_like_markup_is_shown_as_text() {
    let name = "<img src=x onerror=alert(1)>";
    let host = board(vec![nodes(json!({ "nodes": [
        { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 1, "workloads": [
            { "kind": "gpu_instance", "id": 1, "name": name, "gpus": 1 }
        ] }
    ] }))])
    .await;
    assert!(host.query_selector("img").unwrap().is_none());
    assert!(text(&host).contains(name));
    assert!(cell_titles(&card(&host, "node-1"))[0].contains(name));
}

#[wasm_bindgen_test]
async fn inconsistent_figures_are_shown_as_reported_and_flagged() {
    let host = board(vec![nodes(json!({ "nodes": [
        { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 9, "workloads": [
            { "kind": "gpu_instance", "id": 1, "name": "a", "gpus": 8 }
        ] }
    ] }))])
    .await;
    let node = card(&host, "node-1");
    let node_text = node.text_content().unwrap();
    assert!(node_text.contains("9 of 8 in use · -1 free"), "{node_text}");
    assert!(node_text.contains("The API reports 9 GPUs in use on a node with 8."), "{node_text}");
    assert!(node_text.contains("9 GPUs are reported in use, but the workloads listed add up to 8."), "{node_text}");
    assert_eq!(node.query_selector_all("li.gpu-cell.beyond").unwrap().length(), 1);
    assert!(text(&host).contains("1 node reports figures that do not add up"));
}

#[wasm_bindgen_test]
async fn a_node_line_appears_after_two_polls_with_min_avg_max_and_time_under_20_percent() {
    let (host, model) = mount_with(|| {
        provide_console(Role::Member);
        let model = NodesModel::of(use_nodes(), 12);
        (model, view! { <NodesBoard model reservation=12/> })
    });
    model.receive(Ok(seed_nodes()), at(2));
    settle_drawn().await;
    assert!(card(&host, "node-1").query_selector(".node-line svg").unwrap().is_none(), "one poll is no line");

    // node-1 goes from 6 of 8 GPUs in use to 2 of 8.
    let mut second = seed_nodes();
    second.nodes[0].gpus_in_use = Some(2);
    second.nodes[0].workloads.remove(0);
    model.receive(Ok(second), at(1));
    settle_drawn().await;
    let line_of = |name: &str| {
        card(&host, name)
            .query_selector(".node-line svg.node-spark")
            .unwrap()
            .unwrap_or_else(|| panic!("no line on {name}"))
    };
    let title = |name: &str| line_of(name).query_selector("title").unwrap().unwrap().text_content().unwrap();
    assert_eq!(
        title("node-1"),
        "GPUs in use since this tab opened: min 25 % · avg 50 % · max 75 % · under 20 % 0 % of the time"
    );
    assert_eq!(
        title("node-2"),
        "GPUs in use since this tab opened: min 0 % · avg 0 % · max 0 % · under 20 % 100 % of the time",
        "a node under maintenance uses none of its GPUs"
    );
    let line = line_of("node-1");
    assert_eq!(
        line.query_selector("polyline").unwrap().unwrap().get_attribute("points").as_deref(),
        Some("0.0,5.0 100.0,15.0")
    );
    assert_eq!(first_text(&card(&host, "node-1").unchecked_into(), ".node-spark-avg"), "avg 50 %");
    assert!(!line.outer_html().contains("style"), "the CSP allows no inline style: {}", line.outer_html());
}

/// Fifty ready nodes; node `changed` (if any) runs a different workload.
fn fifty(changed: Option<usize>) -> NodesResponse {
    let list: Vec<_> = (1..=50)
        .map(|i| {
            let (id, name) = if Some(i) == changed { (9000 + i, "moved") } else { (i, "steady") };
            json!({ "display_name": format!("node-{i}"), "state": "ready", "gpus": 8, "gpus_in_use": 4, "workloads": [
                { "kind": "gpu_cluster", "id": id, "name": name, "gpus": 4 }
            ] })
        })
        .collect();
    nodes(json!({ "nodes": list, "workloads_unknown": false }))
}

#[wasm_bindgen_test]
async fn a_poll_that_changes_one_node_of_fifty_touches_only_that_card() {
    let store = NodeStore::default();
    let host = mount(move || {
        provide_console(Role::Member);
        store.apply(&fifty(None));
        view! { <GpuGrid reservation=12 store stale=false/> }
    });
    settle_drawn().await;
    let grid = host.query_selector(".node-grid").unwrap().unwrap();
    let before = card(&host, "node-17");

    let recorder = Recorder::start(&grid);
    store.apply(&fifty(None));
    settle_drawn().await;
    assert_eq!(recorder.take().len(), 0, "an unchanged poll must not touch the DOM");

    store.apply(&fifty(Some(17)));
    settle_drawn().await;
    let targets = recorder.take();
    recorder.observer.disconnect();
    let changed = card(&host, "node-17");
    assert!(changed.is_same_node(Some(&before)), "the card is kept, not recreated");
    assert!(!targets.is_empty());
    assert!(targets.len() <= 4, "{} mutations for one changed node", targets.len());
    for target in targets {
        assert!(changed.contains(Some(&target)), "a mutation outside node-17's card");
    }
    assert!(changed.text_content().unwrap().contains("moved"));
}

/// `n` ready nodes named node-1 to node-n.
fn ready_nodes(n: usize) -> NodesResponse {
    let list: Vec<_> = (1..=n)
        .map(|i| json!({ "display_name": format!("node-{i}"), "state": "ready", "gpus": 8, "gpus_in_use": 0, "workloads": [] }))
        .collect();
    nodes(json!({ "nodes": list, "workloads_unknown": false }))
}

/// The grid's layout for the windowing test, on hosts of class `windowed` only: a scroller
/// 400 px high, two columns of 100 px rows.
const WINDOWED_CSS: &str = ".windowed .node-scroll { height: 400px; overflow-y: auto; }
    .windowed .node-grid { display: grid; grid-template-columns: 100px 100px; grid-auto-rows: 100px; gap: 0; }
    .windowed .node-card { overflow: hidden; }";

fn attr_of(element: &web_sys::Element, name: &str) -> String {
    element.get_attribute(name).unwrap_or_default()
}

/// A thousand ready nodes in the windowed layout ([`WINDOWED_CSS`]), laid out; the style
/// element to remove at the end.
async fn windowed_board() -> (web_sys::HtmlElement, web_sys::Element) {
    let style = page_style(WINDOWED_CSS);
    let store = NodeStore::default();
    let host = mount(move || {
        provide_console(Role::Member);
        store.apply(&ready_nodes(1_000));
        view! { <GpuGrid reservation=12 store stale=false/> }
    });
    host.set_class_name("windowed");
    settle_drawn().await;
    sleep(50).await;
    (host, style)
}

/// The page's layout for the first-answer test, on hosts of class `first-answer` only: a
/// scroller 400 px high, as many 100 px columns as fit (400 px: four), 100 px rows.
const FIRST_ANSWER_CSS: &str = ".first-answer { width: 400px; }
    .first-answer .node-scroll { height: 400px; overflow-y: auto; }
    .first-answer .node-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(100px, 1fr));
        grid-auto-rows: 100px; gap: 0; }
    .first-answer .node-card { overflow: hidden; }";

/// The cards (`article` elements) put in and taken out of the grid since the last call.
fn cards_added_and_removed(recorder: &Recorder) -> (u32, u32) {
    let count = |record: &JsValue, list: &str| {
        let nodes: web_sys::NodeList = js_sys::Reflect::get(record, &list.into()).unwrap().unchecked_into();
        (0..nodes.length()).filter(|i| nodes.item(*i).is_some_and(|n| n.node_name() == "ARTICLE")).count() as u32
    };
    recorder
        .records()
        .iter()
        .fold((0, 0), |(added, removed), r| (added + count(r, "addedNodes"), removed + count(r, "removedNodes")))
}

/// The page shows its grid's panel when the first answer comes; the grid then reads its
/// layout and makes its cards. Read before the panel was shown, the layout was the
/// stylesheet's text, not columns: a window of the wrong size was drawn, then redrawn the
/// frame after. And the cards were all moved as they were made: the window put them in
/// order before they had their slot's number.
#[wasm_bindgen_test]
async fn the_first_answer_makes_each_card_once_and_moves_none() {
    let style = page_style(FIRST_ANSWER_CSS);
    let (host, model) = mount_with(|| {
        provide_console(Role::Member);
        let model = NodesModel::of(use_nodes(), 12);
        (model, view! { <NodesBoard model reservation=12/> })
    });
    host.set_class_name("first-answer");
    settle_drawn().await;
    let recorder = Recorder::start(&host);
    model.receive(Ok(ready_nodes(100)), now());
    settle_drawn().await;
    sleep(50).await;
    let slots = host.query_selector_all(".node-grid > article").unwrap().length();
    let (added, removed) = cards_added_and_removed(&recorder);
    recorder.observer.disconnect();
    style.remove();
    // The rows on screen and 2 below, of as many columns as the scrollbar leaves room for.
    let names = card_names(&host);
    assert!(names.len() >= 12 && names[..12] == node_names(1..=12)[..], "{names:?}");
    assert_eq!((added, removed), (slots, 0), "each slot made once, none moved");
}

fn node_names(range: std::ops::RangeInclusive<usize>) -> Vec<String> {
    range.map(|i| format!("node-{i}")).collect()
}

/// The grid's first cards are those in the page's sight, without the margin, so that its
/// first paint waits for no card out of sight; the rest of the window follows once they
/// are painted and the browser is idle. Here the top 150 px of its 400 px screen are in sight.
#[wasm_bindgen_test]
async fn the_first_cards_are_those_in_sight_and_the_rest_of_the_window_follows_their_paint() {
    let in_sight = ".in-sight { position: fixed; left: 0; top: calc(100vh - 150px); }";
    let style = page_style(&format!("{WINDOWED_CSS} {in_sight}"));
    let store = NodeStore::default();
    let host = mount(move || {
        provide_console(Role::Member);
        view! { <GpuGrid reservation=12 store stale=false/> }
    });
    host.set_class_name("windowed in-sight");
    settle_drawn().await;
    store.apply(&ready_nodes(1_000));
    settle().await;
    assert_eq!(card_names(&host), node_names(1..=4), "two rows of two in sight, the second in part");
    settle_drawn().await;
    assert_eq!(card_names(&host), node_names(1..=12), "then the 4 rows of the screen and 2 below");
    host.remove();
    style.remove();
}

/// A grid left right after its first cards (its page changed before the next frame) reads
/// its layout no more: that frame's read found its signals disposed, and the panic ended
/// the console.
#[wasm_bindgen_test]
async fn a_grid_left_before_its_next_frame_reads_no_layout_after() {
    let store = NodeStore::default();
    let at = HostAt::new("/");
    let grid = leptos::mount::mount_to(at.host.clone(), move || {
        provide_console(Role::Member);
        store.apply(&ready_nodes(100));
        view! { <GpuGrid reservation=12 store stale=false/> }
    });
    settle().await;
    drop(grid);
    settle_drawn().await;
    assert!(!std::thread::panicking(), "a panic when the grid's frame came");
}

#[wasm_bindgen_test]
async fn a_thousand_nodes_draw_only_the_rows_on_screen_and_a_scroll_brings_the_others_in() {
    let (host, style) = windowed_board().await;
    // 4 rows on screen and 2 below: 12 cards, each saying where it is among all; the slots
    // for the rows above, empty at the top, are no cards and are hidden.
    assert_eq!(card_names(&host), node_names(1..=12));
    assert_eq!(host.query_selector_all(".node-card").unwrap().length(), 12);
    let empty = host.query_selector_all(".node-grid > article:not(.node-card)").unwrap();
    let empty: Vec<(bool, u32)> = (0..empty.length())
        .map(|i| empty.item(i).unwrap().unchecked_into::<web_sys::Element>())
        .map(|slot| (slot.has_attribute("hidden"), slot.child_element_count()))
        .collect();
    assert_eq!(empty, [(true, 0); 6], "hidden, and nothing in them");
    let first = host.query_selector(".node-card").unwrap().unwrap();
    assert_eq!((attr_of(&first, "aria-posinset"), attr_of(&first, "aria-setsize")), ("1".into(), "1000".into()));
    let scroller = host.query_selector(".node-scroll").unwrap().unwrap();
    assert_eq!(attr_of(&scroller, "tabindex"), "0", "the keyboard scrolls the grid");
    assert_eq!(scroller.scroll_height(), 500 * 100, "the rows not drawn keep their height");

    let slots = |host: &web_sys::HtmlElement| {
        let all = host.query_selector_all(".node-grid > article").unwrap();
        (0..all.length()).map(|i| all.item(i).unwrap()).collect::<Vec<_>>()
    };
    let before = slots(&host);
    scroller.set_scroll_top(30_000);
    sleep(100).await;
    // Row 300 is first on screen: rows 298 to 305 are drawn, nodes 597 to 612, in order.
    assert_eq!(card_names(&host), node_names(597..=612));
    let first = host.query_selector(".node-card").unwrap().unwrap();
    assert_eq!(attr_of(&first, "aria-posinset"), "597");
    let after = slots(&host);
    assert_eq!(after.len(), before.len());
    assert!(
        after.iter().all(|card| before.iter().any(|old| card.is_same_node(Some(old)))),
        "the cards are reused as the grid scrolls, not made anew"
    );
    assert_eq!(scroller.scroll_height(), 500 * 100);
    // Back up a row, and a jump to the end: the cards stay in the nodes' order.
    scroller.set_scroll_top(29_900);
    sleep(100).await;
    assert_eq!(card_names(&host), node_names(595..=610));
    scroller.set_scroll_top(90_000);
    sleep(100).await;
    assert_eq!(card_names(&host), node_names(989..=1_000), "at the end, the last rows and the margin above");
    style.remove();
}

#[wasm_bindgen_test]
async fn a_scroll_by_one_row_rewrites_only_the_cards_of_the_row_that_came_in() {
    let (host, style) = windowed_board().await;
    let scroller = host.query_selector(".node-scroll").unwrap().unwrap();
    scroller.set_scroll_top(30_000);
    sleep(100).await;
    let grid = host.query_selector(".node-grid").unwrap().unwrap();
    let recorder = Recorder::start(&grid);
    scroller.set_scroll_top(30_100);
    sleep(100).await;
    assert_eq!(card_names(&host), node_names(599..=614));
    let cards = host.query_selector_all(".node-card").unwrap();
    let came_in: Vec<web_sys::Node> = (14..16).map(|i| cards.item(i).unwrap().unchecked_into()).collect();
    let touched = recorder.take();
    recorder.observer.disconnect();
    for target in &touched {
        let in_a_card = (0..cards.length()).any(|i| cards.item(i).unwrap().contains(Some(target)));
        assert!(
            !in_a_card || came_in.iter().any(|card| card.contains(Some(target))),
            "a card that stayed was touched: {:?}",
            target.text_content()
        );
    }
    style.remove();
}

/// The page as `NodesLive` builds it, polling `fetch` every 100 ms: the model, the loop
/// feeding its store, the live bar and the board.
fn live_page<Fut>(
    fetch: impl Fn() -> Fut + 'static,
) -> (Live, web_sys::HtmlElement, leptos::mount::UnmountHandle<impl Mountable>)
where
    Fut: std::future::Future<Output = Result<NodesResponse, ApiError>> + 'static,
{
    start_live_showing(move || {
        provide_console(Role::Member);
        let model = NodesModel::of(use_nodes(), 12);
        // The answers land in the store, as the page's reads put them; not once it is left
        // (the test's store leaves with it).
        let here = RwSignal::new(());
        let fetch = move || {
            let answer = fetch();
            async move {
                let result = answer.await;
                if here.try_get_untracked().is_some() {
                    model.receive(result.clone(), now());
                }
                result
            }
        };
        let live = Live::start(Interval::for_page(Some("100"), "localhost"), fetch);
        (live, view! { <LiveBar live model/> <NodesBoard model reservation=12/> })
    })
}

/// What the polite live region of the live bar says, and the bar's age (which must not be in it).
fn live_bar(host: &web_sys::HtmlElement) -> (String, String) {
    let regions = host.query_selector_all("[aria-live]").unwrap();
    assert_eq!(regions.length(), 1, "one live region");
    let region = regions.item(0).unwrap().unchecked_into::<web_sys::Element>();
    assert_eq!(region.get_attribute("aria-live").as_deref(), Some("polite"));
    let age = host.query_selector(".live-age").unwrap().expect("the age is shown");
    assert!(age.closest("[aria-live]").unwrap().is_none(), "the ticking age is outside the live region");
    let words = |e: &web_sys::Element| e.text_content().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    (words(&region), words(&age))
}

#[wasm_bindgen_test]
async fn the_live_region_announces_changes_of_state_and_failures_but_not_the_ticking_age() {
    let failing = Rc::new(Cell::new(false));
    let (live, host, page) = live_page({
        let failing = Rc::clone(&failing);
        move || {
            let answer = if failing.get() { Err(server_error()) } else { Ok(seed_nodes()) };
            async move { answer }
        }
    });
    sleep(60).await;
    assert_eq!(live_bar(&host), ("Live".to_owned(), "updated 0 s ago".to_owned()));

    failing.set(true);
    sleep(250).await;
    let (region, age) = live_bar(&host);
    assert!(
        region.starts_with("Retrying — the latest poll failed, shown as stale; attempt 1 failed, next in "),
        "{region}"
    );
    assert_eq!(age, "last updated 0 s ago");

    live.pause();
    settle_drawn().await;
    assert_eq!(live_bar(&host).0, "Paused — the latest poll failed, shown as stale");

    failing.set(false);
    live.resume();
    sleep(250).await;
    assert_eq!(live_bar(&host), ("Live".to_owned(), "updated 0 s ago".to_owned()), "recovered");
    drop(page);
}

#[wasm_bindgen_test]
async fn polls_that_change_nothing_leave_the_live_bar_and_its_announcements_as_they_were() {
    let (live, host, page) = live_page(|| async { Ok(seed_nodes()) });
    polled(&live, 1).await;
    settle_drawn().await;
    let state = host.query_selector(".live-state").unwrap().expect("the live region");
    let button = host.query_selector(".live-bar button").unwrap().expect("the Pause button");
    let recorder = Recorder::start(&state);
    let button_recorder = Recorder::start(&button);
    // Whatever follows the status (its words, the button) runs again only when it changes.
    let notified = Rc::new(Cell::new(0));
    let owner = Owner::new();
    let _effect = owner.with(|| {
        let notified = Rc::clone(&notified);
        RenderEffect::new(move |_| {
            live.status();
            notified.set(notified.get() + 1);
        })
    });
    let polls = live.polls();
    polled(&live, polls + 3).await;
    settle_drawn().await;
    assert_eq!(notified.get(), 1, "the status notified its readers again at polls that did not change it");
    drop(owner);
    let touched = recorder.take();
    recorder.observer.disconnect();
    assert_eq!(touched.len(), 0, "{} changes to the live region after polls that changed nothing", touched.len());
    let now = host.query_selector(".live-bar button").unwrap().unwrap();
    assert!(now.is_same_node(Some(&button)), "the Pause button is kept, not drawn again at every poll");
    let rewritten = button_recorder.take();
    button_recorder.observer.disconnect();
    assert_eq!(
        rewritten.len(),
        0,
        "the Pause button's attributes or text were written again {} times",
        rewritten.len()
    );
    drop(page);
}

/// The issue-4 panic ("Tried to access a reactive value that has already been disposed"):
/// a poll answered after the page was left was handed to the page's model, which read its
/// disposed signals.
#[wasm_bindgen_test]
async fn a_poll_answered_after_the_page_was_left_does_not_touch_its_disposed_signals() {
    let api = slow_api();
    let (_, host, page) = live_page({
        let api = Rc::clone(&api);
        move || api.fetch(100, Ok(seed_nodes()))
    });
    sleep(30).await;
    assert!(text(&host).contains("Reading the nodes…"), "{}", text(&host));
    drop(page);
    sleep(200).await;
    assert_eq!((api.calls.get(), api.running.get()), (1, 0), "the one request ended after the page was left");
    // A panic in a spawned task is only logged, but it leaves the thread panicking for good.
    assert!(!std::thread::panicking(), "a panic when the late answer arrived (or in an earlier test)");
}

#[wasm_bindgen_test]
async fn a_retry_after_of_a_billion_seconds_is_said_and_capped_and_polling_goes_on() {
    let headers = ResponseHeaders::from_pairs([("retry-after", "1000000000")]);
    let (live, host, page) = live_page(move || {
        let error = ApiError::from_response(503, &headers, "", now());
        async move { Err::<NodesResponse, _>(error) }
    });
    polled(&live, 1).await;
    settle_drawn().await;
    let (region, _) = live_bar(&host);
    assert!(
        region.contains("attempt 1 failed; the server asked to wait 11,574 days; next try at ")
            && region.ends_with("(the console waits 10 min at most)"),
        "{region}"
    );
    assert!(
        matches!(live.status(), LiveStatus::Retrying { wait, .. } if wait == std::time::Duration::from_secs(600)),
        "still polling, ten minutes from now: {:?}",
        live.status()
    );
    drop(page);
}

/// The board with the finding bar, on the seed answer, filtered by `filter`.
async fn filtered_board(filter: NodeFilter) -> (web_sys::HtmlElement, RwSignal<NodeFilter>) {
    let signal = RwSignal::new(filter);
    let host = mount(move || {
        provide_console(Role::Member);
        let model = NodesModel::of(use_nodes(), 12);
        model.receive(Ok(seed_nodes()), at(1));
        view! { <NodesBoard model reservation=12 filter=signal/> }
    });
    settle_drawn().await;
    (host, signal)
}

fn text_of(host: &web_sys::HtmlElement, selector: &str) -> String {
    text(&host.query_selector(selector).unwrap().unwrap().unchecked_into())
}

fn card_names(host: &web_sys::HtmlElement) -> Vec<String> {
    let names = host.query_selector_all(".node-card .node-name").unwrap();
    (0..names.length()).map(|i| names.item(i).unwrap().text_content().unwrap()).collect()
}

#[wasm_bindgen_test]
async fn the_filters_keep_only_matching_cards_and_say_how_many_of_all_are_shown() {
    let (host, filter) = filtered_board(NodeFilter::default()).await;
    assert_eq!(card_names(&host), ["node-1", "node-2"]);
    assert_eq!(text_of(&host, ".node-count"), "2 nodes");
    filter.update(|f| f.state = Some(NodeState::UnderMaintenance));
    settle_drawn().await;
    assert_eq!(card_names(&host), ["node-2"]);
    assert_eq!(text_of(&host, ".node-count"), "showing 1 of 2 nodes");
    filter.set(NodeFilter { min_free: Some(3), ..NodeFilter::default() });
    settle_drawn().await;
    assert_eq!(card_names(&host), ["node-2"], "node-1 has 2 free");
}

#[wasm_bindgen_test]
async fn a_search_finds_a_workload_once_with_its_gpus_and_nodes_linked_to_its_view() {
    let (host, _) = filtered_board(NodeFilter { search: "TRAIN".into(), ..NodeFilter::default() }).await;
    assert_eq!(card_names(&host), ["node-1"]);
    assert_eq!(text_of(&host, ".found-workload"), "train-run-7 · GPU cluster #418 · 4 GPUs on 1 node: node-1");
    let link = host.query_selector(".found-workload a").unwrap().unwrap();
    assert_eq!(link.get_attribute("href").unwrap(), "/reservations/12/workloads/gpu_cluster/418");
}

/// The Nodes page of reservation 12 opened at its address with its answer already in the
/// session's store (as another page leaves it), read at `read_at`. It stays mounted (its
/// console's requests still in flight would find it gone); dropping the host takes it off
/// the page and puts the address back.
fn nodes_page_read_at(read_at: DateTime<Utc>) -> HostAt {
    let at = HostAt::new("/reservations/12/nodes");
    leptos::mount::mount_to(at.host.clone(), move || {
        provide_console(Role::Member);
        let store = use_nodes();
        let session = store.begin_current().unwrap();
        store.receive(session, 12, Ok(Arc::new(seed_nodes())), read_at);
        view! { <Router><NodesPage/></Router> }
    })
    .forget();
    at
}

#[wasm_bindgen_test]
async fn a_nodes_page_opened_after_another_page_read_its_nodes_shows_them_at_once_with_their_age() {
    // What the overview read of reservation 12, ten seconds ago.
    let at = nodes_page_read_at(now() - chrono::TimeDelta::seconds(10));
    // Nothing awaited yet: the page's own first request cannot have returned.
    assert!(at.host.query_selector(".totals-panel").unwrap().is_some(), "the stored answer's totals are drawn");
    assert_eq!(fact(&at.host, "In use"), "6");
    assert_eq!(text(&at.host.query_selector(".live-age").unwrap().unwrap().unchecked_into()), "updated 10 s ago");
}

/// The reservation's line is kept while the reservation is read: it often comes after the
/// nodes, and the grid, drawn by then, moved down when it came.
#[wasm_bindgen_test]
async fn the_reservations_line_keeps_its_place_while_the_reservation_is_read() {
    let at = nodes_page_read_at(now());
    settle().await;
    assert!(at.host.query_selector(".totals-panel").unwrap().is_some(), "the stored answer is drawn");
    assert_eq!(text_of(&at.host, ".page-head .subtitle"), "Reading the reservation…");
}

/// A reservation that cannot be read says so where its line goes, with why, and Retry reads
/// it again. The line used to go, with nothing said: its status and the launch link gone.
#[wasm_bindgen_test]
async fn a_reservation_that_cannot_be_read_says_why_in_its_line_and_retry_reads_it_again() {
    // The reservation answers 500 until it is given its detail; nothing else is answered.
    let down = json!({ "error": "internal", "message": "The region database is down." });
    let api = console_fixtures::FakeApi::new(vec![(
        "/api/gpu-reservations/12",
        vec![Answer { status: 500, body: down, headers: Vec::new() }],
    )]);
    let at = nodes_page_read_at(now());
    let line = || text_of(&at.host, ".page-head .subtitle");
    until(false, || line() == "Reading the reservation…").await;
    let line = line();
    assert!(line.starts_with("The reservation could not be read: "), "{line}");
    assert!(line.contains("The region database is down."), "the API's message is kept: {line}");

    api.answer("/api/gpu-reservations/12", vec![Answer::ok(serde_json::to_value(member_detail()).unwrap())]);
    let retry: web_sys::HtmlElement =
        at.host.query_selector(".page-head .subtitle button").unwrap().unwrap().unchecked_into();
    assert_eq!(text(&retry), "Retry");
    retry.click();
    until(true, || text_of(&at.host, ".page-head .subtitle").contains("in region")).await;
}
