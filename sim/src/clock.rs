//! The simulated clock: real time running on from a chosen start, which tests move forward,
//! freeze or set, so that placement ("what runs where") is reproducible.

use chrono::{DateTime, Datelike, TimeDelta, TimeZone, Utc};
use std::time::{Duration, Instant};

pub struct Clock {
    /// Simulated instant at `anchor_real` (or the frozen instant).
    anchor_sim: DateTime<Utc>,
    anchor_real: Instant,
    frozen: bool,
}

impl Clock {
    pub fn new(start: DateTime<Utc>) -> Self {
        Clock { anchor_sim: start, anchor_real: Instant::now(), frozen: false }
    }

    pub fn now(&self) -> DateTime<Utc> {
        if self.frozen {
            return self.anchor_sim;
        }
        let elapsed = TimeDelta::from_std(self.anchor_real.elapsed()).unwrap_or(TimeDelta::zero());
        self.anchor_sim + elapsed
    }

    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    pub fn advance(&mut self, by: TimeDelta) {
        self.anchor_sim = self.anchor_sim.checked_add_signed(by).unwrap_or(self.anchor_sim);
    }

    pub fn freeze(&mut self, frozen: bool) {
        self.set(self.now());
        self.frozen = frozen;
    }

    pub fn set(&mut self, at: DateTime<Utc>) {
        self.anchor_sim = at;
        self.anchor_real = Instant::now();
    }
}

/// Index of the placement tick `at` falls in: placement changes only from one tick to the next.
pub fn tick(at: DateTime<Utc>, tick_len: Duration) -> i64 {
    let len = i64::try_from(tick_len.as_millis()).unwrap_or(i64::MAX).max(1);
    at.timestamp_millis().div_euclid(len)
}

/// Midnight UTC of the first of `at`'s month: the base every demo date is laid out from.
pub fn month_start(at: DateTime<Utc>) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(at.year(), at.month(), 1, 0, 0, 0).single().unwrap_or(at)
}

/// `at` moved by whole calendar months (negative = back).
pub fn add_months(at: DateTime<Utc>, months: i32) -> DateTime<Utc> {
    let step = chrono::Months::new(months.unsigned_abs());
    let moved = if months >= 0 { at.checked_add_months(step) } else { at.checked_sub_months(step) };
    moved.unwrap_or(at)
}
