//! A labelled form control with its help and its error, wired for assistive technology in
//! one place: the label names the control, the help and the error describe it, and the
//! control says it is invalid while there is an error.

use leptos::attr::{aria_describedby, aria_errormessage, aria_invalid, id as id_attr};
use leptos::prelude::*;

/// What keeping the key costs, said where the choice is made.
/// Exact about sessionStorage: closing the tab is not a sure end (a duplicated tab gets a copy,
/// and restoring a closed tab or a session brings the storage back with it).
pub const KEEP_HELP: &str = "Stores the key in this tab's session storage, so reloading keeps you connected; \
    it is removed when you disconnect. Closing the tab may not remove it: duplicating the tab copies it, \
    and reopening a closed tab or restoring the browser's session can bring it back. The risk: \
    any script running on this page could read it there. Leave this off on a shared or untrusted computer.";

/// `children` is the control (one element, an `<input>`); the field gives it `id` and the
/// ARIA attributes, so a form never spells them out (nor gets them out of step).
#[component]
pub fn Field(
    label: &'static str,
    /// The control's id; the help and the error get `<id>-help` and `<id>-error`.
    id: &'static str,
    /// Shown under the control, always.
    #[prop(optional, into)]
    help: Option<ViewFnOnce>,
    /// What is wrong with the value, once it should be said.
    #[prop(optional, into)]
    error: Option<Signal<Option<String>>>,
    /// Shown on the control's line after it (a form's only button).
    #[prop(optional, into)]
    beside: Option<ViewFnOnce>,
    children: Children,
) -> impl IntoView {
    let has_help = help.is_some();
    let help_id = format!("{id}-help");
    let error_id = format!("{id}-error");
    let invalid = move || error.is_some_and(|e| e.with(Option::is_some));
    let described_by = {
        let error_id = error_id.clone();
        let help_id = help_id.clone();
        move || {
            let ids: Vec<&str> = [invalid().then_some(error_id.as_str()), has_help.then_some(help_id.as_str())]
                .into_iter()
                .flatten()
                .collect();
            (!ids.is_empty()).then(|| ids.join(" "))
        }
    };
    let control = children().add_any_attr((
        id_attr(id),
        aria_describedby(described_by),
        aria_invalid(move || invalid().then_some("true")),
        aria_errormessage(move || invalid().then_some(format!("{id}-error"))),
    ));
    let control = match beside {
        Some(beside) => view! { <div class="inline-field">{control}{beside.run()}</div> }.into_any(),
        None => control.into_any(),
    };
    view! {
        <div class="field">
            <label for=id>{label}</label>
            {control}
            {move || {
                error.and_then(|e| e.get()).map(|problem| view! {
                    <p id=error_id.clone() class="field-error" role="alert">{problem}</p>
                })
            }}
            {help.map(|help| view! { <p id=help_id class="field-help">{help.run()}</p> })}
        </div>
    }
}

/// A checkbox with its label beside it and its help under it, the help tied to the box.
#[component]
pub fn CheckField(
    label: &'static str,
    /// The box's `name`; its help gets `<name>-help`.
    name: &'static str,
    help: &'static str,
    checked: RwSignal<bool>,
) -> impl IntoView {
    let help_id = format!("{name}-help");
    view! {
        <div class="field">
            <label class="check">
                <input type="checkbox" name=name aria-describedby=help_id.clone() bind:checked=checked/>
                <span class="field-label">{label}</span>
            </label>
            <p id=help_id class="field-help">{help}</p>
        </div>
    }
}
