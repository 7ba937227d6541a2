//! A figure from the API that does not add up, flagged in words beside it.

use crate::components::html::Html;
use leptos::prelude::*;

/// The warning beside the figure; `class` places it (a cell's sub-line, a fact).
#[component]
pub fn Flag(text: String, class: &'static str) -> impl IntoView {
    view! { <span class=format!("{class} tone-text-warning flag")>"⚠ " {text}</span> }
}

/// [`Flag`]'s markup, for a view written as one piece of HTML.
pub fn write_flag(html: &mut Html, text: &str, class: &'static str) {
    html.markup(r#"<span class=""#).markup(class).markup(r#" tone-text-warning flag">⚠ "#);
    html.text(text).markup("</span>");
}
