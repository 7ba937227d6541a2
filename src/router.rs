//! The console's own router: the address read as a typed [`Route`], the app's links
//! followed in place, back and forward followed.
//!
//! leptos_router's generic route tree, its async matching and its link handling were about
//! a seventh of the first load's wasm; seven fixed pages need a `match`, two signals and
//! two listeners. The parsing is plain Rust, tested natively.

mod table;

pub use table::{Page, PAGES};

use crate::api::client;
use crate::api::escape::percent_decoded;
use crate::domain::words::address::query_value;
use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// A page of the console ([`Page`]) with the ids its address names. Ids are kept as
/// written: the page explains an id that is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Connect,
    Overview,
    Fit,
    Capacity,
    Ledger,
    Reservations,
    /// The pages of one reservation carry the account their address names (`?account=`,
    /// [`ACCOUNT_KEY`]): `#12` of one account is another reservation than `#12` of another.
    Reservation {
        id: String,
        account: Option<String>,
    },
    Nodes {
        id: String,
        account: Option<String>,
    },
    Launch {
        id: String,
        account: Option<String>,
    },
    Workload {
        reservation: String,
        kind: String,
        id: String,
        account: Option<String>,
    },
    Orgs,
    Org(String),
    NotFound,
}

impl Route {
    /// The route of an address (a path, with or without its query), percent-escapes
    /// decoded: the page whose pattern ([`Page`]) its path matches, with the segments the
    /// page reads, and for a page of one reservation the account its query names. The one
    /// reading of `?account=`: every other key of the query is the pages' own.
    pub fn parse(address: &str) -> Route {
        let (path, query) = address.split_once('?').unwrap_or((address, ""));
        // No label is empty: an empty `account=` names no account, as its absence does.
        let account = || query_value(query, ACCOUNT_KEY).filter(|label| !label.is_empty());
        let segments: Vec<String> =
            path.split('/').filter(|segment| !segment.is_empty()).map(percent_decoded).collect();
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let Some((page, read)) = Page::matching(&segments) else { return Route::NotFound };
        let mut read = read.into_iter().map(str::to_owned);
        let mut next = || read.next().unwrap_or_default();
        match page {
            Page::Connect => Route::Connect,
            Page::Overview => Route::Overview,
            Page::Fit => Route::Fit,
            Page::Capacity => Route::Capacity,
            Page::Ledger => Route::Ledger,
            Page::Reservations => Route::Reservations,
            Page::Reservation => Route::Reservation { id: next(), account: account() },
            Page::Nodes => Route::Nodes { id: next(), account: account() },
            Page::Launch => Route::Launch { id: next(), account: account() },
            Page::Workload => Route::Workload { reservation: next(), kind: next(), id: next(), account: account() },
            Page::Orgs => Route::Orgs,
            Page::Org => Route::Org(next()),
        }
    }

    /// The reservation id segment of the pages under `/reservations/:id`.
    pub fn reservation_id(&self) -> Option<&str> {
        match self {
            Route::Reservation { id, .. } | Route::Nodes { id, .. } | Route::Launch { id, .. } => Some(id),
            Route::Workload { reservation, .. } => Some(reservation),
            _ => None,
        }
    }

    /// The label of the account a page of one reservation names in its address, if any
    /// (none: the connection's first account, as with one key).
    pub fn account(&self) -> Option<&str> {
        match self {
            Route::Reservation { account, .. }
            | Route::Nodes { account, .. }
            | Route::Launch { account, .. }
            | Route::Workload { account, .. } => account.as_deref(),
            _ => None,
        }
    }

    /// The reservation id of the pages under `/reservations/:id`, when it is one: 1 to
    /// [`ID_DIGITS`] digits, no leading zero (the form every link of the console writes).
    /// The one reading of it: the pages, the read they start with and `index.html`'s early
    /// read all go by it.
    pub fn reservation_number(&self) -> Option<i64> {
        let raw = self.reservation_id()?;
        let digits =
            (1..=ID_DIGITS).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_digit()) && !raw.starts_with('0');
        digits.then(|| raw.parse().ok()).flatten()
    }

    /// The API read the page starts with, as a path under the compute API's base URL: the
    /// one table of it. `index.html`'s inline script sends the same read for a fresh load of
    /// these addresses, and a test runs the script on each to hold the two together. None
    /// for an address naming an account: the script knows the first account's key alone.
    pub fn first_read(&self) -> Option<String> {
        match self {
            _ if self.account().is_some() => None,
            Route::Overview | Route::Reservations => Some(client::RESERVATIONS_PATH.to_owned()),
            Route::Reservation { .. } => self.reservation_number().map(client::reservation_path),
            Route::Nodes { .. } => self.reservation_number().map(client::nodes_path),
            _ => None,
        }
    }

    pub fn org_id(&self) -> Option<&str> {
        match self {
            Route::Org(org) => Some(org),
            _ => None,
        }
    }
}

/// The most digits a reservation id may have: any number of 18 digits fits an `i64`, so
/// `index.html`'s script, which cannot parse one, checks an id by its pattern alone.
pub const ID_DIGITS: usize = 18;

/// The query key of the account a page of one reservation is of, written by
/// [`reservation_address`](crate::domain::words::address::reservation_address).
pub use crate::domain::words::address::ACCOUNT_KEY;

/// Where Connect goes once connected, when no other page was asked for.
pub const LANDING: &str = "/overview";

/// The value of `key` in the address bar's query, read as [`query_value`] reads any query
/// (for what is decided once, before the router runs: the time zone, the test interval).
pub fn address_query_value(key: &str) -> Option<String> {
    let query = web_sys::window().and_then(|w| w.location().search().ok())?;
    query_value(&query, key)
}

/// How a navigation treats the history: a new entry (scrolled to the top), or in place of
/// the current one (a redirect, a filter written into the address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Navigation {
    Push,
    Replace,
}

/// The address the app shows. Written only through [`Location::navigate`] and the
/// browser's back and forward, so the signals and the address bar always agree.
#[derive(Clone, Copy)]
pub struct Location {
    path: RwSignal<String>,
    query: RwSignal<String>,
    route: Memo<Route>,
}

impl Location {
    /// The address's page; it changes only when the address names another page, id or
    /// account, and then the page is built anew (see `Pages` in `lib.rs`), so a page reads it once.
    pub fn route(&self) -> Memo<Route> {
        self.route
    }

    pub fn path(&self) -> ReadSignal<String> {
        self.path.read_only()
    }

    /// The query string, `?…` or empty.
    pub fn query(&self) -> ReadSignal<String> {
        self.query.read_only()
    }

    /// Shows `to` (a path with an optional query) and records it in the history.
    pub fn navigate(&self, to: &str, how: Navigation) {
        let Some(window) = web_sys::window() else { return };
        if let Ok(history) = window.history() {
            let _ = match how {
                Navigation::Push => history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(to)),
                Navigation::Replace => history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(to)),
            };
        }
        self.follow_address();
        if how == Navigation::Push {
            window.scroll_to_with_x_and_y(0.0, 0.0);
        }
    }

    /// Goes to `to` in place of the current entry once the render that asked has finished,
    /// so that a page can send the user elsewhere while it is being built.
    pub fn redirect(&self, to: &str) {
        let (location, to) = (*self, to.to_owned());
        queue_microtask(move || location.navigate(&to, Navigation::Replace));
    }

    /// Reads the address bar into the signals (after back/forward or a history write).
    fn follow_address(&self) {
        let Some(address) = web_sys::window().map(|w| w.location()) else { return };
        let path = address.pathname().unwrap_or_default();
        let query = address.search().unwrap_or_default();
        if self.path.try_get_untracked().is_some_and(|now| now != path) {
            self.path.set(path);
        }
        if self.query.try_get_untracked().is_some_and(|now| now != query) {
            self.query.set(query);
        }
    }
}

/// The location of the enclosing [`Router`].
pub fn use_location() -> Location {
    expect_context::<Location>()
}

/// Provides the [`Location`] to `children`, and follows back/forward and the clicks on
/// the app's own links for as long as it is mounted.
#[component]
pub fn Router(children: Children) -> impl IntoView {
    let path = RwSignal::new(String::new());
    let query = RwSignal::new(String::new());
    let location = Location { path, query, route: Memo::new(move |_| Route::parse(&(path.get() + &query.get()))) };
    location.follow_address();
    provide_context(location);
    let back_and_forward = window_event_listener(ev::popstate, move |_| location.follow_address());
    let links = window_event_listener(ev::click, move |event| follow_link(location, &event));
    on_cleanup(move || {
        back_and_forward.remove();
        links.remove();
    });
    children()
}

/// A plain left click on a link to one of the app's own pages navigates in place (the
/// browser keeps new tabs, downloads, other sites and in-page anchors).
fn follow_link(location: Location, event: &web_sys::MouseEvent) {
    if event.default_prevented()
        || event.button() != 0
        || event.meta_key()
        || event.alt_key()
        || event.ctrl_key()
        || event.shift_key()
    {
        return;
    }
    let link = event
        .target()
        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
        .and_then(|element| element.closest("a[href]").ok().flatten())
        .and_then(|element| element.dyn_into::<web_sys::HtmlAnchorElement>().ok());
    let Some(link) = link else { return };
    let external = link.get_attribute("rel").unwrap_or_default().split_whitespace().any(|rel| rel == "external");
    if !link.target().is_empty() || link.has_attribute("download") || external {
        return;
    }
    let Some(here) = web_sys::window().map(|w| w.location()) else { return };
    if link.origin() != here.origin().unwrap_or_default() {
        return;
    }
    let (path, query) = (link.pathname(), link.search());
    let same_page = here.pathname().ok() == Some(path.clone()) && here.search().ok() == Some(query.clone());
    if same_page && !link.hash().is_empty() {
        return;
    }
    event.prevent_default();
    location.navigate(&format!("{path}{query}"), Navigation::Push);
}

/// A link of the main navigation, marked as the current page while the address is at or
/// under its `href`.
#[component]
pub fn NavLink(href: &'static str, children: Children) -> impl IntoView {
    let path = use_location().path();
    let current = move || {
        path.with(|path| path == href || path.strip_prefix(href).is_some_and(|rest| rest.starts_with('/')))
            .then_some("page")
    };
    view! { <a href=href aria-current=current>{children()}</a> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_of_the_console_has_its_route() {
        assert_eq!(Route::parse("/"), Route::Connect);
        assert_eq!(Route::parse(""), Route::Connect);
        assert_eq!(Route::parse("/overview"), Route::Overview);
        assert_eq!(Route::parse("/fit"), Route::Fit);
        assert_eq!(Route::parse("/fit/"), Route::Fit);
        assert_eq!(Route::parse("/capacity"), Route::Capacity);
        assert_eq!(Route::parse("/ledger"), Route::Ledger);
        assert_eq!(Route::parse("/reservations"), Route::Reservations);
        assert_eq!(Route::parse("/reservations/"), Route::Reservations);
        assert_eq!(Route::parse("/reservations/12"), Route::Reservation { id: "12".into(), account: None });
        assert_eq!(Route::parse("/reservations/12/nodes"), Route::Nodes { id: "12".into(), account: None });
        assert_eq!(Route::parse("/reservations/12/launch"), Route::Launch { id: "12".into(), account: None });
        assert_eq!(
            Route::parse("/reservations/12/workloads/gpu_cluster/418"),
            Route::Workload { reservation: "12".into(), kind: "gpu_cluster".into(), id: "418".into(), account: None }
        );
        assert_eq!(Route::parse("/reservations/12/workloads/batch%20job/7").reservation_id(), Some("12"));
        assert_eq!(Route::parse("/orgs"), Route::Orgs);
        assert_eq!(Route::parse("/orgs/org_acme"), Route::Org("org_acme".into()));
    }

    /// Every page of the table is a route of its own, which keeps each segment the page
    /// reads, in the pattern's order.
    #[test]
    fn each_page_of_the_table_parses_to_its_own_route_with_what_it_reads() {
        let mut routes = Vec::new();
        for page in PAGES {
            let mut read = 0;
            let segments: Vec<String> = page
                .segments()
                .map(|segment| match segment {
                    Some(literal) => literal.to_owned(),
                    None => {
                        read += 1;
                        format!("read{read}")
                    }
                })
                .collect();
            let route = Route::parse(&format!("/{}", segments.join("/")));
            let shown = format!("{route:?}");
            assert!((1..=read).all(|n| shown.contains(&format!("\"read{n}\""))), "{page:?}: {shown}");
            assert!(route != Route::NotFound && !routes.contains(&route), "{page:?}: {shown}");
            routes.push(route);
        }
    }

    #[test]
    fn a_page_of_one_reservation_reads_the_account_its_address_names_and_no_other_page_does() {
        let account = |address: &str| Route::parse(address).account().map(str::to_owned);
        for tab in ["", "/nodes", "/launch", "/workloads/gpu_cluster/418"] {
            let address = format!("/reservations/12{tab}?gpus=4&account=prod%2Deu");
            assert_eq!(account(&address).as_deref(), Some("prod-eu"), "{address}");
            assert_eq!(Route::parse(&address).reservation_number(), Some(12), "{address}");
        }
        assert_eq!(account("/reservations/12"), None, "none named: the first account's");
        assert_eq!(account("/reservations/12?account="), None, "no label is empty");
        assert_eq!(
            Route::parse("/reservations/12?tz=utc"),
            Route::parse("/reservations/12"),
            "other keys are the page's"
        );
        assert_ne!(Route::parse("/reservations/12?account=a"), Route::parse("/reservations/12?account=b"));
        for address in ["/overview?account=a", "/fit?account=a", "/reservations?account=a", "/orgs/x?account=a"] {
            assert_eq!(account(address), None, "{address}");
            assert_eq!(Route::parse(address), Route::parse(address.split('?').next().unwrap()), "{address}");
        }
    }

    #[test]
    fn a_reservation_id_is_read_as_the_console_writes_it_and_no_other_way() {
        let number = |path: &str| Route::parse(path).reservation_number();
        assert_eq!(number("/reservations/12/nodes"), Some(12));
        assert_eq!(number("/reservations/123456789012345678"), Some(123_456_789_012_345_678));
        for path in
            ["/reservations/012/nodes", "/reservations/0", "/reservations/1234567890123456789", "/reservations/+1"]
        {
            assert_eq!(number(path), None, "{path}");
        }
    }

    #[test]
    fn an_address_that_is_no_page_is_not_found() {
        for path in
            ["/fit/4", "/reservation", "/reservations/12/billing", "/orgs/a/b", "/x", "/reservations/12/nodes/3"]
        {
            assert_eq!(Route::parse(path), Route::NotFound, "{path}");
        }
    }

    #[test]
    fn the_list_the_detail_and_the_nodes_start_with_their_own_read() {
        let read = |path: &str| Route::parse(path).first_read();
        assert_eq!(read("/overview").as_deref(), Some("/gpu-reservations"));
        assert_eq!(read("/reservations").as_deref(), Some("/gpu-reservations"));
        assert_eq!(read("/reservations/12").as_deref(), Some("/gpu-reservations/12"));
        assert_eq!(read("/reservations/12/nodes").as_deref(), Some("/gpu-reservations/12/nodes"));
        assert_eq!(read("/reservations/12/nodes?tz=utc").as_deref(), Some("/gpu-reservations/12/nodes"));
        for path in [
            "/reservations/12?account=prod-eu",
            "/reservations/12/nodes?account=prod-eu",
            "/",
            "/reservations/12/launch",
            "/reservations/012/nodes",
            "/reservations/-1",
            "/reservations/x/nodes",
            "/orgs",
            "/fit",
            "/capacity",
        ] {
            assert_eq!(read(path), None, "{path}");
        }
    }

    #[test]
    fn a_route_keeps_its_id_as_written_for_the_page_to_judge() {
        assert_eq!(Route::parse("/reservations/abc").reservation_id(), Some("abc"));
        assert_eq!(Route::parse("/reservations/%31%32/nodes").reservation_id(), Some("12"));
        assert_eq!(Route::parse("/orgs/org%20x").org_id(), Some("org x"));
        assert_eq!(Route::parse("/orgs/100%").org_id(), Some("100%"));
        assert_eq!(Route::parse("/orgs").org_id(), None);
        assert_eq!(Route::parse("/reservations").reservation_id(), None);
    }
}
