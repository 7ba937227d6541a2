//! The one pacing core of the readers that read by themselves: the live loop
//! ([`super::live`]), the overview's loop ([`super::fleet`]) and the list's GPUs-in-use
//! reads ([`super::placements`]). When to read is `domain::polling`'s (pure); here are the
//! two things that need the browser:
//! - [`Presence`]: whether anyone is looking (the tab's visibility, the user's latest
//!   activity, [`crate::browser`]'s events), and "look again" when that changes;
//! - [`Pacer`]: one request in flight, each a gap after the previous one ended and none
//!   before the `retry-after` it was sent.

use crate::browser::{hidden, now_ms, on_activity, on_visibility_change, sleep};
use crate::domain::polling::{next_start_ms, wait_until, Seen};
use futures_channel::oneshot;
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Duration;

/// Whether anyone is looking, watched for as long as the page that made it is shown.
/// Idleness is a signal like visibility: a reader asks [`Presence::seen`] and lets
/// `domain::polling` decide. Clone: one watch, shared.
#[derive(Clone)]
pub struct Presence(Rc<Watch>);

struct Watch {
    last_activity_ms: Cell<f64>,
    /// Readers waiting to look again, woken at the next change.
    waiting: RefCell<Vec<oneshot::Sender<()>>>,
    /// Called when the tab is shown or hidden.
    on_visibility: RefCell<Vec<Rc<dyn Fn()>>>,
    listeners: RefCell<Vec<WindowListenerHandle>>,
}

impl Presence {
    /// Watches from now (the user counts as active now) until the calling owner is cleaned
    /// up: then the listeners are removed and every reader still waiting looks again.
    pub fn watch() -> Presence {
        let presence = Presence(Rc::new(Watch {
            last_activity_ms: Cell::new(now_ms()),
            waiting: RefCell::new(Vec::new()),
            on_visibility: RefCell::new(Vec::new()),
            listeners: RefCell::new(Vec::new()),
        }));
        let (active, shown) = (Rc::downgrade(&presence.0), Rc::downgrade(&presence.0));
        let mut listeners = on_activity(move || {
            if let Some(watch) = Weak::upgrade(&active) {
                Presence(watch).active();
            }
        });
        listeners.push(on_visibility_change(move |_| {
            if let Some(watch) = Weak::upgrade(&shown) {
                Presence(watch).visibility_changed();
            }
        }));
        *presence.0.listeners.borrow_mut() = listeners;
        let stored = StoredValue::new_local(presence.clone());
        // Cleanups run before the arena drops `stored`.
        on_cleanup(move || {
            stored.try_with_value(Presence::stop);
        });
        presence
    }

    /// Now, as the schedule sees it.
    pub fn seen(&self) -> Seen {
        Seen { now_ms: now_ms(), last_activity_ms: self.0.last_activity_ms.get(), visible: !hidden() }
    }

    /// The user is there: the idle stop counts from now.
    pub fn active(&self) {
        self.0.last_activity_ms.set(now_ms());
        self.wake();
    }

    /// Calls `changed` each time the tab is shown or hidden, while the watch lasts.
    pub fn on_visibility(&self, changed: impl Fn() + 'static) {
        self.0.on_visibility.borrow_mut().push(Rc::new(changed));
    }

    /// Resolves at the next change: the tab shown or hidden, the user active, or the watch
    /// ended. A reader that may not read now (hidden, idle) waits here, then looks again.
    pub async fn look_again(&self) {
        let (wake, woken) = oneshot::channel();
        self.0.waiting.borrow_mut().push(wake);
        // A dropped sender (the watch ended) wakes it too.
        let _ = woken.await;
    }

    fn visibility_changed(&self) {
        let callbacks = self.0.on_visibility.borrow().clone();
        callbacks.iter().for_each(|changed| changed());
        self.wake();
    }

    fn wake(&self) {
        let waiting = self.0.waiting.take();
        for wake in waiting {
            // A reader no longer waiting dropped its end: nothing to wake.
            let _ = wake.send(());
        }
    }

    fn stop(&self) {
        self.0.listeners.take().into_iter().for_each(WindowListenerHandle::remove);
        self.0.on_visibility.take();
        self.0.waiting.take();
    }
}

/// One request in flight at the reader's pace: each starts at least `gap` after the
/// previous one ended, and none before the `retry-after` it was sent
/// (`domain::polling::next_start_ms`).
pub struct Pacer {
    gap: Duration,
    /// When the next request may start; `None` before the first.
    next_ms: Cell<Option<f64>>,
}

impl Pacer {
    pub fn new(gap: Duration) -> Self {
        Pacer { gap, next_ms: Cell::new(None) }
    }

    /// Waits `wait`, and until the next request may start.
    pub async fn wait(&self, wait: Duration) {
        let now = now_ms();
        let due = self.next_ms.get().unwrap_or(now).max(now + wait.as_secs_f64() * 1000.0);
        let wait = wait_until(due, now);
        if !wait.is_zero() {
            sleep(wait).await;
        }
    }

    /// A request ended now; `retry_after` is what its answer asked, if the whole reader is
    /// to wait it out.
    pub fn ended(&self, retry_after: Option<Duration>) {
        self.next_ms.set(Some(next_start_ms(now_ms(), self.gap, retry_after)));
    }
}
