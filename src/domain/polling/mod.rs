//! When to poll `/nodes` next (CONTRACT.md): every 5 s by default and never below 3 s, the
//! next request scheduled after the previous one ends; after a failure wait `retry-after`,
//! else `max(2^failures s, the interval)` capped at 60 s, less a random part of up to a
//! quarter ([`JITTER_FRACTION`]); paused while the tab is hidden; stopped after 30 minutes
//! without user activity. Pure: the caller owns timers and randomness.
//!
//! The documented client strategy says "plus random jitter". The jitter here is taken off,
//! not added: so the 60 s cap holds, and clients that reached the cap together still spread
//! out instead of all waiting exactly 60 s.

pub mod fleet;
pub mod tab_share;

use std::time::Duration;

pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);
pub const MIN_INTERVAL: Duration = Duration::from_secs(3);
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);
pub const IDLE_STOP: Duration = Duration::from_secs(30 * 60);
/// The longest wait a `retry-after` is obeyed for. Past it the console tries again anyway
/// (and says so): a server asking for hours or years, or a date in 2100, must not stop the
/// page without a word. Ten minutes is longer than any documented wait (the rate limit's
/// window is one minute).
pub const MAX_SERVER_WAIT: Duration = Duration::from_secs(10 * 60);
/// A backoff delay is shortened by up to this fraction, at random, so that many clients
/// that failed together do not retry together.
pub const JITTER_FRACTION: f64 = 0.25;
/// The shortest test interval `?poll_ms=` may ask for, even on loopback: a typo such as
/// `poll_ms=1` must not turn the page into a request loop against the simulator.
pub const MIN_TEST_INTERVAL: Duration = Duration::from_millis(100);

/// How often to poll while all is well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    every: Duration,
    floor: Duration,
}

impl Default for Interval {
    fn default() -> Self {
        Interval { every: DEFAULT_INTERVAL, floor: MIN_INTERVAL }
    }
}

impl Interval {
    /// A user-chosen interval, never below [`MIN_INTERVAL`].
    pub fn every(every: Duration) -> Self {
        Interval { every: every.max(MIN_INTERVAL), floor: MIN_INTERVAL }
    }

    /// The interval for a page at `host`, honouring a test-only `?poll_ms=` value only
    /// when the console is served from a loopback host (the simulator, end-to-end tests),
    /// and never below [`MIN_TEST_INTERVAL`].
    pub fn for_page(poll_ms: Option<&str>, host: &str) -> Self {
        match poll_ms.and_then(|v| v.trim().parse::<u64>().ok()) {
            Some(ms) if ms > 0 && is_loopback(host) => {
                let every = Duration::from_millis(ms).max(MIN_TEST_INTERVAL);
                Interval { every, floor: every.min(MIN_INTERVAL) }
            }
            _ => Interval::default(),
        }
    }

    pub fn get(&self) -> Duration {
        self.every
    }

    /// This interval lengthened to at least `every` (a rate budget), its floor kept.
    pub fn at_least(self, every: Duration) -> Self {
        Interval { every: self.every.max(every), ..self }
    }
}

/// `localhost`, `127.x.x.x` or `[::1]`, with or without a port.
fn is_loopback(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    name.eq_ignore_ascii_case("localhost")
        || name == "::1"
        || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether anyone is looking, as a reader observed it: the tab's visibility and the user's
/// latest activity. Instants are milliseconds on any one clock (`performance.now()`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seen {
    pub now_ms: f64,
    pub last_activity_ms: f64,
    pub visible: bool,
}

impl Seen {
    /// No user activity for [`IDLE_STOP`]: every reader stops until the user is back.
    pub fn idle(&self) -> bool {
        self.now_ms - self.last_activity_ms >= IDLE_STOP.as_millis() as f64
    }
}

/// Everything the schedule depends on, as the caller observed it when the last request
/// ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PollState {
    pub seen: Seen,
    /// Failed requests since the last success (0 after a success).
    pub consecutive_failures: u32,
    /// The last failure's `retry-after`, if it sent one.
    pub retry_after: Option<Duration>,
    pub interval: Interval,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// No user activity for [`IDLE_STOP`]: offer to resume.
    Idle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PollDecision {
    Wait(Duration),
    Stop(StopReason),
    /// The tab is hidden: poll when it shows again, but no sooner than this after the request
    /// that just ended (a request ending while hidden must not skip the floor, the backoff or
    /// `retry-after`).
    WaitForVisible(Duration),
}

/// The next step. `random` is uniform in `[0, 1)` (values outside are clamped).
pub fn next_delay(state: &PollState, random: f64) -> PollDecision {
    let delay = if state.consecutive_failures == 0 {
        state.interval.every
    } else if let Some(wait) = state.retry_after {
        server_wait(wait)
    } else {
        jittered(backoff(state.consecutive_failures, state.interval.every), random)
    };
    let delay = delay.max(state.interval.floor);
    if !state.seen.visible {
        return PollDecision::WaitForVisible(delay);
    }
    if state.seen.idle() {
        return PollDecision::Stop(StopReason::Idle);
    }
    PollDecision::Wait(delay)
}

/// When a paced reader's next request may start, the previous one having ended at
/// `ended_ms`: `gap` after it, or after the `retry-after` it was sent (obeyed as
/// [`server_wait`] says) when that is longer. One request in flight, never a burst.
pub fn next_start_ms(ended_ms: f64, gap: Duration, retry_after: Option<Duration>) -> f64 {
    let wait = retry_after.map_or(gap, |asked| server_wait(asked).max(gap));
    ended_ms + wait.as_secs_f64() * 1000.0
}

/// The live status's words for a retry: the attempt that failed and, when the server sent a
/// `retry-after`, what it asked for and when the next try is (`next_at`, a time of day), with
/// the cap said when the console will not wait that long.
pub fn retry_words(failures: u32, wait: Duration, asked: Option<Duration>, next_at: &str) -> String {
    match asked {
        Some(asked) if asked > MAX_SERVER_WAIT => format!(
            "attempt {failures} failed; the server asked to wait {}; next try at {next_at} \
             (the console waits {} at most)",
            duration_words(asked),
            duration_words(MAX_SERVER_WAIT)
        ),
        Some(asked) => {
            format!(
                "attempt {failures} failed; the server asked to wait {}; next try at {next_at}",
                duration_words(asked)
            )
        }
        None => format!("attempt {failures} failed, next in {}", duration_words(wait.max(Duration::from_secs(1)))),
    }
}

/// "9 s", "10 min", "3 h", "11,574 days": the largest unit that keeps a whole number above 1.
fn duration_words(d: Duration) -> String {
    let secs = d.as_secs();
    match secs {
        0..120 => format!("{secs} s"),
        120..7_200 => format!("{} min", secs / 60),
        7_200..172_800 => format!("{} h", secs / 3_600),
        _ => crate::domain::words::count(secs / 86_400, "day"),
    }
}

/// How long a `retry-after` is obeyed: as sent, up to [`MAX_SERVER_WAIT`]. The one rule for
/// every reader (the live loop, the overview, the list's placement reads).
pub fn server_wait(retry_after: Duration) -> Duration {
    retry_after.min(MAX_SERVER_WAIT)
}

/// The time from `now_ms` to `due_ms` (milliseconds on one clock) as a timer's wait: total
/// for any input, never negative, never longer than [`MAX_SERVER_WAIT`] (a clock that jumps
/// or a NaN from a broken `performance.now()` cannot throw or panic in the conversion).
pub fn wait_until(due_ms: f64, now_ms: f64) -> Duration {
    millis(due_ms - now_ms).min(MAX_SERVER_WAIT)
}

/// Milliseconds as a `Duration`, total: NaN and negative are zero, too large saturates
/// (`Duration::from_secs_f64` panics on all three).
pub fn millis(ms: f64) -> Duration {
    if ms.is_nan() || ms <= 0.0 {
        return Duration::ZERO;
    }
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::MAX)
}

/// 2^failures s, never shorter than the normal interval, capped at [`MAX_BACKOFF`].
fn backoff(failures: u32, interval: Duration) -> Duration {
    let exponential = Duration::from_secs(1u64.checked_shl(failures.min(32)).unwrap_or(u64::MAX));
    exponential.max(interval).min(MAX_BACKOFF)
}

/// `base` shortened by up to [`JITTER_FRACTION`], so the cap is never exceeded.
fn jittered(base: Duration, random: f64) -> Duration {
    let r = if random.is_finite() { random.clamp(0.0, 1.0) } else { 0.0 };
    base.mul_f64(1.0 - JITTER_FRACTION * r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE_MS: f64 = 60_000.0;

    fn ok_state() -> PollState {
        PollState {
            seen: Seen { now_ms: 10.0 * MINUTE_MS, last_activity_ms: 10.0 * MINUTE_MS, visible: true },
            consecutive_failures: 0,
            retry_after: None,
            interval: Interval::default(),
        }
    }

    fn failing(failures: u32) -> PollState {
        PollState { consecutive_failures: failures, ..ok_state() }
    }

    fn hidden(state: PollState) -> PollState {
        PollState { seen: Seen { visible: false, ..state.seen }, ..state }
    }

    fn wait(state: &PollState, random: f64) -> Duration {
        match next_delay(state, random) {
            PollDecision::Wait(d) => d,
            other => panic!("expected a wait, got {other:?}"),
        }
    }

    #[test]
    fn polls_every_five_seconds_while_all_is_well() {
        assert_eq!(wait(&ok_state(), 0.9), Duration::from_secs(5));
    }

    #[test]
    fn backoff_doubles_per_failure_from_the_normal_interval_up_to_the_cap() {
        let delays: Vec<u64> = (1..=8).map(|f| wait(&failing(f), 0.0).as_secs()).collect();
        assert_eq!(delays, [5, 5, 8, 16, 32, 60, 60, 60]);
        assert_eq!(wait(&failing(u32::MAX), 0.0), MAX_BACKOFF);
    }

    #[test]
    fn jitter_only_shortens_within_its_fraction_and_never_breaks_cap_or_floor() {
        for failures in 1..=10 {
            let base = wait(&failing(failures), 0.0);
            for random in [0.0, 0.25, 0.5, 0.999_999, 1.0, -3.0, 7.0, f64::NAN] {
                let d = wait(&failing(failures), random);
                assert!(d <= base && d <= MAX_BACKOFF, "{failures} {random} {d:?}");
                assert!(d >= base.mul_f64(1.0 - JITTER_FRACTION) && d >= MIN_INTERVAL, "{failures} {random} {d:?}");
            }
        }
        assert_eq!(wait(&failing(6), 0.5), Duration::from_millis(52_500));
        // Taken off, never added: at the cap the waits still spread, from 45 s to 60 s.
        assert_eq!(wait(&failing(20), 1.0), MAX_BACKOFF.mul_f64(1.0 - JITTER_FRACTION));
        assert_eq!(wait(&failing(20), 0.0), MAX_BACKOFF);
    }

    #[test]
    fn retry_after_is_waited_as_sent_instead_of_the_backoff() {
        let state = PollState { retry_after: Some(Duration::from_secs(42)), ..failing(1) };
        assert_eq!(wait(&state, 0.7), Duration::from_secs(42));
        let state = PollState { retry_after: Some(Duration::from_secs(120)), ..failing(7) };
        assert_eq!(wait(&state, 0.7), Duration::from_secs(120), "the server's word beats the backoff's cap");
    }

    #[test]
    fn a_retry_after_of_any_size_is_obeyed_up_to_ten_minutes() {
        for asked in [Duration::from_secs(601), Duration::from_secs(1_000_000_000), Duration::MAX] {
            let state = PollState { retry_after: Some(asked), ..failing(1) };
            assert_eq!(wait(&state, 0.0), MAX_SERVER_WAIT, "{asked:?}");
        }
        let now = chrono::DateTime::parse_from_rfc3339("2026-12-02T14:05:00Z").unwrap().to_utc();
        let in_2100 = crate::api::error::parse_retry_after("Fri, 01 Jan 2100 00:00:00 GMT", now);
        assert_eq!(wait(&PollState { retry_after: in_2100, ..failing(1) }, 0.0), MAX_SERVER_WAIT);
    }

    #[test]
    fn a_retry_says_what_the_server_asked_for_and_when_the_next_try_is() {
        assert_eq!(retry_words(2, Duration::from_millis(3_400), None, "14:05:09"), "attempt 2 failed, next in 3 s");
        assert_eq!(
            retry_words(1, Duration::from_secs(9), Some(Duration::from_secs(9)), "14:05:15"),
            "attempt 1 failed; the server asked to wait 9 s; next try at 14:05:15"
        );
        assert_eq!(
            retry_words(1, MAX_SERVER_WAIT, Some(Duration::from_secs(1_000_000_000)), "14:15:06"),
            "attempt 1 failed; the server asked to wait 11,574 days; next try at 14:15:06 (the console waits 10 min at most)"
        );
        assert_eq!(
            retry_words(3, MAX_SERVER_WAIT, Some(Duration::from_secs(3_600)), "15:05:06"),
            "attempt 3 failed; the server asked to wait 60 min; next try at 15:05:06 (the console waits 10 min at most)"
        );
    }

    #[test]
    fn a_timer_wait_is_total_for_any_clock_reading() {
        assert_eq!(wait_until(1_500.0, 1_000.0), Duration::from_millis(500));
        assert_eq!(wait_until(1_000.0, 1_500.0), Duration::ZERO, "already due");
        for (due, now) in
            [(f64::NAN, 0.0), (0.0, f64::NAN), (f64::INFINITY, 0.0), (1e300, -1e300), (0.0, f64::NEG_INFINITY)]
        {
            let wait = wait_until(due, now);
            assert!(wait <= MAX_SERVER_WAIT, "{due} {now}: {wait:?}");
        }
        assert_eq!(wait_until(f64::INFINITY, 0.0), MAX_SERVER_WAIT);
        assert_eq!(millis(f64::INFINITY), Duration::MAX);
        assert_eq!((millis(f64::NAN), millis(-5.0)), (Duration::ZERO, Duration::ZERO));
    }

    #[test]
    fn retry_after_from_an_http_date_is_used_the_same_way() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-12-02T14:05:00Z").unwrap().to_utc();
        let retry_after = crate::api::error::parse_retry_after("Wed, 02 Dec 2026 14:05:20 GMT", now);
        let state = PollState { retry_after, ..failing(2) };
        assert_eq!(wait(&state, 0.0), Duration::from_secs(20));
    }

    #[test]
    fn nothing_is_ever_scheduled_below_three_seconds() {
        let state = PollState { retry_after: Some(Duration::ZERO), ..failing(1) };
        assert_eq!(wait(&state, 0.0), MIN_INTERVAL);
        let state = PollState { interval: Interval::every(Duration::from_millis(500)), ..ok_state() };
        assert_eq!(wait(&state, 0.0), MIN_INTERVAL);
    }

    #[test]
    fn a_hidden_tab_waits_until_it_shows_again_and_keeps_the_schedule_meanwhile() {
        let state = hidden(ok_state());
        assert_eq!(next_delay(&state, 0.5), PollDecision::WaitForVisible(DEFAULT_INTERVAL));
        let backing_off = hidden(failing(4));
        assert_eq!(next_delay(&backing_off, 0.0), PollDecision::WaitForVisible(Duration::from_secs(16)));
        let told_to_wait = hidden(PollState { retry_after: Some(Duration::from_secs(90)), ..failing(1) });
        assert_eq!(next_delay(&told_to_wait, 0.0), PollDecision::WaitForVisible(Duration::from_secs(90)));
    }

    #[test]
    fn thirty_minutes_without_activity_stops_polling() {
        let active_at = |ms: f64| PollState { seen: Seen { last_activity_ms: ms, ..ok_state().seen }, ..ok_state() };
        let almost = active_at(ok_state().seen.now_ms - 30.0 * MINUTE_MS + 1.0);
        assert_eq!(wait(&almost, 0.0), DEFAULT_INTERVAL);
        let idle = active_at(ok_state().seen.now_ms - 30.0 * MINUTE_MS);
        assert_eq!(next_delay(&idle, 0.0), PollDecision::Stop(StopReason::Idle));
    }

    #[test]
    fn a_paced_reader_starts_a_gap_after_the_previous_request_or_after_its_retry_after_when_longer() {
        let gap = Duration::from_millis(600);
        assert_eq!(next_start_ms(1_000.0, gap, None), 1_600.0);
        assert_eq!(next_start_ms(1_000.0, gap, Some(Duration::from_secs(2))), 3_000.0);
        assert_eq!(next_start_ms(1_000.0, gap, Some(Duration::ZERO)), 1_600.0, "never sooner than the gap");
        let capped = next_start_ms(0.0, gap, Some(Duration::MAX));
        assert_eq!(capped, MAX_SERVER_WAIT.as_secs_f64() * 1000.0, "a retry-after is obeyed up to ten minutes");
    }

    #[test]
    fn a_test_interval_is_honoured_only_on_loopback_hosts() {
        let fast = Interval::for_page(Some("150"), "127.0.0.1:8080");
        assert_eq!(fast.get(), Duration::from_millis(150));
        let state = PollState { interval: fast, retry_after: Some(Duration::ZERO), ..failing(1) };
        assert_eq!(wait(&state, 0.0), Duration::from_millis(150));
        for host in ["localhost:8080", "[::1]:8080", "127.1.2.3", "LOCALHOST"] {
            assert_eq!(Interval::for_page(Some("150"), host).get(), Duration::from_millis(150), "{host}");
        }
        for host in ["console.ecohash.com", "10.0.0.5:8080", "localhost.evil.com", "127.0.0.1.nip.io"] {
            assert_eq!(Interval::for_page(Some("150"), host), Interval::default(), "{host}");
        }
        assert_eq!(Interval::for_page(Some("0"), "localhost"), Interval::default());
        assert_eq!(Interval::for_page(Some("fast"), "localhost"), Interval::default());
        assert_eq!(Interval::for_page(None, "localhost"), Interval::default());
    }

    #[test]
    fn a_test_interval_has_a_floor_of_a_hundred_milliseconds_even_on_loopback() {
        for ms in ["1", "20", "99"] {
            let fast = Interval::for_page(Some(ms), "localhost");
            assert_eq!(fast.get(), MIN_TEST_INTERVAL, "{ms}");
            let state = PollState { interval: fast, retry_after: Some(Duration::ZERO), ..failing(1) };
            assert_eq!(wait(&state, 0.0), MIN_TEST_INTERVAL, "{ms}: nor below it after a failure");
        }
        assert_eq!(Interval::for_page(Some("100"), "localhost").get(), MIN_TEST_INTERVAL);
    }
}
