//! The live pages' poll loop (`reads::live`), driven by a fetch that takes its time: one
//! request in flight, pause and resume, what stops it and what it retries, a hidden tab,
//! the idle stop, and leaving the page.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;
mod live_support;

use console_fixtures::{now, seed_nodes, sleep};
use leptos::prelude::*;
use live_support::{clock_ahead_by, polled, press_a_key, set_tab_hidden, slow_api, start_live, SlowApi};
use reservations_console::api::error::{ApiError, ResponseHeaders};
use reservations_console::api::models::NodesResponse;
use reservations_console::domain::polling::Interval;
use reservations_console::reads::live::{Live, LiveStatus};
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A loop polling `api` at the loopback test interval (100 ms, the floor), each request taking `ms` and
/// answered `answer`, delivered nowhere.
fn poll_fake(
    api: &Rc<SlowApi>,
    ms: u64,
    answer: Result<NodesResponse, ApiError>,
) -> (Live, leptos::mount::UnmountHandle<impl Mountable>) {
    let api = Rc::clone(api);
    start_live(move || Live::start(Interval::for_page(Some("100"), "localhost"), move || api.fetch(ms, answer.clone())))
}

#[wasm_bindgen_test]
async fn the_poll_loop_keeps_one_request_in_flight_pauses_and_stops_when_left() {
    let api = slow_api();
    let (live, page) = poll_fake(&api, 40, Ok(seed_nodes()));
    // Four polls take about 560 ms.
    let waited = polled(&live, 4).await;
    let polls = live.polls();
    assert!(polls >= 4, "{polls} polls in {waited} ms");
    assert_eq!(api.most_at_once.get(), 1);

    live.pause();
    assert_eq!(live.status(), LiveStatus::Paused);
    sleep(100).await;
    let paused_at = live.polls();
    sleep(200).await;
    assert_eq!(live.polls(), paused_at, "no polls while paused");

    live.resume();
    polled(&live, paused_at + 1).await;
    assert!(live.polls() > paused_at, "polling resumed");

    drop(page);
    let calls = api.calls.get();
    sleep(200).await;
    assert_eq!(api.calls.get(), calls, "no polls after the page is left");
}

#[wasm_bindgen_test]
async fn the_poll_loop_stops_on_an_error_retrying_cannot_fix_and_retries_transient_ones() {
    let not_found = ApiError::from_response(404, &ResponseHeaders::default(), r#"{"error":"not_found"}"#, now());
    let api = slow_api();
    let (live, page) = poll_fake(&api, 1, Err(not_found));
    sleep(200).await;
    assert_eq!(live.status(), LiveStatus::Failed);
    assert_eq!(api.calls.get(), 1);
    drop(page);

    let unavailable = ApiError::from_response(503, &ResponseHeaders::from_pairs([("retry-after", "1")]), "", now());
    let api = slow_api();
    let (live, page) = poll_fake(&api, 1, Err(unavailable));
    sleep(300).await;
    // retry-after 1 s is honoured: a single attempt so far, and a retry announced.
    assert_eq!(api.calls.get(), 1);
    assert!(matches!(live.status(), LiveStatus::Retrying { failures: 1, .. }), "{:?}", live.status());
    drop(page);
}

#[wasm_bindgen_test]
async fn a_request_answered_after_the_page_was_left_is_followed_by_none() {
    let api = slow_api();
    let (_, page) = poll_fake(&api, 100, Ok(seed_nodes()));
    sleep(30).await;
    drop(page);
    sleep(400).await;
    assert_eq!((api.calls.get(), api.running.get()), (1, 0), "the request under way ended, and no other followed");
}

#[wasm_bindgen_test]
async fn a_hidden_tab_fetches_nothing_and_polls_again_once_shown() {
    let api = slow_api();
    let (live, page) = poll_fake(&api, 1, Ok(seed_nodes()));
    polled(&live, 2).await;
    set_tab_hidden(true);
    sleep(250).await;
    assert_eq!(live.status(), LiveStatus::Hidden);
    let calls = api.calls.get();
    sleep(200).await;
    assert_eq!(api.calls.get(), calls, "nothing is fetched while the tab is hidden");

    set_tab_hidden(false);
    polled(&live, live.polls() + 1).await;
    assert!(api.calls.get() > calls, "polling goes on once the tab shows");
    assert_eq!(live.status(), LiveStatus::Live);
    drop(page);
}

#[wasm_bindgen_test]
async fn a_failure_answered_while_the_tab_was_hidden_still_waits_its_retry_after_once_shown() {
    let unavailable = ApiError::from_response(503, &ResponseHeaders::from_pairs([("retry-after", "1")]), "", now());
    let api = slow_api();
    let (live, page) = poll_fake(&api, 100, Err(unavailable));
    // The first request is under way; the tab is hidden before its 503 arrives.
    sleep(20).await;
    set_tab_hidden(true);
    polled(&live, 1).await;
    set_tab_hidden(false);
    sleep(400).await;
    assert_eq!(api.calls.get(), 1, "showing the tab must not skip the server's retry-after of 1 s");
    assert!(matches!(live.status(), LiveStatus::Retrying { failures: 1, .. }), "{:?}", live.status());
    polled(&live, 2).await;
    assert_eq!(api.calls.get(), 2, "retried once the second was up");
    drop(page);
}

#[wasm_bindgen_test]
async fn thirty_minutes_without_activity_stop_polling_and_a_key_press_counts_as_activity() {
    let api = slow_api();
    let (live, page) = poll_fake(&api, 1, Ok(seed_nodes()));
    polled(&live, 1).await;

    // Half an hour passes; then the user presses a key: still live.
    clock_ahead_by(31);
    press_a_key();
    let polls = live.polls();
    polled(&live, polls + 2).await;
    assert_eq!(live.status(), LiveStatus::Live, "activity keeps it polling");

    // Another half hour without anything: it stops and offers to resume.
    clock_ahead_by(62);
    sleep(300).await;
    assert_eq!(live.status(), LiveStatus::Idle);
    let calls = api.calls.get();
    sleep(200).await;
    assert_eq!(api.calls.get(), calls, "no polls once idle");

    live.resume();
    polled(&live, live.polls() + 1).await;
    clock_ahead_by(0);
    assert!(api.calls.get() > calls, "resumed");
    drop(page);
}
