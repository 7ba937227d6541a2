//! One store, per session, of the reservations list and each reservation's detail, as
//! [`super::nodes::NodesStore`] is of `/nodes`. Every page that shows them reads through it
//! (the list, a reservation, the ledger, the overview's loop), so moving between pages shows
//! what is already known, with its age, and reads again only what is no longer fresh.
//! Every request passes the one door of [`ConnectionState::send_for`] (the tab's share of the
//! key's budget, a 401 ending the session).
//!
//! Everything belongs to one session: a new key starts empty, so an owner's payment can
//! never be shown under a member's key.

use super::generation::Generation;
use super::remote::{Fetched, Read, Remote};
use super::session::{Door, SessionMark};
use crate::api::client;
use crate::api::error::ApiError;
use crate::api::models::{Reservation, ReservationDetail};
use crate::browser::{now_ms, sleep};
use crate::domain::polling::fleet::request_gap;
use crate::domain::polling::{next_delay, Interval, PollDecision, PollState, Seen, DEFAULT_INTERVAL};
use crate::state::{use_connection, Lifetime, Role, Sent};
use chrono::{DateTime, TimeDelta, Utc};
use leptos::prelude::*;
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

/// How long a list or a detail read counts as fresh: a page opened within this of the read
/// shows it without reading again. Reservations change by the day (a status, a payment),
/// not by the second; every page says the age of what it shows and offers a refresh.
pub const KEPT_FRESH: TimeDelta = TimeDelta::seconds(60);

/// The store. Copy: every field is an arena handle of the app's owner, so what a page read
/// outlives the page.
#[derive(Clone, Copy)]
pub struct ReservationsStore {
    /// Whose key it reads with.
    door: Door,
    /// The session the data was read with.
    session: SessionMark,
    list: RwSignal<Option<Fetched<Vec<Reservation>>>>,
    /// The latest list read's failure, cleared by the next success.
    list_error: RwSignal<Option<ApiError>>,
    /// Each detail read, by id; when each was read is in `read_at` (the alerts and sums take
    /// the details as the API sent them, without a copy).
    details: RwSignal<BTreeMap<i64, ReservationDetail>>,
    read_at: RwSignal<BTreeMap<i64, DateTime<Utc>>>,
    /// The latest failure of each detail, cleared by its next success.
    detail_errors: RwSignal<BTreeMap<i64, ApiError>>,
}

impl ReservationsStore {
    /// Empty; reads the connection from context. Create it once, in the app.
    pub fn new() -> Self {
        Self::of(Door::Connection(use_connection()))
    }

    /// Empty; reads with `door`'s key (an account added beside the connection).
    pub fn of(door: Door) -> Self {
        ReservationsStore {
            door,
            session: SessionMark::of(door),
            list: RwSignal::new(None),
            list_error: RwSignal::new(None),
            details: RwSignal::new(BTreeMap::new()),
            read_at: RwSignal::new(BTreeMap::new()),
            detail_errors: RwSignal::new(BTreeMap::new()),
        }
    }

    /// Makes the store `session`'s, dropping whatever an earlier session read.
    pub fn begin(&self, session: u64) {
        if !self.session.claim(session) {
            return;
        }
        self.list.set(None);
        self.list_error.set(None);
        self.details.set(BTreeMap::new());
        self.read_at.set(BTreeMap::new());
        self.detail_errors.set(BTreeMap::new());
    }

    /// Starts the store for the current session (tests feed answers with the `receive_`s).
    pub fn begin_current(&self) -> Option<u64> {
        let session = self.door.session_id_untracked()?;
        self.begin(session);
        Some(session)
    }

    /// Whether the data is the current session's (tracked): nothing is shown otherwise.
    fn current(&self) -> bool {
        self.session.is_current()
    }

    pub fn receive_list(&self, session: u64, result: Result<Vec<Reservation>, ApiError>, at: DateTime<Utc>) {
        if !self.session.owns(session) || result.as_ref().is_err_and(ApiError::is_cancelled) {
            return;
        }
        match result {
            Ok(value) => {
                self.list.set(Some(Fetched { value, at }));
                self.list_error.set(None);
            }
            Err(error) => self.list_error.set(Some(error)),
        }
    }

    pub fn receive_detail(&self, session: u64, detail: ReservationDetail, at: DateTime<Utc>) {
        if self.session.owns(session) {
            let id = detail.reservation.id;
            self.detail_errors.update(|e| {
                e.remove(&id);
            });
            self.read_at.update(|r| {
                r.insert(id, at);
            });
            self.details.update(|d| {
                d.insert(id, detail);
            });
        }
    }

    /// Reservation `id`'s detail could not be read: what was read before is kept, and why
    /// is shown beside it.
    pub fn receive_detail_error(&self, session: u64, id: i64, error: ApiError) {
        if self.session.owns(session) && !error.is_cancelled() {
            self.detail_errors.update(|e| {
                e.insert(id, error);
            });
        }
    }

    /// The reservations read (tracked), `None` before the list arrives.
    pub fn reservations(&self) -> Option<Vec<Reservation>> {
        self.current().then(|| self.list.with(|l| l.as_ref().map(|l| l.value.clone()))).flatten()
    }

    /// When the list shown was read (tracked).
    pub fn list_at(&self) -> Option<DateTime<Utc>> {
        self.current().then(|| self.list.with(|l| l.as_ref().map(|l| l.at))).flatten()
    }

    /// The list's latest failure (tracked).
    pub fn list_error(&self) -> Option<ApiError> {
        self.current().then(|| self.list_error.get()).flatten()
    }

    /// Reservation `id`'s detail, if read this session (tracked).
    pub fn detail(&self, id: i64) -> Option<ReservationDetail> {
        self.current().then(|| self.details.with(|d| d.get(&id).cloned())).flatten()
    }

    /// When reservation `id`'s detail shown was read (tracked).
    pub fn detail_at(&self, id: i64) -> Option<DateTime<Utc>> {
        self.current().then(|| self.read_at.with(|r| r.get(&id).copied())).flatten()
    }

    /// Calls `f` with every detail read this session, by id, without cloning them (tracked).
    pub fn with_details<R>(&self, f: impl FnOnce(&BTreeMap<i64, ReservationDetail>) -> R) -> R {
        if self.current() {
            self.details.with(f)
        } else {
            f(&BTreeMap::new())
        }
    }

    /// Why reservation `id`'s detail is not read (or not read again), if its latest read
    /// failed (tracked).
    pub fn detail_error(&self, id: i64) -> Option<ApiError> {
        self.current().then(|| self.detail_errors.with(|e| e.get(&id).cloned())).flatten()
    }

    /// The list read within [`KEPT_FRESH`] of now, if any (untracked); copied only then.
    fn fresh_list(&self) -> Option<Vec<Reservation>> {
        if !self.session.is_current_untracked() {
            return None;
        }
        let now = Utc::now();
        self.list.try_with_untracked(|l| l.as_ref().filter(|l| is_fresh(l.at, now)).map(|l| l.value.clone())).flatten()
    }

    /// Whether the detail of `id` was read within [`KEPT_FRESH`] of now (untracked).
    fn has_fresh_detail(&self, id: i64) -> bool {
        let now = Utc::now();
        self.session.is_current_untracked()
            && self.read_at.try_with_untracked(|r| r.get(&id).is_some_and(|at| is_fresh(*at, now))).unwrap_or(false)
    }

    /// The detail of `id` read within [`KEPT_FRESH`] of now, if any (untracked).
    fn fresh_detail(&self, id: i64) -> Option<ReservationDetail> {
        self.has_fresh_detail(id).then(|| self.details.try_with_untracked(|d| d.get(&id).cloned()).flatten()).flatten()
    }

    /// The list: the one read within [`KEPT_FRESH`] with no request, else a read whose
    /// answer (or failure) lands here whoever asked.
    pub fn read_list(&self, lifetime: Lifetime) -> Sent<Vec<Reservation>> {
        match self.fresh_list() {
            Some(list) => Box::pin(async move { Ok(list) }),
            None => self.read_list_anew(lifetime),
        }
    }

    /// The list read again, fresh or not (a Refresh, a Retry).
    pub fn read_list_anew(&self, lifetime: Lifetime) -> Sent<Vec<Reservation>> {
        let Some(session) = self.door.session_id_untracked() else {
            return Box::pin(async { Err(ApiError::invalid_request("Not connected.")) });
        };
        self.begin(session);
        let (store, sent) =
            (*self, self.door.send_for(lifetime, |c| async move { client::list_reservations(&c).await }));
        Box::pin(async move {
            let result = sent.await;
            store.receive_list(session, result.clone(), Utc::now());
            result
        })
    }

    /// Reservation `id`'s detail, as [`Self::read_list`] reads the list. Its answer also
    /// tells the connection the key's role (`payment` is the owner's alone).
    pub fn read_detail(&self, id: i64, lifetime: Lifetime) -> Sent<ReservationDetail> {
        match self.fresh_detail(id) {
            Some(detail) => Box::pin(async move { Ok(detail) }),
            None => self.read_detail_anew(id, lifetime),
        }
    }

    /// Reservation `id`'s detail read again, fresh or not.
    pub fn read_detail_anew(&self, id: i64, lifetime: Lifetime) -> Sent<ReservationDetail> {
        let Some(session) = self.door.session_id_untracked() else {
            return Box::pin(async { Err(ApiError::invalid_request("Not connected.")) });
        };
        self.begin(session);
        let (store, door) = (*self, self.door);
        let sent = self.door.send_for(lifetime, move |c| async move {
            let detail = client::reservation(&c, id).await?;
            door.learn_role(&c, Role::of(&detail));
            Ok(detail)
        });
        Box::pin(async move {
            let result = sent.await;
            match &result {
                Ok(detail) => store.receive_detail(session, detail.clone(), Utc::now()),
                Err(error) => store.receive_detail_error(session, id, error.clone()),
            }
            result
        })
    }
}

impl ReservationsStore {
    /// The list as a page shows it ([`Remote`]): what the store holds when fresh, read
    /// again on Refresh; the age shown is the read's.
    pub fn list_remote(&self) -> Remote<Vec<Reservation>> {
        let store = *self;
        Remote::from_reads(move |anew| {
            let sent = if anew { store.read_list_anew(Lifetime::Page) } else { store.read_list(Lifetime::Page) };
            store.stamped(sent, move || store.list.try_with_untracked(|l| l.as_ref().map(|l| l.at)).flatten())
        })
    }

    /// Reservation `id`'s detail as a page shows it, as [`Self::list_remote`].
    pub fn detail_remote(&self, id: i64) -> Remote<ReservationDetail> {
        let store = *self;
        Remote::from_reads(move |anew| {
            let sent =
                if anew { store.read_detail_anew(id, Lifetime::Page) } else { store.read_detail(id, Lifetime::Page) };
            store.stamped(sent, move || store.read_at.try_with_untracked(|r| r.get(&id).copied()).flatten())
        })
    }

    /// `sent`'s answer with when the store's copy of it was read (`at`, once it answered).
    fn stamped<T: 'static>(&self, sent: Sent<T>, at: impl Fn() -> Option<DateTime<Utc>> + 'static) -> Read<T> {
        Box::pin(async move { sent.await.map(|value| Fetched { value, at: at().unwrap_or_else(Utc::now) }) })
    }
}

impl Default for ReservationsStore {
    fn default() -> Self {
        Self::new()
    }
}

/// The store provided by the app.
pub fn use_reservations() -> ReservationsStore {
    expect_context::<ReservationsStore>()
}

/// Whether a read made at `at` is still fresh at `now` ([`KEPT_FRESH`]).
fn is_fresh(at: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    now - at <= KEPT_FRESH
}

/// Where a paced read of many details stands (the ledger's): the reservations not read yet,
/// and the failure being waited out, if any. What failed for good is the store's
/// [`ReservationsStore::detail_error`].
#[derive(Clone, Copy)]
pub struct DetailsProgress {
    queued: RwSignal<Vec<i64>>,
    waiting: RwSignal<Option<ApiError>>,
    reads: Generation,
    store: ReservationsStore,
}

/// Transient failures of one detail (a 500, the network) before it is left unread with
/// its error shown; a 429 or 503 is waited out as the API asks, however often.
const ATTEMPTS: u32 = 3;

impl DetailsProgress {
    /// Nothing read yet; made by the page that shows the reads, which stop as it is left.
    pub fn new(store: ReservationsStore) -> Self {
        DetailsProgress {
            queued: RwSignal::new(Vec::new()),
            waiting: RwSignal::new(None),
            reads: Generation::default(),
            store,
        }
    }

    /// Reads the detail of each of `ids` that is not fresh, in place of whatever was queued
    /// (a new list, a Retry): one request at a time, each at least [`request_gap`] after the
    /// previous ended (the overview's pace). A 429 or 503 waits its `retry-after` (else the
    /// live loop's backoff) and reads the same again; other transient failures are tried
    /// [`ATTEMPTS`] times; a refusal (403, 404) is recorded and the next is read. A member's
    /// key reads no payment, so the reads stop once the key is known to be a member's.
    pub fn read(&self, ids: Vec<i64>) {
        let store = self.store;
        let wanted: VecDeque<i64> = ids.into_iter().filter(|id| !store.has_fresh_detail(*id)).collect();
        self.queued.set(wanted.iter().copied().collect());
        self.waiting.set(None);
        let Some(ticket) = self.reads.next_for(store.door) else { return };
        let progress = *self;
        leptos::task::spawn_local(async move {
            let mut wanted = wanted;
            let mut failures = 0;
            while let Some(&id) = wanted.front() {
                if store.door.role_untracked() == Role::Member {
                    break;
                }
                let result = store.read_detail_anew(id, Lifetime::Page).await;
                if !ticket.current() || result.as_ref().is_err_and(ApiError::is_cancelled) {
                    return;
                }
                let wait = match result {
                    Err(error)
                        if error.is_transient() && (error.retry_after().is_some() || failures + 1 < ATTEMPTS) =>
                    {
                        failures += 1;
                        let wait = retry_wait(failures, &error);
                        progress.waiting.try_set(Some(error));
                        wait
                    }
                    _ => {
                        failures = 0;
                        wanted.pop_front();
                        progress.waiting.try_set(None);
                        progress.queued.try_update(|q| q.retain(|q| *q != id));
                        request_gap()
                    }
                };
                sleep(wait).await;
                if !ticket.current() {
                    return;
                }
            }
            progress.queued.try_set(Vec::new());
        });
    }

    /// The reservations whose detail is still to be read (tracked).
    pub fn queued(&self) -> Vec<i64> {
        self.queued.get()
    }

    /// The failure being waited out before the same read is tried again (tracked).
    pub fn waiting(&self) -> Option<ApiError> {
        self.waiting.get()
    }
}

/// The wait before reading again after the `failures`th failure in a row: the server's
/// `retry-after`, else the live loop's jittered backoff (`domain::polling`, one rule).
fn retry_wait(failures: u32, error: &ApiError) -> Duration {
    let now = now_ms();
    let state = PollState {
        seen: Seen { now_ms: now, last_activity_ms: now, visible: true },
        consecutive_failures: failures,
        retry_after: error.retry_after(),
        interval: Interval::every(DEFAULT_INTERVAL),
    };
    match next_delay(&state, js_sys::Math::random()) {
        PollDecision::Wait(wait) | PollDecision::WaitForVisible(wait) => wait,
        PollDecision::Stop(_) => DEFAULT_INTERVAL,
    }
}
