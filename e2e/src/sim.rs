//! The simulator, started in-process on a loopback port, and its test hooks under
//! `/api/__sim` (faults, clock, churn, a workload ending, request log), called over HTTP as any test would.

use std::time::Duration;

use hyper::Method;
use reservations_sim::{Config, Running};
use serde_json::{json, Value};
use tokio::net::TcpListener;

use crate::http;

/// One fault the simulator can switch on (see `sim/src/faults.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// `500` with a JSON error body.
    Internal,
    /// `502` with an HTML page, as a proxy sends it.
    BadGatewayHtml,
    /// `503` with `retry-after: 2`.
    Unavailable,
    /// `429` with the rate-limit headers.
    RateLimited,
    /// The real answer, this much later.
    Slow(Duration),
    /// `200` with half the real JSON.
    Truncated,
    /// `200` with a body that is not JSON.
    Malformed,
    /// `200` with one number turned into a string.
    WrongType,
    /// `200` with one `status`/`state`/`kind` replaced by an unknown value.
    UnknownEnum,
    /// `/nodes` answers `workloads_unknown: true`.
    Unreachable,
    /// This key answers `401` until the fault is cleared.
    RevokeKey(String),
}

/// A fault, on the requests whose path starts with `path_prefix` (default: all of `/api/`),
/// `count` times (default: until cleared).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub path_prefix: Option<String>,
    pub count: Option<u32>,
}

impl Fault {
    pub fn new(kind: FaultKind) -> Fault {
        Fault { kind, path_prefix: None, count: None }
    }

    pub fn on(mut self, path_prefix: &str) -> Fault {
        self.path_prefix = Some(path_prefix.to_owned());
        self
    }

    pub fn times(mut self, count: u32) -> Fault {
        self.count = Some(count);
        self
    }

    /// The body of `POST /api/__sim/faults`.
    fn to_json(&self) -> Value {
        let (kind, extra) = match &self.kind {
            FaultKind::Internal => ("500", None),
            FaultKind::BadGatewayHtml => ("502_html", None),
            FaultKind::Unavailable => ("503", None),
            FaultKind::RateLimited => ("429", None),
            FaultKind::Slow(delay) => ("slow", Some(("delay_ms", json!(delay.as_millis() as u64)))),
            FaultKind::Truncated => ("truncated", None),
            FaultKind::Malformed => ("malformed", None),
            FaultKind::WrongType => ("wrong_type", None),
            FaultKind::UnknownEnum => ("unknown_enum", None),
            FaultKind::Unreachable => ("unreachable", None),
            FaultKind::RevokeKey(key) => ("revoke_key", Some(("key", json!(key)))),
        };
        let mut body = json!({ "kind": kind });
        if let Some((name, value)) = extra {
            body[name] = value;
        }
        if let Some(prefix) = &self.path_prefix {
            body["path_prefix"] = json!(prefix);
        }
        if let Some(count) = self.count {
            body["count"] = json!(count);
        }
        body
    }
}

/// One API request as the simulator logged it (hooks and static files are not logged).
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedRequest {
    pub method: String,
    pub path: String,
    /// `owner`, `member`, `other`, or `None` for a missing or unknown key.
    pub role: Option<String>,
    /// Real milliseconds since the simulator started.
    pub started_ms: f64,
    /// `None` while in flight.
    pub finished_ms: Option<f64>,
    /// `None` while in flight or when the client went away first.
    pub status: Option<u16>,
    pub request_id: String,
}

/// What `GET /api/__sim/requests` reports for a path prefix.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestLog {
    pub requests: Vec<LoggedRequest>,
    /// Most requests in flight at once (all paths) since the log was last cleared.
    pub max_in_flight_total: u64,
}

pub struct Simulator {
    running: Running,
}

impl Simulator {
    /// Serves `config` on 127.0.0.1, on a port the OS picks.
    pub async fn start(config: Config) -> Simulator {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("a loopback port for the simulator");
        let running = reservations_sim::start(listener, config).await.expect("the simulator starts");
        Simulator { running }
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn url(&self) -> String {
        self.running.url()
    }

    /// Calls a hook (`path` below `/api/__sim`) and returns its JSON; any status but 2xx
    /// fails the test.
    pub async fn hook(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/api/__sim{path}", self.url());
        let response = http::send_with(method.clone(), &url, body.as_ref(), &[(reservations_sim::HOOK_HEADER, "1")])
            .await
            .unwrap_or_else(|error| panic!("simulator hook {method} {path}: {error}"));
        let json = response.json(&url);
        assert!(
            (200..300).contains(&response.status),
            "simulator hook {method} {path} answered {}: {json}",
            response.status
        );
        json
    }

    pub async fn add_fault(&self, fault: Fault) {
        self.hook(Method::POST, "/faults", Some(fault.to_json())).await;
    }

    pub async fn clear_faults(&self) {
        self.hook(Method::DELETE, "/faults", None).await;
    }

    /// Stops the simulated clock: placement stays as it is until the clock moves.
    pub async fn freeze_clock(&self) {
        self.hook(Method::POST, "/clock", Some(json!({ "freeze": true }))).await;
    }

    /// Moves the simulated clock (frozen or not) forward.
    pub async fn advance_clock(&self, by: Duration) {
        let body = json!({ "advance_secs": by.as_secs_f64() });
        self.hook(Method::POST, "/clock", Some(body)).await;
    }

    /// Changes the workloads on `nodes` ready nodes of a reservation now; returns their
    /// display names.
    pub async fn churn(&self, reservation_id: u64, nodes: usize) -> Vec<String> {
        let body = json!({ "reservation_id": reservation_id, "nodes": nodes });
        let answer = self.hook(Method::POST, "/churn", Some(body)).await;
        answer["changed"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
    }

    /// Puts node `node` (`node-N`) of a reservation into `state` (`under_maintenance`,
    /// `preparing`, `ready`) now.
    pub async fn set_node_state(&self, reservation_id: u64, node: &str, state: &str) {
        let body = json!({ "reservation_id": reservation_id, "node": node, "state": state });
        self.hook(Method::POST, "/node-state", Some(body)).await;
    }

    /// Ends the largest workload still running in the lanes of node `node` (`node-N`) of a
    /// reservation now, as a job finishing would; returns the GPUs it freed.
    pub async fn end_workload(&self, reservation_id: u64, node: &str) -> u64 {
        let body = json!({ "reservation_id": reservation_id, "node": node });
        let answer = self.hook(Method::POST, "/end-workload", Some(body)).await;
        answer["ended"]["gpus"].as_u64().unwrap_or_default()
    }

    /// The logged API requests whose path starts with `path_prefix` (e.g. `/api/` or
    /// `/api/gpu-reservations/12/nodes`).
    pub async fn requests(&self, path_prefix: &str) -> RequestLog {
        let path = format!("/requests?path_prefix={path_prefix}");
        let answer = self.hook(Method::GET, &path, None).await;
        let requests = answer["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|entry| LoggedRequest {
                method: entry["method"].as_str().unwrap_or_default().to_owned(),
                path: entry["path"].as_str().unwrap_or_default().to_owned(),
                role: entry["role"].as_str().map(str::to_owned),
                started_ms: entry["started_ms"].as_f64().unwrap_or_default(),
                finished_ms: entry["finished_ms"].as_f64(),
                status: entry["status"].as_u64().and_then(|s| u16::try_from(s).ok()),
                request_id: entry["id"].as_str().unwrap_or_default().to_owned(),
            })
            .collect();
        RequestLog { requests, max_in_flight_total: answer["max_in_flight_total"].as_u64().unwrap_or_default() }
    }

    /// Forgets the logged requests (and the in-flight maxima).
    pub async fn clear_requests(&self) {
        self.hook(Method::DELETE, "/requests", None).await;
    }

    /// Back to the initial data, clock, faults and log.
    pub async fn reset(&self) {
        self.hook(Method::POST, "/reset", None).await;
    }
}
