//! Pages whose code arrives on first visit.
//!
//! The release build (`cargo xtask dist`) compiles with `--cfg split_pages` and runs
//! wasm-split on the result, so every page declared with [`lazy_page!`] becomes a wasm
//! chunk of its own and the first load carries only the shell and Connect.
//! Everywhere else (the tests, `trunk serve`) the same declaration is
//! a plain call, so a page behaves the same with or without the split.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::browser::{poll_once, ChunkUnavailable};
use crate::reads::generation::Generation;

use leptos::prelude::*;

/// How long a page's code and stylesheet may take before the fetch counts as failed and a
/// Retry is offered: a connection that stalls must not leave "Loading the page…" forever.
/// A chunk is tens of kilobytes; 20 s is long even on a slow mobile link.
pub const PAGE_LOAD_TIMEOUT: Duration = Duration::from_secs(20);

/// `lazy_page!(chunk, Page)` declares the module `chunk` with `preload()`, which fetches
/// `Page`'s code, and `load()`, which builds the page once it is here: the split point
/// `chunk` in the release build, direct calls otherwise. A failed fetch is an `Err`, never
/// a panic (which would abort the whole app). `lazy_page!(chunk, Page, style = "id")`
/// also turns on the page's stylesheet, `<link id="id">` ([`page_style`]), and waits for it.
macro_rules! lazy_page {
    ($chunk:ident, $page:ident $(, style = $style:literal)?) => {
        mod $chunk {
            use super::$page;
            use ::leptos::prelude::{AnyView, IntoAny};
            use $crate::browser::ChunkUnavailable;
            use $crate::components::lazy_page::page_style;

            #[cfg(split_pages)]
            #[wasm_split_helpers::wasm_split($chunk, fallible, preload(code))]
            pub fn load() -> Result<AnyView, ChunkUnavailable> {
                Ok($page().into_any())
            }

            #[cfg(not(split_pages))]
            async fn code() -> Result<(), ChunkUnavailable> {
                Ok(())
            }

            #[cfg(not(split_pages))]
            pub async fn load() -> Result<AnyView, ChunkUnavailable> {
                Ok($page().into_any())
            }

            /// The code and the stylesheet, fetched side by side.
            pub fn preload() -> impl ::std::future::Future<Output = Result<(), ChunkUnavailable>> {
                let styled = page_style(&[$($style)?]);
                async move {
                    code().await?;
                    styled.await
                }
            }
        }
    };
}
pub(crate) use lazy_page;

/// The page `load` builds once `preload` has its code (every visit after the first, it
/// is already here and the page renders in the same pass). The page is built the way any
/// route builds its view, inside the route's reactive owner, so it is disposed with it.
/// Until the code is here a note says the page is loading; a failed fetch is explained
/// with a Retry, and the header and every other page keep working.
pub fn lazy<P, E, L>(preload: fn() -> P, load: fn() -> L) -> AnyView
where
    P: Future<Output = Result<(), E>> + 'static,
    E: Into<ChunkUnavailable>,
    L: Future<Output = Result<AnyView, ChunkUnavailable>> + 'static,
{
    lazy_within(PAGE_LOAD_TIMEOUT, preload, load)
}

/// A fetch or a build under way, whichever page it is for.
type Pending<T> = Pin<Box<dyn Future<Output = Result<T, ChunkUnavailable>>>>;

/// [`lazy`], a fetch still under way after `timeout` failing with a Retry. A late answer
/// of an earlier attempt is taken only if it brings the code (never a late failure over
/// the attempt the Retry started).
///
/// Generic only in this thin shell: the loading itself is compiled once, not once per
/// page, which kept seven copies of it (and of [`ChunkFailed`]) in the first load.
pub fn lazy_within<P, E, L>(timeout: Duration, preload: fn() -> P, load: fn() -> L) -> AnyView
where
    P: Future<Output = Result<(), E>> + 'static,
    E: Into<ChunkUnavailable>,
    L: Future<Output = Result<AnyView, ChunkUnavailable>> + 'static,
{
    let preload = move || -> Pending<()> { Box::pin(async move { preload().await.map_err(Into::into) }) };
    let load = move || -> Pending<AnyView> { Box::pin(load()) };
    loading(timeout, Arc::new(preload), Arc::new(load))
}

fn loading(
    timeout: Duration,
    preload: Arc<dyn Fn() -> Pending<()> + Send + Sync>,
    load: Arc<dyn Fn() -> Pending<AnyView> + Send + Sync>,
) -> AnyView {
    let fetched = RwSignal::new(None::<Result<(), ChunkUnavailable>>);
    let attempts = Generation::default();
    let fetch = move || match poll_once(preload()) {
        Ok(done) => fetched.set(Some(done)),
        Err(fetching) => {
            fetched.set(None);
            let attempt = attempts.next();
            let timer = set_timeout_with_handle(
                move || {
                    if attempt.current() && fetched.try_get_untracked().flatten().is_none() {
                        let _ = fetched.try_set(Some(Err(ChunkUnavailable)));
                    }
                },
                timeout,
            )
            .ok();
            leptos::task::spawn_local(async move {
                let done = fetching.await;
                if let Some(timer) = timer {
                    timer.clear();
                }
                // The page may have been left while its code was on its way.
                if done.is_ok() || attempt.current() {
                    let _ = fetched.try_set(Some(done));
                }
            });
        }
    };
    fetch();
    let retry = Callback::new(move |()| fetch());
    (move || match fetched.get() {
        // Loaded: the page's own future is ready at its first poll.
        Some(Ok(())) => match poll_once(load()) {
            Ok(Ok(page)) => page,
            Ok(Err(ChunkUnavailable)) | Err(_) => view! { <ChunkFailed retry/> }.into_any(),
        },
        Some(Err(ChunkUnavailable)) => view! { <ChunkFailed retry/> }.into_any(),
        None => view! { <p class="panel-note" role="status">"Loading the page…"</p> }.into_any(),
    })
    .into_any()
}

/// Turns on the stylesheets `<link id=…>` named by `ids`, and resolves once they apply.
///
/// index.html ships a page's own stylesheet `disabled`, which browsers do not fetch, so the
/// first load carries only the shell's and the list's styles. Enabling starts the fetch
/// now, beside the page's code; the page is shown once both are here, never unstyled. A
/// stylesheet that failed before is replaced by a fresh `<link>`, so Retry fetches it
/// again. An id with no such link (a test page) has nothing to wait for.
pub fn page_style(ids: &[&str]) -> impl Future<Output = Result<(), ChunkUnavailable>> {
    let pending: Vec<js_sys::Promise> = ids.iter().filter_map(|id| enable_style(id)).collect();
    async move {
        for applied in pending {
            wasm_bindgen_futures::JsFuture::from(applied).await.map_err(|_| ChunkUnavailable)?;
        }
        Ok(())
    }
}

/// Enables one stylesheet: `None` once it applies, else a promise of its `load` (or
/// rejection on `error`).
fn enable_style(id: &str) -> Option<js_sys::Promise> {
    use wasm_bindgen::JsCast;
    let document = web_sys::window()?.document()?;
    let link: web_sys::HtmlLinkElement = document.get_element_by_id(id)?.dyn_into().ok()?;
    if link.sheet().is_some() {
        return None;
    }
    // Enabled without a sheet: a fetch failed (or is under way). A new element fetches anew.
    let link = if link.disabled() {
        link
    } else {
        let fresh: web_sys::HtmlLinkElement = link.clone_node().ok()?.dyn_into().ok()?;
        fresh.set_disabled(true);
        link.replace_with_with_node_1(&fresh).ok()?;
        fresh
    };
    let applied = js_sys::Promise::new(&mut |resolve, reject| {
        let _ = link.add_event_listener_with_callback("load", &resolve);
        let _ = link.add_event_listener_with_callback("error", &reject);
    });
    link.set_disabled(false);
    Some(applied)
}

#[component]
fn ChunkFailed(retry: Callback<()>) -> impl IntoView {
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
            <button type="button" class="button" on:click=move |_| retry.run(())>
                "Retry"
            </button>
        </section>
    }
}
