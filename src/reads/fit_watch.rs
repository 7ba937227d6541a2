//! The watch of a `/fit` question ("Tell me when it fits"), kept for the whole tab by the
//! fleet store it looks at, so it survives moving between pages. It sends nothing: it looks
//! at each reservation's latest `/nodes` whenever one lands in the store (the `/fit`,
//! overview and Nodes pages read them on their own schedules) and steps `domain::fleet::fit_watch`'s
//! rule; each firing raises one alert in the bell, linking the prefilled launch page.
//!
//! It lives in this tab's memory: closing the tab ends it (telling a closed tab would need a
//! push server, which the API does not have). A new key ends it too.

use super::nodes::NodesRead;
use crate::api::models::Reservation;
use crate::domain::alerts::{Alert, Severity};
use crate::domain::fleet::fit::{judge, launch_href, Question};
use crate::domain::fleet::fit_watch::{Closeness, Reading, Watch};
use crate::domain::polling::fleet::older_than_two_refreshes;
use crate::state::Clock;
use leptos::prelude::*;
use leptos::reactive::owner::WeakOwner;
use std::time::Duration;

/// The reads a watch looks at: the tab's fleet store's. A trait, so that the store can hold
/// the watch without the two modules needing each other.
pub trait Reads: Copy + Send + Sync + 'static {
    /// The account's reservations (tracked), `None` before the list is read.
    fn reservations(&self) -> Option<Vec<Reservation>>;
    /// One reservation's latest `/nodes` read (tracked).
    fn read(&self, id: i64) -> NodesRead;
    /// How often the reads are renewed: a read older than two of these is stale.
    fn refresh_interval(&self) -> Duration;
}

/// A watch under way.
#[derive(Clone, Debug, PartialEq)]
pub struct Watching {
    pub watch: Watch,
    /// How close the question is, from the latest fresh reads (`None` before any says).
    pub closeness: Option<Closeness>,
    /// One alert per firing, oldest first.
    pub fired: Vec<Alert>,
}

/// The tab's watch (one at a time). Copy: arena handles of the app's owner.
#[derive(Clone, Copy)]
pub struct FitWatch {
    watching: RwSignal<Option<Watching>>,
    /// The app's owner: a watch's look is made under it, not under the page that started it.
    app: StoredValue<WeakOwner>,
    /// The running watch's own owner: cancelling cleans it up, and its look with it.
    running: StoredValue<Option<Owner>>,
}

impl FitWatch {
    /// None yet; made once, in the app (with the fleet store).
    pub fn new() -> Self {
        FitWatch {
            watching: RwSignal::new(None),
            app: StoredValue::new(Owner::current().unwrap_or_default().downgrade()),
            running: StoredValue::new(None),
        }
    }

    /// The watch under way (tracked).
    pub fn get(&self) -> Option<Watching> {
        self.watching.get()
    }

    /// The alerts raised (tracked), for the bell.
    pub fn fired(&self) -> Vec<Alert> {
        self.watching.with(|w| w.as_ref().map(|w| w.fired.clone()).unwrap_or_default())
    }

    /// Watches `question` from now on, in place of any earlier watch, looking at `fleet`'s
    /// reads; their age is judged by `clock`.
    pub fn start(&self, fleet: impl Reads, question: Question, clock: Clock) {
        self.cancel();
        let watch = Watch::new(question, clock.now_untracked());
        self.watching.set(Some(Watching { watch, closeness: None, fired: Vec::new() }));
        let running = self.app.with_value(WeakOwner::upgrade).unwrap_or_default().with(Owner::new);
        let watch = *self;
        running.with(|| Effect::new(move || watch.look(fleet, clock)));
        self.running.set_value(Some(running));
    }

    /// Ends the watch and forgets what it raised.
    pub fn cancel(&self) {
        if let Some(running) = self.running.try_update_value(Option::take).flatten() {
            running.cleanup();
        }
        self.watching.try_set(None);
    }

    /// One look at every reservation's latest read (tracked: runs again when one changes;
    /// not when the clock ticks, since a read that ages only goes stale, which changes nothing).
    fn look(&self, fleet: impl Reads, clock: Clock) {
        let Some(list) = fleet.reservations() else { return };
        let Some(question) = self.watching.with_untracked(|w| w.as_ref().map(|w| w.watch.question.clone())) else {
            return;
        };
        let (interval, now) = (fleet.refresh_interval(), clock.now_untracked());
        let judged: Vec<_> = list
            .iter()
            .map(|r| {
                let read = fleet.read(r.id);
                let verdict = judge(r, read.latest.as_ref().map(|f| &*f.value), &question);
                let old = read
                    .at()
                    .is_some_and(|at| (now - at).to_std().is_ok_and(|ago| older_than_two_refreshes(ago, interval)));
                (r, verdict, read.at(), read.error.is_some() || old)
            })
            .collect();
        let readings: Vec<(i64, Reading)> =
            judged.iter().map(|(r, v, _, stale)| (r.id, Reading::of(v, *stale))).collect();
        let closeness = Closeness::of(judged.iter().filter(|j| !j.3).map(|j| &j.1), &question);
        self.watching.maybe_update(|watching| {
            let Some(watching) = watching else { return false };
            let fired = watching.watch.look(&readings);
            let raised =
                fired.iter().filter_map(|id| judged.iter().find(|j| j.0.id == *id)).map(|(r, _, at, _)| Alert {
                    severity: Severity::Info,
                    reservation: r.id,
                    text: format!("Room for {} now on #{} ({} · {}).", question.text(), r.id, r.region_id, r.gpu_type),
                    at: *at,
                    stops: false,
                    launch: Some(launch_href("", r.id, &question)),
                    account: String::new(),
                });
            let before = watching.fired.len();
            watching.fired.extend(raised);
            let changed = watching.fired.len() != before || watching.closeness != closeness;
            watching.closeness = closeness;
            changed
        });
    }
}

impl Default for FitWatch {
    fn default() -> Self {
        Self::new()
    }
}
