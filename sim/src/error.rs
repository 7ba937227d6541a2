//! The error bodies of the shared rules: normally `{"error":"short_code","message":"…"}`,
//! `{"error":"unauthorized"}` for a bad key, and the free-text `{"error":"…"}` some
//! endpoints answer with.

use axum::extract::OriginalUri;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::borrow::Cow;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    /// The short code, or the whole text for the free-text shape.
    pub error: Cow<'static, str>,
    pub message: Option<String>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, error: Cow::Borrowed(code), message: Some(message.into()) }
    }

    /// `{"error":"<free text>"}`, without a short code.
    pub fn free_text(status: StatusCode, text: &'static str) -> Self {
        ApiError { status, error: Cow::Borrowed(text), message: None }
    }

    pub fn unauthorized() -> Self {
        ApiError { status: StatusCode::UNAUTHORIZED, error: Cow::Borrowed("unauthorized"), message: None }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_request", message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = match self.message {
            Some(message) => json!({ "error": self.error, "message": message }),
            None => json!({ "error": self.error }),
        };
        (self.status, Json(body)).into_response()
    }
}

/// JSON 404 for any path no route answers (under `/api`, and everywhere without `--dist`).
pub async fn unknown_endpoint(OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError::not_found(format!("No endpoint at {}", uri.path()))
}

/// JSON 405 for a known path asked with another method.
pub async fn method_not_allowed(method: Method, OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not allowed on {}", uri.path()),
    )
}

/// Parses a JSON request body, answering `400 invalid_request` when it is not.
pub fn parse_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::invalid(format!("The body is not valid JSON of the expected shape: {e}")))
}
