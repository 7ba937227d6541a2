//! The overview's loop (`reads::fleet`), as the overview, `/fit` and `/capacity` start it,
//! reading a fake API: its pace (one request at a time, 600 ms apart), a 429 holding the
//! whole page for its `retry-after`, and what holds it until it looks again (a hidden tab,
//! 30 minutes without activity).
#![cfg(target_arch = "wasm32")]

mod console_fixtures;
mod live_support;

use console_fixtures::{provide_console, reservation, seed_nodes, sleep, until, Answer, FakeApi, HostAt};
use leptos::prelude::*;
use live_support::{clock_ahead_by, press_a_key, set_tab_hidden};
use reservations_console::reads::fleet::{fleet_page, FleetStore, ReadStatus};
use reservations_console::state::Role;
use serde_json::json;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const LIST: &str = "/api/gpu-reservations";

fn nodes_of(id: i64) -> String {
    format!("/api/gpu-reservations/{id}/nodes")
}

/// A fake API holding the reservations `ids`, each of whose nodes answers `nodes(id)`
/// (the seed's placement when `None`); their details are refused (the loop reads each once
/// and goes on).
fn api_of(ids: &[i64], nodes: impl Fn(i64) -> Option<Vec<Answer>>) -> FakeApi {
    let list: Vec<_> = ids.iter().map(|id| reservation(json!({ "id": id }))).collect();
    let mut routes = vec![(LIST.to_owned(), vec![Answer::ok(serde_json::to_value(list).unwrap())])];
    for id in ids {
        routes.push((nodes_of(*id), nodes(*id).unwrap_or_else(|| vec![placement()])));
        routes.push((format!("{LIST}/{id}"), vec![Answer::error(404, "not_found", "req_detail")]));
    }
    FakeApi::new(routes.iter_mut().map(|(path, answers)| (path.as_str(), std::mem::take(answers))).collect())
}

/// The seed's placement.
fn placement() -> Answer {
    Answer::ok(serde_json::to_value(seed_nodes()).unwrap())
}

/// The overview's reads started as its page starts them, with the loopback test interval of
/// 100 ms (each reservation is then read as often as the 600 ms pace allows). Dropping the
/// handle leaves the page; then the address.
fn overview_reads() -> (FleetStore, leptos::mount::UnmountHandle<impl Mountable>, HostAt) {
    let at = HostAt::new("/overview?poll_ms=100");
    let started = Rc::new(Cell::new(None));
    let handle = {
        let started = Rc::clone(&started);
        leptos::mount::mount_to(at.host.clone(), move || {
            provide_console(Role::Member);
            provide_context(FleetStore::new());
            started.set(Some(fleet_page("Overview")));
        })
    };
    (started.get().expect("started"), handle, at)
}

/// The requests of `api` to `path`, as sent (ms).
fn sent_to(api: &FakeApi, path: &str) -> Vec<f64> {
    api.sent().into_iter().filter(|(p, _)| p == path).map(|(_, at)| at).collect()
}

#[wasm_bindgen_test]
async fn the_overview_reads_one_request_at_a_time_each_600_ms_after_the_previous_and_each_reservation_again() {
    let api = api_of(&[12, 9], |_| None);
    let (_store, page, at) = overview_reads();
    until(true, || sent_to(&api, &nodes_of(12)).len() >= 2 && sent_to(&api, &nodes_of(9)).len() >= 2).await;
    drop((page, at));
    let sent = api.sent();
    let paths: Vec<&str> = sent.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(
        paths[..5],
        [LIST, nodes_of(12).as_str(), nodes_of(9).as_str(), "/api/gpu-reservations/12", "/api/gpu-reservations/9"],
        "the list, a round of nodes, then each detail once"
    );
    for pair in sent.windows(2) {
        let gap = pair[1].1 - pair[0].1;
        assert!(gap >= 599.0, "{} {gap:.0} ms after {}: {paths:?}", pair[1].0, pair[0].0);
    }
}

#[wasm_bindgen_test]
async fn a_429_holds_the_whole_overview_for_its_retry_after() {
    let limited = || vec![Answer::error(429, "rate_limited", "req_429").with_header("retry-after", "2"), placement()];
    let api = api_of(&[12, 9], move |id| (id == 12).then(limited));
    let (_store, page, at) = overview_reads();
    until(true, || api.sent().len() >= 3).await;
    drop((page, at));
    let sent = api.sent();
    assert_eq!((sent[1].0.as_str(), sent[2].0.as_str()), (nodes_of(12).as_str(), nodes_of(9).as_str()), "{sent:?}");
    let waited = sent[2].1 - sent[1].1;
    assert!(
        waited >= 1_999.0,
        "the next read, of another reservation, waited {waited:.0} ms, not the 2 s asked: {sent:?}"
    );
}

#[wasm_bindgen_test]
async fn a_hidden_tab_holds_the_overview_and_it_reads_again_once_shown() {
    let api = api_of(&[12], |_| None);
    let (store, page, at) = overview_reads();
    until(true, || sent_to(&api, &nodes_of(12)).len() >= 2).await;
    set_tab_hidden(true);
    until(ReadStatus::Hidden, || store.status()).await;
    let held = api.sent().len();
    sleep(800).await;
    assert_eq!(api.sent().len(), held, "nothing is read while the tab is hidden");

    set_tab_hidden(false);
    until(true, || api.sent().len() > held).await;
    assert_eq!(store.status(), ReadStatus::Reading);
    drop((page, at));
}

#[wasm_bindgen_test]
async fn thirty_minutes_without_activity_hold_the_overview_until_a_key_press() {
    let api = api_of(&[12], |_| None);
    let (store, page, at) = overview_reads();
    until(true, || sent_to(&api, &nodes_of(12)).len() >= 2).await;
    clock_ahead_by(31);
    until(ReadStatus::Idle, || store.status()).await;
    let held = api.sent().len();
    sleep(800).await;
    assert_eq!(api.sent().len(), held, "nothing is read while nobody is there");

    press_a_key();
    until(true, || api.sent().len() > held).await;
    clock_ahead_by(0);
    assert_eq!(store.status(), ReadStatus::Reading);
    drop((page, at));
}
