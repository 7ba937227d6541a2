//! A reservation's term as a line from start to end, with today and the amendments marked.
//! Inline SVG drawn in Rust: no script, no style attribute (the console runs under a
//! strict content security policy).

use crate::api::models::Timestamp;
use crate::domain::words::count;
use crate::domain::words::time::{format_utc_date, utc_title};
use leptos::prelude::*;

/// Room left and right (in % of the width) so the marks at the ends are not clipped.
const INSET: f64 = 1.0;

/// A moment on the line.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub at: Timestamp,
    pub label: String,
}

/// Where `at` falls between `start` and `end`, 0–1, clamped.
pub fn position(start: Timestamp, end: Timestamp, at: Timestamp) -> f64 {
    let span = (end - start).num_seconds() as f64;
    if span <= 0.0 {
        return 0.0;
    }
    ((at - start).num_seconds() as f64 / span).clamp(0.0, 1.0)
}

/// A horizontal coordinate in percent, so the drawing stretches without distorting.
fn x(fraction: f64) -> String {
    format!("{:.2}%", INSET + fraction * (100.0 - 2.0 * INSET))
}

#[component]
pub fn TermTimeline(start: Timestamp, end: Timestamp, now: Timestamp, marks: Vec<Mark>) -> impl IntoView {
    let today = position(start, end, now);
    let today_text = if now < start {
        "today is before the start".to_owned()
    } else if now > end {
        "today is after the end".to_owned()
    } else {
        format!("today, {:.0}% through", today * 100.0)
    };
    let summary = format!(
        "Term from {} to {}; {today_text}; {}.",
        format_utc_date(start),
        format_utc_date(end),
        count(marks.len(), "amendment")
    );
    let has_marks = !marks.is_empty();
    let marks = marks
        .into_iter()
        .map(|m| {
            let mx = x(position(start, end, m.at));
            view! {
                <g class="timeline-mark">
                    <title>{format!("{} — {}", m.label, utc_title(m.at))}</title>
                    <line x1=mx.clone() x2=mx.clone() y1="10" y2="38"></line>
                    <circle cx=mx cy="24" r="5"></circle>
                </g>
            }
        })
        .collect::<Vec<_>>();
    let track = format!("{:.2}%", 100.0 - 2.0 * INSET);
    let elapsed = format!("{:.2}%", today * (100.0 - 2.0 * INSET));
    let today_x = x(today);
    view! {
        <figure class="timeline">
            <svg width="100%" height="48" role="img" aria-label=summary>
                <rect class="timeline-track" x=x(0.0) y="20" width=track height="8" rx="4"></rect>
                <rect class="timeline-elapsed" x=x(0.0) y="20" width=elapsed height="8" rx="4"></rect>
                {marks}
                <g class="timeline-today">
                    <title>{format!("Today — {}", utc_title(now))}</title>
                    <line x1=today_x.clone() x2=today_x y1="4" y2="44"></line>
                </g>
            </svg>
            <figcaption class="timeline-legend">
                <span class="num">{format_utc_date(start)}</span>
                <span class="timeline-key">
                    <span class="key key-today" aria-hidden="true"></span>
                    {today_text}
                    {has_marks.then_some(view! { <span class="key key-mark" aria-hidden="true"></span> "amendment" })}
                </span>
                <span class="num">{format_utc_date(end)}</span>
            </figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(y: i32, m: u32, d: u32) -> Timestamp {
        chrono::Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap()
    }

    #[test]
    fn positions_are_fractions_of_the_term_clamped_to_it() {
        let (start, end) = (at(2026, 11, 1), at(2027, 11, 1));
        assert_eq!(position(start, end, start), 0.0);
        assert_eq!(position(start, end, end), 1.0);
        assert!((position(start, end, at(2027, 5, 2)) - 0.5).abs() < 0.01);
        assert_eq!(position(start, end, at(2030, 1, 1)), 1.0);
        assert_eq!(position(end, start, at(2027, 1, 1)), 0.0);
    }
}
