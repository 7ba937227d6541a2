//! The overview's reads, kept for the whole tab (the header's alerts read them on every
//! page): the reservations and each one's detail (rates, amendments, first invoice); each
//! one's latest `/nodes` goes to the one [`NodesStore`]. Only the pages that show them (the
//! overview, `/fit`, `/capacity`) run the loop that reads them ([`fleet_page`]); leaving the
//! page stops the loop and keeps what was read.
//!
//! Everything belongs to one session: a new key (another connect) starts empty, so an
//! owner's rates can never be shown under a member's key.

use super::fit_watch::{self, FitWatch};
use super::generation::{Generation, Ticket};
use super::live::page_interval;
use super::nodes::{use_nodes, NodesRead, NodesStore};
use super::org::OrgReads;
use super::pacer::{Pacer, Presence};
use super::reservations::{use_reservations, ReservationsStore};
use super::session::{Door, SessionMark};
use crate::api::enums::ReservationStatus;
use crate::api::error::ApiError;
use crate::api::models::{NodesResponse, Reservation, ReservationDetail};
use crate::api::money::Usd;
use crate::browser::{now_ms, set_page_title};
use crate::domain::alerts::{self, node_changes, Alert, Inputs, NodeChange, LOW_USE_WINDOW};
use crate::domain::fleet::history::History;
use crate::domain::fleet::{has_nodes, Entry, Fleet, GpuSplit};
use crate::domain::polling::fleet::{request_gap, Next, Outcome, Schedule};
use crate::domain::polling::{self, Interval};
use crate::domain::words::time::Zone;
use crate::state::{use_connection, Lifetime};
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos::reactive::owner::WeakOwner;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// What the overview's loop is doing, as its status line says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStatus {
    /// Not started on this page yet (or the page was left).
    Stopped,
    Reading,
    /// The tab is hidden: nothing is read until it shows again.
    Hidden,
    /// 30 minutes without activity: reading resumes on the next key press or pointer move.
    Idle,
}

/// The overview's reads. Copy: every field is an arena handle of the app's owner.
#[derive(Clone, Copy)]
pub struct FleetStore {
    /// Whose key it reads with: the connection's, or an added account's (`reads::accounts`).
    door: Door,
    /// The session the data was read with.
    session: SessionMark,
    /// The list and each detail, which every page reads.
    reservations: ReservationsStore,
    /// Each reservation's latest `/nodes`, whichever page read it.
    nodes: NodesStore,
    /// Node state changes seen between reads, oldest first (at most [`CHANGES_KEPT`]).
    changes: RwSignal<Vec<NodeChange>>,
    /// Utilization since the tab opened, per reservation.
    history: RwSignal<BTreeMap<i64, History>>,
    /// Derives the alerts, once the overview installed it ([`Self::watch`]).
    deriver: RwSignal<Option<Deriver>, LocalStorage>,
    /// The per-reservation refresh interval of the running schedule.
    interval: RwSignal<Option<Duration>>,
    status: RwSignal<ReadStatus>,
    /// Starts the loop again for the page that runs it (its Retry), while that page is shown.
    restart: StoredValue<Option<Rc<dyn Fn()>>, LocalStorage>,
    /// Every start and every leave makes the running loop's ticket stale.
    loops: Generation,
    /// The `/fit` question watched, if any: its alerts join the bell's.
    fit_watch: FitWatch,
    /// The org reservations the org page read, whose ends the overview's calendar adds.
    orgs: OrgReads,
}

impl FleetStore {
    /// Empty; reads the connection, the [`ReservationsStore`] and the [`NodesStore`] from
    /// context.
    pub fn new() -> Self {
        Self::with(Door::Connection(use_connection()), use_reservations(), use_nodes())
    }

    /// Empty, with stores of its own, reading with `door`'s key: an account added beside
    /// the connection (`reads::accounts`). Its signals are made under the current owner.
    pub fn of(door: Door) -> Self {
        Self::with(door, ReservationsStore::of(door), NodesStore::of(door))
    }

    fn with(door: Door, reservations: ReservationsStore, nodes: NodesStore) -> Self {
        FleetStore {
            door,
            session: SessionMark::of(door),
            reservations,
            nodes,
            changes: RwSignal::new(Vec::new()),
            history: RwSignal::new(BTreeMap::new()),
            deriver: RwSignal::new_local(None),
            interval: RwSignal::new(None),
            status: RwSignal::new(ReadStatus::Stopped),
            restart: StoredValue::new_local(None),
            loops: Generation::default(),
            fit_watch: FitWatch::new(),
            orgs: OrgReads::new(),
        }
    }

    /// Makes the store `session`'s, dropping whatever an earlier session read.
    pub fn begin(&self, session: u64) {
        self.reservations.begin(session);
        if !self.session.claim(session) {
            return;
        }
        self.changes.set(Vec::new());
        self.history.set(BTreeMap::new());
        self.interval.set(None);
        self.fit_watch.cancel();
    }

    /// Whether the data is the current session's (tracked): nothing is shown otherwise.
    fn current(&self) -> bool {
        self.session.is_current()
    }

    pub fn receive_list(&self, session: u64, result: Result<Vec<Reservation>, ApiError>, at: DateTime<Utc>) {
        self.reservations.receive_list(session, result, at);
    }

    pub fn receive_detail(&self, session: u64, detail: ReservationDetail) {
        self.reservations.receive_detail(session, detail, Utc::now());
    }

    /// Reservation `id`'s detail could not be read: its rate stays unknown, and why is shown.
    pub fn receive_detail_error(&self, session: u64, id: i64, error: ApiError) {
        self.reservations.receive_detail_error(session, id, error);
    }

    /// Why reservation `id`'s detail is not read, if its read failed (tracked).
    pub fn detail_error(&self, id: i64) -> Option<ApiError> {
        self.reservations.detail_error(id)
    }

    /// The owner the store's signals were made in, while it lives.
    pub(super) fn owner(&self) -> Option<Owner> {
        self.nodes.owner()
    }

    /// The list and the details the loop reads.
    pub fn reservations_store(&self) -> ReservationsStore {
        self.reservations
    }

    /// Whether any reservation's nodes were read this session (tracked): alerts about
    /// nodes and use exist only then.
    pub fn has_read(&self) -> bool {
        self.current() && self.with_nodes().iter().any(|r| self.nodes.with(r.id, |read| read.latest.is_some()))
    }

    /// When the oldest of the latest `/nodes` answers the alerts are derived from was read
    /// (tracked): after the overview is left nothing re-reads most of them, and the bell
    /// says how old they are.
    pub fn oldest_read(&self) -> Option<DateTime<Utc>> {
        self.with_nodes().iter().filter_map(|r| self.nodes.with(r.id, NodesRead::at)).min()
    }

    /// The alerts of what was read, most severe first (tracked); none before the overview
    /// was opened (nothing is read before it).
    pub fn alerts(&self, now: DateTime<Utc>, owner: bool, zone: Zone) -> Vec<Alert> {
        if !self.current() {
            return Vec::new();
        }
        self.deriver.with(|derive| derive.as_ref().map(|derive| derive(now, owner, zone))).unwrap_or_default()
    }

    /// [`Self::alerts`]' work, installed with the overview's code ([`Self::watch`]).
    fn derive_alerts(&self, now: DateTime<Utc>, owner: bool, zone: Zone) -> Vec<Alert> {
        let reservations = self.reservations.reservations().unwrap_or_default();
        let recent_use: BTreeMap<i64, f64> = self
            .history
            .with(|all| all.iter().filter_map(|(id, h)| h.mean_over(LOW_USE_WINDOW, now).map(|m| (*id, m))).collect());
        let fits = self.fit_watch.fired();
        self.reservations.with_details(|details| {
            self.changes.with(|changes| {
                let inputs =
                    Inputs { reservations: &reservations, details, changes, recent_use: &recent_use, fits: &fits };
                alerts::alerts(&inputs, now, owner, zone)
            })
        })
    }

    /// One reservation's utilization history (tracked).
    pub fn history(&self, id: i64) -> Option<History> {
        self.current().then(|| self.history.with(|h| h.get(&id).cloned())).flatten()
    }

    /// Every reservation's history, by id (untracked: for a download).
    pub fn histories(&self) -> Vec<(i64, History)> {
        if !self.session.is_current_untracked() {
            return Vec::new();
        }
        self.history.with_untracked(|h| h.iter().map(|(id, h)| (*id, h.clone())).collect())
    }

    /// From now on, every reservation's answer, whichever page read it, records the node
    /// changes and the utilization the alerts are derived from, and the alerts are derived.
    /// The overview calls it, so this code comes with its page, not the first load (the
    /// header's bell only counts what it derives).
    pub fn watch(&self) {
        let store = *self;
        self.nodes.observe(Rc::new(move |id, before, after, at| store.record(id, before, after, at)));
        if self.deriver.with_untracked(Option::is_none) {
            self.deriver.set(Some(Rc::new(move |now, owner, zone| store.derive_alerts(now, owner, zone))));
        }
    }

    fn record(&self, id: i64, before: Option<&NodesResponse>, after: &NodesResponse, at: DateTime<Utc>) {
        if !self.current_untracked() {
            return;
        }
        let changed = before.map(|before| node_changes(id, before, after, at)).unwrap_or_default();
        if !changed.is_empty() {
            self.changes.update(|all| {
                all.extend(changed);
                let excess = all.len().saturating_sub(CHANGES_KEPT);
                all.drain(..excess);
            });
        }
        if let Some(utilization) = GpuSplit::of(after).utilization() {
            self.history.update(|h| h.entry(id).or_default().record(at, utilization));
        }
    }

    /// [`Self::current`], untracked.
    fn current_untracked(&self) -> bool {
        self.session.is_current_untracked()
    }

    /// The reservations read (tracked), `None` before the list arrives.
    pub fn reservations(&self) -> Option<Vec<Reservation>> {
        self.reservations.reservations()
    }

    /// When the list shown was read (tracked).
    pub fn list_at(&self) -> Option<DateTime<Utc>> {
        self.reservations.list_at()
    }

    /// The list's latest failure (tracked).
    pub fn list_error(&self) -> Option<ApiError> {
        self.reservations.list_error()
    }

    /// The reservations whose nodes the overview reads, in the list's order (tracked).
    pub fn with_nodes(&self) -> Vec<Reservation> {
        self.reservations().unwrap_or_default().into_iter().filter(|r| has_nodes(&r.status)).collect()
    }

    pub fn detail(&self, id: i64) -> Option<ReservationDetail> {
        self.reservations.detail(id)
    }

    /// What is known of reservation `id`'s nodes (tracked).
    pub fn read(&self, id: i64) -> NodesRead {
        self.nodes.read(id)
    }

    pub fn interval(&self) -> Option<Duration> {
        self.interval.get()
    }

    /// The interval reads are judged stale by (tracked): the running schedule's, or before
    /// one ran, the base refresh of five seconds.
    pub fn refresh_interval(&self) -> Duration {
        self.interval().unwrap_or(Duration::from_secs(5))
    }

    /// The watched `/fit` question.
    pub fn fit_watch(&self) -> FitWatch {
        self.fit_watch
    }

    /// The org reservations read this session.
    pub fn orgs(&self) -> OrgReads {
        self.orgs
    }

    pub fn status(&self) -> ReadStatus {
        self.status.get()
    }

    /// The fleet's sums from what was read (tracked). Rates come from the details: the
    /// owner's key is shown them, a member's never.
    pub fn fleet(&self) -> Fleet {
        Fleet::of(&self.read_now().entries())
    }

    /// What the sums are made of, as read now (tracked): the reservations with nodes, each
    /// one's latest `/nodes` and its rate (when its detail, read this session, has one).
    pub fn read_now(&self) -> ReadNow {
        let reservations = self.with_nodes();
        let current = self.current();
        let nodes = reservations.iter().map(|r| self.nodes.with(r.id, |read| read.latest.clone())).collect();
        let rates = self.reservations.with_details(|details| {
            let rate = |id| details.get(&id).filter(|_| current)?.payment.as_ref().map(|p| p.rate_usd_per_gpu_hour);
            reservations.iter().map(|r| rate(r.id)).collect()
        });
        ReadNow { reservations, nodes, rates }
    }

    /// Whether it reads with an account added beside the connection: a 401 of its key ends
    /// no session, so its rows say it.
    pub fn is_added(&self) -> bool {
        matches!(self.door, Door::Added { .. })
    }

    /// Reads again from the list on, on the page that shows the store: a Retry after the
    /// list could not be read (the loop ends on a failure that will not pass by itself).
    pub fn retry(&self) {
        if let Some(restart) = self.restart.try_with_value(Clone::clone).flatten() {
            restart();
        }
    }

    /// Stops the running loop, if any.
    fn stop(&self) {
        self.loops.stop();
        self.status.try_set(ReadStatus::Stopped);
    }
}

/// One store's reads as the sums take them ([`FleetStore::read_now`]): owned, so that the
/// sums of several accounts can borrow each one's at once.
pub struct ReadNow {
    reservations: Vec<Reservation>,
    nodes: Vec<Option<super::remote::Fetched<Arc<NodesResponse>>>>,
    rates: Vec<Option<Usd>>,
}

impl ReadNow {
    /// One entry per reservation, borrowing what was read.
    pub fn entries(&self) -> Vec<Entry<'_>> {
        let read = self.reservations.iter().zip(&self.nodes).zip(&self.rates);
        read.map(|((reservation, latest), rate)| Entry {
            reservation,
            nodes: latest.as_ref().map(|f| &*f.value),
            rate: *rate,
        })
        .collect()
    }
}

/// Node changes kept for the alerts: far more than a session shows.
const CHANGES_KEPT: usize = 200;

/// The alerts at a time, for the owner or not, in a zone.
type Deriver = Rc<dyn Fn(DateTime<Utc>, bool, Zone) -> Vec<Alert>>;

impl Default for FleetStore {
    fn default() -> Self {
        Self::new()
    }
}

/// The store provided by the app.
pub fn use_fleet() -> FleetStore {
    app_fleet().expect("the app's stores are provided")
}

/// The app's store, made on first use under the app's owner (the one its [`NodesStore`] was
/// made in), so that it outlives the page that first asked and the first load carries none
/// of its code: only the pages that show the fleet's reads use it. None where the app's
/// stores are not provided (a component mounted alone in a test).
pub fn app_fleet() -> Option<FleetStore> {
    if let Some(store) = use_context::<FleetStore>() {
        return Some(store);
    }
    let app = use_context::<NodesStore>()?.owner()?;
    Some(app.with(|| {
        let store = FleetStore::new();
        provide_context(store);
        store
    }))
}

/// A list read that failed waits this long before the next attempt (or the `retry-after`).
const LIST_RETRY: Duration = Duration::from_secs(10);

/// What the pages that show the overview's reads (the overview, `/fit`, `/capacity`) do as
/// they open: name the page `title` and read for as long as it is shown, on the page's
/// refresh interval ([`page_interval`]). Returns the store they show.
pub fn fleet_page(title: &str) -> FleetStore {
    set_page_title(title);
    let store = use_fleet();
    read_on_page(store, page_interval());
    store
}

/// Reads into `store` for as long as the calling owner (a page, or one account's part of
/// it) lives, every `base`; its Retry restarts the reads under the same owner.
pub(super) fn read_on_page(store: FleetStore, base: Interval) {
    start_reads(store, base);
    // A Retry starts the loop again under this page, so that leaving the page stops it too.
    let page = Owner::current().map(|owner| owner.downgrade());
    store.restart.set_value(Some(Rc::new(move || {
        if let Some(owner) = page.as_ref().and_then(WeakOwner::upgrade) {
            owner.with(|| start_reads(store, base));
        }
    })));
    on_cleanup(move || {
        store.restart.try_set_value(None);
    });
}

/// Starts the overview's reads for as long as the calling page is shown: the list, then
/// each reservation's `/nodes` on [`Schedule`] (one request in flight for the whole page,
/// at most 100 a minute; the first round skips those the session read within the interval),
/// and each reservation's detail once, after the first round of nodes. Every request
/// starts at least [`request_gap`] after the previous one ended ([`Pacer`]); a hidden tab
/// or an idle user holds the loop until the [`Presence`] changes.
fn start_reads(store: FleetStore, base: Interval) {
    let Some(session) = store.door.session_id_untracked() else { return };
    store.begin(session);
    store.watch();
    let Some(ticket) = store.loops.next_for(store.door) else { return };
    let presence = Presence::watch();
    on_cleanup(move || store.stop());
    store.status.set(ReadStatus::Reading);
    let reader = Reader { store, ticket, presence, pacer: Pacer::new(request_gap()) };
    leptos::task::spawn_local(async move { reader.run(base).await });
}

/// One run of the loop.
struct Reader {
    store: FleetStore,
    /// Stale once the loop is stopped, restarted, or another key is connected.
    ticket: Ticket,
    presence: Presence,
    pacer: Pacer,
}

impl Reader {
    /// Still the store's loop, for the same session.
    fn alive(&self) -> bool {
        self.ticket.current()
    }

    /// Waits `wait`, and at least the gap after the previous request; then whether the
    /// loop still runs.
    async fn pace(&self, wait: Duration) -> bool {
        self.pacer.wait(wait).await;
        self.alive()
    }

    /// A request ended. A 429's wait is the schedule's (it holds every reservation), a
    /// failed list's the caller's: none holds the pacer here.
    fn ended(&self) {
        self.pacer.ended(None);
    }

    async fn run(&self, base: Interval) {
        let Some(list) = self.read_list().await else { return };
        let wanted: Vec<i64> = list.iter().filter(|r| has_nodes(&r.status)).map(|r| r.id).collect();
        let mut details: Vec<i64> =
            list.iter().filter(|r| r.status != ReservationStatus::Ended).map(|r| r.id).rev().collect();
        let mut schedule = Schedule::new(wanted.len(), base, now_ms());
        self.store.interval.set(Some(schedule.interval()));
        let mut nodes_read = self.read_already(&mut schedule, &wanted);
        // Details that failed, read again once per later round of nodes.
        let mut failed: Vec<i64> = Vec::new();
        let mut retried_round = 1;
        loop {
            let round = nodes_read.checked_div(wanted.len()).unwrap_or(0);
            if round > retried_round && details.is_empty() {
                retried_round = round;
                details.append(&mut failed);
            }
            // The first round of nodes first (the figures people came for), then the details.
            if nodes_read >= wanted.len() || wanted.is_empty() {
                if let Some(id) = details.pop() {
                    if !self.pace(Duration::ZERO).await {
                        return;
                    }
                    // The store keeps the answer, or why it failed, for every page.
                    let result = self.store.reservations.read_detail(id, Lifetime::Session).await;
                    self.ended();
                    if !self.alive() {
                        return;
                    }
                    // A detail that cannot be read leaves its rate (and its alerts) out; one
                    // that may be read later is read again on the page's schedule.
                    if result.is_err_and(|error| error.is_transient()) {
                        failed.push(id);
                    }
                    if wanted.is_empty() && details.is_empty() {
                        // No nodes to pace the retries: wait a round of the base interval.
                        if failed.is_empty() || !self.pace(base.get()).await {
                            return;
                        }
                        details.append(&mut failed);
                    }
                    continue;
                }
            }
            let (index, wait) = match schedule.next(self.presence.seen()) {
                Next::Read { index, wait } => (index, wait),
                Next::Idle => {
                    self.store.status.set(ReadStatus::Stopped);
                    return;
                }
                waiting => {
                    let status = if waiting == Next::WaitForVisible { ReadStatus::Hidden } else { ReadStatus::Idle };
                    self.store.status.set(status);
                    self.presence.look_again().await;
                    if !self.alive() {
                        return;
                    }
                    continue;
                }
            };
            self.store.status.set(ReadStatus::Reading);
            if !self.pace(wait).await {
                return;
            }
            let id = wanted[index];
            // The answer lands in the nodes store, which every page reads.
            let result = self.store.nodes.fetch(id, Lifetime::Session).await;
            self.ended();
            if !self.alive() {
                return;
            }
            let outcome = match &result {
                Ok(_) => Outcome::Ok,
                Err(e) => Outcome::Failed { retry_after: e.retry_after(), rate_limited: e.status == Some(429) },
            };
            schedule.finished(index, now_ms(), outcome, js_sys::Math::random());
            nodes_read += 1;
        }
    }

    /// Counts in `schedule` the reservations of `wanted` whose nodes this session read
    /// within its interval (the list's GPUs-in-use reads, a Nodes page): they are shown
    /// already, so the first round reads only the others. Returns how many.
    fn read_already(&self, schedule: &mut Schedule, wanted: &[i64]) -> usize {
        // The store stamps its answers with the system clock.
        let (ms, now) = (now_ms(), Utc::now());
        let mut counted = 0;
        for (index, id) in wanted.iter().enumerate() {
            let at = untrack(|| self.store.nodes.with(*id, |read| read.at().filter(|_| read.error.is_none())));
            let ago = at.and_then(|at| (now - at).to_std().ok());
            if ago.is_some_and(|ago| schedule.read_before(index, ago, ms, js_sys::Math::random())) {
                counted += 1;
            }
        }
        counted
    }

    /// The reservations, retried while the failure is transient.
    async fn read_list(&self) -> Option<Vec<Reservation>> {
        loop {
            // The store keeps the answer, or why it failed, for every page.
            let result = self.store.reservations.read_list(Lifetime::Session).await;
            self.ended();
            if !self.alive() {
                return None;
            }
            let retry = result.as_ref().err().map(|e| (e.is_transient(), e.retry_after()));
            match retry {
                None => return result.ok(),
                Some((false, _)) => return None,
                Some((true, asked)) => {
                    if !self.pace(asked.map_or(LIST_RETRY, polling::server_wait)).await {
                        return None;
                    }
                }
            }
        }
    }
}

impl fit_watch::Reads for FleetStore {
    fn reservations(&self) -> Option<Vec<Reservation>> {
        FleetStore::reservations(self)
    }

    fn read(&self, id: i64) -> NodesRead {
        FleetStore::read(self, id)
    }

    fn refresh_interval(&self) -> Duration {
        FleetStore::refresh_interval(self)
    }
}
