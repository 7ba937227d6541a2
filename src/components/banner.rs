//! Something that needs the user's action, at the top of a page.

use crate::components::status_badge::tone_name;
use crate::domain::status::Banner;
use leptos::prelude::*;

#[component]
pub fn ActionBanner(
    banner: Banner,
    /// Where the user acts on it (href, words), when not already there.
    #[prop(optional)]
    links: Vec<(String, String)>,
) -> impl IntoView {
    view! {
        <div class=format!("banner tone-{}", tone_name(banner.tone)) role="status">
            <strong class="banner-title">{banner.title}</strong>
            <span class="banner-body">{banner.body}</span>
            {(!links.is_empty()).then(|| view! {
                <span class="banner-links">
                    {links
                        .into_iter()
                        .enumerate()
                        .map(|(i, (href, words))| view! { {if i == 0 { " Open " } else { ", " }} <a href=href>{words}</a> })
                        .collect::<Vec<_>>()}
                </span>
            })}
        </div>
    }
}
