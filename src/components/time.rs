//! Times as people read them: in the chosen zone with the UTC value on hover, billing dates
//! always in UTC (periods start at midnight UTC; no zone may show the previous day), and
//! ages that move with the clock.

use crate::api::models::Timestamp;
use crate::domain::time::{format_time, format_utc_date, relative, utc_title, Zone};
use crate::state::{use_clock, use_time_zone, TimeZone};
use chrono::FixedOffset;
use leptos::prelude::*;

/// The zone to show `at` in: the browser's offset *at that instant* (daylight saving time
/// moves it), or UTC.
pub fn zone_for(choice: TimeZone, at: Timestamp) -> Zone {
    match choice {
        TimeZone::Utc => Zone::Utc,
        TimeZone::Local => {
            let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(at.timestamp_millis() as f64));
            // getTimezoneOffset is minutes *behind* UTC: +60 in New York winter… sign flips.
            let east_seconds = -(date.get_timezone_offset() * 60.0) as i32;
            FixedOffset::east_opt(east_seconds).map_or(Zone::Utc, Zone::Local)
        }
    }
}

/// A moment, in the chosen zone, with UTC on hover.
#[component]
pub fn Time(at: Timestamp) -> impl IntoView {
    let zone = use_time_zone();
    view! {
        <time class="num" datetime=at.to_rfc3339() title=utc_title(at)>
            {move || format_time(at, zone_for(zone.get(), at))}
        </time>
    }
}

/// A billing date, in UTC whatever the switch says.
#[component]
pub fn UtcDate(at: Timestamp) -> impl IntoView {
    view! {
        <time class="num" datetime=at.to_rfc3339() title=utc_title(at)>
            {format_utc_date(at)}
        </time>
    }
}

/// "2 min ago", "in 11 months": relative to the clock, the exact time on hover.
#[component]
pub fn Ago(at: Timestamp) -> impl IntoView {
    let clock = use_clock();
    view! {
        <time datetime=at.to_rfc3339() title=utc_title(at)>
            {move || relative(clock.now(), at)}
        </time>
    }
}
