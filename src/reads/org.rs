//! The org capacity API's read (seed 000): one organisation's reservations, for the page
//! that shows them, a reclaim there reading them again at once. The latest read is also kept
//! for the session ([`OrgReads`]), so that the overview's calendar adds the org
//! reservations' ends the console has read.

use super::remote::{Fetched, Remote};
use super::session::SessionMark;
use crate::api::client;
use crate::api::error::ApiError;
use crate::api::org::OrgReservation;
use crate::state::{use_clock, use_connection};
use chrono::{DateTime, Utc};
use leptos::prelude::*;

/// Organisation `org`'s reservations as the org page shows them ([`Remote`]), each answer or
/// failure kept in `kept` too.
pub fn org_reservations(org: String, kept: OrgReads) -> Remote<Vec<OrgReservation>> {
    let (state, clock) = (use_connection(), use_clock());
    Remote::new(move |conn| {
        let (org, session) = (org.clone(), state.session_id_untracked());
        async move {
            let result = client::org_reservations(&conn, &org).await;
            if let Some(session) = session {
                kept.receive(session, org, &result, clock.now_untracked());
            }
            result
        }
    })
}

/// One org's reservations as this session last read them.
#[derive(Clone, Debug)]
pub struct OrgRead {
    pub org: String,
    /// The latest answer, kept when a later read fails.
    pub data: Option<Fetched<Vec<OrgReservation>>>,
    /// Why the latest read failed, if it did.
    pub error: Option<ApiError>,
}

/// The org reservations this session read, of the org read last (the org page shows one org
/// at a time). Copy: arena handles of the app's owner.
#[derive(Clone, Copy)]
pub struct OrgReads {
    session: SessionMark,
    latest: RwSignal<Option<OrgRead>, LocalStorage>,
}

impl OrgReads {
    /// Nothing read; reads the connection from context.
    pub fn new() -> Self {
        OrgReads { session: SessionMark::new(), latest: RwSignal::new_local(None) }
    }

    /// Keeps `session`'s read of `org`'s reservations, ended `at`: an answer in place of the
    /// one kept, a failure beside it (another org's answer is not kept beside a failure).
    pub fn receive(
        &self,
        session: u64,
        org: String,
        result: &Result<Vec<OrgReservation>, ApiError>,
        at: DateTime<Utc>,
    ) {
        if self.session.claim(session) {
            self.latest.try_set(None);
        }
        self.latest.try_update(|latest| {
            let kept = latest.take().filter(|read| read.org == org).and_then(|read| read.data);
            *latest = Some(match result {
                Ok(value) => OrgRead { org, data: Some(Fetched { value: value.clone(), at }), error: None },
                Err(error) => OrgRead { org, data: kept, error: Some(error.clone()) },
            });
        });
    }

    /// The latest read, if the connected session made one (tracked).
    pub fn latest(&self) -> Option<OrgRead> {
        if !self.session.is_current() {
            return None;
        }
        self.latest.get()
    }
}

impl Default for OrgReads {
    fn default() -> Self {
        Self::new()
    }
}
