//! CONTRACT.md's shared rules (rate limit, request ids, error shapes), every fault kind, the
//! other test hooks (request log, clock, reset, loopback only) and the static console.

mod common;

use common::*;
use reservations_sim::{app, Config};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[tokio::test]
async fn rate_limit_headers_count_down_then_429_with_retry_after() {
    let sim = sim_with(Config { rate_limit_per_min: 3, ..config() }).await;
    for remaining in ["2", "1", "0"] {
        let reply = sim.get("/api/gpu-reservations", Some(OWNER)).await;
        assert_eq!(reply.status, 200);
        assert_eq!(
            (reply.header("x-ratelimit-limit"), reply.header("x-ratelimit-remaining")),
            (Some("3"), Some(remaining))
        );
        let reset: u64 = reply.header("x-ratelimit-reset").unwrap().parse().unwrap();
        assert!((1..=60).contains(&reset), "seconds, not an epoch: {reset}");
    }
    let refused = sim.get("/api/gpu-reservations/12", Some(OWNER)).await;
    assert_eq!((refused.status, &refused.json()["error"]), (429, &json!("rate_limit_exceeded")));
    assert!(refused.json()["message"].is_string());
    assert_eq!(refused.header("x-ratelimit-remaining"), Some("0"));
    assert!(refused.header("x-ratelimit-limit").is_some() && refused.header("x-ratelimit-reset").is_some());
    assert!(refused.header("retry-after").unwrap().parse::<u64>().unwrap() <= 60);
    let member = sim.get("/api/gpu-reservations", Some(MEMBER)).await;
    assert_eq!((member.status, member.header("x-ratelimit-remaining")), (200, Some("2")), "per key");
    let missing = sim.get("/api/gpu-reservations/999", Some(MEMBER)).await;
    assert_eq!((missing.status, missing.header("x-ratelimit-remaining")), (404, Some("1")), "on errors too");
    assert!(sim.get("/api/gpu-reservations", None).await.header("x-ratelimit-limit").is_none());
}

#[tokio::test]
async fn every_response_carries_a_distinct_request_id() {
    let dist = dist_dir();
    let sim = sim_with(Config { dist: Some(dist.clone()), rate_limit_per_min: 1, ..config() }).await;
    sim.fault(json!({ "kind": "502_html", "path_prefix": "/api/gpu-reservations/5", "count": 1 })).await;
    let mut ids = Vec::new();
    for (path, key) in [
        ("/api/gpu-reservations", Some(OWNER)),
        ("/api/gpu-reservations", Some(OWNER)),
        ("/api/gpu-reservations", None),
        ("/api/gpu-reservations/5", Some(MEMBER)),
        ("/api/no-such-thing", None),
        ("/api/__sim/clock", None),
        ("/", None),
        ("/reservations/12", None),
    ] {
        let reply = sim.get(path, key).await;
        let id = reply.header("x-ecolink-request-id").unwrap_or_else(|| panic!("{path} {}", reply.status)).to_owned();
        assert!(id.starts_with("req_"));
        ids.push(id);
    }
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len());
    let _ = std::fs::remove_dir_all(dist);
}

/// Every fault kind, each limited to one request so the next answer is normal again.
#[tokio::test]
async fn each_fault_kind_alters_one_answer_as_documented() {
    let sim = sim().await;
    let nodes = "/api/gpu-reservations/12/nodes";
    let once = |kind: &str| json!({ "kind": kind, "count": 1, "path_prefix": nodes });

    sim.fault(once("500")).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    assert_eq!((reply.status, &reply.json()["error"]), (500, &json!("internal_error")));
    assert!(reply.header("x-ecolink-request-id").is_some());

    sim.fault(once("502_html")).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    assert_eq!(reply.status, 502);
    assert!(reply.header("content-type").unwrap().starts_with("text/html") && reply.text().contains("<html>"));

    sim.fault(once("503")).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    assert_eq!((reply.status, reply.header("retry-after")), (503, Some("2")));

    sim.fault(once("429")).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    assert_eq!((reply.status, &reply.json()["error"]), (429, &json!("rate_limit_exceeded")));
    for header in ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"] {
        assert!(reply.header(header).is_some(), "{header}");
    }

    sim.fault(json!({ "kind": "slow", "delay_ms": 300, "count": 1 })).await;
    let started = Instant::now();
    assert_eq!(sim.get(nodes, Some(OWNER)).await.status, 200);
    assert!(started.elapsed() >= Duration::from_millis(300));

    sim.fault(once("truncated")).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    let whole = sim.get(nodes, Some(OWNER)).await;
    assert_eq!(reply.status, 200);
    assert!(serde_json::from_slice::<Value>(&reply.body).is_err() && whole.body.starts_with(&reply.body[..10]));

    sim.fault(once("malformed")).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    assert_eq!(reply.status, 200);
    assert!(serde_json::from_slice::<Value>(&reply.body).is_err());

    sim.fault(once("wrong_type")).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    assert_eq!(reply.header("x-sim-fault-field"), Some("/nodes/0/gpus"));
    assert!(reply.json()["nodes"][0]["gpus"].is_string());

    sim.fault(json!({ "kind": "unknown_enum", "count": 1 })).await;
    let reply = sim.get("/api/gpu-reservations", Some(OWNER)).await;
    assert_eq!(reply.json()[0]["status"], "hibernating");

    sim.fault(json!({ "kind": "unreachable", "count": 1 })).await;
    let unknown = sim.read(nodes).await;
    assert_eq!(unknown["workloads_unknown"], true);
    assert!(unknown["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n.get("gpus_in_use").is_none() && n.get("workloads").is_none()));

    sim.fault(json!({ "kind": "revoke_key", "key": OWNER })).await;
    assert_eq!(sim.get(nodes, Some(OWNER)).await.json(), json!({ "error": "unauthorized" }));
    assert_eq!(sim.get(nodes, Some(MEMBER)).await.status, 200);
    assert_eq!(sim.hook("DELETE", "/faults", None).await, json!({ "faults": [] }));
    let normal = sim.get(nodes, Some(OWNER)).await;
    assert_eq!(
        (normal.status, normal.json()["workloads_unknown"].clone(), normal.header("x-sim-fault")),
        (200, json!(false), None)
    );
}

#[tokio::test]
async fn faults_apply_to_their_path_prefix_count_times_and_list_themselves() {
    let sim = sim().await;
    sim.fault(json!({ "kind": "500", "path_prefix": "/api/v1/orgs", "count": 2 })).await;
    let listed = sim.hook("GET", "/faults", None).await;
    assert_eq!(listed, json!({ "faults": [{ "kind": "500", "path_prefix": "/api/v1/orgs", "count": 2 }] }));
    assert_eq!(sim.get("/api/gpu-reservations", Some(OWNER)).await.status, 200);
    for _ in 0..2 {
        assert_eq!(sim.get("/api/v1/orgs/org_acme/reservations", Some(OWNER)).await.status, 500);
    }
    assert_eq!(sim.get("/api/v1/orgs/org_acme/reservations", Some(OWNER)).await.status, 200);
    let unknown = hook_request(sim.addr(), "POST", "/api/__sim/faults", Some(r#"{"kind":"refuse"}"#)).await;
    assert_eq!(unknown.status, 400);
}

#[tokio::test]
async fn request_log_records_roles_times_statuses_and_concurrency_per_path() {
    let sim = sim().await;
    sim.hook("DELETE", "/requests", None).await;
    let nodes = "/api/gpu-reservations/12/nodes";
    sim.get(nodes, Some(OWNER)).await;
    sim.get(nodes, Some(MEMBER)).await;
    sim.get("/api/gpu-reservations", None).await;
    let log = sim.hook("GET", "/requests", None).await;
    let entries = log["requests"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "hooks are not logged: {log}");
    let roles: Vec<&Value> = entries.iter().map(|e| &e["role"]).collect();
    assert_eq!(roles, [&json!("owner"), &json!("member"), &Value::Null]);
    assert_eq!(
        (&entries[0]["method"], &entries[0]["path"], &entries[0]["status"]),
        (&json!("GET"), &json!(nodes), &json!(200))
    );
    assert_eq!(entries[2]["status"], 401);
    for e in entries {
        assert!(e["id"].as_str().unwrap().starts_with("req_"));
        assert!(e["finished_ms"].as_f64().unwrap() >= e["started_ms"].as_f64().unwrap());
    }
    assert!(entries[1]["started_ms"].as_f64().unwrap() >= entries[0]["finished_ms"].as_f64().unwrap());
    assert_eq!(log["max_in_flight"][nodes], 1);

    sim.fault(json!({ "kind": "slow", "delay_ms": 200, "count": 2 })).await;
    let (a, b) = tokio::join!(sim.get(nodes, Some(OWNER)), sim.get(nodes, Some(OWNER)));
    assert_eq!((a.status, b.status), (200, 200));
    let log = sim.hook("GET", &format!("/requests?path_prefix={nodes}"), None).await;
    assert_eq!((&log["max_in_flight"][nodes], log["requests"].as_array().unwrap().len()), (&json!(2), 4));
    assert_eq!(log["in_flight"], json!({}));
    let cleared = sim.hook("DELETE", "/requests", None).await;
    assert_eq!((cleared["requests"].as_array().unwrap().len(), &cleared["max_in_flight"]), (0, &json!({})));
}

#[tokio::test]
async fn clock_hook_sets_advances_and_freezes_the_simulated_time() {
    let sim = sim().await;
    let set = sim.hook("POST", "/clock", Some(json!({ "set": "2027-01-10T00:00:00Z", "freeze": true }))).await;
    assert_eq!(
        (&set["now"], &set["frozen"], &set["tick_ms"]),
        (&json!("2027-01-10T00:00:00Z"), &json!(true), &json!(4000))
    );
    let advanced = sim.hook("POST", "/clock", Some(json!({ "advance_secs": 8 }))).await;
    assert_eq!(advanced["now"], "2027-01-10T00:00:08Z");
    assert_eq!(advanced["tick"].as_i64().unwrap() - set["tick"].as_i64().unwrap(), 2);
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(sim.hook("GET", "/clock", None).await["now"], "2027-01-10T00:00:08Z");
    let running = sim.hook("POST", "/clock", Some(json!({ "freeze": false }))).await;
    assert_eq!(running["frozen"], false);
    let handle = &sim.running.handle;
    handle.freeze(true);
    let frozen_at = handle.now();
    handle.advance(Duration::from_secs(60));
    assert_eq!(handle.now() - frozen_at, chrono::TimeDelta::seconds(60));
    assert_eq!(hook_request(sim.addr(), "POST", "/api/__sim/clock", Some(r#"{"warp":1}"#)).await.status, 400);
}

#[tokio::test]
async fn reset_restores_the_initial_state() {
    let sim = sim().await;
    let initial = sim.read("/api/v1/orgs/org_acme/reservations").await;
    sim.freeze().await;
    let launch = json!({ "region_id": "atl", "gpu_type": RTX, "gpus": 1, "name": "nb" });
    let launched = sim.post("/api/gpu-instances", Some(OWNER), &launch).await;
    let reclaim = json!({ "unitIds": ["nd-atl-0142-gpu6"], "dryRun": false });
    sim.post("/api/v1/orgs/org_acme/reservations/rsv_0001/reclaim", Some(OWNER), &reclaim).await;
    sim.fault(json!({ "kind": "500" })).await;
    let reset = sim.hook("POST", "/reset", None).await;
    assert_eq!(reset["reset"], true);
    assert_eq!(sim.read("/api/v1/orgs/org_acme/reservations").await, initial);
    let nodes = sim.read("/api/gpu-reservations/12/nodes").await.to_string();
    if launched.status == 201 {
        assert!(!nodes.contains(&format!("\"id\":{}", launched.json()["id"])));
    }
    assert_eq!(sim.hook("GET", "/clock", None).await["frozen"], false);
}

#[tokio::test]
async fn node_state_hook_puts_a_node_into_maintenance_and_back() {
    let sim = sim().await;
    let state = |nodes: &Value, name: &str| {
        let node = nodes["nodes"].as_array().unwrap().iter().find(|n| n["display_name"] == name).cloned();
        node.map(|n| n["state"].clone()).unwrap_or(Value::Null)
    };
    assert_eq!(state(&sim.read("/api/gpu-reservations/12/nodes").await, "node-1"), "ready");
    let body = json!({ "reservation_id": 12, "node": "node-1", "state": "under_maintenance" });
    sim.hook("POST", "/node-state", Some(body)).await;
    assert_eq!(state(&sim.read("/api/gpu-reservations/12/nodes").await, "node-1"), "under_maintenance");
    sim.hook("POST", "/node-state", Some(json!({ "reservation_id": 12, "node": "node-1", "state": "ready" }))).await;
    assert_eq!(state(&sim.read("/api/gpu-reservations/12/nodes").await, "node-1"), "ready");
    let past_the_end = json!({ "reservation_id": 12, "node": "node-5", "state": "ready" }).to_string();
    let refused = hook_request(sim.addr(), "POST", "/api/__sim/node-state", Some(&past_the_end)).await;
    assert_eq!(refused.status, 400, "{}", refused.text());
}

#[tokio::test]
async fn end_workload_hook_frees_the_largest_lane_of_a_node_until_a_reset() {
    let sim = sim().await;
    // Reservation 23's steady lanes leave 2 of 8 GPUs free on every node.
    let free = |nodes: &Value, name: &str| {
        let node = nodes["nodes"].as_array().unwrap().iter().find(|n| n["display_name"] == name).cloned().unwrap();
        node["gpus"].as_i64().unwrap() - node["gpus_in_use"].as_i64().unwrap()
    };
    let nodes = "/api/gpu-reservations/23/nodes";
    assert_eq!(free(&sim.read(nodes).await, "node-2"), 2);
    let ended = sim.hook("POST", "/end-workload", Some(json!({ "reservation_id": 23, "node": "node-2" }))).await;
    assert_eq!(ended["ended"]["gpus"], 4, "{ended}");
    let after = sim.read(nodes).await;
    assert_eq!((free(&after, "node-2"), free(&after, "node-1")), (6, 2), "only node-2's half lane ended");
    sim.hook("POST", "/clock", Some(json!({ "advance_secs": 3600 }))).await;
    assert_eq!(free(&sim.read(nodes).await, "node-2"), 6, "it stays ended as time passes");
    let again = sim.hook("POST", "/end-workload", Some(json!({ "reservation_id": 23, "node": "node-2" }))).await;
    assert_eq!(again["ended"]["gpus"], 2, "then the next lane: {again}");
    let none = json!({ "reservation_id": 23, "node": "node-2" }).to_string();
    let refused = hook_request(sim.addr(), "POST", "/api/__sim/end-workload", Some(&none)).await;
    assert_eq!(refused.status, 400, "no workload left in its lanes: {}", refused.text());
    sim.hook("POST", "/reset", None).await;
    assert_eq!(free(&sim.read(nodes).await, "node-2"), 2);
}

#[tokio::test]
async fn hooks_refuse_a_peer_they_cannot_verify_as_loopback() {
    let (router, _handle) = app(config());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let refused = hook_request(addr, "GET", "/api/__sim/clock", None).await;
    assert_eq!((refused.status, &refused.json()["error"]), (403, &json!("forbidden")));
    assert_eq!(request(addr, "GET", "/api/gpu-reservations", Some(OWNER), None).await.status, 200);
}

/// A page in the developer's browser (CSRF) cannot add a custom header without a preflight,
/// and a DNS-rebound page carries its own name as `Host`: both are refused.
#[tokio::test]
async fn hooks_need_their_header_and_a_loopback_host() {
    let sim = sim().await;
    let fault = r#"{"kind":"500"}"#;
    let bare = request(sim.addr(), "POST", "/api/__sim/faults", None, Some(fault)).await;
    assert_eq!(bare.status, 403, "{}", bare.text());
    let rebound = request_with_headers(
        sim.addr(),
        "GET",
        "/api/__sim/faults",
        None,
        None,
        &[(reservations_sim::HOOK_HEADER, "1"), ("host", "evil.example:8080")],
    )
    .await;
    assert_eq!(rebound.status, 403, "{}", rebound.text());
    assert_eq!(sim.hook("GET", "/faults", None).await, json!({ "faults": [] }));
    let localhost = request_with_headers(
        sim.addr(),
        "GET",
        "/api/__sim/clock",
        None,
        None,
        &[(reservations_sim::HOOK_HEADER, "1"), ("host", "localhost:1")],
    )
    .await;
    assert_eq!(localhost.status, 200, "{}", localhost.text());
}

fn dist_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sim-dist-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>console</title>").unwrap();
    std::fs::write(dir.join("assets/app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    dir
}

#[tokio::test]
async fn static_console_has_spa_fallback_and_wasm_mime_while_api_stays_json() {
    let dist = dist_dir();
    let sim = sim_with(Config { dist: Some(dist.clone()), ..config() }).await;
    for path in ["/", "/reservations/12/nodes", "/org"] {
        let reply = sim.get(path, None).await;
        assert_eq!((reply.status, reply.text().contains("<title>console</title>")), (200, true), "{path}");
        assert!(reply.header("content-type").unwrap().starts_with("text/html"));
    }
    let wasm = sim.get("/assets/app_bg.wasm", None).await;
    assert_eq!((wasm.status, wasm.header("content-type")), (200, Some("application/wasm")));
    let unknown = sim.get("/api/reservations", Some(OWNER)).await;
    assert_eq!((unknown.status, &unknown.json()["error"]), (404, &json!("not_found")));
    assert!(unknown.json()["message"].as_str().unwrap().contains("/api/reservations"));
    let wrong_method = sim.post("/api/gpu-reservations", Some(OWNER), &json!({})).await;
    assert_eq!((wrong_method.status, &wrong_method.json()["error"]), (405, &json!("method_not_allowed")));
    let _ = std::fs::remove_dir_all(dist);
}

#[tokio::test]
async fn a_stopped_simulator_refuses_connections() {
    let sim = sim().await;
    let addr = sim.addr();
    sim.running.stop().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn cors_is_off_by_default_and_for_tests_answers_loopback_origins_only() {
    let origin = [("origin", "http://127.0.0.1:9999")];
    let plain = sim().await;
    let reply = request_with_headers(plain.addr(), "GET", "/api/gpu-reservations", Some(OWNER), None, &origin).await;
    assert_eq!(reply.header("access-control-allow-origin"), None);

    let sim = sim_with(Config { cors_for_tests: true, ..config() }).await;
    let preflight = request_with_headers(sim.addr(), "OPTIONS", "/api/gpu-reservations", None, None, &origin).await;
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.header("access-control-allow-origin"), Some("http://127.0.0.1:9999"));
    assert!(preflight.header("access-control-allow-headers").unwrap().contains("authorization"));

    let reply = request_with_headers(sim.addr(), "GET", "/api/gpu-reservations", Some(OWNER), None, &origin).await;
    assert_eq!(reply.status, 200);
    assert!(reply.header("access-control-expose-headers").unwrap().contains("x-ecolink-request-id"));

    let foreign = [("origin", "https://evil.example")];
    let reply = request_with_headers(sim.addr(), "GET", "/api/gpu-reservations", Some(OWNER), None, &foreign).await;
    assert_eq!(reply.header("access-control-allow-origin"), None);
}
