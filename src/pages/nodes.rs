//! Placeholder until UI helper B's page lands; B overwrites this file.

use leptos::prelude::*;

#[component]
pub fn NodesPage() -> impl IntoView {
    view! { <div class="panel"><h1>"Coming soon"</h1></div> }
}
