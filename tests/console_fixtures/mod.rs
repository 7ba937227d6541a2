//! Fixtures and a mount helper shared by the page tests of UI helper A: small JSON
//! documents shaped like seed 004's examples, and a host element per test.
#![allow(dead_code)] // each test binary uses a different subset

use chrono::{DateTime, TimeZone as _, Utc};
use leptos::prelude::*;
use reservations_console::api::client::Connection;
use reservations_console::api::models::{NodesResponse, Reservation, ReservationDetail};
use reservations_console::reads::fleet::FleetStore;
use reservations_console::reads::nodes::{use_nodes, NodesStore};
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

/// The overview's stores for a session of `role`, watching what is read, as the app has them.
pub fn provide_fleet(role: Role) -> (FleetStore, NodesStore, u64) {
    let state = provide_console(role);
    let store = FleetStore::new();
    provide_context(store);
    let session = state.session_id_untracked().unwrap();
    store.begin(session);
    store.watch();
    let nodes = use_nodes();
    nodes.begin_current();
    (store, nodes, session)
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

/// Types `value` into the input of `host` matching `selector`, as a person does (its
/// `input` event fired, which `bind:value` follows).
pub fn type_into(host: &web_sys::HtmlElement, selector: &str, value: &str) {
    let input: web_sys::HtmlInputElement = host.query_selector(selector).unwrap().expect(selector).unchecked_into();
    input.set_value(value);
    input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
}

/// The button of `host` whose text is `label`.
pub fn button(host: &web_sys::HtmlElement, label: &str) -> Option<web_sys::HtmlElement> {
    use wasm_bindgen::JsCast as _;
    let found = host.query_selector_all("button").unwrap();
    (0..found.length())
        .map(|i| found.item(i).unwrap().unchecked_into::<web_sys::HtmlElement>())
        .find(|b| b.text_content().unwrap_or_default().trim() == label)
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
/// with when it was sent and answered, in ms, and its `Authorization`) and answered by the route whose path is the
/// request's path exactly, with its answers in turn (the last one again once they are
/// used up); a request no route names is never answered (aborting it rejects it, as the
/// browser's `fetch` does). `fetch` is put back when dropped.
pub struct FakeApi;

impl FakeApi {
    pub fn new(routes: Vec<(&str, Vec<Answer>)>) -> FakeApi {
        js("window.__log = []; window.__routes = new Map(); \
            window.__realFetch = window.__realFetch || window.fetch; \
            window.fetch = (url) => { const u = new URL(url.url || url, location.href); \
              const entry = { path: u.pathname + u.search, sent: performance.now(), answered: null, \
                authorization: (url.headers && url.headers.get('authorization')) || '' }; \
              window.__log.push(entry); \
              const answers = window.__routes.get(u.pathname); \
              if (!answers) { return new Promise((_, reject) => url.signal && url.signal.addEventListener('abort', \
                () => reject(new DOMException('aborted', 'AbortError')))); } \
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

    /// The `Authorization` each request was sent with (empty: none), in the order sent.
    pub fn authorizations(&self) -> Vec<String> {
        let log = js("return window.__log.map((e) => e.authorization);");
        js_sys::Array::from(&log).iter().map(|a| a.as_string().unwrap()).collect()
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

/// `navigator.clipboard` replaced, until dropped, by one that keeps each text written, or
/// refuses every write with `refusal` (a `NotAllowedError`, as a browser denying it does).
pub struct FakeClipboard;

impl FakeClipboard {
    pub fn accepting() -> Self {
        Self::install("null")
    }

    pub fn refusing(refusal: &str) -> Self {
        Self::install(&serde_json::to_string(refusal).unwrap())
    }

    fn install(refusal: &str) -> Self {
        js(&format!(
            "window.__copied = []; const refusal = {refusal}; \
             Object.defineProperty(navigator, 'clipboard', {{ configurable: true, value: {{ writeText: (text) => \
               refusal === null ? (window.__copied.push(text), Promise.resolve()) \
               : Promise.reject(new DOMException(refusal, 'NotAllowedError')) }} }});"
        ));
        FakeClipboard
    }

    /// Each text written, in order.
    pub fn copied(&self) -> Vec<String> {
        js_sys::Array::from(&js("return window.__copied;")).iter().map(|t| t.as_string().unwrap()).collect()
    }
}

impl Drop for FakeClipboard {
    fn drop(&mut self) {
        js("delete navigator.clipboard; delete window.__copied;");
    }
}

/// Clicks "Copy summary" in `scope` (a selector), with "as plain text" and "include amounts"
/// ticked as asked (the latter only where offered), and returns the text written to `clipboard`.
pub async fn copy_summary(
    host: &web_sys::HtmlElement,
    scope: &str,
    clipboard: &FakeClipboard,
    plain: bool,
    amounts: bool,
) -> String {
    let within = host.query_selector(&format!("{scope} .copy-summary")).unwrap().expect("a Copy summary button");
    let labels = within.query_selector_all("label.copy-choice").unwrap();
    for i in 0..labels.length() {
        let label = labels.item(i).unwrap().unchecked_into::<web_sys::HtmlElement>();
        let wanted = match label.text_content().unwrap().trim() {
            "as plain text" => plain,
            "include amounts" => amounts,
            other => panic!("an unexpected choice: {other}"),
        };
        let input = label.query_selector("input").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>();
        if js_sys::Reflect::get(&input, &"checked".into()).unwrap().as_bool() != Some(wanted) {
            input.click();
        }
    }
    within.query_selector("button").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
    settle().await;
    clipboard.copied().pop().expect("a text written to the clipboard")
}

/// The tables of a Markdown text, each as its rows of cells (head first, the `---` line left
/// out), Markdown's backslash escapes undone.
pub fn markdown_tables(text: &str) -> Vec<Vec<Vec<String>>> {
    let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
    let mut within = false;
    for line in text.lines() {
        let Some(inner) = line.strip_prefix("| ").and_then(|l| l.strip_suffix(" |")) else {
            within = false;
            continue;
        };
        if !within {
            tables.push(Vec::new());
            within = true;
        }
        let (mut cells, mut cell, mut escaped) = (Vec::new(), String::new(), false);
        for c in inner.chars() {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '|') => cells.push(std::mem::take(&mut cell).trim().to_owned()),
                _ => {
                    cell.push(c);
                    escaped = false;
                }
            }
        }
        cells.push(cell.trim().to_owned());
        if cells.iter().all(|c| c == "---") {
            continue;
        }
        tables.last_mut().unwrap().push(cells);
    }
    tables
}

/// The figures of `text` in order ("$29,760.00", "16", "2026"), as a reader would parse them.
pub fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || (!current.is_empty() && (c == ',' || c == '.')) {
            current.push(c);
        } else if !current.is_empty() {
            out.push(current.trim_end_matches([',', '.']).to_owned());
            current.clear();
        }
    }
    out
}

/// The text of each `th`/`td` of each row `selector` finds in `host`.
pub fn table_rows(host: &web_sys::Element, selector: &str) -> Vec<Vec<String>> {
    let found = host.query_selector_all(selector).unwrap();
    (0..found.length())
        .map(|i| {
            let row = found.item(i).unwrap().unchecked_into::<web_sys::Element>();
            let cells = row.query_selector_all("th, td").unwrap();
            (0..cells.length()).map(|j| cells.item(j).unwrap().text_content().unwrap().trim().to_owned()).collect()
        })
        .collect()
}
