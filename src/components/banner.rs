//! Something that needs the user's action, at the top of a page.

use crate::components::status_badge::tone_name;
use crate::domain::status::Banner;
use leptos::prelude::*;

#[component]
pub fn ActionBanner(
    banner: Banner,
    /// Where the user acts on it, and the link's words, when not already there.
    #[prop(optional)]
    link: Option<(String, String)>,
) -> impl IntoView {
    view! {
        <div class=format!("banner tone-{}", tone_name(banner.tone)) role="status">
            <strong class="banner-title">{banner.title}</strong>
            <span class="banner-body">{banner.body}</span>
            {link.map(|(href, words)| view! { " " <a href=href>{words}</a> })}
        </div>
    }
}
