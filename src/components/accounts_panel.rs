//! The header's accounts (issue 48): each connected account with its role, a Remove for
//! each one added beside the connection, and a form to add another key under a label.
//! Its code arrives the first time the header's "Accounts" is opened (a chunk of its own,
//! [`crate::components::header`]), so the first load carries only that button.

use crate::components::error_panel::ErrorPanel;
use crate::components::field::{CheckField, KEEP_HELP};
use crate::domain::words::shown::account_name;
use crate::reads::accounts::{use_account_stores, NotAdded};
use crate::reads::session::Refused;
use leptos::prelude::*;

#[component]
pub fn AccountsPanel() -> impl IntoView {
    let stores = use_account_stores();
    let (label, key, keep) = (RwSignal::new(String::new()), RwSignal::new(String::new()), RwSignal::new(false));
    let (busy, problem) = (RwSignal::new(false), RwSignal::new(None::<NotAdded>));
    // The check answers after the panel may be closed: every write is a `try_`.
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        problem.set(None);
        let asked = (label.get_untracked(), key.get_untracked(), keep.get_untracked());
        leptos::task::spawn_local(async move {
            let added = stores.connect(asked.0, asked.1, asked.2).await;
            busy.try_set(false);
            match added {
                Ok(_) => {
                    label.try_set(String::new());
                    key.try_set(String::new());
                }
                Err(why) => {
                    problem.try_set(Some(why));
                }
            }
        });
    };
    view! {
        <div class="accounts-panel">
            <ul class="accounts-list">
                {move || stores.all().into_iter().map(|(account, _)| {
                    let (role, tone, _) = account.role.words();
                    let label = account.label;
                    let name = account_name(&label).to_owned();
                    let remove = (!label.is_empty()).then(|| {
                        let gone = label.clone();
                        view! {
                            <button type="button" class="button button-secondary" on:click=move |_| stores.remove(&gone)>
                                {format!("Remove {name}")}
                            </button>
                        }
                    });
                    view! {
                        <li data-account=label.clone()>
                            <span class="account-name">{account_name(&label).to_owned()}</span>
                            " " <span class=format!("badge {tone}")>{role}</span>
                            " " {remove}
                        </li>
                    }
                }).collect_view()}
            </ul>
            <form class="accounts-add" aria-label="Add a key" on:submit=on_submit>
                <div class="field">
                    <label for="account-label">"Label"</label>
                    <input id="account-label" name="label" type="text" spellcheck="false" placeholder="prod-eu" required=true bind:value=label/>
                </div>
                <div class="field">
                    <label for="account-key">"API key"</label>
                    <input id="account-key" name="key" type="password" autocomplete="off" spellcheck="false" required=true bind:value=key/>
                </div>
                <CheckField label="Keep the key for this tab" name="keep-account" checked=keep help=KEEP_HELP/>
                <button type="submit" class="button" disabled=move || busy.get()>
                    {move || if busy.get() { "Checking the key…" } else { "Add key" }}
                </button>
            </form>
            {move || problem.get().map(|why| match why {
                NotAdded::Refused(refused) => view! { <p class="field-error" role="alert">{refused_words(refused)}</p> }.into_any(),
                NotAdded::Failed(error) => view! { <ErrorPanel error/> }.into_any(),
            })}
        </div>
    }
}

/// Why a key was not added, in words.
fn refused_words(refused: Refused) -> &'static str {
    match refused {
        Refused::NotConnected => "Connect a first key on the Connect page; others are added beside it.",
        Refused::NoLabel => "Give the key a label, to tell its account from the others.",
        Refused::LabelTaken => "Another connected account has this label: choose another.",
        Refused::KeyTaken => "This key is connected already.",
    }
}
