//! A page whose code arrives on first visit: shown at once when it is here, a note while it
//! is on its way, and a failed fetch explained with a Retry that fetches again.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{mount, settle, text};
use leptos::prelude::*;
use reservations_console::components::lazy_page::{lazy, ChunkUnavailable};
use std::cell::RefCell;
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
    let arrival = js_sys::Promise::new(&mut |resolve, _| {
        ARRIVE.with(|slot| *slot.borrow_mut() = Some(resolve))
    });
    JsFuture::from(arrival).await.unwrap();
    Ok(())
}

#[wasm_bindgen_test]
async fn while_the_code_is_on_its_way_a_note_says_the_page_is_loading() {
    let host = mount(|| lazy(code_on_its_way, build_the_page));
    settle().await;
    assert_eq!(text(&host), "Loading the page…");
    assert!(host.query_selector("[role=status]").unwrap().is_some());

    ARRIVE.with(|slot| {
        slot.borrow_mut()
            .take()
            .expect("the fetch is pending")
            .call0(&JsValue::NULL)
            .unwrap()
    });
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
    let alert = host
        .query_selector("[role=alert]")
        .unwrap()
        .expect("the failure is announced");
    let explained = alert.text_content().unwrap();
    assert!(
        explained.contains("This page could not be loaded"),
        "{explained}"
    );
    assert!(explained.contains("reload the tab"), "{explained}");
    assert_eq!(FETCHES.load(Ordering::SeqCst), 1);

    let retry: web_sys::HtmlElement = alert
        .query_selector("button")
        .unwrap()
        .expect("a Retry")
        .unchecked_into();
    retry.click();
    settle().await;
    assert_eq!(FETCHES.load(Ordering::SeqCst), 2);
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
