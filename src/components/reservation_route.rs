//! The frame of the pages under `/reservations/:id/…` (detail, nodes, launch, workload):
//! the id read from the route and checked, the account the address names, the reservation
//! read, and the breadcrumbs back to it.

use crate::api::error::ApiError;
use crate::browser::set_page_title;
use crate::components::error_panel::ErrorPanel;
use crate::domain::words::address::reservation_address;
use crate::reads::accounts::{account_named, read_as, NotConnected};
use crate::reads::session::Account;
use crate::router::{use_location, Location};
use leptos::prelude::*;

/// The reservation id of the route when it is one, as the router reads it
/// ([`Route::reservation_number`](crate::router::Route::reservation_number)), else `None`.
/// Read once: another id is another page, and whatever the previous one ran (a poll loop)
/// stops with it. Only this parsed value is shown: the segment as written is the address's
/// text, which a link can fill with anything (words posing as the page's).
fn route_reservation_id() -> Option<i64> {
    use_location().route().read_untracked().reservation_number()
}

/// What a page under `/reservations/…` says of an address whose id is not one.
fn not_a_reservation() -> ApiError {
    ApiError::invalid_request(
        "This address does not name a reservation: its id must be a whole number without leading zeros, as in /reservations/12.",
    )
}

/// The label of the account the route names: the first account's (empty, as with one key)
/// when none is named, or outside the router (a view drawn alone). Links between a
/// reservation's pages write it, so moving between its tabs keeps the account.
pub fn route_account() -> String {
    let location = use_context::<Location>();
    location.and_then(|l| l.route().read_untracked().account().map(str::to_owned)).unwrap_or_default()
}

/// Renders `page` for the route's reservation id, read with the account the address names
/// (`reads::accounts::read_as`), or says the address names no reservation, or an account
/// not connected. Built anew when that account is added or removed.
pub fn for_reservation_id<V: IntoView + 'static>(page: fn(i64) -> V) -> impl IntoView {
    let label = use_location().route().read_untracked().account().map(str::to_owned);
    // Not when its role is learnt: the same account, the page as it is.
    let account = Memo::new_with_compare(
        move |_| account_named(label.as_deref()),
        |old, new| named_session(old) != named_session(new),
    );
    move || match (route_reservation_id(), account.get()) {
        (_, Err(NotConnected(label))) => {
            set_page_title("Account not connected");
            view! { <AccountNotConnected label/> }.into_any()
        }
        (None, _) => {
            set_page_title("Not a reservation");
            view! { <ErrorPanel error=not_a_reservation()/> }.into_any()
        }
        (Some(id), Ok(account)) => {
            if let Some(account) = account {
                read_as(account);
            }
            page(id).into_any()
        }
    }
}

/// The session of the account an address names (none: the first account's), or the label
/// not connected: what the page is built anew for.
fn named_session(named: Option<&Result<Option<Account>, NotConnected>>) -> Option<Result<Option<u64>, NotConnected>> {
    named.map(|named| named.as_ref().map(|account| account.as_ref().map(|a| a.session.id)).map_err(Clone::clone))
}

/// An address names an account this tab has no key for: shown by its label (the address's
/// text, drawn as text), with the way to connect it; nothing of another account is shown
/// in its place, as reservation ids repeat between accounts.
#[component]
fn AccountNotConnected(label: String) -> impl IntoView {
    view! {
        <section class="panel account-not-connected" role="alert">
            <h1>"Account not connected"</h1>
            <p>
                "This address is a reservation of the account “" <strong>{label}</strong>
                "”, which is not connected in this tab. Reservation numbers repeat between \
                 accounts, so no other account's reservation is shown in its place."
            </p>
            <p class="error-remedy">
                <strong>"What to do: "</strong>
                "connect that account's key, with this label, from the header's accounts; or "
                <a href="/reservations">"go to the reservations of the accounts connected"</a>
                "."
            </p>
        </section>
    }
}

#[component]
pub fn ReservationCrumbs(id: i64, here: &'static str) -> impl IntoView {
    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/reservations">"Reservations"</a>
            " / "
            <a href=reservation_address(&route_account(), id, "", &[])>{format!("#{id}")}</a>
            " / "
            <span aria-current="page">{here}</span>
        </nav>
    }
}
