//! A card as one piece of HTML (see the module's note): head, utilization line, body.

use super::store::{NodeRow, Shown};
use crate::api::enums::{Billing, NodeState, WorkloadKind};
use crate::api::models::{Node, Workload};
use crate::components::html::Html;
use crate::components::sparkline::{write_sparkline, Spark};
use crate::components::status_badge::tone_name;
use crate::domain::fleet::history::{percent, History};
use crate::domain::nodes::capacity::{accepts_launches, gpus_text, inconsistencies};
use crate::domain::nodes::grid::{self, kind_label, state_label, state_meaning, Cell, Placement, Use};
use crate::domain::nodes::workload::workload_page_path;
use leptos::prelude::*;
use std::sync::atomic::Ordering;

/// CSS class of what a cell (or a workload's swatch) shows.
fn use_class(usage: Use, workloads: &[Workload]) -> &'static str {
    match usage {
        Use::Workload(i) => workloads.get(i).map_or("k-unknown", |w| kind_class(&w.kind)),
        Use::Unlisted => "unlisted",
        Use::Free => "free",
        Use::Unknown => "unknown",
    }
}

fn kind_class(kind: &WorkloadKind) -> &'static str {
    match kind {
        WorkloadKind::GpuInstance => "k-gpu-instance",
        WorkloadKind::GpuCluster => "k-gpu-cluster",
        WorkloadKind::InferenceInstance => "k-inference",
        WorkloadKind::FineTune => "k-fine-tune",
        WorkloadKind::Unknown(_) => "k-unknown",
    }
}

/// One GPU: its class, hover text and the number of its workload in the list below.
fn write_cell(html: &mut Html, index: usize, cell: Cell, gpus: i64, workloads: &[Workload], takes_launches: bool) {
    let idle = cell.usage == Use::Free && !takes_launches;
    let what = match cell.usage {
        Use::Workload(i) => {
            workloads.get(i).map_or_else(String::new, |w| format!("{} ({} #{})", w.name, kind_label(&w.kind), w.id))
        }
        Use::Unlisted => "in use by no listed workload".to_owned(),
        Use::Free if idle => "idle, the node is not taking launches".to_owned(),
        Use::Free => "free".to_owned(),
        Use::Unknown => "placement unknown".to_owned(),
    };
    let beyond = if cell.beyond { format!(" — beyond the node's {gpus} GPUs") } else { String::new() };
    let title = format!("GPU {} · {what}{beyond}", index + 1);
    let label = match cell.usage {
        Use::Workload(i) => (i + 1).to_string(),
        Use::Unknown => "?".to_owned(),
        Use::Unlisted | Use::Free => String::new(),
    };
    html.markup(r#"<li class="gpu-cell "#).markup(use_class(cell.usage, workloads));
    html.markup(if idle { " idle" } else { "" }).markup(if cell.beyond { " beyond" } else { "" });
    html.markup(r#"" title=""#).text(title).markup(r#"">"#).text(label).markup("</li>");
}

/// A workload in a card's list: number (matching its cells), link, kind, id, GPUs.
fn write_workload(html: &mut Html, (account, reservation): (&str, i64), index: usize, w: &Workload) {
    // Reserved billing is the norm on these nodes (and `/nodes` may omit the field): only
    // a value the console does not know is worth a word.
    let billing = match &w.billing {
        Some(Billing::Unknown(raw)) => format!(" · billing {raw} (unrecognised)"),
        Some(Billing::Reserved) | None => String::new(),
    };
    let gpus = gpus_text(w.gpus);
    let meta = format!("{} #{} · {gpus}{billing}", kind_label(&w.kind), w.id);
    html.markup(r#"<li class="workload"><span class="swatch "#).markup(kind_class(&w.kind));
    html.markup(r#"" aria-hidden="true">"#).text(index + 1).markup(r#"</span><a class="workload-name" title=""#);
    // The full name in the title: the card shows at most three lines of it.
    html.text(&w.name).markup(r#"""#);
    html.markup(r#" href=""#)
        .text(workload_page_path(account, reservation, &w.kind, w.id))
        .markup(r#"">"#)
        .text(&w.name)
        .markup(r#"</a><span class="workload-meta">"#)
        .text(meta)
        .markup("</span></li>");
}

/// "6 of 8 in use · 2 free", as reported; "use unknown" before the first read. The free
/// GPUs of a node that takes no launches (preparing, under maintenance) are not free to use.
fn use_text(gpus: i64, placement: Option<&Placement>, takes_launches: bool) -> String {
    match placement {
        Some(p) if takes_launches => format!("{} of {gpus} in use · {} free", p.in_use(), p.left_text(gpus)),
        Some(p) => format!("{} of {gpus} in use · {} idle, not taking launches", p.in_use(), p.left_text(gpus)),
        None => format!("{gpus} GPUs · use unknown"),
    }
}

/// A card's utilization line (the stylesheet sizes it).
const CARD_LINE: Spark = Spark { class: "node-spark", width: 100.0, height: 20.0, dot: false };

/// A card's utilization line as HTML: the node's share of GPUs in use since the tab opened,
/// min, average, max and time under 20 % in its title, the average beside it. Nothing
/// before it has two points.
fn node_line(history: &History) -> Html {
    let mut html = Html::with_capacity(512);
    let Some(last) = history.points().last() else { return html };
    if let Some(stats) = write_sparkline(&mut html, &CARD_LINE, history, last.at) {
        html.markup(r#"<span class="node-spark-avg num" aria-hidden="true">avg "#);
        html.text(percent(stats.mean)).markup("</span>");
    }
    html
}

/// Workloads a card lists itself: as many as its fixed height holds at 360 to 1,920 px
/// (each name on one line). The rest are behind a "+N more" on the card: a row of the
/// windowed grid cannot grow.
const CARD_WORKLOADS: usize = 2;

/// What a card's body shows of its node's workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    /// Cells only: the workloads are left out (hidden, they would only be built and parsed
    /// for nothing at every card a scroll draws).
    CellsOnly,
    /// Listed, the "+N more" written open when the user opened it ([`NodeRow::more_open`]).
    Listed { more_open: bool },
}

/// A card's body — use, cells, workloads, flags — as HTML, from one read of its signals.
/// `reservation` is its account's label and its id, which the workload links lead under.
fn node_body(
    reservation: (&str, i64),
    name: &str,
    state: &NodeState,
    gpus: i64,
    placement: Option<&Placement>,
    repeated: bool,
    listing: Listing,
) -> Html {
    let node = Node {
        display_name: name.to_owned(),
        state: state.clone(),
        gpus,
        gpus_in_use: placement.and_then(|p| p.gpus_in_use),
        workloads: placement.map_or_else(Vec::new, |p| p.workloads.clone()),
    };
    let takes_launches = accepts_launches(&node);
    let workloads = &node.workloads[..];
    let mut html = Html::with_capacity(1024);
    // Each in a title too: a cells-only card shows them on one line each, cut to fit.
    if let Some(meaning) = state_meaning(state) {
        html.markup(r#"<p class="node-state-meaning" title=""#).text(meaning).markup(r#"">"#).text(meaning);
        html.markup("</p>");
    }
    let usage = use_text(gpus, placement, takes_launches);
    html.markup(r#"<p class="node-use num" title=""#).text(&usage).markup(r#"">"#).text(usage);
    html.markup(r#"</p><ol class="gpu-cells" aria-hidden="true">"#);
    let drawn = grid::cells(gpus, placement);
    for (i, cell) in drawn.cells.into_iter().enumerate() {
        write_cell(&mut html, i, cell, gpus, workloads, takes_launches);
    }
    if drawn.clipped > 0 {
        html.markup(r#"<li class="gpu-more">+"#).text(drawn.clipped).markup(" more</li>");
    }
    html.markup("</ol>");
    if let Listing::Listed { more_open } = listing {
        let (first, rest) = workloads.split_at(workloads.len().min(CARD_WORKLOADS));
        html.markup(r#"<ol class="node-workloads">"#);
        for (i, w) in first.iter().enumerate() {
            write_workload(&mut html, reservation, i, w);
        }
        html.markup("</ol>");
        if !rest.is_empty() {
            // Opened, it covers the card (style/nodes.css): the row keeps its height.
            html.markup(r#"<details class="workloads-more""#).markup(if more_open { " open" } else { "" });
            html.markup(r#"><summary><span class="more-closed">+"#).text(rest.len());
            // Opened, it covers the card's head: it names the node it is about.
            html.markup(r#" more</span><span class="more-open">Back to "#).text(name).markup("</span></summary>");
            html.markup(r#"<ol class="node-workloads">"#);
            for (i, w) in rest.iter().enumerate() {
                write_workload(&mut html, reservation, CARD_WORKLOADS + i, w);
            }
            html.markup("</ol></details>");
        }
    }
    let mut flags = if placement.is_some() { inconsistencies(&node) } else { Vec::new() };
    if repeated {
        flags.push(format!("The API lists a node named {name} more than once."));
    }
    if !flags.is_empty() {
        // The role on a wrapper: on the list itself it would hide the items' list semantics.
        html.markup(r#"<div class="node-flags" role="note"><ul>"#);
        for flag in &flags {
            html.markup("<li>").text(flag).markup("</li>");
        }
        html.markup("</ul></div>");
    }
    html
}

/// A card's head: the name and the state's badge, each in a title too (a cells-only card
/// keeps them on one line, cut to fit).
fn write_head(html: &mut Html, name: &str, state: &NodeState) {
    let (label, tone) = state_label(state);
    html.markup(r#"<header class="node-head"><h3 class="node-name" title=""#).text(name).markup(r#"">"#).text(name);
    html.markup(r#"</h3><span class="badge tone-"#).markup(tone_name(tone)).markup(r#"" title=""#).text(&label);
    html.markup(r#""><span class="badge-text">"#).text(&label).markup("</span></span></header>");
}

/// A whole card — head, utilization line, body — as HTML, from one read of its row's
/// signals (so the slot redraws it when any of them changes).
pub(super) fn node_card(reservation: (&str, i64), row: &NodeRow, listed: bool) -> String {
    let listing =
        if listed { Listing::Listed { more_open: row.more_open.load(Ordering::Relaxed) } } else { Listing::CellsOnly };
    let mut html = Html::with_capacity(2048);
    row.shown.with(|Shown { state, gpus, placement }| {
        write_head(&mut html, row.name(), state);
        html.markup(r#"<div class="node-line">"#).append(row.with_history(|h| node_line(h)));
        html.markup(r#"</div><div class="node-body">"#);
        html.append(node_body(
            reservation,
            row.name(),
            state,
            *gpus,
            placement.as_ref(),
            row.repeated.is_some(),
            listing,
        ));
        html.markup("</div>");
    });
    html.into_string()
}

#[cfg(test)]
mod tests {
    use super::super::test_nodes::{at, node};
    use super::*;
    use crate::api::enums::WorkloadKind;

    #[test]
    fn a_body_has_a_cell_per_gpu_and_a_linked_entry_per_workload() {
        let workload = |kind: &str, id, name: &str, gpus| Workload {
            kind: WorkloadKind::from(kind),
            id,
            name: name.into(),
            gpus,
            billing: None,
        };
        let placement = Placement {
            gpus_in_use: Some(3),
            workloads: vec![workload("gpu_cluster", 418, "a<b", 2), workload("batch_job", 7, "odd", 1)],
        };
        let html = node_body(
            ("", 12),
            "node-1",
            &NodeState::Ready,
            4,
            Some(&placement),
            false,
            Listing::Listed { more_open: false },
        )
        .into_string();
        assert_eq!(html.matches(r#"<li class="gpu-cell "#).count(), 4, "{html}");
        assert!(
            html.contains(r#"<li class="gpu-cell k-gpu-cluster" title="GPU 1 · a&lt;b (GPU cluster #418)">1</li>"#),
            "{html}"
        );
        assert!(html.contains(r#"<li class="gpu-cell free" title="GPU 4 · free"></li>"#), "{html}");
        assert!(
            html.contains(r#"<a class="workload-name" title="a&lt;b" href="/reservations/12/workloads/gpu_cluster/418">a&lt;b</a>"#),
            "{html}"
        );
        assert!(
            html.contains(
                r#"<a class="workload-name" title="odd" href="/reservations/12/workloads/batch_job/7">odd</a>"#
            ),
            "an unknown kind has its page too: {html}"
        );
        assert!(!html.contains("node-flags"), "{html}");
        assert!(!html.contains("node-state-meaning"), "a ready node needs no gloss: {html}");
    }

    #[test]
    fn a_line_needs_two_points_and_titles_min_avg_max_and_time_under_20_percent() {
        let mut history = History::default();
        history.record(at(0), 0.0);
        assert_eq!(node_line(&history).into_string(), "", "one point is no line");
        history.record(at(1), 1.0);
        let html = node_line(&history).into_string();
        assert!(html.starts_with(r#"<svg class="node-spark" viewBox="0 0 100 20""#), "{html}");
        assert!(
            html.contains("<title>GPUs in use since this tab opened: min 0 % · avg 50 % · max 100 % · under 20 % 50 % of the time</title>"),
            "{html}"
        );
        assert!(html.contains(r#"<polyline class="node-spark-line" points="0.0,20.0 100.0,0.0">"#), "{html}");
        assert!(html.contains(r#"<line class="node-spark-low" x1="0" x2="100" y1="16.0" y2="16.0">"#), "{html}");
        assert!(html.ends_with(r#"<span class="node-spark-avg num" aria-hidden="true">avg 50 %</span>"#), "{html}");
        assert!(!html.contains("style"), "the CSP allows no inline style: {html}");
    }

    #[test]
    fn a_cells_only_body_leaves_out_the_workload_list_and_keeps_the_cells() {
        let placement = Placement {
            gpus_in_use: Some(2),
            workloads: vec![Workload {
                kind: WorkloadKind::GpuInstance,
                id: 9,
                name: "train".into(),
                gpus: 2,
                billing: None,
            }],
        };
        let html = node_body(("", 12), "node-1", &NodeState::Ready, 4, Some(&placement), false, Listing::CellsOnly)
            .into_string();
        assert!(!html.contains("node-workloads") && !html.contains("<a "), "{html}");
        assert!(html.contains(r#"title="GPU 1 · train (GPU instance #9)">1</li>"#), "the cells still name it: {html}");
    }

    #[test]
    fn a_card_is_its_head_line_and_body_with_the_name_and_state_escaped_and_titled() {
        let row = NodeRow::new("a<b".into(), &node("a<b", 8, Some(2), &[2]), false);
        let html = node_card(("", 12), &row, true);
        assert!(
            html.starts_with(
                r#"<header class="node-head"><h3 class="node-name" title="a&lt;b">a&lt;b</h3><span class="badge tone-ok" title="Ready"><span class="badge-text">Ready</span></span></header><div class="node-line"></div><div class="node-body"><p class="node-use num""#
            ),
            "{html}"
        );
        assert!(html.ends_with("</ol></div>"), "{html}");
        row.shown.update(|shown| shown.state = NodeState::Unknown("drained".into()));
        assert!(
            node_card(("", 12), &row, true).contains(
                r#"<span class="badge tone-unknown" title="drained (unrecognised)"><span class="badge-text">drained (unrecognised)</span></span>"#
            ),
            "an unknown state is named as sent"
        );
    }

    #[test]
    fn flags_keep_their_list_inside_a_note_wrapper() {
        let html = node_body(("", 12), "n", &NodeState::Ready, 8, None, true, Listing::Listed { more_open: false })
            .into_string();
        assert!(html.contains(r#"<div class="node-flags" role="note"><ul><li>"#), "{html}");
        assert!(!html.contains(r#"<ul class="node-flags" role="note">"#), "{html}");
    }

    #[test]
    fn preparing_and_maintenance_nodes_say_what_their_state_means() {
        let preparing =
            node_body(("", 12), "n", &NodeState::Preparing, 8, None, false, Listing::CellsOnly).into_string();
        assert!(
            preparing
                .contains(r#"<p class="node-state-meaning" title="GPUs available shortly">GPUs available shortly</p>"#),
            "{preparing}"
        );
        let maintenance =
            node_body(("", 12), "n", &NodeState::UnderMaintenance, 8, None, false, Listing::CellsOnly).into_string();
        assert!(
            maintenance.contains(r#"<p class="node-state-meaning" title="not usable now; still part of what is reserved">not usable now; still part of what is reserved</p>"#),
            "{maintenance}"
        );
    }
}
