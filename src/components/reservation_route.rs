//! The frame of the pages under `/reservations/:id/…` (nodes, launch): the id read from
//! the route and checked, the reservation read, and the breadcrumbs back to it.

use crate::api::error::ApiError;
use crate::components::error_panel::ErrorPanel;
use crate::router::use_location;
use leptos::prelude::*;

/// The reservation id of the route when it is one, as the router reads it
/// ([`Route::reservation_number`](crate::router::Route::reservation_number)), else `None`.
/// Read once: another id is another page, and whatever the previous one ran (a poll loop)
/// stops with it. Only this parsed value is shown: the segment as written is the address's
/// text, which a link can fill with anything (words posing as the page's).
pub fn route_reservation_id() -> Option<i64> {
    use_location().route().read_untracked().reservation_number()
}

/// What a page under `/reservations/…` says of an address whose id is not one.
pub fn not_a_reservation() -> ApiError {
    ApiError::invalid_request(
        "This address does not name a reservation: its id must be a whole number without leading zeros, as in /reservations/12.",
    )
}

/// Renders `page` for the route's reservation id, or says the address names none.
pub fn for_reservation_id<V: IntoView + 'static>(page: fn(i64) -> V) -> impl IntoView {
    match route_reservation_id() {
        Some(id) => page(id).into_any(),
        None => view! { <ErrorPanel error=not_a_reservation()/> }.into_any(),
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
