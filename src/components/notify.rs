//! Opt-in browser notifications of critical alerts while the tab is hidden. Off by default;
//! the browser is asked for permission only when the user clicks "Notify me", and each
//! critical alert is notified once, only if it appeared while the tab was hidden (one seen
//! on screen is not repeated).
//!
//! The Notification API is bound here by hand: enabling web-sys features for it would
//! rebuild every crate that depends on web-sys for three calls.

use crate::domain::alerts::{Alert, Severity};
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

fn hidden() -> bool {
    web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden())
}

fn show(alert: &Alert) {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"body".into(), &alert.text.as_str().into());
    let _ = js_sys::Reflect::set(&options, &"tag".into(), &format!("reservation-{}", alert.reservation).into());
    // A browser that refuses at this point only means no notification.
    let _ = Notification::new("Reserved GPUs: critical alert", &options);
}

/// The "Notify me" choice, and the watcher that notifies once it is on.
#[component]
pub fn NotifyChoice(alerts: Memo<Vec<Alert>>) -> impl IntoView {
    let state = RwSignal::new(if notification_class().is_some() { NotifyState::Off } else { NotifyState::Unsupported });
    let tab_hidden = RwSignal::new(hidden());
    let listener = window_event_listener_untyped("visibilitychange", move |_| tab_hidden.set(hidden()));
    on_cleanup(move || listener.remove());
    // Critical alerts already seen on screen or notified, by reservation.
    let known = StoredValue::new(BTreeSet::<i64>::new());
    Effect::new(move || {
        let critical: Vec<Alert> =
            alerts.with(|all| all.iter().filter(|a| a.severity == Severity::Critical).cloned().collect());
        let notifying = state.get() == NotifyState::On && tab_hidden.get();
        for alert in critical {
            let new = known.try_update_value(|k| k.insert(alert.reservation)).unwrap_or(false);
            if new && notifying {
                show(&alert);
            }
        }
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
                        "(a stop within 24 hours, a suspension) is shown by your system, once. The browser "
                        "asks your permission first; nothing is sent anywhere."
                    </p>
                    <button type="button" class="button button-secondary" on:click=turn_on disabled=move || state.get() == NotifyState::Asking>
                        "Notify me"
                    </button>
                }.into_any(),
                NotifyState::On => view! {
                    <p class="muted">"On for this tab: critical alerts that appear while it is hidden are notified."</p>
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
