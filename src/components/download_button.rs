//! Saves text built in the browser as a file, a CSV or a calendar (a Blob download: nothing
//! is sent anywhere).

use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsCast;

/// What a download holds, which names its media type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FileKind {
    #[default]
    Csv,
    /// An iCalendar file (RFC 5545), which calendar apps import.
    Calendar,
}

impl FileKind {
    fn media_type(self) -> &'static str {
        match self {
            FileKind::Csv => "text/csv;charset=utf-8",
            FileKind::Calendar => "text/calendar;charset=utf-8",
        }
    }
}

/// Starts the download of `contents` as `filename`. Fails only if the browser refuses a
/// Blob or an element, which the button then reports.
fn download(filename: &str, kind: FileKind, contents: &str) -> Result<(), wasm_bindgen::JsValue> {
    let parts = js_sys::Array::of1(&contents.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(kind.media_type());
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
pub fn DownloadButton(
    /// What the button says, e.g. "Download charges (CSV)".
    label: &'static str,
    filename: String,
    /// A CSV unless said.
    #[prop(optional)]
    kind: FileKind,
    /// Builds the file when clicked, from what is on screen then.
    contents: Callback<(), String>,
) -> impl IntoView {
    let failed = RwSignal::new(false);
    let on_click = move |_| failed.set(download(&filename, kind, &contents.run(())).is_err());
    view! {
        <button type="button" class="button button-secondary" on:click=on_click>
            {label}
        </button>
        {move || failed.get().then_some(view! {
            <span class="tone-text-danger" role="status">"The browser refused the download."</span>
        })}
    }
}
