//! Windowing for long lists of fixed-height rows (the Nodes grid at 10,000 nodes): only the
//! rows on screen plus a margin are in the DOM; spacers above and below keep the scroll
//! height of the whole list. Pure arithmetic, in pixels and row indices.

/// The rows to draw and the space left for the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// First row drawn (index into the shown rows).
    pub start: usize,
    /// One past the last row drawn; `start == end` when there is nothing to draw.
    pub end: usize,
    /// Height of the spacer above the first row drawn.
    pub before_px: u64,
    /// Height of the spacer below the last row drawn.
    pub after_px: u64,
}

/// Rows of `row_px` each, `columns` to a row of cards (1 for a list), `items` in all; the
/// viewport shows `view_px` from `scroll_px` down; `margin_rows` more are drawn above and
/// below so that a quick scroll does not show blank space. A zero row height or column count
/// is taken as 1 (a layout not measured yet draws a first screenful, never divides by zero).
pub fn window(items: usize, columns: usize, row_px: u64, scroll_px: u64, view_px: u64, margin_rows: usize) -> Window {
    let columns = columns.max(1);
    let row_px = row_px.max(1);
    let rows = items.div_ceil(columns);
    let first_row = usize::try_from(scroll_px / row_px).unwrap_or(usize::MAX).min(rows);
    let visible_rows = usize::try_from(view_px.div_ceil(row_px)).unwrap_or(usize::MAX);
    let start_row = first_row.saturating_sub(margin_rows);
    let end_row = first_row.saturating_add(visible_rows).saturating_add(margin_rows).min(rows);
    let height = |n: usize| u64::try_from(n).unwrap_or(u64::MAX).saturating_mul(row_px);
    Window {
        start: start_row.saturating_mul(columns).min(items),
        end: end_row.saturating_mul(columns).min(items),
        before_px: height(start_row),
        after_px: height(rows - end_row.max(start_row)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_top_only_a_screenful_and_the_margin_are_drawn() {
        let w = window(10_000, 1, 40, 0, 800, 5);
        assert_eq!((w.start, w.end, w.before_px), (0, 25, 0));
        assert_eq!(w.after_px, (10_000 - 25) * 40);
    }

    #[test]
    fn in_the_middle_the_spacers_keep_the_whole_height() {
        let w = window(10_000, 4, 200, 100_000, 1_000, 2);
        assert_eq!((w.start, w.end), (498 * 4, 507 * 4));
        assert_eq!(w.before_px + (w.end - w.start) as u64 / 4 * 200 + w.after_px, 2_500 * 200);
    }

    #[test]
    fn at_and_past_the_end_the_last_rows_are_drawn_and_nothing_beyond() {
        let w = window(10, 3, 100, 10_000, 500, 1);
        assert_eq!((w.start, w.end, w.after_px), (9, 10, 0), "4 rows: the last (one card) and its margin");
        assert_eq!(w.before_px, 300);
    }

    #[test]
    fn an_empty_list_or_an_unmeasured_layout_draws_safely() {
        assert_eq!(window(0, 4, 200, 0, 800, 2), Window { start: 0, end: 0, before_px: 0, after_px: 0 });
        let unmeasured = window(100, 0, 0, 0, 0, 3);
        assert_eq!((unmeasured.start, unmeasured.end), (0, 3));
    }
}
