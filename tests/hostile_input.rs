//! Hostile input from the API (issue 6): markup, `javascript:` URLs, right-to-left
//! overrides and 10,000-character names render as inert text, isolated from the text
//! around them, without widening the layout; links stay console paths; absurd numbers
//! are shown as reported and flagged, never corrected and never a crash.
//!
//! The views are mounted with the console's real stylesheets in a 360 px column, so the
//! layout assertions are the ones a phone would see.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    mount, now, page_style, provide_console, provide_fleet, reservation, settle, settle_drawn, text,
};
use leptos::prelude::*;
use reservations_console::api::enums::NodeState;
use reservations_console::api::models::NodesResponse;
use reservations_console::api::org::OrgReservation;
use reservations_console::components::alerts_bell::AlertsBell;
use reservations_console::pages::nodes::{NodesBoard, NodesModel};
use reservations_console::pages::org::OrgView;
use reservations_console::pages::overview::OverviewBoard;
use reservations_console::pages::reservations::ReservationsView;
use reservations_console::reads::nodes::use_nodes;
use reservations_console::state::Role;
use serde_json::json;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const MARKUP: &str = "<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=1</script>";
const JS_URL: &str = "javascript:window.__pwned=1";
/// U+202E RIGHT-TO-LEFT OVERRIDE, unterminated: unisolated it would reverse what follows.
const RLO: &str = "\u{202E}fdp.exe";

fn long_name() -> String {
    "W".repeat(10_000)
}

const STYLES: [&str; 4] = [
    include_str!("../style/main.css"),
    include_str!("../style/nodes.css"),
    include_str!("../style/org.css"),
    include_str!("../style/overview.css"),
];

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// The console's stylesheets, once per test page.
fn load_styles() {
    if document().get_element_by_id("hostile-styles").is_none() {
        page_style(&STYLES.concat()).set_id("hostile-styles");
    }
}

/// Mounts `view` in a 360 px column with the console's styles.
fn mount_narrow<F, N>(view: F) -> web_sys::HtmlElement
where
    F: FnOnce() -> N + 'static,
    N: IntoView,
{
    load_styles();
    let host = mount(view);
    host.style().set_property("width", "360px").unwrap();
    host.style().set_property("overflow", "hidden").unwrap();
    host
}

fn all(host: &web_sys::HtmlElement, css: &str) -> Vec<web_sys::HtmlElement> {
    let list = host.query_selector_all(css).unwrap();
    (0..list.length()).filter_map(|i| list.item(i)).map(|n| n.unchecked_into()).collect()
}

/// Nothing the API sent became an element or ran.
fn assert_inert(host: &web_sys::HtmlElement) {
    assert!(all(host, "img, script, iframe, object, embed").is_empty(), "markup from the API became elements");
    let pwned = js_sys::Reflect::get(&web_sys::window().unwrap(), &"__pwned".into()).unwrap();
    assert!(pwned.is_undefined(), "a script from the API ran");
    for link in all(host, "a[href]") {
        let href = link.get_attribute("href").unwrap();
        assert!(href.starts_with('/') && !href.starts_with("//"), "a link left the console: {href}");
        assert!(!href.to_ascii_lowercase().contains("javascript"), "{href}");
    }
}

/// Whether `element` isolates its text's direction from the text around it: a `<bdi>`, or
/// `unicode-bidi` set to isolate; else what it is set to.
fn isolation(element: &web_sys::Element) -> Result<(), String> {
    let style = web_sys::window().unwrap().get_computed_style(element).unwrap().unwrap();
    let bidi = style.get_property_value("unicode-bidi").unwrap();
    let isolates = element.tag_name().eq_ignore_ascii_case("bdi")
        || bidi == "isolate"
        || bidi == "isolate-override"
        || bidi == "plaintext";
    if isolates {
        Ok(())
    } else {
        Err(format!("<{}> with unicode-bidi: {bidi}", element.tag_name().to_lowercase()))
    }
}

/// Every element matching `css` stays inside the 360 px column and isolates its text's
/// direction from the text around it.
fn assert_contained_and_isolated(host: &web_sys::HtmlElement, css: &str) {
    let column = host.client_width();
    let found = all(host, css);
    assert!(!found.is_empty(), "nothing matches {css}");
    for element in found {
        let width = element.offset_width();
        assert!(width <= column, "{css} is {width} px wide, past the {column} px column");
        if let Err(not) = isolation(&element) {
            panic!("{css} does not isolate its direction: {not}");
        }
    }
    assert!(
        host.scroll_width() <= host.client_width(),
        "the column scrolls sideways: {} > {}",
        host.scroll_width(),
        host.client_width()
    );
}

fn hostile_nodes() -> NodesResponse {
    serde_json::from_value(json!({
        "workloads_unknown": false,
        "nodes": [
            {
                "display_name": MARKUP, "state": "ready", "gpus": 8, "gpus_in_use": 8,
                "workloads": [
                    { "kind": "gpu_instance", "id": 7, "name": MARKUP, "gpus": 2, "billing": "reserved" },
                    { "kind": "gpu_cluster", "id": 8, "name": JS_URL, "gpus": 2 },
                    { "kind": "inference_instance", "id": 9, "name": RLO, "gpus": 2 },
                    { "kind": "<b>batch</b>", "id": 10, "name": long_name(), "gpus": 2 }
                ]
            },
            { "display_name": long_name(), "state": "ready", "gpus": 8, "gpus_in_use": 0, "workloads": [] }
        ]
    }))
    .unwrap()
}

#[wasm_bindgen_test]
async fn hostile_workload_and_node_names_render_as_inert_isolated_text_that_wraps() {
    let host = mount_narrow(|| {
        provide_console(Role::Owner);
        let model = NodesModel::of(use_nodes(), 12);
        model.receive(Ok(hostile_nodes()), now());
        view! { <NodesBoard model reservation=12/> }
    });
    settle_drawn().await;
    assert_inert(&host);
    let shown = text(&host);
    for raw in [MARKUP, JS_URL] {
        assert!(shown.contains(raw), "{raw:?} is shown as sent");
    }
    // The override is shown, not obeyed: "fdp.exe" cannot pose as "exe.pdf".
    assert!(shown.contains("⟨RLO⟩fdp.exe") && !shown.contains('\u{202E}'), "the control made visible: {shown:.600}");
    assert!(shown.contains(&long_name()), "the long name is shown whole");
    assert!(shown.contains("<b>batch</b> (unrecognised)"), "an unknown kind is shown as sent, marked: {shown:.300}");
    let hrefs: Vec<String> = all(&host, "a[href]").iter().map(|a| a.get_attribute("href").unwrap()).collect();
    assert_eq!(
        hrefs,
        [
            "/reservations/12/workloads/gpu_instance/7",
            "/reservations/12/workloads/gpu_cluster/8",
            "/reservations/12/workloads/inference_instance/9",
            "/reservations/12/workloads/%3Cb%3Ebatch%3C%2Fb%3E/10"
        ],
        "ids and kinds, not names, make the links to the console's workload page, escaped"
    );
    assert_contained_and_isolated(&host, ".workload-name");
    assert_contained_and_isolated(&host, ".node-name");
    // A 10,000-character name is clamped in its card, the whole of it in the title.
    let tallest = all(&host, "article.node-card").iter().map(|card| card.offset_height()).max().unwrap();
    assert!(tallest < 400, "a card grew with its longest name: {tallest} px");
    let long = all(&host, "a.workload-name").into_iter().find(|a| a.text_content().unwrap().len() >= 10_000).unwrap();
    assert_eq!(long.get_attribute("title"), Some(long_name()), "the whole name in the title");
}

#[wasm_bindgen_test]
async fn absurd_gpu_counts_are_shown_as_reported_and_flagged_never_corrected() {
    let absurd: NodesResponse = serde_json::from_value(json!({
        "workloads_unknown": false,
        "nodes": [
            { "display_name": "node-neg", "state": "ready", "gpus": -4, "gpus_in_use": 0, "workloads": [] },
            { "display_name": "node-over", "state": "ready", "gpus": 8, "gpus_in_use": 12,
              "workloads": [{ "kind": "gpu_instance", "id": 1, "name": "nb", "gpus": -2 }] },
            { "display_name": "node-huge", "state": "ready", "gpus": 1_000_000_000, "gpus_in_use": 0, "workloads": [] }
        ]
    }))
    .unwrap();
    let host = mount_narrow(move || {
        provide_console(Role::Owner);
        let model = NodesModel::of(use_nodes(), 12);
        model.receive(Ok(absurd), now());
        view! { <NodesBoard model reservation=12/> }
    });
    settle_drawn().await;
    let shown = text(&host);
    for reported in [
        "The API reports a negative GPU count (-4).",
        "The API reports 12 GPUs in use on a node with 8.",
        "Workload nb reports a negative GPU count (-2).",
        "12 of 8 in use",
    ] {
        assert!(shown.contains(reported), "{reported:?} in {shown}");
    }
    assert!(shown.contains("2 nodes report figures that do not add up"), "the totals flag the two: {shown}");
    assert!(shown.contains("0 of 1000000000 in use"), "the largest count read, as reported: {shown:.400}");
    let cells = all(&host, ".gpu-cell").len();
    assert!(cells < 1_000, "a node of 10^9 GPUs draws a bounded number of cells, drew {cells}");
}

#[wasm_bindgen_test]
async fn a_node_with_an_absurd_workload_is_flagged_its_gpus_unknown_and_its_neighbour_shows() {
    let answer: NodesResponse = serde_json::from_value(json!({
        "workloads_unknown": false,
        "nodes": [
            { "display_name": "node-sane", "state": "ready", "gpus": 8, "gpus_in_use": 2,
              "workloads": [{ "kind": "gpu_instance", "id": 1, "name": "nb", "gpus": 2 }] },
            { "display_name": "node-absurd", "state": "ready", "gpus": 8, "gpus_in_use": 8,
              "workloads": [{ "kind": "gpu_instance", "id": 2, "name": "big", "gpus": u64::MAX }] }
        ]
    }))
    .expect("the answer is read");
    let host = mount_narrow(move || {
        provide_console(Role::Owner);
        let model = NodesModel::of(use_nodes(), 12);
        model.receive(Ok(answer), now());
        view! { <NodesBoard model reservation=12/> }
    });
    settle_drawn().await;
    let shown = text(&host);
    assert_eq!(all(&host, "article.node-card").len(), 1, "the sane node's card: {shown:.400}");
    assert!(shown.contains("node-sane"), "{shown:.400}");
    assert!(
        shown.contains(
            "The figures of node-absurd (workload #2 gpus: the count 18,446,744,073,709,551,615 is out of range"
        ) && shown.contains("its 8 GPUs are unknown, outside these totals"),
        "the absurd node flagged, its GPUs unknown: {shown}"
    );
}

fn org(overrides: serde_json::Value) -> OrgReservation {
    let mut base = json!({
        "id": "rsv_1", "status": "active", "nodeId": "node-a",
        "reservedUnitIds": ["u1", "u2"], "releasedUnitIds": [],
        "allowedOrgIds": ["org_acme"], "managingOrgIds": [],
        "startsAt": "2026-11-01T00:00:00Z"
    });
    for (k, v) in overrides.as_object().unwrap() {
        base[k] = v.clone();
    }
    serde_json::from_value(base).unwrap()
}

#[wasm_bindgen_test]
async fn hostile_org_ids_reasons_and_contract_refs_render_as_inert_text_and_extreme_dates_as_sent() {
    let listed = vec![org(json!({
        "id": MARKUP,
        "nodeId": RLO,
        "allowedOrgIds": ["org_acme", MARKUP, JS_URL, long_name()],
        "managingOrgIds": [RLO],
        "reason": MARKUP,
        "contractRef": JS_URL,
        "reservedUnitIds": [long_name(), "u2"],
        "startsAt": "9999-12-31T23:59:59Z",
        "endsAt": "1969-07-20T20:17:00Z",
        "topologyGen": -3
    }))];
    let host = mount_narrow(move || {
        provide_console(Role::Member);
        view! { <OrgView org_id="org_acme".to_owned() reservations=listed on_reclaimed=Callback::new(|_| ())/> }
    });
    settle().await;
    assert_inert(&host);
    let shown = text(&host);
    for raw in [MARKUP, JS_URL] {
        assert!(shown.contains(raw), "{raw:?} is shown as sent");
    }
    assert!(shown.contains("⟨RLO⟩fdp.exe") && !shown.contains('\u{202E}'), "the control made visible: {shown:.600}");
    assert!(shown.contains("9999") && shown.contains("1969"), "extreme dates are shown as sent: {shown:.600}");
    assert!(shown.contains("Topology generation-3"), "a negative topology generation is shown as reported");
    assert!(shown.contains("It is reported to end before it starts."), "an end before the start is flagged");
    assert_contained_and_isolated(&host, ".org-chip");
    assert_contained_and_isolated(&host, ".org-card-head h2");
}

#[wasm_bindgen_test]
async fn a_hostile_contract_ref_and_absurd_counts_and_dates_in_the_list_are_shown_as_sent_and_flagged() {
    let listed = vec![reservation(json!({
        "contract_ref": MARKUP,
        "gpu_type": RLO,
        "node_count": -1,
        "reserved_gpus": 1_000_000_000,
        "starts_at": "1969-12-31T23:59:59Z",
        "ends_at": "9999-12-31T23:59:59Z"
    }))];
    let host = mount_narrow(move || {
        provide_console(Role::Owner);
        view! { <ReservationsView reservations=listed/> }
    });
    settle().await;
    assert_inert(&host);
    let shown = text(&host);
    assert!(shown.contains(MARKUP), "shown as sent: {shown:.600}");
    // The rows are written as HTML through `Html`, as the node cards are: the control shown.
    assert!(shown.contains("⟨RLO⟩fdp.exe") && !shown.contains('\u{202E}'), "the control made visible: {shown:.600}");
    assert!(shown.contains("1000000000"), "the reserved GPUs as reported: {shown:.600}");
    assert!(shown.contains('⚠'), "nodes × GPUs per node ≠ reserved GPUs is flagged: {shown:.600}");
    assert!(shown.contains("9999") && shown.contains("1969"), "extreme dates as sent: {shown:.600}");
    let hrefs: Vec<String> = all(&host, "a[href]").iter().map(|a| a.get_attribute("href").unwrap()).collect();
    assert_eq!(hrefs, ["/reservations/12"], "the link is built from the numeric id");
}

#[wasm_bindgen_test]
async fn a_charge_of_a_trillion_dollars_is_shown_exactly_and_flagged_against_the_terms() {
    use console_fixtures::owner_detail;
    use reservations_console::pages::reservation::ReservationView;
    let charge = json!({
        "period_index": 1, "adjustment": false,
        "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
        "gpu_amount_usd": 1e12, "storage_amount_usd": 0, "amount_usd": 1e12,
        "advance_applied_usd": 0, "status": "scheduled"
    });
    let detail = owner_detail(json!({ "payment": { "next_charge": charge.clone(), "charges": [charge] } }));
    let host = mount_narrow(move || {
        provide_console(Role::Owner);
        view! { <ReservationView detail/> }
    });
    settle().await;
    let shown = text(&host);
    assert!(shown.contains("$1,000,000,000,000.00"), "the amount exactly as sent: {shown:.800}");
    assert!(shown.contains("does not match the terms"), "31 days × 24 h × 32 GPUs × $1.25 is $29,760: flagged");
    assert!(!shown.contains("$29,760.00 scheduled"), "the reported amount is never replaced by the expected one");
}

/// Mounts `view` with the console's styles in a frame `width` px wide: the frame is the
/// viewport its media queries see, as a phone's or a desktop's window is.
fn mount_in_frame<F, N>(width: u32, view: F) -> web_sys::HtmlElement
where
    F: FnOnce() -> N + 'static,
    N: IntoView,
{
    let outer = document();
    let frame = outer.create_element("iframe").unwrap();
    frame.set_attribute("style", &format!("width: {width}px; height: 900px; border: 0")).unwrap();
    outer.body().unwrap().append_child(&frame).unwrap();
    let inner: web_sys::Document = js_sys::Reflect::get(&frame, &"contentDocument".into()).unwrap().unchecked_into();
    let style = inner.create_element("style").unwrap();
    style.set_text_content(Some(&STYLES.concat()));
    inner.head().unwrap().append_child(&style).unwrap();
    let host: web_sys::HtmlElement = inner.create_element("div").unwrap().unchecked_into();
    inner.body().unwrap().append_child(&host).unwrap();
    leptos::mount::mount_to(host.clone(), view).forget();
    host
}

/// The frame's page never scrolls sideways; from 1280 px no table has to either (between
/// the cards and 1280 px a wide table scrolls in its own focusable scroller).
fn assert_nothing_scrolls_sideways(host: &web_sys::HtmlElement, width: u32) {
    let page = host.owner_document().unwrap().document_element().unwrap();
    let wide: Vec<String> = all(host, "*")
        .into_iter()
        .filter_map(|e| {
            let rect = js_sys::Reflect::get(&e, &"getBoundingClientRect".into()).ok()?;
            let rect = js_sys::Function::from(rect).call0(&e).ok()?;
            let right = js_sys::Reflect::get(&rect, &"right".into()).ok()?.as_f64()?;
            (right > f64::from(page.client_width()))
                .then(|| format!("{}.{} {right}", e.tag_name(), e.get_attribute("class").unwrap_or_default()))
        })
        .collect();
    assert!(
        page.scroll_width() <= page.client_width(),
        "at {width} px the page scrolls: {} (wider than the page: {wide:?})",
        page.scroll_width()
    );
    for wrap in all(host, ".table-wrap").into_iter().filter(|_| width >= 1280) {
        assert!(
            wrap.scroll_width() <= wrap.client_width(),
            "at {width} px a table is {} px wide in its {} px scroller",
            wrap.scroll_width(),
            wrap.client_width()
        );
    }
}

#[wasm_bindgen_test]
async fn long_contract_refs_status_badges_and_check_notes_wrap_from_360_to_1280_px() {
    use console_fixtures::owner_detail;
    use reservations_console::pages::reservation::ReservationView;
    let contract = format!("MSA-{}", "0123456789".repeat(12));
    let status = "frozen_while_the_region_is_migrated_to_new_hardware_and_nobody_may_launch";
    // A charge off the terms: its check note is the longest text of the table.
    let charge = json!({
        "period_index": 1, "adjustment": false,
        "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
        "gpu_amount_usd": 29761, "storage_amount_usd": 0, "amount_usd": 29761,
        "advance_applied_usd": 0, "status": status
    });
    for width in [360, 390, 768, 1280] {
        let (contract, charge) = (contract.clone(), charge.clone());
        let detail = owner_detail(json!({
            "contract_ref": contract, "status": status,
            "payment": { "next_charge": charge.clone(), "charges": [charge] }
        }));
        let host = mount_in_frame(width, move || {
            provide_console(Role::Owner);
            view! { <ReservationView detail/> }
        });
        settle().await;
        assert!(text(&host).contains(&contract), "the contract ref is shown whole");
        assert!(text(&host).contains(&format!("{status} (unrecognised)")), "the badge is shown whole, not cut");
        assert_nothing_scrolls_sideways(&host, width);

        let listed = vec![reservation(json!({ "contract_ref": contract, "status": status }))];
        let host = mount_in_frame(width, move || {
            provide_console(Role::Owner);
            view! { <ReservationsView reservations=listed/> }
        });
        settle().await;
        assert_nothing_scrolls_sideways(&host, width);
    }
}

/// A node of eight GPUs running five workloads, with names of some length.
fn five_workloads() -> NodesResponse {
    let names = ["train-llama-70b-sft-run-7", "notebook-ana", "serve-mixtral", "eval-nightly-2026-12-02", "ft-whisper"];
    let kinds = ["gpu_cluster", "gpu_instance", "inference_instance", "gpu_instance", "fine_tune"];
    let workloads: Vec<_> = names
        .iter()
        .zip(kinds)
        .enumerate()
        .map(|(i, (name, kind))| json!({ "kind": kind, "id": 100 + i, "name": name, "gpus": 1 }))
        .collect();
    serde_json::from_value(json!({ "workloads_unknown": false, "nodes": [
        { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 5, "workloads": workloads }
    ] }))
    .unwrap()
}

/// `side` (`top`, `bottom`, `height`) of `element`'s box (web-sys's DOMRect is not enabled).
fn rect(element: &web_sys::Element, side: &str) -> f64 {
    let measure = js_sys::Function::from(js_sys::Reflect::get(element, &"getBoundingClientRect".into()).unwrap());
    js_sys::Reflect::get(&measure.call0(element).unwrap(), &side.into()).unwrap().as_f64().unwrap()
}

/// Whether `element` is laid out and ends above `bottom` (not cut off by its card).
fn shown_above(element: &web_sys::Element, bottom: f64) -> bool {
    rect(element, "height") > 0.0 && rect(element, "bottom") <= bottom + 0.5
}

/// Cards are rows of a fixed height (the windowing of 10,000 nodes counts them in pixels):
/// a node with more workloads than fit lists two and a visible "+N more" that, opened,
/// shows the others over the card, every one within it.
#[wasm_bindgen_test]
async fn a_card_with_five_workloads_shows_each_or_a_visible_more_from_360_to_1920_px() {
    for width in [360, 1920] {
        let host = mount_in_frame(width, move || {
            provide_console(Role::Member);
            let model = NodesModel::of(use_nodes(), 12);
            model.receive(Ok(five_workloads()), now());
            view! { <NodesBoard model reservation=12/> }
        });
        settle_drawn().await;
        console_fixtures::sleep(50).await;
        let card = all(&host, "article.node-card").into_iter().next().expect("the card");
        let grid = card.closest(".node-grid").unwrap().unwrap();
        let row = host.owner_document().unwrap().default_view().unwrap().get_computed_style(&grid).unwrap().unwrap();
        let row = row.get_property_value("grid-auto-rows").unwrap();
        assert_eq!(format!("{}px", card.offset_height()), row, "at {width} px the card keeps the grid's row height");
        let body_bottom = rect(&card.query_selector(".node-body").unwrap().unwrap(), "bottom");
        let listed = all(&host, ".node-body > .node-workloads > li");
        assert_eq!(listed.len(), 2, "at {width} px");
        assert!(listed.iter().all(|li| shown_above(li, body_bottom)), "at {width} px a listed workload is cut off");
        let more: web_sys::HtmlElement =
            card.query_selector(".workloads-more > summary").unwrap().expect("a +N more").unchecked_into();
        assert_eq!(more.inner_text(), "+3 more");
        assert!(shown_above(&more, body_bottom), "at {width} px the +3 more is cut off");

        more.click();
        settle().await;
        let card_bottom = rect(&card, "bottom");
        let rest = all(&host, ".workloads-more a.workload-name");
        assert!(rest.iter().all(|a| shown_above(a, card_bottom)), "at {width} px an opened workload is cut off");
        let names: Vec<String> = all(&host, "a.workload-name").iter().map(|a| a.text_content().unwrap()).collect();
        assert_eq!(names.len(), 5, "every workload is reachable: {names:?}");
        assert_eq!(format!("{}px", card.offset_height()), row, "opened, the card keeps its height");
    }
}

/// The API's text holding [`RLO`] as `view` shows it: the control shown, never obeyed,
/// anywhere in it, and each text holding the name in an element that isolates it; at least
/// `places` of them.
fn assert_override_shown_and_isolated(host: &web_sys::HtmlElement, view: &str, places: usize) {
    let shown = host.text_content().unwrap_or_default();
    if let Some(at) = shown.find('\u{202E}') {
        let before: Vec<char> = shown[..at].chars().rev().take(150).collect();
        let (before, after): (String, String) =
            (before.into_iter().rev().collect(), shown[at..].chars().take(150).collect());
        panic!("{view}: the override is obeyed, not shown: …{before}{after}…");
    }
    let mut holders = Vec::new();
    for element in all(host, "*") {
        let children = element.child_nodes();
        let holds = (0..children.length()).filter_map(|i| children.item(i)).any(|child| {
            child.node_type() == web_sys::Node::TEXT_NODE
                && child.text_content().is_some_and(|t| t.contains("⟨RLO⟩fdp.exe"))
        });
        if holds {
            holders.push(isolation(&element).map_err(|not| format!("{}: {not}", element.text_content().unwrap())));
        }
    }
    assert!(holders.len() >= places, "{view}: the name shown in {} places, not {places}: {shown:.600}", holders.len());
    let unisolated: Vec<String> = holders.into_iter().filter_map(Result::err).collect();
    assert!(unisolated.is_empty(), "{view}: not isolated: {unisolated:?}");
}

/// Node, workload and kind all named with a right-to-left override: node-r runs model
/// instance 9 and workload 10 of a kind the console does not know.
fn override_nodes() -> NodesResponse {
    serde_json::from_value(json!({
        "workloads_unknown": false,
        "nodes": [{
            "display_name": RLO, "state": "ready", "gpus": 8, "gpus_in_use": 4,
            "workloads": [
                { "kind": "inference_instance", "id": 9, "name": RLO, "gpus": 2 },
                { "kind": RLO, "id": 10, "name": RLO, "gpus": 2 }
            ]
        }]
    }))
    .unwrap()
}

#[wasm_bindgen_test]
async fn the_workload_page_shows_an_override_in_its_name_and_nodes_isolated() {
    use console_fixtures::at_address;
    use reservations_console::pages::workload::WorkloadPage;
    let host = at_address("/reservations/12/workloads/inference_instance/9", || {
        let nodes = use_nodes();
        let session = nodes.begin_current().unwrap();
        nodes.receive(session, 12, Ok(Arc::new(override_nodes())), now());
        view! { <WorkloadPage/> }.into_any()
    })
    .await;
    // Its name and the node it runs on.
    assert_override_shown_and_isolated(&host, "workload page", 2);
    host.remove();
}

#[wasm_bindgen_test]
async fn search_results_show_an_override_in_names_kinds_and_nodes_isolated() {
    use reservations_console::components::node_filters::FoundWorkloads;
    use reservations_console::domain::nodes::filter::found_workloads;
    let host = mount_narrow(|| {
        let found = found_workloads(&override_nodes().nodes, "fdp");
        view! { <FoundWorkloads reservation=12 found=Signal::stored(found)/> }
    });
    settle().await;
    // Two workloads' names and nodes, and the unknown kind.
    assert_override_shown_and_isolated(&host, "search results", 5);
}

#[wasm_bindgen_test]
async fn the_reservations_facts_show_an_override_in_its_type_region_and_contract_isolated() {
    use console_fixtures::owner_detail;
    use reservations_console::pages::reservation::ReservationView;
    let host = mount_narrow(|| {
        provide_console(Role::Owner);
        let detail = owner_detail(json!({ "gpu_type": RLO, "region_id": RLO, "contract_ref": RLO }));
        view! { <ReservationView detail/> }
    });
    settle().await;
    assert_override_shown_and_isolated(&host, "reservation", 3);
    let facts = all(&host, ".facts dd bdi").len();
    assert!(facts >= 3, "GPU type, region and contract each isolated in the facts: {facts}");
}

#[wasm_bindgen_test]
async fn the_nodes_page_line_shows_an_override_in_its_type_and_region_isolated() {
    use console_fixtures::owner_detail;
    use reservations_console::pages::nodes::ReservationLine;
    let host = mount_narrow(|| {
        provide_console(Role::Member);
        let detail = owner_detail(json!({ "gpu_type": RLO, "region_id": RLO }));
        view! { <ReservationLine detail/> }
    });
    settle().await;
    assert_override_shown_and_isolated(&host, "nodes page line", 2);
}

#[wasm_bindgen_test]
async fn the_overview_rows_show_an_override_in_regions_and_gpu_types_isolated() {
    let host = mount_narrow(|| {
        let (store, nodes, session) = provide_fleet(Role::Owner);
        let list = vec![reservation(json!({ "id": 12, "region_id": RLO, "gpu_type": RLO, "node_count": 1 }))];
        store.receive_list(session, Ok(list), now());
        nodes.receive(session, 12, Ok(Arc::new(override_nodes())), now());
        view! { <OverviewBoard store/> }
    });
    settle().await;
    // The row's region and type, and the rows by region and by GPU type.
    assert_override_shown_and_isolated(&host, "overview", 4);
}

#[wasm_bindgen_test]
async fn an_alert_shows_an_override_in_a_node_name_isolated() {
    let host = mount_narrow(|| {
        let (store, nodes, session) = provide_fleet(Role::Member);
        store.receive_list(session, Ok(vec![reservation(json!({ "id": 12, "node_count": 1 }))]), now());
        nodes.receive(session, 12, Ok(Arc::new(override_nodes())), now());
        let mut maintenance = override_nodes();
        maintenance.nodes[0].state = NodeState::UnderMaintenance;
        nodes.receive(session, 12, Ok(Arc::new(maintenance)), now());
        view! { <AlertsBell/> }
    });
    settle().await;
    host.query_selector("summary").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
    console_fixtures::sleep(50).await;
    settle().await;
    let items: Vec<String> = all(&host, ".alerts-list li").iter().map(|li| li.text_content().unwrap()).collect();
    assert!(items.iter().any(|i| i.contains("fdp.exe of reservation #12 went under maintenance")), "{items:?}");
    assert_override_shown_and_isolated(&host, "alerts", 1);
}

/// The fit page at `address`, with reservation 12 in region and GPU type [`RLO`] on
/// [`override_nodes`] (4 GPUs free on the node named [`RLO`]).
async fn fit_at(address: &str) -> web_sys::HtmlElement {
    use reservations_console::pages::fit::FitBoard;
    console_fixtures::at_address(address, || {
        let (store, nodes, session) = provide_fleet(Role::Member);
        let list = vec![reservation(json!({ "id": 12, "region_id": RLO, "gpu_type": RLO, "node_count": 1 }))];
        store.receive_list(session, Ok(list), now());
        nodes.receive(session, 12, Ok(Arc::new(override_nodes())), now());
        view! { <FitBoard store/> }.into_any()
    })
    .await
}

/// The text of `host`'s elements matching `css`.
fn texts(host: &web_sys::HtmlElement, css: &str) -> Vec<String> {
    all(host, css).iter().map(|e| e.text_content().unwrap_or_default()).collect()
}

#[wasm_bindgen_test]
async fn the_fit_page_shows_an_override_in_regions_gpu_types_and_nodes_isolated() {
    // `type` as the reservation's: its verdict and the room on its node are shown.
    let host = fit_at("/fit?gpus=1&type=%E2%80%AEfdp.exe").await;
    let options = texts(&host, "option");
    assert!(options.iter().all(|o| !o.contains('\u{202E}')), "{options:?}");
    assert!(options.iter().any(|o| o.contains("⟨RLO⟩fdp.exe")), "{options:?}");
    let table = host.query_selector(".fit-table").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>();
    // The reservation's region and GPU type (one cut text), and the node with room.
    assert_override_shown_and_isolated(&table, "fit verdicts", 2);
    host.remove();
}

#[wasm_bindgen_test]
async fn the_fit_page_never_echoes_the_address_as_its_own_words() {
    // A GPU count that reads "A100" and a region no reservation has.
    let host = fit_at("/fit?gpus=%E2%80%AE001A&region=Reconnect%20at%20evil.example").await;
    let problems = texts(&host, "[role=alert] li");
    assert!(!problems.is_empty(), "the count is refused");
    assert!(problems.iter().all(|p| !p.contains("001A")), "the address's text said as the console's: {problems:?}");
    assert!(!text(&host).contains('\u{202E}'), "{}", text(&host));
    let selected: Vec<String> = all(&host, "#fit-region option")
        .into_iter()
        .filter(|o| o.get_attribute("value").as_deref() == Some("Reconnect at evil.example"))
        .map(|o| o.text_content().unwrap())
        .collect();
    assert_eq!(selected.len(), 1, "the address's region stays selectable");
    assert!(
        selected[0] != "Reconnect at evil.example" && selected[0].contains("address"),
        "offered as the address's: {selected:?}"
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn the_capacity_lanes_show_an_override_in_their_region_and_gpu_type_isolated() {
    use reservations_console::pages::capacity::CapacityBoard;
    let host = mount_narrow(|| {
        let (store, _, session) = provide_fleet(Role::Member);
        let list = vec![reservation(json!({ "id": 12, "region_id": RLO, "gpu_type": RLO }))];
        store.receive_list(session, Ok(list), now());
        view! { <CapacityBoard store/> }
    });
    settle().await;
    // The lane's heading: its region and GPU type, one cut text.
    assert_override_shown_and_isolated(&host, "capacity", 1);
    let labels: Vec<String> = all(&host, "[aria-label]").iter().filter_map(|e| e.get_attribute("aria-label")).collect();
    assert!(labels.iter().all(|l| !l.contains('\u{202E}')), "{labels:?}");
}

#[wasm_bindgen_test]
async fn the_ledger_shows_an_override_in_regions_gpu_types_statuses_and_errors_isolated() {
    use console_fixtures::owner_detail;
    use reservations_console::domain::money::ledger::{ledger, Account, Missing, Row};
    use reservations_console::pages::ledger::LedgerBoard;
    let host = mount_narrow(|| {
        provide_console(Role::Owner);
        let detail = owner_detail(json!({ "region_id": RLO, "gpu_type": RLO, "status": RLO }));
        let unread = Row { reservation: detail.reservation.clone(), ledger: Err(Missing::NotRead(RLO.to_owned())) };
        let rows = vec![Row { ledger: ledger(&detail), reservation: detail.reservation }, unread];
        view! { <LedgerBoard account=Account::of(rows) read_at=now()/> }
    });
    settle().await;
    // Each row's region and GPU type (one cut text) and unrecognised status; the error in
    // the unread row's cell and in the account's note.
    assert_override_shown_and_isolated(&host, "ledger", 6);
}

#[wasm_bindgen_test]
async fn the_launch_forms_facts_show_an_override_in_the_gpu_type_and_region_isolated() {
    use reservations_console::pages::launch::LaunchForm;
    let host = mount_narrow(|| {
        provide_console(Role::Member);
        view! {
            <LaunchForm
                reservation=reservation(json!({ "gpu_type": RLO, "region_id": RLO }))
                nodes=Signal::stored(Some(Arc::new(override_nodes())))
                pending=Signal::stored(false)
                outcome=Signal::stored(None)
                submit=Callback::new(|_| ())
                reread=Callback::new(|()| ())
            />
        }
    });
    settle().await;
    let facts = host.query_selector(".launch-fixed").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>();
    assert_override_shown_and_isolated(&facts, "launch facts", 2);
}

#[wasm_bindgen_test]
async fn an_unrecognised_status_badge_and_its_explanation_show_an_override_isolated() {
    use reservations_console::components::status_badge::StatusWithExplanation;
    use reservations_console::domain::status::reservation_status;
    // A status that would read "A100" with its override obeyed.
    let host = mount_narrow(|| {
        let status = reservation_status(&reservation(json!({ "status": "\u{202E}001A" })), now());
        view! { <StatusWithExplanation status/> }
    });
    settle().await;
    let shown = host.text_content().unwrap_or_default();
    assert!(!shown.contains('\u{202E}'), "the override obeyed: {shown}");
    let badge = host.query_selector(".badge").unwrap().unwrap();
    assert_eq!(badge.text_content().unwrap(), "⟨RLO⟩001A (unrecognised)");
    let isolated = all(&host, ".badge bdi, .status-explanation bdi").len();
    assert!(isolated >= 2, "the badge's and the explanation's text each isolated: {isolated}");
}

/// A card's "+N more", opened, stays open when the next poll's answer arrives, whether the
/// answer redraws the card's line (the first polls, then once a minute) or changes its node;
/// closed again by the user, it stays closed. At a desktop's width and a phone's.
#[wasm_bindgen_test]
async fn an_opened_more_stays_open_until_the_user_closes_it_whatever_the_polls_answer() {
    use chrono::TimeDelta;
    for width in [1280, 390] {
        let shown = std::rc::Rc::new(std::cell::Cell::new(None));
        let host = mount_in_frame(width, {
            let shown = std::rc::Rc::clone(&shown);
            move || {
                provide_console(Role::Member);
                let model = NodesModel::of(use_nodes(), 12);
                model.receive(Ok(five_workloads()), now());
                shown.set(Some(model));
                view! { <NodesBoard model reservation=12/> }
            }
        });
        let model = shown.get().expect("the board is mounted");
        settle_drawn().await;
        console_fixtures::sleep(50).await;
        let more = || host.query_selector(".workloads-more").unwrap().expect("a +N more");
        let press =
            || more().query_selector("summary").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().click();
        // The browser tells of a toggle in a task of its own: a poll comes seconds after.
        let toggled = || async {
            console_fixtures::sleep(20).await;
            settle().await;
        };
        press();
        toggled().await;
        assert!(more().has_attribute("open"), "at {width} px the +3 more opens");

        // The next poll, the same answer: the card's line is due and redrawn.
        model.receive(Ok(five_workloads()), now() + TimeDelta::seconds(5));
        settle().await;
        assert!(more().has_attribute("open"), "at {width} px a poll that redraws the card's line closed the +3 more");
        // A poll that changes the node: one more GPU for its last workload.
        let mut changed = five_workloads();
        changed.nodes[0].gpus_in_use = Some(6);
        changed.nodes[0].workloads[4].gpus = 2;
        model.receive(Ok(changed), now() + TimeDelta::seconds(10));
        settle().await;
        assert!(more().has_attribute("open"), "at {width} px a poll that changes the node closed the +3 more");

        press();
        toggled().await;
        assert!(!more().has_attribute("open"), "at {width} px the user closes it");
        model.receive(Ok(five_workloads()), now() + TimeDelta::seconds(15));
        settle().await;
        assert!(!more().has_attribute("open"), "at {width} px a poll opened again what the user closed");
    }
}

/// Two ready nodes of 8 GPUs, the second named with a 10,000-character name: a cluster with
/// a 10,000-character name runs on both, a notebook on the first; 6 GPUs free on the second.
fn long_named_nodes() -> NodesResponse {
    serde_json::from_value(json!({
        "workloads_unknown": false,
        "nodes": [
            { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 4, "workloads": [
                { "kind": "gpu_cluster", "id": 418, "name": long_name(), "gpus": 2 },
                { "kind": "gpu_instance", "id": 902, "name": "notebook", "gpus": 2 }
            ] },
            { "display_name": long_name(), "state": "ready", "gpus": 8, "gpus_in_use": 2, "workloads": [
                { "kind": "gpu_cluster", "id": 418, "name": long_name(), "gpus": 2 }
            ] }
        ]
    }))
    .unwrap()
}

/// Each table scroller matching `css` is in the tab order and named as a region, so that a
/// keyboard reaches what scrolls sideways in it (axe: `scrollable-region-focusable`).
fn assert_scrollers_reachable(host: &web_sys::HtmlElement, css: &str, width: u32) {
    let found = all(host, css);
    assert!(!found.is_empty(), "at {width} px nothing matches {css}");
    for wrap in found {
        let name = wrap.get_attribute("aria-label").or_else(|| wrap.get_attribute("aria-labelledby"));
        assert_eq!(wrap.get_attribute("tabindex").as_deref(), Some("0"), "at {width} px {css} is out of the tab order");
        assert_eq!(wrap.get_attribute("role").as_deref(), Some("region"), "at {width} px {css} is no region");
        assert!(name.is_some_and(|n| !n.trim().is_empty()), "at {width} px {css} has no name");
    }
}

/// A 10,000-character name as a page added since the Nodes cards shows it at `width`: the
/// page never scrolls sideways, `part` (what shows the name) stays under 2,000 px high, each
/// text holding the name a few lines high (measured on the holder itself: a stacked row
/// off screen is not laid out, `content-visibility`), and the whole name is reachable in a
/// title; the table scrollers in `part` are reachable ([`assert_scrollers_reachable`]).
fn assert_long_name_cut(host: &web_sys::HtmlElement, width: u32, part: &str) {
    assert_scrollers_reachable(host, &format!("{part} .table-wrap"), width);
    assert_nothing_scrolls_sideways(host, width);
    let shown = host.query_selector(part).unwrap().unwrap_or_else(|| panic!("no {part}"));
    let height = rect(&shown, "height");
    assert!(height < 2_000.0, "at {width} px {part} is {height} px high");
    let holders: Vec<web_sys::HtmlElement> = all(host, "*")
        .into_iter()
        .filter(|e| {
            let children = e.child_nodes();
            (0..children.length()).filter_map(|i| children.item(i)).any(|child| {
                child.node_type() == web_sys::Node::TEXT_NODE
                    && child.text_content().is_some_and(|t| t.contains(&long_name()))
            })
        })
        .collect();
    assert!(!holders.is_empty(), "at {width} px the name is not shown");
    for holder in holders {
        let high = rect(&holder, "height");
        assert!(high < 100.0, "at {width} px <{}> holds the name {high} px high", holder.tag_name().to_lowercase());
    }
    let titled =
        all(host, "[title]").iter().any(|e| e.get_attribute("title").is_some_and(|t| t.contains(&long_name())));
    assert!(titled, "at {width} px the whole name is in no title");
}

/// What stops when at `width`, drawn from [`long_named_nodes`]: the workloads listed, the
/// long name cut and the table's scroller reachable.
async fn assert_the_panel_cuts_the_long_name(host: &web_sys::HtmlElement, width: u32) {
    settle().await;
    assert!(text(host).contains("notebook"), "at {width} px the workloads are listed");
    assert_long_name_cut(host, width, "#at-risk");
}

#[wasm_bindgen_test]
async fn what_stops_when_on_the_overview_cuts_a_long_name_and_its_scrollers_are_reachable_at_360_and_390_px() {
    for width in [360, 390] {
        let host = mount_in_frame(width, || {
            let (store, nodes, session) = provide_fleet(Role::Owner);
            // 12's term ends with no renewal: its workloads are listed.
            store.receive_list(session, Ok(vec![reservation(json!({ "id": 12 }))]), now());
            nodes.receive(session, 12, Ok(Arc::new(long_named_nodes())), now());
            view! { <OverviewBoard store/> }
        });
        assert_the_panel_cuts_the_long_name(&host, width).await;
    }
}

#[wasm_bindgen_test]
async fn what_stops_when_on_a_reservations_detail_cuts_a_long_name_within_360_and_390_px() {
    use console_fixtures::owner_detail;
    use reservations_console::pages::reservation::ReservationView;
    for width in [360, 390] {
        let host = mount_in_frame(width, || {
            let state = provide_console(Role::Owner);
            let session = state.session_id_untracked().unwrap();
            let nodes = use_nodes();
            nodes.begin_current();
            nodes.receive(session, 12, Ok(Arc::new(long_named_nodes())), now());
            let detail = owner_detail(json!({}));
            let account = Signal::stored(Some(vec![detail.reservation.clone()]));
            view! { <ReservationView detail account/> }
        });
        assert_the_panel_cuts_the_long_name(&host, width).await;
    }
}

#[wasm_bindgen_test]
async fn where_gpus_fit_cuts_a_long_gpu_type_and_node_name_within_360_px() {
    use reservations_console::pages::fit::FitBoard;
    use reservations_console::router::Router;
    let window = web_sys::window().unwrap();
    let before = window.location().href().unwrap();
    window.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("/fit?gpus=4")).unwrap();
    let host = mount_in_frame(360, || {
        let (store, nodes, session) = provide_fleet(Role::Owner);
        let list = vec![reservation(json!({ "id": 12, "gpu_type": long_name() })), reservation(json!({ "id": 3 }))];
        store.receive_list(session, Ok(list), now());
        nodes.receive(session, 12, Ok(Arc::new(long_named_nodes())), now());
        view! { <Router><FitBoard store/></Router> }
    });
    settle().await;
    window.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&before)).unwrap();
    assert!(text(&host).contains("6 free"), "the long-named node's room is listed: {:.300}", text(&host));
    assert_long_name_cut(&host, 360, ".fit-page");
}

#[wasm_bindgen_test]
async fn capacity_over_the_coming_terms_cuts_a_long_gpu_type_within_360_px() {
    use reservations_console::pages::capacity::CapacityBoard;
    let host = mount_in_frame(360, || {
        let (store, _, session) = provide_fleet(Role::Owner);
        store.receive_list(session, Ok(vec![reservation(json!({ "id": 12, "gpu_type": long_name() }))]), now());
        view! { <CapacityBoard store/> }
    });
    settle().await;
    assert!(text(&host).contains("No renewal reserved"), "the lane's table is drawn: {:.300}", text(&host));
    assert_long_name_cut(&host, 360, ".capacity-page");
}

#[wasm_bindgen_test]
async fn the_term_ledger_cuts_a_long_gpu_type_within_360_px() {
    use console_fixtures::owner_detail;
    use reservations_console::domain::money::ledger::{ledger, Account, Row};
    use reservations_console::pages::ledger::LedgerBoard;
    let host = mount_in_frame(360, || {
        provide_console(Role::Owner);
        let detail = owner_detail(json!({ "gpu_type": long_name() }));
        let rows = vec![Row { ledger: ledger(&detail), reservation: detail.reservation }];
        view! { <LedgerBoard account=Account::of(rows) read_at=now()/> }
    });
    settle().await;
    assert!(text(&host).contains("Committed"), "the ledger is drawn");
    assert_long_name_cut(&host, 360, "section.ledger");
}
