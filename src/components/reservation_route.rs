//! The frame of the pages under `/reservations/:id/…` (nodes, launch): the id read from
//! the route and checked, the reservation read, and the breadcrumbs back to it.

use crate::api::client;
use crate::api::error::ApiError;
use crate::api::models::ReservationDetail;
use crate::components::error_panel::ErrorPanel;
use crate::components::remote::Remote;
use crate::router::use_location;
use crate::state::{use_connection, Role};
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

/// The reservation the page is about; the read also tells the header the key's role.
pub fn read_reservation(id: i64) -> Remote<ReservationDetail> {
    let state = use_connection();
    Remote::new(move |conn| async move {
        let detail = client::reservation(&conn, id).await?;
        state.learn_role(&conn, Role::of(&detail));
        Ok(detail)
    })
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
