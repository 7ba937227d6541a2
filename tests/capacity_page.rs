//! Capacity over the coming terms, as an owner and a member read it, fed fixture answers (no
//! network): one panel per region and GPU type with its drawing, the stretches in words and a
//! table of each term and how its renewal takes over; an amendment changing a term's GPUs
//! from the day it takes effect; the overlap's cost to the owner only.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    copy_summary, markdown_tables, mount_with, numbers, owner_detail, provide_console, reservation, settle, text,
    FakeClipboard,
};
use leptos::prelude::*;
use reservations_console::api::models::ReservationDetail;
use reservations_console::pages::capacity::CapacityBoard;
use reservations_console::reads::fleet::FleetStore;
use reservations_console::state::Role;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const H100: &str = "NVIDIA-H100-80GB-HBM3";

/// A term of `gpus` in `region` (seed 004's GPU type unless `gpu_type`), from `start` to `end`
/// (dates of midnight UTC), each `None` when not set.
fn term(
    id: i64,
    region: &str,
    gpu_type: Option<&str>,
    gpus: i64,
    dates: Option<(&str, &str)>,
    status: &str,
) -> serde_json::Value {
    let mut r = json!({ "id": id, "region_id": region, "reserved_gpus": gpus, "status": status,
        "starts_at": dates.map(|d| format!("{}T00:00:00Z", d.0)), "ends_at": dates.map(|d| format!("{}T00:00:00Z", d.1)) });
    if let Some(gpu_type) = gpu_type {
        r["gpu_type"] = gpu_type.into();
    }
    r
}

/// 6's detail: 3 nodes of 8 GPUs, an amendment lowering it to 2 on 1 Jun 2027 (as the demo's
/// #7); a member's key reads it without payment.
fn lowered_6(role: Role) -> ReservationDetail {
    let mut d =
        owner_detail(json!({ "id": 6, "region_id": "ams", "gpu_type": H100, "node_count": 3, "reserved_gpus": 24,
        "amendments": [{
            "effective_at": "2027-06-01T00:00:00Z", "node_count_before": 3, "node_count_after": 2,
            "drive_quota_gib_before": 5000, "drive_quota_gib_after": 5000,
            "fs_quota_gib_before": 20000, "fs_quota_gib_after": 20000
        }] }));
    if role == Role::Member {
        d.payment = None;
    }
    d
}

/// atl: 12 (seed) renewed by 14 at its end; ams: 6 (3 nodes, lowered to 2 on 1 Jun 2027)
/// renewed by 21 a week after its end (a gap); lax: 15 renewed by 22 a month before its end
/// (an overlap); phx: 18 ending, and 16 awaiting payment (no dates), which could renew it.
/// 6's detail is read; the owner's key has read 22's (rate $1.25) when `rate_read`.
fn mount_capacity(role: Role, rate_read: bool) -> web_sys::HtmlElement {
    let (host, ()) = mount_with(move || {
        let state = provide_console(role);
        let store = FleetStore::new();
        let session = state.session_id_untracked().unwrap();
        store.begin(session);
        let list = [
            term(22, "lax", None, 16, Some(("2027-07-01", "2028-07-01")), "scheduled"),
            term(21, "ams", Some(H100), 24, Some(("2027-10-08", "2028-10-08")), "scheduled"),
            term(18, "phx", Some(H100), 8, Some(("2026-06-01", "2027-06-01")), "active"),
            term(16, "phx", Some(H100), 8, None, "awaiting_payment"),
            term(15, "lax", None, 16, Some(("2027-02-01", "2027-08-01")), "assigning"),
            term(14, "atl", None, 32, Some(("2027-11-01", "2028-11-01")), "scheduled"),
            json!({ "id": 12 }),
            merge_node_count(term(6, "ams", Some(H100), 24, Some(("2026-10-01", "2027-10-01")), "active"), 3),
        ];
        store.receive_list(session, Ok(list.into_iter().map(reservation).collect()), console_fixtures::now());
        store.receive_detail(session, lowered_6(role));
        if rate_read && role == Role::Owner {
            store.receive_detail(session, owner_detail(json!({ "id": 22, "region_id": "lax", "status": "scheduled" })));
        }
        ((), view! { <CapacityBoard store/> })
    });
    host
}

fn merge_node_count(mut term: serde_json::Value, nodes: i64) -> serde_json::Value {
    term["node_count"] = nodes.into();
    term
}

/// A table row: its reservation, how the renewal takes over (`data-handover`), its text.
type Row = (String, String, String);

/// Each lane's heading and its rows.
fn lanes(host: &web_sys::HtmlElement) -> Vec<(String, Vec<Row>)> {
    let panels = host.query_selector_all("section.capacity-lane").unwrap();
    (0..panels.length())
        .map(|i| {
            let panel = panels.item(i).unwrap().unchecked_into::<web_sys::Element>();
            let heading = panel.query_selector("h2").unwrap().unwrap().text_content().unwrap();
            let rows = panel.query_selector_all("tbody tr").unwrap();
            let rows = (0..rows.length())
                .map(|j| {
                    let row = rows.item(j).unwrap().unchecked_into::<web_sys::Element>();
                    let id = row.query_selector("th").unwrap().unwrap().text_content().unwrap();
                    (id, row.get_attribute("data-handover").unwrap(), row.text_content().unwrap())
                })
                .collect();
            (heading, rows)
        })
        .collect()
}

fn row<'a>(lanes: &'a [(String, Vec<Row>)], id: &str) -> &'a Row {
    lanes.iter().flat_map(|(_, rows)| rows).find(|r| r.0 == id).unwrap_or_else(|| panic!("no row {id}"))
}

#[wasm_bindgen_test]
async fn a_member_reads_each_region_and_gpu_type_its_gaps_and_overlaps_and_never_money() {
    let host = mount_capacity(Role::Member, false);
    settle().await;
    let (found, page) = (lanes(&host), text(&host));
    let drawings = host.query_selector_all("section.capacity-lane svg[role=img]").unwrap().length();
    let gap_marks = host.query_selector_all("rect.capacity-gap").unwrap().length();
    let overlap_marks = host.query_selector_all("rect.capacity-overlap").unwrap().length();
    let headings: Vec<&str> = found.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(
        headings,
        [
            format!("ams · {H100}"),
            "atl · NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition".to_owned(),
            "lax · NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition".to_owned(),
            format!("phx · {H100}"),
        ]
    );
    let handovers: Vec<(&str, &str)> =
        found.iter().flat_map(|(_, rows)| rows).map(|(id, h, _)| (id.as_str(), h.as_str())).collect();
    assert_eq!(
        handovers,
        [
            ("#6", "danger"),
            ("#21", "danger"),
            ("#12", "ok"),
            ("#14", "danger"),
            ("#15", "warning"),
            ("#22", "danger"),
            ("#18", "unknown"),
            ("#16", "unknown")
        ]
    );
    let gap = &row(&found, "#6").2;
    assert!(
        gap.contains("#21 starts after a gap of 168 hours: 2,688 GPU-hours without reservation."),
        "16 GPUs go at the end, not the 24 listed today: {gap}"
    );
    assert!(gap.contains("then 16 GPUs from 1 Jun 2027"), "{gap}");
    assert!(
        page.contains(
            "24 GPUs reserved from 2 Dec 2026 to 1 Jun 2027; 16 GPUs reserved from 1 Jun 2027 to 1 Oct 2027;"
        ),
        "the amendment lowers the timeline from the day it takes effect: {page}"
    );
    assert!(
        page.contains("The amendments of #21 are not read yet: drawn at the GPUs listed today throughout."),
        "{page}"
    );
    let at_end = &row(&found, "#12").2;
    assert!(at_end.contains("#14 takes over the instant this term ends: no gap."), "{at_end}");
    assert!(at_end.contains("1 Nov 2026 – 1 Nov 2027"), "{at_end}");
    let overlap = &row(&found, "#15").2;
    assert!(
        overlap.contains(
            "#22 starts 744 hours before this term ends: 16 GPUs reserved twice for 744 hours, 11,904 GPU-hours."
        ),
        "{overlap}"
    );
    assert!(row(&found, "#14").2.contains("No renewal reserved: its GPUs stop at the end."));
    let awaiting = &row(&found, "#16").2;
    assert!(
        awaiting.contains("dates not set yet")
            && awaiting.contains("Its renewal is not known: this term has no dates yet."),
        "{awaiting}"
    );
    let may_renew = &row(&found, "#18").2;
    assert!(
        may_renew.contains("Its renewal is not known: #16 could be it, but has no dates yet."),
        "the wording of what stops when and the alerts: {may_renew}"
    );
    assert!(page.contains("no reserved GPUs from 1 Oct 2027 to 8 Oct 2027 (a gap of 168 hours)"), "{page}");
    assert!(
        page.contains("32 GPUs reserved from 2 Dec 2026 to 1 Nov 2028"),
        "the handover at the end is one stretch: {page}"
    );
    assert!(
        page.contains("Assumed: the renewal is the next reservation of the same region and GPU type by start date"),
        "{page}"
    );
    assert_eq!((drawings, gap_marks, overlap_marks), (4, 1, 1), "phx draws 18 alone: 16 has no dates");
    assert!(!page.contains('$') && !page.contains("Reserved twice costs"), "no money for a member: {page}");
}

#[wasm_bindgen_test]
async fn the_owner_reads_what_the_overlap_costs_at_the_renewals_rate_and_unknown_until_it_is_read() {
    let host = mount_capacity(Role::Owner, true);
    settle().await;
    let found = lanes(&host);
    let overlap = row(&found, "#15").2.clone();
    let gap = row(&found, "#6").2.clone();
    let unread = mount_capacity(Role::Owner, false);
    settle().await;
    let not_read = row(&lanes(&unread), "#15").2.clone();
    assert!(overlap.contains("$14,880.00") && overlap.contains("11,904 GPU-hours × $1.25"), "{overlap}");
    assert!(overlap.contains("assumed"), "the pricing is an assumption: {overlap}");
    assert!(gap.ends_with('—'), "a gap costs nothing twice: {gap}");
    assert!(not_read.contains("#22's rate not read yet") && !not_read.contains('$'), "never $0: {not_read}");
}

/// The cells of each body row of `panel`'s table, each the text of its parts joined by spaces
/// (a figure and the line under it are two, as a reader sees them).
fn spaced_rows(panel: &web_sys::Element) -> Vec<Vec<String>> {
    let rows = panel.query_selector_all("tbody tr").unwrap();
    (0..rows.length())
        .map(|i| {
            let cells =
                rows.item(i).unwrap().unchecked_into::<web_sys::Element>().query_selector_all("th, td").unwrap();
            (0..cells.length())
                .map(|j| {
                    let parts = cells.item(j).unwrap().child_nodes();
                    let words: Vec<String> = (0..parts.length())
                        .filter_map(|k| parts.item(k).unwrap().text_content())
                        .map(|t| t.trim().to_owned())
                        .filter(|t| !t.is_empty())
                        .collect();
                    words.join(" ")
                })
                .collect()
        })
        .collect()
}

#[wasm_bindgen_test]
async fn the_copied_lanes_hold_the_figures_shown_and_the_overlap_cost_only_when_asked() {
    let host = mount_capacity(Role::Owner, true);
    settle().await;
    let clipboard = FakeClipboard::accepting();
    let copied = copy_summary(&host, ".capacity-page .page-head", &clipboard, false, true).await;
    assert!(copied.starts_with("# Capacity over the coming terms\n\nAs of 2 Dec 2026, 09:30 UTC: http"), "{copied}");
    assert!(copied.lines().nth(2).unwrap().ends_with("/capacity"), "{copied}");
    let panels = host.query_selector_all(".capacity-lane").unwrap();
    let tables = markdown_tables(&copied);
    assert_eq!(tables.len() as u32, panels.length(), "{copied}");
    for (i, table) in tables.iter().enumerate() {
        let panel = panels.item(i as u32).unwrap().unchecked_into::<web_sys::Element>();
        let words = panel.query_selector(".capacity-stretches").unwrap().unwrap().text_content().unwrap();
        assert!(copied.contains(&words), "the stretches as shown: {words}");
        let shown = spaced_rows(&panel);
        assert_eq!(table.len() - 1, shown.len());
        for (copy, page) in table[1..].iter().zip(&shown) {
            assert_eq!(copy[0], page[0], "the same term");
            assert_eq!(numbers(&copy[1..].join(" ")), numbers(&page[1..].join(" ")), "{copy:?} {page:?}");
        }
    }
    assert!(copied.contains('$'), "the owner asked for amounts: {copied}");
    let without = copy_summary(&host, ".capacity-page .page-head", &clipboard, true, false).await;
    assert!(!without.contains('$') && !without.contains("Reserved twice costs"), "{without}");
}
