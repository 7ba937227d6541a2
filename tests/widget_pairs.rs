//! The widgets drawn both as a `view!` (pages built from components) and as one piece of
//! HTML (the reservations table, written whole for speed) must read the same. Each pair is
//! mounted and written here on the same inputs, and the two DOMs compared as the browser
//! serialises them (the view's placeholder comments left out).
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{mount, now, provide_console, reservation, seed_nodes};
use leptos::prelude::*;
use reservations_console::api::error::{ApiError, ResponseHeaders};
use reservations_console::api::models::Reservation;
use reservations_console::components::flag::{write_flag, Flag};
use reservations_console::components::html::Html;
use reservations_console::components::placements::{write_in_use, InUseFigure};
use reservations_console::components::status_badge::{write_status, StatusWithExplanation};
use reservations_console::components::time::{write_term_dates, TermDates};
use reservations_console::domain::status::reservation_status;
use reservations_console::reads::placements::Placements;
use reservations_console::state::Role;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// `host`'s markup as the browser serialises it, without comments.
fn serialised(host: &web_sys::Element) -> String {
    let mut html = host.inner_html();
    while let Some(start) = html.find("<!--") {
        let end = start + html[start..].find("-->").unwrap() + 3;
        html.replace_range(start..end, "");
    }
    html
}

/// `written`, parsed by the browser and serialised again.
fn parsed(written: Html) -> String {
    let document = web_sys::window().unwrap().document().unwrap();
    let host = document.create_element("div").unwrap();
    host.set_inner_html(&written.into_string());
    serialised(&host)
}

fn assert_same(view: impl FnOnce() -> AnyView + 'static, write: impl FnOnce(&mut Html), what: &str) {
    let host = mount(move || {
        provide_console(Role::Owner);
        view()
    });
    let mut written = Html::default();
    write(&mut written);
    assert_eq!(serialised(&host.unchecked_into()), parsed(written), "{what}");
}

#[wasm_bindgen_test]
fn a_flag_reads_the_same_written_or_drawn() {
    let text = r#"32 GPUs reserved but <b>4 & "8"</b> listed"#;
    assert_same(
        move || view! { <Flag text=text.to_owned() class="sub"/> }.into_any(),
        |html| write_flag(html, text, "sub"),
        "flag",
    );
}

#[wasm_bindgen_test]
fn a_status_with_its_explanation_reads_the_same_written_or_drawn() {
    for status in ["active", "past_due", "suspended", "awaiting_payment", "hibernating"] {
        let r =
            reservation(json!({ "status": status, "stops_at": (now() + chrono::TimeDelta::hours(5)).to_rfc3339() }));
        let text = reservation_status(&r, now());
        let drawn = text.clone();
        assert_same(
            move || view! { <StatusWithExplanation status=drawn/> }.into_any(),
            |html| write_status(html, &text),
            status,
        );
    }
}

#[wasm_bindgen_test]
fn term_dates_read_the_same_written_or_drawn() {
    let cases: [(&str, Reservation); 4] = [
        ("a term", reservation(json!({}))),
        ("ended early", reservation(json!({ "status": "ended", "ended_at": "2027-03-10T12:00:00Z" }))),
        ("no end", reservation(json!({ "ends_at": null }))),
        ("awaiting payment", reservation(json!({ "status": "awaiting_payment", "starts_at": null, "ends_at": null }))),
    ];
    for (what, r) in cases {
        let drawn = r.clone();
        assert_same(move || view! { <TermDates r=drawn/> }.into_any(), |html| write_term_dates(html, &r), what);
    }
}

#[wasm_bindgen_test]
async fn gpus_in_use_read_the_same_written_or_drawn() {
    let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req-503")]);
    let failed = ApiError::from_response(503, &headers, "", now());
    let mut unreachable = seed_nodes();
    unreachable.workloads_unknown = true;
    let cases: [(&str, Option<Result<_, ApiError>>); 4] = [
        ("loading", None),
        ("read", Some(Ok(seed_nodes()))),
        ("unreachable", Some(Ok(unreachable))),
        ("failed", Some(Err(failed))),
    ];
    for (what, answer) in cases {
        let written = StoredValue::new_local(None);
        let host = mount(move || {
            provide_console(Role::Owner);
            let placements = Placements::default();
            let r = reservation(json!({ "id": 12 }));
            let _ = placements.start(std::slice::from_ref(&r));
            if let Some(answer) = answer {
                placements.receive(&r, answer.as_ref().map_err(Clone::clone));
            }
            let mut html = Html::default();
            write_in_use(&mut html, placements.get(12).as_ref(), "sub");
            written.set_value(Some(html));
            view! { <InUseFigure placements id=12 class="sub"/> }
        });
        let written = written.try_update_value(Option::take).flatten().unwrap();
        assert_eq!(serialised(&host.unchecked_into()), parsed(written), "{what}");
    }
}
