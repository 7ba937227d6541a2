//! The one driver of live polling (CONTRACT.md): it owns the timer, the in-flight flag and
//! the visibility and activity listeners, asks `domain::polling::next_delay` when to poll
//! next, and removes everything when the page that started it is left (`on_cleanup`).
//!
//! One request at a time: the next is scheduled only after the previous one has ended.
//! While the tab is hidden nothing is fetched; when it shows again a poll that fell due
//! meanwhile is fetched at once (never sooner than the schedule allows).

use crate::api::error::ApiError;
use crate::domain::polling::{next_delay, Interval, PollDecision, PollState, StopReason, MIN_INTERVAL};
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

/// What the loop is doing, as the status line says it.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveStatus {
    /// Polling on schedule (a request may be in flight).
    Live,
    /// The latest requests failed transiently; the next attempt is after `wait`.
    Retrying { failures: u32, wait: Duration },
    /// The tab is hidden: nothing is fetched until it shows again.
    Hidden,
    /// Paused by the user.
    Paused,
    /// No user activity for 30 minutes.
    Idle,
    /// Stopped on an error that retrying cannot fix (a 401, 403, 404); unreadable answers are retried.
    Failed,
}

impl LiveStatus {
    /// Whether polls happen without the user doing anything.
    pub fn is_running(&self) -> bool {
        matches!(self, LiveStatus::Live | LiveStatus::Retrying { .. } | LiveStatus::Hidden)
    }
}

/// The test interval asked for with `?poll_ms=N`, honoured only on a loopback host
/// (benchmarks and end-to-end tests need fast polls; a real deployment never gets them).
pub fn page_interval() -> Interval {
    let location = web_sys::window().map(|w| w.location());
    let host = location.as_ref().and_then(|l| l.hostname().ok()).unwrap_or_default();
    let search = location.as_ref().and_then(|l| l.search().ok()).unwrap_or_default();
    let poll_ms = search.trim_start_matches('?').split('&').find_map(|kv| kv.strip_prefix("poll_ms="));
    Interval::for_page(poll_ms, &host)
}

/// One request; it resolves to what the schedule needs and to the delivery of the answer,
/// which is dropped undelivered if the page was left meanwhile (its signals are gone).
type Poll = Box<dyn Fn() -> Pin<Box<dyn Future<Output = (Outcome, Box<dyn FnOnce()>)>>>>;

/// What the schedule needs to know about a finished request.
enum Outcome {
    Ok,
    Failed { retry_after: Option<Duration>, transient: bool },
}

struct Loop {
    poll: Poll,
    interval: Interval,
    status: RwSignal<LiveStatus>,
    polls: RwSignal<u64>,
    timer: RefCell<Option<TimeoutHandle>>,
    listeners: RefCell<Vec<WindowListenerHandle>>,
    in_flight: Cell<bool>,
    /// Set on cleanup: a late answer or timer then does nothing.
    left: Cell<bool>,
    paused: Cell<bool>,
    stopped: Cell<bool>,
    failures: Cell<u32>,
    retry_after: Cell<Option<Duration>>,
    last_activity_ms: Cell<f64>,
    /// When the previous request ended, and when the next one is due.
    last_end_ms: Cell<f64>,
    due_ms: Cell<f64>,
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

fn hidden() -> bool {
    web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden())
}

impl Loop {
    fn clear_timer(&self) {
        if let Some(handle) = self.timer.borrow_mut().take() {
            handle.clear();
        }
    }

    /// Polls at `due_ms` (now if past).
    fn arm(self: &Rc<Self>, due_ms: f64) {
        self.clear_timer();
        self.due_ms.set(due_ms);
        let wait = Duration::from_secs_f64(((due_ms - now_ms()) / 1000.0).max(0.0));
        let this = Rc::clone(self);
        *self.timer.borrow_mut() = set_timeout_with_handle(move || this.tick(), wait).ok();
    }

    fn running_status(&self) -> LiveStatus {
        match self.failures.get() {
            0 => LiveStatus::Live,
            failures => LiveStatus::Retrying {
                failures,
                wait: Duration::from_secs_f64(((self.due_ms.get() - self.last_end_ms.get()) / 1000.0).max(0.0)),
            },
        }
    }

    fn tick(self: &Rc<Self>) {
        self.timer.borrow_mut().take();
        if self.left.get() || self.paused.get() || self.stopped.get() || self.in_flight.get() {
            return;
        }
        if hidden() {
            self.status.set(LiveStatus::Hidden);
            return;
        }
        self.in_flight.set(true);
        let this = Rc::clone(self);
        leptos::task::spawn_local(async move {
            let (outcome, deliver) = (this.poll)().await;
            this.in_flight.set(false);
            if this.left.get() {
                return;
            }
            deliver();
            // Delivering may end the page: a 401 ends the session, and Connect replaces it
            // there and then, disposing the signals below.
            if this.left.get() {
                return;
            }
            this.last_end_ms.set(now_ms());
            this.polls.update(|n| *n += 1);
            match outcome {
                Outcome::Ok => {
                    this.failures.set(0);
                    this.retry_after.set(None);
                }
                Outcome::Failed { transient: false, .. } => {
                    this.stopped.set(true);
                    this.status.set(LiveStatus::Failed);
                    return;
                }
                Outcome::Failed { retry_after, transient: true } => {
                    this.failures.set(this.failures.get() + 1);
                    this.retry_after.set(retry_after);
                }
            }
            if !this.paused.get() {
                this.schedule();
            }
        });
    }

    /// After a request ended: wait, stop for idleness, or wait for the tab to show.
    fn schedule(self: &Rc<Self>) {
        let state = PollState {
            now_ms: now_ms(),
            last_activity_ms: self.last_activity_ms.get(),
            visible: !hidden(),
            consecutive_failures: self.failures.get(),
            retry_after: self.retry_after.get(),
            interval: self.interval,
        };
        match next_delay(&state, js_sys::Math::random()) {
            PollDecision::Wait(wait) => {
                self.arm(state.now_ms + wait.as_secs_f64() * 1000.0);
                self.status.set(self.running_status());
            }
            PollDecision::WaitForVisible => {
                // Due at once when the tab shows again.
                self.due_ms.set(state.now_ms);
                self.status.set(LiveStatus::Hidden);
            }
            PollDecision::Stop(StopReason::Idle) => {
                self.stopped.set(true);
                self.status.set(LiveStatus::Idle);
            }
        }
    }

    fn on_visibility(self: &Rc<Self>) {
        if self.paused.get() || self.stopped.get() || self.in_flight.get() {
            return;
        }
        if hidden() {
            self.clear_timer();
            self.status.set(LiveStatus::Hidden);
        } else {
            self.status.set(self.running_status());
            self.arm(self.due_ms.get());
        }
    }

    /// Polls again, no sooner than the schedule's floor after the previous request.
    fn resume(self: &Rc<Self>) {
        self.paused.set(false);
        self.stopped.set(false);
        self.failures.set(0);
        self.retry_after.set(None);
        self.last_activity_ms.set(now_ms());
        self.status.set(LiveStatus::Live);
        if !self.in_flight.get() {
            // The interval's floor: 3 s, or the test interval when shorter.
            let floor = self.interval.get().min(MIN_INTERVAL);
            self.arm(self.last_end_ms.get() + floor.as_secs_f64() * 1000.0);
        }
    }

    /// The page was left: nothing runs any more.
    fn leave(&self) {
        self.left.set(true);
        self.clear_timer();
        self.listeners.take().into_iter().for_each(WindowListenerHandle::remove);
    }

    fn pause(&self) {
        self.paused.set(true);
        self.clear_timer();
        self.status.set(LiveStatus::Paused);
    }
}

/// A running poll loop. Copy: its parts live in the reactive arena of the page that
/// started it.
#[derive(Clone, Copy)]
pub struct Live {
    status: RwSignal<LiveStatus>,
    polls: RwSignal<u64>,
    driver: StoredValue<Rc<Loop>, LocalStorage>,
}

impl Live {
    /// Starts polling at once. Each answer goes to `on_answer`; a transient failure
    /// (network, timeout, 429, 5xx) backs off and retries, any other stops the loop.
    pub fn start<T, Fut>(
        interval: Interval,
        fetch: impl Fn() -> Fut + 'static,
        on_answer: impl Fn(Result<T, ApiError>) + 'static,
    ) -> Live
    where
        T: 'static,
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        let on_answer = Rc::new(on_answer);
        let poll: Poll = Box::new(move || {
            let request = fetch();
            let on_answer = Rc::clone(&on_answer);
            Box::pin(async move {
                let result = request.await;
                let outcome = match &result {
                    Ok(_) => Outcome::Ok,
                    Err(e) => Outcome::Failed { retry_after: e.retry_after(), transient: e.is_transient() },
                };
                let deliver: Box<dyn FnOnce()> = Box::new(move || on_answer(result));
                (outcome, deliver)
            })
        });
        let status = RwSignal::new(LiveStatus::Live);
        let polls = RwSignal::new(0);
        let started = now_ms();
        let driver = Rc::new(Loop {
            poll,
            interval,
            status,
            polls,
            timer: RefCell::new(None),
            listeners: RefCell::new(Vec::new()),
            in_flight: Cell::new(false),
            left: Cell::new(false),
            paused: Cell::new(false),
            stopped: Cell::new(false),
            failures: Cell::new(0),
            retry_after: Cell::new(None),
            last_activity_ms: Cell::new(started),
            last_end_ms: Cell::new(started),
            due_ms: Cell::new(started),
        });

        let listen = |name: &str, on_event: fn(&Rc<Loop>)| {
            let this = Rc::clone(&driver);
            window_event_listener_untyped(name, move |_| on_event(&this))
        };
        let mut listeners = vec![listen("visibilitychange", Loop::on_visibility)];
        for name in ["pointerdown", "pointermove", "keydown", "wheel", "touchstart"] {
            listeners.push(listen(name, |this| this.last_activity_ms.set(now_ms())));
        }
        *driver.listeners.borrow_mut() = listeners;
        let stored = StoredValue::new_local(Rc::clone(&driver));
        // Cleanups run before the arena drops `stored`.
        on_cleanup(move || {
            stored.try_with_value(|d| d.leave());
        });

        driver.tick();
        Live { status, polls, driver: stored }
    }

    /// Tracked.
    pub fn status(&self) -> LiveStatus {
        self.status.get()
    }

    /// Requests finished so far, successful or not (tracked).
    pub fn polls(&self) -> u64 {
        self.polls.get()
    }

    pub fn pause(&self) {
        self.driver.with_value(|d| d.pause());
    }

    /// Resumes after a pause, an idle stop or a failure.
    pub fn resume(&self) {
        self.driver.with_value(|d| d.resume());
    }
}
