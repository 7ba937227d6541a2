//! Saves text built in the browser as a CSV file (a Blob download: nothing is sent anywhere).

use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsCast;

/// Starts the download of `contents` as `filename`. Fails only if the browser refuses a
/// Blob or an element, which the button then reports.
fn download(filename: &str, contents: &str) -> Result<(), wasm_bindgen::JsValue> {
    let parts = js_sys::Array::of1(&contents.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/csv;charset=utf-8");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    link.set_href(&url);
    link.set_download(filename);
    link.click();
    // Some browsers read the URL after `click` returns: free it a little later.
    set_timeout(move || drop(web_sys::Url::revoke_object_url(&url)), Duration::from_secs(5));
    Ok(())
}

#[component]
pub fn CsvButton(
    /// What the button says, e.g. "Download charges (CSV)".
    label: &'static str,
    filename: String,
    /// Builds the file when clicked, from what is on screen then.
    contents: Callback<(), String>,
) -> impl IntoView {
    let failed = RwSignal::new(false);
    let on_click = move |_| failed.set(download(&filename, &contents.run(())).is_err());
    view! {
        <button type="button" class="button button-secondary" on:click=on_click>
            {label}
        </button>
        {move || failed.get().then_some(view! {
            <span class="tone-text-danger" role="status">"The browser refused the download."</span>
        })}
    }
}
