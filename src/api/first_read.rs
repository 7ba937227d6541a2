//! The first read of a page opened at its own address (a reload, a bookmark, a link from
//! elsewhere) is sent by `index.html`'s inline script while the console's code is still on
//! its way: on a slow link the code is most of a first visit's wait, and the read then
//! arrives beside it rather than after it. The script sends the very request the page
//! would (GET, the same URL, the key kept for the tab); the console's first request for that
//! URL and key takes its answer, once, and only while it is fresh (a second after it came).

use wasm_bindgen::{JsCast, JsValue};

/// The object the inline script leaves on `window` until its answer is taken or dropped.
pub const GLOBAL: &str = "__firstRead";

/// The answer of the read sent ahead for `url` with `authorization`, if there is one to
/// take; aborting `signal` aborts it as it would the console's own request.
pub fn take(url: &str, authorization: &str, signal: &web_sys::AbortSignal) -> Option<js_sys::Promise> {
    let first = js_sys::Reflect::get(&web_sys::window()?.into(), &JsValue::from_str(GLOBAL)).ok()?;
    if first.is_undefined() {
        return None;
    }
    let take: js_sys::Function = js_sys::Reflect::get(&first, &JsValue::from_str("take")).ok()?.dyn_into().ok()?;
    take.call3(&first, &JsValue::from_str(url), &JsValue::from_str(authorization), signal).ok()?.dyn_into().ok()
}
