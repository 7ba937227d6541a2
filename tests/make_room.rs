//! `/fit`'s make-room panel, on the whole page read through a fake API: the plan for a
//! fragmented reservation (what to stop, each linked to its page, where it fits again), the
//! kinds the address keeps never stopped and the checkboxes that write them, a reservation
//! closed to launches or whose region is unreachable never planned, nothing sent, no money.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{mount_with, provide_console, reservation, text, until, Answer, FakeApi};
use leptos::prelude::*;
use reservations_console::pages::fit::FitPage;
use reservations_console::reads::fleet::FleetStore;
use reservations_console::router::Router;
use reservations_console::state::Role;
use serde_json::json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Two ready nodes of 8 GPUs, 3 and 2 free (5 in all, never 4 together): node-1 runs half of
/// the cluster "train" (4) and the instance "notebook" (1); node-2 the other half of "train"
/// (4) and the model instance "chat" (2).
fn fragmented_nodes() -> serde_json::Value {
    json!({ "nodes": [
        { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 5, "workloads": [
            { "kind": "gpu_cluster", "id": 418, "name": "train", "gpus": 4, "billing": "reserved" },
            { "kind": "gpu_instance", "id": 902, "name": "notebook", "gpus": 1, "billing": "reserved" } ] },
        { "display_name": "node-2", "state": "ready", "gpus": 8, "gpus_in_use": 6, "workloads": [
            { "kind": "gpu_cluster", "id": 418, "name": "train", "gpus": 4, "billing": "reserved" },
            { "kind": "inference_instance", "id": 7, "name": "chat", "gpus": 2, "billing": "reserved" } ] }
    ], "workloads_unknown": false })
}

/// #7 active and fragmented; #11 past due with the same nodes; #6 active, its region
/// unreachable. The page is mounted at `address` as `role` and waits until every
/// reservation's nodes are read.
async fn mount_page(role: Role, address: &str) -> (web_sys::HtmlElement, String, FakeApi) {
    let list = json!([
        reservation(json!({ "id": 7 })),
        reservation(json!({ "id": 11, "status": "past_due" })),
        reservation(json!({ "id": 6 })),
    ]);
    let unreachable = json!({ "nodes": [{ "display_name": "node-1", "state": "ready", "gpus": 8, "workloads": [] }], "workloads_unknown": true });
    let api = FakeApi::new(vec![
        ("/api/gpu-reservations", vec![Answer::ok(list)]),
        ("/api/gpu-reservations/7/nodes", vec![Answer::ok(fragmented_nodes())]),
        ("/api/gpu-reservations/11/nodes", vec![Answer::ok(fragmented_nodes())]),
        ("/api/gpu-reservations/6/nodes", vec![Answer::ok(unreachable)]),
    ]);
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(address)).unwrap();
    let (host, ()) = mount_with(move || {
        provide_console(role);
        provide_context(FleetStore::new());
        ((), view! { <Router><FitPage/></Router> })
    });
    until(true, || {
        let read: Vec<String> = api.paths().into_iter().filter(|p| p.ends_with("/nodes")).collect();
        read.len() >= 3 && host.query_selector("[data-reservation='7']").unwrap().is_some()
    })
    .await;
    (host, before, api)
}

fn restore(before: &str) {
    web_sys::window().unwrap().history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(before)).unwrap();
}

/// The plans shown, by reservation id.
fn planned(host: &web_sys::HtmlElement) -> Vec<String> {
    let found = host.query_selector_all(".make-room-plan").unwrap();
    (0..found.length())
        .map(|i| found.item(i).unwrap().unchecked_into::<web_sys::Element>().get_attribute("data-reservation").unwrap())
        .collect()
}

/// Each workload the plan of `id` stops: its text and its link.
fn stopped(host: &web_sys::HtmlElement, id: &str) -> Vec<(String, String)> {
    let items = host.query_selector_all(&format!("[data-reservation='{id}'] .make-room-stops li")).unwrap();
    (0..items.length())
        .map(|i| {
            let li = items.item(i).unwrap().unchecked_into::<web_sys::Element>();
            let href = li.query_selector("a").unwrap().unwrap().get_attribute("href").unwrap();
            (li.text_content().unwrap().split_whitespace().collect::<Vec<_>>().join(" "), href)
        })
        .collect()
}

fn plan_text(host: &web_sys::HtmlElement, id: &str) -> String {
    let plan = host.query_selector(&format!("[data-reservation='{id}']")).unwrap().unwrap();
    plan.text_content().unwrap().split_whitespace().collect::<Vec<_>>().join(" ")
}

#[wasm_bindgen_test]
async fn a_fragmented_reservation_shows_the_plan_that_displaces_the_fewest_gpus() {
    let (host, before, api) = mount_page(Role::Owner, "/fit?gpus=4").await;
    let (plans, stops, plan, page) = (planned(&host), stopped(&host, "7"), plan_text(&host, "7"), text(&host));
    let sent = api.paths();
    restore(&before);
    assert_eq!(plans, ["7"], "only the fragmented reservation is planned");
    assert_eq!(
        stops,
        [(
            "notebook · GPU instance · 1 GPU · fits again on node-2 (1 GPU)".to_owned(),
            "/reservations/7/workloads/gpu_instance/902".to_owned()
        )]
    );
    assert!(plan.contains("Stop 1 workload (1 GPU displaced in all) to free the GPUs together on node-1."), "{plan}");
    assert!(plan.contains("2 nodes could host one."), "{plan}");
    assert!(plan.contains("Assumed: a launch lands on any ready node"), "{plan}");
    assert_eq!(plan.to_lowercase().matches("assumed").count(), 1, "the assumption worded once: {plan}");
    assert!(page.contains(
        "Best: the fewest GPUs displaced, then the fewest workloads stopped, then the most of them that fit again."
    ));
    assert!(page.contains("the API has no call to stop or move a workload; nothing is sent"), "{page}");
    assert!(sent.iter().all(|p| p.starts_with("/api/gpu-reservations")), "reads only: {sent:?}");
}

#[wasm_bindgen_test]
async fn kept_kinds_are_never_stopped_and_the_checkboxes_write_them_into_the_address() {
    let (host, before, _api) = mount_page(Role::Member, "/fit?gpus=4&keep=gpu_instance").await;
    let kept_instance = stopped(&host, "7");
    let box_for = |kind: &str| {
        host.query_selector(&format!("input[name='keep'][value='{kind}']"))
            .unwrap()
            .unwrap()
            .unchecked_into::<web_sys::HtmlInputElement>()
    };
    let checked = box_for("gpu_instance").checked();
    box_for("inference_instance").click();
    until(true, || web_sys::window().unwrap().location().search().unwrap().contains("inference_instance")).await;
    until(true, || stopped(&host, "7").first().is_some_and(|s| s.0.starts_with("train"))).await;
    let (address, kept_both, plan) =
        (web_sys::window().unwrap().location().search().unwrap(), stopped(&host, "7"), plan_text(&host, "7"));
    restore(&before);
    assert!(checked, "the address's kind is checked");
    // The instance kept: the model instance "chat" (2 GPUs) on node-2 is the cheapest.
    assert_eq!(kept_instance.len(), 1);
    assert!(kept_instance[0].0.starts_with("chat · Model instance · 2 GPUs · "), "{kept_instance:?}");
    assert_eq!(address, "?gpus=4&keep=gpu_instance%2Cinference_instance");
    // Both kept: only the cluster is left, displacing its GPUs on both nodes.
    assert_eq!(kept_both.len(), 1);
    assert!(
        kept_both[0].0.starts_with("train · GPU cluster · 4 GPUs here, 8 GPUs on all its nodes · "),
        "{kept_both:?}"
    );
    assert!(plan.contains("(8 GPUs displaced in all)"), "{plan}");
}

#[wasm_bindgen_test]
async fn closed_and_unreachable_reservations_are_never_planned_and_a_member_sees_no_money() {
    let (host, before, _api) = mount_page(Role::Member, "/fit?gpus=4").await;
    let (plans, page) = (planned(&host), text(&host));
    restore(&before);
    assert!(!plans.contains(&"11".to_owned()), "past due: launches paused, no plan: {plans:?}");
    assert!(!plans.contains(&"6".to_owned()), "region unreachable: no plan: {plans:?}");
    assert!(!page.contains('$') && !page.contains("USD"), "no money anywhere: {page}");
}
