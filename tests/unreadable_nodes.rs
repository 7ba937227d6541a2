//! A node set apart for an absurd workload (`api::limits`) counts in the sums as unknown,
//! never as zero, on the Nodes page and the overview alike (`domain`). Native: the decoder
//! and the sums meet here, above both floors.
#![cfg(not(target_arch = "wasm32"))]

use reservations_console::api::client::decode;
use reservations_console::api::error::ResponseHeaders;
use reservations_console::api::models::NodesResponse;
use reservations_console::domain::{fleet::GpuSplit, nodes::capacity};

#[test]
fn the_gpus_of_a_node_set_apart_are_unknown_never_zero() {
    let body = include_str!("../fixtures/nodes_absurd_workloads.json");
    let now = "2026-12-17T10:00:00Z".parse().unwrap();
    let read = decode::<NodesResponse>(200, &ResponseHeaders::default(), body, now).expect("the sane node is read");
    let totals = capacity::totals(&read);
    assert_eq!((totals.gpus, totals.in_use, totals.unreadable.gpus), (Some(8), Some(2), Some(16)));
    assert!(totals.unreadable_text().unwrap().contains("their 16 GPUs are unknown"), "{:?}", totals.unreadable_text());
    let split = GpuSplit::of(&read);
    assert_eq!((split.in_use, split.free, split.unknown), (2, 6, 16));
}
