//! The console's files go out with the build's Content-Security-Policy and the other
//! security headers; the 503 and 429 faults can be told how long `retry-after` is.

mod common;

use common::{config, sim_with, OWNER};
use reservations_sim::Config;
use serde_json::json;

const POLICY: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; frame-ancestors 'none'";

fn build(name: &str, with_policy: bool) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sim-csp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>console</title>").unwrap();
    std::fs::write(dir.join("app.js"), "export {}").unwrap();
    if with_policy {
        std::fs::write(dir.join("csp-header.txt"), format!("{POLICY}\n")).unwrap();
    }
    dir
}

#[tokio::test]
async fn every_console_file_carries_the_builds_policy_and_the_security_headers() {
    let dist = build("with", true);
    let sim = sim_with(Config { dist: Some(dist.clone()), ..config() }).await;
    for path in ["/", "/reservations/12/nodes", "/app.js", "/missing.css"] {
        let reply = sim.get(path, None).await;
        assert_eq!(reply.header("content-security-policy"), Some(POLICY), "{path}");
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(reply.header("referrer-policy"), Some("no-referrer"), "{path}");
        assert_eq!(reply.header("x-frame-options"), Some("DENY"), "{path}");
    }
    let api = sim.get("/api/gpu-reservations", Some(OWNER)).await;
    assert_eq!((api.status, api.header("content-security-policy")), (200, None), "the API answers JSON, not pages");
    let _ = std::fs::remove_dir_all(dist);
}

#[tokio::test]
async fn a_build_without_a_policy_file_is_served_without_a_guessed_policy() {
    let dist = build("without", false);
    let sim = sim_with(Config { dist: Some(dist.clone()), ..config() }).await;
    let reply = sim.get("/", None).await;
    assert_eq!((reply.status, reply.header("content-security-policy")), (200, None));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    let _ = std::fs::remove_dir_all(dist);
}

#[tokio::test]
async fn the_503_and_429_faults_send_the_retry_after_they_are_given() {
    let sim = sim_with(config()).await;
    let nodes = "/api/gpu-reservations/12/nodes";
    sim.fault(json!({ "kind": "503", "retry_after": 7, "count": 1 })).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    assert_eq!((reply.status, reply.header("retry-after")), (503, Some("7")));

    sim.fault(json!({ "kind": "429", "retry_after": 3, "count": 1 })).await;
    let reply = sim.get(nodes, Some(OWNER)).await;
    assert_eq!(reply.status, 429);
    assert_eq!((reply.header("retry-after"), reply.header("x-ratelimit-reset")), (Some("3"), Some("3")));
    assert_eq!(reply.header("x-ratelimit-remaining"), Some("0"));

    let refused = common::hook_request(
        sim.addr(),
        "POST",
        "/api/__sim/faults",
        Some(&json!({ "kind": "500", "retry_after": 3 }).to_string()),
    )
    .await;
    assert_eq!(refused.status, 400, "retry_after belongs to 503 and 429 only: {}", refused.text());
}
