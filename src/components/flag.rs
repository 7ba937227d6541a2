//! A figure from the API that does not add up, flagged in words beside it.

use leptos::prelude::*;

/// The warning beside the figure; `class` places it (a cell's sub-line, a fact).
#[component]
pub fn Flag(text: String, class: &'static str) -> impl IntoView {
    view! { <span class=format!("{class} tone-text-warning flag")>"⚠ " {text}</span> }
}
