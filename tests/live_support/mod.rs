//! Driving the console's reading loops in a test: a fetch that takes its time, a loop
//! started inside a mounted view, the tab hidden or shown, the clock moved ahead, a key
//! pressed. Shared by the live loop's, the Nodes page's and the overview loop's tests.
#![allow(dead_code)] // each test binary uses a different subset

use crate::console_fixtures::sleep;
use leptos::prelude::*;
use reservations_console::api::error::ApiError;
use reservations_console::api::models::NodesResponse;
use reservations_console::reads::live::Live;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// A fetch that takes `ms`, counting how many run at once.
pub struct SlowApi {
    pub running: Cell<u32>,
    pub most_at_once: Cell<u32>,
    pub calls: Cell<u32>,
}

impl SlowApi {
    pub fn fetch(
        self: &Rc<Self>,
        ms: u64,
        answer: Result<NodesResponse, ApiError>,
    ) -> impl std::future::Future<Output = Result<NodesResponse, ApiError>> {
        let api = Rc::clone(self);
        async move {
            api.calls.set(api.calls.get() + 1);
            api.running.set(api.running.get() + 1);
            api.most_at_once.set(api.most_at_once.get().max(api.running.get()));
            sleep(ms).await;
            api.running.set(api.running.get() - 1);
            answer
        }
    }
}

pub fn slow_api() -> Rc<SlowApi> {
    Rc::new(SlowApi { running: Cell::new(0), most_at_once: Cell::new(0), calls: Cell::new(0) })
}

/// Waits until `live` has polled `n` times, up to 5 s (a loaded machine's timers run late);
/// returns the milliseconds waited.
pub async fn polled(live: &Live, n: u64) -> i32 {
    let mut waited = 0;
    while live.polls() < n && waited < 5_000 {
        sleep(50).await;
        waited += 50;
    }
    waited
}

/// Starts a loop inside a mounted view, as the page does; dropping the handle leaves it.
pub fn start_live(start: impl FnOnce() -> Live + 'static) -> (Live, leptos::mount::UnmountHandle<impl Mountable>) {
    let (live, _, handle) = start_live_showing(move || (start(), ()));
    (live, handle)
}

/// [`start_live`], showing the view `start` returns with its loop, in the element returned.
pub fn start_live_showing<V: IntoView + 'static>(
    start: impl FnOnce() -> (Live, V) + 'static,
) -> (Live, web_sys::HtmlElement, leptos::mount::UnmountHandle<impl Mountable>) {
    let document = web_sys::window().unwrap().document().unwrap();
    let host: web_sys::HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    let slot = Rc::new(Cell::new(None));
    let handle = {
        let slot = Rc::clone(&slot);
        leptos::mount::mount_to(host.clone(), move || {
            let (live, view) = start();
            slot.set(Some(live));
            view
        })
    };
    (slot.get().expect("started"), host, handle)
}

/// Makes the tab look hidden (or shown again) to the page, and tells it as the browser does.
pub fn set_tab_hidden(hidden: bool) {
    let script = if hidden {
        "Object.defineProperty(document, 'hidden', { configurable: true, get: () => true })"
    } else {
        "delete document.hidden"
    };
    js_sys::eval(script).unwrap();
    // The browser's event bubbles from the document to the window, where the page listens.
    let event = web_sys::Event::new("visibilitychange").unwrap();
    web_sys::window().unwrap().dispatch_event(&event).unwrap();
}

/// Moves the page's clock (`performance.now()`) `minutes` ahead, or back to the real one.
pub fn clock_ahead_by(minutes: u32) {
    let script = if minutes == 0 {
        "delete performance.now".to_owned()
    } else {
        format!(
            "{{ const real = Performance.prototype.now; \
             performance.now = () => real.call(performance) + {minutes} * 60000; }}"
        )
    };
    js_sys::eval(&script).unwrap();
}

/// A key pressed, as the browser tells it: the user is there.
pub fn press_a_key() {
    let key = web_sys::Event::new("keydown").unwrap();
    web_sys::window().unwrap().dispatch_event(&key).unwrap();
}
