//! Which key a store's data was read with: data read with one key is never shown once
//! another is connected, and an answer to a request sent with an earlier key is dropped.
//! And the connection as a set of accounts, each key with its label, role and own budget
//! (issue 48, docs/accounts.md).

use crate::api::client::Connection;
use crate::api::error::ApiError;
use crate::state::{use_connection, ConnectionState, Kept, Lifetime, Role, Sent, Session};
use leptos::prelude::*;
use std::future::Future;

/// The session a store's data belongs to, beside the connection that says which is current.
/// Copy: arena handles of the owner it was made in.
#[derive(Clone, Copy)]
pub struct SessionMark {
    door: Door,
    session: RwSignal<Option<u64>>,
}

impl SessionMark {
    /// Belongs to no session yet; reads the connection from context.
    pub fn new() -> Self {
        Self::of(Door::Connection(use_connection()))
    }

    /// Belongs to no session yet; current while `door`'s account is.
    pub fn of(door: Door) -> Self {
        SessionMark { door, session: RwSignal::new(None) }
    }

    /// Makes the data `session`'s. True when it was another's (or none's): the caller then
    /// drops what it kept.
    pub fn claim(&self, session: u64) -> bool {
        if self.session.get_untracked() == Some(session) {
            return false;
        }
        self.session.set(Some(session));
        true
    }

    /// Whether the data is the connected session's (tracked).
    pub fn is_current(&self) -> bool {
        let session = self.session.get();
        session.is_some() && session == self.door.session_id()
    }

    /// [`Self::is_current`], untracked.
    pub fn is_current_untracked(&self) -> bool {
        let session = self.session.try_get_untracked().flatten();
        session.is_some() && session == self.door.session_id_untracked()
    }

    /// Whether the data is `session`'s (untracked): an answer read with another key is not.
    pub fn owns(&self, session: u64) -> bool {
        self.session.try_get_untracked().flatten() == Some(session)
    }
}

impl Default for SessionMark {
    fn default() -> Self {
        Self::new()
    }
}

/// Whose key a store reads with (docs/accounts.md): the connection's (the first account, as
/// the console always read), or an account added beside it, until it is removed. Every
/// store of `reads/` sends, and judges what is current, through it. Copy.
#[derive(Clone, Copy)]
pub enum Door {
    Connection(ConnectionState),
    Added { accounts: Accounts, session: u64 },
}

impl Door {
    /// The session its data is read in (tracked); none when not connected, or removed.
    pub fn session_id(&self) -> Option<u64> {
        match self {
            Door::Connection(state) => state.session().map(|s| s.id),
            Door::Added { accounts, session } => accounts.has(*session).then_some(*session),
        }
    }

    /// [`Self::session_id`], untracked (a loop checks it is still the one it started in).
    pub fn session_id_untracked(&self) -> Option<u64> {
        untrack(|| self.session_id())
    }

    /// Sends `call` with its key: the connection's through [`ConnectionState::send_for`]
    /// (a 401 ending the session), an added account's through [`Accounts::send`] (its
    /// reads end when it is removed, whatever the lifetime asked).
    pub fn send_for<T: 'static, Fut>(&self, lifetime: Lifetime, call: impl FnOnce(Connection) -> Fut) -> Sent<T>
    where
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        match self {
            Door::Connection(state) => state.send_for(lifetime, call),
            Door::Added { accounts, session } => accounts.send_in(*session, call),
        }
    }

    /// Records the role a read with `connection` revealed, for its own account alone.
    pub fn learn_role(&self, connection: &Connection, role: Role) {
        match self {
            Door::Connection(state) => state.learn_role(connection, role),
            Door::Added { accounts, session } => accounts.learn_role(*session, role),
        }
    }

    /// The role its key has, as learnt so far (untracked).
    pub fn role_untracked(&self) -> Role {
        match self {
            Door::Connection(state) => state.role_untracked(),
            Door::Added { accounts, session } => accounts.role_untracked(*session),
        }
    }
}

impl From<ConnectionState> for Door {
    fn from(state: ConnectionState) -> Self {
        Door::Connection(state)
    }
}

/// One key of the connection's set (docs/accounts.md). The first is the connection itself,
/// with the empty label: one account alone is the console as it was with one key. The
/// others are added beside it, each with a label the user chose.
#[derive(Clone, PartialEq)]
pub struct Account {
    pub label: String,
    /// Its own id, drawn from the connection's counter: what was read with its key is
    /// marked with it, and the key added again after its removal starts empty.
    pub session: Session,
    /// Learnt for this key alone.
    pub role: Role,
    /// The user ticked "keep for this tab": its entry is in `sessionStorage`.
    pub kept: bool,
}

/// Why an account was not added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// No key is connected yet: the first is connected as today, without a label.
    NotConnected,
    /// An added account needs a label, to be told from the others (and named in addresses).
    NoLabel,
    /// Labels are unique in the set, compared case-insensitively.
    LabelTaken,
    /// A key is in the set once.
    KeyTaken,
}

/// The `sessionStorage` entry of a kept added account: its label after the connection's own
/// entry's name; the same fields as that entry.
fn kept_entry(label: &str) -> String {
    format!("{}.{label}", crate::state::KEPT_CONNECTION)
}

/// The accounts added to the connection, with what ends each one's reads. Copy: arena
/// handles of the owner it was made in.
#[derive(Clone, Copy)]
pub struct Accounts {
    state: ConnectionState,
    added: RwSignal<Vec<Account>>,
    /// Aborts an added account's reads in flight when it is removed, by session id.
    reads: StoredValue<Vec<(u64, web_sys::AbortController)>, LocalStorage>,
}

impl Accounts {
    /// The connection alone; reads it from context.
    pub fn new() -> Self {
        Accounts {
            state: use_connection(),
            added: RwSignal::new(Vec::new()),
            reads: StoredValue::new_local(Vec::new()),
        }
    }

    /// [`Self::new`], with the added accounts the user kept for this tab (when connected).
    pub fn restore() -> Self {
        let accounts = Self::new();
        let storage = web_sys::window().and_then(|w| w.session_storage().ok().flatten());
        let names = storage.map_or_else(Vec::new, |storage| {
            let count = storage.length().unwrap_or(0);
            (0..count).filter_map(|i| storage.key(i).ok().flatten()).collect()
        });
        let prefix = kept_entry("");
        for name in names {
            let (Some(label), Some(kept)) = (name.strip_prefix(&prefix), Kept::read_from(&name)) else { continue };
            let _ = accounts.add(label, kept.connection(), kept.role, true);
        }
        accounts
    }

    /// Every account, the connection's first (tracked); none when not connected.
    pub fn all(&self) -> Vec<Account> {
        let Some(session) = self.state.session() else { return Vec::new() };
        let first = Account { label: String::new(), session, role: self.state.role(), kept: self.state.is_kept() };
        std::iter::once(first).chain(self.added.get()).collect()
    }

    /// The accounts added beside the connection, whether it is connected or not (tracked).
    pub fn added(&self) -> Vec<Account> {
        self.added.try_get().unwrap_or_default()
    }

    /// Adds `connection`'s key as the account `label` (its blanks trimmed), in `role`, kept
    /// for the tab if asked.
    pub fn add(&self, label: &str, connection: Connection, role: Role, keep: bool) -> Result<Account, Refused> {
        let label = label.trim();
        if let Some(refused) = self.refusal(label, connection.expose_key()) {
            return Err(refused);
        }
        if keep {
            Kept::write_to(&kept_entry(label), &connection, role);
        }
        let session = Session { id: self.state.draw_session_id(), connection };
        let account = Account { label: label.to_owned(), session, role, kept: keep };
        self.added.update(|added| added.push(account.clone()));
        Ok(account)
    }

    /// Why the key `key` could not be added as the account `label` (its blanks trimmed),
    /// if it could not: asked before the key is checked, and again as it is added.
    pub fn refusal(&self, label: &str, key: &str) -> Option<Refused> {
        let (label, all) = (label.trim(), self.all_untracked());
        if all.is_empty() {
            return Some(Refused::NotConnected);
        }
        if label.is_empty() {
            return Some(Refused::NoLabel);
        }
        if all.iter().any(|a| a.label.to_lowercase() == label.to_lowercase()) {
            return Some(Refused::LabelTaken);
        }
        if all.iter().any(|a| a.session.connection.expose_key() == key.trim()) {
            return Some(Refused::KeyTaken);
        }
        None
    }

    /// Removes the account `label` and everything of it: its entry in the set and in
    /// `sessionStorage`, its reads in flight (aborted: a late answer lands nowhere), and this
    /// tab's share of its key (the key's other tabs take it back). The first account is the
    /// connection: removing it disconnects, and the accounts added to it go with it.
    pub fn remove(&self, label: &str) {
        let gone: Vec<Account> = if label.is_empty() {
            self.state.disconnect();
            self.added.try_update(std::mem::take).unwrap_or_default()
        } else {
            let Some(at) = self.added.with_untracked(|added| added.iter().position(|a| a.label == label)) else {
                return;
            };
            self.added.try_update(|added| vec![added.remove(at)]).unwrap_or_default()
        };
        for account in gone {
            Kept::forget_entry(&kept_entry(&account.label));
            self.state.leave_share(account.session.connection.expose_key());
            let id = account.session.id;
            let aborted = self.reads.try_update_value(|reads| {
                let at = reads.iter().position(|(session, _)| *session == id);
                at.map(|at| reads.remove(at).1)
            });
            if let Some(controller) = aborted.flatten() {
                controller.abort();
            }
        }
    }

    /// Sends `call` with `account`'s key, within its own share of its key's limit: the first
    /// account's as [`ConnectionState::send`] does; an added one's until it is removed.
    pub fn send<T: 'static, Fut>(&self, account: &Account, call: impl FnOnce(Connection) -> Fut) -> Sent<T>
    where
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        self.send_in(account.session.id, call)
    }

    /// [`Self::send`] for the account of session `id`.
    fn send_in<T: 'static, Fut>(&self, id: u64, call: impl FnOnce(Connection) -> Fut) -> Sent<T>
    where
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        if self.state.session_id_untracked() == Some(id) {
            return self.state.send(call);
        }
        let added = self.added.try_with_untracked(|added| added.iter().any(|a| a.session.id == id));
        let signal = added.unwrap_or(false).then(|| self.reads.try_update_value(|reads| reads_of(reads, id)));
        let session =
            self.added.try_with_untracked(|added| added.iter().find(|a| a.session.id == id).map(|a| a.session.clone()));
        match (signal.flatten().flatten(), session.flatten()) {
            (Some(signal), Some(session)) => self.state.send_as(&session, signal, call),
            _ => Box::pin(async { Err(ApiError::invalid_request("This account was removed.")) }),
        }
    }

    /// Records the role a read with the added account `session`'s key revealed (and beside
    /// its key, if kept). The first account's is the connection's ([`ConnectionState::learn_role`]).
    pub fn learn_role(&self, session: u64, role: Role) {
        let learnt = self.added.try_update(|added| {
            let account = added.iter_mut().find(|a| a.session.id == session && a.role != role)?;
            account.role = role;
            Some(account.clone())
        });
        if let Some(account) = learnt.flatten().filter(|a| a.kept) {
            Kept::write_to(&kept_entry(&account.label), &account.session.connection, role);
        }
    }

    /// The account labelled `label` (compared as labels are, case-insensitively; the
    /// first's is empty), tracked.
    pub fn find(&self, label: &str) -> Option<Account> {
        self.all().into_iter().find(|a| a.label.to_lowercase() == label.to_lowercase())
    }

    /// Whether the added account of session `id` is still in the set, and the connection
    /// it was added to still connected (tracked).
    fn has(&self, id: u64) -> bool {
        self.state.is_connected()
            && self.added.try_with(|added| added.iter().any(|a| a.session.id == id)).unwrap_or(false)
    }

    /// The role learnt for the added account of session `id` (untracked).
    fn role_untracked(&self, id: u64) -> Role {
        let role = self.added.try_with_untracked(|added| added.iter().find(|a| a.session.id == id).map(|a| a.role));
        role.flatten().unwrap_or(Role::Unknown)
    }

    fn all_untracked(&self) -> Vec<Account> {
        untrack(|| self.all())
    }
}

/// The abort signal of the reads of the added account `session`, made at its first read.
fn reads_of(reads: &mut Vec<(u64, web_sys::AbortController)>, session: u64) -> Option<web_sys::AbortSignal> {
    if let Some((_, controller)) = reads.iter().find(|(id, _)| *id == session) {
        return Some(controller.signal());
    }
    let controller = web_sys::AbortController::new().ok()?;
    let signal = controller.signal();
    reads.push((session, controller));
    Some(signal)
}

impl Default for Accounts {
    fn default() -> Self {
        Self::new()
    }
}
