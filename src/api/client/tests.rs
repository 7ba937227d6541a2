//! The client's native tests: URLs, keys, decoding, the page policy.

use super::endpoints::PaymentShown;
use super::transport::policy_refusal;
use super::*;
use crate::api::error::ErrorKind;
use crate::api::limits::MAX_BODY_BYTES;
use crate::api::models::{LaunchedInstance, NodesResponse, Reservation, ReservationDetail};
use crate::api::org::OrgReservation;
use chrono::TimeZone;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 2, 14, 5, 0).unwrap()
}

fn with_request_id() -> ResponseHeaders {
    ResponseHeaders::from_pairs([("x-ecolink-request-id", "req_42")])
}

const NODES: &str = r#"{"nodes":[{"display_name":"node-1","state":"ready","gpus":8,"gpus_in_use":0,"workloads":[]}],"workloads_unknown":false}"#;

#[test]
fn only_a_detail_with_a_payment_object_shows_payment() {
    let shown =
        |body: &str| decode::<PaymentShown>(200, &ResponseHeaders::default(), body, now()).unwrap().payment.is_some();
    assert!(shown(r#"{"id":12,"payment":{"status":"paid"},"charges":[]}"#));
    assert!(!shown(r#"{"id":12,"status":"active"}"#), "a member's detail has no payment");
    assert!(!shown(r#"{"id":12,"payment":null}"#));
    let seed = include_str!("../../../fixtures/seed_004_detail.json");
    let full: ReservationDetail = decode(200, &ResponseHeaders::default(), seed, now()).unwrap();
    assert_eq!(shown(seed), full.payment.is_some(), "the probe agrees with the full decode");
}

#[test]
fn a_2xx_body_decodes_into_the_type() {
    let n: NodesResponse = decode(200, &ResponseHeaders::default(), NODES, now()).unwrap();
    assert_eq!(n.nodes[0].display_name, "node-1");
    let launched: LaunchedInstance = decode(
        201,
        &ResponseHeaders::default(),
        r#"{"id":7,"name":"nb","gpus":2,"billing":"reserved","rate_usd_per_hour":0}"#,
        now(),
    )
    .unwrap();
    assert_eq!((launched.id, launched.gpus), (7, 2));
}

#[test]
fn a_truncated_200_is_a_decode_error_with_position_and_request_id() {
    let cut = &NODES[..60];
    let e = decode::<NodesResponse>(200, &with_request_id(), cut, now()).unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::Decode, Some(200)));
    assert_eq!(e.request_id.as_deref(), Some("req_42"));
    let message = e.message.unwrap();
    assert!(message.starts_with("The answer (HTTP 200) was cut off: EOF while parsing"), "{message}");
    assert!(message.contains("line 1 column 60"), "{message}");
}

#[test]
fn a_200_of_the_wrong_shape_names_the_field() {
    let e = decode::<NodesResponse>(
        200,
        &with_request_id(),
        r#"{"nodes":[{"display_name":"n","state":"ready","gpus":"8"}]}"#,
        now(),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Decode);
    let message = e.message.unwrap();
    assert!(
        message.starts_with("The answer (HTTP 200) is not what the API documents: invalid type: string \"8\""),
        "{message}"
    );
}

#[test]
fn an_answer_declared_past_the_limit_is_refused_before_its_body_is_read() {
    let declared = |status, length: &str| {
        let headers = ResponseHeaders::from_pairs([("Content-Length", length), ("x-ecolink-request-id", "req_1")]);
        declared_too_large(status, &headers, now())
    };
    let error = declared(200, "41943040").expect("40 MiB is past the limit");
    assert_eq!((error.kind, error.request_id.as_deref()), (ErrorKind::Decode, Some("req_1")));
    assert!(error.to_string().contains("40.0 MiB"), "{error}");
    assert_eq!(declared(503, "41943040").map(|e| (e.kind, e.status)), Some((ErrorKind::Http, Some(503))));
    assert_eq!(declared(200, &MAX_BODY_BYTES.to_string()), None, "at the limit it is read");
    assert_eq!(declared(200, "many"), None, "a length that is no number is counted as the body arrives");
}

#[test]
fn a_200_web_page_means_the_base_url_is_wrong() {
    let e = decode::<Vec<Reservation>>(200, &ResponseHeaders::default(), "<!DOCTYPE html><html>…", now()).unwrap_err();
    assert!(e.message.unwrap().contains("API base URL probably points at a website"));
    let e = decode::<Vec<Reservation>>(200, &ResponseHeaders::default(), "", now()).unwrap_err();
    assert_eq!(e.message.as_deref(), Some("The answer (HTTP 200) was empty."));
}

#[test]
fn an_error_status_is_decoded_as_an_api_error_even_with_a_valid_body() {
    let h = ResponseHeaders::from_pairs([("retry-after", "Wed, 02 Dec 2026 14:06:00 GMT")]);
    let e = decode::<Vec<Reservation>>(503, &h, "[]", now()).unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::Http, Some(503)));
    assert_eq!(e.retry_after(), Some(std::time::Duration::from_secs(60)));
}

fn decode_value<T: DeserializeOwned>(v: serde_json::Value) -> T {
    decode(200, &ResponseHeaders::default(), &v.to_string(), now()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn an_unknown_value_in_every_enumeration_still_decodes_the_page() {
    use crate::api::enums::*;
    use crate::api::models::tests::{SEED_DETAIL, SEED_NODES};
    let mut detail: serde_json::Value = serde_json::from_str(SEED_DETAIL).unwrap();
    detail["status"] = "frozen".into();
    detail["billing_period"] = "yearly".into();
    detail["payment"]["funding"] = "card".into();
    detail["payment"]["next_charge"]["status"] = "refunded".into();
    let d: ReservationDetail = decode_value(detail);
    assert_eq!(d.reservation.status, ReservationStatus::Unknown("frozen".into()));
    assert_eq!(d.reservation.billing_period, BillingPeriod::Unknown("yearly".into()));
    let p = d.payment.unwrap();
    assert_eq!(p.funding, Funding::Unknown("card".into()));
    assert_eq!(p.next_charge.unwrap().status, ChargeStatus::Unknown("refunded".into()));

    let mut nodes: serde_json::Value = serde_json::from_str(SEED_NODES).unwrap();
    nodes["nodes"][0]["state"] = "draining".into();
    nodes["nodes"][0]["workloads"][0]["kind"] = "batch".into();
    nodes["nodes"][0]["workloads"][0]["billing"] = "committed".into();
    let n: NodesResponse = decode_value(nodes);
    assert_eq!(n.nodes[0].state, NodeState::Unknown("draining".into()));
    assert_eq!(n.nodes[0].workloads[0].kind, WorkloadKind::Unknown("batch".into()));
    assert_eq!(n.nodes[0].workloads[0].billing, Some(Billing::Unknown("committed".into())));

    let mut org: serde_json::Value = serde_json::from_str(crate::api::org::tests::ALL_FIELDS).unwrap();
    org["status"] = "migrating".into();
    let o: Vec<OrgReservation> = decode_value(serde_json::Value::Array(vec![org]));
    assert_eq!(o[0].status, OrgReservationStatus::Unknown("migrating".into()));
}

#[test]
fn nulls_mean_absent_for_every_optional_field() {
    use crate::api::models::tests::{SEED_DETAIL, SEED_NODES};
    let mut detail: serde_json::Value = serde_json::from_str(SEED_DETAIL).unwrap();
    for field in [
        "starts_at",
        "ends_at",
        "contract_ref",
        "past_due_since",
        "stops_at",
        "ended_at",
        "payment",
        "first_invoice",
        "amendments",
    ] {
        detail[field] = serde_json::Value::Null;
    }
    let d: ReservationDetail = decode_value(detail.clone());
    assert!(d.payment.is_none() && d.amendments.is_empty() && d.reservation.contract_ref.is_none());

    detail = serde_json::from_str(SEED_DETAIL).unwrap();
    for field in ["next_charge", "charges", "first_invoice"] {
        detail["payment"][field] = serde_json::Value::Null;
    }
    let p = decode_value::<ReservationDetail>(detail).payment.unwrap();
    assert!(p.next_charge.is_none() && p.charges.is_empty());

    let mut nodes: serde_json::Value = serde_json::from_str(SEED_NODES).unwrap();
    nodes["workloads_unknown"] = true.into();
    nodes["nodes"][0]["gpus_in_use"] = serde_json::Value::Null;
    nodes["nodes"][0]["workloads"] = serde_json::Value::Null;
    nodes["nodes"][1]["workloads"] =
        serde_json::json!([{ "kind": "gpu_instance", "id": 1, "name": "x", "gpus": 1, "billing": null }]);
    let n: NodesResponse = decode_value(nodes);
    assert!(n.workloads_unknown);
    assert_eq!((n.nodes[0].gpus_in_use, n.nodes[0].workloads.len()), (None, 0));
    assert_eq!(n.nodes[1].workloads[0].billing, None);

    let org = serde_json::json!({
        "id": "r", "status": "active", "nodeId": "n", "reservedUnitIds": ["u1"], "allowedOrgIds": ["org_a"],
        "startsAt": "2026-11-01T00:00:00Z", "endsAt": null, "releasedUnitIds": null, "managingOrgIds": null,
        "topologyGen": null, "terminated": null, "wouldSkip": null
    });
    let o: OrgReservation = decode_value(org);
    assert!(
        o.ends_at.is_none()
            && o.released_unit_ids.is_empty()
            && o.managing_org_ids.is_empty()
            && o.terminated.is_none()
    );
}

#[test]
fn a_required_field_that_is_missing_or_null_is_a_decode_error() {
    use crate::api::models::tests::SEED_LIST;
    for (field, broken) in [("id", serde_json::Value::Null), ("gpu_type", serde_json::json!(7))] {
        let mut list: serde_json::Value = serde_json::from_str(SEED_LIST).unwrap();
        list[0][field] = broken;
        let e = decode::<Vec<Reservation>>(200, &ResponseHeaders::default(), &list.to_string(), now()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Decode, "{field}");
    }
    let mut list: serde_json::Value = serde_json::from_str(SEED_LIST).unwrap();
    list[0].as_object_mut().unwrap().remove("region_id");
    let e = decode::<Vec<Reservation>>(200, &ResponseHeaders::default(), &list.to_string(), now()).unwrap_err();
    assert!(e.message.unwrap().contains("missing field `region_id`"));
}

#[test]
fn connection_never_prints_the_key() {
    let c = Connection::new("/api", "eco_demo_owner");
    assert_eq!(
        format!("{c:?}"),
        r#"Connection { base_url: "/api", org_base_url: "/api", console_origin: None, simulator: false, key: "…" }"#
    );
    assert_eq!(c.to_string(), "/api (key …)");
    assert!(!format!("{c:#?}").contains("eco_demo_owner"));
    assert_eq!(c.authorization(), "Bearer eco_demo_owner");
}

#[test]
fn base_url_defaults_to_api_and_tolerates_trailing_slashes() {
    assert_eq!(Connection::new("", "k").base_url(), "/api");
    assert_eq!(Connection::new("  ", "k").base_url(), "/api");
    assert_eq!(Connection::new("/api/", "k").url(Api::Compute, "/gpu-reservations"), "/api/gpu-reservations");
    assert_eq!(
        Connection::new("https://api.ecohash.com//", "k").url(Api::Compute, "/gpu-reservations/12"),
        "https://api.ecohash.com/gpu-reservations/12"
    );
    assert_eq!(Connection::new("/api", " eco_k \n").expose_key(), "eco_k");
}

#[test]
fn the_org_capacity_api_has_its_own_base_url_the_same_one_unless_set() {
    let same = Connection::new("https://api.ecohash.com", "k").with_org_base_url("  ");
    assert_eq!(same.org_base_url(), "https://api.ecohash.com");
    let own = Connection::new("/api", "k").with_org_base_url("https://org.example.com/ ");
    assert_eq!(own.url(Api::Org, "/v1/orgs/o/reservations"), "https://org.example.com/v1/orgs/o/reservations");
    assert_eq!(own.url(Api::Compute, "/gpu-reservations"), "/api/gpu-reservations", "the Compute API's is kept");
}

#[test]
fn only_an_answer_that_says_so_is_the_simulator() {
    assert!(says_simulator(&ResponseHeaders::from_pairs([("X-Api-Simulator", "reservations-sim")])));
    assert!(!says_simulator(&ResponseHeaders::default()));
    assert!(!says_simulator(&ResponseHeaders::from_pairs([("x-api-simulator", "")])));
    assert!(!Connection::new("/api", "k").is_simulator(), "not until an answer says so");
}

#[test]
fn a_provider_console_origin_is_an_https_origin_or_nothing() {
    for ok in ["", "  ", "https://console.ecohash.com", "https://console.ecohash.com/", "http://localhost:8080"] {
        assert_eq!(console_origin_problem(ok), None, "{ok}");
    }
    for bad in [
        "console.ecohash.com",
        "http://console.ecohash.com",
        "javascript:alert(1)",
        "https://console.ecohash.com/path",
        "https://user@console.ecohash.com",
        "https://",
    ] {
        assert!(console_origin_problem(bad).is_some(), "{bad}");
    }
    assert_eq!(Connection::new("/api", "k").console_origin(), None);
    let set = Connection::new("/api", "k").with_console_origin(" https://console.ecohash.com/ ");
    assert_eq!(set.console_origin(), Some("https://console.ecohash.com"));
}

#[test]
fn an_api_base_url_is_a_path_https_or_loopback_http() {
    for ok in [
        "",
        "/api",
        " /api/ ",
        "https://api.ecohash.com",
        "https://api.ecohash.com:8443/v1",
        "http://127.0.0.1:8080/api",
        "http://localhost/api",
        "http://[::1]:9/api",
    ] {
        assert_eq!(base_url_problem(ok), None, "{ok}");
    }
    for bad in [
        "http://api.ecohash.com",
        "http://localhost.evil.example/api",
        "http://127.0.0.1.evil.example/api",
        "//api.ecohash.com",
        "/\\api.ecohash.com",
        "api.ecohash.com",
        "javascript:alert(1)",
        "ftp://api.ecohash.com",
        "https://user:pw@api.ecohash.com",
        "https://",
    ] {
        assert!(base_url_problem(bad).is_some(), "{bad}");
    }
}

#[test]
fn a_request_the_page_policy_blocks_is_named_before_it_is_sent() {
    // What `cargo xtask dist --api-origin https://api.ecohash.com` writes.
    let policy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
                  connect-src 'self' https://api.ecohash.com; base-uri 'none'";
    let page = "https://console.example.com";
    for allowed in ["https://console.example.com/api", "https://API.ecohash.com/v1", "https://api.ecohash.com"] {
        assert_eq!(policy_refusal(policy, page, allowed), None, "{allowed}");
    }
    let refused = policy_refusal(policy, page, "https://api.other.example/api/gpu-reservations").unwrap();
    assert!(refused.contains("Content-Security-Policy"), "{refused}");
    assert!(refused.contains("blocks requests to https://api.other.example."), "{refused}");
    assert!(refused.contains("'self' https://api.ecohash.com"), "{refused}");
    assert!(policy_refusal("default-src 'none'", page, "https://x.example").is_some(), "default-src applies");
    for open in ["connect-src https:", "connect-src *", "connect-src https://*.example", "script-src 'self'"] {
        assert_eq!(policy_refusal(open, page, "https://x.example/api"), None, "{open}");
    }
}

#[test]
fn a_key_with_blanks_inside_or_nothing_is_refused_before_sending() {
    assert_eq!(key_problem(" eco_demo_owner "), None);
    assert_eq!(key_problem(""), Some("Enter an API key."));
    assert!(key_problem("eco_a b").is_some());
    assert!(key_problem("eco_a\nb").is_some());
    assert!(key_problem("eco_ä").is_some());
}

#[test]
fn path_segments_are_percent_encoded_and_dot_segments_refused() {
    assert_eq!(path_segment("org_acme-1.x~").unwrap(), "org_acme-1.x~");
    assert_eq!(path_segment("a/b?c#d").unwrap(), "a%2Fb%3Fc%23d");
    assert_eq!(path_segment("ä %").unwrap(), "%C3%A4%20%25");
    for bad in ["", ".", ".."] {
        assert_eq!(path_segment(bad).unwrap_err().kind, ErrorKind::InvalidRequest);
    }
}
