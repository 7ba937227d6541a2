//! The reserved-GPU console: a Leptos client-side app over the EcoHash Compute API
//! (reserved GPU nodes) and the org capacity API.

pub mod api;
pub mod components;
pub mod domain;
pub mod live;
pub mod pages;
pub mod state;

use components::header::Header;
use components::lazy_page::{lazy, lazy_page};
use leptos::prelude::*;
use leptos_router::components::{Redirect, Route, Router, Routes};
use leptos_router::path;
use pages::{
    connect::ConnectPage, launch::LaunchPage, nodes::NodesPage, org::OrgPage,
    reservation::ReservationPage, reservations::ReservationsPage,
};
use state::{current_path, use_connection, Clock, ConnectionState, TimeZoneChoice};

/// The whole app: context, header, and the routes (all bookmarkable; the key is never in
/// an address).
#[component]
pub fn App() -> impl IntoView {
    provide_context(ConnectionState::restore());
    provide_context(TimeZoneChoice::from_location());
    provide_context(Clock::ticking());
    view! {
        <Router>
            <a class="skip-link" href="#main">"Skip to content"</a>
            <Header/>
            <main id="main" class="app-main" tabindex="-1">
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=ConnectPage/>
                    <Route path=path!("/reservations") view=|| connected(ReservationsPage)/>
                    <Route path=path!("/reservations/:id") view=|| connected(|| lazy(detail::preload, detail::load))/>
                    <Route path=path!("/reservations/:id/nodes") view=|| connected(|| lazy(nodes::preload, nodes::load))/>
                    <Route path=path!("/reservations/:id/launch") view=|| connected(|| lazy(launch::preload, launch::load))/>
                    <Route path=path!("/orgs") view=|| connected(|| lazy(org::preload, org::load))/>
                    <Route path=path!("/orgs/:org_id") view=|| connected(|| lazy(org::preload, org::load))/>
                </Routes>
            </main>
        </Router>
    }
}

// Connect and the reservations list are the first load; the rest come on first visit.
lazy_page!(detail, ReservationPage);
lazy_page!(nodes, NodesPage);
lazy_page!(launch, LaunchPage);
lazy_page!(org, OrgPage);

/// Shows `page` while connected; otherwise sends the user to Connect, which comes back here.
fn connected<V: IntoView + 'static>(page: fn() -> V) -> impl IntoView {
    let state = use_connection();
    move || {
        if state.is_connected() {
            page().into_any()
        } else {
            state.remember_return_path(current_path());
            view! { <Redirect path="/"/> }.into_any()
        }
    }
}

#[component]
fn NotFound() -> impl IntoView {
    view! {
        <div class="panel">
            <h1>"Page not found"</h1>
            <p class="panel-note">
                "This address is not a page of the console. "
                <a href="/reservations">"Go to your reservations"</a>
            </p>
        </div>
    }
}
