//! The fit judgement (`domain::fleet::fit`, the `/fit` page's verdict) over one reservation of
//! 10,000 nodes, timed natively: the page judges from nodes already read, so the figure
//! is the judgement alone, no request and no DOM. Runs on this machine's CPU, not in the
//! browser's wasm (expect the page's to be a small factor slower).

use crate::stats::Spread;
use reservations_console::api::enums::NodeState;
use reservations_console::api::models::{Node, NodesResponse, Reservation};
use reservations_console::domain::fleet::fit::{judge, Question};
use std::time::Instant;

/// Seed 004's reservation (the detail's extra fields are ignored).
fn reservation() -> Reservation {
    serde_json::from_str(include_str!("../../fixtures/seed_004_detail.json")).expect("seed 004 decodes")
}

/// 10,000 nodes of 8 GPUs in every state, with 0 to 8 in use: no block of 8 is free except
/// on idle nodes, so the whole list is walked.
fn nodes() -> NodesResponse {
    let states =
        [NodeState::Ready, NodeState::Ready, NodeState::Ready, NodeState::Preparing, NodeState::UnderMaintenance];
    let nodes = (0..10_000i64)
        .map(|i| Node {
            display_name: format!("node-{i}"),
            state: states[usize::try_from(i).unwrap_or(0) % states.len()].clone(),
            gpus: 8,
            gpus_in_use: Some(i % 9),
            workloads: Vec::new(),
        })
        .collect();
    NodesResponse { nodes, workloads_unknown: false, ..Default::default() }
}

/// `runs` judgements of 4 replicas of 3 GPUs, in ms.
pub fn judge_10k(runs: usize) -> Option<Spread> {
    let (r, n) = (reservation(), nodes());
    let question = Question::from_query("?gpus=3&replicas=4").ok().flatten()?;
    let samples: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(judge(&r, Some(&n), &question));
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    Spread::of(&samples)
}
