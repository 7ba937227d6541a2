//! The reservation detail as a person reads it, for the owner and for a member.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;
mod page_support;

use console_fixtures::{
    at_address, december_charge, first_text, member_detail, mount, mount_with, owner_detail, provide_console,
    provide_zone, seed_nodes, settle, text,
};
use leptos::prelude::*;
use page_support::fact;
use reservations_console::api::client::Connection;
use reservations_console::domain::words::time::{format_time, Zone};
use reservations_console::pages::reservation::ReservationView;
use reservations_console::reads::placements::Placements;
use reservations_console::reads::remote::Remote;
use reservations_console::state::{Role, TimeZone};
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn the_owner_sees_rates_advance_and_checked_charges() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({}))/> }
    });
    let page = text(&host);
    assert!(page.contains("$1.25 per GPU-hour"), "{page}");
    assert!(page.contains("InvoiceEach period is invoiced; pay it under Billing → Invoices."), "{page}");
    assert!(page.contains("$29,200.00"), "advance: {page}");
    assert!(page.contains("One average month: 730 h × 32 GPUs × $1.25/GPU-hour = $29,200.00."), "{page}");
    // Seed 004's example: the next charge is period 1 (December), scheduled, shown as sent.
    assert!(
        page.contains("1 Dec 2026 – 31 Dec 2026 (period_index 1 as sent) · $29,760.00 Scheduled"),
        "next charge: {page}"
    );
    assert!(page.contains("31 days (744 h) × 32 GPUs × $1.25/GPU-hour = $29,760.00."), "{page}");
    assert!(host.query_selector(".charges-table .check-ok").unwrap().is_some());
    assert!(host.query_selector(".charges-table .check-off").unwrap().is_none());
    assert!(host.query_selector(".bar-chart svg").unwrap().is_some(), "the chart of charges per period");
    assert!(page.contains("Download charges (CSV)"), "{page}");
}

#[wasm_bindgen_test]
fn a_storage_rate_the_api_does_not_send_leaves_every_charge_unchecked_never_a_check_mark() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({ "payment": { "fs_rate_usd_per_gib_month": null } }))/> }
    });
    let page = text(&host);
    assert!(page.contains("Shared filesystem ratenot sent"), "{page}");
    assert!(host.query_selector(".charges-table .check-ok").unwrap().is_none(), "no ✓ with a part unchecked");
    assert!(page.contains("Storage not checked: the API sends no shared filesystem rate."), "{page}");
}

#[wasm_bindgen_test]
fn a_due_date_the_api_does_not_state_reads_as_expected() {
    // Seed 004's next charge: scheduled, invoice funding, no due_at.
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({}))/> }
    });
    let next = fact(&host, "Next charge");
    assert!(next.contains("no due date stated yet: expected once it is invoiced"), "{next}");
    assert!(!next.contains("due 1"), "no due date is invented: {next}");
}

#[wasm_bindgen_test]
fn list_level_quotas_that_differ_from_the_storage_ones_are_flagged_with_both() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationView detail=owner_detail(json!({ "fs_quota_gib": 30000 }))/> }
    });
    let flags = first_text(&host, ".quota-mismatch");
    assert_eq!(flags, "⚠ The reservation lists 30,000 GiB of shared filesystem, its storage 20,000 GiB.");
}

#[wasm_bindgen_test]
fn the_charges_table_scroller_is_reachable_by_keyboard_and_named() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({}))/> }
    });
    let wrap = host.query_selector(".table-wrap:has(.charges-table)").unwrap().expect("the charges' scroller");
    assert_eq!(wrap.get_attribute("tabindex").as_deref(), Some("0"), "focusable");
    assert_eq!(wrap.get_attribute("role").as_deref(), Some("region"));
    assert_eq!(wrap.get_attribute("aria-label").as_deref(), Some("Charges per billing period"));
}

#[wasm_bindgen_test]
fn a_member_sees_no_payment_figure_anywhere() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationView detail=member_detail()/> }
    });
    let page = text(&host);
    assert!(page.contains("Billing is the account owner's."), "{page}");
    assert!(!page.contains('$'), "no amount of money on a member's page: {page}");
    assert!(!page.contains("CSV"), "{page}");
    assert!(page.contains("4 nodes→6 nodes"), "amendments still show what changed: {page}");
}

#[wasm_bindgen_test]
fn rates_in_a_member_answer_are_still_not_shown() {
    let mut detail = owner_detail(json!({}));
    detail.payment = None;
    let host = mount(move || {
        provide_console(Role::Member);
        view! { <ReservationView detail/> }
    });
    assert!(!text(&host).contains('$'));
}

#[wasm_bindgen_test]
fn a_charge_that_is_not_hours_times_gpus_times_rate_is_flagged() {
    let mut wrong = december_charge("invoiced");
    wrong["gpu_amount_usd"] = json!(29000);
    wrong["amount_usd"] = json!(29000);
    let host = mount(move || {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({ "payment": { "charges": [wrong] } }))/> }
    });
    let check = host.query_selector(".charges-table .check-off").unwrap().expect("a warning on the row");
    let check = check.text_content().unwrap();
    assert!(check.contains("does not match the terms"), "{check}");
    assert!(check.contains("$760.00 less"), "{check}");
}

#[wasm_bindgen_test]
fn a_row_whose_storage_cannot_be_checked_is_not_a_tick_and_the_header_says_what_is_checked() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({ "billing_period": "fortnightly" }))/> }
    });
    let page = text(&host);
    assert!(page.contains("Check: GPU hours × rate, storage GiB-months × rate, total"), "{page}");
    assert!(host.query_selector(".charges-table .check-ok").unwrap().is_none(), "no ✓: {page}");
    let check = host.query_selector(".charges-table .check-partial").unwrap().expect("a partial check");
    let check = check.text_content().unwrap();
    assert!(check.contains("not fully checked"), "{check}");
    assert!(check.contains("Storage not checked: the billing period is one this console does not know."), "{check}");
}

#[wasm_bindgen_test]
fn adjustment_rows_are_marked() {
    let adjustment = json!({
        "period_index": 3, "adjustment": true,
        "period_start": "2027-01-20T00:00:00Z", "period_end": "2027-02-01T00:00:00Z",
        "gpu_amount_usd": 5760, "storage_amount_usd": 0, "amount_usd": 5760,
        "advance_applied_usd": 0, "status": "scheduled"
    });
    let host = mount(move || {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({ "payment": { "charges": [december_charge("paid"), adjustment] } }))/> }
    });
    let row = host.query_selector(".charges-table tr.adjustment").unwrap().expect("an adjustment row");
    assert!(row.text_content().unwrap().contains("Adjustment"));
}

/// The owner's page of a reservation awaiting its first invoice ($2.34), `issued` or not.
fn awaiting_payment(issued: bool) -> web_sys::HtmlElement {
    mount(move || {
        provide_console(Role::Owner);
        view! {
            <ReservationView detail=owner_detail(json!({
                "status": "awaiting_payment", "starts_at": null, "ends_at": null,
                "payment": { "charges": [], "next_charge": null,
                             "first_invoice": { "amount_usd": 2.34, "issued": issued } }
            }))/>
        }
    })
}

#[wasm_bindgen_test]
fn a_first_invoice_still_being_created_says_so() {
    let host = awaiting_payment(false);
    let page = text(&host);
    assert!(page.contains("First invoice (advance + first period)$2.34Being created"), "{page}");
    assert!(page.contains("No charges yet"), "{page}");
    assert!(page.contains("Set when the first invoice is paid"), "{page}");
}

#[wasm_bindgen_test]
fn a_null_next_charge_while_awaiting_payment_is_none_until_the_first_invoice_is_paid() {
    let host = awaiting_payment(true);
    let page = text(&host);
    assert!(page.contains("Next chargeNone until the first invoice is paid"), "{page}");
    assert!(!page.contains("every charge is paid"), "{page}");
}

#[wasm_bindgen_test]
fn a_next_charge_that_is_not_the_earliest_unpaid_one_is_flagged_with_both() {
    let mut january = december_charge("scheduled");
    january["period_index"] = json!(2);
    january["period_start"] = json!("2027-01-01T00:00:00Z");
    january["period_end"] = json!("2027-02-01T00:00:00Z");
    let host = mount(move || {
        provide_console(Role::Owner);
        view! {
            <ReservationView detail=owner_detail(json!({
                "payment": { "charges": [december_charge("invoiced"), january.clone()], "next_charge": january }
            }))/>
        }
    });
    let page = text(&host);
    assert!(
        page.contains(
            "⚠ The API sends period 2 (1 Jan 2027 – 31 Jan 2027, $29,760.00) as next, but the earliest unpaid charge is period 1 (1 Dec 2026 – 31 Dec 2026, $29,760.00)."
        ),
        "{page}"
    );
}

#[wasm_bindgen_test]
fn unknown_charge_status_and_funding_are_shown_as_sent() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! {
            <ReservationView detail=owner_detail(json!({
                "payment": { "funding": "crypto", "charges": [december_charge("disputed")], "next_charge": null }
            }))/>
        }
    });
    let page = text(&host);
    assert!(page.contains("crypto (unrecognised)"), "{page}");
    assert!(page.contains("disputed (unrecognised)"), "{page}");
}

#[wasm_bindgen_test]
fn storage_and_amendments_read_as_figures() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({}))/> }
    });
    let page = text(&host);
    assert!(page.contains("Cloud drive1,200 GiB of 5,000 GiB · 24%"), "{page}");
    assert!(page.contains("Shared filesystem8,000 GiB of 20,000 GiB · 40%"), "{page}");
    assert!(page.contains("Shared filesystem20,000 GiB→30,000 GiB"), "{page}");
    assert!(!page.contains("Rate$1.25"), "an unchanged rate is not a difference: {page}");
    assert!(page.contains("Upcoming"), "{page}");
}

#[wasm_bindgen_test]
fn the_term_timeline_marks_today_and_the_amendment() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationView detail=member_detail()/> }
    });
    let svg = host.query_selector(".timeline svg").unwrap().expect("a timeline");
    let label = svg.get_attribute("aria-label").unwrap();
    assert_eq!(label, "Term from 1 Nov 2026 to 1 Nov 2027; today, 9% through; 1 amendment.");
    assert!(svg.query_selector(".timeline-mark").unwrap().is_some());
}

#[wasm_bindgen_test]
fn markup_in_names_is_text() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({ "contract_ref": "<img src=x onerror=alert(1)>" }))/> }
    });
    assert!(host.query_selector("img").unwrap().is_none());
    assert!(text(&host).contains("contract <img src=x onerror=alert(1)>"));
}

/// The real path: data read with an owner's key, then the tab switches to a member's key.
/// The owner's payments must vanish at once, before the member's answer even arrives.
#[wasm_bindgen_test]
async fn switching_from_an_owner_key_to_a_member_key_drops_the_payments() {
    let (host, state) = mount_with(|| {
        let state = provide_console(Role::Owner);
        let detail = Remote::new(|conn: Connection| async move {
            if conn.expose_key() == "eco_test_key" {
                Ok(owner_detail(json!({})))
            } else {
                std::future::pending().await
            }
        });
        (state, view! { {move || detail.data().map(|detail| view! { <ReservationView detail/> })} })
    });
    settle().await;
    assert!(text(&host).contains("$29,760.00"), "the owner's page first: {}", text(&host));

    state.connect(Connection::new("/api", "eco_member_key"), false, Role::Member);
    settle().await;
    assert!(!text(&host).contains('$'), "nothing of the owner's left: {}", text(&host));
}

#[wasm_bindgen_test]
fn the_chart_legend_names_each_colour_once() {
    let mut waived = december_charge("waived");
    waived["period_index"] = json!(2);
    waived["period_start"] = json!("2027-01-01T00:00:00Z");
    waived["period_end"] = json!("2027-02-01T00:00:00Z");
    let mut scheduled = waived.clone();
    scheduled["period_index"] = json!(3);
    scheduled["status"] = json!("scheduled");
    let host = mount(move || {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({ "payment": { "charges": [december_charge("paid"), waived, scheduled] } }))/> }
    });
    let legend = host.query_selector(".chart-legend").unwrap().unwrap();
    let entries = legend.query_selector_all(".legend-entry").unwrap();
    let words: Vec<String> = (0..entries.length()).map(|i| entries.item(i).unwrap().text_content().unwrap()).collect();
    assert_eq!(words, ["Paid", "Waived / Scheduled"]);
    assert_eq!(host.query_selector_all(".bar-chart g.bar").unwrap().length(), 3);
}

/// Issue 30's term ledger on the owner's statement: the committed total and its parts (the
/// advance's share apart from what was paid), a ⚠ where the advance left disagrees.
#[wasm_bindgen_test]
fn the_payment_shows_the_term_ledger_whose_parts_add_up_and_flags_the_advance_left() {
    let mut covered = december_charge("paid");
    covered["advance_applied_usd"] = json!(29200);
    let ledger = |remaining: f64| {
        let covered = covered.clone();
        let host = mount(move || {
            provide_console(Role::Owner);
            let detail =
                owner_detail(json!({ "payment": { "advance_remaining_usd": remaining, "charges": [covered] } }));
            view! { <ReservationView detail/> }
        });
        first_text(&host, ".term-ledger").split_whitespace().collect::<Vec<_>>().join(" ")
    };
    assert_eq!(ledger(0.0), "Paid$560.00Covered by the advance$29,200.00Committed for the term$29,760.00");
    assert_eq!(
        ledger(29200.0),
        "Paid$560.00Covered by the advance$29,200.00Committed for the term$29,760.00⚠ Advance remaining: the API reports $29,200.00, but the advance $29,200.00 less the $29,200.00 the charges applied is $0.00 ($29,200.00 more)."
    );
}

const LAUNCH: &str = "a[href='/reservations/12/launch']";

#[wasm_bindgen_test]
fn an_active_reservation_offers_the_launch() {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <ReservationView detail=member_detail()/> }
    });
    let link = host.query_selector(LAUNCH).unwrap().expect("the launch link");
    assert_eq!(link.text_content().unwrap(), "Launch on this reservation");
    assert!(host.query_selector(".launch-note").unwrap().is_none());
}

#[wasm_bindgen_test]
fn no_launch_is_offered_where_the_status_rules_it_out_and_the_reason_is_given() {
    for (status, reason) in [
        ("ended", "Closed: launch elsewhere, or renew (a renewal is a new reservation)."),
        ("suspended", "Closed: nothing runs here until the reservation is restored."),
        ("past_due", "New launches paused until the overdue payment is made; running workloads keep running until the stop date."),
    ] {
        let host = mount(move || {
            provide_console(Role::Owner);
            view! { <ReservationView detail=owner_detail(json!({ "status": status }))/> }
        });
        assert!(host.query_selector(LAUNCH).unwrap().is_none(), "{status}: no launch link");
        let note = host.query_selector(".page-actions .launch-note").unwrap().expect("the reason instead");
        assert_eq!(note.text_content().unwrap(), reason, "{status}");
    }
}

#[wasm_bindgen_test]
async fn the_terms_show_gpus_in_use_of_the_reserved() {
    let (host, placements) = mount_with(|| {
        provide_console(Role::Member);
        let placements = Placements::default();
        (placements, view! { <ReservationView detail=member_detail() placements/> })
    });
    let r = member_detail().reservation;
    let _ = placements.start(std::slice::from_ref(&r));
    placements.receive(&r, Ok(&seed_nodes()));
    settle().await;
    assert_eq!(fact(&host, "Reserved GPUs"), "32 GPUs4 nodes × 8 GPUs6 of 32 GPUs in use");
}

#[wasm_bindgen_test]
fn the_terms_flag_dates_that_disagree_with_the_term() {
    let host = mount(|| {
        provide_console(Role::Owner);
        view! { <ReservationView detail=owner_detail(json!({ "ends_at": "2027-12-01T00:00:00Z" }))/> }
    });
    assert_eq!(
        fact(&host, "Start → end (UTC)"),
        "1 Nov 2026 → 1 Dec 2027⚠ 1 Nov 2026 → 1 Dec 2027 is 13 months, not the 12-month term (that would end 1 Nov 2027)."
    );
}

#[wasm_bindgen_test]
async fn the_status_and_banner_times_follow_the_utc_local_switch() {
    let (host, zone_switch) = mount_with(|| {
        provide_console(Role::Owner);
        let detail = owner_detail(json!({ "status": "past_due", "stops_at": "2026-12-04T09:30:00Z" }));
        (provide_zone(TimeZone::Utc), view! { <ReservationView detail/> })
    });
    let explanation = || first_text(&host, ".status-explanation");
    let banner = || first_text(&host, ".banner-body");
    assert!(explanation().contains("workloads stop in 2 days (4 Dec 2026, 09:30 UTC)"), "{}", explanation());
    assert!(banner().contains("stopped on 4 Dec 2026, 09:30 UTC unless"), "{}", banner());

    zone_switch.0.set(TimeZone::Local);
    settle().await;
    let stop = format_time("2026-12-04T09:30:00Z".parse().unwrap(), Zone::System);
    assert!(explanation().contains(&format!("workloads stop in 2 days ({stop})")), "{}", explanation());
    assert!(banner().contains(&format!("stopped on {stop} unless")), "{}", banner());
}

/// Text in the address is whoever wrote the link's, not the console's: a page under
/// `/reservations/…` shows only the id the router parsed, never the segment as written, in
/// its title, breadcrumb, heading or error panel.
#[wasm_bindgen_test]
async fn words_put_in_the_address_are_never_shown_as_the_pages_own() {
    use reservations_console::pages::launch::LaunchPage;
    use reservations_console::pages::reservation::ReservationPage;
    let posing = "12%20is%20closed%3A%20call%20support%20on%20%2B1-555-0100";
    let pages: [(String, fn() -> AnyView); 2] = [
        (format!("/reservations/{posing}"), || view! { <ReservationPage/> }.into_any()),
        (format!("/reservations/{posing}/launch"), || view! { <LaunchPage/> }.into_any()),
    ];
    for (address, page) in pages {
        let host = at_address(&address, page).await;
        let shown = format!("{} {}", text(&host), web_sys::window().unwrap().document().unwrap().title());
        assert!(!shown.contains("support") && !shown.contains("555"), "{address}: {shown}");
        assert!(shown.contains("This address does not name a reservation"), "{address}: {shown}");
        host.remove();
    }
}

/// A page under `/reservations/…` reads its id as the router does, the rule its early read
/// goes by: an id with a leading zero or over 18 digits names no reservation (it showed #12
/// for `012`, whose early read was never sent).
#[wasm_bindgen_test]
async fn a_page_reads_its_reservation_id_as_the_router_does() {
    use reservations_console::pages::launch::LaunchPage;
    use reservations_console::pages::reservation::ReservationPage;
    use reservations_console::router::Route;
    type Build = fn() -> AnyView;
    let pages: [(&str, Build); 3] = [
        ("/reservations/012", || view! { <ReservationPage/> }.into_any()),
        ("/reservations/012/launch", || view! { <LaunchPage/> }.into_any()),
        ("/reservations/1234567890123456789/launch", || view! { <LaunchPage/> }.into_any()),
    ];
    for (address, page) in pages {
        assert_eq!(Route::parse(address).reservation_number(), None, "{address}");
        let host = at_address(address, page).await;
        let shown = text(&host);
        assert!(shown.contains("This address does not name a reservation"), "{address}: {shown}");
        assert!(!shown.contains("#12") && !shown.contains("#1234"), "{address}: {shown}");
        host.remove();
    }
}

/// The workload page's kind and id come from the address too: a kind the console does not
/// know only finds the workload (the heading says "Workload"), and an id that is not one is
/// refused without repeating it.
#[wasm_bindgen_test]
async fn words_put_in_a_workload_address_are_never_shown_as_the_pages_own() {
    use reservations_console::pages::workload::WorkloadPage;
    let posing = "12%20is%20closed%3A%20call%20support%20on%20%2B1-555-0100";
    for (address, says) in [
        (format!("/reservations/12/workloads/{posing}/7"), "Workload #7"),
        (format!("/reservations/12/workloads/gpu_cluster/{posing}"), "This address does not name a workload"),
        ("/reservations/12/workloads/gpu_cluster/+7".to_owned(), "This address does not name a workload"),
    ] {
        let host = at_address(&address, || view! { <WorkloadPage/> }.into_any()).await;
        let shown = format!("{} {}", text(&host), web_sys::window().unwrap().document().unwrap().title());
        assert!(!shown.contains("support") && !shown.contains("555"), "{address}: {shown}");
        assert!(shown.contains(says), "{address}: {shown}");
        host.remove();
    }
    let host = at_address("/reservations/12/workloads/gpu_cluster/418", || view! { <WorkloadPage/> }.into_any()).await;
    assert_eq!(first_text(&host, "h1"), "GPU cluster #418", "a kind the console knows is named");
    assert_eq!(web_sys::window().unwrap().document().unwrap().title(), "GPU cluster #418 · Reserved GPUs");
    host.remove();
}
