//! Opt-in CORS for the console's browser tests only: `wasm-bindgen-test-runner` serves the
//! test page from an origin of its own, so the client test can reach the simulator only with
//! CORS. The console itself never depends on it (CONTRACT.md: same origin or a reverse proxy),
//! which is why it is off unless `Config::cors_for_tests` is set, and then answers loopback
//! origins only.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, Response, StatusCode};
use axum::middleware::Next;

/// Response headers a cross-origin script may read: without them the browser hides the
/// request id, `retry-after` and the rate-limit figures from the client under test.
const EXPOSED: &str =
    "x-ecolink-request-id, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-api-simulator";

fn loopback_origin(headers: &HeaderMap) -> Option<HeaderValue> {
    let origin = headers.get(header::ORIGIN)?;
    let text = origin.to_str().ok()?;
    let host = text.strip_prefix("http://")?.rsplit_once(':').map_or(text, |(host, _)| host);
    matches!(host, "127.0.0.1" | "localhost" | "[::1]").then(|| origin.clone())
}

/// Answers preflights and marks responses readable by a loopback origin.
pub async fn allow_loopback_origins(request: Request, next: Next) -> Response<Body> {
    let Some(origin) = loopback_origin(request.headers()) else {
        return next.run(request).await;
    };
    let mut response = if request.method() == Method::OPTIONS {
        let mut preflight = Response::new(Body::empty());
        *preflight.status_mut() = StatusCode::NO_CONTENT;
        let headers = preflight.headers_mut();
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("authorization, content-type, accept, x-sim-hook"),
        );
        headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, DELETE"));
        preflight
    } else {
        next.run(request).await
    };
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED));
    headers.insert(header::VARY, HeaderValue::from_static("origin"));
    response
}
