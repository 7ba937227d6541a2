//! The term ledger as the owner and a member read it, from fixture details (no network):
//! each reservation's committed total and its parts, the account's sums (unknown while a
//! reservation's ledger is, naming it), a ⚠ line per disagreement, no money for a member.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    member_detail, mount, now, owner_detail, provide_console, reservation, settle, sleep, text, until, Answer, FakeApi,
};
use leptos::prelude::*;
use reservations_console::api::models::ReservationDetail;
use reservations_console::domain::money::ledger::{ledger, overdue, Account, Missing, Row};
use reservations_console::pages::ledger::{LedgerBoard, LedgerPage};
use reservations_console::reads::reservations::use_reservations;
use reservations_console::state::Role;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A charge of `amount` for the month starting `start` (`2026-11`), `applied` of the advance.
fn charge(index: i64, start: &str, end: &str, amount: f64, applied: f64, status: &str) -> serde_json::Value {
    json!({
        "period_index": index, "adjustment": false,
        "period_start": format!("{start}-01T00:00:00Z"), "period_end": format!("{end}-01T00:00:00Z"),
        "gpu_amount_usd": amount, "storage_amount_usd": 0, "amount_usd": amount,
        "advance_applied_usd": applied, "status": status
    })
}

/// #12: seed 004 with November paid and December scheduled. #4: ended, its second month
/// waived, its last covered by the advance (as the simulator's demo #4).
fn seed_12() -> ReservationDetail {
    owner_detail(json!({ "payment": { "charges": [
        charge(0, "2026-11", "2026-12", 28800.0, 0.0, "paid"),
        charge(1, "2026-12", "2027-01", 29760.0, 0.0, "scheduled"),
    ] } }))
}

fn ended_4(remaining: f64) -> ReservationDetail {
    owner_detail(json!({
        "id": 4, "status": "ended", "region_id": "ord",
        "payment": { "advance_remaining_usd": remaining, "charges": [
            charge(0, "2026-05", "2026-06", 28800.0, 0.0, "paid"),
            charge(1, "2026-06", "2026-07", 28800.0, 0.0, "waived"),
            charge(2, "2026-07", "2026-08", 29760.0, 29200.0, "paid"),
        ] }
    }))
}

fn row(detail: ReservationDetail) -> Row {
    Row { ledger: ledger(&detail), reservation: detail.reservation }
}

fn mount_board(role: Role, rows: Vec<Row>) -> web_sys::HtmlElement {
    mount(move || {
        provide_console(role);
        view! { <LedgerBoard account=Account::of(rows) read_at=now()/> }
    })
}

/// Each body row's cells (the reservation, then the amounts), whitespace collapsed.
fn table(host: &web_sys::HtmlElement, rows: &str) -> Vec<Vec<String>> {
    let found = host.query_selector_all(&format!(".ledger-table {rows} tr")).unwrap();
    (0..found.length())
        .map(|i| {
            let tr: web_sys::Element = found.item(i).unwrap().unchecked_into();
            let cells = tr.query_selector_all("th, td").unwrap();
            (0..cells.length())
                .map(|j| {
                    let text = cells.item(j).unwrap().text_content().unwrap_or_default();
                    text.split_whitespace().collect::<Vec<_>>().join(" ")
                })
                .collect()
        })
        .collect()
}

#[wasm_bindgen_test]
fn the_owner_reads_each_reservations_committed_total_its_parts_and_the_accounts_sums() {
    let host = mount_board(Role::Owner, vec![row(seed_12()), row(ended_4(0.0))]);
    assert_eq!(
        table(&host, "tbody"),
        [
            vec![
                "#12 Activeatl · NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition",
                "$58,560.00",
                "$28,800.00",
                "$0.00",
                "$29,760.00",
                "$0.00",
                "$0.00",
                "$29,200.00"
            ],
            vec![
                "#4 Endedord · NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition",
                "$87,360.00",
                "$29,360.00",
                "$0.00",
                "$0.00",
                "$28,800.00",
                "$29,200.00",
                "$0.00"
            ],
        ]
    );
    assert_eq!(
        table(&host, "tfoot"),
        [["Account", "$145,920.00", "$58,160.00", "$0.00", "$29,760.00", "$28,800.00", "$29,200.00", "$29,200.00"]]
    );
    let page = text(&host);
    assert!(page.contains("Shown to the account owner only"), "{page}");
    assert!(page.contains("Download the ledger (CSV)"), "{page}");
    assert!(host.query_selector(".schedule-issues").unwrap().is_none(), "nothing disagrees: {page}");
    assert!(!page.contains("Unknown"), "{page}");
}

#[wasm_bindgen_test]
fn the_past_due_figure_is_what_is_owed_less_the_advance_applied_and_says_so() {
    // December past due, $29,200 of its $29,760 covered by the advance: $560 is owed.
    let detail = owner_detail(json!({ "status": "past_due", "payment": { "advance_remaining_usd": 0, "charges": [
        charge(0, "2026-11", "2026-12", 28800.0, 0.0, "paid"),
        charge(1, "2026-12", "2027-01", 29760.0, 29200.0, "past_due"),
    ] } }));
    let owed = overdue(detail.payment.as_ref().unwrap());
    let host = mount_board(Role::Owner, vec![row(detail)]);
    let body = table(&host, "tbody");
    assert_eq!(
        body[0][3],
        format!("$560.00{owed} owed on the past-due charges, less the advance applied to them"),
        "the unpaid part and, under it, the one overdue sum what stops when shows"
    );
    assert_eq!(owed.to_string(), "$560.00");
}

#[wasm_bindgen_test]
fn the_accounts_sums_are_unknown_never_zero_while_a_reservations_ledger_is_naming_it() {
    let awaiting = owner_detail(json!({
        "id": 3, "status": "awaiting_payment", "starts_at": null, "ends_at": null, "payment": { "charges": [] }
    }));
    let host = mount_board(
        Role::Owner,
        vec![
            row(seed_12()),
            row(awaiting),
            Row { reservation: ended_4(0.0).reservation, ledger: Err(Missing::NotRead("HTTP 503".into())) },
        ],
    );
    let body = table(&host, "tbody");
    assert_eq!(body[1][1], "Unknown: its schedule is laid out once its first invoice is paid.");
    assert_eq!(body[2][1], "Unknown: its detail could not be read (HTTP 503).");
    assert_eq!(
        table(&host, "tfoot"),
        [["Account", "unknown", "unknown", "unknown", "unknown", "unknown", "unknown", "unknown"]]
    );
    let page = text(&host);
    assert!(
        page.contains("Unknown while a reservation's ledger is: #3: its schedule is laid out once its first invoice is paid; #4: its detail could not be read (HTTP 503)."),
        "{page}"
    );
}

#[wasm_bindgen_test]
fn a_disagreement_is_one_warning_naming_the_reservation_the_part_and_by_how_much() {
    let host = mount_board(Role::Owner, vec![row(seed_12()), row(ended_4(29200.0))]);
    let warnings = host.query_selector_all(".schedule-issues li").unwrap();
    assert_eq!(warnings.length(), 1);
    assert_eq!(
        warnings.item(0).unwrap().text_content().unwrap(),
        "#4: ⚠ Advance remaining: the API reports $29,200.00, but the advance $29,200.00 less the $29,200.00 the charges applied is $0.00 ($29,200.00 more)."
    );
}

#[wasm_bindgen_test]
fn a_member_is_told_the_ledger_is_the_owners_and_sees_no_money() {
    let member = member_detail();
    let host = mount_board(Role::Member, vec![Row { ledger: ledger(&member), reservation: member.reservation }]);
    let page = text(&host);
    assert!(page.contains("The term ledger is the account owner's. This key belongs to a member"), "{page}");
    assert!(!page.contains('$'), "no money for a member: {page}");
    assert!(host.query_selector(".ledger-table").unwrap().is_none());
}

/// The account as the API answers it: reservations 1, 2 and 3, each seed 004's owner detail.
fn three_reservations() -> (serde_json::Value, impl Fn(i64) -> serde_json::Value) {
    let list: Vec<_> = [1, 2, 3].map(|id| reservation(json!({ "id": id }))).into();
    let detail = |id: i64| serde_json::to_value(owner_detail(json!({ "id": id }))).unwrap();
    (serde_json::to_value(list).unwrap(), detail)
}

/// Each body row's text, whitespace collapsed.
fn row_texts(host: &web_sys::HtmlElement) -> Vec<String> {
    table(host, "tbody").into_iter().map(|cells| cells.join(" ")).collect()
}

#[wasm_bindgen_test]
async fn the_ledger_reads_one_detail_at_a_time_waits_out_a_429_and_says_which_rows_are_missing_and_why() {
    let (list, detail) = three_reservations();
    let api = FakeApi::new(vec![
        ("/api/gpu-reservations", vec![Answer::ok(list)]),
        ("/api/gpu-reservations/1", vec![Answer::ok(detail(1))]),
        (
            "/api/gpu-reservations/2",
            vec![
                Answer::error(429, "rate_limit_exceeded", "req_2").with_header("retry-after", "1"),
                Answer::ok(detail(2)),
            ],
        ),
        ("/api/gpu-reservations/3", vec![Answer::error(403, "forbidden", "req_3")]),
    ]);
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <LedgerPage/> }
    });
    // While #2's wait runs, #3 is still to read and says so.
    until(true, || text(&host).contains("Waiting")).await;
    let rows = row_texts(&host);
    assert!(rows[2].contains("still being read"), "{rows:?}");
    until(5, || api.paths().len()).await;
    sleep(100).await;
    let sent = api.sent();
    let paths: Vec<&str> = sent.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/api/gpu-reservations",
            "/api/gpu-reservations/1",
            "/api/gpu-reservations/2",
            "/api/gpu-reservations/2",
            "/api/gpu-reservations/3"
        ],
        "each detail once, #2 again after its 429"
    );
    let gaps: Vec<f64> = sent.windows(2).skip(1).map(|w| w[1].1 - w[0].1).collect();
    assert!(gaps.iter().all(|gap| *gap >= 550.0), "one request at a time, the overview's pace apart: {gaps:?}");
    assert!(gaps[1] >= 950.0, "#2 is read again once its retry-after (1 s) is over: {gaps:?}");
    let rows = row_texts(&host);
    assert!(!rows[1].contains("Unknown"), "#2 is read after the wait: {rows:?}");
    assert!(
        rows[2].contains("could not be read") && rows[2].contains("req_3"),
        "#3 says why, with its request id: {rows:?}"
    );
    assert!(text(&host).contains("Read them again"), "{}", text(&host));
}

#[wasm_bindgen_test]
async fn the_ledger_shows_what_the_session_read_within_the_minute_without_reading_it_again() {
    let api = FakeApi::new(Vec::new());
    let host = mount(|| {
        provide_console(Role::Owner);
        let store = use_reservations();
        let session = store.begin_current().unwrap();
        store.receive_list(session, Ok(vec![reservation(json!({ "id": 12 }))]), chrono::Utc::now());
        store.receive_detail(session, seed_12(), chrono::Utc::now());
        view! { <LedgerPage/> }
    });
    settle().await;
    sleep(700).await;
    assert_eq!(api.paths(), Vec::<String>::new(), "the list and #12's detail are fresh: nothing is read");
    let rows = row_texts(&host);
    assert!(rows[0].starts_with("#12") && rows[0].contains("$58,560.00"), "{rows:?}");
}
