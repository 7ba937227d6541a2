//! The frame of the pages under `/reservations/:id/…` (nodes, launch): the id read from
//! the route and checked, the reservation read, and the breadcrumbs back to it.

use crate::api::error::ApiError;
use crate::components::error_panel::ErrorPanel;
use crate::router::use_location;
use leptos::prelude::*;

/// The reservation id segment of the route, as written. Read once: another id is another
/// page, and whatever the previous one ran (a poll loop) stops with it.
pub fn route_reservation_id() -> String {
    use_location().route().read_untracked().reservation_id().unwrap_or_default().to_owned()
}

/// Renders `page` for the route's reservation id, or says the id is not one.
pub fn for_reservation_id<V: IntoView + 'static>(page: fn(i64) -> V) -> impl IntoView {
    let raw_id = route_reservation_id();
    match raw_id.parse::<i64>() {
        Ok(id) => page(id).into_any(),
        Err(_) => {
            let error = ApiError::invalid_request(format!("“{raw_id}” is not a reservation id."));
            view! { <ErrorPanel error/> }.into_any()
        }
    }
}

#[component]
pub fn ReservationCrumbs(id: i64, here: &'static str) -> impl IntoView {
    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/reservations">"Reservations"</a>
            " / "
            <a href=format!("/reservations/{id}")>{format!("#{id}")}</a>
            " / "
            <span aria-current="page">{here}</span>
        </nav>
    }
}
