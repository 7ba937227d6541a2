//! Utilization since the tab opened, per reservation (and per node on Nodes): a bounded ring
//! (at most 24 h, at most [`CAPACITY`] points, or [`node_capacity`] for a node), older points
//! downsampled by merging neighbours (coarser the older they are), so that a tab left open
//! for days keeps a fixed size. Each point keeps its mean, min, max and how many of its
//! samples were under 20 %, so merging loses no extreme and no share.

use crate::api::models::Timestamp;
use crate::domain::alerts::LOW_USE;
use chrono::TimeDelta;

/// How far back the history goes.
pub const SPAN: TimeDelta = TimeDelta::hours(24);
/// Points kept per reservation: a day at one a minute.
pub const CAPACITY: usize = 1_440;

/// Points the node histories of one page share (48 bytes each: 6 MB).
const NODE_BUDGET: usize = 131_072;
/// Ring slots per node, at least and at most.
const NODE_SLOTS: (usize, usize) = (4, 64);

/// Points kept per node of a reservation of `nodes`: an even share of [`NODE_BUDGET`], within
/// [`NODE_SLOTS`], less the slot a sample takes before a merge. The slots are a power of two,
/// so the ring's vector, which grows by doubling, is allocated to them exactly: all nodes
/// together hold at most 131,072 points (6 MB) up to 32,768 nodes, 4 a node beyond
/// (10,000 nodes: 8 slots each, 3.8 MB; 1,000 nodes: 64 each, 3 MB). The cap of 64 also
/// bounds a poll's work (a merge weighs every pair of a full ring). Merging keeps every
/// sample counted, so a small ring coarsens the line, never its min, mean, max or share
/// under 20 %.
pub fn node_capacity(nodes: usize) -> usize {
    let share = (NODE_BUDGET / nodes.max(1)).clamp(NODE_SLOTS.0, NODE_SLOTS.1);
    // The largest power of two within the share.
    (1 << share.ilog2()) - 1
}

/// One or more merged samples of utilization (in use of the GPUs whose use is known).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// The first sample's time.
    pub at: Timestamp,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub samples: u32,
    /// Samples under [`LOW_USE`].
    pub below: u32,
}

impl Point {
    fn sample(at: Timestamp, utilization: f64) -> Self {
        Point {
            at,
            mean: utilization,
            min: utilization,
            max: utilization,
            samples: 1,
            below: u32::from(utilization < LOW_USE),
        }
    }

    fn merged(self, later: Point) -> Point {
        let samples = self.samples + later.samples;
        Point {
            at: self.at,
            mean: (self.mean * f64::from(self.samples) + later.mean * f64::from(later.samples)) / f64::from(samples),
            min: self.min.min(later.min),
            max: self.max.max(later.max),
            samples,
            below: self.below + later.below,
        }
    }
}

/// Min, mean and max utilization, and the share of samples under 20 % (the reads are evenly
/// spaced, so a share of samples is a share of time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub min: f64,
    pub mean: f64,
    pub max: f64,
    pub below_share: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// Oldest first.
    points: Vec<Point>,
}

impl History {
    /// Adds a sample at `at` (a read's time; reads come in time order), dropping what is older
    /// than [`SPAN`] and, over [`CAPACITY`], merging two neighbouring points.
    pub fn record(&mut self, at: Timestamp, utilization: f64) {
        self.record_within(at, utilization, CAPACITY);
    }

    /// [`History::record`] into a ring of `capacity` points (a node's, see [`node_capacity`]).
    /// A ring left with far more room than it now needs (its reservation gained nodes)
    /// gives the room back.
    pub fn record_within(&mut self, at: Timestamp, utilization: f64, capacity: usize) {
        if !utilization.is_finite() {
            return;
        }
        self.points.push(Point::sample(at, utilization.clamp(0.0, 1.0)));
        let oldest = at - SPAN;
        let expired = self.points.iter().take_while(|p| p.at < oldest).count();
        self.points.drain(..expired);
        while self.points.len() > capacity.max(2) {
            self.downsample(at);
        }
        if self.points.capacity() >= 2 * (capacity + 1) {
            self.points.shrink_to(capacity + 1);
        }
    }

    /// Merges the neighbouring pair that would cover the least time for its age (span ÷
    /// (age + 1 min)): recent points keep full detail, older ones coarsen in proportion to
    /// their age, so a point that expires takes few samples with it. The newest point is
    /// never merged.
    fn downsample(&mut self, now: Timestamp) {
        let n = self.points.len();
        if n < 3 {
            return;
        }
        let cost = |i: usize| {
            let span = (self.points[i + 2].at - self.points[i].at).num_milliseconds() as f64;
            let age = (now - self.points[i].at).num_milliseconds() as f64;
            span / (age + 60_000.0)
        };
        let best = (0..n - 2).min_by(|a, b| cost(*a).total_cmp(&cost(*b))).unwrap_or(0);
        let later = self.points.remove(best + 1);
        self.points[best] = self.points[best].merged(later);
    }

    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Over the whole history; `None` before the first sample.
    pub fn stats(&self) -> Option<Stats> {
        stats_of(&self.points)
    }

    /// The mean over the last `window` before `now`, only when the history reaches back that
    /// far (a session younger than the window judges nothing).
    pub fn mean_over(&self, window: TimeDelta, now: Timestamp) -> Option<f64> {
        let since = now - window;
        if self.points.first()?.at > since {
            return None;
        }
        let recent: Vec<Point> = self.points.iter().copied().filter(|p| p.at >= since).collect();
        stats_of(&recent).map(|s| s.mean)
    }
}

fn stats_of(points: &[Point]) -> Option<Stats> {
    let samples: u32 = points.iter().map(|p| p.samples).sum();
    if samples == 0 {
        return None;
    }
    let total = f64::from(samples);
    Some(Stats {
        min: points.iter().map(|p| p.min).fold(f64::INFINITY, f64::min),
        max: points.iter().map(|p| p.max).fold(f64::NEG_INFINITY, f64::max),
        mean: points.iter().map(|p| p.mean * f64::from(p.samples)).sum::<f64>() / total,
        below_share: f64::from(points.iter().map(|p| p.below).sum::<u32>()) / total,
    })
}

impl Stats {
    /// "min 5 % · avg 42 % · max 88 % · under 20 % 10 % of the time": how the overview and the
    /// node cards say it.
    pub fn summary(&self) -> String {
        format!(
            "min {} · avg {} · max {} · under 20 % {} of the time",
            percent(self.min),
            percent(self.mean),
            percent(self.max),
            percent(self.below_share)
        )
    }
}

/// "42 %", rounded to the unit.
pub fn percent(share: f64) -> String {
    format!("{:.0} %", share * 100.0)
}

/// The `points` attribute of an SVG polyline `width` × `height` drawing the means from
/// `start` to `end` (100 % at the top). Rounded to tenths: the line is a glance, not a table.
pub fn sparkline(points: &[Point], start: Timestamp, end: Timestamp, width: f64, height: f64) -> String {
    let span = (end - start).num_milliseconds().max(1) as f64;
    points
        .iter()
        .map(|p| {
            let x = ((p.at - start).num_milliseconds() as f64 / span).clamp(0.0, 1.0) * width;
            let y = (1.0 - p.mean) * height;
            format!("{:.1},{:.1}", x, y)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn start() -> Timestamp {
        chrono::Utc.with_ymd_and_hms(2026, 12, 2, 0, 0, 0).unwrap()
    }

    #[test]
    fn thirty_hours_of_30_second_reads_stay_within_24_hours_and_the_capacity() {
        let mut h = History::default();
        let every = TimeDelta::seconds(30);
        let reads = 30 * 120;
        for i in 0..reads {
            h.record(start() + every * i, if i % 4 == 0 { 0.1 } else { 0.5 });
            assert!(h.points().len() <= CAPACITY, "read {i}: {}", h.points().len());
        }
        let now = start() + every * (reads - 1);
        assert!(h.points()[0].at >= now - SPAN, "nothing older than 24 h");
        assert!(h.points().windows(2).all(|w| w[0].at < w[1].at), "in time order");
        let last = h.points().last().unwrap();
        assert_eq!((last.at, last.samples), (now, 1), "the newest read keeps full detail");
        let kept: u32 = h.points().iter().map(|p| p.samples).sum();
        assert!(kept > 2_700 && kept <= 2_881, "about a day of samples is still summed: {kept}");
        let s = h.stats().unwrap();
        assert_eq!((s.min, s.max), (0.1, 0.5), "merging keeps the extremes");
        assert!((s.below_share - 0.25).abs() < 0.01, "{}", s.below_share);
        assert!((s.mean - 0.4).abs() < 0.01, "{}", s.mean);
    }

    #[test]
    fn downsampling_merges_the_oldest_neighbours_first_and_keeps_every_sample_counted() {
        let mut h = History::default();
        for i in 0..=CAPACITY as i64 {
            h.record(start() + TimeDelta::seconds(i), (i % 10) as f64 / 10.0);
        }
        // One point too many: the oldest pair (the most time for its age) is merged.
        assert_eq!(h.points().len(), CAPACITY);
        assert_eq!(h.points().iter().map(|p| p.samples).sum::<u32>(), CAPACITY as u32 + 1);
        let first = h.points()[0];
        assert_eq!((first.at, first.samples, first.min, first.max), (start(), 2, 0.0, 0.1));
        assert!((first.mean - 0.05).abs() < 1e-9);
    }

    #[test]
    fn the_recent_mean_needs_the_whole_window_read() {
        let mut h = History::default();
        for minute in 0..20 {
            h.record(start() + TimeDelta::minutes(minute), 0.1);
        }
        let now = start() + TimeDelta::minutes(19);
        assert_eq!(h.mean_over(TimeDelta::minutes(30), now), None, "20 minutes of reads say nothing of 30");
        for minute in 20..40 {
            h.record(start() + TimeDelta::minutes(minute), 0.3);
        }
        let now = start() + TimeDelta::minutes(39);
        let mean = h.mean_over(TimeDelta::minutes(30), now).unwrap();
        // Minutes 9 to 39: eleven reads at 10 %, twenty at 30 %.
        assert!((mean - (11.0 * 0.1 + 20.0 * 0.3) / 31.0).abs() < 1e-9, "{mean}");
        assert_eq!(History::default().stats(), None);
    }

    #[test]
    fn node_rings_share_a_fixed_budget_within_their_bounds() {
        assert_eq!(node_capacity(0), 63);
        assert_eq!(node_capacity(4), 63, "a small reservation gets the most a node has");
        assert_eq!(node_capacity(1_000), 63);
        assert_eq!(node_capacity(3_000), 31);
        assert_eq!(node_capacity(10_000), 7);
        assert_eq!(node_capacity(100_000), 3, "never fewer than a line's worth");
        for nodes in [1, 2_048, 2_049, 5_000, 10_000, 32_768] {
            let slots = node_capacity(nodes) + 1;
            assert!(slots.is_power_of_two(), "{nodes}: {slots}");
            assert!(nodes * slots <= 131_072, "{nodes} nodes × {slots} slots");
        }
        assert!(std::mem::size_of::<Point>() <= 48, "the budget counts 48 bytes a point");
    }

    #[test]
    fn a_node_ring_stays_in_its_slots_and_keeps_every_sample_counted() {
        let mut h = History::default();
        for i in 0..100 {
            h.record_within(start() + TimeDelta::seconds(5 * i), if i < 50 { 0.1 } else { 0.9 }, 7);
            assert!(h.points().len() <= 7, "read {i}: {}", h.points().len());
            assert!(h.points.capacity() <= 8, "read {i}: {} allocated", h.points.capacity());
        }
        assert_eq!(h.points().iter().map(|p| p.samples).sum::<u32>(), 100);
        let s = h.stats().unwrap();
        assert_eq!((s.min, s.max, s.below_share), (0.1, 0.9, 0.5));
        assert!((s.mean - 0.5).abs() < 1e-9, "{}", s.mean);
    }

    #[test]
    fn a_ring_whose_share_shrinks_gives_its_room_back() {
        let mut h = History::default();
        for i in 0..64 {
            h.record_within(start() + TimeDelta::seconds(i), 0.5, 63);
        }
        assert_eq!(h.points.capacity(), 64);
        h.record_within(start() + TimeDelta::seconds(64), 0.5, 7);
        assert_eq!(h.points().len(), 7);
        assert!(h.points.capacity() <= 8, "{}", h.points.capacity());
        assert_eq!(h.points().iter().map(|p| p.samples).sum::<u32>(), 65);
    }

    #[test]
    fn the_summary_says_min_avg_max_and_time_under_20_percent() {
        let mut h = History::default();
        for share in [0.1, 0.5, 0.9, 0.5] {
            h.record(start(), share);
        }
        assert_eq!(h.stats().unwrap().summary(), "min 10 % · avg 50 % · max 90 % · under 20 % 25 % of the time");
    }

    #[test]
    fn the_sparkline_spans_the_width_with_full_use_at_the_top() {
        let mut h = History::default();
        h.record(start(), 1.0);
        h.record(start() + TimeDelta::minutes(30), 0.5);
        h.record(start() + TimeDelta::minutes(60), 0.0);
        assert_eq!(
            sparkline(h.points(), start(), start() + TimeDelta::minutes(60), 120.0, 24.0),
            "0.0,0.0 60.0,12.0 120.0,24.0"
        );
    }
}
