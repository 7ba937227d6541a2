//! This tab's share of the key's limit among the console's tabs of one origin.

use crate::browser::{now_ms, Channel};
use crate::domain::polling::tab_share::{share_per_minute, Budget, Tabs, ANNOUNCE_EVERY};
use leptos::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// This tab among the console's tabs ([`crate::domain::polling::tab_share`]): it says "here" every
/// [`ANNOUNCE_EVERY`] on a `BroadcastChannel`, answers a newcomer's "hello" at once, says
/// "left" when dropped, and books each request within its equal share of the key's 200 a
/// minute. Without `BroadcastChannel` a tab counts itself alone.
#[derive(Clone)]
pub struct TabShare(Rc<Shared>);

struct Shared {
    id: u64,
    tabs: Rc<RefCell<Tabs>>,
    budget: RefCell<Budget>,
    channel: Rc<RefCell<Option<Channel>>>,
    announce: Option<IntervalHandle>,
}

impl TabShare {
    pub fn join(name: &str) -> TabShare {
        // 2^53 ids: two tabs drawing the same one is not a case to handle.
        let id = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
        let tabs = Rc::new(RefCell::new(Tabs::default()));
        let channel: Rc<RefCell<Option<Channel>>> = Rc::default();
        let post = move |channel: &Rc<RefCell<Option<Channel>>>, what: &str| {
            if let Some(c) = channel.borrow().as_ref() {
                c.post(&format!("{what}:{id}"));
            }
        };
        // Weak: the channel's own handler must not keep it open.
        let (heard, reply) = (Rc::clone(&tabs), Rc::downgrade(&channel));
        let opened = Channel::open(name, move |text| {
            let Some((what, tab)) = text.split_once(':') else { return };
            let Ok(tab) = tab.parse::<u64>() else { return };
            match what {
                "left" => heard.borrow_mut().left(tab),
                _ => heard.borrow_mut().heard(tab, now_ms()),
            }
            if let ("hello", Some(channel)) = (what, reply.upgrade()) {
                post(&channel, "here");
            }
        });
        let announce = opened.is_some().then(|| {
            let channel = Rc::downgrade(&channel);
            set_interval_with_handle(move || channel.upgrade().iter().for_each(|c| post(c, "here")), ANNOUNCE_EVERY)
        });
        *channel.borrow_mut() = opened;
        post(&channel, "hello");
        TabShare(Rc::new(Shared {
            id,
            tabs,
            budget: RefCell::default(),
            channel,
            announce: announce.and_then(Result::ok),
        }))
    }

    /// The console's tabs open, this one included.
    pub fn tabs(&self) -> u32 {
        self.0.tabs.borrow().count(now_ms())
    }

    /// This tab's requests a minute.
    pub fn per_minute(&self) -> u32 {
        share_per_minute(self.tabs())
    }

    /// Holds the key's next requests from this tab for `wait` (a 429's `retry-after`).
    pub(super) fn hold(&self, wait: Duration) {
        self.0.budget.borrow_mut().hold(now_ms() + wait.as_secs_f64() * 1000.0);
    }

    /// Books the next request within the share; how long it waits.
    pub(super) fn book(&self) -> Duration {
        self.0.budget.borrow_mut().book(now_ms(), self.per_minute())
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(announce) = self.announce.take() {
            announce.clear();
        }
        if let Some(channel) = self.channel.borrow().as_ref() {
            channel.post(&format!("left:{}", self.id));
        }
    }
}
