//! The built console at `/`: files from `--dist`, `index.html` for any other path (the
//! console's client-side routes), `.wasm` as `application/wasm`. `/api` never reaches here.
//!
//! Every file goes out with the security headers of [`SecurityHeaders`]: the
//! Content-Security-Policy that `cargo xtask dist` wrote beside the build (its
//! `csp-header.txt`, which also carries `frame-ancestors`, impossible in the page's
//! `<meta>`), no MIME sniffing and no referrer.
//!
//! Compressed as the browser accepts (brotli, then gzip, else as is) from the `.br` and `.gz`
//! files `cargo xtask dist` wrote beside each one, and cached by name: a file whose name
//! carries its content's hash never changes (a year, immutable); everything else (the page,
//! `csp-header.txt`, the app's routes) is revalidated on every load.

use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::{from_fn, Next};
use axum::response::Response;
use axum::Router;
use std::path::{Path, PathBuf};
use tower_http::services::{ServeDir, ServeFile};

/// The file of the build that holds its header policy (written by `cargo xtask dist`).
pub const CSP_HEADER_FILE: &str = "csp-header.txt";

pub fn router(dist: &Path) -> Router {
    let security = SecurityHeaders::for_build(dist);
    let index = ServeFile::new(dist.join("index.html")).precompressed_br().precompressed_gzip();
    let spa = ServeDir::new(dist).precompressed_br().precompressed_gzip().fallback(index);
    let dist = dist.to_path_buf();
    Router::new().fallback_service(spa).layer(from_fn(move |request: Request, next: Next| {
        let (security, dist) = (security.clone(), dist.clone());
        async move {
            let cache = cache_control(&dist, request.uri().path());
            let mut response = security.apply(next.run(request).await);
            if response.status() == StatusCode::OK {
                response.headers_mut().insert(header::CACHE_CONTROL, cache);
            }
            response.headers_mut().insert(header::VARY, HeaderValue::from_static("accept-encoding"));
            response
        }
    }))
}

/// A year and immutable for a file of the build whose name carries a hash; `no-cache`
/// (revalidate every time) for the rest, and for an address that is no file (the app's
/// routes, answered with `index.html`).
fn cache_control(dist: &Path, path: &str) -> HeaderValue {
    let name = path.strip_prefix('/').unwrap_or(path);
    let file: PathBuf = dist.join(name);
    if !name.contains('/') && is_hashed(name) && file.is_file() {
        HeaderValue::from_static("public, max-age=31536000, immutable")
    } else {
        HeaderValue::from_static("no-cache")
    }
}

/// `main-4ae9b0365dd6b4e0.css`, `app-37fd8b81d0e2f31d_bg.wasm`: a stem ending in `-` and
/// 12 to 16 hex digits (trunk's and the split step's names; trunk writes its hash without
/// leading zeros, so `overview-f0204c9056fa6f8.css` has fifteen). The same rule as the
/// nginx configuration `cargo xtask dist` writes.
fn is_hashed(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-')
        .is_some_and(|(_, hash)| (12..=16).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_hexdigit()))
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

#[cfg(test)]
mod tests {
    use super::is_hashed;

    #[test]
    fn a_hash_written_without_its_leading_zeros_is_a_hash_too() {
        for name in ["main-4ae9b0365dd6b4e0.css", "overview-f0204c9056fa6f8.css", "app-37fd8b81d0e2f31d_bg.wasm"] {
            assert!(is_hashed(name), "{name}");
        }
        for name in ["index.html", "favicon.ico", "main-4ae9b03.css", "main-4ae9b0365dd6b4e0aa.css"] {
            assert!(!is_hashed(name), "{name}");
        }
    }
}
