//! Which key a store's data was read with: data read with one key is never shown once
//! another is connected, and an answer to a request sent with an earlier key is dropped.

use crate::state::{use_connection, ConnectionState};
use leptos::prelude::*;

/// The session a store's data belongs to, beside the connection that says which is current.
/// Copy: arena handles of the owner it was made in.
#[derive(Clone, Copy)]
pub struct SessionMark {
    state: ConnectionState,
    session: RwSignal<Option<u64>>,
}

impl SessionMark {
    /// Belongs to no session yet; reads the connection from context.
    pub fn new() -> Self {
        SessionMark { state: use_connection(), session: RwSignal::new(None) }
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
        session.is_some() && session == self.state.session().map(|s| s.id)
    }

    /// [`Self::is_current`], untracked.
    pub fn is_current_untracked(&self) -> bool {
        let session = self.session.try_get_untracked().flatten();
        session.is_some() && session == self.state.session_id_untracked()
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
