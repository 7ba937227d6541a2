//! A page's first read, sent ahead by `index.html`'s inline script: for a page opened at
//! its own address (a reload, a bookmark, a link from elsewhere) while the console's code
//! is still on its way, and for a page opened in the console while the page's own code is
//! ([`send_ahead`]). On a slow link, or for a large reservation, the code is most of the
//! wait, and the read then arrives beside it rather than after it. The script sends the
//! very request the page would (GET, the same URL, the key); the console's first request for
//! that URL and key takes its answer, once, and only while it is fresh (a second after it
//! came). Sent as raw text and decoded by the page that takes it, so the first load does not
//! carry the decoding of every page's first read.

use wasm_bindgen::{JsCast, JsValue};

/// The script's function that hands over the answer of a read sent ahead. The read itself,
/// its key with it, stays inside the script: no global holds the key while it waits.
pub const TAKE: &str = "__takeFirstRead";

/// The script's function that sends a read ahead.
pub const SEND_AHEAD: &str = "__sendAhead";

/// Sends `GET url` with `authorization` now, for the console's next request of that URL and
/// key to take. Nothing is sent where the script is not on the page (a test's page): the
/// page then reads for itself, as it would anyway.
pub fn send_ahead(url: &str, authorization: &str) {
    let Some(window) = web_sys::window() else { return };
    let send = js_sys::Reflect::get(&window.into(), &JsValue::from_str(SEND_AHEAD)).ok();
    if let Some(send) = send.and_then(|f| f.dyn_into::<js_sys::Function>().ok()) {
        let _ = send.call2(&JsValue::NULL, &JsValue::from_str(url), &JsValue::from_str(authorization));
    }
}

/// The answer of the read sent ahead for `url` with `authorization`, if there is one to
/// take; aborting `signal` aborts it as it would the console's own request.
pub fn take(url: &str, authorization: &str, signal: &web_sys::AbortSignal) -> Option<js_sys::Promise> {
    let take = js_sys::Reflect::get(&web_sys::window()?.into(), &JsValue::from_str(TAKE)).ok()?;
    let take: js_sys::Function = take.dyn_into().ok()?;
    take.call3(&JsValue::NULL, &JsValue::from_str(url), &JsValue::from_str(authorization), signal).ok()?.dyn_into().ok()
}
