//! The built console at `/`: files from `--dist`, `index.html` for any other path (the
//! console's client-side routes), `.wasm` as `application/wasm`. `/api` never reaches here.
//!
//! Every file goes out with the security headers of [`SecurityHeaders`]: the
//! Content-Security-Policy that `cargo xtask dist` wrote beside the build (its
//! `csp-header.txt`, which also carries `frame-ancestors`, impossible in the page's
//! `<meta>`), no MIME sniffing and no referrer.

use axum::http::{header, HeaderName, HeaderValue};
use axum::middleware::map_response;
use axum::response::Response;
use axum::Router;
use std::path::Path;
use tower_http::services::{ServeDir, ServeFile};

/// The file of the build that holds its header policy (written by `cargo xtask dist`).
pub const CSP_HEADER_FILE: &str = "csp-header.txt";

pub fn router(dist: &Path) -> Router {
    let security = SecurityHeaders::for_build(dist);
    let spa = ServeDir::new(dist).fallback(ServeFile::new(dist.join("index.html")));
    Router::new().fallback_service(spa).layer(map_response(move |response: Response| {
        let security = security.clone();
        async move { security.apply(response) }
    }))
}

/// The headers every static response carries.
#[derive(Clone)]
struct SecurityHeaders {
    /// `None` for a build without `csp-header.txt` (a plain `trunk build`): served
    /// without a policy rather than with a guessed one that would break it.
    policy: Option<HeaderValue>,
}

impl SecurityHeaders {
    /// Read once at start: the policy belongs to the build being served.
    fn for_build(dist: &Path) -> Self {
        let path = dist.join(CSP_HEADER_FILE);
        let policy = match std::fs::read_to_string(&path) {
            Ok(text) => match HeaderValue::from_str(text.trim()) {
                Ok(value) => Some(value),
                Err(_) => {
                    eprintln!(
                        "reservations-sim: {} is not a valid header value; serving without a CSP",
                        path.display()
                    );
                    None
                }
            },
            Err(_) => None,
        };
        SecurityHeaders { policy }
    }

    fn apply(&self, mut response: Response) -> Response {
        let headers = response.headers_mut();
        if let Some(policy) = &self.policy {
            headers.insert(header::CONTENT_SECURITY_POLICY, policy.clone());
        }
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
        headers.insert(HeaderName::from_static("x-frame-options"), HeaderValue::from_static("DENY"));
        response
    }
}
