//! The one place requests are built (base URL, bearer key, JSON) and answers decoded.
//!
//! The browser part (`transport`) only moves bytes; everything that can be wrong about an
//! answer is decided by the pure [`decode`], which native tests cover.
//!
//! Differs from the agreed interface: [`decode`] also takes `now` (a `retry-after` may be an
//! HTTP date), and `ApiError` has a fifth kind, `InvalidRequest`, for an id that would change
//! the path.

// `ApiError` is the interface's flat struct of optional fields; it travels only on the rare
// failure path, so its size does not matter.
#![allow(clippy::result_large_err)]

use super::assumptions::DEFAULT_BASE_URL;
use super::error::{ApiError, ResponseHeaders};
use super::escape::percent_encoded;
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use std::fmt;

mod endpoints;
mod transport;

pub use endpoints::{
    check_key, launch, list_reservations, nodes, nodes_path, org_reservations, reclaim, reservation, reservation_path,
    says_simulator, send_ahead, shows_payment, Checked, NODES_DECODE, RESERVATIONS_PATH,
};

/// An API key. Its `Debug` and `Display` print `…`, so no log, panic message or error
/// text built with `{:?}` can leak it.
#[derive(Clone, PartialEq, Eq)]
struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"…\"")
    }
}

/// Where the two APIs are, the key to call them with, and the provider's own console.
#[derive(Clone, PartialEq, Eq)]
pub struct Connection {
    /// Without a trailing slash: `/api`, `https://api.ecohash.com`.
    pub base_url: String,
    /// The org capacity API's (seed 000 documents a different API); the same as
    /// `base_url` unless set.
    org_base_url: String,
    /// The provider's own console (`https://console.example.com`), for links to its
    /// pages; none unless the user set one.
    console_origin: Option<String>,
    /// The API answered as the local simulator ([`assumptions::SIMULATOR_HEADER`]): demo
    /// hints are shown.
    simulator: bool,
    key: Secret,
    scope: Scope,
}

/// What ends a request before its answer: the page that sent it was left, or its session
/// ended. Not part of a connection's identity: the same key in another scope is the same
/// connection.
#[derive(Clone, Default)]
struct Scope(Option<web_sys::AbortSignal>);

impl PartialEq for Scope {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Scope {}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("base_url", &self.base_url)
            .field("org_base_url", &self.org_base_url)
            .field("console_origin", &self.console_origin)
            .field("simulator", &self.simulator)
            .field("key", &self.key)
            .finish()
    }
}

impl fmt::Display for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (key …)", self.base_url)
    }
}

impl Connection {
    /// An empty base URL means [`DEFAULT_BASE_URL`]; surrounding blanks and trailing
    /// slashes are dropped, and so are blanks around a pasted key.
    pub fn new(base_url: impl Into<String>, key: impl Into<String>) -> Self {
        let base_url = base_url_or(&base_url.into(), DEFAULT_BASE_URL);
        Connection {
            org_base_url: base_url.clone(),
            base_url,
            console_origin: None,
            simulator: false,
            key: Secret(key.into().trim().to_owned()),
            scope: Scope::default(),
        }
    }

    /// This connection with its requests aborted when `signal` is (see
    /// `ConnectionState::send`, which scopes each request to its page and session).
    pub fn within(mut self, signal: web_sys::AbortSignal) -> Self {
        self.scope = Scope(Some(signal));
        self
    }

    /// The org capacity API's own base URL; blank means the same as the Compute API's.
    pub fn with_org_base_url(self, org_base_url: &str) -> Self {
        Connection { org_base_url: base_url_or(org_base_url, &self.base_url), ..self }
    }

    /// The provider's console origin, checked with [`console_origin_problem`]; blank means none.
    pub fn with_console_origin(self, origin: &str) -> Self {
        let origin = trimmed(origin);
        Connection { console_origin: (!origin.is_empty()).then(|| origin.to_owned()), ..self }
    }

    /// The same API (base URLs, console origin) with another key (another account of the
    /// same provider, `reads::accounts`), its blanks dropped, not scoped to any signal.
    pub fn with_key(&self, key: &str) -> Self {
        Connection { key: Secret(key.trim().to_owned()), scope: Scope::default(), ..self.clone() }
    }

    /// As [`check_key`] found the API: the local simulator or not.
    pub fn with_simulator(self, simulator: bool) -> Self {
        Connection { simulator, ..self }
    }

    pub fn is_simulator(&self) -> bool {
        self.simulator
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn org_base_url(&self) -> &str {
        &self.org_base_url
    }

    pub fn console_origin(&self) -> Option<&str> {
        self.console_origin.as_deref()
    }

    /// The key itself, for the opt-in copy in sessionStorage only. Never format it.
    pub fn expose_key(&self) -> &str {
        &self.key.0
    }

    fn url(&self, api: Api, path: &str) -> String {
        match api {
            Api::Compute => format!("{}{path}", self.base_url),
            Api::Org => format!("{}{path}", self.org_base_url),
        }
    }

    fn authorization(&self) -> String {
        format!("Bearer {}", self.key.0)
    }
}

/// `raw` without surrounding blanks and trailing slashes, as a base URL or origin is kept.
fn trimmed(raw: &str) -> &str {
    raw.trim().trim_end_matches('/')
}

/// `raw` [`trimmed`], or `default` when that leaves nothing.
fn base_url_or(raw: &str, default: &str) -> String {
    let trimmed = trimmed(raw);
    if trimmed.is_empty() { default } else { trimmed }.to_owned()
}

/// Which of the two APIs a request goes to (each has its base URL).
#[derive(Clone, Copy)]
enum Api {
    Compute,
    Org,
}

/// Why `raw` cannot be the provider's console origin, or `None` (blank is fine: no links).
/// An origin is `https://host[:port]` (plain `http://` only for a loopback host), with no
/// path, query or credentials: the console adds the page's path itself.
pub fn console_origin_problem(raw: &str) -> Option<&'static str> {
    let origin = trimmed(raw);
    if origin.is_empty() {
        return None;
    }
    let Some(host) = after_scheme(origin) else {
        return Some("Enter an origin starting with https://, such as https://console.ecohash.com.");
    };
    if !is_host(host) {
        return Some("Enter only the origin (https://host), without a path, query or user name.");
    }
    None
}

/// What follows `https://`, or `http://` to a loopback host (the local simulator): the only
/// schemes by which the console sends anything, so a key never crosses a network in clear.
fn after_scheme(url: &str) -> Option<&str> {
    match (url.strip_prefix("https://"), url.strip_prefix("http://")) {
        (Some(rest), _) => Some(rest),
        (None, Some(rest)) if ["localhost", "127.0.0.1", "[::1]"].contains(&host_of(rest)) => Some(rest),
        _ => None,
    }
}

/// The host of what follows a scheme: up to the port, the path or the end (`[::1]` whole).
fn host_of(rest: &str) -> &str {
    let authority = rest.split('/').next().unwrap_or("");
    match authority.find(']') {
        Some(end) if authority.starts_with('[') => &authority[..=end],
        _ => authority.split(':').next().unwrap_or(""),
    }
}

/// `host[:port]`, nothing more (no user name, path or query).
fn is_host(text: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
    !text.is_empty() && text.chars().all(allowed)
}

/// Why `raw` cannot be one of the two API base URLs, or `None` (blank: the default). The key
/// is sent there: a path on the console's own origin (`/api`), an `https://` address, or
/// `http://` to a loopback host, and no user name in it.
pub fn base_url_problem(raw: &str) -> Option<&'static str> {
    let url = trimmed(raw);
    if url.is_empty() || (url.starts_with('/') && !url.starts_with("//") && !url.contains('\\')) {
        return None;
    }
    let Some(rest) = after_scheme(url) else {
        return Some(
            "Enter a path on this site such as /api, or an address starting with https:// (http:// only for \
             this computer: localhost, 127.0.0.1).",
        );
    };
    if !is_host(rest.split('/').next().unwrap_or("")) {
        return Some("Enter the address without a user name: https://host/path.");
    }
    None
}

/// Why a key cannot be sent as typed, in the user's terms, or `None` when it can.
/// A key travels in a header, so it must be visible ASCII without spaces.
pub fn key_problem(key: &str) -> Option<&'static str> {
    let key = key.trim();
    if key.is_empty() {
        Some("Enter an API key.")
    } else if !key.chars().all(|c| c.is_ascii_graphic()) {
        Some("The key contains a space, a line break or a character no key has; paste it again.")
    } else {
        None
    }
}

/// A path segment as sent: unreserved characters as they are, everything else
/// percent-encoded. Empty, `.` and `..` are refused: a URL parser would resolve them
/// into another path.
fn path_segment(raw: &str) -> Result<String, ApiError> {
    if raw.is_empty() || raw == "." || raw == ".." {
        return Err(ApiError::invalid_request(format!("“{raw}” is not a valid id.")));
    }
    Ok(percent_encoded(raw))
}

/// Status, headers and body text of an answer → the typed value or the error.
///
/// The body is read as text first so that a truncated or malformed 2xx becomes a
/// `Decode` error with serde's line and column and the request id, and so that an error
/// answer of any shape (JSON of either documented form, an HTML page, nothing) is kept.
/// `now` resolves a `retry-after` given as an HTTP date.
pub fn decode<T: DeserializeOwned>(
    status: u16,
    headers: &ResponseHeaders,
    body: &str,
    now: DateTime<Utc>,
) -> Result<T, ApiError> {
    readable(status, headers, body, now)?;
    serde_json::from_str(body).map_err(|e| undecodable(status, headers, body, &e))
}

/// The error of an answer whose body is not to be read as the value asked for: too large,
/// or not a 2xx. Not generic, so the wasm holds it once however many answer types there are.
fn readable(status: u16, headers: &ResponseHeaders, body: &str, now: DateTime<Utc>) -> Result<(), ApiError> {
    if let Some(refused) = too_large(status, headers, body.len(), now) {
        return Err(refused);
    }
    if !(200..300).contains(&status) {
        return Err(ApiError::from_response(status, headers, body, now));
    }
    Ok(())
}

/// The error for an answer of `len` bytes past [`super::limits::MAX_BODY_BYTES`], or `None`
/// when it may be read. An error answer too large to read still says its status.
fn too_large(status: u16, headers: &ResponseHeaders, len: usize, now: DateTime<Utc>) -> Option<ApiError> {
    Some(unread(status, headers, super::limits::body_too_large(len)?, now))
}

/// An answer whose body was not read, for the reason `detail`.
fn unread(status: u16, headers: &ResponseHeaders, detail: String, now: DateTime<Utc>) -> ApiError {
    if (200..300).contains(&status) {
        ApiError::undecodable(status, headers, detail)
    } else {
        ApiError::from_response(status, headers, "", now)
    }
}

/// An answer's declared `content-length` when it is too large to read: the body is then not
/// downloaded at all. (What arrives is counted again after reading: a length may be absent.)
fn declared_too_large(status: u16, headers: &ResponseHeaders, now: DateTime<Utc>) -> Option<ApiError> {
    let declared = headers.get("content-length")?.trim().parse::<usize>().ok()?;
    too_large(status, headers, declared, now)
}

/// A 2xx whose body is not the documented JSON, said in the user's terms. Kept apart from
/// the generic [`decode`] so that each answer type adds only its own parsing to the wasm.
fn undecodable(status: u16, headers: &ResponseHeaders, body: &str, e: &serde_json::Error) -> ApiError {
    let trimmed = body.trim_start();
    let detail = if trimmed.is_empty() {
        format!("The answer (HTTP {status}) was empty.")
    } else if trimmed.starts_with('<') {
        format!("The answer (HTTP {status}) is a web page, not JSON: the API base URL probably points at a website.")
    } else if e.is_eof() {
        format!("The answer (HTTP {status}) was cut off: {e}.")
    } else {
        format!("The answer (HTTP {status}) is not what the API documents: {e}.")
    };
    ApiError::undecodable(status, headers, detail)
}

#[cfg(test)]
mod tests;
