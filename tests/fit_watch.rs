//! "Tell me when it fits" on `/fit`, fed fixture answers: one alert in the bell (and one
//! notification, once they are on) per turn to "fits now", none on unknown, closed or stale
//! reads; the watch listed in the bell, kept when the page is left, ended by Stop watching;
//! and no request of its own.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    button, mount_with, now, provide_console, provide_fleet, reservation, settle, sleep, text, until, Answer, FakeApi,
};
use leptos::prelude::*;
use reservations_console::api::error::ApiError;
use reservations_console::api::models::NodesResponse;
use reservations_console::components::alerts_bell::AlertsBell;
use reservations_console::domain::polling::DEFAULT_INTERVAL;
use reservations_console::pages::fit::{FitBoard, FitPage};
use reservations_console::reads::fleet::FleetStore;
use reservations_console::reads::nodes::NodesStore;
use reservations_console::router::Router;
use reservations_console::state::Role;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Ready nodes of 8 GPUs with these GPUs in use.
fn ready_nodes(in_use: &[i64]) -> Arc<NodesResponse> {
    let nodes: Vec<_> = in_use
        .iter()
        .enumerate()
        .map(|(i, used)| json!({ "display_name": format!("node-{}", i + 1), "state": "ready", "gpus": 8, "gpus_in_use": used, "workloads": [] }))
        .collect();
    Arc::new(serde_json::from_value(json!({ "nodes": nodes, "workloads_unknown": false })).unwrap())
}

/// Fragmented for 4 GPUs: 3 free on each node.
fn fragmented() -> Arc<NodesResponse> {
    ready_nodes(&[5, 5])
}

/// 4 GPUs free together on node-1.
fn fits() -> Arc<NodesResponse> {
    ready_nodes(&[4, 5])
}

/// What a test steers: the stores, the session, and whether the `/fit` page is shown.
#[derive(Clone, Copy)]
struct Setup {
    nodes: NodesStore,
    session: u64,
    page: RwSignal<bool>,
}

impl Setup {
    /// Reservation `id`'s nodes read `ago` before now.
    async fn read(&self, id: i64, answer: Arc<NodesResponse>, ago: chrono::TimeDelta) {
        self.nodes.receive(self.session, id, Ok(answer), now() - ago);
        settle().await;
    }

    async fn fresh(&self, id: i64, answer: Arc<NodesResponse>) {
        self.read(id, answer, chrono::TimeDelta::zero()).await;
    }
}

/// `/fit?gpus=4` and the bell, for a member: #7 fragmented (3 free together at best), #6
/// with 2 free together, #11 past due (closed to launches). The runner's own address is put
/// back by [`restore`].
fn mount_watch() -> (web_sys::HtmlElement, Setup, String) {
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some("/fit?gpus=4")).unwrap();
    let (host, setup) = mount_with(|| {
        let (store, nodes, session) = provide_fleet(Role::Member);
        let list = vec![
            reservation(json!({ "id": 7 })),
            reservation(json!({ "id": 6 })),
            reservation(json!({ "id": 11, "status": "past_due" })),
        ];
        store.receive_list(session, Ok(list), now());
        nodes.receive(session, 7, Ok(fragmented()), now());
        nodes.receive(session, 6, Ok(ready_nodes(&[6, 6])), now());
        nodes.receive(session, 11, Ok(ready_nodes(&[8])), now());
        let page = RwSignal::new(true);
        let setup = Setup { nodes, session, page };
        (setup, view! { <Router><AlertsBell/><Show when=move || page.get()><FitBoard store/></Show></Router> })
    });
    (host, setup, before)
}

fn restore(before: &str) {
    web_sys::window().unwrap().history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(before)).unwrap();
}

async fn click(host: &web_sys::HtmlElement, label: &str) {
    button(host, label).unwrap_or_else(|| panic!("a {label:?} button: {}", text(host))).click();
    sleep(20).await;
    settle().await;
}

/// Opens the bell's panel (its code arrives on the first opening).
async fn open_bell(host: &web_sys::HtmlElement) {
    host.query_selector(".alerts-bell summary").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
    sleep(50).await;
    settle().await;
}

/// The bell's "fits now" alerts: text and link.
fn fit_alerts(host: &web_sys::HtmlElement) -> Vec<(String, String)> {
    let found = host.query_selector_all(".alerts-list li.alert-item a").unwrap();
    (0..found.length())
        .map(|i| found.item(i).unwrap().unchecked_into::<web_sys::Element>())
        .filter(|a| a.text_content().unwrap_or_default().starts_with("Room for"))
        .map(|a| (a.text_content().unwrap(), a.get_attribute("href").unwrap()))
        .collect()
}

/// The watch as the bell lists it, if it does.
fn watch_in_bell(host: &web_sys::HtmlElement) -> Option<String> {
    host.query_selector(".alerts-list .fit-watch").unwrap().map(|li| li.text_content().unwrap())
}

fn js(code: &str) -> JsValue {
    js_sys::Function::new_no_args(code).call0(&JsValue::NULL).unwrap()
}

/// The Notification API's stand-in: permission granted; what it showed, in order.
fn fake_notifications() {
    js("window.__realNotification = window.__realNotification || window.Notification;
        window.__notify = { shown: [] };
        window.Notification = class {
            constructor(title, options) { window.__notify.shown.push(title + ': ' + options.body); }
            static get permission() { return 'granted'; }
            static requestPermission() { return Promise.resolve('granted'); }
        };");
}

fn notifications_shown() -> Vec<String> {
    let shown = js("return window.__notify.shown");
    js_sys::Array::from(&shown).iter().map(|s| s.as_string().unwrap()).collect()
}

fn real_notifications() {
    js("window.Notification = window.__realNotification;");
}

const ROOM_ON_7: &str = "Room for 4 GPUs now on #7 (atl · NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition).";

#[wasm_bindgen_test]
async fn the_watch_raises_one_alert_and_one_notification_per_turn_to_fits_now_with_the_launch_link() {
    fake_notifications();
    let (host, setup, before) = mount_watch();
    settle().await;
    open_bell(&host).await;
    click(&host, "Notify me").await;
    click(&host, "Tell me when it fits").await;
    let waiting = text(&host);
    setup.fresh(7, fits()).await;
    let once = (fit_alerts(&host), notifications_shown());
    setup.fresh(7, fits()).await;
    setup.fresh(7, ready_nodes(&[0, 5])).await;
    let still = (fit_alerts(&host), notifications_shown());
    // The next transition, read a few seconds later (the test's clock stands still).
    setup.read(7, fragmented(), chrono::TimeDelta::seconds(-2)).await;
    setup.read(7, fits(), chrono::TimeDelta::seconds(-4)).await;
    let twice = (fit_alerts(&host), notifications_shown());
    restore(&before);
    real_notifications();
    // Since when: the time the watch began (the test's clock stands at `now`), in the chosen zone.
    assert!(waiting.contains("Watching for room for 4 GPUs since 2 Dec 2026, 09:30 UTC (0 s ago)"), "{waiting}");
    assert!(waiting.contains(": best node 1 GPU short."), "#7's 3 GPUs together are the closest: {waiting}");
    let launch = "/reservations/7/launch?gpus=4".to_owned();
    assert_eq!(once.0, [(ROOM_ON_7.to_owned(), launch.clone())]);
    assert_eq!(once.1, [format!("Reserved GPUs: it fits now: {ROOM_ON_7}")]);
    assert_eq!(still, once, "fitting read after read is one transition");
    assert_eq!(twice.0, [(ROOM_ON_7.to_owned(), launch.clone()), (ROOM_ON_7.to_owned(), launch)]);
    assert_eq!(twice.1.len(), 2, "one notification per transition: {:?}", twice.1);
}

#[wasm_bindgen_test]
async fn unknown_closed_and_stale_reads_never_fire_the_watch() {
    let (host, setup, before) = mount_watch();
    settle().await;
    open_bell(&host).await;
    click(&host, "Tell me when it fits").await;
    // #11 is past due: room on its nodes, but closed to launches.
    setup.fresh(11, ready_nodes(&[0])).await;
    // #7's region unreachable: unknown.
    let unreachable: NodesResponse = serde_json::from_value(json!({
        "nodes": [{ "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": null, "workloads": [] }],
        "workloads_unknown": true
    }))
    .unwrap();
    setup.fresh(7, Arc::new(unreachable)).await;
    // #7 fitting, but read ten minutes ago (older than two refreshes).
    setup.read(7, fits(), chrono::TimeDelta::minutes(10)).await;
    // #6 fitting, then its next read failed: what is shown is stale.
    setup.nodes.receive(setup.session, 6, Err(ApiError::network("the connection was reset")), now());
    settle().await;
    let none = fit_alerts(&host);
    // A fresh read that fits: the watch was armed all along.
    setup.fresh(7, fits()).await;
    let after = fit_alerts(&host);
    restore(&before);
    assert_eq!(none, Vec::<(String, String)>::new());
    assert_eq!(after.len(), 1, "{after:?}");
}

#[wasm_bindgen_test]
async fn the_watch_is_listed_in_the_bell_outlives_the_page_and_stop_watching_ends_it() {
    let (host, setup, before) = mount_watch();
    settle().await;
    open_bell(&host).await;
    let offered = text(&host);
    click(&host, "Tell me when it fits").await;
    let listed = watch_in_bell(&host);
    setup.page.set(false);
    settle().await;
    setup.fresh(7, fits()).await;
    let away = (fit_alerts(&host).len(), watch_in_bell(&host));
    click(&host, "Stop watching").await;
    let stopped = (watch_in_bell(&host), fit_alerts(&host).len());
    setup.fresh(7, fragmented()).await;
    setup.fresh(7, fits()).await;
    let after = fit_alerts(&host).len();
    setup.page.set(true);
    settle().await;
    let page = text(&host);
    restore(&before);
    assert!(offered.contains("closing it ends the watch") && offered.contains("push server"), "{offered}");
    // A member's key: no money on the page, in the bell or in the watch, never a $0.00 either.
    assert!(!offered.contains('$') && !offered.contains("USD") && !page.contains('$'), "{offered}");
    let listed = listed.expect("the bell lists the watch");
    assert!(listed.contains("Watching for room for 4 GPUs since") && listed.contains("Stop watching"), "{listed}");
    assert_eq!(away.0, 1, "the watch fired with its page left");
    assert!(away.1.is_some_and(|w| w.contains("open the question")), "it says nothing reads here");
    assert_eq!(stopped, (None, 0), "stopped: not listed, its alert gone");
    assert_eq!(after, 0, "a stopped watch raises nothing");
    assert!(button(&host, "Tell me when it fits").is_some(), "{page}");
}

/// The requests sent in `[from, to)` ms, by path.
fn sent_between(api: &FakeApi, from: f64, to: f64) -> BTreeMap<String, usize> {
    let mut by_path = BTreeMap::new();
    for (path, _) in api.sent().into_iter().filter(|(_, at)| (from..to).contains(at)) {
        *by_path.entry(path).or_default() += 1;
    }
    by_path
}

/// `performance.now()`, the clock the fake API stamps its requests with.
fn clock() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}

/// One minute of the console's schedule: the rounds the page reads each reservation in a
/// minute at its base interval (60 s / 5 s = 12), at the interval this schedule runs.
fn a_minute_of(interval: Duration) -> Duration {
    interval * u32::try_from(Duration::from_secs(60).as_millis() / DEFAULT_INTERVAL.as_millis()).unwrap()
}

#[wasm_bindgen_test]
async fn a_watch_adds_no_request_to_a_minute_of_the_pages_schedule() {
    let list = serde_json::to_value(vec![reservation(json!({ "id": 12 }))]).unwrap();
    let detail: serde_json::Value = serde_json::from_str(include_str!("../fixtures/seed_004_detail.json")).unwrap();
    let api = FakeApi::new(vec![
        ("/api/gpu-reservations", vec![Answer::ok(list)]),
        ("/api/gpu-reservations/12", vec![Answer::ok(detail)]),
        ("/api/gpu-reservations/12/nodes", vec![Answer::ok(serde_json::to_value(&*fragmented()).unwrap())]),
    ]);
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    // A shortened interval (loopback only): each reservation is read as often as the page's
    // pace allows, so a minute's rounds take seconds.
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some("/fit?gpus=4&poll_ms=100")).unwrap();
    let (host, store) = mount_with(|| {
        provide_console(Role::Member);
        let store = FleetStore::new();
        provide_context(store);
        (store, view! { <Router><AlertsBell/><FitPage/></Router> })
    });
    // The list, the first round and the detail are read once; then the schedule runs.
    until(true, || api.paths().iter().any(|p| p == "/api/gpu-reservations/12")).await;
    let minute = a_minute_of(untrack(|| store.interval()).expect("the schedule runs"));
    let minute_ms = minute.as_secs_f64() * 1000.0;
    let start = clock();
    sleep(minute.as_millis() as u64).await;
    let without = sent_between(&api, start, start + minute_ms);
    open_bell(&host).await;
    click(&host, "Tell me when it fits").await;
    let watched = clock();
    sleep(minute.as_millis() as u64).await;
    let with = sent_between(&api, watched, watched + minute_ms);
    let (page, bell) = (text(&host), watch_in_bell(&host));
    restore(&before);
    drop(api);
    assert!(page.contains("Watching for room for 4 GPUs"), "{page}");
    assert!(bell.is_some(), "the bell lists the watch: {page}");
    let nodes = "/api/gpu-reservations/12/nodes";
    let rounds = without.get(nodes).copied().unwrap_or(0);
    // 12 rounds; one may fall across the window's edge, and a loaded machine's timers run late.
    assert!((10..=12).contains(&rounds), "a minute's rounds: {without:?} in {minute:?}");
    console_log!("a minute of the schedule ({minute:?}): {rounds} reads without the watch, {} with", with[nodes]);
    assert_eq!(without.keys().collect::<Vec<_>>(), [nodes], "only the schedule's reads, {without:?}");
    assert_eq!(with.keys().collect::<Vec<_>>(), [nodes], "the watch reads nothing of its own: {with:?}");
    let watched_rounds = with[nodes];
    assert!(
        watched_rounds.abs_diff(rounds) <= 1,
        "{watched_rounds} reads with the watch, {rounds} without, in a minute of the schedule ({minute:?})"
    );
}
