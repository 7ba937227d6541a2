//! The built console at `/`: files from `--dist`, `index.html` for any other path (the
//! console's client-side routes), `.wasm` as `application/wasm`. `/api` never reaches here.
//!
//! Response headers for the console's files (a Content-Security-Policy, say) belong in
//! [`headers`]: it runs on every file this module serves and on nothing else.

use axum::http::{HeaderValue, header};
use axum::middleware::map_response;
use axum::response::Response;
use axum::Router;
use std::path::Path;
use tower_http::services::{ServeDir, ServeFile};

pub fn router(dist: &Path) -> Router {
    let spa = ServeDir::new(dist).fallback(ServeFile::new(dist.join("index.html")));
    Router::new().fallback_service(spa).layer(map_response(headers))
}

async fn headers(mut response: Response) -> Response {
    response.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}
