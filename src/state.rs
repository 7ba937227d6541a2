//! What every page reads from context: the connection (base URL and key, held in memory),
//! the role the key has, the time-zone choice and the clock.
//!
//! The key never leaves memory unless the user opts in to keep it for the tab; then it sits
//! in `sessionStorage` (gone when the tab closes) — never `localStorage`, never a URL.

use crate::api::client::{self, Connection};
use crate::api::error::{ApiError, RateLimit};
use crate::browser::sleep;
use crate::domain::polling::server_wait;
use crate::domain::polling::tab_share::channel_for;
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

mod kept;
mod role;
mod tab_share;
pub(crate) use kept::Kept;
pub use kept::KEPT_CONNECTION;
pub use role::Role;
pub use tab_share::TabShare;

/// One connected key. `id` changes with every connect, so data fetched with an earlier key
/// (an owner's payments) can never be shown under a later one (a member's).
#[derive(Clone, PartialEq)]
pub struct Session {
    pub id: u64,
    pub connection: Connection,
}

/// Why the user is back on Connect without having asked to disconnect.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    pub error: ApiError,
    /// The page the user was on, to return to after reconnecting.
    pub path: String,
}

/// A request sent through [`ConnectionState::send`]. Boxed, so that its type does not name
/// the closure that built it (which may borrow what the request does not).
pub type Sent<T> = Pin<Box<dyn Future<Output = Result<T, ApiError>>>>;

/// The connection context. Copy: every field is an arena handle.
#[derive(Clone, Copy)]
pub struct ConnectionState {
    session: RwSignal<Option<Session>>,
    /// Apart from `session` so that learning the role does not refetch what pages show.
    role: RwSignal<Role>,
    next_id: StoredValue<u64>,
    rejection: RwSignal<Option<Rejection>>,
    /// The key's rate limit as the answer that checked it said, for the header; none after
    /// a reload (nothing was checked) or when the API sends no such headers.
    budget: RwSignal<Option<RateLimit>>,
    /// Where to go once connected (a page visited without a connection).
    return_path: StoredValue<Option<String>>,
    /// The user disconnected on purpose: pages left behind are not returned to.
    left_by_user: StoredValue<bool>,
    /// Aborts the requests of the page they were sent from once it is left or the session
    /// ends: a late answer for a page gone (or a 401 for a key gone) then never arrives.
    scope: StoredValue<Option<Scope>, LocalStorage>,
    /// Aborts the requests sent for the whole session ([`Lifetime::Session`]) when it ends.
    session_scope: StoredValue<Option<Scope>, LocalStorage>,
    /// This tab's share of each key's requests, joined at the key's first request: one
    /// per key, by its channel's name ([`channel_for`]).
    shares: StoredValue<Vec<(String, TabShare)>, LocalStorage>,
    /// An added account's connection ([`Self::for_account`]): its 401 ends nothing.
    added: bool,
}

/// The requests of one session, on one page (its path) or all of them.
struct Scope {
    session: u64,
    path: Option<String>,
    controller: web_sys::AbortController,
}

/// How long the answer of a request is wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifetime {
    /// While the page that sent it is shown: leaving it aborts the request.
    Page,
    /// While the session lasts, whatever page is shown (e.g. reads that feed the header).
    Session,
}

impl ConnectionState {
    /// Not connected, nothing kept.
    pub fn new() -> Self {
        ConnectionState {
            session: RwSignal::new(None),
            role: RwSignal::new(Role::Unknown),
            next_id: StoredValue::new(0),
            rejection: RwSignal::new(None),
            budget: RwSignal::new(None),
            return_path: StoredValue::new(None),
            left_by_user: StoredValue::new(false),
            scope: StoredValue::new_local(None),
            session_scope: StoredValue::new_local(None),
            shares: StoredValue::new_local(Vec::new()),
            added: false,
        }
    }

    /// The connection of the added account `session` (`reads::session::Accounts`), for the
    /// pages of one of its reservations: everything read under it is read with its key,
    /// within this tab's share of that key's limit (the shares are this connection's, one per
    /// key). A 401 ends nothing (the page says why); its reads end with the page that made it.
    pub fn for_account(&self, session: Session, role: Role) -> ConnectionState {
        let account = ConnectionState {
            session: RwSignal::new(Some(session)),
            role: RwSignal::new(role),
            next_id: self.next_id,
            shares: self.shares,
            added: true,
            ..ConnectionState::new()
        };
        on_cleanup(move || {
            abort(account.scope);
            abort(account.session_scope);
        });
        account
    }

    /// Reconnects with the key kept for this tab, if the user opted in earlier, in the role
    /// kept with it; an unknown role is learnt by reading the first reservation.
    pub fn restore() -> Self {
        let state = Self::new();
        if let Some(kept) = Kept::read() {
            let connection = kept.connection();
            state.start(connection.clone(), kept.role);
            if kept.role != Role::Unknown {
                return state;
            }
            let probe = connection;
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(list) = client::list_reservations(&probe).await {
                    state.learn_role(&probe, detect_role(&probe, &list).await);
                }
            });
        }
        state
    }

    /// Starts a session after the key was checked. With `keep_for_tab` the base URL and key
    /// are written to `sessionStorage`; without it any earlier kept key is removed.
    pub fn connect(&self, connection: Connection, keep_for_tab: bool, role: Role) {
        if keep_for_tab {
            Kept::write(&connection, role);
        } else {
            Kept::forget();
        }
        self.rejection.set(None);
        self.left_by_user.set_value(false);
        self.start(connection, role);
    }

    fn start(&self, connection: Connection, role: Role) {
        let id = self.draw_session_id();
        self.budget.set(None);
        self.session.set(Some(Session { id, connection }));
        self.role.set(role);
    }

    /// A session id never used before in this tab: an added account's
    /// (`reads::session::Accounts`) is drawn from the same counter as the connection's.
    pub fn draw_session_id(&self) -> u64 {
        let id = self.next_id.get_value() + 1;
        self.next_id.set_value(id);
        id
    }

    /// The user's own "Disconnect": forgets the key, in memory and in the tab.
    pub fn disconnect(&self) {
        self.left_by_user.set_value(true);
        self.return_path.set_value(None);
        self.end();
    }

    fn end(&self) {
        if let Some(connection) = self.connection_untracked() {
            self.leave_share(connection.expose_key());
        }
        self.leave_page();
        abort(self.session_scope);
        Kept::forget();
        self.session.set(None);
        self.role.set(Role::Unknown);
    }

    /// The one door every page's request goes through: `call` is sent with the connection of
    /// the session current now, and a 401 it answers ends that session (the key is missing,
    /// malformed or revoked), so Connect explains why and returns to this page. A 401 that
    /// arrives after another key was connected is the old key's and ends nothing. Not
    /// connected: the future answers an error without sending anything. Reads untracked: a
    /// caller that must refetch on a new session reads [`Self::session`] itself.
    /// The request is aborted when its page is left ([`Lifetime::Page`]).
    pub fn send<T: 'static, Fut>(&self, call: impl FnOnce(Connection) -> Fut) -> Sent<T>
    where
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        self.send_for(Lifetime::Page, call)
    }

    /// [`Self::send`] for a request wanted for `lifetime`.
    pub fn send_for<T: 'static, Fut>(&self, lifetime: Lifetime, call: impl FnOnce(Connection) -> Fut) -> Sent<T>
    where
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        let state = *self;
        let sent = self.session.with_untracked(|s| {
            let s = s.as_ref()?;
            let (scope, path) = match lifetime {
                Lifetime::Page => (self.scope, Some(current_page())),
                Lifetime::Session => (self.session_scope, None),
            };
            let connection = match signal_of(scope, s.id, path) {
                Some(signal) => s.connection.clone().within(signal),
                None => s.connection.clone(),
            };
            Some((s.id, s.connection.expose_key().to_owned(), call(connection)))
        });
        Box::pin(async move {
            let (session, key, request) = sent.ok_or_else(|| ApiError::invalid_request("Not connected."))?;
            state.turn(&key).await;
            let result = request.await;
            if let Err(error) = &result {
                state.hold_if_limited(&key, error);
                state.end_if_unauthorized(session, error);
            }
            result
        })
    }

    /// [`Self::send`] for another account of the set (`reads::session::Accounts`): sent with
    /// its key, within this tab's share of that key's own limit, aborted with `signal`. Its
    /// 401 ends nothing: the session it names is not the current one.
    pub fn send_as<T: 'static, Fut>(
        &self,
        session: &Session,
        signal: web_sys::AbortSignal,
        call: impl FnOnce(Connection) -> Fut,
    ) -> Sent<T>
    where
        Fut: Future<Output = Result<T, ApiError>> + 'static,
    {
        let (state, key) = (*self, session.connection.expose_key().to_owned());
        let request = call(session.connection.clone().within(signal));
        Box::pin(async move {
            state.turn(&key).await;
            let result = request.await;
            if let Err(error) = &result {
                state.hold_if_limited(&key, error);
            }
            result
        })
    }

    /// A 429 with a `retry-after` holds `key`'s next requests from this tab, whichever page
    /// or account sends them, for as long as asked (up to the one cap,
    /// [`server_wait`]); the other keys' go on.
    fn hold_if_limited(&self, key: &str, error: &ApiError) {
        if let (Some(429), Some(wait)) = (error.status, error.retry_after()) {
            self.share_of(key).hold(server_wait(wait));
        }
    }

    /// Waits for this tab's turn within its share of `key`'s limit, whatever page sends.
    /// Boxed and kept out of line: every answer type's request future then holds a pointer
    /// to the one wait, not a copy of its code.
    #[inline(never)]
    fn turn(&self, key: &str) -> Pin<Box<dyn Future<Output = ()>>> {
        let wait = self.share_of(key).book();
        Box::pin(async move {
            if !wait.is_zero() {
                sleep(wait).await;
            }
        })
    }

    /// Aborts the requests still running for a page other than `path`: the app calls it on
    /// every change of path, so leaving a page ends its reads.
    pub fn arrive_at(&self, path: &str) {
        if self.scope.with_value(|scope| scope.as_ref().is_some_and(|s| s.path.as_deref() != Some(path))) {
            self.leave_page();
        }
    }

    fn leave_page(&self) {
        abort(self.scope);
    }

    /// Ends session `session` if `err` is a 401 and that session is still the current one.
    fn end_if_unauthorized(&self, session: u64, err: &ApiError) {
        let current = self.session.try_with_untracked(|s| s.as_ref().map(|s| s.id)).flatten();
        if self.added || !err.is_unauthorized() || current != Some(session) {
            return;
        }
        let path = current_path();
        self.return_path.set_value(Some(path.clone()));
        self.rejection.set(Some(Rejection { error: err.clone(), path }));
        self.end();
    }

    /// The current session (tracked).
    pub fn session(&self) -> Option<Session> {
        self.session.get()
    }

    pub fn connection(&self) -> Option<Connection> {
        self.session.with(|s| s.as_ref().map(|s| s.connection.clone()))
    }

    pub fn connection_untracked(&self) -> Option<Connection> {
        self.session.with_untracked(|s| s.as_ref().map(|s| s.connection.clone()))
    }

    pub fn is_connected(&self) -> bool {
        self.session.with(Option::is_some)
    }

    /// The current session's id, untracked (a loop checks it is still the one it started in).
    pub fn session_id_untracked(&self) -> Option<u64> {
        self.session.try_with_untracked(|s| s.as_ref().map(|s| s.id)).flatten()
    }

    pub fn is_connected_untracked(&self) -> bool {
        self.session.with_untracked(Option::is_some)
    }

    /// Whether the connected key is kept for the tab (its entry is the connection's).
    pub fn is_kept(&self) -> bool {
        let connection = self.connection_untracked();
        connection.is_some_and(|c| Kept::read().is_some_and(|kept| kept.connection() == c))
    }

    pub fn role(&self) -> Role {
        self.role.get()
    }

    pub fn role_untracked(&self) -> Role {
        self.role.get_untracked()
    }

    /// Records the role a read revealed, if `connection` is still the one in use (a late
    /// answer for an earlier key must not relabel the current one), and beside the key if
    /// it is kept for the tab.
    pub fn learn_role(&self, connection: &Connection, role: Role) {
        let current = self.session.with_untracked(|s| s.as_ref().is_some_and(|s| &s.connection == connection));
        if current && self.role.get_untracked() != role {
            self.role.set(role);
            if Kept::read().is_some_and(|kept| kept.connection() == *connection) {
                Kept::write(connection, role);
            }
        }
    }

    /// The last 401 that ended a session, until the next connect.
    pub fn rejection(&self) -> Option<Rejection> {
        self.rejection.get()
    }

    /// Records the rate limit the key-checking answer carried (after [`Self::connect`]).
    pub fn note_budget(&self, budget: Option<RateLimit>) {
        self.budget.set(budget);
    }

    pub fn budget(&self) -> Option<RateLimit> {
        self.budget.get()
    }

    /// This tab's share of the connected key's requests, shared with the console's other
    /// tabs of that key.
    pub fn tab_share(&self) -> TabShare {
        self.share_of(self.connection_untracked().as_ref().map_or("", Connection::expose_key))
    }

    /// This tab's share of `key`'s requests, joined at its first request.
    fn share_of(&self, key: &str) -> TabShare {
        let channel = channel_for(key);
        let joined =
            self.shares.with_value(|shares| shares.iter().find(|(c, _)| *c == channel).map(|(_, s)| s.clone()));
        joined.unwrap_or_else(|| {
            let share = TabShare::join(&channel);
            self.shares.update_value(|shares| shares.push((channel, share.clone())));
            share
        })
    }

    /// Leaves `key`'s channel (its account was removed): the other tabs of that key take
    /// back this tab's share.
    pub fn leave_share(&self, key: &str) {
        let channel = channel_for(key);
        self.shares.update_value(|shares| shares.retain(|(c, _)| *c != channel));
    }

    /// Remembers a page visited without a connection, unless the user just disconnected.
    pub fn remember_return_path(&self, path: String) {
        if !self.left_by_user.get_value() {
            self.return_path.set_value(Some(path));
        }
    }

    /// Where Connect will go once connected; the overview when nothing was asked for.
    pub fn return_path(&self) -> String {
        Self::landing_or(self.return_path.try_get_value().flatten())
    }

    /// [`Self::return_path`], forgotten once read.
    pub fn take_return_path(&self) -> String {
        Self::landing_or(self.return_path.try_update_value(Option::take).flatten())
    }

    /// `asked` when it is a path of this console, the overview otherwise.
    fn landing_or(asked: Option<String>) -> String {
        asked
            .filter(|p| p.starts_with('/') && !p.starts_with("//") && p != "/")
            .unwrap_or_else(|| crate::router::LANDING.to_owned())
    }
}

impl Default for ConnectionState {
    fn default() -> Self {
        Self::new()
    }
}

/// Reads the first reservation's detail to learn the role: one extra call per connect,
/// so the header can say at once whether this key sees payments.
pub async fn detect_role(connection: &Connection, list: &[crate::api::models::Reservation]) -> Role {
    probe_role(connection, list).await.unwrap_or(Role::Unknown)
}

/// [`detect_role`] with the failure of its read, for Connect to explain.
pub async fn probe_role(
    connection: &Connection,
    list: &[crate::api::models::Reservation],
) -> Result<Role, crate::api::error::ApiError> {
    match list.first() {
        Some(first) => client::shows_payment(connection, first.id).await.map(Role::seeing_payment),
        None => Ok(Role::Unknown),
    }
}

/// Path and query of the page shown now (the key is never in either).
pub fn current_path() -> String {
    web_sys::window()
        .map(|w| w.location())
        .and_then(|l| Some(format!("{}{}", l.pathname().ok()?, l.search().ok()?)))
        .unwrap_or_else(|| "/reservations".to_owned())
}

/// The abort signal of the requests of session `session` on page `path` (`None`: any page)
/// kept in `scope`; a scope left behind (another page, an earlier session) is aborted first.
fn signal_of(
    scope: StoredValue<Option<Scope>, LocalStorage>,
    session: u64,
    path: Option<String>,
) -> Option<web_sys::AbortSignal> {
    let current = scope.with_value(|scope| {
        scope.as_ref().filter(|s| s.session == session && s.path == path).map(|s| s.controller.signal())
    });
    current.or_else(|| {
        abort(scope);
        let controller = web_sys::AbortController::new().ok()?;
        let signal = controller.signal();
        scope.set_value(Some(Scope { session, path, controller }));
        Some(signal)
    })
}

/// Aborts the requests of `scope`, if any.
fn abort(scope: StoredValue<Option<Scope>, LocalStorage>) {
    if let Some(scope) = scope.try_update_value(Option::take).flatten() {
        scope.controller.abort();
    }
}

/// The address's path without its query: a filter written into the query is the same page.
fn current_page() -> String {
    web_sys::window().and_then(|w| w.location().pathname().ok()).unwrap_or_default()
}

/// How times are shown. Billing dates are always UTC regardless.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeZone {
    Local,
    Utc,
}

/// The header's UTC/local switch, shared by every time on screen.
#[derive(Clone, Copy)]
pub struct TimeZoneChoice(pub RwSignal<TimeZone>);

impl TimeZoneChoice {
    /// Local, unless the address asks for `?tz=utc` (a shared link can fix the zone).
    pub fn from_location() -> Self {
        let asked_utc = crate::router::address_query_value("tz").as_deref() == Some("utc");
        TimeZoneChoice(RwSignal::new(if asked_utc { TimeZone::Utc } else { TimeZone::Local }))
    }

    pub fn get(&self) -> TimeZone {
        self.0.get()
    }
}

/// "Now" for countdowns and ages: ticks every second in the app, fixed in tests.
#[derive(Clone, Copy)]
pub struct Clock(Signal<DateTime<Utc>>);

impl Clock {
    pub fn ticking() -> Self {
        let now = RwSignal::new(Utc::now());
        set_interval(move || now.set(Utc::now()), Duration::from_secs(1));
        Clock(now.into())
    }

    pub fn fixed(at: DateTime<Utc>) -> Self {
        Clock(Signal::stored(at))
    }

    /// Tracked: a view reading it re-renders as time passes.
    pub fn now(&self) -> DateTime<Utc> {
        self.0.get()
    }

    pub fn now_untracked(&self) -> DateTime<Utc> {
        self.0.get_untracked()
    }
}

pub fn use_connection() -> ConnectionState {
    expect_context::<ConnectionState>()
}

pub fn use_clock() -> Clock {
    expect_context::<Clock>()
}

pub fn use_time_zone() -> TimeZoneChoice {
    expect_context::<TimeZoneChoice>()
}
