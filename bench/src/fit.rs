//! The fit judgement (`domain::fleet::fit`, the `/fit` page's verdict) and the make-room plan
//! (`domain::fleet::make_room`, its panel) over one reservation of 10,000 nodes, timed natively: the page judges from nodes already read, so the figure
//! is the judgement alone, no request and no DOM. Runs on this machine's CPU, not in the
//! browser's wasm (expect the page's to be a small factor slower).

use crate::stats::Spread;
use reservations_console::api::enums::{NodeState, WorkloadKind};
use reservations_console::api::models::{Node, NodesResponse, Reservation, Workload};
use reservations_console::domain::fleet::fit::{judge, Question};
use reservations_console::domain::fleet::make_room::{make_room, Keep};
use std::num::NonZeroU32;
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
    timed(runs, || judge(&r, Some(&n), &question))
}

/// 10,000 ready nodes of 8 GPUs, each with 2 to 6 in use by an instance, a fine-tune and
/// (on every other node) half of a 2-GPU cluster shared with the next node: no node has 6
/// free, every one can make room, so every node is planned and the ties all weighed.
fn busy_nodes() -> NodesResponse {
    let work =
        |kind: WorkloadKind, id: i64, gpus: i64| Workload { kind, id, name: format!("w-{id}"), gpus, billing: None };
    let nodes = (0..10_000i64)
        .map(|i| {
            let mut workloads = vec![work(WorkloadKind::GpuInstance, i, 1 + i % 3), work(WorkloadKind::FineTune, i, 1)];
            workloads.push(work(WorkloadKind::GpuCluster, i / 2, 1));
            Node {
                display_name: format!("node-{i}"),
                state: NodeState::Ready,
                gpus: 8,
                gpus_in_use: Some(workloads.iter().map(|w| w.gpus).sum()),
                workloads,
            }
        })
        .collect();
    NodesResponse { nodes, workloads_unknown: false, ..Default::default() }
}

/// `runs` make-room plans for 6 GPUs, in ms.
pub fn make_room_10k(runs: usize) -> Option<Spread> {
    let (r, n) = (reservation(), busy_nodes());
    let k = NonZeroU32::new(6)?;
    timed(runs, || make_room(&r, &n, k, &Keep::default()))
}

/// `runs` calls of `f`, each timed, in ms.
fn timed<T>(runs: usize, f: impl Fn() -> T) -> Option<Spread> {
    let samples: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    Spread::of(&samples)
}
