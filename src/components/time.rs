//! Times as people read them: in the chosen zone with the UTC value on hover, billing dates
//! always in UTC (periods start at midnight UTC; no zone may show the previous day), and
//! ages that move with the clock.

use crate::api::enums::ReservationStatus;
use crate::api::models::{Reservation, Timestamp};
use crate::components::html::Html;
use crate::domain::words::time::{format_period, format_time, format_utc_date, relative, utc_title, Zone};
use crate::state::{use_clock, use_time_zone, TimeZone};
use chrono::Timelike;
use leptos::prelude::*;

pub fn zone(choice: TimeZone) -> Zone {
    match choice {
        TimeZone::Local => Zone::System,
        TimeZone::Utc => Zone::Utc,
    }
}

/// A moment, in the chosen zone, with UTC on hover.
#[component]
pub fn Time(at: Timestamp) -> impl IntoView {
    let choice = use_time_zone();
    view! {
        <time class="num" datetime=at.to_rfc3339() title=utc_title(at)>
            {move || format_time(at, zone(choice.get()))}
        </time>
    }
}

/// A billing date, in UTC whatever the switch says: the date alone at midnight UTC (where
/// periods and terms start), with the time otherwise.
#[component]
pub fn UtcDate(at: Timestamp) -> impl IntoView {
    view! { <time class="num" datetime=at.to_rfc3339() title=utc_title(at)>{utc_date_text(at)}</time> }
}

fn utc_date_text(at: Timestamp) -> String {
    if at.num_seconds_from_midnight() == 0 && at.nanosecond() == 0 {
        format_utc_date(at)
    } else {
        format_time(at, Zone::Utc)
    }
}

/// [`UtcDate`]'s markup, for a view written as one piece of HTML.
fn write_utc_date(html: &mut Html, at: Timestamp) {
    html.markup(r#"<time class="num" datetime=""#).text(at.to_rfc3339()).markup(r#"" title=""#);
    html.text(utc_title(at)).markup(r#"">"#).text(utc_date_text(at)).markup("</time>");
}

/// A billing period, its last day inclusive, in UTC.
#[component]
pub fn Period(start: Timestamp, end: Timestamp) -> impl IntoView {
    view! {
        <span class="num nowrap" title=format!("{} to {}", utc_title(start), utc_title(end))>
            {format_period(start, end)}
        </span>
    }
}

/// "2 minutes ago", "in 11 months": relative to the clock, the exact time on hover.
#[component]
pub fn Ago(at: Timestamp) -> impl IntoView {
    let clock = use_clock();
    view! {
        <time datetime=at.to_rfc3339() title=utc_title(at)>
            {move || relative(clock.now(), at)}
        </time>
    }
}

/// Start → end (billing dates, UTC), or why there are none yet; `ended_at` when it differs.
#[component]
pub fn TermDates(r: Reservation) -> impl IntoView {
    match (r.starts_at, r.ends_at) {
        (Some(start), Some(end)) => view! {
            <span class="nowrap"><UtcDate at=start/></span>
            " → "
            <span class="nowrap"><UtcDate at=end/></span>
            {r.ended_at.filter(|e| *e != end).map(|at| view! {
                <span class="cell-sub">"ended " <UtcDate at/></span>
            })}
        }
        .into_any(),
        (Some(start), None) => view! { <UtcDate at=start/> " → no end set" }.into_any(),
        (None, _) if r.status == ReservationStatus::AwaitingPayment => {
            view! { <span class="muted">"Set when the first invoice is paid"</span> }.into_any()
        }
        (None, _) => view! { <span class="muted">"Not set yet"</span> }.into_any(),
    }
}

/// [`TermDates`]' markup, for a view written as one piece of HTML.
pub fn write_term_dates(html: &mut Html, r: &Reservation) {
    match (r.starts_at, r.ends_at) {
        (Some(start), Some(end)) => {
            html.markup(r#"<span class="nowrap">"#);
            write_utc_date(html, start);
            html.markup(r#"</span> → <span class="nowrap">"#);
            write_utc_date(html, end);
            html.markup("</span>");
            if let Some(at) = r.ended_at.filter(|e| *e != end) {
                html.markup(r#"<span class="cell-sub">ended "#);
                write_utc_date(html, at);
                html.markup("</span>");
            }
        }
        (Some(start), None) => {
            write_utc_date(html, start);
            html.markup(" → no end set");
        }
        (None, _) if r.status == ReservationStatus::AwaitingPayment => {
            html.markup(r#"<span class="muted">Set when the first invoice is paid</span>"#);
        }
        (None, _) => {
            html.markup(r#"<span class="muted">Not set yet</span>"#);
        }
    }
}
