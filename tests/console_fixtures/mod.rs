//! Fixtures and a mount helper shared by the page tests of UI helper A: small JSON
//! documents shaped like seed 004's examples, and a host element per test.
#![allow(dead_code)] // each test binary uses a different subset

use chrono::{DateTime, TimeZone as _, Utc};
use leptos::prelude::*;
use reservations_console::api::client::Connection;
use reservations_console::api::models::{Reservation, ReservationDetail};
use reservations_console::state::{Clock, ConnectionState, Role, TimeZone, TimeZoneChoice};
use wasm_bindgen::JsCast;

/// "Today" in every page test: a month into seed 004's term.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 2, 9, 30, 0).unwrap()
}

/// Seed 004's list item, with overrides merged in.
pub fn reservation(overrides: serde_json::Value) -> Reservation {
    serde_json::from_value(merge(list_item_json(), overrides)).unwrap()
}

fn list_item_json() -> serde_json::Value {
    serde_json::json!({
        "id": 12, "status": "active", "region_id": "atl",
        "gpu_type": "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition",
        "node_count": 4, "gpus_per_node": 8, "reserved_gpus": 32, "term_months": 12,
        "billing_period": "monthly", "starts_at": "2026-11-01T00:00:00Z",
        "ends_at": "2027-11-01T00:00:00Z", "drive_quota_gib": 5000, "fs_quota_gib": 20000,
        "contract_ref": "MSA-2026-014"
    })
}

/// Seed 004's detail as the owner reads it, with overrides merged in.
pub fn owner_detail(overrides: serde_json::Value) -> ReservationDetail {
    serde_json::from_value(merge(owner_json(), overrides)).unwrap()
}

/// The same detail as a member reads it: no payment, amendments without rates.
pub fn member_detail() -> ReservationDetail {
    let mut json = owner_json();
    json.as_object_mut().unwrap().remove("payment");
    for a in json["amendments"].as_array_mut().unwrap() {
        let a = a.as_object_mut().unwrap();
        a.remove("rate_usd_per_gpu_hour_before");
        a.remove("rate_usd_per_gpu_hour_after");
    }
    serde_json::from_value(json).unwrap()
}

/// The list item plus storage, one future amendment and the payment schedule.
fn owner_json() -> serde_json::Value {
    merge(
        list_item_json(),
        serde_json::json!({
            "storage": { "drive_used_gib": 1200, "drive_quota_gib": 5000, "fs_used_gib": 8000, "fs_quota_gib": 20000 },
            "amendments": [{
                "effective_at": "2027-02-01T00:00:00Z",
                "node_count_before": 4, "node_count_after": 6,
                "drive_quota_gib_before": 5000, "drive_quota_gib_after": 5000,
                "fs_quota_gib_before": 20000, "fs_quota_gib_after": 30000,
                "rate_usd_per_gpu_hour_before": 1.25, "rate_usd_per_gpu_hour_after": 1.25
            }],
            "payment": {
                "rate_usd_per_gpu_hour": 1.25, "drive_rate_usd_per_gib_month": 0,
                "fs_rate_usd_per_gib_month": 0, "funding": "invoice",
                "advance_usd": 29200, "advance_remaining_usd": 29200,
                "next_charge": december_charge("scheduled"),
                "charges": [december_charge("scheduled")]
            }
        }),
    )
}

/// Seed 004's period 1, December 2026: 31 days × 24 h × 32 GPUs × $1.25 = $29,760.
pub fn december_charge(status: &str) -> serde_json::Value {
    serde_json::json!({
        "period_index": 1, "adjustment": false,
        "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
        "gpu_amount_usd": 29760, "storage_amount_usd": 0, "amount_usd": 29760,
        "advance_applied_usd": 0, "status": status
    })
}

/// Objects merge key by key (recursively); anything else replaces.
fn merge(mut base: serde_json::Value, overrides: serde_json::Value) -> serde_json::Value {
    match (base.as_object_mut(), overrides) {
        (Some(base_map), serde_json::Value::Object(over)) => {
            for (k, v) in over {
                let merged = merge(base_map.remove(&k).unwrap_or(serde_json::Value::Null), v);
                base_map.insert(k, merged);
            }
            base
        }
        (_, over) => over,
    }
}

/// The contexts a page reads, connected with a test key of `role`, times in UTC, the
/// clock fixed at [`now`].
pub fn provide_console(role: Role) -> ConnectionState {
    let state = ConnectionState::new();
    state.connect(Connection::new("/api", "eco_test_key"), false, role);
    provide_context(state);
    provide_context(TimeZoneChoice(RwSignal::new(TimeZone::Utc)));
    provide_context(Clock::fixed(now()));
    state
}

/// Mounts `view` in a fresh element of the test page and returns that element.
pub fn mount<F, N>(view: F) -> web_sys::HtmlElement
where
    F: FnOnce() -> N + 'static,
    N: IntoView,
{
    let document = web_sys::window().unwrap().document().unwrap();
    let host: web_sys::HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    leptos::mount::mount_to(host.clone(), view).forget();
    host
}

/// What a person reads in `host`, whitespace collapsed.
pub fn text(host: &web_sys::HtmlElement) -> String {
    host.text_content().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lets effects and spawned futures run.
pub async fn settle() {
    for _ in 0..4 {
        leptos::task::tick().await;
    }
}
