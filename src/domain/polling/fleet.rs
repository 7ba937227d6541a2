//! When the overview reads which reservation's `/nodes`: one request in flight for the whole
//! page, spaced so that the page uses at most half of the key's 200 requests/minute
//! (CONTRACT.md) whatever the number of reservations, each reservation refreshed no more often
//! than the live loop polls, and backing off per reservation exactly as the live loop does
//! ([`polling::next_delay`]). Pure: the page owns timers, the clock and randomness.

use crate::domain::polling::{self, Interval, PollDecision, PollState, Seen, StopReason};
use std::time::Duration;

/// CONTRACT.md: requests per minute per key.
pub const KEY_LIMIT_PER_MINUTE: u32 = 200;
/// The overview's share, leaving the rest to the other tabs and pages of the same key.
pub const OVERVIEW_PER_MINUTE: u32 = KEY_LIMIT_PER_MINUTE / 2;

/// The least time between two requests of the page: 60 s / 100 = 600 ms.
pub fn request_gap() -> Duration {
    Duration::from_secs(60) / OVERVIEW_PER_MINUTE
}

/// How often each of `n` reservations is refreshed: every `base` (the live loop's 5 s), or
/// slower when `n` requests at the page's rate take longer than that.
pub fn refresh_interval(n: usize, base: Interval) -> Interval {
    base.at_least(request_gap() * u32::try_from(n).unwrap_or(u32::MAX))
}

/// "5 s", "5.4 s", "1 min 30 s": a refresh interval as the page states it.
pub fn every_words(every: Duration) -> String {
    let tenths = every.as_millis().div_ceil(100);
    match tenths {
        t if t < 600 && t % 10 == 0 => format!("{} s", t / 10),
        t if t < 600 => format!("{}.{} s", t / 10, t % 10),
        t => {
            let seconds = t.div_ceil(10);
            match seconds % 60 {
                0 => format!("{} min", seconds / 60),
                s => format!("{} min {s} s", seconds / 60),
            }
        }
    }
}

/// How one read ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    Ok,
    Failed {
        /// The failure's `retry-after`, if it sent one.
        retry_after: Option<Duration>,
        /// A `429`: the limit is the key's, so the whole page waits, not one reservation.
        rate_limited: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Slot {
    /// When its last read ended; `None` before the first.
    ended_ms: Option<f64>,
    last_success_ms: Option<f64>,
    failures: u32,
    retry_after: Option<Duration>,
    /// The random draw for this slot's jitter, taken when its read ended.
    random: f64,
}

/// What to do next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Next {
    /// Read reservation number `index` after `wait`.
    Read {
        index: usize,
        wait: Duration,
    },
    WaitForVisible,
    Stop(StopReason),
    /// Nothing to read.
    Idle,
}

/// The schedule of one overview over `n` reservations (by index in the page's order).
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    slots: Vec<Slot>,
    interval: Interval,
    started_ms: f64,
    /// No request may start before this (the gap after the last one, or a `429`'s wait).
    not_before_ms: f64,
}

impl Schedule {
    pub fn new(n: usize, base: Interval, now_ms: f64) -> Self {
        let slot = Slot { ended_ms: None, last_success_ms: None, failures: 0, retry_after: None, random: 0.0 };
        Schedule {
            slots: vec![slot; n],
            interval: refresh_interval(n, base),
            started_ms: now_ms,
            not_before_ms: now_ms,
        }
    }

    /// The per-reservation refresh interval this page uses (shown to the user).
    pub fn interval(&self) -> Duration {
        self.interval.get()
    }

    /// The reservation due first, and how long to wait for it.
    pub fn next(&self, now: Seen) -> Next {
        let mut best: Option<(usize, f64)> = None;
        for (index, slot) in self.slots.iter().enumerate() {
            let due = match slot.ended_ms {
                None => self.started_ms,
                Some(ended) => {
                    let state = PollState {
                        seen: now,
                        consecutive_failures: slot.failures,
                        retry_after: slot.retry_after,
                        interval: self.interval,
                    };
                    match polling::next_delay(&state, slot.random) {
                        PollDecision::Wait(d) => ended + d.as_secs_f64() * 1000.0,
                        PollDecision::WaitForVisible(_) => return Next::WaitForVisible,
                        PollDecision::Stop(reason) => return Next::Stop(reason),
                    }
                }
            };
            if best.is_none_or(|(_, b)| due < b) {
                best = Some((index, due));
            }
        }
        match best {
            None => Next::Idle,
            Some(_) if !now.visible => Next::WaitForVisible,
            Some((index, due)) => {
                let at = due.max(self.not_before_ms);
                Next::Read { index, wait: polling::wait_until(at, now.now_ms) }
            }
        }
    }

    /// Records that the read of `index` ended at `now_ms`; `random` is uniform in `[0, 1)`.
    pub fn finished(&mut self, index: usize, now_ms: f64, outcome: Outcome, random: f64) {
        // A 429's wait is the key's: it holds every reservation, not only this one.
        let held = match outcome {
            Outcome::Failed { retry_after, rate_limited: true } => retry_after,
            _ => None,
        };
        self.not_before_ms = polling::next_start_ms(now_ms, request_gap(), held);
        let Some(slot) = self.slots.get_mut(index) else { return };
        slot.ended_ms = Some(now_ms);
        slot.random = random;
        match outcome {
            Outcome::Ok => {
                slot.failures = 0;
                slot.retry_after = None;
                slot.last_success_ms = Some(now_ms);
            }
            Outcome::Failed { retry_after, .. } => {
                slot.failures = slot.failures.saturating_add(1);
                slot.retry_after = retry_after;
            }
        }
    }

    /// Counts `index` as read successfully `ago` before `now_ms`, by another page of the
    /// session (its answer is in the store), when that is within the refresh interval: the
    /// first round then reads only the others, and this one when its interval is up. An
    /// older answer changes nothing (it is due at once). Returns whether it counted.
    pub fn read_before(&mut self, index: usize, ago: Duration, now_ms: f64, random: f64) -> bool {
        let Some(slot) = self.slots.get_mut(index).filter(|_| ago <= self.interval.get()) else {
            return false;
        };
        let at = now_ms - ago.as_secs_f64() * 1000.0;
        *slot = Slot { ended_ms: Some(at), last_success_ms: Some(at), failures: 0, retry_after: None, random };
        true
    }

    /// Time since `index` was last read successfully; `None` before its first success.
    pub fn updated_ago(&self, index: usize, now_ms: f64) -> Option<Duration> {
        let at = self.slots.get(index)?.last_success_ms?;
        Some(polling::millis(now_ms - at))
    }

    /// Its figures are older than two refresh intervals (or were never read): shown marked.
    pub fn is_stale(&self, index: usize, now_ms: f64) -> bool {
        self.updated_ago(index, now_ms).is_none_or(|ago| older_than_two_refreshes(ago, self.interval.get()))
    }
}

/// Figures read `ago` on a schedule of `interval` are stale past two refreshes: one late
/// read is pacing, two are a read that is not coming.
pub fn older_than_two_refreshes(ago: Duration, interval: Duration) -> bool {
    ago > interval * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(now_ms: f64) -> Seen {
        Seen { now_ms, last_activity_ms: now_ms, visible: true }
    }

    fn read(next: Next) -> (usize, Duration) {
        match next {
            Next::Read { index, wait } => (index, wait),
            other => panic!("expected a read, got {other:?}"),
        }
    }

    #[test]
    fn the_budget_is_half_the_key_limit_whatever_the_number_of_reservations() {
        assert_eq!(request_gap(), Duration::from_millis(600));
        let base = Interval::default();
        assert_eq!(refresh_interval(1, base).get(), Duration::from_secs(5));
        assert_eq!(refresh_interval(8, base).get(), Duration::from_secs(5));
        assert_eq!(refresh_interval(9, base).get(), Duration::from_millis(5_400));
        assert_eq!(refresh_interval(100, base).get(), Duration::from_secs(60));
        for n in [1usize, 3, 9, 50, 400] {
            let per_minute = n as f64 * 60.0 / refresh_interval(n, base).get().as_secs_f64();
            assert!(per_minute <= OVERVIEW_PER_MINUTE as f64 + 1e-9, "{n}: {per_minute}");
        }
    }

    #[test]
    fn the_interval_is_said_in_seconds_or_minutes() {
        assert_eq!(every_words(Duration::from_secs(5)), "5 s");
        assert_eq!(every_words(Duration::from_millis(5_400)), "5.4 s");
        assert_eq!(every_words(Duration::from_secs(60)), "1 min");
        assert_eq!(every_words(Duration::from_secs(90)), "1 min 30 s");
        assert_eq!(every_words(refresh_interval(250, Interval::default()).get()), "2 min 30 s");
    }

    /// Runs the schedule for a simulated hour with instant answers and counts requests in
    /// every sliding minute: never more than 100, one at a time by construction.
    #[test]
    fn a_simulated_hour_never_exceeds_the_budget_in_any_minute() {
        for n in [1usize, 4, 30, 250] {
            let mut s = Schedule::new(n, Interval::default(), 0.0);
            let (mut t, mut starts) = (0.0, Vec::new());
            while t < 3_600_000.0 {
                let (index, wait) = read(s.next(seen(t)));
                t += wait.as_secs_f64() * 1000.0;
                starts.push(t);
                t += 50.0;
                s.finished(index, t, Outcome::Ok, 0.5);
            }
            let worst = starts.iter().map(|a| starts.iter().filter(|b| **b >= *a && **b < a + 60_000.0).count()).max();
            assert!(worst.unwrap() <= OVERVIEW_PER_MINUTE as usize, "{n}: {worst:?}");
        }
    }

    #[test]
    fn reservations_take_turns_and_each_is_refreshed_at_its_interval() {
        let mut s = Schedule::new(2, Interval::default(), 0.0);
        assert_eq!(read(s.next(seen(0.0))), (0, Duration::ZERO));
        s.finished(0, 100.0, Outcome::Ok, 0.0);
        assert_eq!(read(s.next(seen(100.0))), (1, Duration::from_millis(600)));
        s.finished(1, 800.0, Outcome::Ok, 0.0);
        assert_eq!(read(s.next(seen(800.0))), (0, Duration::from_millis(4_300)));
        assert_eq!(s.updated_ago(1, 3_800.0), Some(Duration::from_secs(3)));
        assert!(!s.is_stale(1, 10_800.0));
        assert!(s.is_stale(1, 10_801.0));
    }

    #[test]
    fn a_reservation_read_within_the_interval_by_another_page_waits_its_turn_and_the_others_go_first() {
        let mut s = Schedule::new(3, Interval::default(), 10_000.0);
        assert!(s.read_before(1, Duration::from_secs(1), 10_000.0, 0.0));
        assert!(!s.read_before(2, Duration::from_millis(5_001), 10_000.0, 0.0), "older than the 5 s interval");
        assert_eq!(s.updated_ago(1, 10_000.0), Some(Duration::from_secs(1)));
        assert_eq!(read(s.next(seen(10_000.0))), (0, Duration::ZERO));
        s.finished(0, 10_100.0, Outcome::Ok, 0.0);
        assert_eq!(read(s.next(seen(10_100.0))), (2, Duration::from_millis(600)), "back to back at the gap");
        s.finished(2, 10_800.0, Outcome::Ok, 0.0);
        assert_eq!(read(s.next(seen(10_800.0))), (1, Duration::from_millis(3_200)), "5 s after it was read");
    }

    #[test]
    fn a_failing_reservation_backs_off_like_the_live_loop_and_is_marked_stale() {
        let mut s = Schedule::new(2, Interval::default(), 0.0);
        assert!(s.is_stale(0, 0.0), "never read");
        let failed = Outcome::Failed { retry_after: None, rate_limited: false };
        for _ in 0..4 {
            s.finished(0, 0.0, failed, 0.0);
        }
        s.finished(1, 0.0, Outcome::Ok, 0.0);
        assert_eq!(read(s.next(seen(0.0))), (1, Duration::from_secs(5)));
        s.finished(1, 5_000.0, Outcome::Ok, 0.0);
        assert_eq!(read(s.next(seen(5_000.0))), (1, Duration::from_secs(5)), "slot 0 waits 16 s");
        s.finished(1, 10_000.0, Outcome::Ok, 0.0);
        s.finished(1, 15_000.0, Outcome::Ok, 0.0);
        assert_eq!(read(s.next(seen(15_000.0))), (0, Duration::from_secs(1)));
    }

    #[test]
    fn a_429_holds_the_whole_page_for_its_retry_after() {
        let mut s = Schedule::new(3, Interval::default(), 0.0);
        let limited = Outcome::Failed { retry_after: Some(Duration::from_secs(20)), rate_limited: true };
        s.finished(0, 0.0, limited, 0.0);
        let (index, wait) = read(s.next(seen(0.0)));
        assert_ne!(index, 0);
        assert_eq!(wait, Duration::from_secs(20));
    }

    #[test]
    fn hidden_or_idle_pauses_like_the_live_loop() {
        let mut s = Schedule::new(1, Interval::default(), 0.0);
        assert_eq!(s.next(Seen { visible: false, ..seen(0.0) }), Next::WaitForVisible);
        s.finished(0, 0.0, Outcome::Ok, 0.0);
        let idle = Seen { now_ms: 31.0 * 60_000.0, last_activity_ms: 0.0, visible: true };
        assert_eq!(s.next(idle), Next::Stop(StopReason::Idle));
        assert_eq!(Schedule::new(0, Interval::default(), 0.0).next(seen(0.0)), Next::Idle);
    }
}
