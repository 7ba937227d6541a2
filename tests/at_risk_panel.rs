//! What stops when, as an owner and a member read it on the overview and on a reservation's
//! detail, fed fixture answers (no network): each deadline with its countdown and the
//! workloads it stops (a term end too when its renewal takes over, the renewal beside it); the
//! owner reads what is owed (the ledger's past due) and where to pay by funding, a member
//! never a cost; placement that cannot be read says unknown.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    copy_summary, december_charge, mount_with, now, numbers, owner_detail, provide_console, reservation, seed_nodes,
    settle, FakeClipboard,
};
use leptos::prelude::*;
use reservations_console::api::models::{NodesResponse, ReservationDetail};
use reservations_console::pages::overview::OverviewBoard;
use reservations_console::pages::reservation::ReservationView;
use reservations_console::reads::fleet::FleetStore;
use reservations_console::reads::nodes::use_nodes;
use reservations_console::state::Role;
use serde_json::json;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const H100: &str = "NVIDIA-H100-80GB-HBM3";

/// Reservation 8 (sea): past due, its workloads stopping in 3 days, wallet-funded, December
/// overdue ($29,760). As the owner reads it, or a member (no payment, no rates).
fn past_due_detail(owner: bool) -> ReservationDetail {
    let mut d = owner_detail(json!({
        "id": 8, "status": "past_due", "region_id": "sea",
        "past_due_since": "2026-12-01T00:00:00Z", "stops_at": "2026-12-05T09:30:00Z",
        "payment": { "funding": "wallet", "charges": [december_charge("past_due")] }
    }));
    if !owner {
        d.payment = None;
    }
    d
}

/// Reservation 12 (atl, seed 004): an amendment lowering it from 4 to 2 nodes on 1 Feb 2027.
fn lowered_detail(owner: bool) -> ReservationDetail {
    let rate = |r: f64| if owner { json!(r) } else { json!(null) };
    let mut d = owner_detail(json!({ "amendments": [{
        "effective_at": "2027-02-01T00:00:00Z", "node_count_before": 4, "node_count_after": 2,
        "drive_quota_gib_before": 5000, "drive_quota_gib_after": 5000,
        "fs_quota_gib_before": 20000, "fs_quota_gib_after": 20000,
        "rate_usd_per_gpu_hour_before": rate(1.25), "rate_usd_per_gpu_hour_after": rate(1.25)
    }]}));
    if !owner {
        d.payment = None;
    }
    d
}

fn unreachable_nodes() -> NodesResponse {
    serde_json::from_value(json!({
        "nodes": [{ "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": null, "workloads": [] }],
        "workloads_unknown": true
    }))
    .unwrap()
}

/// The overview as `role` reads it: 8 past due and 12 with nodes lowered (both running
/// seed 004's cluster and notebook), 6 (ams) unreachable and 9 (ams) not read yet; 14 renews
/// 12 when it ends, nothing renews the others.
fn mount_overview(role: Role) -> web_sys::HtmlElement {
    let (host, ()) = mount_with(move || {
        let state = provide_console(role);
        let store = FleetStore::new();
        provide_context(store);
        let session = state.session_id_untracked().unwrap();
        store.begin(session);
        let nodes = use_nodes();
        nodes.begin_current();
        let owner = role == Role::Owner;
        let list = vec![
            past_due_detail(owner).reservation,
            reservation(json!({ "id": 12 })),
            reservation(
                json!({ "id": 14, "status": "scheduled", "starts_at": "2027-11-01T00:00:00Z", "ends_at": "2028-11-01T00:00:00Z" }),
            ),
            reservation(json!({ "id": 6, "region_id": "ams", "gpu_type": H100, "ends_at": "2027-03-01T00:00:00Z" })),
            reservation(json!({ "id": 9, "region_id": "ord", "gpu_type": H100, "ends_at": "2027-04-01T00:00:00Z" })),
        ];
        store.receive_list(session, Ok(list), now());
        store.receive_detail(session, past_due_detail(owner));
        store.receive_detail(session, lowered_detail(owner));
        nodes.receive(session, 8, Ok(Arc::new(seed_nodes())), now());
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now());
        nodes.receive(session, 6, Ok(Arc::new(unreachable_nodes())), now());
        ((), view! { <OverviewBoard store/> })
    });
    host
}

/// Each deadline's kind and text, in the panel's order.
fn items(host: &web_sys::HtmlElement) -> Vec<(String, String)> {
    let found = host.query_selector_all("#at-risk .at-risk-item").unwrap();
    (0..found.length())
        .map(|i| {
            let item = found.item(i).unwrap().unchecked_into::<web_sys::Element>();
            (item.get_attribute("data-deadline").unwrap(), item.text_content().unwrap())
        })
        .collect()
}

fn panel_text(host: &web_sys::HtmlElement) -> String {
    host.query_selector("#at-risk").unwrap().expect("the panel").text_content().unwrap()
}

#[wasm_bindgen_test]
async fn the_owner_reads_each_deadline_soonest_first_and_what_pays_off_the_past_due_stop() {
    let host = mount_overview(Role::Owner);
    settle().await;
    let found = items(&host);
    let kinds: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
    // 8 stops on 5 Dec; 12 is lowered on 1 Feb; 6's term ends 1 Mar, 9's 1 Apr; 8's and 12's
    // own term ends (1 Nov 2027) too, 12's with 14 taking over beside it.
    assert_eq!(kinds, ["past-due", "nodes-lowered", "term-ends", "term-ends", "term-ends", "term-ends"], "{found:?}");
    let (_, past_due) = &found[0];
    assert!(past_due.starts_with("#8 · Workloads stop unless the overdue payment is made"), "{past_due}");
    assert!(past_due.contains("in 3 days · 5 Dec 2026, 09:30 UTC"), "{past_due}");
    assert!(past_due.contains("train-run-7GPU cluster4node-1"), "the cluster, its GPUs and node: {past_due}");
    assert!(past_due.contains("notebook"), "{past_due}");
    assert!(
        past_due.contains(
            "Averted by paying the $29,760.00 owed on the past-due charges, less the advance applied to them: add credit to the account: this reservation's periods are taken from its credit."
        ),
        "the overdue sum and where a wallet-funded reservation pays: {past_due}"
    );
    let (_, lowered) = &found[1];
    assert!(lowered.starts_with("#12 · An amendment lowers the nodes from 4 to 2"), "{lowered}");
    assert!(lowered.contains("Up to 2 nodes' workloads would stop, of these 2 workloads"), "{lowered}");
    assert!(host.query_selector("[data-deadline='nodes-lowered'] .assumed").unwrap().is_some(), "shown as assumed");
    let (_, taken_over) = &found[5];
    assert!(taken_over.starts_with("#12 · The term ends and its renewal #14 takes over"), "{taken_over}");
    assert!(taken_over.contains("train-run-7"), "its workloads listed: {taken_over}");
    assert!(
        taken_over.contains(
            "All 2 workloads running there now would stop. Assumed: a renewal is a new reservation on nodes of its own"
        ),
        "{taken_over}"
    );
    assert!(
        taken_over
            .contains("#14 keeps the GPUs reserved from 1 Nov 2027: the workloads would be launched on it again."),
        "{taken_over}"
    );
    let link = host.query_selector("[data-deadline='past-due'] h3 a").unwrap().unwrap();
    assert_eq!(link.get_attribute("href").unwrap(), "/reservations/8#at-risk");
}

#[wasm_bindgen_test]
async fn a_member_reads_the_same_deadlines_and_never_a_cost() {
    let host = mount_overview(Role::Member);
    settle().await;
    let found = items(&host);
    assert_eq!(found.len(), 6, "{found:?}");
    assert!(found[0].1.starts_with("#8 · Workloads stop unless the account owner acts"), "{:?}", found[0]);
    assert!(found[0].1.contains("Only the account owner can avert it."), "{:?}", found[0]);
    let panel = panel_text(&host);
    for word in ["$", "pay", "invoice", "overdue", "credit"] {
        assert!(!panel.to_lowercase().contains(word), "{word:?} shown to a member: {panel}");
    }
}

#[wasm_bindgen_test]
async fn placement_that_cannot_be_read_is_unknown_never_nothing_at_risk() {
    let host = mount_overview(Role::Member);
    settle().await;
    let found = items(&host);
    let of = |id: &str| {
        found.iter().find(|(_, t)| t.starts_with(id)).unwrap_or_else(|| panic!("no {id}: {found:?}")).1.clone()
    };
    assert!(
        of("#6 ").contains("Which workloads would stop is unknown: the region could not be reached."),
        "{}",
        of("#6 ")
    );
    assert!(of("#9 ").contains("Which workloads would stop is unknown: the nodes are not read yet."), "{}", of("#9 "));
    assert!(!panel_text(&host).contains("Nothing runs"), "{}", panel_text(&host));
}

/// Reservation 8's detail page as `role` reads it, its nodes read, the account's list given.
fn mount_detail(role: Role) -> web_sys::HtmlElement {
    let (host, ()) = mount_with(move || {
        let state = provide_console(role);
        let session = state.session_id_untracked().unwrap();
        let nodes = use_nodes();
        nodes.begin_current();
        nodes.receive(session, 8, Ok(Arc::new(seed_nodes())), now());
        let detail = past_due_detail(role == Role::Owner);
        let account = Signal::stored(Some(vec![detail.reservation.clone()]));
        ((), view! { <ReservationView detail account/> })
    });
    host
}

#[wasm_bindgen_test]
async fn the_detail_shows_its_own_deadlines_with_the_sum_for_the_owner_only() {
    let owner = mount_detail(Role::Owner);
    settle().await;
    let found = items(&owner);
    let kinds: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, ["past-due", "term-ends"], "{found:?}");
    assert!(found[0].1.starts_with("Workloads stop"), "no link to itself: {:?}", found[0]);
    assert!(found[0].1.contains("Averted by paying the $29,760.00 owed on the past-due charges"), "{:?}", found[0]);

    let member = mount_detail(Role::Member);
    settle().await;
    let panel = panel_text(&member);
    assert!(panel.contains("train-run-7"), "{panel}");
    assert!(!panel.contains('$') && !panel.to_lowercase().contains("pay"), "{panel}");
}

#[wasm_bindgen_test]
async fn the_copied_deadlines_hold_the_figures_of_the_panel_with_the_sum_only_when_asked() {
    let host = mount_overview(Role::Owner);
    settle().await;
    let clipboard = FakeClipboard::accepting();
    let copied = copy_summary(&host, "#at-risk", &clipboard, false, true).await;
    assert!(copied.starts_with("# What stops when\n\nAs of 2 Dec 2026, 09:30 UTC: http"), "{copied}");
    assert!(copied.lines().nth(2).unwrap().ends_with("#at-risk"), "the panel's address: {copied}");
    assert!(!copied.contains("eco_test_key"), "{copied}");
    // One section per deadline, each with the figures its item shows: countdown, date,
    // workloads' GPUs and nodes, and the overdue sum.
    let sections: Vec<&str> = copied.split("\n## ").skip(1).collect();
    let found = items(&host);
    assert_eq!(sections.len(), found.len(), "{copied}");
    for (section, (_, shown)) in sections.iter().zip(&found) {
        assert_eq!(numbers(section), numbers(shown), "{section}\n---\n{shown}");
    }
    assert!(sections[0].contains("\\$29,760.00 owed on the past-due charges"), "{}", sections[0]);

    let without = copy_summary(&host, "#at-risk", &clipboard, true, false).await;
    assert!(!without.contains('$'), "{without}");
    assert!(without.contains("Averted by paying the sum owed on the past-due charges"), "{without}");
}

#[wasm_bindgen_test]
async fn a_member_copies_the_deadlines_without_being_offered_amounts() {
    let host = mount_overview(Role::Member);
    settle().await;
    let offered = host.query_selector("#at-risk .copy-summary").unwrap().unwrap().text_content().unwrap();
    assert!(!offered.contains("include amounts"), "{offered}");
    let clipboard = FakeClipboard::accepting();
    let copied = copy_summary(&host, "#at-risk", &clipboard, false, false).await;
    assert!(copied.contains("Only the account owner can avert it."), "{copied}");
    for word in ["$", "invoice", "overdue", "credit"] {
        assert!(!copied.to_lowercase().contains(word), "{word:?} copied for a member: {copied}");
    }
}
