//! Connect: the API base URL and a key, checked by reading the reservations (a wrong key
//! answers 401, explained here), then the role learnt from the first reservation's detail.

use crate::api::assumptions::DEFAULT_BASE_URL;
use crate::api::client::{self, base_url_problem, console_origin_problem, key_problem, Connection};
use crate::api::error::ApiError;
use crate::api::models::Reservation;
use crate::browser::set_page_title;
use crate::components::error_panel::ErrorPanel;
use crate::components::field::{CheckField, Field, KEEP_HELP};
use crate::router::{use_location, Location, Navigation};
use crate::state::{probe_role, use_connection, ConnectionState, Rejection, Role};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// A key checked, its role not read yet (or the read failed: `error`).
#[derive(Clone)]
struct Unprobed {
    connection: Connection,
    reservations: Vec<Reservation>,
    rate_limit: Option<crate::api::error::RateLimit>,
    keep_for_tab: bool,
    error: Option<ApiError>,
}

impl Unprobed {
    /// Starts the session in `role` and goes where the user was going.
    fn finish(self, state: ConnectionState, location: Location, role: Role) {
        let target = state.take_return_path();
        state.connect(self.connection, self.keep_for_tab, role);
        state.note_budget(self.rate_limit);
        location.navigate(&target, Navigation::Push);
    }
}

/// `prefetch(path)` fetches the code of the page at `path`, without showing it.
#[component]
pub fn ConnectPage(prefetch: fn(&str)) -> impl IntoView {
    let state = use_connection();
    // Checked once: after connecting, this page navigates itself to where the user was going.
    if state.is_connected_untracked() {
        use_location().redirect(crate::router::LANDING);
        return ().into_any();
    }
    view! { <ConnectForm prefetch/> }.into_any()
}

#[component]
fn ConnectForm(prefetch: fn(&str)) -> impl IntoView {
    set_page_title("Connect");
    let state = use_connection();
    let location = use_location();
    let prefetched = StoredValue::new(false);
    let base_url = RwSignal::new(DEFAULT_BASE_URL.to_owned());
    let org_base_url = RwSignal::new(DEFAULT_BASE_URL.to_owned());
    let console_origin = RwSignal::new(String::new());
    let origin_error = RwSignal::new(None::<&'static str>);
    let base_url_error = RwSignal::new(None::<&'static str>);
    let org_base_url_error = RwSignal::new(None::<&'static str>);
    let key = RwSignal::new(String::new());
    let keep = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let key_error = RwSignal::new(None::<&'static str>);
    let failure = RwSignal::new(None::<ApiError>);
    // The key works but reading its role failed: kept to retry the read or go on without it.
    let unprobed = RwSignal::new_local(None::<Unprobed>);
    // Called after the key's check too, when the page may be gone: every write is a `try_`.
    let probe = move |checked: Unprobed| {
        busy.try_set(true);
        unprobed.try_set(None);
        spawn_local(async move {
            match probe_role(&checked.connection, &checked.reservations).await {
                Ok(role) => {
                    key.try_set(String::new());
                    checked.finish(state, location, role);
                }
                Err(error) => {
                    unprobed.try_set(Some(Unprobed { error: Some(error), ..checked }));
                }
            }
            busy.try_set(false);
        });
    };

    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let typed = key.get_untracked();
        key_error.set(key_problem(&typed));
        origin_error.set(console_origin_problem(&console_origin.get_untracked()));
        base_url_error.set(base_url_problem(&base_url.get_untracked()));
        org_base_url_error.set(base_url_problem(&org_base_url.get_untracked()));
        let problems = [key_error, origin_error, base_url_error, org_base_url_error];
        if problems.iter().any(|p| p.get_untracked().is_some()) {
            return;
        }
        let connection = Connection::new(base_url.get_untracked(), typed)
            .with_org_base_url(&org_base_url.get_untracked())
            .with_console_origin(&console_origin.get_untracked());
        let keep_for_tab = keep.get_untracked();
        busy.set(true);
        failure.set(None);
        unprobed.set(None);
        // The page may be left during the requests: its signals are written with `try_`.
        spawn_local(async move {
            match client::check_key(&connection).await {
                Ok(checked) => probe(Unprobed {
                    connection: connection.with_simulator(checked.simulator),
                    reservations: checked.reservations,
                    rate_limit: checked.rate_limit,
                    keep_for_tab,
                    error: None,
                }),
                Err(err) => {
                    failure.try_set(Some(err));
                    busy.try_set(false);
                }
            }
        });
    };
    let retry_probe = Callback::new(move |()| {
        if let Some(checked) = unprobed.get_untracked() {
            probe(checked);
        }
    });
    let go_on = move |_| {
        if let Some(checked) = unprobed.get_untracked() {
            key.set(String::new());
            checked.finish(state, location, Role::Unknown);
        }
    };

    view! {
        <div class="connect-layout">
            <section class="panel connect-card" aria-labelledby="connect-title">
                <h1 id="connect-title">"Connect to your account"</h1>
                <p class="subtitle">
                    "Viewing needs a key with Read-only Compute access. Launching a workload and "
                    "reclaiming org units change things: they need a key allowed to."
                </p>
                // Once the user tries again, the new attempt's answer replaces the old rejection.
                {move || {
                    state
                        .rejection()
                        .filter(|_| failure.with(Option::is_none))
                        .map(|rejection| view! { <RejectedNotice rejection/> })
                }}
                // Should the handler ever not run, a native submission must not carry the key:
                // the fields have no `name` (a form sends only named fields) and the method is
                // POST, so nothing lands in the address bar or the history.
                // Once the user starts on the form, the code of the page it leads to is
                // fetched while they fill it in (Connect's own load carries none of it).
                <form
                    class="connect-form"
                    method="post"
                    on:submit=submit
                    on:focusin=move |_| {
                        if !prefetched.get_value() {
                            prefetched.set_value(true);
                            prefetch(&state.return_path());
                        }
                    }
                    novalidate=true
                    aria-busy=move || busy.get().to_string()
                >
                    <Field
                        label="API base URL"
                        id="base-url"
                        help=|| view! {
                            <code>"/api"</code>
                            " on this site (the default), or a full address such as "
                            <code>"https://api.ecohash.com"</code>
                            ". The key is sent there and to the org capacity API's base URL below."
                        }
                        error=Signal::derive(move || base_url_error.get().map(str::to_owned))
                    >
                        <input type="text" inputmode="url" autocomplete="url" spellcheck="false" bind:value=base_url/>
                    </Field>
                    <Field
                        label="Org capacity API base URL"
                        id="org-base-url"
                        help=|| view! {
                            "The org capacity API (org pages, reclaim) is a different API: where it is served. "
                            "Blank means the same as the API base URL. The same key is sent here too: "
                            "enter only an address you trust with it."
                        }
                        error=Signal::derive(move || org_base_url_error.get().map(str::to_owned))
                    >
                        <input type="text" inputmode="url" spellcheck="false" bind:value=org_base_url/>
                    </Field>
                    <Field
                        label="Provider console (optional)"
                        id="console-origin"
                        help=|| view! {
                            "The origin of the provider's own web console, such as "
                            <code>"https://console.ecohash.com"</code>
                            ", to link each workload to its page there. Empty: no such links."
                        }
                        error=Signal::derive(move || origin_error.get().map(str::to_owned))
                    >
                        <input type="text" inputmode="url" spellcheck="false" placeholder="https://…" bind:value=console_origin/>
                    </Field>
                    <Field
                        label="API key"
                        id="api-key"
                        help=|| "Held in this tab's memory only, unless you choose to keep it below. \
                            If the browser or a password manager offers to save it, decline: it is a key to \
                            the account, and a saved copy outlives this tab."
                        error=Signal::derive(move || key_error.get().map(str::to_owned))
                    >
                        // A key, not a login: the attributes by which browsers and password
                        // managers (1Password, LastPass, Bitwarden, Dashlane) leave a field alone.
                        // `new-password` would invite them to save or generate one.
                        <input
                            type="password"
                            autocomplete="off"
                            data-1p-ignore="true"
                            data-lpignore="true"
                            data-bwignore="true"
                            data-form-type="other"
                            autocapitalize="off"
                            spellcheck="false"
                            placeholder="eco_…"
                            bind:value=key
                        />
                    </Field>
                    <CheckField label="Keep the key for this tab" name="keep" checked=keep help=KEEP_HELP/>
                    {move || failure.get().map(|error| view! { <ErrorPanel error/> })}
                    {move || unprobed.get().and_then(|u| u.error).map(|error| view! {
                        <div class="role-probe-failed">
                            <p>
                                <strong>"The key works, but its role could not be learnt."</strong>
                                " Reading the first reservation, to tell whether this key sees payments, failed:"
                            </p>
                            <ErrorPanel error busy=busy retry=retry_probe/>
                            <button type="button" class="button button-secondary" on:click=go_on disabled=move || busy.get()>
                                "Continue without the role"
                            </button>
                            <p class="field-help">"The header then says the role is not known yet; it is learnt from the next reservation read."</p>
                        </div>
                    })}
                    <button type="submit" class="button" disabled=move || busy.get()>
                        {move || if busy.get() { "Checking the key…" } else { "Connect" }}
                    </button>
                </form>
            </section>
            <aside class="panel connect-aside" aria-labelledby="roles-title">
                <h2 id="roles-title">"What a key shows"</h2>
                <dl class="roles">
                    <dt><span class="badge tone-ok">"Owner"</span></dt>
                    <dd>"Reservations, nodes and workloads, and the payment schedule: rates, advance, charges."</dd>
                    <dt><span class="badge tone-info">"Member"</span></dt>
                    <dd>"Reservations, nodes and workloads. Billing is the account owner's: no payment figures are shown."</dd>
                </dl>
                <p class="panel-note">
                    "The header shows the role once the console has read a reservation with the key."
                </p>
            </aside>
        </div>
    }
}

/// Why the user is back here: the key stopped working on another page.
#[component]
fn RejectedNotice(rejection: Rejection) -> impl IntoView {
    view! {
        <div class="rejected">
            <ErrorPanel error=rejection.error/>
            <p class="panel-note">
                "After connecting again you return to "
                <code>{rejection.path}</code>
                "."
            </p>
        </div>
    }
}
