//! Org capacity as a person reads it, on fixture data: units per reservation, what
//! needs review withholds, and where this org may reclaim.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;
mod page_support;

use console_fixtures::{mount, provide_console, settle, text};
use leptos::prelude::*;
use page_support::{fact, titles};
use reservations_console::api::client::Connection;
use reservations_console::api::org::OrgReservation;
use reservations_console::pages::org::{OrgPicker, OrgView};
use reservations_console::router::Router;
use reservations_console::state::Role;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn org_reservation(overrides: serde_json::Value) -> OrgReservation {
    let mut base = json!({
        "id": "rsv_1", "status": "active", "nodeId": "node-a",
        "reservedUnitIds": ["u1", "u2", "u3", "u4"], "releasedUnitIds": [],
        "allowedOrgIds": ["org_acme"], "managingOrgIds": [],
        "startsAt": "2026-11-01T00:00:00Z", "topologyGen": 3
    });
    for (k, v) in overrides.as_object().unwrap() {
        base[k] = v.clone();
    }
    serde_json::from_value(base).unwrap()
}

/// org_acme manages rsv_managed (2 units released), is only the audience of rsv_audience
/// (1 released), and rsv_review needs review.
fn fixtures() -> Vec<OrgReservation> {
    vec![
        org_reservation(
            json!({ "id": "rsv_managed", "releasedUnitIds": ["u3", "u4"], "managingOrgIds": ["org_acme"], "contractRef": "MSA-9" }),
        ),
        org_reservation(
            json!({ "id": "rsv_audience", "releasedUnitIds": ["u2"], "managingOrgIds": ["org_ops"], "endsAt": "2027-11-01T00:00:00Z" }),
        ),
        org_reservation(
            json!({ "id": "rsv_review", "status": "needs-review", "reservedUnitIds": ["u7", "u8"], "reason": "GPU topology changed", "topologyGen": 2 }),
        ),
    ]
}

async fn org_page() -> web_sys::HtmlElement {
    let host = mount(|| {
        provide_console(Role::Member);
        view! { <OrgView org_id="org_acme".to_owned() reservations=fixtures() on_reclaimed=Callback::new(|_| ())/> }
    });
    settle().await;
    host
}

fn card(host: &web_sys::HtmlElement, id: &str) -> web_sys::Element {
    host.query_selector(&format!("article[aria-label='Reservation {id}']"))
        .unwrap()
        .unwrap_or_else(|| panic!("no card {id}"))
}

fn unit_words(card: &web_sys::Element) -> Vec<String> {
    titles(card, ".unit-cells li")
}

#[wasm_bindgen_test]
async fn needs_review_units_are_shown_withheld_and_explained() {
    let host = org_page().await;
    let review = card(&host, "rsv_review");
    assert_eq!(unit_words(&review), ["u7: withheld", "u8: withheld"]);
    let words = review.text_content().unwrap();
    assert!(words.contains("Needs review"), "{words}");
    assert!(words.contains("grants nothing and withholds its units from everyone"), "{words}");
    assert!(words.contains("All 2 units are withheld"), "{words}");
    assert!(words.contains("GPU topology changed"), "{words}");
}

#[wasm_bindgen_test]
async fn units_read_as_reserved_released_or_reclaimable() {
    let host = org_page().await;
    assert_eq!(
        unit_words(&card(&host, "rsv_managed")),
        ["u1: reserved", "u2: reserved", "u3: released to spot, reclaimable", "u4: released to spot, reclaimable"]
    );
    assert_eq!(
        unit_words(&card(&host, "rsv_audience")),
        ["u1: reserved", "u2: released to spot", "u3: reserved", "u4: reserved"]
    );
}

#[wasm_bindgen_test]
async fn reclaim_is_offered_only_where_this_org_manages() {
    let host = org_page().await;
    let managed = card(&host, "rsv_managed");
    assert!(managed.query_selector("section.reclaim").unwrap().is_some());
    let choices = managed.query_selector_all("section.reclaim input[type=checkbox]").unwrap();
    assert_eq!(choices.length(), 2, "one choice per released unit");
    assert!(managed.text_content().unwrap().contains("Dry run: reclaim 2 units"));

    let audience = card(&host, "rsv_audience");
    assert!(audience.query_selector("section.reclaim").unwrap().is_none());
    assert!(audience.text_content().unwrap().contains("cannot release or reclaim units"));
    assert!(card(&host, "rsv_review").query_selector("section.reclaim").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn the_org_totals_count_granted_released_and_withheld_units() {
    let host = org_page().await;
    let page = text(&host);
    // Two active reservations of 4 units each; 3 released of them; 2 withheld.
    for (label, value) in [("Granted (active)", "8"), ("In hand", "5"), ("Released to spot", "3"), ("Withheld", "2")] {
        let shown = fact(&host, label);
        assert!(shown.starts_with(value), "{label}: {shown}");
    }
    assert!(page.contains("3 listed, 1 managed by org_acme"), "{page}");
}

#[wasm_bindgen_test]
async fn audience_and_managing_orgs_are_told_apart_and_open_ends_said() {
    let host = org_page().await;
    let managed = card(&host, "rsv_managed").text_content().unwrap();
    assert!(managed.contains("org_acme is in the audience and manages this reservation."), "{managed}");
    assert!(managed.contains("Open-ended (until cancelled)"), "{managed}");
    assert!(managed.contains("MSA-9"), "{managed}");
    let audience = card(&host, "rsv_audience").text_content().unwrap();
    assert!(audience.contains("org_ops"), "{audience}");
    assert!(audience.contains("1 Nov 2027"), "{audience}");
}

#[wasm_bindgen_test]
async fn the_org_id_field_is_labelled_and_a_refused_id_is_tied_to_it() {
    let host = mount(|| {
        provide_console(Role::Member);
        let current = Memo::new(|_| None);
        view! { <Router><OrgPicker current/></Router> }
    });
    settle().await;
    let attribute = |name: &str| host.query_selector("#org-id").unwrap().unwrap().get_attribute(name);
    assert_eq!(host.query_selector("label[for=org-id]").unwrap().unwrap().text_content().unwrap(), "Org id");
    assert_eq!(attribute("aria-describedby").as_deref(), Some("org-id-help"));
    assert_eq!(attribute("aria-invalid"), None);

    let input: web_sys::HtmlInputElement = host.query_selector("#org-id").unwrap().unwrap().unchecked_into();
    input.set_value("org/acme");
    input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    let form: web_sys::HtmlFormElement = host.query_selector("form").unwrap().unwrap().unchecked_into();
    form.request_submit().unwrap();
    settle().await;
    assert_eq!(attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(attribute("aria-describedby").as_deref(), Some("org-id-error org-id-help"));
    let error = host.query_selector("#org-id-error").unwrap().unwrap().text_content().unwrap();
    assert!(error.starts_with("An org id has only letters"), "{error}");
}

#[wasm_bindgen_test]
async fn when_a_reservation_was_created_is_shown() {
    let created = org_reservation(json!({ "id": "rsv_new", "createdAt": "2026-10-20T08:00:00Z" }));
    let host = mount(move || {
        provide_console(Role::Member);
        view! { <OrgView org_id="org_acme".to_owned() reservations=vec![created] on_reclaimed=Callback::new(|_| ())/> }
    });
    settle().await;
    let created = fact(&card(&host, "rsv_new"), "Created");
    assert!(created.contains("20 Oct 2026"), "{created}");
}

#[wasm_bindgen_test]
async fn the_demo_org_is_offered_only_when_the_api_is_the_simulator() {
    for simulator in [false, true] {
        let host = mount(move || {
            let state = provide_console(Role::Member);
            state.connect(Connection::new("/api", "eco_test_key").with_simulator(simulator), false, Role::Member);
            let current = Memo::new(|_| None);
            view! { <Router><OrgPicker current/></Router> }
        });
        settle().await;
        let help = host.query_selector("#org-id-help").unwrap().unwrap().text_content().unwrap();
        assert_eq!(help.contains("The demo org is org_acme"), simulator, "simulator {simulator}: {help}");
    }
}
