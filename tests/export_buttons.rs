//! The exports' buttons, as the owner and a member see them: "Add to calendar (.ics)" on the
//! overview and a reservation's detail for both (a member's file without payment event or
//! amount), "Download (FOCUS CSV)" on the ledger and a reservation's payment for the owner
//! only. The files are read back from the Blob each button hands the browser.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    button, december_charge, js, member_detail, mount, mount_with, now, owner_detail, provide_console, provide_fleet,
    reservation, seed_nodes, settle, text, until, Answer, FakeApi,
};
use leptos::prelude::*;
use reservations_console::api::models::ReservationDetail;
use reservations_console::domain::money::ledger::{ledger, Account, Row};
use reservations_console::pages::ledger::LedgerBoard;
use reservations_console::pages::org::OrgPage;
use reservations_console::pages::overview::OverviewBoard;
use reservations_console::pages::reservation::ReservationView;
use reservations_console::router::Router;
use reservations_console::state::Role;
use serde_json::json;
use std::sync::Arc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const CALENDAR: &str = "Add to calendar (.ics)";
const FOCUS: &str = "Download (FOCUS CSV)";

/// Seed 004's detail past due (workloads stop on 9 Dec), its December charge past due since
/// 1 Dec; as the owner reads it, or a member (no payment).
fn past_due(owner: bool) -> ReservationDetail {
    let due =
        json!({ "status": "past_due", "past_due_since": "2026-12-01T00:00:00Z", "stops_at": "2026-12-09T00:00:00Z" });
    let mut d = if owner { owner_detail(due) } else { ReservationDetail { payment: None, ..owner_detail(due) } };
    if let Some(p) = d.payment.as_mut() {
        let mut charge = december_charge("past_due");
        charge["due_at"] = "2026-12-01T00:00:00Z".into();
        p.charges = vec![serde_json::from_value(charge).unwrap()];
    }
    d
}

/// Clicks `label` in `host` and reads back the file it hands the browser (the download
/// itself is not started).
async fn download(host: &web_sys::HtmlElement, label: &str) -> String {
    js("window.__blobs = []; window.__createUrl = window.__createUrl || URL.createObjectURL; \
        URL.createObjectURL = (blob) => { window.__blobs.push(blob); return 'blob:none'; }; \
        window.__click = window.__click || HTMLAnchorElement.prototype.click; \
        HTMLAnchorElement.prototype.click = function () {};");
    button(host, label).unwrap_or_else(|| panic!("no button {label:?}")).click();
    let blob: web_sys::Blob = js("const b = window.__blobs.pop(); URL.createObjectURL = window.__createUrl; \
        HTMLAnchorElement.prototype.click = window.__click; return b;")
    .unchecked_into();
    wasm_bindgen_futures::JsFuture::from(blob.text()).await.unwrap().as_string().unwrap()
}

/// What a member's calendar must not hold: an amount or a payment event.
fn assert_no_money(file: &str) {
    assert!(file.starts_with("BEGIN:VCALENDAR\r\n"), "{file}");
    assert!(!file.contains('$'), "an amount in a member's file:\n{file}");
    for word in ["charge due", "invoice", "payment is made", "averted by paying"] {
        assert!(!file.to_lowercase().contains(word), "{word:?} in a member's file:\n{file}");
    }
}

/// The overview of reservation 12 past due, its nodes read, as `role` reads it.
fn mount_overview(role: Role) -> web_sys::HtmlElement {
    let (host, ()) = mount_with(move || {
        let (store, nodes, session) = provide_fleet(role);
        let list = vec![reservation(json!({ "id": 12, "status": "past_due", "stops_at": "2026-12-09T00:00:00Z" }))];
        store.receive_list(session, Ok(list), now());
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now());
        store.receive_detail(session, past_due(role == Role::Owner));
        ((), view! { <OverviewBoard store/> })
    });
    host
}

#[wasm_bindgen_test]
async fn the_overview_offers_the_calendar_to_both_and_the_members_file_has_no_amount_or_payment_event() {
    let owner = mount_overview(Role::Owner);
    settle().await;
    let file = download(&owner, CALENDAR).await;
    assert!(file.contains("SUMMARY:#12: Workloads stop unless the overdue payment is made (past-due)"), "{file}");
    assert!(file.contains("SUMMARY:#12: charge due\\, $29\\,760.00"), "the owner's payment date: {file}");
    assert!(file.contains("train-run-7 (GPU cluster"), "the workloads at risk: {file}");
    assert!(button(&owner, FOCUS).is_none(), "the overview has no FOCUS file");

    let member = mount_overview(Role::Member);
    settle().await;
    let file = download(&member, CALENDAR).await;
    assert!(file.contains("SUMMARY:#12: Workloads stop unless the account owner acts (past-due)"), "{file}");
    assert_no_money(&file);
    assert!(!file.contains("eco_test_key"), "no file holds the key");
}

/// org_acme's reservations as the org API answers them: one ending ahead, one with no end,
/// one cancelled (its end no deadline).
fn org_acme() -> serde_json::Value {
    serde_json::from_str(include_str!("../fixtures/org_acme_reservations.json")).unwrap()
}

const ORG_READ: &str = "/api/v1/orgs/org_acme/reservations";

/// The owner's overview of [`mount_overview`] beside the org page of org_acme, whose read
/// `api` answers; once the org page has its answer (or its failure).
async fn overview_after_the_org_page(api: &FakeApi) -> web_sys::HtmlElement {
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some("/orgs/org_acme")).unwrap();
    let (host, ()) = mount_with(move || {
        let (store, nodes, session) = provide_fleet(Role::Owner);
        let list = vec![reservation(json!({ "id": 12, "status": "past_due", "stops_at": "2026-12-09T00:00:00Z" }))];
        store.receive_list(session, Ok(list), now());
        nodes.receive(session, 12, Ok(Arc::new(seed_nodes())), now());
        store.receive_detail(session, past_due(true));
        ((), view! { <Router><OrgPage/><OverviewBoard store/></Router> })
    });
    until(true, || api.paths().iter().any(|p| p == ORG_READ)).await;
    // The answer taken, not only the request sent (Firefox draws it a few ticks later):
    // the org page lists its reservations, or the overview says the read failed.
    until(true, || text(&host).contains("rsv_1") || host.query_selector(".calendar-org-ends").unwrap().is_some()).await;
    settle().await;
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(&before)).unwrap();
    host
}

#[wasm_bindgen_test]
async fn the_overviews_calendar_holds_what_stops_when_the_payment_dates_and_the_org_ends_read() {
    let api = FakeApi::new(vec![(ORG_READ, vec![Answer::ok(org_acme())])]);
    let host = overview_after_the_org_page(&api).await;
    let file = download(&host, CALENDAR).await;
    drop(api);
    let stops = host.query_selector_all(".at-risk-item").unwrap().length() as usize;
    let detail = past_due(true);
    let dues = detail.payment.iter().flat_map(|p| &p.charges).filter(|c| c.due_at.is_some()).count()
        + usize::from(detail.first_invoice().and_then(|i| i.due_at).is_some());
    let org_ends = 1;
    assert!(stops >= 1 && dues >= 1, "the fixture: {stops} deadlines, {dues} payment dates");
    assert_eq!(file.matches("BEGIN:VEVENT").count(), stops + dues + org_ends, "{file}");
    assert!(file.contains("SUMMARY:Org reservation rsv_1 ends"), "{file}");
    assert!(file.contains("UID:org-org_acme-reservation-rsv_1-end@reservations-console"), "{file}");
    assert!(host.query_selector(".calendar-org-ends").unwrap().is_none(), "nothing failed: {}", text(&host));
}

#[wasm_bindgen_test]
async fn a_failed_org_read_is_said_beside_the_overviews_calendar() {
    let api = FakeApi::new(vec![(ORG_READ, vec![Answer::error(403, "forbidden", "req_org")])]);
    let host = overview_after_the_org_page(&api).await;
    let file = download(&host, CALENDAR).await;
    drop(api);
    let note = host.query_selector(".calendar-org-ends").unwrap().map(|p| p.text_content().unwrap());
    assert!(!file.contains("Org reservation"), "{file}");
    let note = note.unwrap_or_else(|| panic!("the failure is said: {}", text(&host)));
    assert!(note.starts_with("org_acme's reservations could not be read"), "{note}");
    assert!(note.contains("req_org") && note.ends_with("The calendar does not hold their ends."), "{note}");
}

#[wasm_bindgen_test]
async fn a_reservation_offers_the_calendar_to_both_and_the_focus_file_to_the_owner_only() {
    let owner = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=past_due(true)/> }
    });
    settle().await;
    let file = download(&owner, CALENDAR).await;
    assert!(file.contains("UID:reservation-12-past-due-stop@reservations-console"), "{file}");
    assert!(file.contains("SUMMARY:#12: charge due"), "{file}");
    let focus = download(&owner, FOCUS).await;
    assert!(focus.starts_with("BillingAccountId,BillingAccountName,BillingCurrency,"), "{focus}");
    assert_eq!(focus.split("\r\n").filter(|l| !l.is_empty()).count(), 2, "one row per charge: {focus}");
    assert!(focus.contains(",29760.00,29760.00,"), "{focus}");

    let member = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationView detail=member_detail()/> }
    });
    settle().await;
    assert!(button(&member, FOCUS).is_none(), "a member is never offered the FOCUS file");
    assert_no_money(&download(&member, CALENDAR).await);
}

#[wasm_bindgen_test]
async fn the_ledger_offers_the_focus_file_to_the_owner_and_never_to_a_member() {
    let detail = past_due(true);
    let row = Row { ledger: ledger(&detail), reservation: detail.reservation.clone() };
    let owner = mount(move || {
        provide_console(Role::Owner);
        view! { <LedgerBoard account=Account::of(vec![row]) read_at=now() details=vec![detail]/> }
    });
    settle().await;
    let focus = download(&owner, FOCUS).await;
    assert!(focus.contains("\"Reserved GPU capacity #12, period 1 (1 Dec 2026 – 31 Dec 2026): past due\""), "{focus}");

    let member = member_detail();
    let row = Row { ledger: ledger(&member), reservation: member.reservation.clone() };
    let host = mount(move || {
        provide_console(Role::Member);
        view! { <LedgerBoard account=Account::of(vec![row]) read_at=now() details=vec![member]/> }
    });
    settle().await;
    assert!(button(&host, FOCUS).is_none(), "a member is never offered the FOCUS file");
}
