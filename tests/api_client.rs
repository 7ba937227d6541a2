//! The typed client in a real browser against the simulator: list, detail as owner and as
//! member, nodes, launch errors, and the simulator's faults (slow, HTML 502, truncated 200,
//! 503 with retry-after), through `fetch`, the AbortController timer and the browser's
//! `Headers`.
//!
//! The simulator's API base URL is fixed at build time: `SIM_BASE_URL=http://127.0.0.1:8080/api`.
//! The test page is served by wasm-bindgen-test-runner on another origin, so the simulator
//! must answer CORS for this run (allowing the `authorization` and `content-type` request
//! headers and exposing `x-ecolink-request-id`, `retry-after` and `x-ratelimit-*`), hooks
//! under `/__sim` included (`reservations-sim --cors-for-tests`). The timeout test waits the
//! client's whole timeout. `cargo xtask test` starts that simulator and sets `SIM_BASE_URL`;
//! built without it, every test here fails and says so — a skipped test proves nothing.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::Owner;
use reservations_console::api::assumptions::REQUEST_TIMEOUT;
use reservations_console::api::client::{self, Connection};
use reservations_console::api::enums::ReservationStatus;
use reservations_console::api::error::{ApiError, ErrorKind};
use reservations_console::api::models::{LaunchRequest, Reservation};
use reservations_console::domain::explain::{explain, ErrorContext};
use reservations_console::state::{ConnectionState, Lifetime, Role};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const OWNER: &str = "eco_demo_owner";
const MEMBER: &str = "eco_demo_member";

/// A connection to the simulator with `key`.
fn simulator(key: &str) -> Connection {
    match option_env!("SIM_BASE_URL") {
        Some(base) => Connection::new(base, key),
        None => panic!(
            "SIM_BASE_URL was not set when these tests were built: run them with `cargo xtask test`, \
             or start `reservations-sim --cors-for-tests` and build with SIM_BASE_URL=http://127.0.0.1:PORT/api"
        ),
    }
}

/// The first active reservation of the demo account, read through the client.
async fn active_reservation(conn: &Connection) -> Reservation {
    let list = client::list_reservations(conn).await.expect("the list");
    list.into_iter().find(|r| r.status == ReservationStatus::Active).expect("an active reservation in the demo data")
}

/// The two reads the fault tests break.
#[derive(Clone, Copy)]
enum Read {
    Detail,
    Nodes,
}

/// Arms one simulator fault (`{"kind":…}` of `/api/__sim/faults`) for the next `read` of an
/// active reservation, makes that read and returns its error.
async fn read_with_fault(conn: &Connection, fault: serde_json::Value, read: Read) -> ApiError {
    let r = active_reservation(conn).await;
    let path = match read {
        Read::Detail => format!("/api/gpu-reservations/{}", r.id),
        Read::Nodes => format!("/api/gpu-reservations/{}/nodes", r.id),
    };
    arm(conn, fault, &path).await;
    let result = match read {
        Read::Detail => client::reservation(conn, r.id).await.map(drop),
        Read::Nodes => client::nodes(conn, r.id, None).await.map(drop),
    };
    result.expect_err("the armed fault")
}

/// Arms `fault` for the next request whose path starts with `path`.
async fn arm(conn: &Connection, mut fault: serde_json::Value, path: &str) {
    fault["path_prefix"] = path.into();
    fault["count"] = 1.into();
    let hook = format!("{}/__sim/faults", conn.base_url());
    // The header the simulator's hooks require (`reservations_sim::HOOK_HEADER`).
    let armed = gloo_net::http::Request::post(&hook)
        .header("x-sim-hook", "1")
        .json(&fault)
        .unwrap()
        .send()
        .await
        .expect("the fault hook");
    assert!(armed.ok(), "fault hook answered {}", armed.status());
}

/// A launch of one GPU on `r`, named for this test.
fn launch_on(r: &Reservation) -> LaunchRequest {
    LaunchRequest {
        region_id: r.region_id.clone(),
        gpu_type: r.gpu_type.clone(),
        gpus: 1,
        name: "api-client-test".into(),
        interruptible: None,
    }
}

#[wasm_bindgen_test]
async fn lists_reservations_newest_first() {
    let conn = simulator(OWNER);
    let list = client::list_reservations(&conn).await.expect("the list");
    assert!(!list.is_empty());
    let ids: Vec<i64> = list.iter().map(|r| r.id).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest (highest id) first: {ids:?}");
    assert!(list.iter().all(|r| r.status.is_known()), "the demo data uses documented statuses");
}

#[wasm_bindgen_test]
async fn checking_the_key_learns_the_simulator_and_the_requests_left() {
    let checked = client::check_key(&simulator(OWNER)).await.expect("the key checks");
    assert!(!checked.reservations.is_empty());
    assert!(checked.simulator, "the simulator marks its answers");
    let rate = checked.rate_limit.expect("x-ratelimit-* headers, exposed to the page");
    let (limit, left) = (rate.limit.expect("x-ratelimit-limit"), rate.remaining.expect("x-ratelimit-remaining"));
    assert!(left < limit, "this read counted: {left} of {limit}");
}

#[wasm_bindgen_test]
async fn the_owner_sees_the_payment_schedule() {
    let conn = simulator(OWNER);
    let r = active_reservation(&conn).await;
    let detail = client::reservation(&conn, r.id).await.expect("the detail");
    assert_eq!(detail.reservation.id, r.id);
    let payment = detail.payment.expect("payment for the owner");
    assert!(!payment.charges.is_empty());
}

#[wasm_bindgen_test]
async fn a_member_gets_no_payment_and_no_rates() {
    let conn = simulator(MEMBER);
    let r = active_reservation(&conn).await;
    let detail = client::reservation(&conn, r.id).await.expect("the detail");
    assert!(detail.payment.is_none());
    assert!(detail
        .amendments
        .iter()
        .all(|a| a.rate_usd_per_gpu_hour_before.is_none() && a.rate_usd_per_gpu_hour_after.is_none()));
}

#[wasm_bindgen_test]
async fn nodes_of_an_active_reservation() {
    let conn = simulator(OWNER);
    let r = active_reservation(&conn).await;
    let (nodes, _) = client::nodes(&conn, r.id, None).await.expect("the nodes");
    assert_eq!(nodes.nodes.len() as i64, r.node_count);
    assert_eq!(nodes.nodes.iter().map(|n| n.gpus).sum::<i64>(), r.reserved_gpus);
}

#[wasm_bindgen_test]
async fn an_interruptible_launch_is_the_code_less_409() {
    let conn = simulator(OWNER);
    let r = active_reservation(&conn).await;
    let request = LaunchRequest { interruptible: Some(true), ..launch_on(&r) };
    let err = client::launch(&conn, &request).await.expect_err("interruptible is refused");
    assert_eq!((err.kind, err.status, err.code.as_deref()), (ErrorKind::Http, Some(409), None));
    assert!(err.request_id.is_some(), "x-ecolink-request-id is exposed to the console");
    assert_eq!(explain(&err, &ErrorContext::default()).title, "Reserved capacity is never interruptible");
}

#[wasm_bindgen_test]
async fn a_launch_outside_the_reservation_is_reservation_only() {
    let conn = simulator(OWNER);
    let r = active_reservation(&conn).await;
    let request = LaunchRequest { region_id: "nowhere".into(), ..launch_on(&r) };
    let err = client::launch(&conn, &request).await.expect_err("outside the reservation");
    assert_eq!((err.status, err.code.as_deref()), (Some(403), Some("reservation_only")));
    let context = ErrorContext::of(&r);
    assert!(explain(&err, &context).explanation.contains(&r.region_id));
}

#[wasm_bindgen_test]
async fn a_wrong_key_is_unauthorized_and_never_shown() {
    let key = "eco_not_a_real_key_1234";
    let conn = simulator(key);
    let err = client::list_reservations(&conn).await.expect_err("a wrong key");
    assert!(err.is_unauthorized());
    assert!(!format!("{err:?} {err}").contains(key));
}

#[wasm_bindgen_test]
async fn an_unreachable_api_is_a_network_error() {
    // Port 9 (discard) on loopback refuses connections; no simulator is needed for this one.
    let err = client::list_reservations(&Connection::new("http://127.0.0.1:9/api", OWNER)).await.expect_err("refused");
    assert_eq!(err.kind, ErrorKind::Network);
    assert_eq!(explain(&err, &ErrorContext::default()).title, "Could not reach the API");
}

#[wasm_bindgen_test]
async fn a_slow_answer_is_aborted_as_a_timeout() {
    let conn = simulator(OWNER);
    let delay_ms = REQUEST_TIMEOUT.as_millis() as u64 + 1_000;
    let err = read_with_fault(&conn, serde_json::json!({ "kind": "slow", "delay_ms": delay_ms }), Read::Nodes).await;
    assert_eq!((err.kind, err.status), (ErrorKind::Timeout, None));
    assert_eq!(explain(&err, &ErrorContext::default()).title, "The API did not answer in time");
}

/// An abort does not undo a launch, so a launch is not given up when a read would be: one
/// answered after a read's whole timeout is still answered.
#[wasm_bindgen_test]
async fn a_launch_answered_after_a_reads_timeout_is_still_answered() {
    let conn = simulator(OWNER);
    let r = active_reservation(&conn).await;
    let delay_ms = REQUEST_TIMEOUT.as_millis() as u64 + 1_000;
    arm(&conn, serde_json::json!({ "kind": "slow", "delay_ms": delay_ms }), "/api/gpu-instances").await;
    let request = LaunchRequest { name: "api-client-slow".into(), ..launch_on(&r) };
    let launched = client::launch(&conn, &request).await.expect("answered, not aborted as a read would be");
    assert_eq!(launched.name, "api-client-slow");
}

#[wasm_bindgen_test]
async fn an_endless_answer_is_given_up_at_the_size_limit_not_read_until_the_timeout() {
    let conn = simulator(OWNER);
    let err = read_with_fault(&conn, serde_json::json!({ "kind": "endless_body" }), Read::Nodes).await;
    assert_eq!((err.kind, err.status), (ErrorKind::Decode, Some(200)), "{err:?}");
    assert!(err.to_string().contains("goes on past the 32 MiB the console reads"), "{err}");
}

#[wasm_bindgen_test]
async fn a_proxy_html_502_is_described_not_shown() {
    let conn = simulator(OWNER);
    let err = read_with_fault(&conn, serde_json::json!({ "kind": "502_html" }), Read::Detail).await;
    assert_eq!((err.kind, err.status), (ErrorKind::Http, Some(502)));
    let message = err.message.unwrap_or_default();
    assert!(message.contains("web page instead of JSON") && !message.contains('<'), "{message}");
}

#[wasm_bindgen_test]
async fn a_truncated_200_is_a_decode_error_with_the_request_id() {
    let conn = simulator(OWNER);
    let err = read_with_fault(&conn, serde_json::json!({ "kind": "truncated" }), Read::Detail).await;
    assert_eq!((err.kind, err.status), (ErrorKind::Decode, Some(200)));
    assert!(err.request_id.is_some());
    assert!(err.message.unwrap_or_default().contains("was cut off"));
}

#[wasm_bindgen_test]
async fn a_503_carries_its_retry_after() {
    let conn = simulator(OWNER);
    let err = read_with_fault(&conn, serde_json::json!({ "kind": "503" }), Read::Nodes).await;
    assert_eq!(err.status, Some(503));
    assert_eq!(err.retry_after(), Some(std::time::Duration::from_secs(2)));
    assert_eq!(explain(&err, &ErrorContext::default()).remedy, "Wait 2 s, then try again.");
}

/// A read of an active reservation's nodes that the simulator holds for 8 s, sent through a
/// connected console's request door for `lifetime`; `leave` runs 200 ms later. Answers the
/// read's result and how long it took.
async fn slow_read_then(
    lifetime: Lifetime,
    leave: impl FnOnce(ConnectionState) + 'static,
) -> (Result<(), ApiError>, f64) {
    let conn = simulator(OWNER);
    let r = active_reservation(&conn).await;
    arm(
        &conn,
        serde_json::json!({ "kind": "slow", "delay_ms": 8_000 }),
        &format!("/api/gpu-reservations/{}/nodes", r.id),
    )
    .await;
    let owner = Owner::new();
    let state = owner.with(ConnectionState::new);
    state.connect(conn, false, Role::Owner);
    let started = js_sys::Date::now();
    let read = state.send_for(lifetime, move |c| async move { client::nodes(&c, r.id, None).await.map(drop) });
    leptos::prelude::set_timeout(move || leave(state), std::time::Duration::from_millis(200));
    let result = read.await;
    (result, (js_sys::Date::now() - started) / 1000.0)
}

#[wasm_bindgen_test]
async fn disconnecting_aborts_the_requests_of_the_session_at_once() {
    let (result, took) = slow_read_then(Lifetime::Page, |state| state.disconnect()).await;
    let err = result.expect_err("aborted");
    assert_eq!(err, ApiError::cancelled());
    assert!(took < 4.0, "aborted at the disconnect, not answered after the server's 8 s: {took:.1} s");
}

#[wasm_bindgen_test]
async fn leaving_the_page_aborts_its_requests_and_a_filter_in_the_query_does_not() {
    let page = web_sys::window().unwrap().location().pathname().unwrap();
    let (result, took) = slow_read_then(Lifetime::Page, move |state| {
        // The same page, its query changed by a filter: the read goes on.
        state.arrive_at(&page);
        leptos::prelude::set_timeout(
            move || state.arrive_at("/somewhere-else"),
            std::time::Duration::from_millis(1_500),
        );
    })
    .await;
    assert_eq!(result.expect_err("aborted"), ApiError::cancelled());
    assert!(
        (1.6..4.0).contains(&took),
        "aborted on leaving the page 1.7 s in, not before nor at the answer: {took:.1} s"
    );
}

#[wasm_bindgen_test]
async fn a_read_for_the_session_outlives_its_page_and_ends_with_the_session() {
    let (result, took) = slow_read_then(Lifetime::Session, |state| {
        state.arrive_at("/somewhere-else");
        leptos::prelude::set_timeout(move || state.disconnect(), std::time::Duration::from_millis(1_500));
    })
    .await;
    assert_eq!(result.expect_err("aborted"), ApiError::cancelled());
    assert!((1.6..4.0).contains(&took), "aborted at the disconnect 1.7 s in, not on leaving the page: {took:.1} s");
}

/// Stands in for what `index.html`'s inline script leaves on `window`: a read of
/// `http://ahead.invalid/api/gpu-reservations/12/nodes` with the key `k`, answered with one
/// node, `node-sent-ahead`. Records every URL it is asked for.
fn send_ahead() {
    const SCRIPT: &str = r#"
        window.asked = [];
        window.__takeFirstRead = (url, authorization, signal) => {
            window.asked.push(url);
            if (url !== "http://ahead.invalid/api/gpu-reservations/12/nodes" || authorization !== "Bearer k"
                || !(signal instanceof AbortSignal)) return null;
            delete window.__takeFirstRead;
            const node = { display_name: "node-sent-ahead", state: "ready", gpus: 8, gpus_in_use: 0, workloads: [] };
            return Promise.resolve(new Response(JSON.stringify({ nodes: [node], workloads_unknown: false }),
                { status: 200, headers: { "content-type": "application/json" } }));
        };"#;
    js_sys::Function::new_no_args(SCRIPT).call0(&wasm_bindgen::JsValue::NULL).expect("the stand-in is set");
}

/// The URLs the stand-in was asked for.
fn asked() -> Vec<String> {
    let asked = js_sys::Reflect::get(&web_sys::window().unwrap(), &"asked".into()).unwrap();
    js_sys::Array::from(&asked).iter().filter_map(|v| v.as_string()).collect()
}

#[wasm_bindgen_test]
async fn a_read_sent_ahead_by_the_page_is_taken_by_the_same_url_and_key_once() {
    send_ahead();
    let other_key = Connection::new("http://ahead.invalid/api", "other");
    let error = client::nodes(&other_key, 12, None)
        .await
        .expect_err("another key's read is its own, and the host does not exist");
    assert_eq!(error.kind, ErrorKind::Network, "{error:?}");

    let conn = Connection::new("http://ahead.invalid/api", "k");
    let error = client::reservation(&conn, 12).await.expect_err("another URL's read is its own");
    assert_eq!(error.kind, ErrorKind::Network, "{error:?}");

    let (nodes, _) = client::nodes(&conn, 12, None).await.expect("the answer sent ahead");
    let names: Vec<_> = nodes.nodes.iter().map(|n| n.display_name.as_str()).collect();
    assert_eq!(names, ["node-sent-ahead"]);

    let error = client::nodes(&conn, 12, None)
        .await
        .expect_err("taken once: the next read is sent, to a host that does not exist");
    assert_eq!(error.kind, ErrorKind::Network, "{error:?}");
    assert_eq!(
        asked(),
        [
            "http://ahead.invalid/api/gpu-reservations/12/nodes",
            "http://ahead.invalid/api/gpu-reservations/12",
            "http://ahead.invalid/api/gpu-reservations/12/nodes",
        ],
        "every GET asks until one takes it, then none does"
    );
}
