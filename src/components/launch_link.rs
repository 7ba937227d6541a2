//! The way to launch on a reservation, offered only while its status lets a launch through;
//! otherwise the reason in words, so no button leads to a refusal the console can foresee.

use crate::api::enums::ReservationStatus;
use crate::components::reservation_route::route_account;
use crate::domain::status::{launch_access, LaunchAccess};
use crate::domain::words::address::reservation_address;
use leptos::prelude::*;

#[component]
pub fn LaunchLink(id: i64, status: ReservationStatus) -> impl IntoView {
    let access = launch_access(&status);
    // An unrecognised status offers the link with its caveat: the launch answer will say.
    let link = access.allows_launch().then(|| {
        let href = reservation_address(&route_account(), id, "/launch", &[]);
        view! { <a class="button" href=href>"Launch on this reservation"</a> }
    });
    let note = (!matches!(access, LaunchAccess::Open(_)))
        .then(|| view! { <span class="launch-note muted">{access.words()}</span> });
    view! { {link} {note} }
}
