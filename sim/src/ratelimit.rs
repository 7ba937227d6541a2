//! The shared rules' rate limit: N requests per fixed 60 s window per key, reported in
//! `x-ratelimit-limit`, `x-ratelimit-remaining` and `x-ratelimit-reset` (seconds until the
//! window resets, not an epoch); over it, `429 rate_limit_exceeded` with `retry-after`.

use crate::assumptions::RATE_WINDOW;
use crate::error::ApiError;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::time::Instant;

struct Window {
    opened: Instant,
    used: u32,
}

pub struct RateLimiter {
    limit: u32,
    windows: HashMap<String, Window>,
}

/// The state of a key's window after (or without) a request.
#[derive(Clone, Copy, Debug)]
pub struct Verdict {
    pub allowed: bool,
    limit: u32,
    remaining: u32,
    reset_secs: u64,
}

impl RateLimiter {
    pub fn new(limit: u32) -> Self {
        RateLimiter { limit, windows: HashMap::new() }
    }

    /// Counts one request of `key`.
    pub fn hit(&mut self, key: &str) -> Verdict {
        let now = Instant::now();
        let window = self.windows.entry(key.to_owned()).or_insert(Window { opened: now, used: 0 });
        if now.duration_since(window.opened) >= RATE_WINDOW {
            *window = Window { opened: now, used: 0 };
        }
        let allowed = window.used < self.limit;
        if allowed {
            window.used += 1;
        }
        let limit = self.limit;
        verdict(limit, allowed, Some(&*window), now)
    }

    /// The key's window as it stands, answered as a refusal: what a `429` fault reports.
    pub fn exhausted(&self, key: &str) -> Verdict {
        let now = Instant::now();
        let window = self.windows.get(key).filter(|w| now.duration_since(w.opened) < RATE_WINDOW);
        Verdict { remaining: 0, ..verdict(self.limit, false, window, now) }
    }
}

fn verdict(limit: u32, allowed: bool, window: Option<&Window>, now: Instant) -> Verdict {
    let (used, elapsed) = window.map_or((0, 0), |w| (w.used, now.duration_since(w.opened).as_millis()));
    let left_ms = RATE_WINDOW.as_millis().saturating_sub(elapsed);
    Verdict {
        allowed,
        limit,
        remaining: limit.saturating_sub(used),
        reset_secs: u64::try_from(left_ms.div_ceil(1000)).unwrap_or(u64::MAX).max(1),
    }
}

impl Verdict {
    pub fn write_headers(&self, headers: &mut HeaderMap) {
        headers.insert("x-ratelimit-limit", HeaderValue::from(self.limit));
        headers.insert("x-ratelimit-remaining", HeaderValue::from(self.remaining));
        headers.insert("x-ratelimit-reset", HeaderValue::from(self.reset_secs));
    }

    /// The same verdict with its window resetting in `secs` (a fault's shorter wait).
    pub fn resetting_in(self, secs: u64) -> Verdict {
        Verdict { reset_secs: secs, ..self }
    }

    /// `429 {"error":"rate_limit_exceeded",…}` with the `x-ratelimit-*` headers and `retry-after`.
    pub fn refusal(&self) -> Response {
        let message =
            format!("Rate limit of {} requests per minute exceeded; retry in {} s.", self.limit, self.reset_secs);
        let mut response = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limit_exceeded", message).into_response();
        self.write_headers(response.headers_mut());
        response.headers_mut().insert("retry-after", HeaderValue::from(self.reset_secs));
        response
    }
}
