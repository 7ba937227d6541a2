//! A small bar chart of amounts (charges per period), as inline SVG built in Rust. The
//! figures themselves are in the table beside it; the chart is for the shape.

use crate::api::money::Usd;
use crate::components::status_badge::tone_name;
use crate::domain::status::Tone;
use leptos::prelude::*;

/// One bar: its axis label, amount, colour (named in the legend) and hover text.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: Usd,
    pub tone: Tone,
    pub title: String,
}

/// Height of the plotting area in pixels; labels sit below it.
const PLOT: f64 = 110.0;
const TOP: f64 = 16.0;
/// At most this many axis labels on a wide screen; narrow screens hide every other one
/// (`minor`), so they never overlap.
const MAX_LABELS: usize = 12;

#[component]
pub fn BarChart(
    bars: Vec<Bar>,
    /// What the chart shows, read by screen readers.
    summary: String,
    /// Legend entries: tone and word.
    legend: Vec<(Tone, String)>,
) -> impl IntoView {
    let max = bars.iter().map(|b| b.value).max().unwrap_or(Usd::ZERO).max(Usd::from_cents(1));
    let n = bars.len().max(1);
    let step = 100.0 / n as f64;
    let label_every = n.div_ceil(MAX_LABELS);
    let rendered = bars
        .into_iter()
        .enumerate()
        .map(|(i, bar)| {
            // Exact amounts in micro-dollars; their ratio only places pixels.
            let ratio = (bar.value.micros().max(0) as f64 / max.micros() as f64).clamp(0.0, 1.0);
            let height = (ratio * PLOT).max(if bar.value.is_zero() { 0.0 } else { 1.5 });
            let x = i as f64 * step;
            view! {
                <g class=format!("bar fill-{}", tone_name(bar.tone))>
                    <title>{bar.title}</title>
                    <rect
                        x=format!("{:.2}%", x + step * 0.15)
                        y=format!("{:.1}", TOP + PLOT - height)
                        width=format!("{:.2}%", step * 0.7)
                        height=format!("{height:.1}")
                        rx="2"
                    ></rect>
                    {(i % label_every == 0).then(|| view! {
                        <text class=if (i / label_every) % 2 == 1 { "bar-label minor" } else { "bar-label" } x=format!("{:.2}%", x + step / 2.0) y=format!("{}", TOP + PLOT + 16.0) text-anchor="middle">
                            {bar.label}
                        </text>
                    })}
                </g>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <figure class="bar-chart">
            <svg width="100%" height=format!("{}", TOP + PLOT + 24.0) role="img" aria-label=summary>
                <text class="axis-label" x="0" y="11">{max.to_string()}</text>
                <line class="axis" x1="0" x2="100%" y1=format!("{}", TOP + PLOT) y2=format!("{}", TOP + PLOT)></line>
                {rendered}
            </svg>
            <figcaption class="chart-legend">
                {legend.into_iter().map(|(tone, word)| view! {
                    <span class="legend-entry">
                        <span class=format!("key fill-{}", tone_name(tone)) aria-hidden="true"></span>
                        {word}
                    </span>
                }).collect::<Vec<_>>()}
            </figcaption>
        </figure>
    }
}
