//! Windowing for a long grid of fixed-height rows (the Nodes grid at 10,000 nodes): only the
//! rows on screen plus a margin are in the DOM, and the space of the rest is kept above and
//! below, so the scroll height is that of the whole grid. Pure arithmetic in pixels and
//! indices; the view measures the layout and draws what this decides.

/// The layout as measured in the page: how the grid scrolls and how its cards are laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// How far the grid is scrolled, in pixels.
    pub scroll_px: f64,
    /// How much of the grid is on screen, in pixels.
    pub view_px: f64,
    /// Cards to a row.
    pub columns: usize,
    /// From the top of one row to the top of the next: a card's height and the gap.
    pub pitch_px: f64,
}

impl Viewport {
    /// Before the layout is measured (the first draw, a grid not yet laid out): one
    /// column of tall rows in a screen of 1,000 px, a first screenful of cards at least.
    pub const UNMEASURED: Viewport = Viewport { scroll_px: 0.0, view_px: 1_000.0, columns: 1, pitch_px: 80.0 };
}

/// Rows drawn above and below the screen, so that scrolling a few rows shows no blank.
pub const MARGIN_ROWS: usize = 2;

/// The items to draw and the space left for the rest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// First item drawn (an index into the items shown).
    pub start: usize,
    /// One past the last item drawn; `start == end` when there is nothing to draw.
    pub end: usize,
    /// Space above the first row drawn, in pixels: the rows not drawn there.
    pub before_px: f64,
    /// Space below the last row drawn.
    pub after_px: f64,
}

impl Window {
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// Before the layout is measured: no card drawn, and the space of every item, one to a
    /// row of [`Viewport::UNMEASURED`]'s pitch, below, so that the region the grid scrolls
    /// in takes its full height and can be measured. A guessed first window would be laid
    /// out and then redrawn at the measured size: two layouts before the first grid.
    pub fn unmeasured(items: usize) -> Window {
        Window { start: 0, end: 0, before_px: 0.0, after_px: items as f64 * Viewport::UNMEASURED.pitch_px }
    }
}

/// The layout made safe: columns, pitch, screen height and scroll. A layout that makes no
/// sense (no columns, rows of no height, a negative or NaN size) is taken as
/// [`Viewport::UNMEASURED`]'s, so the grid never divides by zero nor draws nothing when
/// something is there.
fn sane(viewport: Viewport) -> (usize, f64, f64, f64) {
    let sane = |value: f64, fallback: f64| if value.is_finite() && value > 0.0 { value } else { fallback };
    let columns = if viewport.columns == 0 { 1 } else { viewport.columns };
    let pitch = sane(viewport.pitch_px, Viewport::UNMEASURED.pitch_px);
    let view = sane(viewport.view_px, Viewport::UNMEASURED.view_px);
    let scroll = if viewport.scroll_px.is_finite() { viewport.scroll_px.max(0.0) } else { 0.0 };
    (columns, pitch, view, scroll)
}

/// The most rows a screen of `view` px shows in part or whole: one more than it holds,
/// when scrolled part-way into a row.
fn rows_on_screen(view: f64, pitch: f64) -> usize {
    (view / pitch).ceil() as usize + 1
}

/// The window over `items` for `viewport`, with `margin_rows` drawn beyond each edge (see
/// [`sane`] for a layout that makes no sense); a scroll past the end draws the last rows.
pub fn window(items: usize, viewport: Viewport, margin_rows: usize) -> Window {
    let (columns, pitch, view, scroll) = sane(viewport);
    let rows = items.div_ceil(columns);
    // `as` from f64 saturates (and NaN is 0): a huge scroll is the last row, never a wrap.
    let first_visible = ((scroll / pitch) as usize).min(rows.saturating_sub(1));
    let visible = (((scroll + view) / pitch).ceil() as usize).saturating_sub((scroll / pitch) as usize);
    // Capped so that rounding never draws more than [`slots`] holds.
    let visible = visible.clamp(1, rows_on_screen(view, pitch));
    let start_row = first_visible.saturating_sub(margin_rows);
    let end_row = first_visible.saturating_add(visible).saturating_add(margin_rows).min(rows);
    let height = |rows: usize| rows as f64 * pitch;
    Window {
        start: (start_row * columns).min(items),
        end: (end_row * columns).min(items),
        before_px: height(start_row),
        after_px: height(rows - end_row.max(start_row)),
    }
}

/// The first window of a grid just laid out: the rows of `in_sight` (the part of its screen
/// inside the page's window), without margin. The rest of the window follows once those are
/// painted, so that the first grid waits for no card out of sight (at 1,280 × 900 two
/// thirds of the Nodes grid's screen are below the fold). Nothing is drawn when no part of
/// the grid is in sight; the spacers keep the whole height either way.
pub fn first_screen(items: usize, in_sight: Viewport) -> Window {
    let w = window(items, in_sight, 0);
    if in_sight.view_px > 0.0 {
        return w;
    }
    let (columns, pitch, _, _) = sane(in_sight);
    Window { end: w.start, after_px: w.after_px + w.len().div_ceil(columns) as f64 * pitch, ..w }
}

/// How many cards any [`window`] over `items` draws at most for this layout, wherever it is
/// scrolled: the grid keeps that many slots, each showing the item of its place modulo
/// the slots ([`Window::item_in_slot`]), so that a scroll redraws only the slots of the
/// rows that came in and keeps the others as they are.
pub fn slots(items: usize, viewport: Viewport, margin_rows: usize) -> usize {
    let (columns, pitch, view, _) = sane(viewport);
    let rows = rows_on_screen(view, pitch).saturating_add(margin_rows.saturating_mul(2));
    rows.saturating_mul(columns).min(items)
}

impl Window {
    /// Where the item in `slot` (of `slots`, see [`slots`]) comes among the items drawn:
    /// item `i` is in slot `i % slots`, so the order of the slots on the page turns as the
    /// window moves.
    pub fn rank_of_slot(&self, slot: usize, slots: usize) -> usize {
        if slot >= slots {
            return usize::MAX;
        }
        (slot + slots - self.start % slots) % slots
    }

    /// The item `slot` shows, if the window draws one there.
    pub fn item_in_slot(&self, slot: usize, slots: usize) -> Option<usize> {
        self.start.checked_add(self.rank_of_slot(slot, slots)).filter(|item| *item < self.end)
    }
}

/// Tracks in a computed `grid-template-columns` ("250px 250px 250px"): the columns of a grid
/// laid out with `repeat(auto-fill, …)`; 1 for `none` (a grid not laid out).
pub fn columns_of(template: &str) -> usize {
    template.split_whitespace().filter(|track| px(track).is_some()).count().max(1)
}

/// A computed length in pixels ("236px", "6.5px"); `None` for anything else ("normal", "auto").
pub fn px(value: &str) -> Option<f64> {
    value.trim().strip_suffix("px")?.parse().ok().filter(|n: &f64| n.is_finite() && *n >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(scroll_px: f64, view_px: f64, columns: usize, pitch_px: f64) -> Viewport {
        Viewport { scroll_px, view_px, columns, pitch_px }
    }

    /// The spacers and the rows drawn always add up to the whole grid's rows.
    fn assert_whole(w: &Window, items: usize, v: Viewport) {
        let rows = items.div_ceil(v.columns);
        let drawn_rows = w.len().div_ceil(v.columns);
        assert_eq!(w.before_px + drawn_rows as f64 * v.pitch_px + w.after_px, rows as f64 * v.pitch_px, "{w:?}");
    }

    #[test]
    fn at_the_top_only_a_screenful_and_the_margin_below_are_drawn() {
        let v = at(0.0, 800.0, 1, 40.0);
        let w = window(10_000, v, 5);
        assert_eq!((w.start, w.end, w.before_px), (0, 25, 0.0));
        assert_eq!(w.after_px, (10_000 - 25) as f64 * 40.0);
        assert_whole(&w, 10_000, v);
    }

    #[test]
    fn in_the_middle_the_spacers_keep_the_whole_height() {
        // 7 cards to a row of 90 px (84 px cards, 6 px gap), scrolled to row 1,000 of 1,429.
        let v = at(90_000.0, 640.0, 7, 90.0);
        let w = window(10_000, v, MARGIN_ROWS);
        assert_eq!((w.start, w.end), (998 * 7, 1_010 * 7), "rows 1,000–1,007 on screen, 2 more each side");
        assert_whole(&w, 10_000, v);
    }

    #[test]
    fn a_row_partly_on_screen_is_drawn() {
        // Scrolled half a row: rows 10 to 14 show, the last in part.
        let w = window(1_000, at(1_045.0, 400.0, 4, 100.0), 0);
        assert_eq!((w.start, w.end), (40, 60));
    }

    #[test]
    fn at_and_past_the_end_the_last_rows_are_drawn_and_nothing_beyond() {
        let v = at(10_000.0, 500.0, 3, 100.0);
        let w = window(10, v, 1);
        assert_eq!((w.start, w.end, w.after_px), (6, 10, 0.0), "4 rows: the last (one card) and its margin");
        assert_eq!(w.before_px, 200.0);
        assert_whole(&w, 10, v);
        let w = window(10_000, at(f64::MAX, 500.0, 3, 100.0), 1);
        assert_eq!(w.end, 10_000);
    }

    #[test]
    fn an_empty_grid_or_an_unmeasured_layout_draws_safely() {
        let empty = window(0, at(0.0, 800.0, 4, 200.0), 2);
        assert_eq!(empty, Window { start: 0, end: 0, before_px: 0.0, after_px: 0.0 });
        let unmeasured = window(100, at(f64::NAN, 0.0, 0, 0.0), 0);
        assert_eq!((unmeasured.start, unmeasured.end), (0, 13), "a first screenful of the unmeasured layout");
        assert_eq!(window(100, Viewport::UNMEASURED, 0).end, 13);
        let negative = window(100, at(-500.0, -1.0, 2, -3.0), 0);
        assert_eq!(negative.start, 0);
    }

    #[test]
    fn the_first_screen_is_the_rows_in_sight_without_margin_and_keeps_the_whole_height() {
        // A 610 px screen of 122 px rows, 6 to a row, of which 274 px are in sight.
        let in_sight = at(0.0, 274.0, 6, 122.0);
        let w = first_screen(10_000, in_sight);
        assert_eq!((w.start, w.end), (0, 18), "rows 0–2 in sight, the third in part; no margin");
        assert_whole(&w, 10_000, in_sight);
        let w = first_screen(10_000, at(1_220.0, 274.0, 6, 122.0));
        assert_eq!((w.start, w.end), (60, 78), "the grid scrolled 10 rows");
        let below_the_fold = first_screen(10_000, at(0.0, 0.0, 6, 122.0));
        assert!(below_the_fold.is_empty(), "{below_the_fold:?}");
        assert_whole(&below_the_fold, 10_000, in_sight);
        assert_eq!(first_screen(0, in_sight), Window { start: 0, end: 0, before_px: 0.0, after_px: 0.0 });
    }

    #[test]
    fn before_the_layout_is_measured_nothing_is_drawn_and_every_item_keeps_room() {
        let w = Window::unmeasured(10_000);
        assert!(w.is_empty());
        assert_eq!((w.before_px, w.after_px), (0.0, 800_000.0));
        assert_eq!(Window::unmeasured(0).after_px, 0.0);
    }

    #[test]
    fn every_window_fits_its_slots_and_each_item_drawn_is_in_exactly_one() {
        // 675 px of 274 px rows, 6 to a row: 4 rows touch the screen, 2 more each side.
        for (items, columns, view, pitch) in [(10_000, 6, 675.0, 274.0), (1_000, 2, 400.0, 100.0), (7, 3, 500.0, 100.0)]
        {
            let slots = slots(items, at(0.0, view, columns, pitch), MARGIN_ROWS);
            let mut scroll = 0.0;
            while scroll < (items.div_ceil(columns) as f64 + 1.0) * pitch {
                let w = window(items, at(scroll, view, columns, pitch), MARGIN_ROWS);
                assert!(w.len() <= slots, "{w:?} in {slots} slots");
                let mut shown: Vec<usize> = (0..slots).filter_map(|slot| w.item_in_slot(slot, slots)).collect();
                shown.sort_unstable();
                assert_eq!(shown, (w.start..w.end).collect::<Vec<_>>(), "{w:?}");
                scroll += 37.0;
            }
        }
        assert_eq!(slots(10_000, at(0.0, 675.0, 6, 274.0), 2), 48);
        assert_eq!(slots(5, at(0.0, 675.0, 6, 274.0), 2), 5, "never more than the items");
    }

    #[test]
    fn a_scroll_by_a_row_draws_only_that_rows_nodes_anew() {
        let (v, slots) = (at(27_400.0, 675.0, 6, 274.0), 48);
        let before = window(10_000, v, MARGIN_ROWS);
        let after = window(10_000, Viewport { scroll_px: v.scroll_px + 274.0, ..v }, MARGIN_ROWS);
        assert_eq!((before.start, after.start, after.end), (588, 594, 636), "rows 98–104, then 99–105");
        let drawn_anew: Vec<usize> = (0..slots)
            .filter_map(|slot| {
                after.item_in_slot(slot, slots).filter(|item| before.item_in_slot(slot, slots) != Some(*item))
            })
            .collect();
        assert_eq!(drawn_anew, (630..636).collect::<Vec<_>>(), "the other slots keep their node");
    }

    #[test]
    fn the_computed_layout_is_read_from_css_values() {
        assert_eq!(columns_of("250px 250px 250.5px"), 3);
        assert_eq!(columns_of("none"), 1);
        assert_eq!(columns_of(""), 1);
        assert_eq!(px("236px"), Some(236.0));
        assert_eq!(px(" 6.5px "), Some(6.5));
        assert_eq!(px("normal"), None);
        assert_eq!(px("-3px"), None);
    }
}
