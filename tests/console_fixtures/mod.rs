//! Fixtures and a mount helper shared by the page tests of UI helper A: small JSON
//! documents shaped like seed 004's examples, and a host element per test.
#![allow(dead_code)] // each test binary uses a different subset

use chrono::{DateTime, TimeZone as _, Utc};
use leptos::prelude::*;
use reservations_console::api::client::Connection;
use reservations_console::api::models::{NodesResponse, Reservation, ReservationDetail};
use reservations_console::reads::nodes::NodesStore;
use reservations_console::reads::reservations::ReservationsStore;
use reservations_console::router::Router;
use reservations_console::state::{Clock, ConnectionState, Role, TimeZone, TimeZoneChoice};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// "Today" in every page test: a month into seed 004's term.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 2, 9, 30, 0).unwrap()
}

/// Seed 004's list item, with overrides merged in.
pub fn reservation(overrides: serde_json::Value) -> Reservation {
    serde_json::from_value(merge(list_item_json(), overrides)).unwrap()
}

/// The list item: the detail without what only the detail carries.
fn list_item_json() -> serde_json::Value {
    let mut json = owner_json();
    let fields = json.as_object_mut().unwrap();
    for detail_only in ["storage", "amendments", "payment"] {
        fields.remove(detail_only);
    }
    json
}

/// Seed 004's detail as the owner reads it, with overrides merged in.
pub fn owner_detail(overrides: serde_json::Value) -> ReservationDetail {
    serde_json::from_value(merge(owner_json(), overrides)).unwrap()
}

/// The same detail as a member reads it: no payment, amendments without rates.
pub fn member_detail() -> ReservationDetail {
    let mut json = owner_json();
    json.as_object_mut().unwrap().remove("payment");
    for a in json["amendments"].as_array_mut().unwrap() {
        let a = a.as_object_mut().unwrap();
        a.remove("rate_usd_per_gpu_hour_before");
        a.remove("rate_usd_per_gpu_hour_after");
    }
    serde_json::from_value(json).unwrap()
}

/// Seed 004's detail (the file the native decoding tests read too): the list item plus
/// storage, one future amendment and the payment schedule.
fn owner_json() -> serde_json::Value {
    serde_json::from_str(include_str!("../../fixtures/seed_004_detail.json")).unwrap()
}

/// Seed 004's period 1, December 2026: 31 days × 24 h × 32 GPUs × $1.25 = $29,760.
pub fn december_charge(status: &str) -> serde_json::Value {
    let mut charge = owner_json()["payment"]["next_charge"].take();
    charge["status"] = status.into();
    charge
}

/// Seed 004's nodes example: node-1 runs a cluster (4 GPUs) and a notebook (2); node-2 is
/// under maintenance.
pub fn seed_nodes() -> NodesResponse {
    serde_json::from_str(include_str!("../../fixtures/seed_004_nodes.json")).unwrap()
}

/// Objects merge key by key (recursively); anything else replaces.
fn merge(mut base: serde_json::Value, overrides: serde_json::Value) -> serde_json::Value {
    match (base.as_object_mut(), overrides) {
        (Some(base_map), serde_json::Value::Object(over)) => {
            for (k, v) in over {
                let merged = merge(base_map.remove(&k).unwrap_or(serde_json::Value::Null), v);
                base_map.insert(k, merged);
            }
            base
        }
        (_, over) => over,
    }
}

/// The contexts a page reads, connected with a test key of `role`, times in UTC, the
/// clock fixed at [`now`].
pub fn provide_console(role: Role) -> ConnectionState {
    let state = ConnectionState::new();
    state.connect(Connection::new("/api", "eco_test_key"), false, role);
    provide_context(state);
    provide_context(NodesStore::new());
    provide_context(ReservationsStore::new());
    provide_zone(TimeZone::Utc);
    provide_context(Clock::fixed(now()));
    state
}

/// Times shown in `zone` from now on (after [`provide_console`]); the switch, to flip it.
pub fn provide_zone(zone: TimeZone) -> TimeZoneChoice {
    let choice = TimeZoneChoice(RwSignal::new(zone));
    provide_context(choice);
    choice
}

/// A fresh element of the test page, with the page's address at `path` (what the router
/// reads) until dropped: then the element leaves and the runner's own address comes back.
/// Drop what is mounted in it first, so that its listeners leave with it.
pub struct HostAt {
    pub host: web_sys::HtmlElement,
    before: String,
}

impl HostAt {
    pub fn new(path: &str) -> Self {
        let window = web_sys::window().unwrap();
        let before = window.location().href().unwrap();
        window.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(path)).unwrap();
        let document = window.document().unwrap();
        let host: web_sys::HtmlElement = document.create_element("div").unwrap().unchecked_into();
        document.body().unwrap().append_child(&host).unwrap();
        HostAt { host, before }
    }
}

impl Drop for HostAt {
    fn drop(&mut self) {
        self.host.remove();
        let history = web_sys::window().unwrap().history().unwrap();
        history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&self.before)).unwrap();
    }
}

/// A stylesheet of `css` put in the test page's head: the layout a test draws in (remove it
/// at the end).
pub fn page_style(css: &str) -> web_sys::Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let style = document.create_element("style").unwrap();
    style.set_text_content(Some(css));
    document.head().unwrap().append_child(&style).unwrap();
    style
}

/// Mounts `view` in a fresh element of the test page and returns that element.
pub fn mount<F, N>(view: F) -> web_sys::HtmlElement
where
    F: FnOnce() -> N + 'static,
    N: IntoView,
{
    let document = web_sys::window().unwrap().document().unwrap();
    let host: web_sys::HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    leptos::mount::mount_to(host.clone(), view).forget();
    host
}

/// Mounts like [`mount`] and hands back what `view` made inside the page's reactive owner
/// (a model or a switch the test then drives).
pub fn mount_with<T, F, N>(view: F) -> (web_sys::HtmlElement, T)
where
    T: Copy + 'static,
    F: FnOnce() -> (T, N) + 'static,
    N: IntoView,
{
    let made = Rc::new(Cell::new(None));
    let out = Rc::clone(&made);
    let host = mount(move || {
        let (handle, view) = view();
        out.set(Some(handle));
        view
    });
    (host, made.get().expect("mounted at once"))
}

/// The text of the first element matching `selector` in `host`.
pub fn first_text(host: &web_sys::HtmlElement, selector: &str) -> String {
    let found = host.query_selector(selector).unwrap();
    found.unwrap_or_else(|| panic!("nothing matches {selector}")).text_content().unwrap_or_default()
}

/// What a person reads in `host`, whitespace collapsed.
pub fn text(host: &web_sys::HtmlElement) -> String {
    host.text_content().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Resolves after `ms` milliseconds of browser time: the console's own timer
/// (`browser::sleep`), in the unit the tests count in.
pub async fn sleep(ms: u64) {
    reservations_console::browser::sleep(std::time::Duration::from_millis(ms)).await;
}

/// Waits (up to 5 s) for `now()` to be `wanted`, then asserts it: for what comes after a
/// task of the browser's own (a history move) or a request's turn in the key's rate share.
pub async fn until<T: PartialEq + std::fmt::Debug>(wanted: T, now: impl Fn() -> T) {
    for _ in 0..250 {
        if now() == wanted {
            return;
        }
        sleep(20).await;
    }
    assert_eq!(now(), wanted);
}

/// Lets effects and spawned futures run.
pub async fn settle() {
    for _ in 0..4 {
        leptos::task::tick().await;
    }
}

/// [`settle`], the grid's own wait for the browser to be idle after the next frame, and
/// [`settle`] again: the node grid reads its layout again at the next frame and draws the
/// rest of its first window once idle after it (`components::gpu_grid`), asked before this
/// wait and so run before it ends; the cards are final once that settled.
pub async fn settle_drawn() {
    settle().await;
    let drawn = js_sys::Promise::new(&mut |resolve, _| {
        reservations_console::browser::when_idle_after_frame(move || drop(resolve.call0(&wasm_bindgen::JsValue::NULL)));
    });
    wasm_bindgen_futures::JsFuture::from(drawn).await.unwrap();
    settle().await;
}

/// Runs `code` as a function's body in the page.
pub fn js(code: &str) -> wasm_bindgen::JsValue {
    js_sys::Function::new_no_args(code).call0(&wasm_bindgen::JsValue::NULL).unwrap()
}

/// Mounts `page` inside the router at `address`, for a member; the runner's own address is
/// put back after.
pub async fn at_address(address: &str, page: fn() -> AnyView) -> web_sys::HtmlElement {
    let history = web_sys::window().unwrap().history().unwrap();
    let before = web_sys::window().unwrap().location().href().unwrap();
    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(address)).unwrap();
    let host = mount(move || {
        provide_console(Role::Member);
        view! { <Router>{page()}</Router> }
    });
    settle().await;
    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&before)).unwrap();
    host
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The browser's MutationObserver, bound here (web-sys's needs a feature the crate
    /// does not enable). Its callback runs at the end of the task whose changes it reports.
    pub type MutationObserver;
    #[wasm_bindgen(constructor)]
    pub fn new(callback: &js_sys::Function) -> MutationObserver;
    #[wasm_bindgen(method)]
    pub fn observe(this: &MutationObserver, target: &web_sys::Node, options: &wasm_bindgen::JsValue);
    #[wasm_bindgen(method, js_name = takeRecords)]
    pub fn take_records(this: &MutationObserver) -> js_sys::Array;
    #[wasm_bindgen(method)]
    pub fn disconnect(this: &MutationObserver);
}

/// One answer of [`FakeApi`]: a status, a JSON body and headers.
pub struct Answer {
    pub status: u16,
    pub body: serde_json::Value,
    pub headers: Vec<(&'static str, String)>,
}

impl Answer {
    pub fn ok(body: serde_json::Value) -> Self {
        Answer { status: 200, body, headers: Vec::new() }
    }

    /// An API error: `{"error": code, "message": …}` with a request id.
    pub fn error(status: u16, code: &str, request_id: &str) -> Self {
        let body = serde_json::json!({ "error": code, "message": format!("test {code}") });
        Answer { status, body, headers: vec![("x-ecolink-request-id", request_id.to_owned())] }
    }

    pub fn with_header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }
}

/// `fetch` replaced for as long as this lives: each request is recorded (path and query,
/// with when it was sent and answered, in ms) and answered by the route whose path is the
/// request's path exactly, with its answers in turn (the last one again once they are
/// used up); a request no route names is never answered. `fetch` is put back when dropped.
pub struct FakeApi;

impl FakeApi {
    pub fn new(routes: Vec<(&str, Vec<Answer>)>) -> FakeApi {
        js("window.__log = []; window.__routes = new Map(); \
            window.__realFetch = window.__realFetch || window.fetch; \
            window.fetch = (url) => { const u = new URL(url.url || url, location.href); \
              const entry = { path: u.pathname + u.search, sent: performance.now(), answered: null }; \
              window.__log.push(entry); \
              const answers = window.__routes.get(u.pathname); \
              if (!answers) { return new Promise(() => {}); } \
              const [status, body, headers] = answers.length > 1 ? answers.shift() : answers[0]; \
              entry.answered = performance.now(); \
              return Promise.resolve(new Response(JSON.stringify(body), \
                { status, headers: { ...headers, 'content-type': 'application/json' } })); };");
        let api = FakeApi;
        for (path, answers) in routes {
            api.answer(path, answers);
        }
        api
    }

    /// From now on `path` is answered with `answers` in turn, in place of what it had.
    pub fn answer(&self, path: &str, answers: Vec<Answer>) {
        let answers: Vec<serde_json::Value> = answers
            .into_iter()
            .map(|a| {
                let headers: serde_json::Map<String, serde_json::Value> =
                    a.headers.into_iter().map(|(k, v)| (k.to_owned(), v.into())).collect();
                serde_json::json!([a.status, a.body, headers])
            })
            .collect();
        js(&format!("window.__routes.set({path:?}, {});", serde_json::Value::Array(answers)));
    }

    /// The requests so far: path and query, when sent (ms, `performance.now()`).
    pub fn sent(&self) -> Vec<(String, f64)> {
        let log = js("return window.__log.map((e) => [e.path, e.sent]);");
        js_sys::Array::from(&log)
            .iter()
            .map(|pair| {
                let pair = js_sys::Array::from(&pair);
                (pair.get(0).as_string().unwrap(), pair.get(1).as_f64().unwrap())
            })
            .collect()
    }

    /// The paths of [`Self::sent`].
    pub fn paths(&self) -> Vec<String> {
        self.sent().into_iter().map(|(path, _)| path).collect()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        js("window.fetch = window.__realFetch;");
    }
}
