//! How the tabs of one browser share a key's 200 requests a minute (CONTRACT.md): each
//! tab announces itself to the others every [`ANNOUNCE_EVERY`], counts those it heard from
//! lately, and sends at most its equal share in any minute. The limit is each key's own, so
//! the tabs meet on one channel per key ([`channel_for`]): tabs of the same key share its
//! budget, tabs (or accounts of one tab) holding different keys do not.
//! Pure: the browser's channel and clock are the caller's.

use crate::domain::polling::fleet::KEY_LIMIT_PER_MINUTE;
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

/// How often a tab says it is there.
pub const ANNOUNCE_EVERY: Duration = Duration::from_secs(2);

/// A tab not heard from for this long is gone (closed, or its timers held by the browser
/// while hidden, when it reads nothing anyway).
pub const GONE_AFTER: Duration = Duration::from_secs(7);

/// The window the key's limit counts over.
const MINUTE_MS: f64 = 60_000.0;

/// What every key's channel name starts with.
const CHANNEL_PREFIX: &str = "reservations-console.tabs.";

/// The `BroadcastChannel` the console's tabs holding `key` meet on: the prefix and a
/// 32-bit FNV-1a digest of the key, in hex. A digest and not the key: a channel's name is
/// readable by any script of the origin and shows in the browser's tools, and the key never
/// leaves memory unless the user keeps it. 32 bits name a key without giving it away (each
/// digest stands for countless keys); two keys that happen to share one only share a
/// budget, the safe side of the limit. FNV and not std's `DefaultHasher`: its output is
/// fixed by definition, so two builds of the console (an old tab, a new one) still meet.
pub fn channel_for(key: &str) -> String {
    let digest = key
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3));
    format!("{CHANNEL_PREFIX}{:08x}", (digest ^ (digest >> 32)) as u32)
}

/// The least a tab may send a minute, however many tabs it hears of. Any script of the
/// origin can post to the channel: 300 made-up tabs saying "here" would otherwise hold every
/// real tab to one request a minute. 20 keeps a Nodes page's 5 s poll (12) and a few reads;
/// more than ten real tabs then ask more than the key's 200 together, and the 429s that
/// follow are waited out like any other.
pub const SHARE_FLOOR_PER_MINUTE: u32 = 20;

/// The most other tabs remembered. Past ten a tab's share is at its floor anyway, so more
/// only takes memory: made-up ids beyond this push out those heard longest ago.
const REMEMBERED: usize = 64;

/// The other tabs heard from, with when each was last heard (ms on one clock): at most
/// [`REMEMBERED`], none gone for longer than [`GONE_AFTER`] once another is heard.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tabs {
    others: BTreeMap<u64, f64>,
}

/// Whether a tab last heard at `heard` still counts at `now_ms`.
fn alive(heard: f64, now_ms: f64) -> bool {
    now_ms - heard <= GONE_AFTER.as_secs_f64() * 1000.0
}

impl Tabs {
    pub fn heard(&mut self, tab: u64, now_ms: f64) {
        self.others.retain(|_, heard| alive(*heard, now_ms));
        if self.others.len() >= REMEMBERED && !self.others.contains_key(&tab) {
            let oldest = self.others.iter().min_by(|a, b| a.1.total_cmp(b.1)).map(|(id, _)| *id);
            if let Some(id) = oldest {
                self.others.remove(&id);
            }
        }
        self.others.insert(tab, now_ms);
    }

    /// The tab said it is leaving (its page was closed or reloaded).
    pub fn left(&mut self, tab: u64) {
        self.others.remove(&tab);
    }

    /// This tab and the others heard from within [`GONE_AFTER`].
    pub fn count(&self, now_ms: f64) -> u32 {
        let alive = self.others.values().filter(|heard| alive(**heard, now_ms)).count();
        u32::try_from(alive).unwrap_or(u32::MAX).saturating_add(1)
    }
}

/// Each of `tabs` tabs' requests a minute: an equal share, rounded down so that the shares
/// of up to ten tabs never add up to more than the key's limit; never below
/// [`SHARE_FLOOR_PER_MINUTE`].
pub fn share_per_minute(tabs: u32) -> u32 {
    (KEY_LIMIT_PER_MINUTE / tabs.max(1)).max(SHARE_FLOOR_PER_MINUTE)
}

/// When this tab's requests started over the last minute, or are booked to start, and
/// until when the key is held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Budget {
    starts: VecDeque<f64>,
    /// No request is booked to start before this: a 429 of the key asked to wait until then.
    held_until_ms: f64,
}

impl Budget {
    /// Books the next request at `now_ms` or later, so that no minute holds more than
    /// `per_minute` of this tab's requests; returns how long it waits.
    pub fn book(&mut self, now_ms: f64, per_minute: u32) -> Duration {
        let earliest = now_ms.max(self.held_until_ms);
        while self.starts.front().is_some_and(|start| now_ms - start >= MINUTE_MS) {
            self.starts.pop_front();
        }
        let allowed = usize::try_from(per_minute.max(1)).unwrap_or(usize::MAX);
        // The request `allowed` places back must be a minute old when this one starts.
        let at = match self.starts.len().checked_sub(allowed) {
            Some(back) => (self.starts[back] + MINUTE_MS).max(earliest),
            None => earliest,
        };
        let at = self.starts.back().map_or(at, |last| at.max(*last));
        self.starts.push_back(at);
        Duration::from_secs_f64((at - now_ms) / 1000.0)
    }

    /// Books no request to start before `until_ms`: a 429 answered to the key asked to wait
    /// (its `retry-after`). The key's, and so this budget's alone: another key's is not held.
    pub fn hold(&mut self, until_ms: f64) {
        self.held_until_ms = self.held_until_ms.max(until_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_has_its_own_channel_named_by_a_digest_never_by_the_key() {
        let key = "eco_live_0123456789abcdef";
        let channel = channel_for(key);
        assert_eq!(channel, channel_for(key), "the tabs of one key meet");
        assert_ne!(channel, channel_for("eco_live_0123456789abcdeg"), "another key, another budget");
        assert!(!channel.contains(key) && !channel.contains("0123456789"), "{channel}");
        assert_eq!(channel.len(), CHANNEL_PREFIX.len() + 8, "{channel}");
        // FNV-1a is fixed by definition: consoles of two builds meet on the same name.
        assert_eq!(channel_for(""), format!("{CHANNEL_PREFIX}{:08x}", 0xcbf2_9ce4_u32 ^ 0x8422_2325));
    }

    #[test]
    fn two_tabs_take_half_the_key_limit_each_and_a_tab_gone_gives_its_share_back() {
        let mut tabs = Tabs::default();
        assert_eq!(share_per_minute(tabs.count(0.0)), 200, "alone, the whole limit");
        tabs.heard(7, 0.0);
        assert_eq!((tabs.count(1_000.0), share_per_minute(tabs.count(1_000.0))), (2, 100));
        tabs.heard(9, 1_000.0);
        assert_eq!(share_per_minute(tabs.count(1_000.0)), 66, "three shares stay within 200");
        assert_eq!(tabs.count(1_000.0 + GONE_AFTER.as_secs_f64() * 1000.0 + 1.0), 1, "not heard from: gone");
        tabs.left(9);
        assert_eq!(tabs.count(2_000.0), 2);
        assert_eq!(share_per_minute(u32::MAX), SHARE_FLOOR_PER_MINUTE, "never below the floor");
    }

    /// Any script of the origin can post to the channel: 300 made-up tabs saying "here"
    /// every 2 s must not hold a real tab below a floor.
    #[test]
    fn a_flood_of_made_up_tabs_leaves_each_tab_at_least_its_floor() {
        let mut tabs = Tabs::default();
        for tick in 0..30u32 {
            let now = f64::from(tick) * 2_000.0;
            for id in 0..300 {
                tabs.heard(id, now);
            }
            let share = share_per_minute(tabs.count(now));
            assert!(share >= SHARE_FLOOR_PER_MINUTE, "at {now} ms: {share}");
        }
    }

    #[test]
    fn ids_not_heard_from_expire_and_random_ids_keep_memory_bounded() {
        let mut tabs = Tabs::default();
        for id in 0..1_000 {
            tabs.heard(id, 0.0);
        }
        assert!(tabs.others.len() <= REMEMBERED, "{} ids kept at once", tabs.others.len());
        let later = GONE_AFTER.as_secs_f64() * 1000.0 + 1.0;
        tabs.heard(5_000, later);
        assert_eq!(tabs.others.len(), 1, "the ids gone are forgotten");
        // Fresh random ids every 2 s for an hour: what is kept stays bounded.
        let mut most = 0;
        for tick in 0..1_800u64 {
            for i in 0..300 {
                tabs.heard(tick * 1_000 + i, tick as f64 * 2_000.0);
            }
            most = most.max(tabs.others.len());
        }
        assert!(most <= REMEMBERED, "{most} ids kept");
    }

    #[test]
    fn a_tab_sends_its_share_then_waits_for_the_oldest_to_be_a_minute_old() {
        let mut budget = Budget::default();
        for i in 0..100 {
            assert_eq!(budget.book(f64::from(i) * 10.0, 100), Duration::ZERO, "request {i} is within the share");
        }
        assert_eq!(budget.book(1_000.0, 100), Duration::from_secs(59), "the first started at 0 ms");
        assert_eq!(budget.book(1_000.0, 100), Duration::from_secs_f64(59.01), "booked after the one before");
    }

    #[test]
    fn a_held_budget_books_nothing_before_the_hold_ends_and_a_shorter_hold_does_not_shorten_it() {
        let mut budget = Budget::default();
        assert_eq!(budget.book(0.0, 100), Duration::ZERO);
        budget.hold(2_000.0);
        budget.hold(1_000.0);
        assert_eq!(budget.book(500.0, 100), Duration::from_millis(1_500), "waits out the hold");
        assert_eq!(budget.book(2_500.0, 100), Duration::ZERO, "after it, at once again");
        assert_eq!(Budget::default().book(500.0, 100), Duration::ZERO, "another budget is not held");
    }

    /// Two tabs sending as fast as their shares let them for five minutes: in no minute does
    /// the key get more than its 200.
    #[test]
    fn two_tabs_at_full_speed_never_exceed_the_key_limit_in_any_minute() {
        let (mut a, mut b) = (Budget::default(), Budget::default());
        let mut sent = Vec::new();
        for tick in 0..3_000u32 {
            let now = f64::from(tick) * 100.0;
            for budget in [&mut a, &mut b] {
                let wait = budget.book(now, share_per_minute(2));
                sent.push(now + wait.as_secs_f64() * 1000.0);
            }
        }
        sent.sort_by(f64::total_cmp);
        let started_by = |end: f64| sent.partition_point(|s| *s <= end);
        let busiest = sent.iter().map(|s| started_by(s + MINUTE_MS - 1.0) - started_by(s - 1.0)).max();
        assert_eq!(busiest, Some(200));
    }
}
