//! The header's bell: how many alerts there are, and the list, most severe first, each
//! naming and linking its reservation (see `domain::alerts`). Derived from what this session
//! read (the overview reads every reservation; the Nodes pages re-read theirs); once the
//! overview is left, the panel says how old the oldest of those reads is.

use crate::components::api_text::ApiText;
use crate::components::fit_watch::WatchInBell;
use crate::components::lazy_page::{lazy, lazy_page};
use crate::components::notify::NotifyChoice;
use crate::components::time::zone;
use crate::domain::alerts::{order, Alert, Severity};
use crate::domain::words::shown::account_name;
use crate::domain::words::time::updated_ago;
use crate::reads::accounts::use_account_stores;
use crate::reads::fleet::{app_fleet, use_fleet, ReadStatus};
use crate::state::{use_clock, use_connection, use_time_zone, Role};
use leptos::prelude::*;

fn tone(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "tone-danger",
        Severity::Warning => "tone-warning",
        Severity::Info => "tone-info",
    }
}

/// The bell's alerts (tracked), computed once for the count and the panel.
#[derive(Clone, Copy)]
struct BellAlerts(Memo<Vec<Alert>>);

/// Where the header draws the bell. Empty until a page that reads the alerts (the overview,
/// `/fit`, `/capacity`) [`install`]s it: the bell and its code come with those pages, and
/// before them the header links to the overview rather than count alerts nobody has read.
#[derive(Clone, Copy)]
pub struct BellSlot(RwSignal<Option<fn() -> AnyView>>);

impl BellSlot {
    pub fn new() -> Self {
        BellSlot(RwSignal::new(None))
    }

    /// The bell, once installed (tracked).
    pub fn bell(&self) -> Option<fn() -> AnyView> {
        self.0.get()
    }

    /// Shows the bell in the header from now on.
    pub fn install(&self) {
        if self.0.get_untracked().is_none() {
            self.0.set(Some(|| view! { <AlertsBell/> }.into_any()));
        }
    }
}

impl Default for BellSlot {
    fn default() -> Self {
        Self::new()
    }
}

/// The bell's drawing, also shown by the header before the bell is installed.
#[component]
pub fn BellIcon() -> impl IntoView {
    view! {
        <svg class="bell-icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <path d="M12 3a6 6 0 0 0-6 6v4l-2 3h16l-2-3V9a6 6 0 0 0-6-6zm-2 15a2 2 0 0 0 4 0"></path>
        </svg>
    }
}

/// [`BellSlot::install`] on the app's slot (none in a page mounted alone in a test).
pub fn install() {
    if let Some(slot) = use_context::<BellSlot>() {
        slot.install();
    }
}

/// The count, always; the panel's code (the list and the notifications choice) arrives the
/// first time the bell is opened. Nothing where the app's stores are not provided (a header
/// mounted alone in a test).
#[component]
pub fn AlertsBell() -> impl IntoView {
    let Some(store) = app_fleet() else { return ().into_any() };
    let state = use_connection();
    let clock = use_clock();
    let tz = use_time_zone();
    let stores = use_account_stores();
    let alerts = Memo::new(move |_| {
        let (now, zone) = (clock.now(), zone(tz.get()));
        let all = stores.all();
        if all.len() <= 1 {
            return store.alerts(now, state.role() == Role::Owner, zone);
        }
        // Several accounts: each one's alerts, for its own role, named by its account.
        let mut alerts: Vec<Alert> = all
            .iter()
            .flat_map(|(account, store)| {
                let name = account_name(&account.label);
                let label = account.label.clone();
                let named = move |alert: Alert| Alert {
                    text: format!("{name}: {}", alert.text),
                    account: label.clone(),
                    ..alert
                };
                store.alerts(now, account.role == Role::Owner, zone).into_iter().map(named)
            })
            .collect();
        order(&mut alerts, now);
        alerts
    });
    provide_context(BellAlerts(alerts));
    let opened = RwSignal::new(false);
    let count = move || alerts.with(Vec::len);
    let critical = move || alerts.with(|a| a.iter().any(|a| a.severity == Severity::Critical));
    let label = move || match count() {
        0 => "Alerts: none".to_owned(),
        1 => "Alerts: 1".to_owned(),
        n => format!("Alerts: {n}"),
    };
    view! {
        <details class="alerts-bell" on:toggle=move |_| opened.set(true)>
            <summary class="alerts-summary" class:critical=critical aria-label=label title=label>
                <BellIcon/>
                <span class="alerts-count num">{count}</span>
            </summary>
            <div class="alerts-panel">
                {move || opened.get().then(|| lazy(alerts_panel::preload, alerts_panel::load))}
            </div>
        </details>
    }
    .into_any()
}

lazy_page!(alerts_panel, AlertsPanel, style = "style-overview");

/// The list, most severe first, and the notifications choice.
#[component]
fn AlertsPanel() -> impl IntoView {
    let BellAlerts(alerts) = expect_context::<BellAlerts>();
    let store = use_fleet();
    let clock = use_clock();
    let count = move || alerts.with(Vec::len);
    // Nothing re-reads most reservations once the overview is left.
    let age = move || {
        let at = (store.status() == ReadStatus::Stopped).then(|| store.oldest_read()).flatten()?;
        Some(view! {
            <p class="muted alerts-age">
                {format!("Node and use alerts are from reads up to {}; the ", updated_ago(clock.now(), at))}
                <a href="/overview">"overview"</a>
                " keeps them current."
            </p>
        })
    };
    view! {
        <h2 class="alerts-title">"Alerts"</h2>
        {move || match (count(), store.has_read()) {
            (0, false) => Some(view! {
                <p class="muted">"Alerts come from what the " <a href="/overview">"overview"</a> " reads; open it to start."</p>
            }.into_any()),
            (0, true) => Some(view! { <p class="muted">"Nothing needs attention in what was read."</p> }.into_any()),
            _ => None,
        }}
        <ol class="alerts-list">
            <WatchInBell store/>
            {move || alerts.get().into_iter().map(|alert| { let href = alert.href(); view! {
                <li class="alert-item" data-severity=alert.severity.label()>
                    <span class=format!("badge {}", tone(alert.severity))>{alert.severity.label()}</span>
                    " "
                    <a href=href><ApiText text=alert.text/></a>
                </li>
            }}).collect::<Vec<_>>()}
        </ol>
        {age}
        <h3 class="alerts-title">"Browser notifications"</h3>
        <NotifyChoice alerts/>
    }
}
