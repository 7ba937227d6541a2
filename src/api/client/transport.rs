//! How one request travels: built, sent within its page's policy and timeout, its body
//! read up to the limit, and aborted when its page or session ends.

use crate::api::assumptions::{CHANGE_TIMEOUT, MAX_BODY_BYTES, REQUEST_TIMEOUT};
use crate::api::error::{ApiError, ResponseHeaders};
use chrono::Utc;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};

use super::{declared_too_large, decode, unread, Api, Connection};

#[derive(Clone, Copy)]
pub(super) enum Method {
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
pub(super) async fn send<B: Serialize + ?Sized, T: DeserializeOwned>(
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
pub(super) async fn answered<T>(
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
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) headers: ResponseHeaders,
    pub(super) text: String,
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
        (Method::Get, None) => crate::api::first_read::take(&url, &authorization, &timer.signal()),
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
            Ok(None) => unread(status, &headers, crate::api::limits::body_past_limit(), Utc::now()),
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
pub(super) fn page_policy_refusal(url: &str) -> Option<String> {
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
pub(super) fn policy_refusal(policy: &str, page_origin: &str, url: &str) -> Option<String> {
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
