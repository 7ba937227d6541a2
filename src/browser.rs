//! What the console asks of the browser beyond the DOM a view draws: the clock polls are
//! scheduled by, the tab's visibility, the user's activity, timers, frames, User Timing and
//! the channel the console's tabs talk on, code that arrives after the first load. A leaf: it imports nothing of the console, so every floor may use it and none
//! reads these browser facts another way.

use leptos::prelude::{
    request_animation_frame, set_timeout, signal, window_event_listener_untyped, ReadSignal, Set, WindowListenerHandle,
};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// Names the page in the browser's tab and history: "Reservation #12 · Reserved GPUs".
pub fn set_page_title(page: &str) {
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        document.set_title(&format!("{page} · Reserved GPUs"));
    }
}

/// The console's own origin (`https://console.example`), for links back to its pages in a
/// file it exports; empty without a window. An origin holds no path, query or key.
pub fn page_origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

/// Now on `performance.now()`'s clock, in ms: the clock every poll is scheduled by (it
/// never jumps with the wall clock). 0 without a window.
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Whether the tab is hidden: polls stop fetching, and notifications may show.
pub fn hidden() -> bool {
    web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden())
}

/// What counts as the user being there, for the 30-minute idle stop of CONTRACT.md.
pub const ACTIVITY_EVENTS: [&str; 5] = ["pointerdown", "pointermove", "keydown", "wheel", "touchstart"];

/// Calls `on_activity` on each of [`ACTIVITY_EVENTS`]; the caller removes the listeners.
pub fn on_activity(on_activity: impl Fn() + Clone + 'static) -> Vec<WindowListenerHandle> {
    ACTIVITY_EVENTS
        .into_iter()
        .map(|name| {
            let on_activity = on_activity.clone();
            window_event_listener_untyped(name, move |_| on_activity())
        })
        .collect()
}

/// Calls `changed` with [`hidden`] each time the tab is hidden or shown.
pub fn on_visibility_change(changed: impl Fn(bool) + 'static) -> WindowListenerHandle {
    window_event_listener_untyped("visibilitychange", move |_| changed(hidden()))
}

/// Resolves after `wait` (the caller bounds it).
pub async fn sleep(wait: Duration) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let resolve = move || drop(resolve.call0(&JsValue::NULL));
        set_timeout(resolve, wait);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Resolves in the next task: what follows runs after the browser has handled whatever
/// was queued (input, a frame), so one long task becomes two.
pub async fn next_task() {
    sleep(Duration::ZERO).await;
}

/// False, then true from the next task on: what is drawn behind it waits for that task,
/// so a long first draw (V8 compiles the wasm at each function's first call, on the page's
/// thread) is two tasks rather than one. A no-op once its owner is gone.
pub fn true_from_next_task() -> ReadSignal<bool> {
    let (due, set_due) = signal(false);
    set_timeout(
        move || {
            let _ = set_due.try_set(true);
        },
        Duration::ZERO,
    );
    due
}

/// Runs `work` once the browser is idle after the next frame, or [`IDLE_WAIT_MS`] after it
/// at the latest (in a task after it where the browser has no idle callbacks, as Safari):
/// for what is drawn out of sight, which neither the frame nor an input that follows it
/// should wait for.
pub fn when_idle_after_frame(work: impl FnOnce() + 'static) {
    request_animation_frame(move || {
        let Some(window) = web_sys::window() else { return };
        let work = Closure::once_into_js(work);
        let options = web_sys::IdleRequestOptions::new();
        options.set_timeout(IDLE_WAIT_MS);
        if window.request_idle_callback_with_options(work.unchecked_ref(), &options).is_err() {
            let _ = window.set_timeout_with_callback(work.unchecked_ref());
        }
    });
}

/// How long [`when_idle_after_frame`] waits for the browser to be idle at most: a page kept
/// busy (timers, polls) could put its work off for good.
const IDLE_WAIT_MS: u32 = 250;

/// Resolves once what the caller just put on the page is on screen, so that secondary
/// reads never compete with it (under Lighthouse's simulation, a request sent before the
/// page's largest paint counts in its time: the list's GPUs-in-use reads, which fetch a
/// chunk and the shared code, made it 2.6–2.7 s in one audit of five).
/// `requestAnimationFrame` runs before a frame's paint, but the frame reaches the screen
/// later, so frames alone do not tell. `index.html` keeps when the latest largest
/// contentful paint of the page's content (in `main`, not the header) was presented
/// (`__contentPaint`): one at or after the call means the change is shown. Where the
/// browser makes no such report, or stopped at the first input, the page's first
/// contentful paint stands in; a browser that reports neither waits [`PAINT_FRAMES`]
/// frames.
pub async fn after_content_paint() {
    let asked = now_ms();
    for frame in 1..=PAINT_FRAMES {
        let painted = js_sys::Promise::new(&mut |resolve, _| {
            let requested = web_sys::window().and_then(|w| w.request_animation_frame(&resolve).ok());
            if requested.is_none() {
                let _ = resolve.call0(&JsValue::NULL);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(painted).await;
        if frame >= 2 && shown_since(asked) {
            break;
        }
    }
    next_task().await;
}

/// Whether a paint presented after `asked` (page time, ms) is on screen: see
/// [`after_content_paint`].
fn shown_since(asked: f64) -> bool {
    let reported = web_sys::window().and_then(|w| js_sys::Reflect::get(&w, &CONTENT_PAINT.into()).ok());
    match reported.and_then(|at| at.as_f64()) {
        Some(at) => at >= asked,
        None => first_paint_shown(),
    }
}

/// `index.html`'s record of the latest largest contentful paint.
const CONTENT_PAINT: &str = "__contentPaint";

/// Frames [`after_content_paint`] waits at most: half a second at 60 Hz.
const PAINT_FRAMES: u32 = 30;

/// Whether the browser reported the page's first contentful paint as presented.
fn first_paint_shown() -> bool {
    web_sys::window()
        .and_then(|w| w.performance())
        .is_some_and(|p| p.get_entries_by_name("first-contentful-paint").length() > 0)
}

/// Polls `future` once: its output if it is ready, the future itself otherwise (to be
/// awaited, which polls it again with a waker that wakes). A request polled here leaves
/// now, not in a task queued after the caller's work.
pub fn poll_once<F: Future + Unpin>(mut future: F) -> Result<F::Output, F> {
    match Pin::new(&mut future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => Ok(output),
        Poll::Pending => Err(future),
    }
}

/// Runs `work` and keeps how long it took as the User Timing measure `name`, the previous
/// one of that name cleared first: a page polling for days keeps one entry, and the bench
/// and the end-to-end tests read the latest (`performance.getEntriesByName(name)`).
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_variables))]
pub fn timed<T>(name: &str, work: impl FnOnce() -> T) -> T {
    #[cfg(target_arch = "wasm32")]
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let start = format!("{name}-start");
        performance.clear_measures_with_measure_name(name);
        let _ = performance.mark(&start);
        let done = work();
        let _ = performance.measure_with_start_mark(name, &start);
        performance.clear_marks_with_mark_name(&start);
        return done;
    }
    work()
}

/// A `BroadcastChannel`: what one channel posts, every other channel of that name on the
/// origin receives, in other tabs and in this page (never the poster). Closed when dropped.
pub struct Channel {
    channel: web_sys::BroadcastChannel,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl Channel {
    /// Calls `on_message` with each text posted by another channel of `name`; `None` where
    /// the browser has no `BroadcastChannel`.
    pub fn open(name: &str, on_message: impl Fn(String) + 'static) -> Option<Channel> {
        let channel = web_sys::BroadcastChannel::new(name).ok()?;
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            if let Some(text) = event.data().as_string() {
                on_message(text);
            }
        });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Some(Channel { channel, _on_message: on_message })
    }

    pub fn post(&self, text: &str) {
        // A channel closed under it only means no tab hears this one.
        let _ = self.channel.post_message(&JsValue::from_str(text));
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.channel.set_onmessage(None);
        self.channel.close();
    }
}

/// Code that arrives after the first load (a page's, or a panel's) could not be fetched:
/// the network dropped, or a new release replaced the files this tab was started from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkUnavailable;

#[cfg(split_pages)]
impl From<wasm_split_helpers::SplitLoaderError> for ChunkUnavailable {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> Self {
        ChunkUnavailable
    }
}
