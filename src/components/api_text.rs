//! Text the API sent (a name, a region, a kind it spelled), shown in a view: its
//! bidirectional controls made visible ([`visible_controls`]) and the whole isolated in a
//! `<bdi>`, so that a name can neither pose as another nor reorder the words around it.
//! The node cards, written as one string, do the same through `Html::text` and their
//! isolated classes.

use crate::domain::words::text::visible_controls;
use leptos::prelude::*;

#[component]
pub fn ApiText(#[prop(into)] text: String) -> impl IntoView {
    view! { <bdi>{visible_controls(&text).into_owned()}</bdi> }
}

/// API text that may run long (the API bounds no name), cut by the stylesheet to a few
/// lines (`.api-cut`, style/overview.css) with the whole of it in the title, as the node
/// cards cut theirs: a 10,000-character name keeps its row a few lines high and stays
/// reachable whole. Isolated and its controls shown, as [`ApiText`].
#[component]
pub fn CutText(#[prop(into)] text: String) -> impl IntoView {
    let shown = visible_controls(&text).into_owned();
    let whole = shown.clone();
    view! { <bdi class="api-cut" title=whole>{shown}</bdi> }
}
