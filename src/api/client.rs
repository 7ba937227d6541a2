//! The one place requests are built (base URL, bearer key, JSON) and answers decoded.
//!
//! The browser part ([`send`]) only moves bytes; everything that can be wrong about an
//! answer is decided by the pure [`decode`], which native tests cover.
//!
//! Differs from the agreed interface: [`decode`] also takes `now` (a `retry-after` may be an
//! HTTP date), and `ApiError` has a fifth kind, `InvalidRequest`, for an id that would change
//! the path.

// `ApiError` is the interface's flat struct of optional fields; it travels only on the rare
// failure path, so its size does not matter.
#![allow(clippy::result_large_err)]

use super::assumptions::{self, CHANGE_TIMEOUT, DEFAULT_BASE_URL, LAUNCH_PATH, MAX_BODY_BYTES, REQUEST_TIMEOUT};
use super::error::{parse_rate_limit, ApiError, RateLimit, ResponseHeaders};
use super::escape::percent_encoded;
use super::models::{
    LaunchRequest, LaunchedInstance, NodesKept, NodesResponse, NodesText, Reservation, ReservationDetail,
};
use super::org::{OrgReservation, ReclaimRequest};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};

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

/// `GET /gpu-reservations`: newest first.
pub async fn list_reservations(conn: &Connection) -> Result<Vec<Reservation>, ApiError> {
    send(conn, Api::Compute, Method::Get, RESERVATIONS_PATH, None::<&()>).await
}

/// What Connect learns from its first read: the reservations, whether the API is the
/// local simulator (its answer says so in a header), and the key's rate limit as it stood.
pub struct Checked {
    pub reservations: Vec<Reservation>,
    pub simulator: bool,
    pub rate_limit: Option<RateLimit>,
}

/// `GET /gpu-reservations`, read by Connect to check the key.
pub async fn check_key(conn: &Connection) -> Result<Checked, ApiError> {
    answered(conn, Api::Compute, Method::Get, RESERVATIONS_PATH, Ok(None), |answer| {
        Ok(Checked {
            reservations: decode(answer.status, &answer.headers, &answer.text, Utc::now())?,
            simulator: says_simulator(&answer.headers),
            rate_limit: parse_rate_limit(&answer.headers),
        })
    })
    .await
}

/// Whether an answer's headers say it came from the local simulator.
pub fn says_simulator(headers: &ResponseHeaders) -> bool {
    headers.get(assumptions::SIMULATOR_HEADER).is_some_and(|v| !v.is_empty())
}

/// `GET /gpu-reservations/{id}`: `payment` only for the owner.
pub async fn reservation(conn: &Connection, id: i64) -> Result<ReservationDetail, ApiError> {
    send(conn, Api::Compute, Method::Get, &reservation_path(id), None::<&()>).await
}

/// `GET /gpu-reservations/{id}`, read only for whether it shows `payment`, which only the
/// owner's key sees. Connect learns the role with it, and the first load is spared the
/// whole detail's parsing.
pub async fn shows_payment(conn: &Connection, id: i64) -> Result<bool, ApiError> {
    let read: PaymentShown = send(conn, Api::Compute, Method::Get, &reservation_path(id), None::<&()>).await?;
    Ok(read.payment.is_some())
}

/// The reservations' path under the compute API's base URL.
pub const RESERVATIONS_PATH: &str = "/gpu-reservations";

pub fn reservation_path(id: i64) -> String {
    format!("{RESERVATIONS_PATH}/{id}")
}

pub fn nodes_path(id: i64) -> String {
    format!("{RESERVATIONS_PATH}/{id}/nodes")
}

/// A reservation detail with everything but `payment` skipped unread.
#[derive(serde::Deserialize)]
struct PaymentShown {
    #[serde(default)]
    payment: Option<serde::de::IgnoredAny>,
}

/// Sends `GET path` of the compute API ahead ([`super::first_read`]): the page opened next
/// takes its answer as its own first read. Nothing is sent where the page's policy would
/// block it (the page's own read then explains why).
pub fn send_ahead(conn: &Connection, path: &str) {
    let url = conn.url(Api::Compute, path);
    if page_policy_refusal(&url).is_none() {
        super::first_read::send_ahead(&url, &conn.authorization());
    }
}

/// `GET /gpu-reservations/{id}/nodes`, read live from the region, with the text it was read
/// from; the nodes sent as in `before` (the answer before, and its text) are taken from it
/// ([`NodesResponse::read_after`]). Its decoding is timed as [`NODES_DECODE`] (a
/// 10,000-node answer is ~2.7 MB).
pub async fn nodes(
    conn: &Connection,
    id: i64,
    before: Option<NodesKept>,
) -> Result<(NodesResponse, NodesText), ApiError> {
    let path = nodes_path(id);
    answered(conn, Api::Compute, Method::Get, &path, Ok(None), |answer| {
        let before = before.as_ref().map(|(answer, text)| (&**answer, &**text));
        let Answer { status, headers, text } = answer;
        crate::browser::timed(NODES_DECODE, || {
            readable(status, &headers, &text, Utc::now())?;
            NodesResponse::read_after(text, before).map_err(|(e, text)| undecodable(status, &headers, &text, &e))
        })
    })
    .await
}

/// The User Timing measure of the latest `/nodes` decode, in milliseconds.
pub const NODES_DECODE: &str = "nodes-decode";

/// Launch on a reservation (**assumption**, see [`assumptions::LAUNCH_PATH`]).
pub async fn launch(conn: &Connection, request: &LaunchRequest) -> Result<LaunchedInstance, ApiError> {
    send(conn, Api::Compute, Method::Post, LAUNCH_PATH, Some(request)).await
}

/// `GET /v1/orgs/{orgId}/reservations` (seed 000).
pub async fn org_reservations(conn: &Connection, org_id: &str) -> Result<Vec<OrgReservation>, ApiError> {
    let path = assumptions::org_reservations_path(&path_segment(org_id)?);
    send(conn, Api::Org, Method::Get, &path, None::<&()>).await
}

/// Reclaim released units (**assumption**, see [`assumptions::reclaim_path`]).
pub async fn reclaim(
    conn: &Connection,
    org_id: &str,
    reservation_id: &str,
    request: &ReclaimRequest,
) -> Result<OrgReservation, ApiError> {
    let path = assumptions::reclaim_path(&path_segment(org_id)?, &path_segment(reservation_id)?);
    send(conn, Api::Org, Method::Post, &path, Some(request)).await
}

#[derive(Clone, Copy)]
enum Method {
    Get,
    Post,
}

impl Method {
    /// A read is given up after [`REQUEST_TIMEOUT`]; a change (a launch) waits
    /// [`CHANGE_TIMEOUT`].
    fn timeout(self) -> Duration {
        match self {
            Method::Get => REQUEST_TIMEOUT,
            Method::Post => CHANGE_TIMEOUT,
        }
    }
}

/// Sends one request and decodes its answer.
async fn send<B: Serialize + ?Sized, T: DeserializeOwned>(
    conn: &Connection,
    api: Api,
    method: Method,
    path: &str,
    body: Option<&B>,
) -> Result<T, ApiError> {
    let body = body.map(serde_json::to_string).transpose().map_err(unbuildable);
    answered(conn, api, method, path, body, |answer| decode(answer.status, &answer.headers, &answer.text, Utc::now()))
        .await
}

/// Sends one request with its JSON `body` (or the error building it) and reads its answer
/// with `read`. The one place every error leaving the client has the key redacted.
async fn answered<T>(
    conn: &Connection,
    api: Api,
    method: Method,
    path: &str,
    body: Result<Option<String>, ApiError>,
    read: impl FnOnce(Answer) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    let answer = match body {
        Ok(body) => exchange(conn, api, method, path, body).await,
        Err(unbuilt) => Err(unbuilt),
    };
    answer.and_then(read).map_err(|e| e.redact(&conn.key.0))
}

/// The body could not be serialised, or the browser refused the request as built.
fn unbuildable(e: impl fmt::Display) -> ApiError {
    ApiError::invalid_request(format!("The request could not be built: {e}"))
}

/// An answer as it came: status, headers and the body's text.
struct Answer {
    status: u16,
    headers: ResponseHeaders,
    text: String,
}

/// Builds and sends one request (aborted after its method's timeout) with an optional JSON
/// body. Not generic, so the wasm holds it once however many answer types there are.
async fn exchange(
    conn: &Connection,
    api: Api,
    method: Method,
    path: &str,
    body: Option<String>,
) -> Result<Answer, ApiError> {
    use gloo_net::http::RequestBuilder;

    let url = conn.url(api, path);
    if let Some(refused) = page_policy_refusal(&url) {
        return Err(ApiError::invalid_request(refused));
    }
    let timer = AbortTimer::start(conn.scope.0.as_ref(), method.timeout())?;
    let failed = |e: &dyn fmt::Display| match timer.ended() {
        Some(Ended::TimedOut) => ApiError::timeout(method.timeout()),
        Some(Ended::Cancelled) => ApiError::cancelled(),
        None => ApiError::network(e.to_string()),
    };
    let authorization = conn.authorization();
    // A page opened at its address may find its first read already sent (`first_read`).
    let sent_ahead = match (method, &body) {
        (Method::Get, None) => super::first_read::take(&url, &authorization, &timer.signal()),
        _ => None,
    };
    let response = match sent_ahead {
        Some(answer) => {
            crate::browser::next_task().await;
            wasm_bindgen_futures::JsFuture::from(answer)
                .await
                .map(|raw| gloo_net::http::Response::from(raw.unchecked_into::<web_sys::Response>()))
                .map_err(|e| failed(&JsText(e)))?
        }
        None => {
            let builder = RequestBuilder::new(&url)
                .method(match method {
                    Method::Get => gloo_net::http::Method::GET,
                    Method::Post => gloo_net::http::Method::POST,
                })
                .header("Authorization", &authorization)
                .header("Accept", "application/json")
                .abort_signal(Some(&timer.signal()));
            let request = match body {
                Some(json) => builder.header("Content-Type", "application/json").body(json),
                None => builder.build(),
            }
            .map_err(unbuildable)?;
            request.send().await.map_err(|e| failed(&e))?
        }
    };
    let (status, headers) = (response.status(), ResponseHeaders::from_pairs(response.headers().entries()));
    let refused = match declared_too_large(status, &headers, Utc::now()) {
        Some(refused) => refused,
        None => match read_at_most(&response, MAX_BODY_BYTES).await {
            Ok(Some(text)) => return Ok(Answer { status, headers, text }),
            Ok(None) => unread(status, &headers, super::limits::body_past_limit(), Utc::now()),
            Err(e) => return Err(failed(&JsText(e))),
        },
    };
    // Stops the download of the rest.
    timer.controller.abort();
    Err(refused)
}

/// Why the page's Content-Security-Policy (its `<meta>`, which `cargo xtask dist` writes)
/// would have the browser block a request to `url`, which the browser reports only as a
/// network failure. Only an address elsewhere can be blocked: a path is this origin's.
fn page_policy_refusal(url: &str) -> Option<String> {
    if url.starts_with('/') {
        return None;
    }
    let document = web_sys::window()?.document()?;
    let meta = document.query_selector(r#"meta[http-equiv="Content-Security-Policy" i]"#).ok()??;
    let page = document.location()?.origin().ok()?;
    policy_refusal(&meta.get_attribute("content")?, &page, url)
}

/// [`page_policy_refusal`] on the policy's text: `Some` only when `connect-src` (or
/// `default-src`) surely leaves `url`'s origin out; a source this reads no further
/// (wildcards, paths) is taken as allowing it.
fn policy_refusal(policy: &str, page_origin: &str, url: &str) -> Option<String> {
    let directive = |name: &str| {
        policy.split(';').map(str::trim).find_map(|d| d.strip_prefix(name).filter(|rest| rest.starts_with(' ')))
    };
    let sources = directive("connect-src").or_else(|| directive("default-src"))?.trim();
    let lower = url.to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://")?;
    let origin = format!("{scheme}://{}", rest.split(['/', '?', '#']).next().unwrap_or(""));
    let allows = |source: &str| match source {
        "'self'" => origin == page_origin.to_ascii_lowercase(),
        "'none'" => false,
        s if s.ends_with(':') && !s.contains('/') => s.trim_end_matches(':') == scheme,
        s if s.split_once("://").is_some_and(|(_, host)| !host.trim_end_matches('/').contains(['/', '?', '*'])) => {
            s.trim_end_matches('/') == origin
        }
        // Not read further: not claimed to block.
        _ => true,
    };
    let sources = sources.split_whitespace().map(str::to_ascii_lowercase).collect::<Vec<_>>();
    (!sources.iter().any(|s| allows(s))).then(|| {
        format!(
            "This console's Content-Security-Policy lets it call only {} (connect-src), so the browser \
             blocks requests to {origin}. Use a base URL on this site, such as /api behind a reverse proxy, \
             or a console built for that API (cargo xtask dist --api-origin {origin}).",
            sources.join(" ")
        )
    })
}

/// The body as text, read chunk by chunk and given up (`None`) as soon as it passes `limit`
/// bytes: an answer without a `content-length`, or a compressed one that inflates, is never
/// held whole past the limit.
async fn read_at_most(response: &gloo_net::http::Response, limit: usize) -> Result<Option<String>, JsValue> {
    let Some(body) = response.body() else { return Ok(Some(String::new())) };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut bytes = Vec::new();
    loop {
        let chunk = wasm_bindgen_futures::JsFuture::from(reader.read()).await?;
        if js_sys::Reflect::get(&chunk, &"done".into())?.is_truthy() {
            // Invalid UTF-8 is replaced as `Response.text()` does; valid text is not copied.
            return Ok(Some(
                String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ));
        }
        let value: js_sys::Uint8Array = js_sys::Reflect::get(&chunk, &"value".into())?.unchecked_into();
        let start = bytes.len();
        let end = start + value.length() as usize;
        if end > limit {
            return Ok(None);
        }
        bytes.resize(end, 0);
        value.copy_to(&mut bytes[start..]);
    }
}

/// A browser error as text.
struct JsText(JsValue);

impl fmt::Display for JsText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.dyn_ref::<js_sys::Error>() {
            Some(error) => write!(f, "{}", String::from(error.message())),
            None => write!(f, "{:?}", self.0),
        }
    }
}

/// Why a request was aborted.
#[derive(Clone, Copy)]
enum Ended {
    TimedOut,
    Cancelled,
}

/// An AbortController aborted by a browser timer after a timeout, or as soon as the
/// request's scope is; dropping it clears the timer and stops listening to the scope, so a
/// long-lived scope does not gather listeners.
struct AbortTimer {
    controller: web_sys::AbortController,
    timer: leptos::prelude::TimeoutHandle,
    ended: std::rc::Rc<std::cell::Cell<Option<Ended>>>,
    scope: Option<(web_sys::AbortSignal, wasm_bindgen::closure::Closure<dyn FnMut()>)>,
}

impl AbortTimer {
    fn start(scope: Option<&web_sys::AbortSignal>, timeout: Duration) -> Result<Self, ApiError> {
        if scope.is_some_and(web_sys::AbortSignal::aborted) {
            return Err(ApiError::cancelled());
        }
        let no_browser = |_| ApiError::network("This browser cannot run the console's requests.");
        let controller = web_sys::AbortController::new().map_err(no_browser)?;
        let ended = std::rc::Rc::new(std::cell::Cell::new(None));
        let abort = |why: Ended| {
            let (controller, ended) = (controller.clone(), ended.clone());
            move || {
                ended.set(Some(why));
                controller.abort();
            }
        };
        let timer = leptos::prelude::set_timeout_with_handle(abort(Ended::TimedOut), timeout).map_err(no_browser)?;
        let scope = scope.map(|signal| {
            let on_abort = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(abort(Ended::Cancelled));
            let _ = signal.add_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
            (signal.clone(), on_abort)
        });
        Ok(AbortTimer { controller, timer, ended, scope })
    }

    fn signal(&self) -> web_sys::AbortSignal {
        self.controller.signal()
    }

    fn ended(&self) -> Option<Ended> {
        self.ended.get()
    }
}

impl Drop for AbortTimer {
    fn drop(&mut self) {
        self.timer.clear();
        if let Some((signal, on_abort)) = &self.scope {
            let _ = signal.remove_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::error::ErrorKind;
    use crate::api::limits::MAX_BODY_BYTES;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 2, 14, 5, 0).unwrap()
    }

    fn with_request_id() -> ResponseHeaders {
        ResponseHeaders::from_pairs([("x-ecolink-request-id", "req_42")])
    }

    const NODES: &str = r#"{"nodes":[{"display_name":"node-1","state":"ready","gpus":8,"gpus_in_use":0,"workloads":[]}],"workloads_unknown":false}"#;

    #[test]
    fn only_a_detail_with_a_payment_object_shows_payment() {
        let shown = |body: &str| {
            decode::<PaymentShown>(200, &ResponseHeaders::default(), body, now()).unwrap().payment.is_some()
        };
        assert!(shown(r#"{"id":12,"payment":{"status":"paid"},"charges":[]}"#));
        assert!(!shown(r#"{"id":12,"status":"active"}"#), "a member's detail has no payment");
        assert!(!shown(r#"{"id":12,"payment":null}"#));
        let seed = include_str!("../../fixtures/seed_004_detail.json");
        let full: ReservationDetail = decode(200, &ResponseHeaders::default(), seed, now()).unwrap();
        assert_eq!(shown(seed), full.payment.is_some(), "the probe agrees with the full decode");
    }

    #[test]
    fn a_2xx_body_decodes_into_the_type() {
        let n: NodesResponse = decode(200, &ResponseHeaders::default(), NODES, now()).unwrap();
        assert_eq!(n.nodes[0].display_name, "node-1");
        let launched: LaunchedInstance = decode(
            201,
            &ResponseHeaders::default(),
            r#"{"id":7,"name":"nb","gpus":2,"billing":"reserved","rate_usd_per_hour":0}"#,
            now(),
        )
        .unwrap();
        assert_eq!((launched.id, launched.gpus), (7, 2));
    }

    #[test]
    fn a_truncated_200_is_a_decode_error_with_position_and_request_id() {
        let cut = &NODES[..60];
        let e = decode::<NodesResponse>(200, &with_request_id(), cut, now()).unwrap_err();
        assert_eq!((e.kind, e.status), (ErrorKind::Decode, Some(200)));
        assert_eq!(e.request_id.as_deref(), Some("req_42"));
        let message = e.message.unwrap();
        assert!(message.starts_with("The answer (HTTP 200) was cut off: EOF while parsing"), "{message}");
        assert!(message.contains("line 1 column 60"), "{message}");
    }

    #[test]
    fn a_200_of_the_wrong_shape_names_the_field() {
        let e = decode::<NodesResponse>(
            200,
            &with_request_id(),
            r#"{"nodes":[{"display_name":"n","state":"ready","gpus":"8"}]}"#,
            now(),
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Decode);
        let message = e.message.unwrap();
        assert!(
            message.starts_with("The answer (HTTP 200) is not what the API documents: invalid type: string \"8\""),
            "{message}"
        );
    }

    #[test]
    fn an_answer_declared_past_the_limit_is_refused_before_its_body_is_read() {
        let declared = |status, length: &str| {
            let headers = ResponseHeaders::from_pairs([("Content-Length", length), ("x-ecolink-request-id", "req_1")]);
            declared_too_large(status, &headers, now())
        };
        let error = declared(200, "41943040").expect("40 MiB is past the limit");
        assert_eq!((error.kind, error.request_id.as_deref()), (ErrorKind::Decode, Some("req_1")));
        assert!(error.to_string().contains("40.0 MiB"), "{error}");
        assert_eq!(declared(503, "41943040").map(|e| (e.kind, e.status)), Some((ErrorKind::Http, Some(503))));
        assert_eq!(declared(200, &MAX_BODY_BYTES.to_string()), None, "at the limit it is read");
        assert_eq!(declared(200, "many"), None, "a length that is no number is counted as the body arrives");
    }

    #[test]
    fn a_200_web_page_means_the_base_url_is_wrong() {
        let e =
            decode::<Vec<Reservation>>(200, &ResponseHeaders::default(), "<!DOCTYPE html><html>…", now()).unwrap_err();
        assert!(e.message.unwrap().contains("API base URL probably points at a website"));
        let e = decode::<Vec<Reservation>>(200, &ResponseHeaders::default(), "", now()).unwrap_err();
        assert_eq!(e.message.as_deref(), Some("The answer (HTTP 200) was empty."));
    }

    #[test]
    fn an_error_status_is_decoded_as_an_api_error_even_with_a_valid_body() {
        let h = ResponseHeaders::from_pairs([("retry-after", "Wed, 02 Dec 2026 14:06:00 GMT")]);
        let e = decode::<Vec<Reservation>>(503, &h, "[]", now()).unwrap_err();
        assert_eq!((e.kind, e.status), (ErrorKind::Http, Some(503)));
        assert_eq!(e.retry_after(), Some(std::time::Duration::from_secs(60)));
    }

    fn decode_value<T: DeserializeOwned>(v: serde_json::Value) -> T {
        decode(200, &ResponseHeaders::default(), &v.to_string(), now()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_unknown_value_in_every_enumeration_still_decodes_the_page() {
        use crate::api::enums::*;
        use crate::api::models::tests::{SEED_DETAIL, SEED_NODES};
        let mut detail: serde_json::Value = serde_json::from_str(SEED_DETAIL).unwrap();
        detail["status"] = "frozen".into();
        detail["billing_period"] = "yearly".into();
        detail["payment"]["funding"] = "card".into();
        detail["payment"]["next_charge"]["status"] = "refunded".into();
        let d: ReservationDetail = decode_value(detail);
        assert_eq!(d.reservation.status, ReservationStatus::Unknown("frozen".into()));
        assert_eq!(d.reservation.billing_period, BillingPeriod::Unknown("yearly".into()));
        let p = d.payment.unwrap();
        assert_eq!(p.funding, Funding::Unknown("card".into()));
        assert_eq!(p.next_charge.unwrap().status, ChargeStatus::Unknown("refunded".into()));

        let mut nodes: serde_json::Value = serde_json::from_str(SEED_NODES).unwrap();
        nodes["nodes"][0]["state"] = "draining".into();
        nodes["nodes"][0]["workloads"][0]["kind"] = "batch".into();
        nodes["nodes"][0]["workloads"][0]["billing"] = "committed".into();
        let n: NodesResponse = decode_value(nodes);
        assert_eq!(n.nodes[0].state, NodeState::Unknown("draining".into()));
        assert_eq!(n.nodes[0].workloads[0].kind, WorkloadKind::Unknown("batch".into()));
        assert_eq!(n.nodes[0].workloads[0].billing, Some(Billing::Unknown("committed".into())));

        let mut org: serde_json::Value = serde_json::from_str(crate::api::org::tests::ALL_FIELDS).unwrap();
        org["status"] = "migrating".into();
        let o: Vec<OrgReservation> = decode_value(serde_json::Value::Array(vec![org]));
        assert_eq!(o[0].status, OrgReservationStatus::Unknown("migrating".into()));
    }

    #[test]
    fn nulls_mean_absent_for_every_optional_field() {
        use crate::api::models::tests::{SEED_DETAIL, SEED_NODES};
        let mut detail: serde_json::Value = serde_json::from_str(SEED_DETAIL).unwrap();
        for field in [
            "starts_at",
            "ends_at",
            "contract_ref",
            "past_due_since",
            "stops_at",
            "ended_at",
            "payment",
            "first_invoice",
            "amendments",
        ] {
            detail[field] = serde_json::Value::Null;
        }
        let d: ReservationDetail = decode_value(detail.clone());
        assert!(d.payment.is_none() && d.amendments.is_empty() && d.reservation.contract_ref.is_none());

        detail = serde_json::from_str(SEED_DETAIL).unwrap();
        for field in ["next_charge", "charges", "first_invoice"] {
            detail["payment"][field] = serde_json::Value::Null;
        }
        let p = decode_value::<ReservationDetail>(detail).payment.unwrap();
        assert!(p.next_charge.is_none() && p.charges.is_empty());

        let mut nodes: serde_json::Value = serde_json::from_str(SEED_NODES).unwrap();
        nodes["workloads_unknown"] = true.into();
        nodes["nodes"][0]["gpus_in_use"] = serde_json::Value::Null;
        nodes["nodes"][0]["workloads"] = serde_json::Value::Null;
        nodes["nodes"][1]["workloads"] =
            serde_json::json!([{ "kind": "gpu_instance", "id": 1, "name": "x", "gpus": 1, "billing": null }]);
        let n: NodesResponse = decode_value(nodes);
        assert!(n.workloads_unknown);
        assert_eq!((n.nodes[0].gpus_in_use, n.nodes[0].workloads.len()), (None, 0));
        assert_eq!(n.nodes[1].workloads[0].billing, None);

        let org = serde_json::json!({
            "id": "r", "status": "active", "nodeId": "n", "reservedUnitIds": ["u1"], "allowedOrgIds": ["org_a"],
            "startsAt": "2026-11-01T00:00:00Z", "endsAt": null, "releasedUnitIds": null, "managingOrgIds": null,
            "topologyGen": null, "terminated": null, "wouldSkip": null
        });
        let o: OrgReservation = decode_value(org);
        assert!(
            o.ends_at.is_none()
                && o.released_unit_ids.is_empty()
                && o.managing_org_ids.is_empty()
                && o.terminated.is_none()
        );
    }

    #[test]
    fn a_required_field_that_is_missing_or_null_is_a_decode_error() {
        use crate::api::models::tests::SEED_LIST;
        for (field, broken) in [("id", serde_json::Value::Null), ("gpu_type", serde_json::json!(7))] {
            let mut list: serde_json::Value = serde_json::from_str(SEED_LIST).unwrap();
            list[0][field] = broken;
            let e = decode::<Vec<Reservation>>(200, &ResponseHeaders::default(), &list.to_string(), now()).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Decode, "{field}");
        }
        let mut list: serde_json::Value = serde_json::from_str(SEED_LIST).unwrap();
        list[0].as_object_mut().unwrap().remove("region_id");
        let e = decode::<Vec<Reservation>>(200, &ResponseHeaders::default(), &list.to_string(), now()).unwrap_err();
        assert!(e.message.unwrap().contains("missing field `region_id`"));
    }

    #[test]
    fn connection_never_prints_the_key() {
        let c = Connection::new("/api", "eco_demo_owner");
        assert_eq!(
            format!("{c:?}"),
            r#"Connection { base_url: "/api", org_base_url: "/api", console_origin: None, simulator: false, key: "…" }"#
        );
        assert_eq!(c.to_string(), "/api (key …)");
        assert!(!format!("{c:#?}").contains("eco_demo_owner"));
        assert_eq!(c.authorization(), "Bearer eco_demo_owner");
    }

    #[test]
    fn base_url_defaults_to_api_and_tolerates_trailing_slashes() {
        assert_eq!(Connection::new("", "k").base_url(), "/api");
        assert_eq!(Connection::new("  ", "k").base_url(), "/api");
        assert_eq!(Connection::new("/api/", "k").url(Api::Compute, "/gpu-reservations"), "/api/gpu-reservations");
        assert_eq!(
            Connection::new("https://api.ecohash.com//", "k").url(Api::Compute, "/gpu-reservations/12"),
            "https://api.ecohash.com/gpu-reservations/12"
        );
        assert_eq!(Connection::new("/api", " eco_k \n").expose_key(), "eco_k");
    }

    #[test]
    fn the_org_capacity_api_has_its_own_base_url_the_same_one_unless_set() {
        let same = Connection::new("https://api.ecohash.com", "k").with_org_base_url("  ");
        assert_eq!(same.org_base_url(), "https://api.ecohash.com");
        let own = Connection::new("/api", "k").with_org_base_url("https://org.example.com/ ");
        assert_eq!(own.url(Api::Org, "/v1/orgs/o/reservations"), "https://org.example.com/v1/orgs/o/reservations");
        assert_eq!(own.url(Api::Compute, "/gpu-reservations"), "/api/gpu-reservations", "the Compute API's is kept");
    }

    #[test]
    fn only_an_answer_that_says_so_is_the_simulator() {
        assert!(says_simulator(&ResponseHeaders::from_pairs([("X-Api-Simulator", "reservations-sim")])));
        assert!(!says_simulator(&ResponseHeaders::default()));
        assert!(!says_simulator(&ResponseHeaders::from_pairs([("x-api-simulator", "")])));
        assert!(!Connection::new("/api", "k").is_simulator(), "not until an answer says so");
    }

    #[test]
    fn a_provider_console_origin_is_an_https_origin_or_nothing() {
        for ok in ["", "  ", "https://console.ecohash.com", "https://console.ecohash.com/", "http://localhost:8080"] {
            assert_eq!(console_origin_problem(ok), None, "{ok}");
        }
        for bad in [
            "console.ecohash.com",
            "http://console.ecohash.com",
            "javascript:alert(1)",
            "https://console.ecohash.com/path",
            "https://user@console.ecohash.com",
            "https://",
        ] {
            assert!(console_origin_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(Connection::new("/api", "k").console_origin(), None);
        let set = Connection::new("/api", "k").with_console_origin(" https://console.ecohash.com/ ");
        assert_eq!(set.console_origin(), Some("https://console.ecohash.com"));
    }

    #[test]
    fn an_api_base_url_is_a_path_https_or_loopback_http() {
        for ok in [
            "",
            "/api",
            " /api/ ",
            "https://api.ecohash.com",
            "https://api.ecohash.com:8443/v1",
            "http://127.0.0.1:8080/api",
            "http://localhost/api",
            "http://[::1]:9/api",
        ] {
            assert_eq!(base_url_problem(ok), None, "{ok}");
        }
        for bad in [
            "http://api.ecohash.com",
            "http://localhost.evil.example/api",
            "http://127.0.0.1.evil.example/api",
            "//api.ecohash.com",
            "/\\api.ecohash.com",
            "api.ecohash.com",
            "javascript:alert(1)",
            "ftp://api.ecohash.com",
            "https://user:pw@api.ecohash.com",
            "https://",
        ] {
            assert!(base_url_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn a_request_the_page_policy_blocks_is_named_before_it_is_sent() {
        // What `cargo xtask dist --api-origin https://api.ecohash.com` writes.
        let policy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
                      connect-src 'self' https://api.ecohash.com; base-uri 'none'";
        let page = "https://console.example.com";
        for allowed in ["https://console.example.com/api", "https://API.ecohash.com/v1", "https://api.ecohash.com"] {
            assert_eq!(policy_refusal(policy, page, allowed), None, "{allowed}");
        }
        let refused = policy_refusal(policy, page, "https://api.other.example/api/gpu-reservations").unwrap();
        assert!(refused.contains("Content-Security-Policy"), "{refused}");
        assert!(refused.contains("blocks requests to https://api.other.example."), "{refused}");
        assert!(refused.contains("'self' https://api.ecohash.com"), "{refused}");
        assert!(policy_refusal("default-src 'none'", page, "https://x.example").is_some(), "default-src applies");
        for open in ["connect-src https:", "connect-src *", "connect-src https://*.example", "script-src 'self'"] {
            assert_eq!(policy_refusal(open, page, "https://x.example/api"), None, "{open}");
        }
    }

    #[test]
    fn a_key_with_blanks_inside_or_nothing_is_refused_before_sending() {
        assert_eq!(key_problem(" eco_demo_owner "), None);
        assert_eq!(key_problem(""), Some("Enter an API key."));
        assert!(key_problem("eco_a b").is_some());
        assert!(key_problem("eco_a\nb").is_some());
        assert!(key_problem("eco_ä").is_some());
    }

    #[test]
    fn path_segments_are_percent_encoded_and_dot_segments_refused() {
        assert_eq!(path_segment("org_acme-1.x~").unwrap(), "org_acme-1.x~");
        assert_eq!(path_segment("a/b?c#d").unwrap(), "a%2Fb%3Fc%23d");
        assert_eq!(path_segment("ä %").unwrap(), "%C3%A4%20%25");
        for bad in ["", ".", ".."] {
            assert_eq!(path_segment(bad).unwrap_err().kind, ErrorKind::InvalidRequest);
        }
    }
}
