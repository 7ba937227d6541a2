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

mod card;
mod store;

use crate::browser::when_idle_after_frame;
use crate::components::reservation_route::route_account;
use crate::domain::nodes::window::{columns_of, first_screen, px, slots, window, Viewport, Window, MARGIN_ROWS};
use card::node_card;
use leptos::prelude::*;
use std::sync::atomic::Ordering;
pub use store::{NodeRow, NodeStore};
use wasm_bindgen::JsCast;

/// One card of the window: the node whose place in the window is this slot's modulo the
/// slots ([`Window::item_in_slot`]), none when the window draws fewer: then it is an empty
/// `hidden` element, not a `node-card` (what counts the cards counts nodes). Slots are
/// made for as many cards as any window holds, so scrolling creates no card and no
/// reactive node (each created and removed would keep wasm memory, see the module's note):
/// it rewrites the HTML of the slots whose node changed. A poll still touches only the
/// slots whose node changed: each reads its node's signals only.
#[component]
fn NodeSlot(
    /// The reservation's account label (`route_account`) and id.
    reservation: (StoredValue<String>, i64),
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
        let (account, id) = reservation;
        account.with_value(|account| {
            row.with(|r| r.as_ref().map_or_else(String::new, |r| node_card((account, id), r, listed)))
        })
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
    // Whose reservation: the workload links keep the account the address names.
    let reservation = (StoredValue::new(route_account()), reservation);
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

/// The nodes the card and store tests are built from.
#[cfg(test)]
mod test_nodes {
    use crate::api::enums::{NodeState, WorkloadKind};
    use crate::api::models::{Node, Timestamp, Workload};

    pub(super) fn at(minute: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(1_796_000_000 + minute * 60, 0).unwrap()
    }

    pub(super) fn node(name: &str, gpus: i64, in_use: Option<i64>, workloads: &[i64]) -> Node {
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
}
