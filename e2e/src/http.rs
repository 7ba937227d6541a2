//! A tiny HTTP/1 client for loopback only (chromedriver's status, the simulator's test
//! hooks and its static files): plain `hyper`, which fantoccini already brings.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{HeaderMap, CONTENT_TYPE};
use hyper::{Method, Request};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// A whole response, read to its end.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The body as JSON; panics naming the URL when it isn't.
    pub fn json(&self, url: &str) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "{url} answered {} with a body that is not JSON ({error}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// Sends one request; `body`, when given, goes as JSON. An `Err` means no answer at all
/// (nothing listening, connection dropped).
pub async fn send(method: Method, url: &str, body: Option<&Value>) -> Result<Response, String> {
    send_with(method, url, body, &[]).await
}

/// [`send`] with extra request headers (the simulator's hook header).
pub async fn send_with(
    method: Method,
    url: &str,
    body: Option<&Value>,
    headers: &[(&str, &str)],
) -> Result<Response, String> {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let mut request = Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let payload = match body {
        Some(json) => {
            request = request.header(CONTENT_TYPE, "application/json");
            Bytes::from(json.to_string())
        }
        None => Bytes::new(),
    };
    let request = request.body(Full::new(payload)).map_err(|error| format!("{url}: {error}"))?;
    let response = client.request(request).await.map_err(|error| format!("{url}: {error}"))?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body =
        response.into_body().collect().await.map_err(|error| format!("{url}: reading the body: {error}"))?.to_bytes();
    Ok(Response { status, headers, body })
}

pub async fn get(url: &str) -> Result<Response, String> {
    send(Method::GET, url, None).await
}
