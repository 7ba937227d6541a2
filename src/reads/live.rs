//! The poll driver of a live page (CONTRACT.md): it owns the timer and the in-flight flag,
//! asks `domain::polling::next_delay` when to poll next with what the pacing core's
//! [`Presence`] sees (visibility, idleness), and stops when the page that started it is
//! left (`on_cleanup`).
//!
//! One request at a time: the next is scheduled only after the previous one has ended.
//! While the tab is hidden nothing is fetched; when it shows again a poll that fell due
//! meanwhile is fetched at once (never sooner than the schedule allows).

use super::generation::{Generation, Ticket};
use super::pacer::Presence;
use crate::api::error::ApiError;
use crate::browser::now_ms;
use crate::domain::polling::{
    next_delay, wait_until, Interval, PollDecision, PollState, Seen, StopReason, MIN_INTERVAL,
};
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
    Retrying {
        failures: u32,
        wait: Duration,
        /// The server's `retry-after`, as it asked (the wait is capped at 10 minutes).
        asked: Option<Duration>,
    },
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
    let host = web_sys::window().and_then(|w| w.location().hostname().ok()).unwrap_or_default();
    Interval::for_page(crate::router::address_query_value("poll_ms").as_deref(), &host)
}

/// One request of the loop: what the schedule needs to know of its answer (the answer
/// itself lands where the request put it, the store the page reads).
type Request = Pin<Box<dyn Future<Output = Outcome>>>;

/// What the schedule needs to know about a finished request.
enum Outcome {
    Ok,
    Failed { retry_after: Option<Duration>, transient: bool },
}

/// Where the loop is. Every change is made by one of [`Loop`]'s methods, named for its cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The next poll is due at [`Timing::due_ms`]: a timer is armed for it, or the tab is
    /// hidden and it waits for the tab to show.
    Waiting,
    /// A request is under way. `paused`: the user paused meanwhile, so its answer is
    /// delivered but nothing is scheduled after it.
    InFlight { paused: bool },
    /// Paused by the user.
    Paused,
    /// Stopped by idleness or by an error that retrying cannot fix, until resumed.
    Stopped,
}

/// What the schedule is computed from; instants in ms on `performance.now()`'s clock.
#[derive(Clone, Copy)]
struct Timing {
    /// Failed requests since the last success.
    failures: u32,
    retry_after: Option<Duration>,
    /// When the previous request ended, and when the next one is due.
    last_end_ms: f64,
    due_ms: f64,
}

struct Loop {
    /// Stale once the page is left: nothing runs any more, whatever arrives.
    page: Ticket,
    generation: Generation,
    request: Box<dyn Fn() -> Request>,
    interval: Interval,
    presence: Presence,
    status: RwSignal<LiveStatus>,
    polls: RwSignal<u64>,
    phase: Cell<Phase>,
    timing: Cell<Timing>,
    timer: RefCell<Option<TimeoutHandle>>,
}

impl Loop {
    fn timing(&self, change: impl FnOnce(&mut Timing)) {
        let mut timing = self.timing.get();
        change(&mut timing);
        self.timing.set(timing);
    }

    /// Sets the status only when it changes: its words and the Pause button follow it, and
    /// a poll that changes nothing must not write them again.
    fn show(&self, status: LiveStatus) {
        self.status.maybe_update(|shown| {
            let changed = *shown != status;
            if changed {
                *shown = status;
            }
            changed
        });
    }

    fn clear_timer(&self) {
        if let Some(handle) = self.timer.borrow_mut().take() {
            handle.clear();
        }
    }

    /// Polls at `due_ms` (now if past).
    fn arm(self: &Rc<Self>, due_ms: f64) {
        self.clear_timer();
        self.timing(|t| t.due_ms = due_ms);
        let this = Rc::clone(self);
        *self.timer.borrow_mut() = set_timeout_with_handle(move || this.due(), wait_until(due_ms, now_ms())).ok();
    }

    fn running_status(&self) -> LiveStatus {
        let t = self.timing.get();
        match t.failures {
            0 => LiveStatus::Live,
            failures => {
                LiveStatus::Retrying { failures, wait: wait_until(t.due_ms, t.last_end_ms), asked: t.retry_after }
            }
        }
    }

    /// The timer fired (or the loop starts): send the request, unless the tab is hidden.
    fn due(self: &Rc<Self>) {
        self.timer.borrow_mut().take();
        if self.phase.get() != Phase::Waiting {
            return;
        }
        if !self.presence.seen().visible {
            self.show(LiveStatus::Hidden);
            return;
        }
        self.phase.set(Phase::InFlight { paused: false });
        let this = Rc::clone(self);
        let request = (self.request)();
        leptos::task::spawn_local(async move {
            let outcome = request.await;
            this.answered(outcome);
        });
    }

    /// The request ended (its answer is where the request put it): schedule the next one.
    fn answered(self: &Rc<Self>, outcome: Outcome) {
        // A page left meanwhile (a 401 ends the session, and Connect replaces the page)
        // has disposed the signals below.
        if !self.page.current() {
            return;
        }
        let Phase::InFlight { paused } = self.phase.get() else { return };
        self.polls.update(|n| *n += 1);
        let seen = self.presence.seen();
        self.timing(|t| {
            t.last_end_ms = seen.now_ms;
            match outcome {
                Outcome::Ok => {
                    t.failures = 0;
                    t.retry_after = None;
                }
                Outcome::Failed { retry_after, .. } => {
                    t.failures = t.failures.saturating_add(1);
                    t.retry_after = retry_after;
                }
            }
        });
        if let Outcome::Failed { transient: false, .. } = outcome {
            self.phase.set(Phase::Stopped);
            self.show(LiveStatus::Failed);
        } else if paused {
            self.phase.set(Phase::Paused);
        } else {
            self.phase.set(Phase::Waiting);
            self.schedule(seen);
        }
    }

    /// After a request ended: wait, stop for idleness, or wait for the tab to show.
    fn schedule(self: &Rc<Self>, seen: Seen) {
        let (t, now_ms) = (self.timing.get(), seen.now_ms);
        let state =
            PollState { seen, consecutive_failures: t.failures, retry_after: t.retry_after, interval: self.interval };
        match next_delay(&state, js_sys::Math::random()) {
            PollDecision::Wait(wait) => {
                self.arm(now_ms + wait.as_secs_f64() * 1000.0);
                self.show(self.running_status());
            }
            PollDecision::WaitForVisible(wait) => {
                // Due when the tab shows again, but not before the schedule allows.
                self.timing(|t| t.due_ms = now_ms + wait.as_secs_f64() * 1000.0);
                self.show(LiveStatus::Hidden);
            }
            PollDecision::Stop(StopReason::Idle) => {
                self.phase.set(Phase::Stopped);
                self.show(LiveStatus::Idle);
            }
        }
    }

    /// The tab was hidden or shown: a waiting poll stops its timer, or is armed again.
    fn visibility_changed(self: &Rc<Self>) {
        if self.phase.get() != Phase::Waiting {
            return;
        }
        if !self.presence.seen().visible {
            self.clear_timer();
            self.show(LiveStatus::Hidden);
        } else {
            self.show(self.running_status());
            self.arm(self.timing.get().due_ms);
        }
    }

    /// Polls again, no sooner than the schedule's floor after the previous request.
    fn resume(self: &Rc<Self>) {
        let phase = self.phase.get();
        if !self.page.current() {
            return;
        }
        self.timing(|t| {
            t.failures = 0;
            t.retry_after = None;
        });
        // The idle stop counts from the resume.
        self.presence.active();
        self.show(LiveStatus::Live);
        if let Phase::InFlight { .. } = phase {
            self.phase.set(Phase::InFlight { paused: false });
        } else {
            self.phase.set(Phase::Waiting);
            // The interval's floor: 3 s, or the test interval when shorter.
            let floor = self.interval.get().min(MIN_INTERVAL);
            self.arm(self.timing.get().last_end_ms + floor.as_secs_f64() * 1000.0);
        }
    }

    fn pause(&self) {
        if !self.page.current() {
            return;
        }
        match self.phase.get() {
            Phase::InFlight { .. } => self.phase.set(Phase::InFlight { paused: true }),
            _ => self.phase.set(Phase::Paused),
        }
        self.clear_timer();
        self.show(LiveStatus::Paused);
    }

    /// The page was left: nothing runs any more.
    fn leave(&self) {
        self.generation.stop();
        self.clear_timer();
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
    /// Starts polling at once. `fetch` puts each answer where the page reads it (the
    /// [`super::nodes::NodesStore`]); the loop only looks at how it ended: a transient
    /// failure (network, timeout, 429, 5xx) backs off and retries, any other stops the loop.
    pub fn start<T, Fut>(interval: Interval, fetch: impl Fn() -> Fut + 'static) -> Live
    where
        T: 'static,
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        let request = Box::new(move || -> Request {
            let request = fetch();
            Box::pin(async move {
                match request.await {
                    Ok(_) => Outcome::Ok,
                    Err(e) => Outcome::Failed { retry_after: e.retry_after(), transient: e.is_transient() },
                }
            })
        });
        let status = RwSignal::new(LiveStatus::Live);
        let polls = RwSignal::new(0);
        let started = now_ms();
        let generation = Generation::default();
        let driver = Rc::new(Loop {
            page: generation.next(),
            generation,
            request,
            interval,
            presence: Presence::watch(),
            status,
            polls,
            phase: Cell::new(Phase::Waiting),
            timing: Cell::new(Timing { failures: 0, retry_after: None, last_end_ms: started, due_ms: started }),
            timer: RefCell::new(None),
        });

        let shown = Rc::clone(&driver);
        driver.presence.on_visibility(move || shown.visibility_changed());
        let stored = StoredValue::new_local(Rc::clone(&driver));
        // Cleanups run before the arena drops `stored`.
        on_cleanup(move || {
            stored.try_with_value(|d| d.leave());
        });

        driver.due();
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
