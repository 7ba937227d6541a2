//! The org capacity API's read (seed 000): one organisation's reservations, for the page
//! that shows them. Not kept for the session: only the org page shows them, and a reclaim
//! there reads them again at once.

use super::remote::Remote;
use crate::api::client;
use crate::api::org::OrgReservation;

/// Organisation `org`'s reservations as the org page shows them ([`Remote`]).
pub fn org_reservations(org: String) -> Remote<Vec<OrgReservation>> {
    Remote::new(move |conn| {
        let org = org.clone();
        async move { client::org_reservations(&conn, &org).await }
    })
}
