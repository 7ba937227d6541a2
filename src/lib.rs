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
    provide_context(reads::reservations::ReservationsStore::new());
    provide_context(components::alerts_bell::BellSlot::new());
    provide_context(TimeZoneChoice::from_location());
    provide_context(Clock::ticking());
    // The start is three shorter tasks, not one long one, so the tab can answer input in
    // between (V8 compiles each function at its first call, on the page's thread): the
    // frame now, the header in the next task, the page in the one after. The page's first
    // read and its code are already on their way (index.html sends them).
    view! {
        <Router>
            <a class="skip-link" href="#main">"Skip to content"</a>
            {from_next_task(|| view! { <Header/> }.into_any())}
            <main id="main" class="app-main" tabindex="-1">{from_next_task(|| view! { <Pages/> }.into_any())}</main>
        </Router>
    }
}

/// `draw` drawn from the next task on ([`browser::true_from_next_task`]); each call's
/// task comes after the previous call's. One type for every use, so the wasm holds it once.
fn from_next_task(draw: fn() -> AnyView) -> impl IntoView {
    let due = browser::true_from_next_task();
    move || due.get().then(draw)
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
            Route::Connect => view! { <ConnectPage prefetch=prefetch_page/> }.into_any(),
            route => match lazy_route(&route) {
                Some(page) => connected(page.view).into_any(),
                None => view! { <NotFound/> }.into_any(),
            },
        }
    }
}

/// A page whose code comes on its first visit: its view, which loads the code, and a fetch
/// of the code alone.
struct LazyRoute {
    view: fn() -> AnyView,
    prefetch: fn(),
}

/// Writes, from one list of the chunk each route's page is in, the page of a route
/// (`lazy_route`) and the chunk's name (`page_chunk`), so the two cannot disagree.
macro_rules! lazy_routes {
    (none: $none:pat, $($route:pat => $chunk:ident,)*) => {
        /// The page of every route but Connect's and the unknown one.
        fn lazy_route(route: &Route) -> Option<LazyRoute> {
            match route {
                $none => None,
                $($route => Some(LazyRoute {
                    view: || lazy($chunk::preload, $chunk::load),
                    prefetch: || prefetch(Box::pin($chunk::preload())),
                }),)*
            }
        }

        /// The name of the chunk that holds the code of `route`'s page in the release build
        /// (`split_<name>.wasm`), as `index.html` names the page opened at its address for the
        /// chunks' loader. Read by a test alone, so it is not in the build.
        pub fn page_chunk(route: &Route) -> Option<&'static str> {
            match route {
                $none => None,
                $($route => Some(stringify!($chunk)),)*
            }
        }
    };
}

lazy_routes! {
    none: Route::Connect | Route::NotFound,
    Route::Overview => overview,
    Route::Fit => fit,
    Route::Capacity => capacity,
    Route::Ledger => ledger,
    Route::Reservations => list,
    Route::Reservation { .. } => detail,
    Route::Nodes { .. } => nodes,
    Route::Launch { .. } => launch,
    Route::Workload { .. } => workload,
    Route::Orgs | Route::Org(_) => org,
}

/// Fetches the code of the page at `path` (a path with an optional query) without showing
/// it: Connect asks for the page it will go to once the user starts on its form, so that
/// after "Connect" the page waits for its reads, not for its code. A failed fetch is
/// forgotten: the page fetches again on its visit.
fn prefetch_page(path: &str) {
    if let Some(page) = lazy_route(&Route::parse(path)) {
        (page.prefetch)();
    }
}

/// Boxed: one spawned future for every page, not one copy of the spawning per page.
fn prefetch(code: std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), browser::ChunkUnavailable>>>>) {
    leptos::task::spawn_local(async move {
        let _ = code.await;
    });
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
