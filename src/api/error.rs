//! One error type for every failed call, decoded from status, headers and body text. What
//! the user reads about it is `domain::explain`'s.

use super::assumptions::{is_short_code, CODE_FIELDS};
use super::timestamp::{number, MONTHS};
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
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
        self.pairs.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim())
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
    /// The console ended the request itself: the page or session that sent it has ended.
    /// Nobody waits for its answer, so it is no failure to show.
    Cancelled,
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
    /// `message` describes a body that was not JSON (a proxy's page): never quoted as the server's.
    pub described: bool,
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
            described: true,
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

    /// A request the console ended because its page or session ended ([`ErrorKind::Cancelled`]).
    pub fn cancelled() -> Self {
        ApiError::new(ErrorKind::Cancelled, "Cancelled: the page or session that sent it has ended.")
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

    /// The request was aborted because the page or session that sent it ended: nobody
    /// waits for its answer, so it is no failure to show.
    pub fn is_cancelled(&self) -> bool {
        self.kind == ErrorKind::Cancelled
    }

    /// True when the same call may succeed later without the user changing anything. An
    /// unreadable answer counts: a body cut off or garbled by a proxy, or a bad deploy, is
    /// gone on a later call, and a wall screen must recover from it by itself.
    pub fn is_transient(&self) -> bool {
        match self.kind {
            ErrorKind::Network | ErrorKind::Timeout | ErrorKind::Decode | ErrorKind::Cancelled => true,
            ErrorKind::InvalidRequest => false,
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
        let (code, message, described) = match parse_error_body(status, headers, body) {
            Body::Fields { code, message } => (code, message, false),
            Body::Described(description) => (None, Some(description), true),
        };
        ApiError {
            kind: ErrorKind::Http,
            status: Some(status),
            code,
            message,
            described,
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
            (ErrorKind::Cancelled, _) => f.write_str("request cancelled")?,
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
fn parse_error_body(status: u16, headers: &ResponseHeaders, body: &str) -> Body {
    let (nothing, trimmed) = (Body::Fields { code: None, message: None }, body.trim());
    if trimmed.is_empty() {
        return nothing;
    }
    let fields = match serde_json::from_str::<ErrorFields>(trimmed) {
        Ok(fields) => fields,
        // JSON, but not an error object: nothing more to say than the status.
        Err(e) if e.is_data() => return nothing,
        Err(_) => return Body::Described(non_json_description(status, headers, trimmed)),
    };
    let text = |name: &str| fields.text(name).map(str::trim).filter(|s| !s.is_empty());
    let code = CODE_FIELDS.iter().filter_map(|f| text(f)).find(|t| is_short_code(t)).map(str::to_owned);
    // Free text in `error` (or `code`) is the message when no `message` says more.
    let free_text = CODE_FIELDS.iter().rev().filter_map(|f| text(f)).find(|t| !is_short_code(t));
    let message = text("message").or(free_text).map(str::to_owned);
    Body::Fields { code, message }
}

/// An error body's fields, or the console's description of a body that is not JSON.
enum Body {
    Fields { code: Option<String>, message: Option<String> },
    Described(String),
}

/// The fields of an error body that can say something; each is read only if it is text,
/// and any other field is skipped unread.
#[derive(Deserialize)]
struct ErrorFields {
    #[serde(default, deserialize_with = "text_only")]
    code: Option<String>,
    #[serde(default, deserialize_with = "text_only")]
    error: Option<String>,
    #[serde(default, deserialize_with = "text_only")]
    message: Option<String>,
}

impl ErrorFields {
    fn text(&self, name: &str) -> Option<&str> {
        match name {
            "code" => self.code.as_deref(),
            "error" => self.error.as_deref(),
            "message" => self.message.as_deref(),
            _ => None,
        }
    }
}

/// A string as itself; a number, a list, an object or `null` as nothing.
fn text_only<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    struct TextOnly;
    impl<'de> Visitor<'de> for TextOnly {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(Some(text.to_owned()))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
            while items.next_element::<de::IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut entries: A) -> Result<Self::Value, A::Error> {
            while entries.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    }
    deserializer.deserialize_any(TextOnly)
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
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). The day
/// name must be the date's. Read field by field: chrono's format-string parser would
/// cost the first load more than all of this.
fn parse_http_date(value: &str) -> Option<DateTime<Utc>> {
    let words: Vec<&str> = value.split_whitespace().collect();
    // (day name, whether it is the long one, day, month, year, time)
    let (day_name, long, day, month, year, time) = match words[..] {
        // IMF-fixdate: each field at its fixed width.
        [day_name, day, month, year, time, "GMT"] => {
            (day_name.strip_suffix(',')?, false, number(day, 2..=2)?, month, number(year, 4..=4)?, time)
        }
        // RFC 850: a two-digit year; RFC 9110 puts a year more than 50 years ahead in the
        // past century, which for a retry delay means 1970–2069.
        [day_name, date, time, "GMT"] => {
            let mut parts = date.split('-');
            let (day, month, year) = (parts.next()?, parts.next()?, parts.next()?);
            if parts.next().is_some() {
                return None;
            }
            let year = number(year, 2..=2)?;
            let year = if year < 70 { 2000 + year } else { 1900 + year };
            (day_name.strip_suffix(',')?, true, number(day, 2..=2)?, month, year, time)
        }
        // asctime: the day is space-padded, so one or two digits once the blanks collapse.
        [day_name, month, day, time, year] => (day_name, false, number(day, 1..=2)?, month, number(year, 4..=4)?, time),
        _ => return None,
    };
    let month = MONTHS.iter().position(|name| *name == month)? as u32 + 1;
    let mut clock = time.split(':').map(|part| number(part, 2..=2));
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if clock.next().is_some() {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(year as i32, month, day)?;
    let weekday = date.weekday().num_days_from_monday() as usize;
    let named = if long { day_name.strip_suffix("day") == Some(DAY_STEMS[weekday]) } else { day_name == DAYS[weekday] };
    if !named {
        return None;
    }
    Some(date.and_hms_opt(hour, minute, second)?.and_utc())
}

const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
/// RFC 850's day names, less their `day`.
const DAY_STEMS: [&str; 7] = ["Mon", "Tues", "Wednes", "Thurs", "Fri", "Satur", "Sun"];

pub fn parse_rate_limit(headers: &ResponseHeaders) -> Option<RateLimit> {
    let number = |name: &str| headers.get(name).and_then(|v| v.parse::<u64>().ok());
    let limit = RateLimit {
        limit: number("x-ratelimit-limit"),
        remaining: number("x-ratelimit-remaining"),
        reset_after: number("x-ratelimit-reset").map(Duration::from_secs),
    };
    (limit != RateLimit::default()).then_some(limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 2, 14, 5, 0).unwrap()
    }

    #[test]
    fn a_network_failure_that_reads_like_a_cancel_is_still_a_failure() {
        let browser_says = ApiError::network("Cancelled: the page or session that sent it has ended.");
        assert!(!browser_says.is_cancelled(), "only the console's own cancel is one, whatever the text");
        assert!(ApiError::cancelled().is_cancelled());
    }

    fn headers(pairs: &[(&str, &str)]) -> ResponseHeaders {
        ResponseHeaders::from_pairs(pairs.iter().copied())
    }

    fn error(status: u16, body: &str) -> ApiError {
        ApiError::from_response(status, &ResponseHeaders::default(), body, now())
    }

    #[test]
    fn short_code_and_message_shape() {
        let e = error(429, r#"{"error":"rate_limit_exceeded","message":"200 requests per minute"}"#);
        assert_eq!(e.kind, ErrorKind::Http);
        assert_eq!(e.status, Some(429));
        assert_eq!(e.code.as_deref(), Some("rate_limit_exceeded"));
        assert_eq!(e.message.as_deref(), Some("200 requests per minute"));
    }

    #[test]
    fn free_text_in_error_is_the_message_not_a_code() {
        let e = error(404, r#"{"error":"Reservation 99 not found"}"#);
        assert_eq!(e.code, None);
        assert_eq!(e.message.as_deref(), Some("Reservation 99 not found"));
    }

    #[test]
    fn a_lone_short_code_has_no_message() {
        let e = error(401, r#"{"error":"unauthorized"}"#);
        assert_eq!(e.code.as_deref(), Some("unauthorized"));
        assert_eq!(e.message, None);
        assert!(e.is_unauthorized());
    }

    #[test]
    fn a_code_field_is_accepted_and_wins_over_a_generic_error_code() {
        let e = error(409, r#"{"error":"conflict","code":"gpu_capacity","message":"no node has 8 free"}"#);
        assert_eq!(e.code.as_deref(), Some("gpu_capacity"));
        let e = error(409, r#"{"error":"No single node has 8 free GPUs","code":"gpu_capacity"}"#);
        assert_eq!(e.code.as_deref(), Some("gpu_capacity"));
        assert_eq!(e.message.as_deref(), Some("No single node has 8 free GPUs"));
    }

    #[test]
    fn a_code_less_409_keeps_its_text() {
        let e = error(409, r#"{"error":"interruptible is not available on reserved capacity"}"#);
        assert_eq!((e.code.as_deref(), e.status), (None, Some(409)));
        assert_eq!(e.message.as_deref(), Some("interruptible is not available on reserved capacity"));
    }

    #[test]
    fn an_html_page_from_a_proxy_is_described_not_shown() {
        let page = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";
        let e = ApiError::from_response(502, &headers(&[("Content-Type", "text/html")]), page, now());
        let message = e.message.unwrap();
        assert!(message.contains("web page instead of JSON"), "{message}");
        assert!(message.contains("502"));
        assert!(!message.contains('<') && !message.contains("nginx"), "{message}");
    }

    #[test]
    fn a_short_plain_text_body_is_quoted_and_a_long_one_is_not() {
        assert_eq!(
            error(503, "upstream connect error").message.as_deref(),
            Some("The server answered HTTP 503 with a non-JSON text: “upstream connect error”.")
        );
        let long = "x".repeat(500);
        assert!(!error(503, &long).message.unwrap().contains("xxx"));
    }

    #[test]
    fn empty_and_non_object_bodies_give_the_status_alone() {
        for body in ["", "  ", "[]", "null", r#"{"detail":42}"#, r#"{"error":""}"#] {
            let e = error(500, body);
            assert_eq!((e.code, e.message, e.status), (None, None, Some(500)), "{body}");
        }
    }

    #[test]
    fn a_field_that_is_not_text_is_skipped_and_the_others_still_read() {
        let body = r#"{"error":42,"code":null,"details":{"nodes":[1,{"a":true}]},"message":"node is full"}"#;
        let e = error(409, body);
        assert_eq!((e.code, e.message.as_deref()), (None, Some("node is full")));
        let e = error(409, r#"{"error":["x"],"code":"gpu_capacity","message":{"text":"no"}}"#);
        assert_eq!((e.code.as_deref(), e.message), (Some("gpu_capacity"), None));
        // Valid JSON, not an error object; then not JSON at all.
        assert_eq!(error(500, r#""oops""#).message, None);
        assert!(error(500, r#"{"error":"#).message.is_some_and(|m| m.contains("non-JSON")));
    }

    #[test]
    fn request_id_rate_limit_and_retry_after_seconds_come_from_headers() {
        let h = headers(&[
            ("X-EcoLink-Request-Id", "req_7f3a"),
            ("Retry-After", "12"),
            ("x-ratelimit-limit", "200"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "41"),
        ]);
        let e = ApiError::from_response(429, &h, r#"{"error":"rate_limit_exceeded"}"#, now());
        assert_eq!(e.request_id.as_deref(), Some("req_7f3a"));
        assert_eq!(e.retry_after(), Some(Duration::from_secs(12)));
        assert_eq!(
            e.rate_limit,
            Some(RateLimit { limit: Some(200), remaining: Some(0), reset_after: Some(Duration::from_secs(41)) })
        );
    }

    #[test]
    fn no_rate_limit_headers_means_no_rate_limit() {
        assert_eq!(error(500, "").rate_limit, None);
        let h = headers(&[("x-ratelimit-limit", "lots")]);
        assert_eq!(ApiError::from_response(500, &h, "", now()).rate_limit, None);
    }

    #[test]
    fn retry_after_as_an_http_date_is_relative_to_now() {
        assert_eq!(parse_retry_after("Wed, 02 Dec 2026 14:05:30 GMT", now()), Some(Duration::from_secs(30)));
        assert_eq!(parse_retry_after("Wednesday, 02-Dec-26 14:06:00 GMT", now()), Some(Duration::from_secs(60)));
        assert_eq!(parse_retry_after("Wed Dec  2 14:05:10 2026", now()), Some(Duration::from_secs(10)));
    }

    #[test]
    fn retry_after_in_the_past_is_zero_and_garbage_is_ignored() {
        assert_eq!(parse_retry_after("Tue, 01 Dec 2026 00:00:00 GMT", now()), Some(Duration::ZERO));
        for garbage in [
            "soon",
            "-5",
            "1.5",
            "",
            "Wed, 32 Dec 2026 14:05:30 GMT",
            "Thu, 02 Dec 2026 14:05:30 GMT",
            "Wednesday, 02 Dec 2026 14:05:30 GMT",
            "Wed, 02-Dec-26 14:05:30 GMT",
            "Wednesday, 02-Dec-26-1 14:05:30 GMT",
            "Wed, 02 Dec 2026 14:05 GMT",
            "Wed, 02 Dec 2026 14:05:30:01 GMT",
            "Wed, 2 Dec 2026 14:05:30 GMT",
            "Wed Dek  2 14:05:10 2026",
        ] {
            assert_eq!(parse_retry_after(garbage, now()), None, "{garbage}");
        }
    }

    #[test]
    fn redaction_removes_the_key_wherever_a_server_echoed_it() {
        let e = error(401, r#"{"error":"unauthorized","message":"key eco_s3cret is revoked"}"#).redact("eco_s3cret");
        assert_eq!(e.message.as_deref(), Some("key … is revoked"));
        assert!(!format!("{e:?}{e}").contains("eco_s3cret"));
    }

    #[test]
    fn display_names_status_code_message_and_request_id() {
        let h = headers(&[("x-ecolink-request-id", "req_1")]);
        let e = ApiError::from_response(409, &h, r#"{"error":"gpu_capacity","message":"full"}"#, now());
        assert_eq!(e.to_string(), "HTTP 409 gpu_capacity: full (request id req_1)");
        assert_eq!(ApiError::timeout(Duration::from_secs(10)).to_string(), "timeout: No answer within 10 s.");
    }

    #[test]
    fn only_rate_limits_server_errors_and_missing_answers_are_transient() {
        assert!(error(429, "").is_transient() && error(503, "").is_transient());
        assert!(ApiError::network("offline").is_transient());
        assert!(!error(409, "").is_transient() && !error(401, "").is_transient());
    }
}
