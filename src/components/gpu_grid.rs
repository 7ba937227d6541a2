//! The node grid of the live view: a card per node, a cell per GPU coloured by the
//! workload on it, and the workloads listed with links to their pages.
//!
//! Built to be cheap per poll: [`NodeStore`] keeps one row per node key, created once,
//! whose fields are signals set only when the value changed, and a poll in which k nodes
//! changed touches only those of the k cards that are drawn.
//!
//! Windowed (`domain::nodes::window`): only the cards on screen and a margin are in the DOM, in
//! slots made once and reused as the grid scrolls (a card created and removed would keep
//! ~85 bytes of wasm memory in Leptos 0.8, which a scroll through 10,000 nodes multiplies).
//! Node `i` is in slot `i % slots`: a scroll rewrites only the slots of the rows that came
//! in, and moves those to the other end, where rewriting every slot made a scroll redraw
//! and lay out every card drawn (issue 32: most of a frame of a scroll through 10,000).
//! The first window comes in two steps: the rows in the page's sight, then, once they are
//! painted and the browser is idle, the rest (at 1,280 × 900 two thirds of the grid's
//! screen are below the fold, and the first grid waited for those cards too).
//!
//! A card (name, badge, utilization line, use, cells, workloads, flags) has no reactivity
//! of its own: it is written as one piece of HTML, the API's text escaped, and set whole
//! when its node changes or the slot shows another. That is one DOM mutation per changed
//! card, and one call out of wasm where building it element by element took over a
//! hundred, each copying its strings out of wasm memory: most of the first grid's time
//! went there, and a scroll rewrites every slot it moves.
//!
//! Each node also keeps its utilization since the tab opened ([`NodeStore::record`]), drawn
//! on its card as a small line; the store says when the lines are due for a redraw.

use crate::api::enums::{Billing, NodeState, WorkloadKind};
use crate::api::models::{Node, NodesResponse, Timestamp, Workload};
use crate::browser::when_idle_after_frame;
use crate::components::html::Html;
use crate::components::sparkline::{write_sparkline, Spark};
use crate::components::status_badge::tone_name;
use crate::domain::fleet::history::{node_capacity, percent, History};
use crate::domain::nodes::capacity::{accepts_launches, gpus_text, inconsistencies};
use crate::domain::nodes::grid::{self, kind_label, node_keys, state_label, state_meaning, Cell, Placement, Use};
use crate::domain::nodes::window::{columns_of, first_screen, px, slots, window, Viewport, Window, MARGIN_ROWS};
use crate::domain::nodes::workload::workload_page_path;
use chrono::TimeDelta;
use leptos::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use wasm_bindgen::JsCast;

/// One node's card data. Clones share the signal and the history.
#[derive(Clone)]
pub struct NodeRow {
    /// The node's `display_name`, unless another node earlier in the answer has it too.
    key: String,
    /// The `display_name` of a node whose name another node earlier in the answer has (its
    /// key then has a suffix).
    repeated: Option<String>,
    /// What the card shows of the node, in one signal: the card reads all of it at once,
    /// and a signal each cost three allocations per node on a 10,000-node first read.
    shown: ArcRwSignal<Shown>,
    /// Utilization since the tab opened (or since the node appeared): not a signal, the
    /// store says when lines are due for a redraw ([`NodeStore::record`]).
    history: Arc<Mutex<History>>,
    /// Whether the user opened the card's "+N more": a card is rewritten whole when its node
    /// changes or its line is redrawn, and is written open again while this holds, so what
    /// the user opened stays open across polls until they close it.
    more_open: Arc<AtomicBool>,
}

/// A node as its card shows it.
#[derive(Clone, Debug, PartialEq)]
struct Shown {
    state: NodeState,
    gpus: i64,
    /// The last known placement; `None` until the region has been read once.
    placement: Option<Placement>,
}

/// The same node's row: a row made anew for a node that came back is another.
impl PartialEq for NodeRow {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.shown == other.shown
    }
}

impl NodeRow {
    fn new(key: String, node: &Node, workloads_unknown: bool) -> Self {
        NodeRow {
            repeated: (key != node.display_name).then(|| node.display_name.clone()),
            key,
            shown: ArcRwSignal::new(Shown {
                state: node.state.clone(),
                gpus: node.gpus,
                placement: (!workloads_unknown).then(|| Placement::of(node)),
            }),
            history: Arc::default(),
            more_open: Arc::default(),
        }
    }

    /// The node's `display_name`.
    fn name(&self) -> &str {
        self.repeated.as_deref().unwrap_or(&self.key)
    }

    /// The history, locked. Wasm runs one thread and a panic ends the app, so the lock is
    /// never contended; a poisoned one is taken as is.
    fn with_history<R>(&self, f: impl FnOnce(&mut History) -> R) -> R {
        f(&mut self.history.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Adds the node's share of GPUs in use to its history, in a ring of `capacity` points;
    /// whether there was one to add (a node of no GPUs has none).
    fn record(&self, node: &Node, at: Timestamp, capacity: usize) -> bool {
        grid::utilization(node).is_some_and(|share| {
            self.with_history(|h| h.record_within(at, share, capacity));
            true
        })
    }

    /// While the region is unreachable the placement is left as last known. The card is
    /// notified only when something it shows changed.
    fn update(&self, node: &Node, workloads_unknown: bool) {
        let same = self.shown.with_untracked(|shown| {
            shown.state == node.state
                && shown.gpus == node.gpus
                && (workloads_unknown
                    || shown
                        .placement
                        .as_ref()
                        .is_some_and(|p| p.gpus_in_use == node.gpus_in_use && p.workloads == node.workloads))
        });
        if same {
            return;
        }
        self.shown.update(|shown| {
            shown.state.clone_from(&node.state);
            shown.gpus = node.gpus;
            if !workloads_unknown {
                shown.placement = Some(Placement::of(node));
            }
        });
    }
}

/// The cards of the grid, keyed by node name.
#[derive(Clone, Copy)]
pub struct NodeStore {
    rows: RwSignal<Vec<NodeRow>>,
    /// Notified when the drawn cards should redraw their utilization lines.
    lines: Trigger,
    /// Polls recorded, and the time of the latest that redrew the lines.
    recorded: StoredValue<(u32, Option<Timestamp>)>,
}

impl Default for NodeStore {
    fn default() -> Self {
        NodeStore { rows: RwSignal::new(Vec::new()), lines: Trigger::new(), recorded: StoredValue::new((0, None)) }
    }
}

/// How often drawn cards redraw their utilization lines at most. Every poll adds a point to
/// every line, so redrawing at each would be a DOM change per card on screen at every poll,
/// where a poll otherwise touches only the cards whose node changed.
const LINES_EVERY: TimeDelta = TimeDelta::minutes(1);

/// Whether the `polls`-th recorded poll, at `at`, redraws the lines last redrawn at `last`:
/// the first two (the lines appear as soon as they have two points), then once a
/// [`LINES_EVERY`].
fn lines_due(polls: u32, last: Option<Timestamp>, at: Timestamp) -> bool {
    polls <= 2 || last.is_none_or(|last| at - last >= LINES_EVERY)
}

impl NodeStore {
    /// Brings the rows up to date with an answer. The row list itself is replaced only
    /// when nodes appear, disappear or move.
    pub fn apply(&self, response: &NodesResponse) {
        let unknown = response.workloads_unknown;
        // The usual poll: the same nodes, under names that are their keys, told without
        // building the keys (10,000 strings at every poll of the largest reservations).
        let names = response.nodes.iter().map(|n| n.display_name.as_str());
        let keys = (!self.keys_are(names)).then(|| node_keys(&response.nodes));
        if keys.as_ref().is_none_or(|keys| self.keys_are(keys.iter().map(String::as_str))) {
            self.rows.with_untracked(|rows| {
                for (row, node) in rows.iter().zip(&response.nodes) {
                    row.update(node, unknown);
                }
            });
            return;
        }
        let keys = keys.unwrap_or_default();
        let mut old: HashMap<String, NodeRow> =
            self.rows.with_untracked(|rows| rows.iter().map(|r| (r.key.clone(), r.clone())).collect());
        let rows = keys
            .into_iter()
            .zip(&response.nodes)
            .map(|(key, node)| match old.remove(&key) {
                Some(row) => {
                    row.update(node, unknown);
                    row
                }
                None => NodeRow::new(key, node, unknown),
            })
            .collect();
        self.rows.set(rows);
    }

    /// Adds each node's utilization at `at` to its history, from the answer just applied (the
    /// rows are then in its order). While the region is unreachable nothing is added: the
    /// placement on the cards is the last known, not the present. Cheap per node (a ring of
    /// at most 63 points, see [`node_capacity`]); the lines on screen are redrawn when due
    /// ([`lines_due`]).
    pub fn record(&self, response: &NodesResponse, at: Timestamp) {
        if response.workloads_unknown {
            return;
        }
        let capacity = node_capacity(response.nodes.len());
        let added = self.rows.with_untracked(|rows| {
            rows.iter().zip(&response.nodes).fold(false, |added, (row, node)| row.record(node, at, capacity) || added)
        });
        if !added {
            return;
        }
        let due = self
            .recorded
            .try_update_value(|(polls, last)| {
                *polls = polls.saturating_add(1);
                let due = lines_due(*polls, *last, at);
                if due {
                    *last = Some(at);
                }
                due
            })
            .unwrap_or(false);
        if due {
            self.lines.notify();
        }
    }

    /// Whether the rows are these keys, in this order.
    fn keys_are<'a>(&self, mut keys: impl ExactSizeIterator<Item = &'a str>) -> bool {
        self.rows
            .with_untracked(|rows| rows.len() == keys.len() && rows.iter().all(|row| keys.next() == Some(&row.key)))
    }

    /// Tracked.
    pub fn len(&self) -> usize {
        self.rows.with(Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

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
fn write_workload(html: &mut Html, reservation: i64, index: usize, w: &Workload) {
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
        .text(workload_page_path(reservation, &w.kind, w.id))
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
fn node_body(
    reservation: i64,
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
fn node_card(reservation: i64, row: &NodeRow, listed: bool) -> String {
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

/// One card of the window: the node whose place in the window is this slot's modulo the
/// slots ([`Window::item_in_slot`]), none when the window draws fewer: then it is an empty
/// `hidden` element, not a `node-card` (what counts the cards counts nodes). Slots are
/// made for as many cards as any window holds, so scrolling creates no card and no
/// reactive node (each created and removed would keep wasm memory, see the module's note):
/// it rewrites the HTML of the slots whose node changed. A poll still touches only the
/// slots whose node changed: each reads its node's signals only.
#[component]
fn NodeSlot(
    reservation: i64,
    row: Memo<Option<NodeRow>>,
    /// The store's word that utilization lines are due for a redraw.
    lines: Trigger,
    /// Cells only: the body leaves out the workloads.
    compact: Signal<bool>,
    /// 1-based place among the nodes shown (none when the slot shows nothing), and how many
    /// are shown: what a screen reader says of the card ("37 of 10,000"), the rest of the
    /// grid not being in the DOM.
    position: Memo<Option<usize>>,
    of: Signal<usize>,
    /// Which slot this is: [`arrange`] reads it from the element to put it in its place.
    number: usize,
) -> impl IntoView {
    // Set whole when the node shown or any of its fields changes: one mutation, where
    // patching field by field cost one call out of wasm per text and attribute (~20 for a
    // node whose workloads all moved, 9 a card at every step of a scroll). A property, not
    // `inner_html`, which would keep a copy of every card's HTML in wasm memory to compare
    // with the next.
    let card = move || {
        lines.track();
        let listed = !compact.get();
        row.with(|r| r.as_ref().map_or_else(String::new, |r| node_card(reservation, r, listed)))
    };
    // The user opening or closing the card's "+N more" is kept on its node's row (the event
    // does not bubble: caught on its way down). A card rewritten closes its old element,
    // whose event then no longer reaches this one.
    let on_toggle = move |ev: leptos::ev::Event| {
        // Only elements are toggled (not checked with `instanceof`, which a card in another
        // frame's document would fail).
        let Some(details) = ev.target().map(|t| t.unchecked_into::<web_sys::Element>()) else { return };
        if !details.matches(".workloads-more").unwrap_or(false) {
            return;
        }
        let open = details.has_attribute("open");
        row.with_untracked(|r| r.as_ref().map(|r| r.more_open.store(open, Ordering::Relaxed)));
    };
    // The slot's number is set as the element is made, not once it is mounted: the window's
    // first arrangement comes before that, and took every unnumbered card for out of place
    // (it moved all of them, 66 at 10,000 nodes, as they were made).
    view! {
        <article
            class:node-card=move || position.with(Option::is_some)
            prop:nodeSlot=number
            hidden=move || position.with(Option::is_none)
            aria-posinset=move || position.get().map(|p| p.to_string())
            aria-setsize=move || of.get().to_string()
            prop:innerHTML=card
            on:toggle:capture=on_toggle
        ></article>
    }
}

/// The property of a slot's element (not an attribute: nothing for the page) that says
/// which slot it is (set by [`NodeSlot`] as `prop:nodeSlot`).
const SLOT_PROPERTY: &str = "nodeSlot";

/// Puts the slots' elements in `grid` in the window's order (the order of the nodes they
/// show, which the reading order and the tab order follow). As the window moves the order
/// turns: the slots of the rows that left one end go to the other, and only those are
/// moved (moving an element lays it out anew); anything else (slots just made or removed)
/// is put in order whole.
fn arrange(grid: &web_sys::Element, window: &Window, slots: usize) {
    let mut cards = Vec::with_capacity(slots);
    let mut next = grid.first_element_child();
    while let Some(element) = next {
        next = element.next_element_sibling();
        let slot = js_sys::Reflect::get(&element, &SLOT_PROPERTY.into()).ok().and_then(|v| v.as_f64());
        let rank = slot.map_or(usize::MAX, |slot| window.rank_of_slot(slot as usize, slots));
        cards.push((rank, element));
    }
    let Some(turn) = cards.iter().enumerate().min_by_key(|(_, (rank, _))| *rank).map(|(at, _)| at) else { return };
    let turned = cards[turn..].iter().chain(&cards[..turn]).map(|(rank, _)| rank);
    let is_turn = turned.clone().zip(turned.skip(1)).all(|(a, b)| a < b);
    let Some(end) = cards.last().map(|(_, last)| last.next_sibling()) else { return };
    let to_end = |moved: &[(usize, web_sys::Element)]| {
        for (_, element) in moved {
            let _ = grid.insert_before(element, end.as_ref());
        }
    };
    if turn == 0 && is_turn {
        return;
    }
    if !is_turn {
        let mut sorted = cards;
        sorted.sort_by_key(|(rank, _)| *rank);
        return to_end(&sorted);
    }
    if turn <= cards.len() / 2 {
        to_end(&cards[..turn]);
    } else {
        let first = &cards[0].1;
        for (_, element) in &cards[turn..] {
            let _ = grid.insert_before(element, Some(first));
        }
    }
}

/// The grid's layout as the page has laid it out: its scroll, its height on screen, and
/// the columns and row pitch its stylesheet gives the cards (fixed-height rows).
fn measure(scroller: &web_sys::Element, grid: &web_sys::Element) -> Viewport {
    let layout = web_sys::window().and_then(|w| w.get_computed_style(grid).ok().flatten());
    let read = |name: &str| layout.as_ref().and_then(|s| s.get_property_value(name).ok()).unwrap_or_default();
    let pitch = px(&read("grid-auto-rows")).map(|row| row + px(&read("row-gap")).unwrap_or(0.0));
    Viewport {
        columns: columns_of(&read("grid-template-columns")),
        pitch_px: pitch.unwrap_or(Viewport::UNMEASURED.pitch_px),
        ..scrolled(scroller, Viewport::UNMEASURED)
    }
}

/// `layout` with the scroller's scroll and height read now (what a scroll changes).
fn scrolled(scroller: &web_sys::Element, layout: Viewport) -> Viewport {
    Viewport { scroll_px: f64::from(scroller.scroll_top()), view_px: f64::from(scroller.client_height()), ..layout }
}

/// `layout` narrowed to the part of the grid's screen inside the page's window (none of it
/// below the fold).
fn sighted(scroller: &web_sys::Element, layout: Viewport) -> Viewport {
    let screen = scroller.get_bounding_client_rect();
    let window_px = web_sys::window().and_then(|w| w.inner_height().ok()?.as_f64()).unwrap_or(f64::INFINITY);
    let above = (-screen.top()).max(0.0);
    let shown = screen.bottom().min(window_px) - screen.top().max(0.0);
    Viewport { scroll_px: layout.scroll_px + above, view_px: shown.clamp(0.0, layout.view_px), ..layout }
}

/// The nodes shown, in the order the API lists them (or as `shown` orders them), windowed:
/// the grid scrolls in a region of its own, focusable so that the arrow keys, Page Up/Down,
/// Home and End scroll it, and only the rows on screen and [`MARGIN_ROWS`] more each side
/// are in the DOM; padding set through the CSSOM (the CSP allows no `style` attribute)
/// keeps the rest's height. `stale` marks the whole grid (the region is unreachable or the
/// latest poll failed) with one class, not per card; `compact` hides the workload lists
/// (cells only) the same way.
#[component]
pub fn GpuGrid(
    /// The reservation whose nodes these are: workload links lead under it.
    reservation: i64,
    store: NodeStore,
    #[prop(into)] stale: Signal<bool>,
    #[prop(into, optional)] compact: Signal<bool>,
    /// Indices of the nodes shown, in order (see `domain::nodes::filter`); all when absent.
    #[prop(optional_no_strip)]
    shown: Option<Memo<Vec<usize>>>,
) -> impl IntoView {
    let count = Signal::derive(move || shown.map_or_else(|| store.len(), |shown| shown.with(Vec::len)));
    let row_at = move |i: usize| {
        let index = match shown {
            Some(shown) => shown.with(|at| at.get(i).copied()),
            None => Some(i),
        };
        index.and_then(|index| store.rows.with(|rows| rows.get(index).cloned()))
    };
    let scroller = NodeRef::<leptos::html::Div>::new();
    let grid = NodeRef::<leptos::html::Div>::new();
    // `None` until the layout is read: nothing is drawn before, so the first cards are laid
    // out once, at the measured size.
    let viewport = RwSignal::new(None::<Viewport>);
    // The part of the first screen inside the page's window, while the first cards are
    // those in it ([`first_screen`]): the rest of the window is drawn once the browser is
    // idle after the frame that paints them, or at once if the layout changes before (a
    // scroll, a resize).
    let in_sight = RwSignal::new(None::<Viewport>);
    let update = move |next: Viewport| {
        if viewport.with_untracked(|v| *v != Some(next)) {
            if in_sight.with_untracked(Option::is_some) {
                in_sight.set(None);
            }
            viewport.set(Some(next));
        }
    };
    // Also called at the next frame, by which time the grid may be gone (its page left).
    let remeasure = move || {
        if viewport.is_disposed() {
            return;
        }
        if let (Some(scroller), Some(grid)) = (scroller.get_untracked(), grid.get_untracked()) {
            let layout = measure(&scroller, &grid);
            if viewport.with_untracked(Option::is_none) {
                viewport.set(Some(layout));
                in_sight.set(Some(sighted(&scroller, layout)));
                when_idle_after_frame(move || {
                    let _ = in_sight.try_set(None);
                });
            } else {
                update(layout);
            }
        }
    };
    let on_scroll = move |_| match (scroller.get_untracked(), viewport.get_untracked()) {
        (Some(scroller), Some(layout)) => update(scrolled(&scroller, layout)),
        _ => remeasure(),
    };
    // The layout is read once there are cards to draw, when the cards change size (cells
    // only) and when the window does: after the other effects of the same change, since
    // the page shows the grid's panel and sets its cells-only class in its own (a layout
    // read before them was the stylesheet's text, not columns: a window of the wrong size
    // was drawn, then replaced), and again at the next frame, laid out for sure.
    let has_cards = Memo::new(move |_| count.get() > 0);
    Effect::new(move || {
        compact.track();
        if has_cards.get() && grid.get().is_some() {
            queue_microtask(remeasure);
            request_animation_frame(remeasure);
        }
    });
    let resized = window_event_listener(leptos::ev::resize, move |_| remeasure());
    on_cleanup(move || resized.remove());
    let drawn = Memo::new(move |_| {
        let count = count.get();
        match (viewport.get(), in_sight.get()) {
            (None, _) => Window::unmeasured(count),
            (Some(_), Some(in_sight)) => first_screen(count, in_sight),
            (Some(v), None) => window(count, v, MARGIN_ROWS),
        }
    });
    // The first screen makes only its own slots, the others come with the rest of the
    // window; at the top of the grid its cards keep their slots then (item `i` is in slot
    // `i % slots`, and they are the first items).
    let slot_count = Memo::new(move |_| {
        if in_sight.with(Option::is_some) {
            return drawn.with(Window::len);
        }
        let count = count.get();
        viewport.with(|v| v.map_or(0, |v| slots(count, v, MARGIN_ROWS)))
    });
    // After every move of the window, and once slots are made (their elements tell it).
    let made = Trigger::new();
    Effect::new(move || {
        made.track();
        let slots = slot_count.get();
        if let Some(grid) = grid.get() {
            drawn.with(|w| arrange(&grid, w, slots));
        }
    });
    view! {
        <div class="node-scroll" node_ref=scroller tabindex="0" role="region" aria-label="Node cards" on:scroll=on_scroll>
            <div
                class="node-grid"
                node_ref=grid
                class:stale=move || stale.get()
                class:compact=move || compact.get()
                style:padding-top=move || format!("{}px", drawn.with(|w| w.before_px))
                style:padding-bottom=move || format!("{}px", drawn.with(|w| w.after_px))
            >
                <For each=move || 0..slot_count.get() key=|slot| *slot let(slot)>
                    {
                        let item = Memo::new(move |_| drawn.with(|w| w.item_in_slot(slot, slot_count.get())));
                        made.notify();
                        view! {
                            <NodeSlot
                                reservation
                                row=Memo::new(move |_| item.get().and_then(row_at))
                                lines=store.lines
                                compact
                                position=Memo::new(move |_| item.get().map(|i| i + 1))
                                of=count
                                number=slot
                            />
                        }
                    }
                </For>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
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
            12,
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

    fn at(minute: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(1_796_000_000 + minute * 60, 0).unwrap()
    }

    fn node(name: &str, gpus: i64, in_use: Option<i64>, workloads: &[i64]) -> Node {
        Node {
            display_name: name.into(),
            state: NodeState::Ready,
            gpus,
            gpus_in_use: in_use,
            workloads: workloads
                .iter()
                .map(|&gpus| Workload {
                    kind: WorkloadKind::GpuInstance,
                    id: gpus,
                    name: "w".into(),
                    gpus,
                    billing: None,
                })
                .collect(),
        }
    }

    fn answer(nodes: Vec<Node>) -> NodesResponse {
        NodesResponse { nodes, ..NodesResponse::default() }
    }

    /// Applied and recorded at `at`, as a poll's answer is.
    fn poll(store: &NodeStore, response: &NodesResponse, at: Timestamp) {
        store.apply(response);
        store.record(response, at);
    }

    /// Each row's history, by key.
    fn histories(store: &NodeStore) -> Vec<(String, Vec<f64>)> {
        store.rows.with_untracked(|rows| {
            rows.iter()
                .map(|r| (r.key.clone(), r.with_history(|h| h.points().iter().map(|p| p.mean).collect())))
                .collect()
        })
    }

    #[test]
    fn each_poll_records_every_node_share_of_gpus_in_use_by_the_cards_rule() {
        let store = NodeStore::default();
        let nodes = || {
            answer(vec![
                node("reported", 8, Some(6), &[4]),
                node("summed", 4, None, &[1, 1]),
                node("no-gpus", 0, Some(0), &[]),
                node("overfull", 8, Some(9), &[]),
            ])
        };
        poll(&store, &nodes(), at(0));
        poll(&store, &nodes(), at(1));
        assert_eq!(
            histories(&store),
            [
                ("reported".into(), vec![0.75, 0.75]),
                ("summed".into(), vec![0.5, 0.5]),
                ("no-gpus".into(), vec![]),
                ("overfull".into(), vec![1.0, 1.0]),
            ]
        );
    }

    #[test]
    fn an_unreachable_region_records_nothing_not_the_last_known_placement() {
        let store = NodeStore::default();
        poll(&store, &answer(vec![node("a", 8, Some(2), &[])]), at(0));
        let unreachable =
            NodesResponse { nodes: vec![node("a", 8, None, &[])], workloads_unknown: true, ..NodesResponse::default() };
        poll(&store, &unreachable, at(1));
        assert_eq!(histories(&store), [("a".into(), vec![0.25])]);
    }

    #[test]
    fn a_node_keeps_its_history_under_its_key_when_others_come_and_go() {
        let store = NodeStore::default();
        poll(&store, &answer(vec![node("a", 4, Some(1), &[]), node("b", 4, Some(2), &[])]), at(0));
        poll(&store, &answer(vec![node("new", 4, Some(4), &[]), node("b", 4, Some(3), &[])]), at(1));
        assert_eq!(histories(&store), [("new".into(), vec![1.0]), ("b".into(), vec![0.5, 0.75])]);
        // Twice the same name: two keys, two histories.
        poll(&store, &answer(vec![node("b", 4, Some(0), &[]), node("b", 4, Some(4), &[])]), at(2));
        assert_eq!(histories(&store), [("b".into(), vec![0.5, 0.75, 0.0]), ("b#2".into(), vec![1.0])]);
    }

    #[test]
    fn ten_thousand_nodes_keep_at_most_seven_points_each() {
        let store = NodeStore::default();
        let many = answer((0..10_000).map(|i| node(&format!("n{i}"), 8, Some(i % 9), &[])).collect());
        for minute in 0..12 {
            poll(&store, &many, at(minute));
        }
        store.rows.with_untracked(|rows| {
            for row in rows {
                row.with_history(|h| {
                    assert_eq!(h.points().len(), 7, "{}", row.key);
                    assert_eq!(h.points().iter().map(|p| p.samples).sum::<u32>(), 12, "{}", row.key);
                });
            }
        });
    }

    #[test]
    fn lines_are_redrawn_on_the_first_two_polls_then_once_a_minute() {
        assert!(lines_due(1, None, at(0)));
        assert!(lines_due(2, Some(at(0)), at(0) + TimeDelta::seconds(5)), "the lines appear at once");
        assert!(!lines_due(3, Some(at(0)), at(0) + TimeDelta::seconds(10)));
        assert!(!lines_due(12, Some(at(0)), at(0) + TimeDelta::seconds(59)));
        assert!(lines_due(13, Some(at(0)), at(1)));
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
        let html =
            node_body(12, "node-1", &NodeState::Ready, 4, Some(&placement), false, Listing::CellsOnly).into_string();
        assert!(!html.contains("node-workloads") && !html.contains("<a "), "{html}");
        assert!(html.contains(r#"title="GPU 1 · train (GPU instance #9)">1</li>"#), "the cells still name it: {html}");
    }

    #[test]
    fn a_card_is_its_head_line_and_body_with_the_name_and_state_escaped_and_titled() {
        let row = NodeRow::new("a<b".into(), &node("a<b", 8, Some(2), &[2]), false);
        let html = node_card(12, &row, true);
        assert!(
            html.starts_with(
                r#"<header class="node-head"><h3 class="node-name" title="a&lt;b">a&lt;b</h3><span class="badge tone-ok" title="Ready"><span class="badge-text">Ready</span></span></header><div class="node-line"></div><div class="node-body"><p class="node-use num""#
            ),
            "{html}"
        );
        assert!(html.ends_with("</ol></div>"), "{html}");
        row.shown.update(|shown| shown.state = NodeState::Unknown("drained".into()));
        assert!(
            node_card(12, &row, true).contains(
                r#"<span class="badge tone-unknown" title="drained (unrecognised)"><span class="badge-text">drained (unrecognised)</span></span>"#
            ),
            "an unknown state is named as sent"
        );
    }

    #[test]
    fn flags_keep_their_list_inside_a_note_wrapper() {
        let html =
            node_body(12, "n", &NodeState::Ready, 8, None, true, Listing::Listed { more_open: false }).into_string();
        assert!(html.contains(r#"<div class="node-flags" role="note"><ul><li>"#), "{html}");
        assert!(!html.contains(r#"<ul class="node-flags" role="note">"#), "{html}");
    }

    #[test]
    fn preparing_and_maintenance_nodes_say_what_their_state_means() {
        let preparing = node_body(12, "n", &NodeState::Preparing, 8, None, false, Listing::CellsOnly).into_string();
        assert!(
            preparing
                .contains(r#"<p class="node-state-meaning" title="GPUs available shortly">GPUs available shortly</p>"#),
            "{preparing}"
        );
        let maintenance =
            node_body(12, "n", &NodeState::UnderMaintenance, 8, None, false, Listing::CellsOnly).into_string();
        assert!(
            maintenance.contains(r#"<p class="node-state-meaning" title="not usable now; still part of what is reserved">not usable now; still part of what is reserved</p>"#),
            "{maintenance}"
        );
    }
}
