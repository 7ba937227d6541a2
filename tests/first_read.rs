//! `index.html`'s inline script sends a fresh load's first read before the console's code
//! arrives. Being JavaScript it cannot call [`Route::first_read`]: it copies the table, and
//! this test runs the script on every address a test can think of and holds each read it
//! sends (or does not send) to Rust's table.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{js, record_requests, requests_sent};
use reservations_console::api::client::{self, Connection};
use reservations_console::api::first_read::{GLOBAL, SEND_AHEAD};
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

/// A page opened in the console sends its first read through the same script (one
/// mechanism, one freshness rule): it leaves at once, as text, and the page's own request
/// for that URL and key takes and decodes it instead of sending another.
#[wasm_bindgen_test]
async fn a_read_the_console_sends_ahead_leaves_through_the_script_and_is_taken_once() {
    // No key kept: the script sends nothing itself, and leaves its function for the console.
    js(inline_script());
    js("window.__sent = []; window.__realFetch = window.__realFetch || window.fetch; \
        window.fetch = (url) => { window.__sent.push(new URL(url, location.href).pathname); \
        const node = { display_name: 'node-sent-ahead', state: 'ready', gpus: 8, gpus_in_use: 0, workloads: [] }; \
        return Promise.resolve(new Response(JSON.stringify({ nodes: [node] }), { status: 200 })); };");
    let conn = Connection::new("http://ahead.invalid/api", "k");
    client::send_ahead(&conn, &client::nodes_path(12));
    assert_eq!(js("return window.__sent.length").as_f64(), Some(1.0), "the read left as it was sent ahead");
    let (nodes, _) = client::nodes(&conn, 12, None).await.expect("the answer sent ahead");
    assert_eq!(nodes.nodes[0].display_name, "node-sent-ahead");
    assert_eq!(requests_sent(), vec!["/api/gpu-reservations/12/nodes"], "one request, taken by the page");
    js(&format!("delete window.{GLOBAL}; delete window.{SEND_AHEAD};"));
}

/// A page opened at its own address is sent ahead twice: by the script as the document is
/// parsed, and by the console as its router opens the route. The second finds the first on
/// its way and sends nothing; another address's read replaces it.
#[wasm_bindgen_test]
fn the_same_read_sent_ahead_again_leaves_once_and_another_replaces_it() {
    js(inline_script());
    record_requests();
    let conn = Connection::new("/api", "k");
    client::send_ahead(&conn, &client::nodes_path(12));
    client::send_ahead(&conn, &client::nodes_path(12));
    client::send_ahead(&Connection::new("/api", "another key"), &client::nodes_path(12));
    client::send_ahead(&conn, &client::nodes_path(13));
    assert_eq!(
        requests_sent(),
        ["/api/gpu-reservations/12/nodes", "/api/gpu-reservations/12/nodes", "/api/gpu-reservations/13/nodes"],
        "12 once for each key, then 13"
    );
    js(&format!("delete window.{GLOBAL}; delete window.{SEND_AHEAD};"));
}
