//! Pages whose code arrives on first visit.
//!
//! The release build (`cargo xtask dist`) compiles with `--cfg split_pages` and runs
//! wasm-split on the result, so every page declared with [`lazy_page!`] becomes a wasm
//! chunk of its own and the first load carries only the shell, Connect and the
//! reservations list. Everywhere else (the tests, `trunk serve`) the same declaration is
//! a plain call, so a page behaves the same with or without the split.

use std::future::Future;

use leptos::prelude::*;
use send_wrapper::SendWrapper;

/// A page's code could not be fetched: the network dropped, or a new release replaced
/// the files this tab was started from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkUnavailable;

#[cfg(split_pages)]
impl From<wasm_split_helpers::SplitLoaderError> for ChunkUnavailable {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> Self {
        ChunkUnavailable
    }
}

/// `lazy_page!(load, chunk, Page)` declares `async fn load()`, which yields `Page`'s view
/// once its code is here: the split point `chunk` in the release build, a direct call
/// otherwise. A failed fetch is an `Err`, never a panic (which would abort the whole app).
macro_rules! lazy_page {
    ($load:ident, $chunk:ident, $page:path) => {
        #[cfg(split_pages)]
        #[wasm_split_helpers::wasm_split($chunk, fallible)]
        fn $load() -> Result<
            ::leptos::prelude::AnyView,
            $crate::components::lazy_page::ChunkUnavailable,
        > {
            Ok(::leptos::prelude::IntoAny::into_any($page()))
        }

        #[cfg(not(split_pages))]
        async fn $load() -> Result<
            ::leptos::prelude::AnyView,
            $crate::components::lazy_page::ChunkUnavailable,
        > {
            Ok(::leptos::prelude::IntoAny::into_any($page()))
        }
    };
}
pub(crate) use lazy_page;

/// The page `load` yields. Once its chunk is here (every visit after the first) the page
/// renders in the same frame; until then the previous content is gone and a note says
/// what is loading. A failed fetch is explained with a Retry, and the header and every
/// other page keep working.
pub fn lazy<Fut>(load: fn() -> Fut) -> impl IntoView
where
    Fut: Future<Output = Result<AnyView, ChunkUnavailable>> + 'static,
{
    let attempt = RwSignal::new(0u32);
    move || {
        attempt.track();
        // The chunk loader is single-threaded wasm state; Suspend asks for Send only
        // because it also serves multi-threaded servers.
        let page = SendWrapper::new(async move {
            match load().await {
                Ok(page) => page,
                Err(ChunkUnavailable) => view! { <ChunkFailed attempt/> }.into_any(),
            }
        });
        view! {
            <Suspense fallback=|| view! { <p class="panel-note" role="status">"Loading the page…"</p> }>
                {Suspend::new(page)}
            </Suspense>
        }
    }
}

#[component]
fn ChunkFailed(attempt: RwSignal<u32>) -> impl IntoView {
    view! {
        <section class="error-panel" role="alert">
            <h2 class="error-title">"This page could not be loaded"</h2>
            <p>
                "The console fetches each page's code on its first visit, and that fetch failed: "
                "the network may be down, or a new release of the console replaced the files this "
                "tab started from."
            </p>
            <p class="error-remedy">
                <strong>"What to do: "</strong>
                "Retry. If it keeps failing, reload the tab to start the newest release."
            </p>
            <button type="button" class="button" on:click=move |_| attempt.update(|n| *n += 1)>
                "Retry"
            </button>
        </section>
    }
}
