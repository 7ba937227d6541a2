//! "Copy summary": a page's figures (`domain::exports::summary`) put on the clipboard as Markdown or
//! plain text, to paste into a chat or a ticket. The owner may tick "include amounts" where
//! the page shows money; a member's copy never holds any. When the browser refuses (no
//! clipboard on an address that is not https, permission denied), it says so beside the button.

use crate::domain::exports::summary::{Format, Summary};
use crate::state::{use_connection, Role};
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

/// `navigator.clipboard.writeText(text)`, looked up by name as `notify.rs` looks up
/// notifications: no binding joins the first load's glue, and a browser without a clipboard
/// is told apart from one that refuses. `Err`: why, in the browser's words where it gave some.
async fn write_to_clipboard(text: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let navigator = js_sys::Reflect::get(&window, &"navigator".into()).map_err(reason)?;
    let clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into()).map_err(reason)?;
    if clipboard.is_undefined() || clipboard.is_null() {
        return Err("this page may not use the clipboard (it needs an https address)".to_owned());
    }
    let write: js_sys::Function = js_sys::Reflect::get(&clipboard, &"writeText".into())
        .map_err(reason)?
        .dyn_into()
        .map_err(|_| "this browser cannot write text to the clipboard".to_owned())?;
    let promise: js_sys::Promise = write.call1(&clipboard, &text.into()).map_err(reason)?.unchecked_into();
    wasm_bindgen_futures::JsFuture::from(promise).await.map(drop).map_err(reason)
}

/// The browser's message of a failure (a `DOMException`'s or an `Error`'s), or its text.
fn reason(error: JsValue) -> String {
    js_sys::Reflect::get(&error, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| error.as_string())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "it gave no reason".to_owned())
}

/// Where the console is served ("https://console.example"), before the page's own path.
fn origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

/// The button and its choices. `summary` builds the copy when clicked, from what the page
/// shows then, with amounts when `true` (only ever asked for an owner's key). `money`: the
/// page shows money, so the owner is offered "include amounts".
#[component]
pub fn CopySummary(summary: Callback<bool, Summary>, #[prop(optional)] money: bool) -> impl IntoView {
    let state = use_connection();
    let plain = RwSignal::new(false);
    let amounts = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Result<(), String>>);
    let on_click = move |_| {
        let with_amounts = money && amounts.get_untracked() && state.role() == Role::Owner;
        let format = if plain.get_untracked() { Format::Plain } else { Format::Markdown };
        let text = summary.run(with_amounts).render(format, &origin());
        outcome.set(None);
        leptos::task::spawn_local(async move { outcome.set(Some(write_to_clipboard(&text).await)) });
    };
    view! {
        <span class="copy-summary">
            <button type="button" class="button button-secondary" on:click=on_click>"Copy summary"</button>
            <label class="copy-choice"><input type="checkbox" bind:checked=plain/>" as plain text"</label>
            {move || (money && state.role() == Role::Owner).then(|| view! {
                <label class="copy-choice"><input type="checkbox" bind:checked=amounts/>" include amounts"</label>
            })}
            <span class="copy-outcome" role="status">
                {move || match outcome.get() {
                    None => ().into_any(),
                    Some(Ok(())) => view! { <span class="muted">"Copied."</span> }.into_any(),
                    Some(Err(why)) => view! {
                        <span class="tone-text-danger">{format!("The browser refused to copy: {}.", why.trim_end_matches('.'))}</span>
                    }
                    .into_any(),
                }}
            </span>
        </span>
    }
}
