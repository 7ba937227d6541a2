//! Storage used of its quota: a bar for the eye, the figures in text for everyone.

use crate::domain::money::group_thousands;
use leptos::prelude::*;

/// Share of the quota at which the bar turns to a warning.
const NEARLY_FULL: f64 = 0.9;

/// `1200` → "1,200", `12.5` → "12.5": storage figures arrive as JSON numbers in GiB.
pub fn quantity(value: f64) -> String {
    let whole = value.abs().trunc();
    let tenths = ((value.abs() - whole) * 10.0).round();
    let (whole, tenths) = if tenths >= 10.0 { (whole + 1.0, 0.0) } else { (whole, tenths) };
    let sign = if value < 0.0 { "-" } else { "" };
    let grouped = group_thousands(whole as u128);
    if tenths == 0.0 {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{tenths}")
    }
}

/// Fill level and its wording; quota zero means nothing is included.
fn level(used: f64, quota: f64) -> (f64, &'static str, String) {
    if quota <= 0.0 {
        return (if used > 0.0 { 1.0 } else { 0.0 }, "danger", "no storage included".into());
    }
    let share = used / quota;
    let percent = format!("{}%", (share * 100.0).round());
    if used > quota {
        (1.0, "danger", format!("{percent}, over quota by {} GiB", quantity(used - quota)))
    } else if share >= NEARLY_FULL {
        (share, "warning", format!("{percent}, nearly full"))
    } else {
        (share.max(0.0), "ok", percent)
    }
}

#[component]
pub fn UsageBar(label: &'static str, used: f64, quota: f64) -> impl IntoView {
    let (fill, tone, wording) = level(used, quota);
    let width = format!("{:.2}", fill * 100.0);
    view! {
        <div class="usage">
            <div class="usage-head">
                <span class="usage-label">{label}</span>
                <span class="num">
                    {format!("{} of {} GiB", quantity(used), quantity(quota))}
                    " · "
                    <span class=format!("usage-level tone-text-{tone}")>{wording}</span>
                </span>
            </div>
            <svg class="usage-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
                <rect class="usage-track" width="100" height="6"></rect>
                <rect class=format!("usage-fill fill-{tone}") width=width height="6"></rect>
            </svg>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_are_grouped_with_at_most_one_decimal() {
        assert_eq!(quantity(20000.0), "20,000");
        assert_eq!(quantity(12.5), "12.5");
        assert_eq!(quantity(0.96), "1");
        assert_eq!(quantity(-3.0), "-3");
    }

    #[test]
    fn the_level_names_what_the_colour_shows() {
        assert_eq!(level(1200.0, 5000.0).2, "24%");
        assert_eq!(level(4600.0, 5000.0).1, "warning");
        assert_eq!(level(5500.0, 5000.0), (1.0, "danger", "110%, over quota by 500 GiB".into()));
        assert_eq!(level(0.0, 0.0).2, "no storage included");
    }
}
