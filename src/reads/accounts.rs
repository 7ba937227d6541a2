//! One [`FleetStore`] per connected account (issue 48, docs/accounts.md): the connection's
//! is the app's, as it always was; each account added beside it has its own, made when it
//! is added and dropped when it is removed, so that nothing read with its key stays in
//! memory. Each store reads with its own account's key ([`Door`]), within that key's own
//! share of its limit, and waits its own `retry-after`: one account's failure is its rows'.

use super::fleet::{fleet_page, read_on_page, use_fleet, FleetStore};
use super::live::page_interval;
use super::nodes::NodesStore;
use super::reservations::ReservationsStore;
use super::session::{Account, Accounts, Door, Refused};
use crate::api::client::{self, Connection};
use crate::api::error::ApiError;
use crate::browser::sleep;
use crate::state::{detect_role, use_connection, Role};
use leptos::prelude::*;
use leptos::reactive::owner::WeakOwner;
use std::time::Duration;

/// The stores of the connected accounts. Copy: arena handles of the app's owner.
#[derive(Clone, Copy)]
pub struct AccountStores {
    accounts: Accounts,
    /// The connection's store: the app's.
    first: FleetStore,
    /// Each added account's store, by session id, with the owner its signals live in.
    added: StoredValue<Vec<(u64, Owner, FleetStore)>, LocalStorage>,
    /// Changes when a store is made or dropped: who lists the stores follows it.
    changed: RwSignal<u64>,
}

impl AccountStores {
    /// The connection's store alone, and a store for each added account the user kept for
    /// this tab ([`Accounts::restore`]). Made under the app's owner by [`use_account_stores`].
    fn restore() -> Self {
        let stores = AccountStores {
            // One set of accounts per app: a test may have provided its own.
            accounts: use_context::<Accounts>().unwrap_or_else(Accounts::restore),
            first: use_fleet(),
            added: StoredValue::new_local(Vec::new()),
            changed: RwSignal::new(0),
        };
        for account in untrack(|| stores.accounts.all()).into_iter().skip(1) {
            stores.open(&account);
        }
        // The accounts added to a connection go with it (docs/accounts.md): the header's
        // Disconnect, a 401 ending the session, another key connected.
        let state = use_connection();
        Effect::new(move |before: Option<Option<u64>>| {
            let now = state.session().map(|s| s.id);
            if before.is_some_and(|before| before != now) {
                stores.remove_added();
            }
            now
        });
        stores
    }

    /// Removes every account added beside the connection, as [`Self::remove`] does one.
    fn remove_added(&self) {
        let added = untrack(|| self.accounts.added());
        added.iter().for_each(|account| self.remove(&account.label));
    }

    /// The connection's store: the app's.
    pub fn first(&self) -> FleetStore {
        self.first
    }

    /// The set of accounts the stores follow.
    pub fn accounts(&self) -> Accounts {
        self.accounts
    }

    /// Every connected account with its store, the connection's first (tracked); none when
    /// not connected.
    pub fn all(&self) -> Vec<(Account, FleetStore)> {
        self.changed.track();
        let accounts = self.accounts.all();
        let mut all = Vec::with_capacity(accounts.len());
        for (index, account) in accounts.into_iter().enumerate() {
            let store = if index == 0 { Some(self.first) } else { self.store_of(account.session.id) };
            all.extend(store.map(|store| (account, store)));
        }
        all
    }

    /// The added accounts' stores, by session id (tracked).
    fn added(&self) -> Vec<(u64, FleetStore)> {
        self.changed.track();
        self.added
            .try_with_value(|added| added.iter().map(|(id, _, store)| (*id, *store)).collect())
            .unwrap_or_default()
    }

    fn store_of(&self, session: u64) -> Option<FleetStore> {
        self.added.try_with_value(|added| added.iter().find(|(id, ..)| *id == session).map(|(_, _, s)| *s)).flatten()
    }

    /// Adds `connection`'s key as the account `label` ([`Accounts::add`]), with an empty
    /// store of its own.
    pub fn add(&self, label: &str, connection: Connection, role: Role, keep: bool) -> Result<Account, Refused> {
        let account = self.accounts.add(label, connection, role, keep)?;
        self.open(&account);
        Ok(account)
    }

    /// Checks `key` as Connect checks one (reading the reservations, at the connection's
    /// base URLs), learns its role from its first reservation as Connect does, then adds it
    /// as the account `label`, kept for the tab if asked. Refused before any request when
    /// the label or the key cannot be added.
    pub async fn connect(&self, label: String, key: String, keep: bool) -> Result<Account, NotAdded> {
        if let Some(refused) = self.accounts.refusal(&label, &key) {
            return Err(NotAdded::Refused(refused));
        }
        let first = untrack(|| self.accounts.all()).into_iter().next();
        let Some(first) = first else { return Err(NotAdded::Refused(Refused::NotConnected)) };
        let connection = first.session.connection.with_key(&key);
        let checked = client::check_key(&connection).await.map_err(NotAdded::Failed)?;
        let connection = connection.with_simulator(checked.simulator);
        let role = detect_role(&connection, &checked.reservations).await;
        self.add(&label, connection, role, keep).map_err(NotAdded::Refused)
    }

    /// Makes `account`'s store, under an owner of its own beneath the app's.
    fn open(&self, account: &Account) {
        let door = Door::Added { accounts: self.accounts, session: account.session.id };
        let owner = self.first.owner().map(|app| app.child()).unwrap_or_default();
        let store = owner.with(|| FleetStore::of(door));
        self.added.update_value(|added| added.push((account.session.id, owner, store)));
        self.changed.update(|n| *n += 1);
    }

    /// Removes the account `label` ([`Accounts::remove`]: its reads in flight aborted, its
    /// stored entry and its share of the key gone) and drops its store: the views showing
    /// it are drawn again without it first, then its signals are disposed.
    pub fn remove(&self, label: &str) {
        self.accounts.remove(label);
        let left: Vec<u64> = untrack(|| self.accounts.added()).iter().map(|a| a.session.id).collect();
        let gone: Vec<Owner> = self
            .added
            .try_update_value(|added| {
                let (gone, kept) = std::mem::take(added).into_iter().partition(|(id, ..)| !left.contains(id));
                *added = kept;
                gone.into_iter().map(|(_, owner, _)| owner).collect::<Vec<_>>()
            })
            .unwrap_or_default();
        if gone.is_empty() {
            return;
        }
        self.changed.update(|n| *n += 1);
        leptos::task::spawn_local(async move {
            sleep(Duration::ZERO).await;
            gone.iter().for_each(Owner::cleanup);
        });
    }
}

/// Why a key was not added ([`AccountStores::connect`]).
#[derive(Clone, Debug, PartialEq)]
pub enum NotAdded {
    Refused(Refused),
    /// Its check failed (a 401: the key is not valid; the network; …), with the request id.
    Failed(ApiError),
}

/// The app's [`AccountStores`], made on first use under the app's owner (so the first
/// load carries none of this code, and the stores outlive the page that first asked).
pub fn use_account_stores() -> AccountStores {
    if let Some(stores) = use_context::<AccountStores>() {
        return stores;
    }
    let app = use_fleet().owner().unwrap_or_default();
    app.with(|| {
        let stores = AccountStores::restore();
        provide_context(stores);
        provide_context(stores.accounts);
        stores
    })
}

/// [`fleet_page`] for every connected account: the connection's store reads as it always
/// did, and each added account's reads for as long as the page is shown and the account
/// connected (one added later starts reading at once). Returns the stores.
pub fn account_pages(title: &str) -> AccountStores {
    fleet_page(title);
    let (stores, base) = (use_account_stores(), page_interval());
    // Weak: held strongly by its own effect, the page's owner would never be cleaned up
    // (and its reads never stopped) once the page is left.
    let page = Owner::current().map(|owner| owner.downgrade());
    let running: StoredValue<Vec<(u64, Owner)>, LocalStorage> = StoredValue::new_local(Vec::new());
    Effect::new(move || {
        let added = stores.added();
        let Some(page) = page.as_ref().and_then(WeakOwner::upgrade) else { return };
        running.update_value(|running| {
            running.retain(|(id, owner)| {
                let kept = added.iter().any(|(a, _)| a == id);
                if !kept {
                    owner.cleanup();
                }
                kept
            });
            for (id, store) in added {
                if !running.iter().any(|(r, _)| *r == id) {
                    let reads = page.child();
                    reads.with(|| read_on_page(store, base));
                    running.push((id, reads));
                }
            }
        });
    });
    stores
}

/// The account an address names is not connected: the page says so, and reads nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotConnected(pub String);

/// The account a page of one reservation is of, from the label its address names (tracked):
/// none named, the first account's (`None`: the connection, as with one key); else the
/// added account of that label, or [`NotConnected`].
pub fn account_named(label: Option<&str>) -> Result<Option<Account>, NotConnected> {
    let Some(label) = label else { return Ok(None) };
    // The app's set, made with its stores on first use ([`use_account_stores`]).
    let accounts = use_context::<Accounts>().unwrap_or_else(|| use_account_stores().accounts());
    let account = accounts.find(label);
    account.map(Some).ok_or_else(|| NotConnected(label.to_owned()))
}

/// Makes every read of the current owner (a page of one reservation) the added `account`'s:
/// its connection ([`ConnectionState::for_account`]) and stores of its own for the page, so
/// whatever the page and its components read is read with its key, and `#12` of one
/// account is never shown as `#12` of another. The role a read with its key reveals (a
/// detail with `payment`) is the account's ([`Accounts::learn_role`]).
pub fn read_as(account: Account) {
    let (session, state) = (account.session.id, use_connection().for_account(account.session, account.role));
    if let Some(accounts) = use_context::<Accounts>() {
        Effect::new(move |_| accounts.learn_role(session, state.role()));
    }
    provide_context(state);
    provide_context(NodesStore::new());
    provide_context(ReservationsStore::new());
    provide_context(FleetStore::new());
}
