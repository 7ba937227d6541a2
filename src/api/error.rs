//! One error type for every failed call, decoded from status, headers and body text, and
//! the launch-failure mapping that turns it into a title, an explanation in the user's
//! terms and a remedy.

use super::assumptions::{is_short_code, CODE_FIELDS};
use chrono::{DateTime, NaiveDateTime, Utc};
use std::fmt;
use std::time::Duration;

/// The short codes seed 004 documents for launches on a reservation (and CONTRACT.md's
/// shared ones), spelled once.
pub mod codes {
    pub const RESERVATION_ONLY: &str = "reservation_only";
    pub const RESERVATION_PAYMENT_DUE: &str = "reservation_payment_due";
    pub const RESERVATION_AWAITING_PAYMENT: &str = "reservation_awaiting_payment";
    pub const GPU_CAPACITY: &str = "gpu_capacity";
    pub const RESERVATION_STORAGE_QUOTA: &str = "reservation_storage_quota";
    pub const UNAUTHORIZED: &str = "unauthorized";
    pub const RATE_LIMIT_EXCEEDED: &str = "rate_limit_exceeded";
}

/// Response headers by case-insensitive name: the part of a response the error needs,
/// built from the browser's `Headers` by the client and from plain pairs by tests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResponseHeaders {
    pairs: Vec<(String, String)>,
}

impl ResponseHeaders {
    pub fn from_pairs<K: Into<String>, V: Into<String>>(pairs: impl IntoIterator<Item = (K, V)>) -> Self {
        let pairs = pairs.into_iter().map(|(k, v)| (k.into().to_ascii_lowercase(), v.into())).collect();
        ResponseHeaders { pairs }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    }
}

/// What went wrong, at the level the user can act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The server (or a proxy in front of it) answered with an error status.
    Http,
    /// No answer: offline, DNS, refused connection, blocked by the browser.
    Network,
    /// No answer within the request timeout; the request was aborted.
    Timeout,
    /// An answer that could not be read: malformed or truncated JSON, or a wrong shape.
    Decode,
    /// Not in the agreed interface, added for a strong reason: a request the console
    /// refused to send (an id that would change the path), which is none of the above.
    InvalidRequest,
}

/// `x-ratelimit-*` headers, as sent (any may be missing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateLimit {
    pub limit: Option<u64>,
    pub remaining: Option<u64>,
    /// `x-ratelimit-reset`: seconds until the window resets (not an epoch).
    pub reset_after: Option<Duration>,
}

/// Every failed call. Never carries the key: see [`ApiError::redact`].
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    pub kind: ErrorKind,
    pub status: Option<u16>,
    /// The short code (`gpu_capacity`), from `code` or `error`.
    pub code: Option<String>,
    /// The server's human text, or the console's description of an unreadable answer.
    pub message: Option<String>,
    /// `x-ecolink-request-id`, which users quote to support.
    pub request_id: Option<String>,
    pub retry_after: Option<Duration>,
    pub rate_limit: Option<RateLimit>,
}

impl ApiError {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            status: None,
            code: None,
            message: Some(message.into()),
            request_id: None,
            retry_after: None,
            rate_limit: None,
        }
    }

    /// The request never got an answer; `detail` is the browser's reason.
    pub fn network(detail: impl Into<String>) -> Self {
        ApiError::new(ErrorKind::Network, detail)
    }

    /// The request was aborted after `after`.
    pub fn timeout(after: Duration) -> Self {
        ApiError::new(ErrorKind::Timeout, format!("No answer within {} s.", after.as_secs()))
    }

    /// A request the console could not even build (a path segment it refuses to send).
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        ApiError::new(ErrorKind::InvalidRequest, detail)
    }

    pub fn is_unauthorized(&self) -> bool {
        self.status == Some(401) || self.code.as_deref() == Some(codes::UNAUTHORIZED)
    }

    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// True when the same call may succeed later without the user changing anything.
    pub fn is_transient(&self) -> bool {
        match self.kind {
            ErrorKind::Network | ErrorKind::Timeout => true,
            ErrorKind::Decode | ErrorKind::InvalidRequest => false,
            ErrorKind::Http => matches!(self.status, Some(429 | 500..=599)),
        }
    }

    /// Replaces every occurrence of `secret` in the texts, so that a server echoing the key
    /// (or a browser message quoting a header) never shows it.
    pub fn redact(mut self, secret: &str) -> Self {
        if secret.is_empty() {
            return self;
        }
        for text in [&mut self.message, &mut self.code, &mut self.request_id].into_iter().flatten() {
            if text.contains(secret) {
                *text = text.replace(secret, "…");
            }
        }
        self
    }

    /// The error for a response with status `status` whose body is not the expected value.
    /// `now` resolves a `retry-after` given as an HTTP date.
    pub fn from_response(status: u16, headers: &ResponseHeaders, body: &str, now: DateTime<Utc>) -> Self {
        let (code, message) = parse_error_body(status, headers, body);
        ApiError {
            kind: ErrorKind::Http,
            status: Some(status),
            code,
            message,
            request_id: headers.get("x-ecolink-request-id").filter(|v| !v.is_empty()).map(str::to_owned),
            retry_after: headers.get("retry-after").and_then(|v| parse_retry_after(v, now)),
            rate_limit: parse_rate_limit(headers),
        }
    }

    /// A 2xx answer whose body could not be decoded as the expected value.
    pub fn undecodable(status: u16, headers: &ResponseHeaders, detail: impl Into<String>) -> Self {
        ApiError {
            status: Some(status),
            request_id: headers.get("x-ecolink-request-id").filter(|v| !v.is_empty()).map(str::to_owned),
            ..ApiError::new(ErrorKind::Decode, detail)
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, self.status) {
            (ErrorKind::Http, Some(status)) => write!(f, "HTTP {status}")?,
            (ErrorKind::Decode, Some(status)) => write!(f, "unreadable answer (HTTP {status})")?,
            (ErrorKind::Network, _) => f.write_str("network failure")?,
            (ErrorKind::Timeout, _) => f.write_str("timeout")?,
            (ErrorKind::InvalidRequest, _) => f.write_str("request not sent")?,
            (_, None) => f.write_str("request failed")?,
        }
        if let Some(code) = &self.code {
            write!(f, " {code}")?;
        }
        if let Some(message) = &self.message {
            write!(f, ": {message}")?;
        }
        if let Some(id) = &self.request_id {
            write!(f, " (request id {id})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}

/// Short code and message from an error body of either documented shape
/// (`{"error":"short_code","message":"…"}` or `{"error":"free text"}`), a `code` field,
/// or a body that is not JSON at all.
fn parse_error_body(status: u16, headers: &ResponseHeaders, body: &str) -> (Option<String>, Option<String>) {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return (None, None);
    }
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str::<serde_json::Value>(trimmed) else {
        return (None, Some(non_json_description(status, headers, trimmed)));
    };
    let text = |name: &str| fields.get(name).and_then(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty());
    let code = CODE_FIELDS.iter().filter_map(|f| text(f)).find(|t| is_short_code(t)).map(str::to_owned);
    // Free text in `error` (or `code`) is the message when no `message` says more.
    let free_text = CODE_FIELDS.iter().rev().filter_map(|f| text(f)).find(|t| !is_short_code(t));
    let message = text("message").or(free_text).map(str::to_owned);
    (code, message)
}

/// What to say about a non-JSON error body without showing it: an HTML page from a proxy
/// is noise (and may be large), a short plain-text line is worth quoting.
fn non_json_description(status: u16, headers: &ResponseHeaders, body: &str) -> String {
    const QUOTABLE_CHARS: usize = 120;
    let content_type = headers.get("content-type").unwrap_or("").to_ascii_lowercase();
    let looks_like_markup = content_type.contains("html") || body.starts_with('<');
    if looks_like_markup {
        return format!(
            "The server or a gateway in front of it answered HTTP {status} with a web page instead of JSON."
        );
    }
    let single_line = !body.contains('\n');
    if single_line && body.chars().count() <= QUOTABLE_CHARS {
        format!("The server answered HTTP {status} with a non-JSON text: “{body}”.")
    } else {
        format!("The server or a gateway in front of it answered HTTP {status} with a non-JSON body.")
    }
}

/// `retry-after` as delay-seconds or an HTTP date (RFC 9110 §10.2.3), relative to `now`.
/// A date in the past means "now" (zero); anything else unreadable is ignored.
pub fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = parse_http_date(value)?;
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

/// The three date forms RFC 9110 §5.6.7 requires a recipient to accept: IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
pub fn parse_http_date(value: &str) -> Option<DateTime<Utc>> {
    let value = value.trim();
    if let Some(rest) = value.strip_suffix(" GMT") {
        if let Ok(t) = NaiveDateTime::parse_from_str(rest, "%a, %d %b %Y %H:%M:%S") {
            return Some(t.and_utc());
        }
        // RFC 850: a two-digit year; RFC 9110 says a year more than 50 years in the future
        // is in the past century. Only 1970–2069 matters to a retry delay.
        if let Ok(t) = NaiveDateTime::parse_from_str(rest, "%A, %d-%b-%y %H:%M:%S") {
            return Some(t.and_utc());
        }
    }
    let collapsed = value.split_whitespace().collect::<Vec<_>>().join(" ");
    NaiveDateTime::parse_from_str(&collapsed, "%a %b %e %H:%M:%S %Y").ok().map(|t| t.and_utc())
}

fn parse_rate_limit(headers: &ResponseHeaders) -> Option<RateLimit> {
    let number = |name: &str| headers.get(name).and_then(|v| v.parse::<u64>().ok());
    let limit = RateLimit {
        limit: number("x-ratelimit-limit"),
        remaining: number("x-ratelimit-remaining"),
        reset_after: number("x-ratelimit-reset").map(Duration::from_secs),
    };
    (limit != RateLimit::default()).then_some(limit)
}

/// What the user reads about a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub title: String,
    pub explanation: String,
    pub remedy: String,
}

/// What the console knows about the reservation a call was about, to name it in the text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorContext {
    pub region_id: Option<String>,
    pub gpu_type: Option<String>,
}

impl ErrorContext {
    /// "in atl with NVIDIA-B200", "in atl", "" — as much as is known.
    fn where_phrase(&self) -> String {
        match (&self.region_id, &self.gpu_type) {
            (Some(region), Some(gpu)) => format!(" in region {region} with {gpu} GPUs"),
            (Some(region), None) => format!(" in region {region}"),
            (None, Some(gpu)) => format!(" with {gpu} GPUs"),
            (None, None) => String::new(),
        }
    }
}

/// Title, explanation and remedy for any failure; the launch codes of seed 004 first, then
/// the generic statuses.
pub fn explain(err: &ApiError, ctx: &ErrorContext) -> Explanation {
    let server_says = err.message.as_deref().map(|m| format!(" The server says: “{m}”.")).unwrap_or_default();
    let at = ctx.where_phrase();
    let text = |title: &str, explanation: String, remedy: String| Explanation {
        title: title.to_owned(),
        explanation,
        remedy,
    };
    match (err.kind, err.status, err.code.as_deref()) {
        (ErrorKind::Network, ..) => text(
            "Could not reach the API",
            format!("The request got no answer: the network is down, the API address is wrong, or the browser blocked the call.{}", detail(err)),
            "Check your connection and the API base URL, then try again.".to_owned(),
        ),
        (ErrorKind::Timeout, ..) => text(
            "The API did not answer in time",
            format!("{} The request was stopped.", err.message.as_deref().unwrap_or("No answer in time.")),
            "Try again in a moment; if it keeps happening, quote the request id to support.".to_owned(),
        ),
        (ErrorKind::Decode, ..) => text(
            "The answer could not be read",
            format!("The server answered, but not with data the console understands.{}", detail(err)),
            "Try again; if it persists, quote the request id to support.".to_owned(),
        ),
        (ErrorKind::InvalidRequest, ..) => text(
            "The request was not sent",
            err.message.clone().unwrap_or_else(|| "The console could not build this request.".to_owned()),
            "Check the address or the id you followed.".to_owned(),
        ),
        (_, _, Some(codes::RESERVATION_ONLY)) => text(
            "Not covered by your reservation",
            format!("The region or GPU type asked for is not in your reservation. Your reservation is{}.{server_says}",
                if at.is_empty() { " elsewhere".to_owned() } else { at.clone() }),
            "Launch in your reservation's region with its GPU type, or launch elsewhere without the reservation.".to_owned(),
        ),
        (_, _, Some(codes::RESERVATION_PAYMENT_DUE)) => text(
            "Payment overdue: launches paused",
            format!("A payment for your reservation{at} is overdue, so new launches are paused until it is paid. Running workloads keep running until the stop date.{server_says}"),
            "Pay the overdue invoice under Billing → Invoices; launches resume once it is paid.".to_owned(),
        ),
        (_, _, Some(codes::RESERVATION_AWAITING_PAYMENT)) => text(
            "Waiting for the first invoice",
            format!("Your reservation{at} starts when its first invoice is paid; launches and new storage there wait until then.{server_says}"),
            "Pay the first invoice under Billing → Invoices.".to_owned(),
        ),
        (_, _, Some(codes::GPU_CAPACITY)) => text(
            "Not enough free GPUs on one node",
            format!("Your reservation{at} has no free GPUs for this launch, or no single node has that many free GPUs together.{server_says}"),
            "Pick a smaller GPU count (the node view shows the largest launch that fits), wait for a workload to finish, or stop one.".to_owned(),
        ),
        (_, _, Some(codes::RESERVATION_STORAGE_QUOTA)) => text(
            "Storage included in the reservation is full",
            format!("The cloud drive or shared filesystem would exceed the storage included in your reservation{at}.{server_says}"),
            "Free some space or ask for a smaller volume; more storage needs an amendment of the reservation.".to_owned(),
        ),
        (_, Some(409), None) => text(
            "Reserved capacity is never interruptible",
            format!("The launch asked for an interruptible instance; GPUs of a reservation cannot be interrupted.{server_says}"),
            "Launch again without “interruptible”.".to_owned(),
        ),
        (_, Some(401), _) => text(
            "The API key was not accepted",
            format!("The key is missing, malformed or revoked.{server_says}"),
            "Check the key (it starts with eco_) and connect again with a valid one.".to_owned(),
        ),
        (_, Some(403), _) => text(
            "Not allowed with this key",
            format!("The key is valid, but this resource is not your account's, or your role does not permit it.{server_says}"),
            "Check that the key belongs to the right account and role; the account owner can grant access.".to_owned(),
        ),
        (_, Some(404), _) => text(
            "Not found",
            format!("Nothing with this id exists for your account.{server_says}"),
            "Check the id, or go back to the list of reservations.".to_owned(),
        ),
        (_, Some(429), _) => text(
            "Too many requests",
            format!("The API allows a limited number of requests per minute per key{}.{server_says}", rate_limit_phrase(err)),
            wait_remedy(err, "Wait a minute"),
        ),
        (_, Some(503), _) => text(
            "The service is temporarily unavailable",
            format!("The API is overloaded or being updated.{server_says}"),
            wait_remedy(err, "Wait a few seconds"),
        ),
        (_, Some(status @ 500..=599), _) => text(
            "The server had a problem",
            format!("The API (or a gateway in front of it) failed with HTTP {status}. This is usually transient.{server_says}"),
            wait_remedy(err, "Try again in a moment"),
        ),
        (_, Some(400), _) => text(
            "The request was refused",
            format!("The server did not accept the request as sent.{server_says}"),
            "Check the values you entered and try again.".to_owned(),
        ),
        (_, status, code) => text(
            "The request failed",
            format!(
                "The server answered {}{}.{server_says}",
                status.map(|s| format!("HTTP {s}")).unwrap_or_else(|| "with an error".to_owned()),
                code.map(|c| format!(" with code {c}")).unwrap_or_default()
            ),
            "Try again; if it persists, quote the request id to support.".to_owned(),
        ),
    }
}

fn detail(err: &ApiError) -> String {
    err.message.as_deref().map(|m| format!(" ({m})")).unwrap_or_default()
}

fn rate_limit_phrase(err: &ApiError) -> String {
    match err.rate_limit.and_then(|r| r.limit) {
        Some(limit) => format!(" ({limit} per window)"),
        None => String::new(),
    }
}

/// "Wait 12 s, then try again." from `retry-after` (or the rate-limit reset), else `fallback`.
fn wait_remedy(err: &ApiError, fallback: &str) -> String {
    let wait = err.retry_after.or(err.rate_limit.and_then(|r| r.reset_after));
    match wait {
        Some(d) => format!("Wait {} s, then try again.", d.as_secs().max(1)),
        None => format!("{fallback}, then try again."),
    }
}
