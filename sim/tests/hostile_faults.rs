//! The faults of a hostile or broken server: `retry-after` of any shape, a 40 MiB body, an
//! endless one, node names that collide with the console's suffixes, numbers near
//! `u64::MAX`, and a request (a page chunk) that never answers.

mod common;

use common::{config, request, sim_with, OWNER};
use reservations_sim::Config;
use serde_json::json;
use std::time::Duration;

const NODES: &str = "/api/gpu-reservations/12/nodes";

#[tokio::test]
async fn retry_after_is_sent_as_given_or_as_an_http_date_with_a_code_body() {
    let sim = sim_with(config()).await;
    for value in ["1000000000", "-5", "soon", "Fri, 01 Jan 2100 00:00:00 GMT"] {
        sim.fault(json!({ "kind": "retry_after_text", "value": value, "count": 1 })).await;
        let reply = sim.get(NODES, Some(OWNER)).await;
        assert_eq!((reply.status, reply.header("retry-after")), (503, Some(value)));
        assert_eq!(reply.json()["code"], "service_unavailable");
    }
    sim.fault(json!({ "kind": "retry_after_text", "count": 1 })).await;
    let reply = sim.get(NODES, Some(OWNER)).await;
    let date = reply.header("retry-after").unwrap();
    let at = chrono::DateTime::parse_from_rfc2822(date).unwrap_or_else(|e| panic!("{date}: {e}"));
    let ahead = at.signed_duration_since(chrono::Utc::now()).num_seconds();
    assert!((0..=3).contains(&ahead), "{date} is {ahead} s ahead");
}

#[tokio::test]
async fn a_huge_body_is_40_mib_of_json() {
    let sim = sim_with(config()).await;
    sim.fault(json!({ "kind": "huge_body", "count": 1 })).await;
    let reply = sim.get(NODES, Some(OWNER)).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body.len(), 40 * 1024 * 1024);
    assert!(reply.json()["padding"].is_string());
}

#[tokio::test]
async fn an_endless_body_streams_json_without_a_length_for_as_long_as_it_is_read() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let sim = sim_with(config()).await;
    sim.fault(json!({ "kind": "endless_body", "count": 1 })).await;
    let mut stream = tokio::net::TcpStream::connect(sim.addr()).await.unwrap();
    let ask = format!("GET {NODES} HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer {OWNER}\r\n\r\n");
    stream.write_all(ask.as_bytes()).await.unwrap();
    let mut read = vec![0u8; 4 * 1024 * 1024];
    let mut got = 0;
    while got < read.len() {
        got += stream.read(&mut read[got..]).await.unwrap();
    }
    let text = String::from_utf8_lossy(&read);
    let head = &text[..text.find("\r\n\r\n").expect("a header")].to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("transfer-encoding: chunked") && !head.contains("content-length"), "{head}");
    assert!(text.contains("{\"padding\":\"") && text.contains(&"x".repeat(60_000)), "JSON that goes on");
    assert!(!text.contains("\"}"), "4 MiB in, it has not ended");
}

#[tokio::test]
async fn duplicate_names_and_huge_numbers_rewrite_the_nodes() {
    let sim = sim_with(config()).await;
    sim.fault(json!({ "kind": "duplicate_names", "count": 1 })).await;
    let nodes = sim.read(NODES).await;
    let names: Vec<&str> =
        nodes["nodes"].as_array().unwrap().iter().map(|n| n["display_name"].as_str().unwrap()).collect();
    assert!(names.len() >= 4, "{names:?}");
    assert_eq!(names[..4], ["a", "a#2", "a", ""]);

    sim.fault(json!({ "kind": "huge_numbers", "count": 1 })).await;
    let nodes = sim.read(NODES).await;
    assert_eq!(nodes["nodes"][0]["gpus"], json!(u64::MAX));
    sim.fault(json!({ "kind": "huge_numbers", "value": i64::MAX.to_string(), "count": 1 })).await;
    let nodes = sim.read(NODES).await;
    assert_eq!(nodes["nodes"][0]["gpus_in_use"], json!(i64::MAX));
}

#[tokio::test]
async fn a_hanging_chunk_request_never_answers_and_others_still_do() {
    let dir = std::env::temp_dir().join(format!("sim-hang-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>console</title>").unwrap();
    std::fs::write(dir.join("assets/page-nodes.js"), "export {}").unwrap();
    let sim = sim_with(Config { dist: Some(dir), ..config() }).await;
    sim.fault(json!({ "kind": "hang", "path_prefix": "/assets/page-", "count": 1 })).await;
    let hung =
        tokio::time::timeout(Duration::from_secs(2), request(sim.addr(), "GET", "/assets/page-nodes.js", None, None));
    assert!(hung.await.is_err(), "the chunk answered");
    assert_eq!(sim.get("/assets/page-nodes.js", None).await.status, 200, "count 1: the next request answers");
    assert_eq!(sim.get(NODES, Some(OWNER)).await.status, 200);
}
