//! Storage used of its quota: a bar for the eye, the figures in text for everyone.

use crate::domain::terms::amendments::gib;
use leptos::prelude::*;

/// Share of the quota from which the bar warns.
const NEARLY_FULL: f64 = 0.9;

/// Fill level (0–1), tone and wording; a zero quota means nothing is included.
fn level(used: f64, quota: f64) -> (f64, &'static str, String) {
    if quota <= 0.0 {
        return (if used > 0.0 { 1.0 } else { 0.0 }, "danger", "no storage included".into());
    }
    let share = used / quota;
    let percent = format!("{}%", (share * 100.0).round());
    if used > quota {
        (1.0, "danger", format!("{percent}, over quota by {}", gib(used - quota)))
    } else if share >= NEARLY_FULL {
        (share, "warning", format!("{percent}, nearly full"))
    } else {
        (share.max(0.0), "ok", percent)
    }
}

#[component]
pub fn UsageBar(label: &'static str, used: f64, quota: f64) -> impl IntoView {
    let (fill, tone, wording) = level(used, quota);
    let width = format!("{:.2}%", fill * 100.0);
    view! {
        <div class="usage">
            <div class="usage-head">
                <span class="usage-label">{label}</span>
                <span class="num">
                    {format!("{} of {}", gib(used), gib(quota))}
                    " · "
                    <span class=format!("tone-text-{tone}")>{wording}</span>
                </span>
            </div>
            <svg class="usage-bar" width="100%" height="8" aria-hidden="true">
                <rect class="usage-track" width="100%" height="8" rx="4"></rect>
                <rect class=format!("usage-fill fill-{tone}") width=width height="8" rx="4"></rect>
            </svg>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_names_what_the_colour_shows() {
        assert_eq!(level(1200.0, 5000.0), (0.24, "ok", "24%".into()));
        assert_eq!(level(4600.0, 5000.0).1, "warning");
        assert_eq!(level(5500.0, 5000.0), (1.0, "danger", "110%, over quota by 500 GiB".into()));
        assert_eq!(level(0.0, 0.0).2, "no storage included");
    }
}
