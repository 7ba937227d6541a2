//! Faults for tests, switched at run time through `/api/__sim/faults` (off by default): what a
//! flaky provider or proxy does to a response. A fault applies to requests whose path starts
//! with its `path_prefix` (default `/api/`; never the hooks) and, when it names a `key`, that
//! are sent with that key alone (one account's failure beside another's answers), `count`
//! times or until cleared.
//! Every response a fault touched carries `x-sim-fault: <kind>`.

use crate::error::{parse_body, ApiError};
use crate::ratelimit::Verdict;
use crate::state::Sim;
use axum::body::{to_bytes, Body};
use axum::extract::{OriginalUri, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Paths faults never touch.
pub const HOOKS_PREFIX: &str = "/api/__sim";
const DEFAULT_PREFIX: &str = "/api/";
const DEFAULT_DELAY_MS: u64 = 15_000;
const DEFAULT_UNAVAILABLE_RETRY_SECS: u64 = 2;
const DEFAULT_HUGE_BODY_BYTES: usize = 40 * 1024 * 1024;
/// What `unknown_enum` puts in place of a `status`, `state` or `kind`.
pub const UNKNOWN_ENUM_VALUE: &str = "hibernating";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// `500` with a JSON error body.
    Internal,
    /// `502` with an HTML page, as a proxy sends it.
    BadGatewayHtml,
    /// `503` with `retry-after` (2 s unless the fault says otherwise).
    Unavailable { retry_after_secs: u64 },
    /// `429` exactly like the real rate limit: `retry-after` and `x-ratelimit-reset` are the
    /// key's window's, unless the fault sets them (so a test need not wait a minute).
    RateLimited { retry_after_secs: Option<u64> },
    /// The real answer after `delay_ms`.
    Slow { delay_ms: u64 },
    /// `200` with the first half of the real JSON.
    Truncated,
    /// `200` with a body that is not JSON.
    Malformed,
    /// `200` with one number of the real JSON turned into a string.
    WrongType,
    /// `200` with one `status`/`state`/`kind` replaced by [`UNKNOWN_ENUM_VALUE`].
    UnknownEnum,
    /// Every region's `/nodes` answers `workloads_unknown: true`.
    Unreachable,
    /// The fault's key answers `401` until cleared.
    RevokeKey,
    /// `503` whose `retry-after` is the text given, as sent (a huge number, a negative one,
    /// garbage, an HTTP date in 2100), or by default an HTTP date two seconds ahead; its
    /// body names the error in a `code` field, as some gateways do, not `error`.
    RetryAfterText { value: Option<String> },
    /// `200` with a JSON body of `bytes` bytes (40 MiB by default): a server gone wild.
    HugeBody { bytes: usize },
    /// `200` whose JSON body never ends, sent in chunks without a `content-length`: only a
    /// client that counts what arrives can stop reading it.
    EndlessBody,
    /// `200` with the nodes renamed `a`, `a#2`, `a`, ``, `a`… (names that collide with
    /// the console's own suffixes).
    DuplicateNames,
    /// `200` with every GPU count (a number field whose name holds `gpus`) set to `value`
    /// (`u64::MAX` unless given).
    HugeNumbers { value: u64 },
    /// The request never answers (e.g. a page chunk under `/assets/`): the connection stays
    /// open and silent.
    Hang,
}

impl FaultKind {
    fn name(&self) -> &'static str {
        match self {
            FaultKind::Internal => "500",
            FaultKind::BadGatewayHtml => "502_html",
            FaultKind::Unavailable { .. } => "503",
            FaultKind::RateLimited { .. } => "429",
            FaultKind::Slow { .. } => "slow",
            FaultKind::Truncated => "truncated",
            FaultKind::Malformed => "malformed",
            FaultKind::WrongType => "wrong_type",
            FaultKind::UnknownEnum => "unknown_enum",
            FaultKind::Unreachable => "unreachable",
            FaultKind::RevokeKey => "revoke_key",
            FaultKind::RetryAfterText { .. } => "retry_after_text",
            FaultKind::HugeBody { .. } => "huge_body",
            FaultKind::EndlessBody => "endless_body",
            FaultKind::DuplicateNames => "duplicate_names",
            FaultKind::HugeNumbers { .. } => "huge_numbers",
            FaultKind::Hang => "hang",
        }
    }

    fn is_canned(&self) -> bool {
        matches!(
            self,
            FaultKind::Internal
                | FaultKind::BadGatewayHtml
                | FaultKind::Unavailable { .. }
                | FaultKind::RateLimited { .. }
                | FaultKind::RetryAfterText { .. }
                | FaultKind::HugeBody { .. }
                | FaultKind::EndlessBody
        )
    }

    fn is_body_rewrite(&self) -> bool {
        matches!(
            self,
            FaultKind::Truncated
                | FaultKind::Malformed
                | FaultKind::WrongType
                | FaultKind::UnknownEnum
                | FaultKind::DuplicateNames
                | FaultKind::HugeNumbers { .. }
        )
    }
}

/// Body of `POST /api/__sim/faults`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FaultRequest {
    kind: String,
    path_prefix: Option<String>,
    count: Option<u32>,
    delay_ms: Option<u64>,
    /// Only requests sent with this key (required by `revoke_key`).
    key: Option<String>,
    /// Seconds of `retry-after` for `503` and `429`.
    retry_after: Option<u64>,
    /// `retry_after_text`: the header as sent; `huge_numbers`: the number, as digits.
    value: Option<String>,
    /// Size of the `huge_body` answer.
    bytes: Option<usize>,
}

struct Fault {
    kind: FaultKind,
    path_prefix: String,
    /// `None`: whatever the key.
    key: Option<String>,
    /// `None` = until cleared.
    remaining: Option<u32>,
}

#[derive(Default)]
pub struct Faults {
    active: Vec<Fault>,
}

impl Faults {
    /// Adds the fault a hook request describes.
    pub fn add(&mut self, body: &[u8]) -> Result<(), ApiError> {
        let request: FaultRequest = parse_body(body)?;
        let kind = match request.kind.as_str() {
            "500" => FaultKind::Internal,
            "502_html" => FaultKind::BadGatewayHtml,
            "503" => FaultKind::Unavailable {
                retry_after_secs: request.retry_after.unwrap_or(DEFAULT_UNAVAILABLE_RETRY_SECS),
            },
            "429" => FaultKind::RateLimited { retry_after_secs: request.retry_after },
            "slow" => FaultKind::Slow { delay_ms: request.delay_ms.unwrap_or(DEFAULT_DELAY_MS) },
            "truncated" => FaultKind::Truncated,
            "malformed" => FaultKind::Malformed,
            "wrong_type" => FaultKind::WrongType,
            "unknown_enum" => FaultKind::UnknownEnum,
            "unreachable" => FaultKind::Unreachable,
            "revoke_key" if request.key.is_none() => return Err(ApiError::invalid("revoke_key needs \"key\"")),
            "revoke_key" => FaultKind::RevokeKey,
            "retry_after_text" => {
                if request.value.as_deref().is_some_and(|v| HeaderValue::from_str(v).is_err()) {
                    return Err(ApiError::invalid("value must be sendable as a header"));
                }
                FaultKind::RetryAfterText { value: request.value.clone() }
            }
            "huge_body" => FaultKind::HugeBody { bytes: request.bytes.unwrap_or(DEFAULT_HUGE_BODY_BYTES) },
            "endless_body" => FaultKind::EndlessBody,
            "duplicate_names" => FaultKind::DuplicateNames,
            "huge_numbers" => FaultKind::HugeNumbers {
                value: match request.value.as_deref() {
                    None => u64::MAX,
                    Some(digits) => {
                        digits.parse().map_err(|_| ApiError::invalid("value must be digits up to u64::MAX"))?
                    }
                },
            },
            "hang" => FaultKind::Hang,
            other => {
                return Err(ApiError::invalid(format!(
                    "Unknown fault kind {other:?}; one of 500, 502_html, 503, 429, slow, truncated, malformed, \
                     wrong_type, unknown_enum, unreachable, revoke_key, retry_after_text, huge_body, \
                     endless_body, duplicate_names, huge_numbers, hang"
                )))
            }
        };
        let takes_value = matches!(kind, FaultKind::RetryAfterText { .. } | FaultKind::HugeNumbers { .. });
        if (request.value.is_some() && !takes_value)
            || (request.bytes.is_some() && !matches!(kind, FaultKind::HugeBody { .. }))
        {
            return Err(ApiError::invalid("value belongs to retry_after_text and huge_numbers, bytes to huge_body"));
        }
        let takes_retry_after = matches!(kind, FaultKind::Unavailable { .. } | FaultKind::RateLimited { .. });
        if request.retry_after.is_some() && !takes_retry_after {
            return Err(ApiError::invalid("retry_after applies to the 503 and 429 faults only"));
        }
        if request.count == Some(0) {
            return Err(ApiError::invalid("count must be at least 1 (omit it for \"until cleared\")"));
        }
        let path_prefix = request.path_prefix.unwrap_or_else(|| DEFAULT_PREFIX.to_owned());
        self.active.push(Fault { kind, path_prefix, key: request.key, remaining: request.count });
        Ok(())
    }

    pub fn clear(&mut self) {
        self.active.clear();
    }

    /// `{"faults":[{"kind","path_prefix","count"(left; null = until cleared),"delay_ms"?,"key"?}]}`
    pub fn describe(&self) -> Value {
        let faults: Vec<Value> = self
            .active
            .iter()
            .map(|fault| {
                let mut entry =
                    json!({ "kind": fault.kind.name(), "path_prefix": fault.path_prefix, "count": fault.remaining });
                if let Some(key) = &fault.key {
                    entry["key"] = json!(key);
                }
                match &fault.kind {
                    FaultKind::Slow { delay_ms } => entry["delay_ms"] = json!(delay_ms),
                    FaultKind::Unavailable { retry_after_secs } => entry["retry_after"] = json!(retry_after_secs),
                    FaultKind::RateLimited { retry_after_secs: Some(secs) } => entry["retry_after"] = json!(secs),
                    FaultKind::RetryAfterText { value: Some(value) } => entry["value"] = json!(value),
                    FaultKind::HugeNumbers { value } => entry["value"] = json!(value.to_string()),
                    FaultKind::HugeBody { bytes } => entry["bytes"] = json!(bytes),
                    _ => {}
                }
                entry
            })
            .collect();
        json!({ "faults": faults })
    }

    /// The first fault for `path` sent with `key` that `apply` accepts, counted as used.
    fn take<R>(
        &mut self,
        path: &str,
        key: &str,
        mut apply: impl FnMut(&FaultKind) -> Option<R>,
    ) -> Option<(FaultKind, R)> {
        let (index, result) = self
            .active
            .iter()
            .enumerate()
            .filter(|(_, fault)| fault.concerns(path, key))
            .find_map(|(index, fault)| apply(&fault.kind).map(|result| (index, result)))?;
        let fault = &mut self.active[index];
        let kind = fault.kind.clone();
        if let Some(left) = fault.remaining.as_mut() {
            *left -= 1;
            if *left == 0 {
                self.active.remove(index);
            }
        }
        Some((kind, result))
    }

    fn take_if(&mut self, path: &str, key: &str, wanted: impl Fn(&FaultKind) -> bool) -> Option<FaultKind> {
        self.take(path, key, |kind| wanted(kind).then_some(())).map(|(kind, ())| kind)
    }

    fn has(&self, path: &str, key: &str, wanted: impl Fn(&FaultKind) -> bool) -> bool {
        self.active.iter().any(|f| f.concerns(path, key) && wanted(&f.kind))
    }

    /// Whether a `revoke_key` fault refuses `key` on this request.
    pub fn revoked(&mut self, key: &str, path: &str) -> bool {
        self.take_if(path, key, |kind| *kind == FaultKind::RevokeKey).is_some()
    }

    /// Whether an `unreachable` fault hides the workloads of this `/nodes` read with `key`.
    pub fn unreachable(&mut self, path: &str, key: &str) -> bool {
        self.take_if(path, key, |kind| *kind == FaultKind::Unreachable).is_some()
    }
}

impl Fault {
    /// Whether it applies to a request for `path` sent with `key` (empty: none sent).
    fn concerns(&self, path: &str, key: &str) -> bool {
        path.starts_with(&self.path_prefix) && self.key.as_deref().is_none_or(|only| only == key)
    }
}

/// Outer layer of the whole app (static files included): a `hang` fault for the path keeps
/// the request open without an answer, as a stuck proxy or CDN would.
pub async fn hang(State(sim): State<Arc<Sim>>, request: Request, next: Next) -> Response {
    let path = full_path(&request);
    let key = crate::auth::bearer(request.headers()).unwrap_or_default();
    if !path.starts_with(HOOKS_PREFIX) && sim.faults().take_if(&path, key, |kind| *kind == FaultKind::Hang).is_some() {
        std::future::pending::<()>().await;
    }
    next.run(request).await
}

/// The request's whole path: inside the `/api` router axum strips the prefix from the URI.
pub fn full_path(request: &Request) -> String {
    let uri = request.extensions().get::<OriginalUri>().map_or(request.uri(), |original| &original.0);
    uri.path().to_owned()
}

/// Outer layer of `/api`: delays, canned answers and body rewrites.
pub async fn inject(State(sim): State<Arc<Sim>>, request: Request, next: Next) -> Response {
    let path = full_path(&request);
    if path.starts_with(HOOKS_PREFIX) {
        return next.run(request).await;
    }
    let key = crate::auth::bearer(request.headers()).unwrap_or_default().to_owned();
    let slow = sim.faults().take(&path, &key, |kind| match kind {
        FaultKind::Slow { delay_ms } => Some(*delay_ms),
        _ => None,
    });
    if let Some((_, delay_ms)) = &slow {
        tokio::time::sleep(Duration::from_millis(*delay_ms)).await;
    }
    let canned = sim.faults().take_if(&path, &key, FaultKind::is_canned);
    if let Some(kind) = canned {
        let verdict = sim.limiter().exhausted(&key);
        return marked(canned_response(&kind, verdict), &kind);
    }
    let response = next.run(request).await;
    let response = match slow {
        Some((kind, _)) => marked(response, &kind),
        None => response,
    };
    let is_json =
        response.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !response.status().is_success() || !is_json || !sim.faults().has(&path, &key, FaultKind::is_body_rewrite) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, usize::MAX).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let rewritten = sim.faults().take(&path, &key, |kind| rewrite(kind, &bytes));
    let Some((kind, (body, field))) = rewritten else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    if let Some(field) = field.and_then(|f| HeaderValue::from_str(&f).ok()) {
        parts.headers.insert("x-sim-fault-field", field);
    }
    marked(Response::from_parts(parts, Body::from(body)), &kind)
}

fn marked(mut response: Response, kind: &FaultKind) -> Response {
    response.headers_mut().insert("x-sim-fault", HeaderValue::from_static(kind.name()));
    response
}

fn canned_response(kind: &FaultKind, verdict: Verdict) -> Response {
    match kind {
        FaultKind::BadGatewayHtml => (
            StatusCode::BAD_GATEWAY,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
        )
            .into_response(),
        FaultKind::Unavailable { retry_after_secs } => {
            let mut response = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "service_unavailable", "The service is temporarily unavailable; retry in a few seconds.").into_response();
            response.headers_mut().insert("retry-after", HeaderValue::from(*retry_after_secs));
            response
        }
        FaultKind::RateLimited { retry_after_secs } => match retry_after_secs {
            Some(secs) => verdict.resetting_in(*secs).refusal(),
            None => verdict.refusal(),
        },
        FaultKind::RetryAfterText { value } => {
            let value = value.clone().unwrap_or_else(|| {
                (chrono::Utc::now() + chrono::TimeDelta::seconds(2)).format("%a, %d %b %Y %H:%M:%S GMT").to_string()
            });
            let body = json!({ "code": "service_unavailable", "message": "Try again later." });
            let mut response = (StatusCode::SERVICE_UNAVAILABLE, axum::Json(body)).into_response();
            if let Ok(value) = HeaderValue::from_str(&value) {
                response.headers_mut().insert("retry-after", value);
            }
            response
        }
        FaultKind::HugeBody { bytes } => {
            let mut body = Vec::with_capacity(*bytes);
            body.extend_from_slice(b"{\"padding\":\"");
            body.resize(bytes.saturating_sub(2).max(body.len()), b'x');
            body.extend_from_slice(b"\"}");
            // Sent as is, with its length (the API's compression skips an encoded answer):
            // a server gone wild does not compress, and the console sees every byte of it.
            let identity = [(header::CONTENT_TYPE, "application/json"), (header::CONTENT_ENCODING, "identity")];
            (identity, body).into_response()
        }
        FaultKind::EndlessBody => {
            const CHUNK: &[u8] = &[b'x'; 64 * 1024];
            use futures_util::{stream, StreamExt};
            let opening = stream::iter([Ok::<_, std::convert::Infallible>(&b"{\"padding\":\""[..])]);
            let endless = opening.chain(stream::repeat_with(|| Ok(CHUNK)));
            let identity = [(header::CONTENT_TYPE, "application/json"), (header::CONTENT_ENCODING, "identity")];
            (identity, axum::body::Body::from_stream(endless)).into_response()
        }
        _ => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal_error", "Simulated internal error; quote the request id to support.").into_response(),
    }
}

/// The rewritten body (and the JSON pointer of the field changed), or `None` when the
/// fault does not apply to this body.
fn rewrite(kind: &FaultKind, body: &[u8]) -> Option<(Vec<u8>, Option<String>)> {
    match kind {
        FaultKind::Truncated => Some((body[..body.len() / 2].to_vec(), None)),
        FaultKind::Malformed => {
            let text = String::from_utf8_lossy(body);
            let broken = match text.find(':') {
                Some(at) => format!("{};{}", &text[..at], &text[at + 1..]),
                None => format!("{{{text}"),
            };
            Some((broken.into_bytes(), None))
        }
        FaultKind::WrongType => rewrite_field(body, |key, value| value.is_number() && key.contains("gpus"))
            .or_else(|| rewrite_field(body, |_, value| value.is_number())),
        FaultKind::UnknownEnum => {
            rewrite_field(body, |key, value| value.is_string() && matches!(key, "status" | "state" | "kind"))
        }
        FaultKind::DuplicateNames => {
            let mut value: Value = serde_json::from_slice(body).ok()?;
            let nodes = value.get_mut("nodes")?.as_array_mut()?;
            const NAMES: [&str; 4] = ["a", "a#2", "a", ""];
            for (i, node) in nodes.iter_mut().enumerate() {
                *node.get_mut("display_name")? = json!(NAMES[i % NAMES.len()]);
            }
            Some((serde_json::to_vec(&value).ok()?, Some("/nodes".to_owned())))
        }
        FaultKind::HugeNumbers { value: huge } => {
            let mut value: Value = serde_json::from_slice(body).ok()?;
            let changed = set_numbers(&mut value, *huge);
            (changed > 0).then(|| Some((serde_json::to_vec(&value).ok()?, None)))?
        }
        _ => None,
    }
}

/// Sets every number field whose name holds `gpus` to `to`; how many were set.
fn set_numbers(value: &mut Value, to: u64) -> usize {
    match value {
        Value::Object(map) => map
            .iter_mut()
            .map(|(key, child)| {
                if child.is_number() && key.contains("gpus") {
                    *child = json!(to);
                    1
                } else {
                    set_numbers(child, to)
                }
            })
            .sum(),
        Value::Array(items) => items.iter_mut().map(|child| set_numbers(child, to)).sum(),
        _ => 0,
    }
}

/// Changes the first field (depth first) `pick` chooses: a number becomes its text, a
/// string becomes [`UNKNOWN_ENUM_VALUE`].
fn rewrite_field(body: &[u8], pick: impl Fn(&str, &Value) -> bool + Copy) -> Option<(Vec<u8>, Option<String>)> {
    let mut value: Value = serde_json::from_slice(body).ok()?;
    let pointer = find_field(&value, String::new(), pick)?;
    let field = value.pointer_mut(&pointer)?;
    *field = match field {
        Value::Number(n) => Value::String(n.to_string()),
        _ => Value::String(UNKNOWN_ENUM_VALUE.to_owned()),
    };
    Some((serde_json::to_vec(&value).ok()?, Some(pointer)))
}

fn find_field(value: &Value, at: String, pick: impl Fn(&str, &Value) -> bool + Copy) -> Option<String> {
    match value {
        Value::Object(map) => map.iter().find_map(|(key, child)| {
            let pointer = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
            if pick(key, child) {
                Some(pointer)
            } else {
                find_field(child, pointer, pick)
            }
        }),
        Value::Array(items) => {
            items.iter().enumerate().find_map(|(i, child)| find_field(child, format!("{at}/{i}"), pick))
        }
        _ => None,
    }
}
