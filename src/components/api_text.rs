//! Text the API sent (a name, a region, a kind it spelled), shown in a view: its
//! bidirectional controls made visible ([`visible_controls`]) and the whole isolated in a
//! `<bdi>`, so that a name can neither pose as another nor reorder the words around it.
//! The node cards, written as one string, do the same through `Html::text` and their
//! isolated classes.

use crate::domain::text::visible_controls;
use leptos::prelude::*;

#[component]
pub fn ApiText(#[prop(into)] text: String) -> impl IntoView {
    view! { <bdi>{visible_controls(&text).into_owned()}</bdi> }
}
