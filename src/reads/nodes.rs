//! One store, per session, of each reservation's latest `/nodes` answer, with when it was
//! read and whether its region could be read. Every reader writes it (the Nodes and
//! workload pages' polls, the overview's loop, the list's GPUs-in-use reads, the read sent
//! when a Nodes page is opened) and every view reads it, so moving between pages shows what
//! is already known at once, with its age, and never reads twice at the same time what one
//! read is already fetching. Once the overview has been opened, every answer, whichever
//! page read it, is also shown to the overview's observer ([`NodesStore::observe`]), which
//! records the node changes and utilization the alerts are derived from.

use super::remote::Fetched;
use super::session::{Door, SessionMark};
use crate::api::client;
use crate::api::error::ApiError;
use crate::api::models::{NodesKept, NodesResponse};
use crate::browser::poll_once;
use crate::state::{use_connection, Lifetime, Sent};
use chrono::{DateTime, TimeDelta, Utc};
use futures_channel::oneshot;
use leptos::prelude::*;
use leptos::reactive::owner::WeakOwner;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// How long an answer counts as just read: a page opened within this of a read shows it as
/// its first poll instead of reading again. `index.html`'s early read keeps its answer as
/// long (a test holds the two together).
pub const FRESH_MS: i64 = 1_000;

/// One answer as it was received.
pub type NodesAnswer = Result<Arc<NodesResponse>, ApiError>;

/// What is known of one reservation's nodes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodesRead {
    /// The latest answer received, kept when a later read fails.
    pub latest: Option<Fetched<Arc<NodesResponse>>>,
    /// The latest answer in which the region could be read (placement known).
    pub known: Option<Fetched<Arc<NodesResponse>>>,
    /// The latest attempt's error, cleared by the next success.
    pub error: Option<ApiError>,
}

impl NodesRead {
    /// Folds one read's outcome in: a failure keeps the answers already received.
    pub fn receive(&mut self, result: NodesAnswer, at: DateTime<Utc>) {
        match result {
            Ok(response) => {
                if !response.workloads_unknown {
                    self.known = Some(Fetched { value: Arc::clone(&response), at });
                }
                self.latest = Some(Fetched { value: response, at });
                self.error = None;
            }
            Err(error) => self.error = Some(error),
        }
    }

    /// When the latest answer was received.
    pub fn at(&self) -> Option<DateTime<Utc>> {
        self.latest.as_ref().map(|f| f.at)
    }

    /// Whether the latest answer could read the region (`None` before any answer).
    pub fn reachable(&self) -> Option<bool> {
        self.latest.as_ref().map(|f| !f.value.workloads_unknown)
    }

    /// Whether `other` holds the very same answers and error (answers compared by identity:
    /// a 10,000-node answer is never compared field by field).
    pub fn is_same(&self, other: &NodesRead) -> bool {
        let same = |a: &Option<Fetched<Arc<NodesResponse>>>, b: &Option<Fetched<Arc<NodesResponse>>>| match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(&a.value, &b.value) && a.at == b.at,
            (None, None) => true,
            _ => false,
        };
        same(&self.latest, &other.latest) && same(&self.known, &other.known) && self.error == other.error
    }

    /// The latest answer, if it arrived within [`FRESH_MS`] of `now`.
    fn fresh(&self, now: DateTime<Utc>) -> Option<Arc<NodesResponse>> {
        let latest = self.latest.as_ref()?;
        (now - latest.at <= TimeDelta::milliseconds(FRESH_MS)).then(|| Arc::clone(&latest.value))
    }
}

/// The store. Copy: every field is an arena handle of the app's owner, so what a page read
/// outlives the page.
#[derive(Clone, Copy)]
pub struct NodesStore {
    /// Whose key it reads with.
    door: Door,
    /// The owner the store was made in (the app's): each reservation's signal is created
    /// under it, not under the page that first asked. Weak: held strongly in its own arena,
    /// the owner would never be cleaned up.
    owner: StoredValue<WeakOwner>,
    /// The session the store's data was read with.
    session: SessionMark,
    reads: StoredValue<HashMap<i64, RwSignal<NodesRead>>>,
    /// The readers waiting for the read of a reservation under way, by session and id.
    waiting: StoredValue<HashMap<(u64, i64), Flight>, LocalStorage>,
    /// Reads sent so far: each flight's number.
    sent: StoredValue<u64>,
    /// The latest answer each reservation's reads received, with the text it was read
    /// from: the next read takes the nodes sent as before from it.
    texts: StoredValue<HashMap<i64, NodesKept>, LocalStorage>,
    /// Shown every answer with the one before it, once installed. Installed by the overview
    /// (its code comes with its page, so the first load carries none of it).
    observer: StoredValue<Option<Observer>, LocalStorage>,
}

/// What watches every answer: reservation, the answer before (if any), the answer, when.
pub type Observer = Rc<dyn Fn(i64, Option<&NodesResponse>, &NodesResponse, DateTime<Utc>)>;

/// One read under way, and who waits for its answer.
struct Flight {
    /// Which read: a newer one of the same reservation replaces it in the map.
    number: u64,
    readers: Rc<RefCell<Vec<oneshot::Sender<NodesAnswer>>>>,
}

impl NodesStore {
    /// Empty; reads the connection from context. Create it once, in the app.
    pub fn new() -> Self {
        Self::of(Door::Connection(use_connection()))
    }

    /// Empty; reads with `door`'s key (an account added beside the connection), its
    /// signals made under the current owner.
    pub fn of(door: Door) -> Self {
        NodesStore {
            door,
            owner: StoredValue::new(Owner::current().unwrap_or_default().downgrade()),
            session: SessionMark::of(door),
            reads: StoredValue::new(HashMap::new()),
            waiting: StoredValue::new_local(HashMap::new()),
            sent: StoredValue::new(0),
            texts: StoredValue::new_local(HashMap::new()),
            observer: StoredValue::new_local(None),
        }
    }

    /// Makes the store `session`'s, dropping whatever an earlier session read.
    fn begin(&self, session: u64) {
        if !self.session.claim(session) {
            return;
        }
        self.texts.update_value(HashMap::clear);
        let dropped = self.reads.try_update_value(std::mem::take).unwrap_or_default();
        dropped.into_values().for_each(RwSignal::dispose);
    }

    /// The owner the store was made in (the app's, for the app's store), while it lives.
    pub(super) fn owner(&self) -> Option<Owner> {
        self.owner.try_with_value(WeakOwner::upgrade).flatten()
    }

    /// Whether the data is the current session's (tracked): nothing is shown otherwise.
    fn current(&self) -> bool {
        self.session.is_current()
    }

    /// Reservation `id`'s signal, created under the app's owner on first use.
    fn entry(&self, id: i64) -> RwSignal<NodesRead> {
        if let Some(signal) = self.reads.with_value(|reads| reads.get(&id).copied()) {
            return signal;
        }
        let owner = self.owner.with_value(WeakOwner::upgrade).unwrap_or_default();
        let signal = owner.with(|| RwSignal::new(NodesRead::default()));
        self.reads.update_value(|reads| {
            reads.insert(id, signal);
        });
        signal
    }

    /// What is known of reservation `id` in this session (tracked).
    pub fn read(&self, id: i64) -> NodesRead {
        self.with(id, NodesRead::clone)
    }

    /// Calls `f` with what is known of `id`, without cloning it (tracked).
    pub fn with<R>(&self, id: i64, f: impl FnOnce(&NodesRead) -> R) -> R {
        if !self.current() {
            return f(&NodesRead::default());
        }
        self.entry(id).with(f)
    }

    /// Reads reservation `id`'s nodes, or joins the read of them already under way. The
    /// request leaves now (before the caller renders anything); its answer lands here
    /// whoever asked, and every caller gets it. A request aborted because its page was left
    /// records nothing.
    pub fn fetch(&self, id: i64, lifetime: Lifetime) -> Sent<Arc<NodesResponse>> {
        self.send(id, lifetime, false)
    }

    /// Reads reservation `id`'s nodes anew even while another read of them is under way
    /// (one sent for a page now left): later callers of [`Self::fetch`] join this one.
    pub fn fetch_new(&self, id: i64, lifetime: Lifetime) -> Sent<Arc<NodesResponse>> {
        self.send(id, lifetime, true)
    }

    fn send(&self, id: i64, lifetime: Lifetime, anew: bool) -> Sent<Arc<NodesResponse>> {
        let Some(session) = self.door.session_id_untracked() else {
            return Box::pin(async { Err(ApiError::invalid_request("Not connected.")) });
        };
        self.begin(session);
        let (deliver, answer) = oneshot::channel();
        // This read's number, should it be sent (a number unused by a joining read is skipped).
        let number = self
            .sent
            .try_update_value(|n| {
                *n += 1;
                *n
            })
            .unwrap_or_default();
        let joined = self.waiting.try_update_value(|waiting| match waiting.get(&(session, id)) {
            Some(flight) if !anew => {
                flight.readers.borrow_mut().push(deliver);
                None
            }
            _ => {
                let readers = Rc::new(RefCell::new(vec![deliver]));
                waiting.insert((session, id), Flight { number, readers: Rc::clone(&readers) });
                Some((number, readers))
            }
        });
        if let Some(Some((number, readers))) = joined {
            let store = *self;
            let before = self.texts.with_value(|texts| texts.get(&id).cloned());
            let sent = self.door.send_for(lifetime, move |c| async move { client::nodes(&c, id, before).await });
            let read = Box::pin(async move {
                let result = sent.await.map(|(response, text)| {
                    let response = Arc::new(response);
                    if store.session.owns(session) {
                        store.texts.update_value(|texts| {
                            texts.insert(id, (Arc::clone(&response), Rc::new(text)));
                        });
                    }
                    response
                });
                store.receive(session, id, result.clone(), Utc::now());
                store.waiting.try_update_value(|w| {
                    if w.get(&(session, id)).is_some_and(|f| f.number == number) {
                        w.remove(&(session, id));
                    }
                });
                for reader in readers.take() {
                    let _ = reader.send(result.clone());
                }
            });
            if let Err(read) = poll_once(read) {
                leptos::task::spawn_local(read);
            }
        }
        Box::pin(async move {
            match answer.await {
                Ok(result) => result,
                // The read's task ended without answering: only when the app is torn down.
                Err(_) => Err(ApiError::cancelled()),
            }
        })
    }

    /// The answer that arrived within [`FRESH_MS`], if any (this session's).
    fn fresh(&self, id: i64) -> Option<Arc<NodesResponse>> {
        self.door.session_id_untracked().filter(|s| self.session.owns(*s)).and_then(|_| {
            self.reads.with_value(|r| r.get(&id).copied()).and_then(|e| e.with_untracked(|r| r.fresh(Utc::now())))
        })
    }

    /// Whether an answer for `id` arrived within [`FRESH_MS`]: a page opened now shows it
    /// without a read.
    pub fn has_fresh(&self, id: i64) -> bool {
        self.fresh(id).is_some()
    }

    /// The answer that arrived within [`FRESH_MS`], with no request (a page opened right
    /// after another read its nodes); else a read of its own, which takes the one sent
    /// ahead as the page was opened ([`super::read_ahead`]), if any.
    pub fn fetch_fresh(&self, id: i64, lifetime: Lifetime) -> Sent<Arc<NodesResponse>> {
        match self.fresh(id) {
            Some(response) => Box::pin(async move { Ok(response) }),
            None => self.fetch_new(id, lifetime),
        }
    }

    /// One read's outcome, received at `at` in session `session`: kept, and shown to the
    /// observer. Dropped when another key was connected meanwhile.
    pub fn receive(&self, session: u64, id: i64, result: NodesAnswer, at: DateTime<Utc>) {
        if !self.session.owns(session) {
            return;
        }
        if result.as_ref().is_err_and(ApiError::is_cancelled) {
            return;
        }
        let entry = self.entry(id);
        if let (Ok(response), Some(observer)) = (&result, self.observer.with_value(Clone::clone)) {
            let before = entry.with_untracked(|read| read.latest.as_ref().map(|f| Arc::clone(&f.value)));
            observer(id, before.as_deref(), response, at);
        }
        entry.update(|read| read.receive(result, at));
    }

    /// Starts the store for the current session (tests feed answers with [`Self::receive`]).
    pub fn begin_current(&self) -> Option<u64> {
        let session = self.door.session_id_untracked()?;
        self.begin(session);
        Some(session)
    }

    /// Shows every later answer to `observer`, in place of any earlier one.
    pub fn observe(&self, observer: Observer) {
        self.observer.set_value(Some(observer));
    }
}

impl Default for NodesStore {
    fn default() -> Self {
        Self::new()
    }
}

/// The store provided by the app.
pub fn use_nodes() -> NodesStore {
    expect_context::<NodesStore>()
}

#[cfg(test)]
mod tests {
    /// `index.html`'s inline script sends a fresh load's first read (`api::first_read`).
    /// Being JavaScript, it cannot call the console's code: it writes the kept key's entry
    /// and the freshness rule again, and they must stay the console's.
    #[test]
    fn the_inline_script_reads_the_kept_key_and_keeps_an_answer_as_long_as_the_store() {
        let page = include_str!("../../index.html");
        let entry = format!("sessionStorage.getItem(\"{}\")", crate::state::KEPT_CONNECTION);
        assert!(page.contains(&entry), "index.html reads {entry}");
        let fresh = format!("const FRESH_MS = {};", super::FRESH_MS);
        assert!(page.contains(&fresh), "index.html keeps an answer as long: {fresh}");
        let take = format!("window.{} = ", crate::api::first_read::TAKE);
        assert!(page.contains(&take), "index.html hands answers over with {take}");
    }
}
