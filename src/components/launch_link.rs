//! The way to launch on a reservation, offered only while its status lets a launch through;
//! otherwise the reason in words, so no button leads to a refusal the console can foresee.

use crate::api::enums::ReservationStatus;
use crate::domain::status::{launch_access, LaunchAccess};
use leptos::prelude::*;

#[component]
pub fn LaunchLink(id: i64, status: ReservationStatus) -> impl IntoView {
    let link = move || view! { <a class="button" href=format!("/reservations/{id}/launch")>"Launch on this reservation"</a> };
    match launch_access(&status) {
        LaunchAccess::Open(_) => link().into_any(),
        // The console cannot tell: the launch answer will.
        LaunchAccess::Unrecognised(words) => view! { {link()} <span class="launch-note muted">{words}</span> }.into_any(),
        LaunchAccess::Closed(words) => view! { <span class="launch-note muted">{words}</span> }.into_any(),
    }
}
