//! A page whose code arrives on first visit: shown at once when it is here, a note while it
//! is on its way, and a failed fetch explained with a Retry that fetches again; and the
//! page's own stylesheet, off until the page is first shown.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{mount, settle, sleep, text};
use leptos::prelude::*;
use reservations_console::browser::ChunkUnavailable;
use reservations_console::components::lazy_page::{lazy, lazy_within, page_style};
use std::cell::RefCell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn the_page() -> AnyView {
    view! { <h1>"Nodes of reservation #12"</h1> }.into_any()
}

async fn build_the_page() -> Result<AnyView, ChunkUnavailable> {
    Ok(the_page())
}

async fn code_already_here() -> Result<(), ChunkUnavailable> {
    Ok(())
}

#[wasm_bindgen_test]
async fn a_page_whose_code_is_here_renders_without_a_loading_note() {
    let host = mount(|| lazy(code_already_here, build_the_page));
    assert_eq!(text(&host), "Nodes of reservation #12");
    settle().await;
    assert_eq!(text(&host), "Nodes of reservation #12");
}

thread_local! {
    /// Resolves the pending fetch of `code_on_its_way`.
    static ARRIVE: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

async fn code_on_its_way() -> Result<(), ChunkUnavailable> {
    let arrival = js_sys::Promise::new(&mut |resolve, _| ARRIVE.with(|slot| *slot.borrow_mut() = Some(resolve)));
    JsFuture::from(arrival).await.unwrap();
    Ok(())
}

#[wasm_bindgen_test]
async fn while_the_code_is_on_its_way_a_note_says_the_page_is_loading() {
    let host = mount(|| lazy(code_on_its_way, build_the_page));
    settle().await;
    assert_eq!(text(&host), "Loading the page…");
    assert!(host.query_selector("[role=status]").unwrap().is_some());

    ARRIVE.with(|slot| slot.borrow_mut().take().expect("the fetch is pending").call0(&JsValue::NULL).unwrap());
    settle().await;
    assert_eq!(text(&host), "Nodes of reservation #12");
}

static FETCHES: AtomicU32 = AtomicU32::new(0);

/// Fails the first time, as a dropped connection would, then succeeds.
async fn code_lost_once() -> Result<(), ChunkUnavailable> {
    if FETCHES.fetch_add(1, Ordering::SeqCst) == 0 {
        Err(ChunkUnavailable)
    } else {
        Ok(())
    }
}

#[wasm_bindgen_test]
async fn a_failed_fetch_is_explained_and_retry_fetches_the_code_again() {
    let host = mount(|| lazy(code_lost_once, build_the_page));
    settle().await;
    let alert = host.query_selector("[role=alert]").unwrap().expect("the failure is announced");
    let explained = alert.text_content().unwrap();
    assert!(explained.contains("This page could not be loaded"), "{explained}");
    assert!(explained.contains("reload the tab"), "{explained}");
    assert_eq!(FETCHES.load(Ordering::SeqCst), 1);

    let retry: web_sys::HtmlElement = alert.query_selector("button").unwrap().expect("a Retry").unchecked_into();
    retry.click();
    settle().await;
    assert_eq!(FETCHES.load(Ordering::SeqCst), 2);
    assert_eq!(text(&host), "Nodes of reservation #12");
}

static STALLED_FETCHES: AtomicU32 = AtomicU32::new(0);

/// Never answers the first time, as a stalled connection would, then succeeds.
async fn code_stalled_once() -> Result<(), ChunkUnavailable> {
    if STALLED_FETCHES.fetch_add(1, Ordering::SeqCst) == 0 {
        std::future::pending().await
    } else {
        Ok(())
    }
}

#[wasm_bindgen_test]
async fn a_fetch_that_never_answers_fails_after_its_timeout_with_a_retry() {
    let host = mount(|| lazy_within(std::time::Duration::from_millis(50), code_stalled_once, build_the_page));
    settle().await;
    assert_eq!(text(&host), "Loading the page…");
    sleep(150).await;
    let alert = host.query_selector("[role=alert]").unwrap().expect("a stalled fetch is a failure in the end");
    assert!(alert.text_content().unwrap().contains("This page could not be loaded"));

    let retry: web_sys::HtmlElement = alert.query_selector("button").unwrap().expect("a Retry").unchecked_into();
    retry.click();
    settle().await;
    assert_eq!(STALLED_FETCHES.load(Ordering::SeqCst), 2);
    assert_eq!(text(&host), "Nodes of reservation #12");
}

static CLEANED_UP: AtomicBool = AtomicBool::new(false);

async fn build_a_page_that_notes_its_cleanup() -> Result<AnyView, ChunkUnavailable> {
    on_cleanup(|| CLEANED_UP.store(true, Ordering::SeqCst));
    Ok(the_page())
}

/// The page belongs to the route that shows it: leaving the route disposes the page (its
/// signals, effects and polling) at once, as for any page built directly.
#[wasm_bindgen_test]
async fn leaving_the_route_disposes_the_page_it_built() {
    let shown = RwSignal::new(true);
    let host = mount(move || {
        move || {
            if shown.get() {
                lazy(code_already_here, build_a_page_that_notes_its_cleanup).into_any()
            } else {
                "Connect".into_any()
            }
        }
    });
    assert_eq!(text(&host), "Nodes of reservation #12");
    assert!(!CLEANED_UP.load(Ordering::SeqCst));
    shown.set(false);
    settle().await;
    assert_eq!(text(&host), "Connect");
    assert!(CLEANED_UP.load(Ordering::SeqCst), "the page's owner went with the route");
}

/// A `<link rel=stylesheet id=… disabled>` in the head, as index.html ships a page's own
/// stylesheet; and an element whose width shows whether its rule applies.
fn page_stylesheet(id: &str, href: &str) -> (web_sys::HtmlLinkElement, web_sys::HtmlElement) {
    let document = web_sys::window().unwrap().document().unwrap();
    let link: web_sys::HtmlLinkElement = document.create_element("link").unwrap().unchecked_into();
    link.set_rel("stylesheet");
    link.set_id(id);
    link.set_href(href);
    link.set_disabled(true);
    document.head().unwrap().append_child(&link).unwrap();
    let probe: web_sys::HtmlElement = document.create_element("div").unwrap().unchecked_into();
    probe.set_id(&format!("{id}-probe"));
    probe.style().set_property("display", "block").unwrap();
    document.body().unwrap().append_child(&probe).unwrap();
    (link, probe)
}

fn width(element: &web_sys::HtmlElement) -> String {
    let style = web_sys::window().unwrap().get_computed_style(element).unwrap().unwrap();
    style.get_property_value("width").unwrap()
}

#[wasm_bindgen_test]
async fn a_pages_stylesheet_is_off_until_the_page_turns_it_on_and_waits_for_it() {
    let (link, probe) = page_stylesheet("style-on", "data:text/css,%23style-on-probe%7Bwidth:7px%7D");
    settle().await;
    assert!(link.sheet().is_none(), "a disabled stylesheet is not fetched");
    assert_ne!(width(&probe), "7px");

    page_style(&["style-on"]).await.expect("the stylesheet loads");
    assert_eq!(width(&probe), "7px", "its rules apply once the wait is over");
    // Shown again: already applied, so ready at once (no loading note on the way back).
    let again = std::pin::pin!(page_style(&["style-on"]));
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(again.poll(&mut context).is_ready());
}

#[wasm_bindgen_test]
async fn a_stylesheet_that_failed_is_an_error_and_the_next_try_fetches_it_afresh() {
    let (link, probe) = page_stylesheet("style-lost", "/no-such-stylesheet.css");
    assert_eq!(page_style(&["style-lost"]).await, Err(ChunkUnavailable));

    // The release is fixed (here: the address), and Retry asks again.
    link.set_href("data:text/css,%23style-lost-probe%7Bwidth:9px%7D");
    page_style(&["style-lost"]).await.expect("fetched anew");
    assert_eq!(width(&probe), "9px");
    let document = web_sys::window().unwrap().document().unwrap();
    assert_eq!(document.query_selector_all("#style-lost").unwrap().length(), 1, "one link, not two");
}

#[wasm_bindgen_test]
async fn a_page_without_its_stylesheet_in_the_document_waits_for_nothing() {
    let none = std::pin::pin!(page_style(&["style-absent"]));
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(matches!(none.poll(&mut context), std::task::Poll::Ready(Ok(()))));
}
