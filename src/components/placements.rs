//! The GPUs-in-use figure beside a reservation's reserved GPUs on the list and detail,
//! from [`Placements`] (`reads::placements`).

use crate::components::html::Html;
use crate::domain::explain::could_not_read;
use crate::domain::nodes::capacity::InUseOfReserved;
use crate::reads::placements::{Placement, Placements};
use leptos::prelude::*;

/// "6 of 32 GPUs in use", "placement unknown (region unreachable)", a muted "…" while
/// reading, "—" with the mapped error on hover when the read failed; nothing for a
/// reservation whose nodes run no workloads.
#[component]
pub fn InUseFigure(placements: Placements, id: i64, class: &'static str) -> impl IntoView {
    move || {
        placements.get(id).map(|placement| match placement {
            Placement::Loading => view! {
                <span class=format!("{class} in-use muted") aria-busy="true">
                    <span aria-hidden="true">"…"</span>
                    <span class="visually-hidden">"Reading GPUs in use"</span>
                </span>
            }
            .into_any(),
            Placement::Read(figure @ InUseOfReserved::Known { .. }) => {
                view! { <span class=format!("{class} in-use")>{figure.to_string()}</span> }.into_any()
            }
            Placement::Read(figure @ (InUseOfReserved::Unknown | InUseOfReserved::NodeUnreadable)) => view! {
                <span class=format!("{class} in-use tone-text-warning")>"⚠ " {figure.to_string()}</span>
            }
            .into_any(),
            Placement::Failed(error) => {
                let why = could_not_read("GPUs in use", &error);
                let title = why.clone();
                view! {
                    <span class=format!("{class} in-use muted") title=title>
                        <span aria-hidden="true">"—"</span>
                        <span class="visually-hidden">{why}</span>
                    </span>
                }
                .into_any()
            }
        })
    }
}

/// [`InUseFigure`]'s markup, for a view written as one piece of HTML.
pub fn write_in_use(html: &mut Html, placement: Option<&Placement>, class: &'static str) {
    let Some(placement) = placement else { return };
    html.markup(r#"<span class=""#).markup(class);
    match placement {
        Placement::Loading => html.markup(
            r#" in-use muted" aria-busy="true"><span aria-hidden="true">…</span><span class="visually-hidden">Reading GPUs in use</span>"#,
        ),
        Placement::Read(figure @ InUseOfReserved::Known { .. }) => html.markup(r#" in-use">"#).text(figure),
        Placement::Read(figure @ (InUseOfReserved::Unknown | InUseOfReserved::NodeUnreadable)) => {
            html.markup(r#" in-use tone-text-warning">⚠ "#).text(figure)
        }
        Placement::Failed(error) => {
            let why = could_not_read("GPUs in use", error);
            html.markup(r#" in-use muted" title=""#).text(&why);
            html.markup(r#""><span aria-hidden="true">—</span><span class="visually-hidden">"#).text(&why).markup("</span>")
        }
    };
    html.markup("</span>");
}
