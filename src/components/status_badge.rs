//! A status as a coloured badge that always carries its word, with the sentence that says
//! what it means for the user. Unknown values arrive labelled "unrecognised" by the domain,
//! holding the API's text as sent: badge and sentence show it through [`ApiText`].

use crate::components::api_text::ApiText;
use crate::components::html::Html;
use crate::domain::status::{StatusText, Tone};
use leptos::prelude::*;

/// A tone's name in CSS classes: `tone-ok` (text and background), `fill-ok` (charts).
pub fn tone_name(tone: Tone) -> &'static str {
    match tone {
        Tone::Ok => "ok",
        Tone::Info => "info",
        Tone::Warning => "warning",
        Tone::Danger => "danger",
        Tone::Neutral => "neutral",
        Tone::Unknown => "unknown",
    }
}

#[component]
pub fn StatusBadge(label: String, tone: Tone) -> impl IntoView {
    view! { <span class=format!("badge tone-{}", tone_name(tone))><ApiText text=label/></span> }
}

/// Badge plus explanation, for a table cell or a facts entry.
#[component]
pub fn StatusWithExplanation(status: StatusText) -> impl IntoView {
    view! {
        <StatusBadge label=status.label tone=status.tone/>
        <p class="status-explanation"><ApiText text=status.explanation/></p>
    }
}

/// [`StatusWithExplanation`]'s markup, for a view written as one piece of HTML.
pub fn write_status(html: &mut Html, status: &StatusText) {
    html.markup(r#"<span class="badge tone-"#).markup(tone_name(status.tone)).markup(r#""><bdi>"#);
    html.text(&status.label).markup(r#"</bdi></span><p class="status-explanation"><bdi>"#);
    html.text(&status.explanation).markup("</bdi></p>");
}
