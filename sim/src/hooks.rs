//! Test and benchmark hooks under `/api/__sim`, for loopback peers only: faults, the request
//! log, the simulated clock, workload churn, a node's state, a workload ending and reset. Not authenticated, not rate limited,
//! not logged, never faulted.
//!
//! A loopback peer is not enough: a web page open in the developer's browser is one too. So
//! a hook also needs the [`HOOK_HEADER`] request header (a page can send a custom header
//! cross-origin only after a CORS preflight, which the simulator does not grant but to
//! loopback origins under `--cors-for-tests`) and a loopback `Host` (a DNS-rebound name
//! such as `evil.example` resolving to 127.0.0.1 carries its own name there). The simulator
//! must never be exposed through a proxy, which would make every peer loopback.

use crate::assumptions::{node_presence, NodePresence};
use crate::clock;
use crate::error::{parse_body, ApiError};
use crate::placement::Placement;
use crate::reservation::{Account, NodeState, Reservation};
use crate::state::{find_in, Sim, World};
use axum::body::Bytes;
use axum::extract::connect_info::ConnectInfo;
use axum::extract::{Query, Request, State};
use axum::middleware::{from_fn, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{DateTime, TimeDelta, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

/// A churned node is re-rolled until its workloads differ; this bounds the attempts.
const CHURN_ATTEMPTS: u32 = 64;

pub fn routes() -> Router<Arc<Sim>> {
    Router::new()
        .route("/faults", get(list_faults).post(add_fault).delete(clear_faults))
        .route("/requests", get(requests).delete(clear_requests))
        .route("/clock", get(clock_state).post(set_clock))
        .route("/churn", post(churn))
        .route("/node-state", post(node_state))
        .route("/end-workload", post(end_workload))
        .route("/reset", post(reset))
        .route_layer(from_fn(loopback_only))
}

/// The request header every hook call must carry (any value).
pub const HOOK_HEADER: &str = "x-sim-hook";

/// Whether a `Host` header names the loopback: `localhost`, 127.0.0.0/8 or `[::1]`, with
/// any port.
fn loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => {
            return rest
                .split_once(']')
                .is_some_and(|(ip, _)| ip.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| ip.is_loopback()))
        }
        None => host.split_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// `403` unless the peer is 127.0.0.0/8 or ::1 (a server started without peer info is
/// refused), the request carries [`HOOK_HEADER`] and its `Host` is loopback.
async fn loopback_only(request: Request, next: Next) -> Response {
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|info| info.0.ip());
    if !peer.is_some_and(|ip| ip.is_loopback()) {
        return ApiError::forbidden("Simulator hooks answer loopback peers only").into_response();
    }
    if !request.headers().contains_key(HOOK_HEADER) {
        return ApiError::forbidden("Simulator hooks need the x-sim-hook request header").into_response();
    }
    let host = request.headers().get(axum::http::header::HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(loopback_host) {
        return ApiError::forbidden("Simulator hooks answer a loopback Host only").into_response();
    }
    next.run(request).await
}

async fn list_faults(State(sim): State<Arc<Sim>>) -> Json<Value> {
    Json(sim.faults().describe())
}

async fn add_fault(State(sim): State<Arc<Sim>>, body: Bytes) -> Result<Json<Value>, ApiError> {
    let mut faults = sim.faults();
    faults.add(&body)?;
    Ok(Json(faults.describe()))
}

async fn clear_faults(State(sim): State<Arc<Sim>>) -> Json<Value> {
    let mut faults = sim.faults();
    faults.clear();
    Json(faults.describe())
}

async fn requests(State(sim): State<Arc<Sim>>, Query(query): Query<HashMap<String, String>>) -> Json<Value> {
    Json(sim.log().describe(query.get("path_prefix").map_or("", String::as_str)))
}

async fn clear_requests(State(sim): State<Arc<Sim>>) -> Json<Value> {
    let mut log = sim.log();
    log.clear();
    Json(log.describe(""))
}

/// Body of `POST /api/__sim/clock`; the parts present apply in this order (so that
/// `{"freeze":true,"set":…}` stops the clock exactly at `set`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockRequest {
    freeze: Option<bool>,
    set: Option<DateTime<Utc>>,
    advance_secs: Option<f64>,
}

/// `{"now","frozen","tick","tick_ms"}`
fn describe_clock(sim: &Sim) -> Json<Value> {
    let clock = sim.clock();
    let now = clock.now();
    Json(json!({
        "now": now,
        "frozen": clock.is_frozen(),
        "tick": clock::tick(now, sim.config.tick),
        "tick_ms": sim.config.tick.as_millis() as u64,
    }))
}

async fn clock_state(State(sim): State<Arc<Sim>>) -> Json<Value> {
    describe_clock(&sim)
}

async fn set_clock(State(sim): State<Arc<Sim>>, body: Bytes) -> Result<Json<Value>, ApiError> {
    let request: ClockRequest = parse_body(&body)?;
    {
        let mut clock = sim.clock();
        if let Some(frozen) = request.freeze {
            clock.freeze(frozen);
        }
        if let Some(at) = request.set {
            clock.set(at);
        }
        if let Some(secs) = request.advance_secs {
            let by = TimeDelta::try_milliseconds((secs * 1000.0) as i64)
                .ok_or_else(|| ApiError::invalid("advance_secs is out of range"))?;
            clock.advance(by);
        }
    }
    Ok(describe_clock(&sim))
}

/// Where reservation `id` is in `reservations`; refused unless its workloads run (churn and a
/// workload ending change them).
fn running_at(reservations: &[Reservation], account: Option<Account>, id: u64) -> Result<usize, ApiError> {
    let at =
        find_in(reservations, account, id).ok_or_else(|| ApiError::not_found(format!("No GPU reservation {id}")))?;
    if node_presence(reservations[at].spec.status) != NodePresence::Running {
        return Err(ApiError::invalid(format!("No workloads run on reservation {id}")));
    }
    Ok(at)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChurnRequest {
    reservation_id: u64,
    /// Whose reservation `reservation_id` is; absent: the first account that holds it.
    #[serde(default)]
    account: Option<Account>,
    nodes: usize,
}

/// Changes the workloads on exactly `nodes` ready nodes of a running reservation, now; the
/// next churn of the same reservation moves on to the following nodes.
async fn churn(State(sim): State<Arc<Sim>>, body: Bytes) -> Result<Json<Value>, ApiError> {
    let request: ChurnRequest = parse_body(&body)?;
    let now = sim.now();
    let mut world = sim.world();
    let id = request.reservation_id;
    let World { reservations, launched, churn, churn_cursor, .. } = &mut *world;
    let reservation = &reservations[running_at(reservations, request.account, id)?];
    let key = reservation.spec.key();
    let ready: Vec<usize> = Placement::of(&sim.config, now, launched, churn)
        .nodes(reservation)
        .iter()
        .enumerate()
        .filter(|(_, node)| node.state == NodeState::Ready)
        .map(|(i, _)| i)
        .collect();
    if request.nodes > ready.len() {
        return Err(ApiError::invalid(format!("Reservation {id} has {} ready nodes", ready.len())));
    }
    let cursor = churn_cursor.entry(key).or_default();
    let chosen: Vec<usize> = (0..request.nodes).map(|j| ready[(*cursor + j) % ready.len()]).collect();
    *cursor += request.nodes;
    for &node in &chosen {
        let before = Placement::of(&sim.config, now, launched, churn).node(reservation, node);
        for _ in 0..CHURN_ATTEMPTS {
            *churn.entry((key, node)).or_default() += 1;
            if Placement::of(&sim.config, now, launched, churn).node(reservation, node) != before {
                break;
            }
        }
    }
    let changed: Vec<String> = chosen.iter().map(|i| format!("node-{}", i + 1)).collect();
    Ok(Json(json!({ "reservation_id": id, "changed": changed, "tick": clock::tick(now, sim.config.tick) })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeStateRequest {
    reservation_id: u64,
    /// Whose reservation `reservation_id` is; absent: the first account that holds it.
    #[serde(default)]
    account: Option<Account>,
    /// The node's display name, `node-N`.
    node: String,
    state: NodeState,
}

/// Node `name` (`node-N`) of reservation `id`, which has `nodes` nodes, as an index.
fn node_index(id: u64, name: &str, nodes: usize) -> Result<usize, ApiError> {
    name.strip_prefix("node-")
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| (1..=nodes).contains(n))
        .map(|n| n - 1)
        .ok_or_else(|| ApiError::invalid(format!("Reservation {id} has nodes node-1 to node-{nodes}")))
}

/// Puts one node of a reservation into `state` now (e.g. under maintenance, and back to
/// ready), as EcoLink would: the overview's alerts are tested against it.
async fn node_state(State(sim): State<Arc<Sim>>, body: Bytes) -> Result<Json<Value>, ApiError> {
    let request: NodeStateRequest = parse_body(&body)?;
    let mut world = sim.world();
    let id = request.reservation_id;
    let index =
        world.find(request.account, id).ok_or_else(|| ApiError::not_found(format!("No GPU reservation {id}")))?;
    let reservation = &mut world.reservations[index];
    let index = node_index(id, &request.node, reservation.node_count() as usize)?;
    let states = &mut reservation.spec.node_states;
    if states.len() <= index {
        states.resize(index + 1, NodeState::Ready);
    }
    states[index] = request.state;
    Ok(Json(json!({ "reservation_id": id, "node": request.node, "state": request.state })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndWorkloadRequest {
    reservation_id: u64,
    /// Whose reservation `reservation_id` is; absent: the first account that holds it.
    #[serde(default)]
    account: Option<Account>,
    /// The node's display name, `node-N`.
    node: String,
}

/// Ends the largest workload running in one node's lanes now, as a job finishing would: its
/// GPUs stay free until a reset. The `/fit` watch is tested against it. Answers the workload
/// ended (its name and GPUs); a node with no workload of its lanes left is refused.
async fn end_workload(State(sim): State<Arc<Sim>>, body: Bytes) -> Result<Json<Value>, ApiError> {
    let request: EndWorkloadRequest = parse_body(&body)?;
    let now = sim.now();
    let mut world = sim.world();
    let World { reservations, launched, churn, .. } = &mut *world;
    let id = request.reservation_id;
    let at = running_at(reservations, request.account, id)?;
    let index = node_index(id, &request.node, reservations[at].node_count() as usize)?;
    let placement = Placement::of(&sim.config, now, launched, churn);
    let before = placement.node(&reservations[at], index).workloads;
    // Lanes largest first (the half, then the quarters): end the first that runs a workload.
    for lane in 0..3 {
        if reservations[at].spec.ended_lanes.contains(&(index, lane)) {
            continue;
        }
        reservations[at].spec.ended_lanes.push((index, lane));
        let after = placement.node(&reservations[at], index).workloads;
        if let Some(ended) = before.iter().find(|w| !after.contains(w)) {
            return Ok(Json(json!({
                "reservation_id": id,
                "node": request.node,
                "ended": { "name": ended.name, "gpus": ended.gpus },
            })));
        }
        reservations[at].spec.ended_lanes.pop();
    }
    Err(ApiError::invalid(format!("No workload of {}'s lanes runs on reservation {id}", request.node)))
}

async fn reset(State(sim): State<Arc<Sim>>) -> Json<Value> {
    sim.reset();
    Json(json!({ "reset": true, "now": sim.now() }))
}
