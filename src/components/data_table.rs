//! The one table of the console's data: a `<table>` with its column heads, body rows and
//! optional caption and sum rows, in the box that scrolls it sideways where it is wider than
//! the screen. The pages give the rows; the head, the box and how a keyboard and a screen
//! reader reach it are written here once.

use leptos::prelude::*;
use std::borrow::Cow;

/// How a column's head is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Head {
    Text,
    /// Figures: aligned right, in tabular digits (`num`).
    Figures,
    /// Named for a screen reader only (a column of buttons).
    Hidden,
}

/// A column: its head's words and how they are shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    words: Cow<'static, str>,
    head: Head,
}

impl Column {
    pub fn text(words: impl Into<Cow<'static, str>>) -> Self {
        Column { words: words.into(), head: Head::Text }
    }

    /// A column of figures.
    pub fn figures(words: impl Into<Cow<'static, str>>) -> Self {
        Column { words: words.into(), head: Head::Figures }
    }

    /// A column named for a screen reader only.
    pub fn hidden(words: impl Into<Cow<'static, str>>) -> Self {
        Column { words: words.into(), head: Head::Hidden }
    }
}

/// The box around the table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scroller {
    /// Scrolls sideways when narrow (`table-wrap`).
    #[default]
    Plain,
    /// Scrolls, and a keyboard reaches it: a region named by these words.
    Named(String),
    /// Scrolls, and a keyboard reaches it: a region named by the element of this id.
    LabelledBy(String),
    /// No box: a table narrow enough never to scroll.
    None,
}

#[component]
pub fn DataTable(
    /// Every class of the `<table>` ("data-table stack-table ledger-table").
    class: &'static str,
    /// The column heads, in order (a signal where a column comes and goes).
    #[prop(into)]
    columns: Signal<Vec<Column>>,
    #[prop(optional)] scroller: Scroller,
    #[prop(optional)] id: Option<&'static str>,
    #[prop(optional, into)] caption: Option<String>,
    /// The rows of `<tfoot>` (sums), when it has any.
    #[prop(optional, into)]
    foot: Option<ViewFnOnce>,
    /// The rows of `<tbody>`.
    children: Children,
) -> impl IntoView {
    let heads = move || {
        columns
            .get()
            .into_iter()
            .map(|c| match c.head {
                Head::Text => view! { <th scope="col">{c.words}</th> }.into_any(),
                Head::Figures => view! { <th scope="col" class="num">{c.words}</th> }.into_any(),
                Head::Hidden => {
                    view! { <th scope="col"><span class="visually-hidden">{c.words}</span></th> }.into_any()
                }
            })
            .collect_view()
    };
    let table = view! {
        <table class=class id=id>
            {caption.map(|c| view! { <caption>{c}</caption> })}
            <thead>
                <tr>{heads}</tr>
            </thead>
            <tbody>{children()}</tbody>
            {foot.map(|f| view! { <tfoot>{f.run()}</tfoot> })}
        </table>
    };
    match scroller {
        Scroller::Plain => view! { <div class="table-wrap">{table}</div> }.into_any(),
        Scroller::Named(label) => {
            view! { <div class="table-wrap" tabindex="0" role="region" aria-label=label>{table}</div> }.into_any()
        }
        Scroller::LabelledBy(heading) => view! {
            <div class="table-wrap" tabindex="0" role="region" aria-labelledby=heading>{table}</div>
        }
        .into_any(),
        Scroller::None => table.into_any(),
    }
}
