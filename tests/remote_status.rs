//! One API read on a page: what stays on screen when a refresh fails, and what goes when
//! the page asks for something else.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use chrono::TimeDelta;
use console_fixtures::{mount, now, page_style, provide_console, settle, sleep, text};
use leptos::context::Provider;
use leptos::prelude::*;
use reservations_console::api::client::Connection;
use reservations_console::api::error::{ApiError, ResponseHeaders};
use reservations_console::components::remote::RemoteStatus;
use reservations_console::reads::remote::Remote;
use reservations_console::state::{Clock, Role};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn server_error() -> ApiError {
    let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req-500-a")]);
    ApiError::from_response(500, &headers, r#"{"error":"internal","message":"boom"}"#, now())
}

/// A read's status line and data, mounted; attempt `n` (from 1) is answered by `answer(n)`.
/// Returns the host and the number of attempts so far.
fn mount_read<Fut>(answer: impl Fn(u32) -> Fut + 'static) -> (web_sys::HtmlElement, Rc<Cell<u32>>)
where
    Fut: std::future::Future<Output = Result<String, ApiError>> + 'static,
{
    let calls = Rc::new(Cell::new(0));
    let counter = calls.clone();
    let host = mount(move || {
        provide_console(Role::Member);
        let read = Remote::new(move |_conn: Connection| {
            counter.set(counter.get() + 1);
            answer(counter.get())
        });
        view! {
            <RemoteStatus remote=read what="reservations"/>
            <p class="data">{move || read.data()}</p>
        }
    });
    (host, calls)
}

#[wasm_bindgen_test]
async fn a_failed_refresh_keeps_the_data_marked_stale_with_the_error_and_a_retry() {
    let (host, calls) = mount_read(|attempt| async move {
        if attempt == 1 {
            Ok("twelve reservations".to_owned())
        } else {
            Err(server_error())
        }
    });
    settle().await;
    assert!(text(&host).contains("Updated"), "{}", text(&host));
    assert!(host.query_selector(".error-panel").unwrap().is_none());

    click(&host, ".remote-line button").await;
    assert_eq!(calls.get(), 2);
    let page = text(&host);
    assert!(page.contains("Stale Last updated 0 s ago — the latest refresh failed"), "{page}");
    assert!(host.query_selector(".remote-line.stale").unwrap().is_some());
    assert_eq!(host.query_selector(".data").unwrap().unwrap().text_content().unwrap(), "twelve reservations");
    assert!(page.contains("The server had a problem"), "{page}");
    assert!(page.contains("req-500-a"), "{page}");

    click(&host, ".error-panel button").await;
    assert_eq!(calls.get(), 3, "Retry asks again");
}

/// The status line as it reads `seconds` after the read, beside the others: a clock of its own.
#[component]
fn StatusLater(remote: Remote<String>, seconds: i64) -> impl IntoView {
    view! {
        <Provider value=Clock::fixed(now() + TimeDelta::seconds(seconds))>
            <RemoteStatus remote what="reservations"/>
        </Provider>
    }
}

#[wasm_bindgen_test]
async fn refresh_stays_put_while_the_age_before_it_ticks() {
    // The console's layout: a Refresh that moves as the age grows is a layout shift
    // (Lighthouse measured one on the reservations list while it loaded).
    let style = page_style(include_str!("../style/main.css"));
    let host = mount(|| {
        provide_console(Role::Member);
        let read = Remote::new(|_conn: Connection| async { Ok::<_, ApiError>("twelve reservations".to_owned()) });
        view! {
            <RemoteStatus remote=read what="reservations"/>
            {[1, 59, 59 * 60, 23 * 3600].map(|seconds| view! { <StatusLater remote=read seconds/> })}
        }
    });
    settle().await;
    let lines = host.query_selector_all(".remote-line").unwrap();
    let line = |i| lines.item(i).unwrap().unchecked_into::<web_sys::Element>();
    let ages: Vec<String> = (0..lines.length()).map(|i| line(i).text_content().unwrap()).collect();
    assert_eq!(
        ages,
        [
            "Updated 0 s ago Refresh",
            "Updated 1 s ago Refresh",
            "Updated 59 s ago Refresh",
            "Updated 59 min ago Refresh",
            "Updated 23 h ago Refresh"
        ]
    );
    let left =
        |i| line(i).query_selector("button").unwrap().unwrap().unchecked_into::<web_sys::HtmlElement>().offset_left();
    for i in 1..lines.length() {
        assert_eq!(left(i), left(0), "Refresh moved when the age read “{}”", ages[i as usize]);
    }
    style.remove();
}

/// The panel's Retry button: its label, and whether it can be pressed.
fn retry_button(host: &web_sys::HtmlElement) -> (String, bool) {
    let button: web_sys::HtmlButtonElement =
        host.query_selector(".error-panel button").unwrap().expect("a Retry").unchecked_into();
    (button.text_content().unwrap(), button.disabled())
}

#[wasm_bindgen_test]
async fn retry_waits_out_the_retry_after_it_shows_and_is_off_while_its_read_runs() {
    let (host, calls) = mount_read(|attempt| async move {
        if attempt == 1 {
            let headers = ResponseHeaders::from_pairs([("retry-after", "1")]);
            Err(ApiError::from_response(503, &headers, "", now()))
        } else {
            std::future::pending().await
        }
    });
    settle().await;
    assert_eq!(retry_button(&host), ("Retry in 1 s".to_owned(), true), "the server asked for 1 s");
    click(&host, ".error-panel button").await;
    assert_eq!(calls.get(), 1, "no Retry before the retry-after");

    sleep(1_100).await;
    assert_eq!(retry_button(&host), ("Retry".to_owned(), false));
    click(&host, ".error-panel button").await;
    assert_eq!(calls.get(), 2);
    assert_eq!(retry_button(&host), ("Retrying…".to_owned(), true), "one read in flight");
    click(&host, ".error-panel button").await;
    assert_eq!(calls.get(), 2, "a second press while the read runs asks nothing");
}

#[wasm_bindgen_test]
async fn asking_for_another_id_drops_the_previous_data_at_once() {
    let id = RwSignal::new(12);
    let host = mount(move || {
        provide_console(Role::Owner);
        let read = Remote::new(move |_conn: Connection| {
            let wanted = id.get();
            async move {
                if wanted == 12 {
                    Ok(format!("reservation {wanted}"))
                } else {
                    std::future::pending().await
                }
            }
        });
        view! {
            <RemoteStatus remote=read what="the reservation"/>
            <p class="data">{move || read.data()}</p>
        }
    });
    settle().await;
    assert_eq!(host.query_selector(".data").unwrap().unwrap().text_content().unwrap(), "reservation 12");
    id.set(9);
    settle().await;
    assert_eq!(host.query_selector(".data").unwrap().unwrap().text_content().unwrap(), "");
    assert!(text(&host).contains("Loading the reservation…"), "{}", text(&host));
}

#[wasm_bindgen_test]
async fn an_answer_after_the_page_was_left_and_a_late_refetch_are_dropped_without_a_panic() {
    // A request the test answers when it chooses, after leaving the page.
    let mut answer = None;
    let held = js_sys::Promise::new(&mut |resolve, _| answer = Some(resolve));
    let (calls, ended, slot) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)), Rc::new(Cell::new(None)));
    let document = web_sys::window().unwrap().document().unwrap();
    let host: web_sys::HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    let page = leptos::mount::mount_to(host, {
        let (calls, ended, slot) = (Rc::clone(&calls), Rc::clone(&ended), Rc::clone(&slot));
        move || {
            provide_console(Role::Member);
            let read = Remote::new(move |_conn: Connection| {
                calls.set(calls.get() + 1);
                let (held, ended) = (wasm_bindgen_futures::JsFuture::from(held.clone()), Rc::clone(&ended));
                async move {
                    held.await.unwrap();
                    ended.set(ended.get() + 1);
                    Err::<String, _>(server_error())
                }
            });
            slot.set(Some(read));
            view! { <RemoteStatus remote=read what="reservations"/> }
        }
    });
    settle().await;
    assert_eq!(calls.get(), 1);
    let read = slot.get().unwrap();

    drop(page);
    answer.unwrap().call0(&wasm_bindgen::JsValue::NULL).unwrap();
    settle().await;
    assert_eq!(ended.get(), 1, "the request ended after the page was left");
    read.refetch();
    settle().await;
    assert_eq!(calls.get(), 1, "a page that is gone reads nothing more");
    // A panic in a spawned task is only logged, but it leaves the thread panicking for good.
    assert!(!std::thread::panicking(), "a panic when the late answer arrived (or in an earlier test)");
}

async fn click(host: &web_sys::HtmlElement, selector: &str) {
    let button: web_sys::HtmlElement = host.query_selector(selector).unwrap().expect(selector).unchecked_into();
    button.click();
    settle().await;
}
