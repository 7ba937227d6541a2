//! The router in a real page: the app's links change the page without a document load,
//! back and forward follow the history, and in-page anchors stay the browser's.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{first_text, settle, sleep, until, HostAt, MutationObserver};
use leptos::prelude::*;
use reservations_console::router::{use_location, NavLink, Router};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Shows the route and the query the router holds, with links to click.
#[component]
fn Probe() -> impl IntoView {
    let location = use_location();
    view! {
        <p class="route">{move || format!("{:?}", location.route().get())}</p>
        <p class="query">{move || location.query().get()}</p>
        <a class="to-org" href="/orgs/org_x?tz=utc">"org"</a>
        <a class="to-anchor" href="#section">"anchor"</a>
        <nav><NavLink href="/orgs">"Orgs"</NavLink><NavLink href="/reservations">"Reservations"</NavLink></nav>
    }
}

/// Runs `test` from `start`, then puts the runner's own address back.
async fn at<F: std::future::Future<Output = ()>>(start: &str, test: impl FnOnce(web_sys::HtmlElement) -> F) {
    let at = HostAt::new(start);
    // Unmounted at the end, so that its listeners leave with it.
    let mounted = leptos::mount::mount_to(at.host.clone(), || view! { <Router><Probe/></Router> });
    settle().await;
    test(at.host.clone()).await;
    drop(mounted);
}

fn click(host: &web_sys::HtmlElement, selector: &str) {
    host.query_selector(selector).unwrap().expect(selector).unchecked_into::<web_sys::HtmlElement>().click();
}

#[wasm_bindgen_test]
async fn a_click_on_an_app_link_changes_the_page_without_loading_a_document() {
    at("/reservations", |host| async move {
        assert_eq!(first_text(&host, ".route"), "Reservations");
        // A document load would drop this mark along with the test.
        js_sys::Reflect::set(&js_sys::global(), &"routerMark".into(), &JsValue::TRUE).unwrap();
        click(&host, ".to-org");
        settle().await;
        assert_eq!(first_text(&host, ".route"), r#"Org("org_x")"#);
        assert_eq!(first_text(&host, ".query"), "?tz=utc");
        let address = web_sys::window().unwrap().location();
        assert_eq!(address.pathname().unwrap(), "/orgs/org_x");
        assert_eq!(js_sys::Reflect::get(&js_sys::global(), &"routerMark".into()).unwrap(), JsValue::TRUE);
    })
    .await;
}

#[wasm_bindgen_test]
async fn back_returns_to_the_page_before_and_forward_comes_back() {
    at("/reservations", |host| async move {
        click(&host, ".to-org");
        settle().await;
        let history = web_sys::window().unwrap().history().unwrap();
        history.back().unwrap();
        until("Reservations".to_owned(), || first_text(&host, ".route")).await;
        assert_eq!(first_text(&host, ".query"), "");
        history.forward().unwrap();
        until(r#"Org("org_x")"#.to_owned(), || first_text(&host, ".route")).await;
    })
    .await;
}

#[wasm_bindgen_test]
async fn an_in_page_anchor_is_left_to_the_browser() {
    at("/reservations?status=active", |host| async move {
        click(&host, ".to-anchor");
        let address = web_sys::window().unwrap().location();
        // The browser's own fragment navigation (Firefox's comes a task later).
        until("#section".to_owned(), || address.hash().unwrap()).await;
        assert_eq!(address.search().unwrap(), "?status=active");
        assert_eq!(first_text(&host, ".route"), "Reservations");
    })
    .await;
}

#[wasm_bindgen_test]
async fn the_main_navigation_marks_the_section_the_page_is_in() {
    at("/orgs/org_x", |host| async move {
        let current = |href: &str| {
            host.query_selector(&format!("nav a[href='{href}']")).unwrap().unwrap().get_attribute("aria-current")
        };
        assert_eq!(current("/orgs").as_deref(), Some("page"));
        assert_eq!(current("/reservations"), None);
    })
    .await;
}

/// The app starts in three tasks, not one long one (V8 compiles each function at its first
/// call, on the page's thread): its frame, then its header in a task of its own, then the
/// page in the next.
#[wasm_bindgen_test]
async fn the_app_draws_its_header_and_then_its_page_each_in_a_task_of_its_own() {
    let at = HostAt::new("/");
    let host = at.host.clone();
    // (header drawn, page drawn), as the host shows them now.
    let drawn = {
        let host = host.clone();
        move || {
            let main = host.query_selector("main").unwrap();
            (
                host.query_selector("header.app-header").unwrap().is_some(),
                main.is_some_and(|main| main.first_element_child().is_some()),
            )
        }
    };
    // What the host shows at the end of each task that changed it.
    let seen = Rc::new(RefCell::new(Vec::new()));
    let callback = {
        let (seen, drawn) = (Rc::clone(&seen), drawn.clone());
        Closure::<dyn FnMut()>::new(move || seen.borrow_mut().push(drawn()))
    };
    let observer = MutationObserver::new(callback.as_ref().unchecked_ref());
    observer.observe(&host, &js_sys::JSON::parse(r#"{"subtree":true,"childList":true}"#).unwrap());
    let mounted = leptos::mount::mount_to(host.clone(), reservations_console::App);
    let at_mount = drawn();
    sleep(50).await;
    settle().await;
    observer.disconnect();
    drop(mounted);
    drop(at);

    assert_eq!(at_mount, (false, false), "neither the header nor the page in the task that starts the app");
    let seen = seen.borrow();
    let header_alone = seen.iter().position(|s| *s == (true, false));
    let both = seen.iter().position(|s| *s == (true, true));
    assert!(header_alone.is_some() && header_alone < both, "the header's task, then the page's: {seen:?}");
}
