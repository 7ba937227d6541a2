//! The reserved-GPU console: a Leptos client-side app over the EcoHash Compute API
//! (reserved GPU nodes) and the org capacity API.

pub mod api;
pub mod browser;
pub mod components;
pub mod domain;
pub mod pages;
pub mod reads;
pub mod router;
pub mod state;

use components::header::Header;
use components::lazy_page::{lazy, lazy_page};
use leptos::prelude::*;
use pages::{
    capacity::CapacityPage, connect::ConnectPage, fit::FitPage, launch::LaunchPage, ledger::LedgerPage,
    nodes::NodesPage, org::OrgPage, overview::OverviewPage, reservation::ReservationPage,
    reservations::ReservationsPage, workload::WorkloadPage,
};
use router::{use_location, Route, Router};
use state::{current_path, use_connection, Clock, ConnectionState, TimeZoneChoice};

/// The whole app: context, header, and the routes (all bookmarkable; the key is never in
/// an address).
#[component]
pub fn App() -> impl IntoView {
    provide_context(ConnectionState::restore());
    provide_context(reads::nodes::NodesStore::new());
    provide_context(reads::fleet::FleetStore::new());
    provide_context(components::alerts_bell::BellSlot::new());
    provide_context(TimeZoneChoice::from_location());
    provide_context(Clock::ticking());
    // The page is drawn in a task after the header's: the start is two shorter tasks, not
    // one long one, so the tab can answer input in between. Its first read is already on
    // its way (index.html sends it).
    let page_drawn = RwSignal::new(false);
    set_timeout(move || page_drawn.set(true), std::time::Duration::ZERO);
    view! {
        <Router>
            <a class="skip-link" href="#main">"Skip to content"</a>
            <Header/>
            <main id="main" class="app-main" tabindex="-1">
                {move || page_drawn.get().then(|| view! { <Pages/> })}
            </main>
        </Router>
    }
}

/// The page the address names. A new route (another page, or another id) is a new page:
/// whatever the previous one ran (a poll loop, its requests in flight) stops with it.
#[component]
fn Pages() -> impl IntoView {
    let (state, location) = (use_connection(), use_location());
    let nodes = reads::nodes::use_nodes();
    let route = location.route();
    move || {
        let route = route.get();
        state.arrive_at(&location.path().get_untracked());
        reads::read_ahead(&route, state, nodes);
        match route {
            Route::Connect => view! { <ConnectPage/> }.into_any(),
            Route::Overview => connected(|| lazy(overview::preload, overview::load)).into_any(),
            Route::Fit => connected(|| lazy(fit::preload, fit::load)).into_any(),
            Route::Capacity => connected(|| lazy(capacity::preload, capacity::load)).into_any(),
            Route::Ledger => connected(|| lazy(ledger::preload, ledger::load)).into_any(),
            Route::Reservations => connected(|| lazy(list::preload, list::load)).into_any(),
            Route::Reservation(_) => connected(|| lazy(detail::preload, detail::load)).into_any(),
            Route::Nodes(_) => connected(|| lazy(nodes::preload, nodes::load)).into_any(),
            Route::Launch(_) => connected(|| lazy(launch::preload, launch::load)).into_any(),
            Route::Workload { .. } => connected(|| lazy(workload::preload, workload::load)).into_any(),
            Route::Orgs | Route::Org(_) => connected(|| lazy(org::preload, org::load)).into_any(),
            Route::NotFound => view! { <NotFound/> }.into_any(),
        }
    }
}

// Connect is the first load; every other page comes on first visit (opened at its own
// address, the overview, the list, a reservation and its nodes have their code fetched
// beside the main module: `index.html`).
lazy_page!(overview, OverviewPage, style = "style-overview");
lazy_page!(list, ReservationsPage);
lazy_page!(fit, FitPage, style = "style-overview");
lazy_page!(capacity, CapacityPage, style = "style-overview");
lazy_page!(ledger, LedgerPage, style = "style-overview");
lazy_page!(detail, ReservationPage, style = "style-overview");
lazy_page!(nodes, NodesPage, style = "style-nodes");
lazy_page!(launch, LaunchPage, style = "style-nodes");
lazy_page!(workload, WorkloadPage);
lazy_page!(org, OrgPage, style = "style-org");

/// Shows `page` while connected; otherwise sends the user to Connect, which comes back here.
fn connected<V: IntoView + 'static>(page: fn() -> V) -> impl IntoView {
    let (state, location) = (use_connection(), use_location());
    move || {
        if state.is_connected() {
            page().into_any()
        } else {
            state.remember_return_path(current_path());
            location.redirect("/");
            ().into_any()
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
