//! The console's pages by address, written once. The router reads every address with it
//! (`Route::parse`), and `cargo xtask dist` writes from it the addresses nginx answers with
//! the page (xtask includes this file, so it uses the standard library alone).

/// Declares [`Page`], one variant per page with its address pattern, and [`PAGES`], every
/// variant: both from the one list below, so neither can miss a page.
macro_rules! pages {
    ($($(#[doc = $doc:literal])* $page:ident $pattern:literal,)*) => {
        /// A page of the console without its ids: what an address pattern names.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Page {
            $($(#[doc = $doc])* $page,)*
        }

        /// Every page, in the order an address is tried against their patterns.
        pub const PAGES: &[Page] = &[$(Page::$page,)*];

        impl Page {
            /// The page's address: literal segments, and `{name}` for a segment the page
            /// reads (an id), any text without a slash.
            pub const fn pattern(self) -> &'static str {
                match self {
                    $(Page::$page => $pattern,)*
                }
            }
        }
    };
}

pages! {
    Connect "/",
    /// Every reservation's GPUs at once: where Connect lands.
    Overview "/overview",
    /// Where k GPUs fit now; the question is in the query.
    Fit "/fit",
    /// Reserved GPUs over the coming terms: renewals, gaps and overlaps.
    Capacity "/capacity",
    /// The owner's term ledger of every reservation and the account.
    Ledger "/ledger",
    Reservations "/reservations",
    Reservation "/reservations/{id}",
    Nodes "/reservations/{id}/nodes",
    Launch "/reservations/{id}/launch",
    /// A workload on a reservation: reservation id, kind as the API spells it, workload id.
    Workload "/reservations/{id}/workloads/{kind}/{workload}",
    Orgs "/orgs",
    Org "/orgs/{org}",
}

impl Page {
    /// The pattern's segments: a literal, or `None` where the address's segment is read.
    pub fn segments(self) -> impl Iterator<Item = Option<&'static str>> {
        self.pattern().split('/').filter(|segment| !segment.is_empty()).map(|segment| {
            let read = segment.starts_with('{') && segment.ends_with('}');
            (!read).then_some(segment)
        })
    }

    /// The page's address with `read` in each segment it reads (`/reservations/12/nodes`).
    pub fn address_with(self, read: &str) -> String {
        let segments: Vec<&str> = self.segments().map(|segment| segment.unwrap_or(read)).collect();
        format!("/{}", segments.join("/"))
    }

    /// The first page whose pattern `segments` (an address's path split at its slashes, the
    /// empty ones left out) match, with the segments its placeholders stand for, in order.
    pub fn matching<'a>(segments: &[&'a str]) -> Option<(Page, Vec<&'a str>)> {
        PAGES.iter().find_map(|&page| {
            if page.segments().count() != segments.len() {
                return None;
            }
            let mut read = Vec::new();
            for (pattern, segment) in page.segments().zip(segments) {
                match pattern {
                    None => read.push(*segment),
                    Some(literal) if literal == *segment => {}
                    Some(_) => return None,
                }
            }
            Some((page, read))
        })
    }
}
