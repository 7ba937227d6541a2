//! The outermost layer: an `x-ecolink-request-id` on every response (API, hooks, static files,
//! errors), and the log of API requests (`GET /api/__sim/requests`) from which tests check
//! polling gaps and that at most one request per path is in flight.

use crate::assumptions::ORG_API_PREFIX;
use crate::auth;
use crate::faults::HOOKS_PREFIX;
use crate::state::Sim;
use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

pub const REQUEST_ID_HEADER: &str = "x-ecolink-request-id";
/// The log keeps the most recent requests only.
const KEEP: usize = 5_000;

#[derive(Clone, Serialize)]
struct Entry {
    id: String,
    method: String,
    path: String,
    /// `owner`, `member`, `other`, or null for a missing or unknown key.
    role: Option<&'static str>,
    /// Milliseconds of real time since the simulator started (µs precision).
    started_ms: f64,
    /// Null while in flight.
    finished_ms: Option<f64>,
    /// Null while in flight, or when the client went away first.
    status: Option<u16>,
}

#[derive(Default)]
pub struct RequestLog {
    entries: VecDeque<Entry>,
    /// Sequence number of `entries[0]`.
    first_seq: u64,
    in_flight: HashMap<String, u32>,
    max_in_flight: HashMap<String, u32>,
    in_flight_total: u32,
    max_in_flight_total: u32,
}

impl RequestLog {
    fn begin(&mut self, entry: Entry) -> u64 {
        let current = self.in_flight.entry(entry.path.clone()).or_default();
        *current += 1;
        let max = self.max_in_flight.entry(entry.path.clone()).or_default();
        *max = (*max).max(*current);
        self.in_flight_total += 1;
        self.max_in_flight_total = self.max_in_flight_total.max(self.in_flight_total);
        if self.entries.len() == KEEP {
            self.entries.pop_front();
            self.first_seq += 1;
        }
        self.entries.push_back(entry);
        self.first_seq + self.entries.len() as u64 - 1
    }

    fn finish(&mut self, seq: u64, path: &str, status: Option<u16>, at_ms: f64) {
        if let Some(current) = self.in_flight.get_mut(path) {
            *current = current.saturating_sub(1);
        }
        self.in_flight_total = self.in_flight_total.saturating_sub(1);
        let index = seq.checked_sub(self.first_seq).and_then(|i| usize::try_from(i).ok());
        if let Some(entry) = index.and_then(|i| self.entries.get_mut(i)) {
            entry.finished_ms = Some(at_ms);
            entry.status = status;
        }
    }

    /// Forgets the entries; the maxima restart from what is in flight now.
    pub fn clear(&mut self) {
        self.first_seq += self.entries.len() as u64;
        self.entries.clear();
        self.max_in_flight = self.in_flight.clone();
        self.max_in_flight_total = self.in_flight_total;
    }

    /// `{"requests":[…],"in_flight":{path:n},"max_in_flight":{path:n},"max_in_flight_total":n}`,
    /// limited to paths starting with `prefix`.
    pub fn describe(&self, prefix: &str) -> Value {
        let requests: Vec<&Entry> = self.entries.iter().filter(|e| e.path.starts_with(prefix)).collect();
        let per_path = |counts: &HashMap<String, u32>| -> HashMap<String, u32> {
            counts
                .iter()
                .filter(|(path, n)| path.starts_with(prefix) && **n > 0)
                .map(|(p, n)| (p.clone(), *n))
                .collect()
        };
        json!({
            "requests": requests,
            "in_flight": per_path(&self.in_flight),
            "max_in_flight": per_path(&self.max_in_flight),
            "max_in_flight_total": self.max_in_flight_total,
        })
    }
}

/// A logged request until its response is out; dropped early (the client went away), it is
/// logged as finished without a status.
struct Pending {
    sim: Arc<Sim>,
    seq: u64,
    path: String,
    status: Option<u16>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let at = self.sim.elapsed_ms();
        self.sim.log().finish(self.seq, &self.path, self.status, at);
    }
}

pub async fn observe(State(sim): State<Arc<Sim>>, request: Request, next: Next) -> Response {
    let id = sim.next_request_id();
    let path = request.uri().path().to_owned();
    // Both APIs' requests (the org API is also served alone under its own prefix), never the hooks'.
    let api = path.starts_with("/api") || path.starts_with(ORG_API_PREFIX);
    let mut pending = (api && !path.starts_with(HOOKS_PREFIX)).then(|| {
        let entry = Entry {
            id: id.clone(),
            method: request.method().to_string(),
            path: path.clone(),
            role: auth::principal(request.headers()).map(|p| p.label),
            started_ms: sim.elapsed_ms(),
            finished_ms: None,
            status: None,
        };
        let seq = sim.log().begin(entry);
        Pending { sim: sim.clone(), seq, path, status: None }
    });
    let mut response = next.run(request).await;
    if let Some(pending) = pending.as_mut() {
        pending.status = Some(response.status().as_u16());
    }
    drop(pending);
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}
