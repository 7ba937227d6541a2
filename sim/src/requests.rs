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
/// Paths whose most requests at once are kept: a client sending endless distinct paths
/// (ids, junk) must not grow the simulator's memory. Past it, the paths with nothing in
/// flight are forgotten.
const KEEP_PATHS: usize = 1_000;
/// A path is logged cut to this many bytes: a long one must not grow the log either.
const MAX_PATH: usize = 512;

/// `path` as logged: at most [`MAX_PATH`] bytes, cut at a character, marked `…` when cut.
fn logged_path(path: &str) -> String {
    if path.len() <= MAX_PATH {
        return path.to_owned();
    }
    let cut = (0..=MAX_PATH).rev().find(|&i| path.is_char_boundary(i)).unwrap_or(0);
    format!("{}…", &path[..cut])
}

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
        let current = *current;
        if self.max_in_flight.len() >= KEEP_PATHS && !self.max_in_flight.contains_key(&entry.path) {
            let in_flight = &self.in_flight;
            self.max_in_flight.retain(|path, _| in_flight.contains_key(path));
        }
        let max = self.max_in_flight.entry(entry.path.clone()).or_default();
        *max = (*max).max(current);
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
            if *current == 0 {
                self.in_flight.remove(path);
            }
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
    let path = logged_path(request.uri().path());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str) -> Entry {
        Entry {
            id: "req".into(),
            method: "GET".into(),
            path: path.into(),
            role: None,
            started_ms: 0.0,
            finished_ms: None,
            status: None,
        }
    }

    #[test]
    fn endless_distinct_paths_keep_the_log_bounded() {
        let mut log = RequestLog::default();
        let held = log.begin(entry("/api/gpu-reservations/12/nodes"));
        for i in 0..20_000 {
            let path = format!("/api/gpu-reservations/{i}");
            let seq = log.begin(entry(&path));
            log.finish(seq, &path, Some(404), 1.0);
        }
        assert_eq!(log.entries.len(), KEEP);
        assert!(log.in_flight.len() <= 1, "{} paths in flight", log.in_flight.len());
        assert!(log.max_in_flight.len() <= KEEP_PATHS, "{} paths' maxima", log.max_in_flight.len());
        assert_eq!(log.max_in_flight.get("/api/gpu-reservations/12/nodes"), Some(&1), "one still in flight is kept");
        log.finish(held, "/api/gpu-reservations/12/nodes", Some(200), 2.0);
        assert!(log.in_flight.is_empty());

        let long = format!("/api/{}", "é".repeat(10_000));
        let logged = logged_path(&long);
        assert!(logged.len() <= MAX_PATH + '…'.len_utf8() && logged.ends_with('…'), "{}", logged.len());
        assert_eq!(logged_path("/api/gpu-reservations"), "/api/gpu-reservations");
    }
}
