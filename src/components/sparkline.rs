//! The share of GPUs in use since the tab opened as a small SVG line, with a dashed line at
//! 20 % (low use): the one writer of it, for the node cards and the overview's rows. SVG
//! attributes and classes only: the CSP allows no inline style.

use crate::api::models::Timestamp;
use crate::components::html::Html;
use crate::domain::alerts::LOW_USE;
use crate::domain::fleet::history::{sparkline, History, Stats};

/// Where a line is drawn: its class (the parts are `{class}-low`, `{class}-line` and
/// `{class}-dot`), its viewBox, and whether its latest point is marked.
pub struct Spark {
    pub class: &'static str,
    pub width: f64,
    pub height: f64,
    pub dot: bool,
}

/// Writes `history`'s line from its first point to `end` (its last point when earlier), and
/// returns its figures; nothing before it has two points.
pub fn write_sparkline(html: &mut Html, spark: &Spark, history: &History, end: Timestamp) -> Option<Stats> {
    let (Some(stats), [first, .., last]) = (history.stats(), history.points()) else { return None };
    let line = sparkline(history.points(), first.at, end.max(last.at), spark.width, spark.height);
    let low = format!("{:.1}", (1.0 - LOW_USE) * spark.height);
    let Spark { class, width, height, .. } = spark;
    html.markup(r#"<svg class=""#).markup(class).markup(r#"" viewBox="0 0 "#).text(width).markup(" ").text(height);
    html.markup(r#"" preserveAspectRatio="none" role="img"><title>"#);
    html.text(format_args!("GPUs in use since this tab opened: {}", stats.summary())).markup("</title>");
    html.markup(r#"<line class=""#).markup(class).markup(r#"-low" x1="0" x2=""#).text(width);
    html.markup(r#"" y1=""#).text(&low).markup(r#"" y2=""#).text(&low).markup(r#""></line>"#);
    html.markup(r#"<polyline class=""#)
        .markup(class)
        .markup(r#"-line" points=""#)
        .text(&line)
        .markup(r#""></polyline>"#);
    if let Some((x, y)) = spark.dot.then(|| line.rsplit(' ').next().and_then(|p| p.split_once(','))).flatten() {
        html.markup(r#"<circle class=""#).markup(class).markup(r#"-dot" cx=""#).text(x);
        html.markup(r#"" cy=""#).text(y).markup(r#"" r="2"></circle>"#);
    }
    html.markup("</svg>");
    Some(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeDelta, TimeZone, Utc};

    fn at(minutes: i64) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 12, 2, 9, 0, 0).unwrap() + TimeDelta::minutes(minutes)
    }

    const CARD: Spark = Spark { class: "node-spark", width: 100.0, height: 20.0, dot: false };

    #[test]
    fn a_line_is_one_svg_titled_with_its_figures_a_low_mark_and_its_points_from_two_points_on() {
        let mut history = History::default();
        history.record(at(0), 0.0);
        let mut html = Html::default();
        assert!(write_sparkline(&mut html, &CARD, &history, at(0)).is_none());
        assert_eq!(html.into_string(), "", "one point is no line");
        history.record(at(1), 1.0);
        let mut html = Html::default();
        write_sparkline(&mut html, &CARD, &history, at(1));
        let html = html.into_string();
        assert_eq!(
            html,
            concat!(
                r#"<svg class="node-spark" viewBox="0 0 100 20" preserveAspectRatio="none" role="img">"#,
                "<title>GPUs in use since this tab opened: min 0 % · avg 50 % · max 100 % · under 20 % 50 % of the time</title>",
                r#"<line class="node-spark-low" x1="0" x2="100" y1="16.0" y2="16.0"></line>"#,
                r#"<polyline class="node-spark-line" points="0.0,20.0 100.0,0.0"></polyline></svg>"#
            )
        );
    }

    #[test]
    fn the_line_runs_to_the_end_asked_and_its_dot_marks_the_latest_point() {
        let mut history = History::default();
        history.record(at(0), 0.0);
        history.record(at(1), 1.0);
        let mut html = Html::default();
        write_sparkline(&mut html, &Spark { class: "spark", width: 120.0, height: 28.0, dot: true }, &history, at(2));
        let html = html.into_string();
        assert!(html.contains(r#"points="0.0,28.0 60.0,0.0""#), "{html}");
        assert!(html.contains(r#"<circle class="spark-dot" cx="60.0" cy="0.0" r="2"></circle>"#), "{html}");
    }
}
