//! "Is this answer still mine?", asked one way by every read: a read takes a [`Ticket`]
//! when it starts and writes its answer only while the ticket is current. Starting anew
//! (a refetch, a new loop, a Retry) or leaving the page that owns the generation makes
//! every earlier ticket stale, so a late answer never lands on a page gone or over a newer
//! one; a ticket bound to a session is stale once another key is connected.

use super::session::Door;
use leptos::prelude::*;

/// A counter in the reactive arena of its owner (a page or the app): disposed with it,
/// after which no ticket is current.
#[derive(Clone, Copy)]
pub struct Generation(StoredValue<u64>);

impl Default for Generation {
    fn default() -> Self {
        Generation(StoredValue::new(0))
    }
}

impl Generation {
    /// A ticket for a read that starts now, making every earlier one stale.
    pub fn next(&self) -> Ticket {
        self.0.try_update_value(|n| *n += 1);
        self.ticket(None)
    }

    /// [`Self::next`], also stale once the session of `door`'s account is no longer the
    /// current one (another key connected, the account removed). `None` without a session.
    pub fn next_for(&self, door: impl Into<Door>) -> Option<Ticket> {
        let door = door.into();
        let session = door.session_id_untracked()?;
        self.0.try_update_value(|n| *n += 1);
        Some(self.ticket(Some((door, session))))
    }

    /// Makes every ticket stale without starting a read (a loop stopped).
    pub fn stop(&self) {
        self.0.try_update_value(|n| *n += 1);
    }

    fn ticket(&self, session: Option<(Door, u64)>) -> Ticket {
        Ticket { generation: self.0, value: self.0.try_get_value().unwrap_or_default(), session }
    }
}

/// One read's claim on its generation (and session).
#[derive(Clone, Copy)]
pub struct Ticket {
    generation: StoredValue<u64>,
    value: u64,
    session: Option<(Door, u64)>,
}

impl Ticket {
    /// Whether the read that took this ticket may still write its answer.
    pub fn current(&self) -> bool {
        self.generation.try_get_value() == Some(self.value)
            && self.session.is_none_or(|(door, session)| door.session_id_untracked() == Some(session))
    }

    /// The session the ticket was taken in, if bound to one.
    pub fn session(&self) -> Option<u64> {
        self.session.map(|(_, session)| session)
    }
}
