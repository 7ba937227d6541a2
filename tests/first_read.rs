//! `index.html`'s inline script sends a fresh load's first read before the console's code
//! arrives, and names the chunk of the page's code for the chunks' loader. Being JavaScript
//! it cannot call [`Route::first_read`] nor [`page_chunk`]: it copies them, and this test
//! runs the script at every page of the console and on every address a test can think of,
//! and holds each read it sends (or does not send) and each chunk it names to Rust's.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{js, Answer, FakeApi};
use reservations_console::api::client::{self, Connection};
use reservations_console::api::first_read::{SEND_AHEAD, TAKE};
use reservations_console::page_chunk;
use reservations_console::router::{Route, PAGES};
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

/// What the script does when the tab opens at `path` with a kept key: the URLs it asks
/// `fetch` for, and the chunk it names.
fn script_at(path: &str) -> (Vec<String>, Option<String>) {
    let window = web_sys::window().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(path)).unwrap();
    let storage = window.session_storage().unwrap().unwrap();
    storage.set_item(KEPT_CONNECTION, r#"{"key":"eco_test_key","base_url":"/api"}"#).unwrap();
    let api = FakeApi::new(Vec::new());
    js(inline_script());
    let sent = api.paths();
    drop(api);
    let chunk = js("const chunk = window.__openedPage; delete window.__openedPage; return chunk;").as_string();
    forget_script();
    storage.remove_item(KEPT_CONNECTION).unwrap();
    (sent, chunk)
}

/// Takes the script's functions off the page.
fn forget_script() {
    js(&format!("delete window.{TAKE}; delete window.{SEND_AHEAD};"));
}

#[wasm_bindgen_test]
fn the_inline_script_sends_the_first_read_and_names_the_chunk_of_rusts_route_table() {
    // Every page, each of the segments it reads 12, then the edges of an id and of a path.
    let mut addresses: Vec<String> = PAGES.iter().map(|page| page.address_with("12")).collect();
    addresses.extend(
        [
            "/overview/",
            "/reservations/",
            "/reservations/12/",
            "/reservations/12/nodes/",
            "/reservations/123456789012345678/nodes",
            "/reservations/1234567890123456789/nodes",
            "/reservations/012/nodes",
            "/reservations/0",
            "/reservations/-3",
            "/reservations/abc/nodes",
            "/reservations/12/workloads/gpu_cluster/418",
            "/orgs/org_a",
            "/nowhere",
            // An account named: a page of one reservation sends nothing, the others do.
            "/reservations/12?account=prod-eu",
            "/reservations/12/nodes?tz=utc&account=prod%2Deu",
            "/reservations/12/nodes?account=",
            "/reservations/12/nodes?tz=utc",
            "/reservations?account=prod-eu",
            "/overview?account=prod-eu",
        ]
        .map(String::from),
    );
    for path in &addresses {
        let route = Route::parse(path);
        let read = route.first_read();
        let chunk = read.is_some().then(|| page_chunk(&route)).flatten().map(String::from);
        let read: Vec<String> = read.map(|p| format!("/api{p}")).into_iter().collect();
        assert_eq!(script_at(path), (read, chunk), "at {path}");
    }
    web_sys::window().unwrap().history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some("/")).unwrap();
}

/// A read sent ahead carries the key, kept for the tab or not; while it waits, the key is
/// inside the script alone: no property of the page's globals, nor of their objects, holds it.
#[wasm_bindgen_test]
fn no_global_holds_the_key_while_a_read_sent_ahead_waits() {
    js(inline_script());
    let api = FakeApi::new(Vec::new());
    let key = "eco_key_not_kept_4f1c9a";
    client::send_ahead(&Connection::new("/api", key), &client::nodes_path(12));
    let holders = js(&format!(
        "const holds = (value, depth) => {{
           if (typeof value === 'string') return value.includes({key:?});
           if (depth === 0 || value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
           return Object.getOwnPropertyNames(value).some((name) => {{
             try {{ return holds(value[name], depth - 1); }} catch {{ return false; }}
           }});
         }};
         return Object.getOwnPropertyNames(window).filter((name) => {{
           try {{ return holds(window[name], 1); }} catch {{ return false; }}
         }});"
    ));
    assert_eq!(api.paths(), ["/api/gpu-reservations/12/nodes"], "the read is on its way");
    let holders: Vec<String> = js_sys::Array::from(&holders).iter().filter_map(|name| name.as_string()).collect();
    assert!(holders.is_empty(), "the key is held by these globals: {holders:?}");
    forget_script();
}

/// A page opened in the console sends its first read through the same script (one
/// mechanism, one freshness rule): it leaves at once, as text, and the page's own request
/// for that URL and key takes and decodes it instead of sending another.
#[wasm_bindgen_test]
async fn a_read_the_console_sends_ahead_leaves_through_the_script_and_is_taken_once() {
    // No key kept: the script sends nothing itself, and leaves its function for the console.
    js(inline_script());
    let node = serde_json::json!({ "display_name": "node-sent-ahead", "state": "ready", "gpus": 8, "gpus_in_use": 0, "workloads": [] });
    let api = FakeApi::new(vec![(
        "/api/gpu-reservations/12/nodes",
        vec![Answer::ok(serde_json::json!({ "nodes": [node] }))],
    )]);
    let conn = Connection::new("http://ahead.invalid/api", "k");
    client::send_ahead(&conn, &client::nodes_path(12));
    assert_eq!(api.sent().len(), 1, "the read left as it was sent ahead");
    let (nodes, _) = client::nodes(&conn, 12, None).await.expect("the answer sent ahead");
    assert_eq!(nodes.nodes[0].display_name, "node-sent-ahead");
    assert_eq!(api.paths(), vec!["/api/gpu-reservations/12/nodes"], "one request, taken by the page");
    forget_script();
}

/// A page opened at its own address is sent ahead twice: by the script as the document is
/// parsed, and by the console as its router opens the route. The second finds the first on
/// its way and sends nothing; another address's read replaces it.
#[wasm_bindgen_test]
fn the_same_read_sent_ahead_again_leaves_once_and_another_replaces_it() {
    js(inline_script());
    let api = FakeApi::new(Vec::new());
    let conn = Connection::new("/api", "k");
    client::send_ahead(&conn, &client::nodes_path(12));
    client::send_ahead(&conn, &client::nodes_path(12));
    client::send_ahead(&Connection::new("/api", "another key"), &client::nodes_path(12));
    client::send_ahead(&conn, &client::nodes_path(13));
    assert_eq!(
        api.paths(),
        ["/api/gpu-reservations/12/nodes", "/api/gpu-reservations/12/nodes", "/api/gpu-reservations/13/nodes"],
        "12 once for each key, then 13"
    );
    forget_script();
}
