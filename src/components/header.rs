//! The app header: where you are, which key is connected and what its role may see, and
//! the UTC/local switch for every time on screen.

use crate::components::accounts_panel::AccountsPanel;
use crate::components::alerts_bell::{BellIcon, BellSlot};
use crate::components::lazy_page::{lazy, lazy_page};
use crate::domain::explain::requests_left;
use crate::router::{use_location, NavLink, Navigation};
use crate::state::{use_connection, use_time_zone, TimeZone};
use leptos::prelude::*;

#[component]
pub fn Header() -> impl IntoView {
    let state = use_connection();
    view! {
        <header class="app-header">
            <div class="app-header-inner">
                <a class="brand" href="/reservations">
                    <svg class="brand-mark" viewBox="0 0 32 32" aria-hidden="true">
                        <rect width="32" height="32" rx="6" fill="#0b5cd5"></rect>
                        <rect x="6" y="6" width="8" height="8" rx="1.5" fill="#fff"></rect>
                        <rect x="18" y="6" width="8" height="8" rx="1.5" fill="#fff"></rect>
                        <rect x="6" y="18" width="8" height="8" rx="1.5" fill="#fff"></rect>
                        <rect x="18" y="18" width="8" height="8" rx="1.5" fill="#fff" fill-opacity=".45"></rect>
                    </svg>
                    "Reserved GPUs"
                    <span class="brand-sub">"EcoHash console"</span>
                </a>
                <Show when=move || state.is_connected()>
                    <nav class="app-nav" aria-label="Main">
                        <ul>
                            <li><NavLink href="/overview">"Overview"</NavLink></li>
                            <li><NavLink href="/reservations">"Reservations"</NavLink></li>
                            <li><NavLink href="/orgs">"Org capacity"</NavLink></li>
                        </ul>
                    </nav>
                </Show>
                <div class="header-tools">
                    <Show when=move || state.is_connected()>
                        <Bell/>
                        <AccountsMenu/>
                    </Show>
                    <TimeZoneSwitch/>
                    <SessionInfo/>
                </div>
            </div>
        </header>
    }
}

/// Radio buttons, so arrow keys move between the two choices.
#[component]
fn TimeZoneSwitch() -> impl IntoView {
    let zone = use_time_zone();
    let option = move |value: TimeZone, label: &'static str| {
        view! {
            <label>
                <input
                    type="radio"
                    name="time-zone"
                    prop:checked=move || zone.get() == value
                    on:change=move |_| zone.0.set(value)
                />
                <span>{label}</span>
            </label>
        }
    };
    view! {
        <fieldset class="segmented" title="Billing dates are always shown in UTC">
            <legend>"Times"</legend>
            {option(TimeZone::Local, "Local")}
            {option(TimeZone::Utc, "UTC")}
        </fieldset>
    }
}

#[component]
fn SessionInfo() -> impl IntoView {
    let state = use_connection();
    let location = use_location();
    let disconnect = move |_| {
        state.disconnect();
        location.navigate("/", Navigation::Push);
    };
    move || {
        state.connection().map(|connection| {
            let (role, tone, note) = state.role().words();
            view! {
                <div class="session">
                    <span class=format!("badge {tone}")>{role}</span>
                    <span class="role-note">{note}</span>
                    <span class="session-url mono" title="API base URL">{connection.base_url().to_owned()}</span>
                    {state.budget().and_then(requests_left).map(|left| view! {
                        <span class="session-budget" title="The key's rate limit, as the answer that checked it said (x-ratelimit-remaining of x-ratelimit-limit). Each page's reads count against it.">
                            {format!("{left} when connected")}
                        </span>
                    })}
                    <button type="button" class="button button-secondary" on:click=disconnect>
                        "Disconnect"
                    </button>
                </div>
            }
        })
    }
}

/// The connected accounts, and a form to add a key beside the connection (issue 48): the
/// panel's code arrives the first time it is opened.
#[component]
fn AccountsMenu() -> impl IntoView {
    let opened = RwSignal::new(false);
    view! {
        <details class="accounts-menu" on:toggle=move |_| opened.set(true)>
            <summary class="button button-secondary">"Accounts"</summary>
            <div class="accounts-menu-panel">
                {move || opened.get().then(|| lazy(accounts_panel::preload, accounts_panel::load))}
            </div>
        </details>
    }
}

lazy_page!(accounts_panel, AccountsPanel);

/// The bell once a page that reads the alerts has installed it ([`BellSlot`]); before that a
/// link to the overview, which reads them: no count is shown where none was read.
#[component]
fn Bell() -> impl IntoView {
    let slot = use_context::<BellSlot>();
    move || match slot.and_then(|slot| slot.bell()) {
        Some(bell) => bell(),
        None => view! {
            <div class="alerts-bell">
                <a class="alerts-summary" href="/overview" aria-label=UNREAD title=UNREAD>
                    <BellIcon/>
                </a>
            </div>
        }
        .into_any(),
    }
}

const UNREAD: &str = "Alerts: not read yet; the overview reads them";
