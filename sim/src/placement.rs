//! Which workloads run on which node: a pure function of (seed, reservation, node, tick,
//! the node's churn generation) plus the instances launched through the API, so any instant
//! can be recomputed and a frozen clock shows a frozen placement.
//!
//! Each ready node has three lanes of capacity (½, ¼ and ¼ of its GPUs). A lane's kind is
//! fixed by its position; its occupant changes every 2–5 ticks: a lane is busy in an epoch
//! with 65 % probability, with a fresh id, name and GPU count. The first two ready nodes of a
//! reservation always have their lanes busy, so every kind is on show at every tick; the last
//! ready node of a reservation with more than two keeps its half lane empty, so half a node
//! is free there at every tick (launches aside): the demo's `/fit?gpus=4` always finds
//! room (reservation 12's node-3), as reservation 23 never has it. A GPU
//! cluster's epochs are shared by the reservation's nodes, so one cluster appears on several
//! nodes under one id, its replicas on each node listed once with their GPUs added up.
//! A reservation with steady lanes ([`STEADY_LANES`]) has the same lanes busy at full size
//! at every tick: the demo's fragmented reservation.
//! A lane whose workload was ended by the `end-workload` hook stays empty until a reset.
//! Launched instances take capacity first; a lane that no longer fits is left empty, so
//! `gpus_in_use` (the sum of the workloads) never exceeds the node's GPUs.

use crate::assumptions::{node_presence, NodePresence, NODES_WORKLOAD_BILLING, STEADY_LANES};
use crate::hash::mix;
use crate::reservation::{Key, NodeState, Reservation};
use crate::Config;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    GpuInstance,
    GpuCluster,
    InferenceInstance,
    FineTune,
}

impl Kind {
    fn name_prefix(self) -> &'static str {
        match self {
            Kind::GpuInstance => "notebook",
            Kind::GpuCluster => "train-run",
            Kind::InferenceInstance => "serve-llama",
            Kind::FineTune => "ft-job",
        }
    }
}

/// Lane `l` of node `n` runs `LANE_KINDS[(n + l) % 4]`.
const LANE_KINDS: [Kind; 4] = [Kind::GpuCluster, Kind::InferenceInstance, Kind::GpuInstance, Kind::FineTune];
/// Mixed into a cluster lane's key instead of the node, so the nodes share its epochs.
const CLUSTER_TAG: u64 = 0xC1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Workload {
    pub kind: Kind,
    pub id: u64,
    pub name: String,
    pub gpus: u32,
    pub billing: &'static str,
}

/// An instance launched through `POST /gpu-instances`, on one node until it ends.
#[derive(Clone, Debug)]
pub struct Launched {
    pub id: u64,
    pub name: String,
    pub gpus: u32,
    pub reservation: Key,
    pub node: usize,
    pub started_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

impl Launched {
    pub fn running_at(&self, at: DateTime<Utc>) -> bool {
        self.started_at <= at && at < self.ends_at
    }

    pub fn workload(&self) -> Workload {
        Workload {
            kind: Kind::GpuInstance,
            id: self.id,
            name: self.name.clone(),
            gpus: self.gpus,
            billing: NODES_WORKLOAD_BILLING,
        }
    }
}

/// One node as it is at the placement's instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeNow {
    pub state: NodeState,
    pub gpus: u32,
    pub workloads: Vec<Workload>,
}

impl NodeNow {
    pub fn gpus_in_use(&self) -> u32 {
        self.workloads.iter().map(|w| w.gpus).sum()
    }
}

/// Everything placement depends on besides the reservation.
pub struct Placement<'a> {
    seed: u64,
    tick: i64,
    now: DateTime<Utc>,
    launched: &'a [Launched],
    /// Bumped per (reservation, node) by the churn hook.
    churn: &'a HashMap<(Key, usize), u32>,
}

/// What is shared by all nodes of one reservation at one instant.
struct Context<'a> {
    launched: Vec<&'a Launched>,
    /// The first two ready nodes: every lane busy.
    anchors: Vec<usize>,
    /// The last ready node after the anchors: its half lane empty.
    room: Option<usize>,
}

impl<'a> Placement<'a> {
    pub fn of(
        config: &Config,
        now: DateTime<Utc>,
        launched: &'a [Launched],
        churn: &'a HashMap<(Key, usize), u32>,
    ) -> Self {
        Placement { seed: config.seed, tick: crate::clock::tick(now, config.tick), now, launched, churn }
    }

    /// Every node of the reservation, in order (`node-1` first).
    pub fn nodes(&self, reservation: &Reservation) -> Vec<NodeNow> {
        if node_presence(reservation.spec.status) == NodePresence::None {
            return Vec::new();
        }
        let context = self.context(reservation);
        (0..reservation.node_count() as usize).map(|i| self.node_with(reservation, i, &context)).collect()
    }

    /// Node `index` alone (what the churn hook compares).
    pub fn node(&self, reservation: &Reservation, index: usize) -> NodeNow {
        self.node_with(reservation, index, &self.context(reservation))
    }

    fn context(&self, reservation: &Reservation) -> Context<'a> {
        let key = reservation.spec.key();
        let launched = self.launched.iter().filter(|l| l.reservation == key && l.running_at(self.now)).collect();
        // From each end, so that `node` (the churn hook's, once per node) does not walk
        // every node of a 10,000-node reservation.
        let ready = |i: &usize| node_state(reservation, *i) == NodeState::Ready;
        let nodes = 0..reservation.node_count() as usize;
        let anchors: Vec<usize> = nodes.clone().filter(ready).take(2).collect();
        let room = nodes.rev().find(ready).filter(|last| anchors.get(1).is_some_and(|second| last > second));
        Context { launched, anchors, room }
    }

    fn node_with(&self, reservation: &Reservation, index: usize, context: &Context) -> NodeNow {
        let gpus = reservation.spec.gpus_per_node;
        let (state, running) = match node_presence(reservation.spec.status) {
            NodePresence::Preparing | NodePresence::None => (NodeState::Preparing, false),
            NodePresence::Stopped => (node_state(reservation, index), false),
            NodePresence::Running => (node_state(reservation, index), true),
        };
        let mut workloads = Vec::new();
        if running && state == NodeState::Ready {
            workloads.extend(context.launched.iter().filter(|l| l.node == index).map(|l| l.workload()));
            let mut free = gpus.saturating_sub(workloads.iter().map(|w| w.gpus).sum());
            let anchor = context.anchors.contains(&index);
            for (lane, cap) in lane_caps(gpus).into_iter().enumerate() {
                if reservation.spec.ended_lanes.contains(&(index, lane)) {
                    continue;
                }
                let busy = if reservation.spec.steady_lanes {
                    Some(STEADY_LANES[lane])
                } else {
                    (lane == 0 && context.room == Some(index)).then_some(false)
                };
                if let Some(workload) =
                    self.lane(reservation.spec.key(), index, lane, cap, anchor, busy).filter(|w| w.gpus <= free)
                {
                    free -= workload.gpus;
                    workloads.push(workload);
                }
            }
        }
        NodeNow { state, gpus, workloads }
    }

    /// The occupant of one lane at this tick, if any. `steady`: busy (at the lane's full size)
    /// or empty whatever the tick.
    fn lane(
        &self,
        reservation: Key,
        node: usize,
        lane: usize,
        cap: u32,
        anchor: bool,
        steady: Option<bool>,
    ) -> Option<Workload> {
        let kind = LANE_KINDS[(node + lane) % LANE_KINDS.len()];
        let (seed, id) = (self.seed ^ reservation.account.workload_salt(), reservation.id);
        let key = if kind == Kind::GpuCluster {
            mix(&[seed, id, CLUSTER_TAG])
        } else {
            mix(&[seed, id, node as u64, lane as u64])
        };
        let len = 2 + key % 4;
        let phase = (key >> 8) % len;
        let epoch = (self.tick + phase as i64).div_euclid(len as i64);
        let churn = self.churn.get(&(reservation, node)).copied().unwrap_or(0);
        let h = mix(&[key, epoch as u64, churn.into()]);
        if cap == 0 || !steady.unwrap_or(anchor || h % 100 < 65) {
            return None;
        }
        let cap = u64::from(cap);
        let gpus = match kind {
            _ if steady.is_some() => cap,
            // Replicas of 1–2 GPUs, at least two of them when they fit.
            Kind::GpuCluster => (2 * (1 + (h >> 16) % (cap / 2).max(1))).min(cap),
            _ => 1 + (h >> 16) % cap,
        };
        Some(Workload {
            kind,
            id: 1000 + (h >> 24) % 90_000,
            name: format!("{}-{}", kind.name_prefix(), 1 + (h >> 40) % 99),
            gpus: gpus as u32,
            billing: NODES_WORKLOAD_BILLING,
        })
    }
}

fn node_state(reservation: &Reservation, index: usize) -> NodeState {
    reservation.spec.node_states.get(index).copied().unwrap_or_default()
}

fn lane_caps(gpus: u32) -> [u32; 3] {
    let (half, quarter) = (gpus / 2, gpus / 4);
    [half, quarter, gpus - half - quarter]
}
