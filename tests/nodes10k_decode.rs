//! How long a 10,000-node `/nodes` answer (~2.7 MB) takes to decode and to filter, and a
//! poll's answer read after it, printed (not asserted: timings depend on the machine and the
//! profile). Run with `--nocapture`.
#![cfg(not(target_arch = "wasm32"))]

use reservations_console::api::client::decode;
use reservations_console::api::error::ResponseHeaders;
use reservations_console::api::models::NodesResponse;
use reservations_console::domain::nodes::filter::{found_workloads, NodeFilter, SortBy};
use std::time::Instant;

/// 10,000 nodes of 8 GPUs shaped like the simulator's `huge` scenario: most with a cluster
/// replica and an instance, one in fifty under maintenance.
fn answer() -> String {
    let nodes: Vec<String> = (0..10_000)
        .map(|i| {
            let state = if i % 50 == 49 { "under_maintenance" } else { "ready" };
            let workloads = if state == "ready" {
                format!(
                    r#"[{{"kind":"gpu_cluster","id":{},"name":"train-run-{}","gpus":4,"billing":"reserved"}},
                        {{"kind":"gpu_instance","id":{},"name":"notebook-{i}","gpus":2,"billing":"reserved"}}]"#,
                    1_000 + i / 16,
                    i / 16,
                    100_000 + i
                )
            } else {
                "[]".to_owned()
            };
            let in_use = if state == "ready" { 6 } else { 0 };
            format!(
                r#"{{"display_name":"nd-iad-{i:05}","state":"{state}","gpus":8,"gpus_in_use":{in_use},"workloads":{workloads}}}"#
            )
        })
        .collect();
    format!(r#"{{"nodes":[{}],"workloads_unknown":false}}"#, nodes.join(","))
}

#[test]
fn decoding_and_filtering_ten_thousand_nodes_is_timed() {
    let body = answer();
    let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req-10k")]);
    let started = Instant::now();
    let decoded: NodesResponse = decode(200, &headers, &body, chrono::Utc::now()).expect("decodes");
    let decode = started.elapsed();
    assert_eq!(decoded.nodes.len(), 10_000);
    let started = Instant::now();
    let filter = NodeFilter { min_free: Some(2), sort: SortBy::FreeGpus, ..NodeFilter::default() };
    let shown = filter.apply(&decoded.nodes);
    let filtered = started.elapsed();
    let started = Instant::now();
    let found = found_workloads(&decoded.nodes, "train-run-600");
    let searched = started.elapsed();
    assert_eq!(found.len(), 1, "one cluster across its 16 nodes");
    assert_eq!(found[0].at.nodes.len(), 16);
    println!(
        "nodes10k: body {} bytes; decode {decode:?}; filter+sort {filtered:?} ({} shown); search {searched:?}",
        body.len(),
        shown.len()
    );
}

#[test]
fn a_poll_that_changes_a_hundred_of_ten_thousand_nodes_reads_those_hundred_and_keeps_the_rest() {
    let first = answer();
    let started = Instant::now();
    let before = NodesResponse::read_after(first.clone(), None).expect("the first answer reads");
    let whole = started.elapsed();
    // Nodes 0, 100, 200, … lose their instance (notebook-0, notebook-100, …).
    let mut polled = first;
    for i in (0..10_000).step_by(100) {
        let instance = format!(
            r#",
                        {{"kind":"gpu_instance","id":{},"name":"notebook-{i}","gpus":2,"billing":"reserved"}}"#,
            100_000 + i
        );
        polled = polled.replacen(&instance, "", 1);
    }
    let started = Instant::now();
    let (after, text) = NodesResponse::read_after(polled.clone(), Some((&before.0, &before.1))).expect("reads");
    let poll = started.elapsed();
    assert_eq!(text.read_anew(), 100);
    assert_eq!(after, serde_json::from_str::<NodesResponse>(&polled).unwrap(), "the answer the text holds");
    assert_eq!(after.nodes[100].workloads.len(), 1);
    assert_eq!(after.nodes[101].workloads.len(), 2);
    println!("nodes10k: first answer read whole {whole:?}; a poll changing 100 nodes {poll:?}");
}
