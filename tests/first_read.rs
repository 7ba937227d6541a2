//! `index.html`'s inline script sends a fresh load's first read before the console's code
//! arrives. Being JavaScript it cannot call [`Route::first_read`]: it copies the table, and
//! this test runs the script on every address a test can think of and holds each read it
//! sends (or does not send) to Rust's table.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{js, record_requests, requests_sent};
use reservations_console::api::first_read::GLOBAL;
use reservations_console::router::Route;
use reservations_console::state::KEPT_CONNECTION;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The first inline script of `index.html`.
fn inline_script() -> &'static str {
    let page = include_str!("../index.html");
    let start = page.find("<script>").expect("index.html has an inline script") + "<script>".len();
    let end = start + page[start..].find("</script>").unwrap();
    &page[start..end]
}

/// The URLs the script asks `fetch` for when the tab opens at `path` with a kept key.
fn reads_sent_at(path: &str) -> Vec<String> {
    let window = web_sys::window().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(path)).unwrap();
    let storage = window.session_storage().unwrap().unwrap();
    storage.set_item(KEPT_CONNECTION, r#"{"key":"eco_test_key","base_url":"/api"}"#).unwrap();
    record_requests();
    js(inline_script());
    let sent = requests_sent();
    js(&format!("delete window.{GLOBAL};"));
    storage.remove_item(KEPT_CONNECTION).unwrap();
    sent
}

#[wasm_bindgen_test]
fn the_inline_script_sends_exactly_the_first_read_of_rusts_route_table() {
    let addresses = [
        "/",
        "/overview",
        "/overview/",
        "/reservations",
        "/reservations/",
        "/reservations/12",
        "/reservations/12/",
        "/reservations/12/nodes",
        "/reservations/12/nodes/",
        "/reservations/123456789012345678/nodes",
        "/reservations/012/nodes",
        "/reservations/0",
        "/reservations/-3",
        "/reservations/abc/nodes",
        "/reservations/12/launch",
        "/reservations/12/workloads/gpu_cluster/418",
        "/orgs",
        "/orgs/org_a",
        "/nowhere",
    ];
    for path in addresses {
        let expected: Vec<String> = Route::parse(path).first_read().map(|p| format!("/api{p}")).into_iter().collect();
        assert_eq!(reads_sent_at(path), expected, "at {path}");
    }
    web_sys::window().unwrap().history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some("/")).unwrap();
}
