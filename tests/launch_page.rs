//! The launch form as a person uses it, on fixture data: the answer it predicts before
//! sending, one request per submit, what a launch answers, no form on a reservation closed
//! to launches, and a launch left without an answer looked for on the nodes.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{mount, now, provide_console, reservation, seed_nodes, settle, text, FakeApi};
use leptos::prelude::*;
use reservations_console::api::error::{ApiError, ResponseHeaders};
use reservations_console::api::models::{LaunchRequest, LaunchedInstance, NodesResponse};
use reservations_console::pages::launch::{FreeNow, LaunchForm, LaunchPage};
use reservations_console::reads::nodes::use_nodes;
use reservations_console::router::Router;
use reservations_console::state::Role;
use serde_json::json;
use std::sync::{Arc, Mutex};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Two ready nodes with 2 and 3 GPUs free: 5 free in all, at most 3 on one node.
fn scattered() -> NodesResponse {
    serde_json::from_value(json!({ "nodes": [
        { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 6, "workloads": [
            { "kind": "gpu_cluster", "id": 418, "name": "train-run-7", "gpus": 6 } ] },
        { "display_name": "node-2", "state": "ready", "gpus": 8, "gpus_in_use": 5, "workloads": [
            { "kind": "gpu_instance", "id": 902, "name": "notebook", "gpus": 5 } ] }
    ], "workloads_unknown": false }))
    .unwrap()
}

struct Form {
    host: web_sys::HtmlElement,
    sent: Arc<Mutex<Vec<LaunchRequest>>>,
    nodes: RwSignal<Option<Arc<NodesResponse>>>,
    pending: RwSignal<bool>,
    outcome: RwSignal<Option<Result<LaunchedInstance, ApiError>>>,
    rereads: RwSignal<usize>,
}

/// The form for a reservation with `status`, on [`scattered`] nodes. Submitting records
/// the request and leaves it pending, as a launch in flight is; reading the nodes again
/// is counted.
async fn form(status: &str) -> Form {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let nodes = RwSignal::new(Some(Arc::new(scattered())));
    let pending = RwSignal::new(false);
    let outcome = RwSignal::new(None);
    let rereads = RwSignal::new(0);
    let r = reservation(json!({ "status": status }));
    let host = {
        let sent = Arc::clone(&sent);
        mount(move || {
            provide_console(Role::Member);
            let submit = Callback::new(move |request| {
                pending.set(true);
                sent.lock().unwrap().push(request);
            });
            view! {
                <LaunchForm
                    reservation=r
                    nodes=nodes.into()
                    pending=pending.into()
                    outcome=outcome.into()
                    submit
                    reread=Callback::new(move |()| rereads.update(|n| *n += 1))
                />
            }
        })
    };
    settle().await;
    Form { host, sent, nodes, pending, outcome, rereads }
}

impl Form {
    fn input(&self, name: &str) -> web_sys::HtmlInputElement {
        self.host.query_selector(&format!("input[name={name}]")).unwrap().unwrap().unchecked_into()
    }

    async fn type_into(&self, name: &str, value: &str) {
        let input = self.input(name);
        input.set_value(value);
        input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
        settle().await;
    }

    fn attribute(&self, selector: &str, name: &str) -> Option<String> {
        self.host.query_selector(selector).unwrap().expect(selector).get_attribute(name)
    }

    fn prediction(&self) -> String {
        self.host.query_selector(".prediction").unwrap().unwrap().text_content().unwrap()
    }

    async fn submit(&self) {
        self.host
            .query_selector("button[type=submit]")
            .unwrap()
            .unwrap()
            .unchecked_into::<web_sys::HtmlElement>()
            .click();
        settle().await;
    }
}

#[wasm_bindgen_test]
fn a_node_with_more_gpus_in_use_than_it_has_is_not_offered_and_is_named() {
    let mut nodes = scattered();
    nodes.nodes[1].gpus_in_use = Some(9);
    let host = mount(move || {
        provide_console(Role::Member);
        view! { <FreeNow response=Arc::new(nodes)/> }
    });
    let page = text(&host);
    assert!(!page.contains("-1 free"), "{page}");
    assert!(page.contains("node-12 free of 8"), "{page}");
    assert!(page.contains("Left out: node-2 (more GPUs in use than the node has; counted 0 free)."), "{page}");
}

#[wasm_bindgen_test]
async fn a_launch_that_fits_on_one_node_is_predicted_to_succeed() {
    let f = form("active").await;
    f.type_into("gpus", "3").await;
    assert_eq!(
        f.prediction(),
        "Predicted answer: Expected to succeed: it fits on node-2. Assumed per reservation: the API does not say \
         whether an overdue payment on another reservation of the account also pauses launches here."
    );
}

#[wasm_bindgen_test]
async fn gpus_free_only_across_nodes_predict_gpu_capacity() {
    let f = form("active").await;
    f.type_into("gpus", "4").await;
    let p = f.prediction();
    assert!(p.contains("Expected to fail with HTTP 409 gpu_capacity"), "{p}");
    assert!(
        p.contains(
            "5 GPUs are free in total, but no single node has 4 free together; the largest launch that fits now is 3."
        ),
        "{p}"
    );
}

/// A launch names only a region and a GPU type: sent from a reservation that takes none,
/// it would land on another reservation of the account (and be linked to this one).
#[wasm_bindgen_test]
async fn a_reservation_closed_to_launches_gets_no_form_and_sends_nothing() {
    for status in ["scheduled", "assigning", "awaiting_payment", "past_due", "suspended", "ended"] {
        let f = form(status).await;
        assert!(f.host.query_selector("form").unwrap().is_none(), "{status}: no form");
        assert!(f.host.query_selector("button").unwrap().is_none(), "{status}: nothing to press");
        let page = text(&f.host);
        assert!(page.contains("Launches are closed on this reservation"), "{status}: {page}");
        assert!(page.contains("Nothing is sent from this page"), "{status}: {page}");
        assert!(f.sent.lock().unwrap().is_empty(), "{status}");
    }
}

/// A launch that timed out may have been made: no Retry (a second POST), but the nodes
/// read again, and the new instance found there when it appears.
#[wasm_bindgen_test]
async fn an_unanswered_launch_offers_no_retry_and_is_looked_for_on_the_nodes() {
    let f = form("active").await;
    f.type_into("name", "nb-1").await;
    f.type_into("gpus", "2").await;
    f.submit().await;
    f.pending.set(false);
    f.outcome.set(Some(Err(ApiError::timeout(std::time::Duration::from_secs(30)))));
    settle().await;

    let panel = f.host.query_selector(".launch-panel [role=alert]").unwrap().expect("a panel on the failure");
    let said = panel.text_content().unwrap();
    assert!(said.contains("No answer to the launch: it may have been made"), "{said}");
    assert!(said.contains("No answer within 30 s."), "{said}");
    assert!(said.contains("“nb-1” is not on the nodes as last read."), "{said}");
    let buttons: Vec<String> = (0..panel.query_selector_all("button").unwrap().length())
        .map(|i| panel.query_selector_all("button").unwrap().item(i).unwrap().text_content().unwrap())
        .collect();
    assert_eq!(buttons, ["Read the nodes again"], "no Retry");
    panel.query_selector("button").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
    settle().await;
    assert_eq!(f.rereads.get_untracked(), 1);
    assert_eq!(f.sent.lock().unwrap().len(), 1, "not sent again");

    let mut after = scattered();
    after.nodes[1].workloads.push(
        serde_json::from_value(json!({ "kind": "gpu_instance", "id": 5001, "name": "nb-1", "gpus": 2 })).unwrap(),
    );
    f.nodes.set(Some(Arc::new(after)));
    settle().await;
    let sighting = f.host.query_selector(".launch-sighting").unwrap().unwrap();
    assert_eq!(sighting.text_content().unwrap(), "It was launched: nb-1 (#5001) runs on node-2.");
    assert_eq!(
        sighting.query_selector("a").unwrap().unwrap().get_attribute("href").as_deref(),
        Some("/reservations/12/workloads/gpu_instance/5001")
    );
}

#[wasm_bindgen_test]
async fn asking_for_interruptible_predicts_the_409() {
    let f = form("active").await;
    f.input("interruptible").click();
    settle().await;
    let p = f.prediction();
    assert!(p.contains("Expected to fail with HTTP 409: Reserved capacity is never interruptible"), "{p}");
}

#[wasm_bindgen_test]
async fn region_and_gpu_type_come_from_the_reservation_and_a_second_click_sends_nothing() {
    let f = form("active").await;
    f.type_into("name", "  nb-1 ").await;
    f.type_into("gpus", "2").await;
    f.submit().await;
    f.submit().await;
    let sent = f.sent.lock().unwrap();
    assert_eq!(sent.len(), 1, "one request per launch");
    assert_eq!(
        sent[0],
        LaunchRequest {
            region_id: "atl".into(),
            gpu_type: "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition".into(),
            gpus: 2,
            name: "nb-1".into(),
            interruptible: None,
        }
    );
    let button = f.host.query_selector("button[type=submit]").unwrap().unwrap();
    assert!(button.has_attribute("disabled"));
    assert_eq!(button.text_content().unwrap(), "Launching…");
}

#[wasm_bindgen_test]
async fn an_incomplete_form_says_what_is_missing_and_sends_nothing() {
    let f = form("active").await;
    f.type_into("gpus", "9").await;
    f.submit().await;
    assert!(f.sent.lock().unwrap().is_empty());
    let page = text(&f.host);
    assert!(page.contains("Enter a whole number of GPUs from 1 to 8."), "{page}");
    assert!(page.contains("Give the instance a name."), "{page}");
}

#[wasm_bindgen_test]
async fn each_field_is_labelled_and_a_problem_is_tied_to_its_control() {
    let f = form("active").await;
    for (id, label) in [("launch-gpus", "GPUs"), ("launch-name", "Name")] {
        assert_eq!(
            f.host.query_selector(&format!("label[for={id}]")).unwrap().expect(id).text_content().unwrap(),
            label
        );
    }
    assert_eq!(f.attribute("#launch-gpus", "aria-describedby").as_deref(), Some("launch-gpus-help"));
    assert_eq!(f.attribute("#launch-name", "aria-describedby"), None, "the name has no help");

    f.type_into("gpus", "9").await;
    f.submit().await;
    assert_eq!(f.attribute("#launch-gpus", "aria-invalid").as_deref(), Some("true"));
    assert_eq!(f.attribute("#launch-gpus", "aria-describedby").as_deref(), Some("launch-gpus-error launch-gpus-help"));
    assert_eq!(f.attribute("#launch-name", "aria-invalid").as_deref(), Some("true"));
    assert_eq!(f.attribute("#launch-name", "aria-describedby").as_deref(), Some("launch-name-error"));
    let error = f.host.query_selector("#launch-name-error").unwrap().unwrap();
    assert_eq!(error.text_content().unwrap(), "Give the instance a name.");

    f.type_into("gpus", "2").await;
    assert_eq!(f.attribute("#launch-gpus", "aria-invalid"), None, "fixed, no longer invalid");
    assert_eq!(f.attribute("#launch-gpus", "aria-describedby").as_deref(), Some("launch-gpus-help"));
}

#[wasm_bindgen_test]
async fn the_new_instance_is_billed_by_the_reservation_at_zero_an_hour() {
    let f = form("active").await;
    let instance: LaunchedInstance = serde_json::from_value(
        json!({ "id": 5001, "name": "nb-1", "gpus": 2, "billing": "reserved", "rate_usd_per_hour": 0 }),
    )
    .unwrap();
    f.outcome.set(Some(Ok(instance)));
    settle().await;
    let page = text(&f.host);
    assert!(page.contains("Launched nb-1 (#5001) · 2 GPUs · billed by reservation, $0/h"), "{page}");
    let link = f.host.query_selector(".launched a").unwrap().unwrap();
    assert_eq!(link.get_attribute("href").as_deref(), Some("/reservations/12/workloads/gpu_instance/5001"));
}

#[wasm_bindgen_test]
async fn a_refused_launch_shows_the_mapped_error_with_its_request_id() {
    let f = form("active").await;
    let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req_7f3a")]);
    let error = ApiError::from_response(
        409,
        &headers,
        r#"{"error":"gpu_capacity","message":"no node has 4 free GPUs"}"#,
        now(),
    );
    f.outcome.set(Some(Err(error)));
    settle().await;
    let page = text(&f.host);
    assert!(page.contains("Not enough free GPUs on one node"), "{page}");
    assert!(page.contains("in region atl with NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition GPUs"), "{page}");
    assert!(page.contains("req_7f3a"), "{page}");
    assert!(f.host.query_selector(".error-panel button").unwrap().is_some(), "a Retry is offered");
}

#[wasm_bindgen_test]
async fn a_403_on_a_launch_says_the_key_may_not_change_things() {
    let f = form("active").await;
    f.outcome.set(Some(Err(ApiError::from_response(
        403,
        &ResponseHeaders::default(),
        r#"{"error":"forbidden"}"#,
        now(),
    ))));
    settle().await;
    let title = f.host.query_selector(".error-panel .error-title").unwrap().unwrap().text_content().unwrap();
    assert_eq!(title, "This key may not change things");
    let page = text(&f.host);
    assert!(page.contains("it is not allowed to launch workloads"), "{page}");
    assert!(page.contains("Connect with a key that is allowed to launch workloads"), "{page}");
}

#[wasm_bindgen_test]
async fn a_402_shown_to_a_member_says_the_owner_pays() {
    // The form is mounted with a member's key; an active reservation may still be answered
    // a 402 (an overdue payment elsewhere on the account: `PAYMENT_DUE_SCOPE`).
    let f = form("active").await;
    let body = r#"{"error":"reservation_payment_due","message":"payment overdue"}"#;
    f.outcome.set(Some(Err(ApiError::from_response(402, &ResponseHeaders::default(), body, now()))));
    settle().await;
    let remedy = f.host.query_selector(".error-remedy").unwrap().unwrap().text_content().unwrap();
    assert!(remedy.contains("The account owner settles the overdue payment"), "{remedy}");
    assert!(!remedy.contains("Pay "), "{remedy}");
}

/// The form showing `status` with `headers` and `body`: its error panel and the page's text.
async fn failed_with(status: u16, headers: &[(&str, &str)], body: &str) -> (Form, web_sys::Element, String) {
    let f = form("active").await;
    let headers = ResponseHeaders::from_pairs(headers.iter().copied());
    f.outcome.set(Some(Err(ApiError::from_response(status, &headers, body, now()))));
    settle().await;
    let panel = f.host.query_selector(".error-panel").unwrap().unwrap();
    let page = text(&f.host);
    (f, panel, page)
}

/// A calm notice: a status, not an alert.
fn assert_calm(panel: &web_sys::Element) {
    assert_eq!(panel.get_attribute("role").as_deref(), Some("status"), "not an alert");
    assert!(panel.class_list().contains("notice"));
}

#[wasm_bindgen_test]
async fn a_429_is_a_calm_notice_that_waits_not_an_alert() {
    let (f, panel, page) =
        failed_with(429, &[("retry-after", "7"), ("x-ratelimit-remaining", "0")], r#"{"error":"rate_limit_exceeded"}"#)
            .await;
    assert_calm(&panel);
    assert!(page.contains("Waiting: 7 s left before the next try."), "{page}");
    assert!(page.contains("0 left"), "{page}");
    // A failure that does not end by itself stays an alert.
    f.outcome.set(Some(Err(ApiError::from_response(500, &ResponseHeaders::default(), "", now()))));
    settle().await;
    let panel = f.host.query_selector(".error-panel").unwrap().unwrap();
    assert_eq!(panel.get_attribute("role").as_deref(), Some("alert"));
}

/// A 503 ends by itself as a 429 does: the same calm notice counting down its retry-after,
/// in the browser as in `domain::explain`'s tests.
#[wasm_bindgen_test]
async fn a_503_is_a_calm_notice_that_waits_too() {
    let body = r#"{"error":"service_unavailable","message":"maintenance"}"#;
    let (_, panel, page) = failed_with(503, &[("retry-after", "5")], body).await;
    assert_calm(&panel);
    assert!(page.contains("Waiting: 5 s left before the next try."), "{page}");
}

/// The fit page links here with `?gpus=K`: the form starts with the GPUs asked, judged at once.
#[wasm_bindgen_test]
async fn the_gpus_asked_by_the_fit_page_link_fill_the_form_and_are_judged_at_once() {
    let host = mount(move || {
        provide_console(Role::Member);
        view! {
            <LaunchForm
                reservation=reservation(json!({}))
                nodes=Signal::stored(Some(Arc::new(scattered())))
                pending=Signal::stored(false)
                outcome=Signal::stored(None)
                submit=Callback::new(|_| ())
                reread=Callback::new(|()| ())
                gpus_asked="3".to_owned()
            />
        }
    });
    settle().await;
    let gpus = host.query_selector("input[name=gpus]").unwrap().unwrap().unchecked_into::<web_sys::HtmlInputElement>();
    let prediction = host.query_selector(".prediction").unwrap().unwrap().text_content().unwrap();
    assert_eq!(gpus.value(), "3");
    assert!(prediction.contains("node-2"), "the 3 GPUs asked fit on node-2 only: {prediction}");
}

#[wasm_bindgen_test]
async fn a_launch_page_opened_right_after_another_page_read_the_nodes_shows_them_without_reading_again() {
    let history = web_sys::window().unwrap().history().unwrap();
    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("/reservations/12/launch")).unwrap();
    let api = FakeApi::new(Vec::new());
    let host = mount(|| {
        provide_console(Role::Member);
        // What the Nodes page read of reservation 12 a moment ago.
        let store = use_nodes();
        let session = store.begin_current().unwrap();
        store.receive(session, 12, Ok(Arc::new(seed_nodes())), chrono::Utc::now());
        view! { <Router><LaunchPage/></Router> }
    });
    settle().await;
    let sent = api.paths();
    drop(api);
    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("/")).unwrap();
    assert_eq!(sent, ["/api/gpu-reservations/12"], "the reservation is read, its nodes are not read again");
    let free = text(&host.query_selector(".free-now").unwrap().unwrap().unchecked_into());
    assert!(free.contains("node-1"), "the stored nodes' free GPUs are listed: {free}");
}
