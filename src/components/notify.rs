//! Opt-in browser notifications of critical alerts while the tab is hidden. Off by default;
//! the browser is asked for permission only when the user clicks "Notify me", and each
//! critical alert is notified once, only if it appeared while the tab was hidden (one seen
//! on screen is not repeated): [`to_notify`] decides.
//!
//! The Notification API is bound here by hand: enabling web-sys features for it would
//! rebuild every crate that depends on web-sys for three calls.

use crate::api::models::Timestamp;
use crate::browser::{hidden, on_visibility_change};
use crate::domain::alerts::{Alert, Severity};
use crate::router::{Location, Navigation};
use leptos::prelude::*;
use std::collections::BTreeSet;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    type Notification;
    #[wasm_bindgen(constructor, catch)]
    fn new(title: &str, options: &JsValue) -> Result<Notification, JsValue>;
}

/// Where notifications stand for this tab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotifyState {
    /// The browser has no Notification API (or the page is not a secure context).
    Unsupported,
    Off,
    /// Asked the browser; waiting for the person's answer.
    Asking,
    On,
    /// The browser (or the person) refused.
    Refused,
}

/// What tells one critical alert from another: its reservation and its time. A reservation
/// has one critical alert at a time, its stop within 24 hours (at its `stops_at`) or its
/// suspension (no time), so a stop then a suspension are two alerts, and a countdown whose
/// words change as it runs is one.
pub type AlertKey = (i64, Option<Timestamp>);

/// The alerts to notify now, of `alerts` as they stand: the critical ones not in `seen`,
/// while notifications are `on` and the tab is `hidden`, and a watched question that now
/// fits (asked for, so told even while the tab is shown) while they are `on`. Every such
/// alert goes into `seen` whatever the answer, so one that appeared while the tab was
/// shown, or before notifications were on, is never notified later; other warnings and
/// notes never are.
pub fn to_notify<'a>(alerts: &'a [Alert], seen: &mut BTreeSet<AlertKey>, on: bool, hidden: bool) -> Vec<&'a Alert> {
    let mut out = Vec::new();
    for alert in alerts.iter().filter(|a| a.severity == Severity::Critical || a.launch.is_some()) {
        let new = seen.insert((alert.reservation, alert.at));
        if new && on && (hidden || alert.launch.is_some()) {
            out.push(alert);
        }
    }
    out
}

fn notification_class() -> Option<js_sys::Object> {
    let window = web_sys::window()?;
    let class = js_sys::Reflect::get(&window, &"Notification".into()).ok()?;
    class.dyn_into::<js_sys::Object>().ok()
}

fn permission() -> Option<String> {
    let class: JsValue = notification_class()?.into();
    js_sys::Reflect::get(&class, &"permission".into()).ok()?.as_string()
}

/// Asks the browser, and resolves to the permission it answered.
async fn request_permission() -> Option<String> {
    let class = notification_class()?;
    let ask: js_sys::Function = js_sys::Reflect::get(&class, &"requestPermission".into()).ok()?.dyn_into().ok()?;
    let promise: js_sys::Promise = ask.call0(&class).ok()?.dyn_into().ok()?;
    wasm_bindgen_futures::JsFuture::from(promise).await.ok()?.as_string()
}

/// Shows `alert`; a click brings the tab forward at the alert's page (its launch page, for
/// a watched question that fits).
fn show(alert: &Alert, location: Option<Location>) {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"body".into(), &alert.text.as_str().into());
    let _ = js_sys::Reflect::set(&options, &"tag".into(), &format!("reservation-{}", alert.reservation).into());
    let title = if alert.launch.is_some() { "Reserved GPUs: it fits now" } else { "Reserved GPUs: critical alert" };
    // A browser that refuses at this point only means no notification.
    let Ok(shown) = Notification::new(title, &options) else { return };
    let href = alert.href();
    let open = Closure::once_into_js(move || {
        if let Some(window) = web_sys::window() {
            let _ = window.focus();
        }
        if let Some(location) = location {
            location.navigate(&href, Navigation::Push);
        }
    });
    let _ = js_sys::Reflect::set(&shown, &"onclick".into(), &open);
}

/// The "Notify me" choice, and the watcher that notifies once it is on.
#[component]
pub fn NotifyChoice(alerts: Memo<Vec<Alert>>) -> impl IntoView {
    let state = RwSignal::new(if notification_class().is_some() { NotifyState::Off } else { NotifyState::Unsupported });
    let tab_hidden = RwSignal::new(hidden());
    let listener = on_visibility_change(move |now_hidden| tab_hidden.set(now_hidden));
    on_cleanup(move || listener.remove());
    // Critical alerts already seen on screen or notified.
    let seen = StoredValue::new(BTreeSet::<AlertKey>::new());
    let location = use_context::<Location>();
    Effect::new(move || {
        let (on, hidden) = (state.get() == NotifyState::On, tab_hidden.get());
        alerts.with(|all| {
            seen.try_update_value(|seen| to_notify(all, seen, on, hidden).into_iter().for_each(|a| show(a, location)));
        });
    });
    let turn_on = move |_| {
        if permission().as_deref() == Some("granted") {
            state.set(NotifyState::On);
            return;
        }
        state.set(NotifyState::Asking);
        leptos::task::spawn_local(async move {
            let answer = request_permission().await;
            state.try_set(if answer.as_deref() == Some("granted") { NotifyState::On } else { NotifyState::Refused });
        });
    };
    view! {
        <div class="notify-choice">
            {move || match state.get() {
                NotifyState::Unsupported => view! {
                    <p class="muted">"This browser offers no notifications to web pages."</p>
                }.into_any(),
                NotifyState::Off | NotifyState::Asking => view! {
                    <p class="muted">
                        "Off. With notifications on, an alert that becomes critical while this tab is hidden "
                        "(a stop within 24 hours, a suspension) is shown by your system, once, and so is a "
                        "question watched on “Where GPUs fit” the moment it fits. The browser asks your "
                        "permission first; nothing is sent anywhere."
                    </p>
                    <button type="button" class="button button-secondary" on:click=turn_on disabled=move || state.get() == NotifyState::Asking>
                        "Notify me"
                    </button>
                }.into_any(),
                NotifyState::On => view! {
                    <p class="muted">"On for this tab: critical alerts that appear while it is hidden are notified, and a watched question the moment it fits."</p>
                    <button type="button" class="button button-secondary" on:click=move |_| state.set(NotifyState::Off)>
                        "Stop notifying"
                    </button>
                }.into_any(),
                NotifyState::Refused => view! {
                    <p class="muted">"The browser refused notifications for this site; allow them in its site settings to turn them on."</p>
                }.into_any(),
            }}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn fits(reservation: i64, at: Option<Timestamp>) -> Alert {
        let launch = Some(format!("/reservations/{reservation}/launch?gpus=4"));
        Alert { launch, ..alert(Severity::Info, reservation, "room for 4 GPUs now", at) }
    }

    #[test]
    fn a_watched_question_that_fits_is_notified_once_while_on_even_with_the_tab_shown() {
        let mut seen = BTreeSet::new();
        assert!(notified(&[fits(3, stop_at())], &mut seen, false, false).is_empty(), "off: never");
        let mut seen = BTreeSet::new();
        assert_eq!(notified(&[fits(3, stop_at())], &mut seen, true, false), ["room for 4 GPUs now"]);
        assert!(notified(&[fits(3, stop_at())], &mut seen, true, true).is_empty(), "once");
        let later = Some(chrono::Utc.with_ymd_and_hms(2026, 12, 3, 7, 0, 0).unwrap());
        assert_eq!(notified(&[fits(3, later)], &mut seen, true, false).len(), 1, "the next transition");
    }

    fn alert(severity: Severity, reservation: i64, text: &str, at: Option<Timestamp>) -> Alert {
        Alert { severity, reservation, text: text.into(), at, stops: false, launch: None, account: String::new() }
    }

    fn stop_at() -> Option<Timestamp> {
        Some(chrono::Utc.with_ymd_and_hms(2026, 12, 3, 6, 0, 0).unwrap())
    }

    fn notified(alerts: &[Alert], seen: &mut BTreeSet<AlertKey>, on: bool, hidden: bool) -> Vec<String> {
        to_notify(alerts, seen, on, hidden).into_iter().map(|a| a.text.clone()).collect()
    }

    #[test]
    fn only_critical_alerts_are_notified() {
        let alerts = [
            alert(Severity::Warning, 1, "term ends", None),
            alert(Severity::Critical, 2, "stops in 5 hours", stop_at()),
            alert(Severity::Info, 3, "amendment", None),
        ];
        assert_eq!(notified(&alerts, &mut BTreeSet::new(), true, true), ["stops in 5 hours"]);
    }

    #[test]
    fn nothing_is_notified_while_off_or_while_the_tab_is_shown_and_those_alerts_are_not_repeated() {
        let alerts = [alert(Severity::Critical, 2, "stops in 5 hours", stop_at())];
        let mut seen = BTreeSet::new();
        assert!(notified(&alerts, &mut seen, false, true).is_empty(), "off, the default");
        assert!(notified(&alerts, &mut seen, true, true).is_empty(), "seen before notifications were on");
        let mut seen = BTreeSet::new();
        assert!(notified(&alerts, &mut seen, true, false).is_empty(), "the tab is shown");
        assert!(notified(&alerts, &mut seen, true, true).is_empty(), "seen on screen: not repeated once hidden");
    }

    #[test]
    fn each_critical_alert_is_notified_once_though_its_words_change() {
        let mut seen = BTreeSet::new();
        let at_five = [alert(Severity::Critical, 2, "stops in 5 hours", stop_at())];
        assert_eq!(notified(&at_five, &mut seen, true, true), ["stops in 5 hours"]);
        let at_four = [alert(Severity::Critical, 2, "stops in 4 hours", stop_at())];
        assert!(notified(&at_four, &mut seen, true, true).is_empty(), "the same stop, counting down");
        let suspended = [alert(Severity::Critical, 2, "suspended", None)];
        assert_eq!(notified(&suspended, &mut seen, true, true), ["suspended"], "another alert of the reservation");
        let elsewhere = [alert(Severity::Critical, 7, "suspended", None), suspended[0].clone()];
        assert_eq!(notified(&elsewhere, &mut seen, true, true), ["suspended"], "another reservation's");
    }
}
