//! How times read. Billing periods start at midnight UTC, so their dates are shown in UTC
//! (no time zone shows the previous day); other times in the chosen zone with the UTC value
//! on hover. Relative phrases round down: a deadline is never shown further away than it is.

use crate::api::enums::ReservationStatus;
use crate::api::models::{Reservation, Timestamp};
use crate::api::timestamp::MONTHS;
use chrono::{DateTime, Datelike, FixedOffset, Months, TimeDelta, Timelike};

/// The zone times are shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zone {
    /// A fixed offset from UTC (tests, or a user's explicit choice).
    Local(FixedOffset),
    /// The browser's own zone, with the offset each date has (summer time included).
    /// Not in the agreed interface: a single offset would be an hour off for dates in the
    /// other season.
    System,
    Utc,
}

/// `2 Dec 2026, 15:05 GMT+1` in the zone, which it always names (`UTC` when the zone is
/// UTC): a local time shown beside billing dates headed "(UTC)" must not pass for UTC.
pub fn format_time(t: Timestamp, zone: Zone) -> String {
    let (t, name) = in_zone(t, zone);
    format!("{}, {:02}:{:02} {name}", day_month_year(&t), t.hour(), t.minute())
}

/// `t` as a clock in `zone` reads it, and the zone's name for it ([`offset_name`], or `UTC`).
fn in_zone(t: Timestamp, zone: Zone) -> (DateTime<FixedOffset>, String) {
    match zone {
        Zone::Local(offset) => (t.with_timezone(&offset), offset_name(offset)),
        Zone::System => {
            let local = t.with_timezone(&chrono::Local).fixed_offset();
            (local, offset_name(*local.offset()))
        }
        Zone::Utc => (t.fixed_offset(), "UTC".to_owned()),
    }
}

/// `GMT+1`, `GMT-8`, `GMT+5:30`, `GMT`: a local zone named by its offset, as browsers
/// name a zone they have no abbreviation for (the wasm has no zone database).
pub fn offset_name(offset: FixedOffset) -> String {
    let seconds = offset.local_minus_utc();
    if seconds == 0 {
        return "GMT".to_owned();
    }
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    match minutes % 60 {
        0 => format!("GMT{sign}{}", minutes / 60),
        m => format!("GMT{sign}{}:{m:02}", minutes / 60),
    }
}

/// `14:05:09 GMT+1` in the zone, which it names as [`format_time`] does (`14:05:09 UTC`
/// when the zone is UTC): a time within the next minutes, such as the next try of a poll.
pub fn format_time_of_day(t: Timestamp, zone: Zone) -> String {
    let (t, name) = in_zone(t, zone);
    format!("{:02}:{:02}:{:02} {name}", t.hour(), t.minute(), t.second())
}

/// `1 Dec 2026`: the UTC date, for billing periods.
pub fn format_utc_date(t: Timestamp) -> String {
    day_month_year(&t)
}

/// `Dec 26`: a billing month on a chart axis.
pub fn month_and_short_year(t: Timestamp) -> String {
    format!("{} {:02}", month_name(&t), t.year().rem_euclid(100))
}

fn day_month_year(t: &impl Datelike) -> String {
    format!("{} {} {}", t.day(), month_name(t), t.year())
}

fn month_name(t: &impl Datelike) -> &'static str {
    MONTHS[t.month0() as usize]
}

/// `1 Dec 2026 – 31 Dec 2026` for a period whose end is exclusive (`period_end` is the
/// next period's start).
pub fn format_period(start: Timestamp, end: Timestamp) -> String {
    let last_day = if end > start { end - TimeDelta::seconds(1) } else { end };
    format!("{} – {}", format_utc_date(start), format_utc_date(last_day))
}

/// Hover text: the exact UTC value, `2026-12-02 14:05:00 UTC`.
pub fn utc_title(t: Timestamp) -> String {
    format!("{}-{:02}-{:02} {:02}:{:02}:{:02} UTC", t.year(), t.month(), t.day(), t.hour(), t.minute(), t.second())
}

/// Whole seconds from `then` to `now`, zero if `then` is in the future ("updated N s ago").
pub fn ago_seconds(now: Timestamp, then: Timestamp) -> u64 {
    u64::try_from((now - then).num_seconds()).unwrap_or(0)
}

/// How old data is: `4 s ago` under a minute, `12 min ago` under an hour, `3 h ago` under a
/// day, the coarse relative time after. The one wording of every "updated … ago".
pub fn updated_ago(now: Timestamp, at: Timestamp) -> String {
    match ago_seconds(now, at) {
        s if s < 60 => format!("{s} s ago"),
        s if s < 3600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3600),
        _ => relative(now, at),
    }
}

/// `in 11 months`, `2 days ago`, `in 3 hours`, `now`: the largest whole unit, rounded down.
pub fn relative(now: Timestamp, t: Timestamp) -> String {
    let (earlier, later, future) = if t >= now { (now, t, true) } else { (t, now, false) };
    let span = span_between(earlier, later);
    if span.is_empty() {
        return "now".to_owned();
    }
    if future {
        format!("in {span}")
    } else {
        format!("{span} ago")
    }
}

/// A duration in its largest whole calendar unit.
#[derive(Debug, PartialEq, Eq)]
struct Span {
    count: i64,
    unit: &'static str,
}

impl Span {
    fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::domain::words::count(self.count, self.unit))
    }
}

fn span_between(earlier: Timestamp, later: Timestamp) -> Span {
    let months = whole_months(earlier, later);
    if months >= 12 {
        return Span { count: months / 12, unit: "year" };
    }
    if months >= 1 {
        return Span { count: months, unit: "month" };
    }
    let d = later - earlier;
    let (count, unit) = if d.num_days() >= 1 {
        (d.num_days(), "day")
    } else if d.num_hours() >= 1 {
        (d.num_hours(), "hour")
    } else if d.num_minutes() >= 1 {
        (d.num_minutes(), "minute")
    } else {
        (d.num_seconds(), "second")
    };
    Span { count, unit }
}

/// Whole calendar months from `a` to `b` (`a <= b`), in UTC.
fn whole_months(a: Timestamp, b: Timestamp) -> i64 {
    let mut months = (i64::from(b.year()) - i64::from(a.year())) * 12 + i64::from(b.month()) - i64::from(a.month());
    let within_month = |t: Timestamp| (t.day(), t.num_seconds_from_midnight(), t.nanosecond());
    if within_month(b) < within_month(a) {
        months -= 1;
    }
    months.max(0)
}

/// The one line that says what happens next, per status: `ends in 11 months`,
/// `workloads stop in 2 days`, `starts when the first invoice is paid`.
pub fn countdown(r: &Reservation, now: Timestamp) -> Option<String> {
    match &r.status {
        ReservationStatus::AwaitingPayment => Some("starts when the first invoice is paid".to_owned()),
        ReservationStatus::Assigning | ReservationStatus::Scheduled => Some(match r.starts_at {
            Some(at) if at > now => format!("starts {}", relative(now, at)),
            _ => "being set up".to_owned(),
        }),
        ReservationStatus::Active => r.ends_at.map(|at| {
            if at > now {
                format!("ends {}", relative(now, at))
            } else {
                format!("term end passed {}", relative(now, at))
            }
        }),
        ReservationStatus::PastDue => r.stops_at.map(|at| {
            if at > now {
                format!("workloads stop {}", relative(now, at))
            } else {
                format!("workloads were due to stop {}", relative(now, at))
            }
        }),
        ReservationStatus::Ended => r.ended_at.or(r.ends_at).map(|at| format!("ended {}", relative(now, at))),
        ReservationStatus::Suspended | ReservationStatus::Unknown(_) => None,
    }
}

/// Why `starts_at` → `ends_at` is not `term_months` calendar months (in UTC), or `None`
/// when it is, or when there is nothing to compare yet (no dates until the first invoice
/// is paid, no end set). A start on a month's last day may end on the clamped day
/// (31 Jan + 1 month = 28 Feb) or on the target month's last day (28 Feb + 1 month =
/// 31 Mar): both conventions are accepted.
pub fn term_mismatch(r: &Reservation) -> Option<String> {
    let term = u32::try_from(r.term_months).ok().filter(|m| *m >= 1);
    let Some(term) = term else {
        return Some(format!("The API reports a term of {} months.", r.term_months));
    };
    let (start, end) = (r.starts_at?, r.ends_at?);
    if end <= start {
        return Some(format!(
            "The end ({}) is not after the start ({}).",
            format_utc_date(end),
            format_utc_date(start)
        ));
    }
    let expected = start.checked_add_months(Months::new(term))?;
    let month_end = is_last_day_of_month(start).then(|| last_day_of_month(expected));
    if end == expected || Some(end) == month_end {
        return None;
    }
    Some(format!(
        "{} → {} is {}, not the {term}-month term (that would end {}).",
        format_utc_date(start),
        format_utc_date(end),
        months_and_rest(start, end),
        format_utc_date(expected)
    ))
}

fn is_last_day_of_month(t: Timestamp) -> bool {
    (t + TimeDelta::days(1)).day() == 1
}

/// The same time of day on the last day of `t`'s month.
fn last_day_of_month(t: Timestamp) -> Timestamp {
    let mut day = t;
    while !is_last_day_of_month(day) {
        day += TimeDelta::days(1);
    }
    day
}

/// `12 months`, `11 months and 30 days`, `20 days` from `start` to `end` (`start < end`).
fn months_and_rest(start: Timestamp, end: Timestamp) -> String {
    let months = whole_months(start, end);
    let after_months =
        u32::try_from(months).ok().and_then(|m| start.checked_add_months(Months::new(m))).unwrap_or(start);
    let rest = span_between(after_months, end);
    let whole = Span { count: months, unit: "month" };
    match (months, rest.is_empty()) {
        (0, _) => rest.to_string(),
        (_, true) => whole.to_string(),
        _ => format!("{whole} and {rest}"),
    }
}

/// "12 months, billed monthly"; an unknown period is shown as sent.
pub fn term_text(r: &Reservation) -> String {
    let months = crate::domain::words::count(r.term_months, "month");
    if r.billing_period.is_known() {
        format!("{months}, billed {}", r.billing_period)
    } else {
        format!("{months}, billed “{}” (unrecognised period)", r.billing_period)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::enums::BillingPeriod;
    use chrono::TimeZone;

    pub(crate) fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> Timestamp {
        chrono::Utc.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap()
    }

    #[test]
    fn a_time_of_day_is_shown_in_the_zone_and_names_it() {
        let t = at(2026, 12, 2, 14, 5);
        assert_eq!(format_time_of_day(t, Zone::Utc), "14:05:00 UTC");
        let cet = chrono::FixedOffset::east_opt(3600).unwrap();
        assert_eq!(format_time_of_day(t, Zone::Local(cet)), "15:05:00 GMT+1");
    }

    /// Seed 004's list item: active, 1 Nov 2026 – 1 Nov 2027.
    pub(crate) fn seed_reservation() -> Reservation {
        Reservation {
            id: 12,
            status: ReservationStatus::Active,
            region_id: "atl".into(),
            gpu_type: "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition".into(),
            node_count: 4,
            gpus_per_node: 8,
            reserved_gpus: 32,
            term_months: 12,
            billing_period: BillingPeriod::Monthly,
            starts_at: Some(at(2026, 11, 1, 0, 0)),
            ends_at: Some(at(2027, 11, 1, 0, 0)),
            drive_quota_gib: 5000.0,
            fs_quota_gib: 20000.0,
            contract_ref: Some("MSA-2026-014".into()),
            past_due_since: None,
            stops_at: None,
            ended_at: None,
        }
    }

    #[test]
    fn formats_in_the_chosen_zone() {
        let t = at(2026, 12, 2, 14, 5);
        assert_eq!(format_time(t, Zone::Utc), "2 Dec 2026, 14:05 UTC");
        let berlin = FixedOffset::east_opt(3600).unwrap();
        assert_eq!(format_time(t, Zone::Local(berlin)), "2 Dec 2026, 15:05 GMT+1");
        let la = FixedOffset::west_opt(8 * 3600).unwrap();
        assert_eq!(format_time(at(2026, 12, 1, 0, 0), Zone::Local(la)), "30 Nov 2026, 16:00 GMT-8");
    }

    #[test]
    fn a_local_time_names_its_zone_by_its_offset() {
        let zone = |seconds| offset_name(FixedOffset::east_opt(seconds).unwrap());
        assert_eq!(zone(0), "GMT");
        assert_eq!(zone(3600), "GMT+1");
        assert_eq!(zone(-8 * 3600), "GMT-8");
        assert_eq!(zone(5 * 3600 + 1800), "GMT+5:30");
        assert_eq!(zone(-(3 * 3600 + 1800)), "GMT-3:30");
    }

    #[test]
    fn billing_dates_are_utc_whatever_the_zone() {
        assert_eq!(format_utc_date(at(2026, 12, 1, 0, 0)), "1 Dec 2026");
        assert_eq!(format_period(at(2026, 12, 1, 0, 0), at(2027, 1, 1, 0, 0)), "1 Dec 2026 – 31 Dec 2026");
        assert_eq!(utc_title(at(2026, 12, 2, 14, 5)), "2026-12-02 14:05:00 UTC");
    }

    #[test]
    fn a_chart_month_has_a_two_digit_year() {
        assert_eq!(month_and_short_year(at(2026, 12, 1, 0, 0)), "Dec 26");
        assert_eq!(month_and_short_year(at(2009, 1, 1, 0, 0)), "Jan 09");
    }

    #[test]
    fn relative_uses_the_largest_whole_unit_rounded_down() {
        let now = at(2026, 12, 2, 14, 5);
        assert_eq!(relative(now, at(2027, 11, 1, 0, 0)), "in 10 months");
        assert_eq!(relative(now, at(2027, 11, 2, 14, 5)), "in 11 months");
        assert_eq!(relative(now, at(2027, 12, 2, 14, 5)), "in 1 year");
        assert_eq!(relative(now, at(2026, 11, 30, 10, 0)), "2 days ago");
        assert_eq!(relative(now, at(2026, 12, 2, 17, 30)), "in 3 hours");
        assert_eq!(relative(now, at(2026, 12, 2, 14, 6)), "in 1 minute");
        assert_eq!(relative(now, now + TimeDelta::seconds(42)), "in 42 seconds");
        assert_eq!(relative(now, now), "now");
    }

    #[test]
    fn a_month_is_calendar_months_not_thirty_days() {
        assert_eq!(relative(at(2027, 1, 31, 0, 0), at(2027, 2, 28, 0, 0)), "in 28 days");
        assert_eq!(relative(at(2027, 1, 31, 0, 0), at(2027, 3, 1, 0, 0)), "in 1 month");
    }

    #[test]
    fn the_age_of_data_is_in_seconds_minutes_hours_then_days() {
        let now = at(2026, 12, 2, 14, 5);
        let ago = |seconds: i64| updated_ago(now, now - TimeDelta::seconds(seconds));
        assert_eq!(ago(0), "0 s ago");
        assert_eq!(ago(59), "59 s ago");
        assert_eq!(ago(60), "1 min ago");
        assert_eq!(ago(3_599), "59 min ago");
        assert_eq!(ago(7_200), "2 h ago");
        assert_eq!(ago(3 * 86_400), "3 days ago");
        assert_eq!(updated_ago(now, now + TimeDelta::seconds(5)), "0 s ago");
    }

    #[test]
    fn ago_seconds_is_never_negative() {
        let now = at(2026, 12, 2, 14, 5);
        assert_eq!(ago_seconds(now, now - TimeDelta::seconds(7)), 7);
        assert_eq!(ago_seconds(now, now + TimeDelta::seconds(7)), 0);
    }

    #[test]
    fn countdown_per_status() {
        let now = at(2026, 12, 2, 14, 5);
        let mut r = seed_reservation();
        assert_eq!(countdown(&r, now).as_deref(), Some("ends in 10 months"));

        r.status = ReservationStatus::PastDue;
        r.stops_at = Some(at(2026, 12, 4, 15, 0));
        assert_eq!(countdown(&r, now).as_deref(), Some("workloads stop in 2 days"));
        r.stops_at = Some(at(2026, 12, 2, 13, 0));
        assert_eq!(countdown(&r, now).as_deref(), Some("workloads were due to stop 1 hour ago"));

        r.status = ReservationStatus::AwaitingPayment;
        (r.starts_at, r.ends_at) = (None, None);
        assert_eq!(countdown(&r, now).as_deref(), Some("starts when the first invoice is paid"));

        r.status = ReservationStatus::Scheduled;
        r.starts_at = Some(at(2026, 12, 9, 14, 5));
        assert_eq!(countdown(&r, now).as_deref(), Some("starts in 7 days"));
        r.status = ReservationStatus::Assigning;
        r.starts_at = None;
        assert_eq!(countdown(&r, now).as_deref(), Some("being set up"));

        r.status = ReservationStatus::Ended;
        r.ended_at = Some(at(2026, 11, 30, 14, 5));
        assert_eq!(countdown(&r, now).as_deref(), Some("ended 2 days ago"));

        r.status = ReservationStatus::Suspended;
        assert_eq!(countdown(&r, now), None);
        r.status = ReservationStatus::Unknown("frozen".into());
        assert_eq!(countdown(&r, now), None);
    }

    #[test]
    fn an_active_term_whose_end_passed_says_so() {
        let r = seed_reservation();
        assert_eq!(countdown(&r, at(2027, 11, 3, 0, 0)).as_deref(), Some("term end passed 2 days ago"));
    }

    fn term(start: Option<Timestamp>, end: Option<Timestamp>, months: i64) -> Reservation {
        Reservation { starts_at: start, ends_at: end, term_months: months, ..seed_reservation() }
    }

    #[test]
    fn the_seed_term_agrees_with_its_dates() {
        assert_eq!(term_mismatch(&seed_reservation()), None);
    }

    #[test]
    fn an_end_a_month_short_of_the_term_is_flagged_with_the_expected_end() {
        let r = term(Some(at(2026, 11, 1, 0, 0)), Some(at(2027, 10, 1, 0, 0)), 12);
        assert_eq!(
            term_mismatch(&r).as_deref(),
            Some("1 Nov 2026 → 1 Oct 2027 is 11 months, not the 12-month term (that would end 1 Nov 2027).")
        );
        let r = term(Some(at(2026, 11, 1, 0, 0)), Some(at(2027, 11, 2, 0, 0)), 12);
        assert!(term_mismatch(&r).unwrap().contains("is 12 months and 1 day, not the 12-month term"));
        let r = term(Some(at(2026, 11, 1, 0, 0)), Some(at(2026, 11, 21, 0, 0)), 1);
        assert!(term_mismatch(&r).unwrap().contains("is 20 days, not the 1-month term"));
    }

    #[test]
    fn a_month_end_start_may_end_clamped_or_on_the_last_day() {
        assert_eq!(term_mismatch(&term(Some(at(2027, 1, 31, 0, 0)), Some(at(2027, 2, 28, 0, 0)), 1)), None);
        assert_eq!(
            term_mismatch(&term(Some(at(2027, 8, 31, 0, 0)), Some(at(2028, 2, 29, 0, 0)), 6)),
            None,
            "leap year"
        );
        assert_eq!(term_mismatch(&term(Some(at(2027, 2, 28, 0, 0)), Some(at(2027, 3, 28, 0, 0)), 1)), None);
        assert_eq!(term_mismatch(&term(Some(at(2027, 2, 28, 0, 0)), Some(at(2027, 3, 31, 0, 0)), 1)), None);
        let rolled_over = term(Some(at(2027, 1, 31, 0, 0)), Some(at(2027, 3, 3, 0, 0)), 1);
        assert!(term_mismatch(&rolled_over)
            .unwrap()
            .contains("is 1 month and 3 days, not the 1-month term (that would end 28 Feb 2027)"));
        let mid_month = term(Some(at(2027, 1, 15, 0, 0)), Some(at(2027, 2, 28, 0, 0)), 1);
        assert!(term_mismatch(&mid_month).is_some(), "only a month-end start may end on a month's last day");
    }

    #[test]
    fn open_dates_cannot_disagree_but_a_bad_term_or_order_can() {
        assert_eq!(term_mismatch(&term(None, None, 12)), None, "awaiting payment: set when the first invoice is paid");
        assert_eq!(term_mismatch(&term(Some(at(2026, 11, 1, 0, 0)), None, 12)), None, "no end set yet");
        assert_eq!(term_mismatch(&term(None, None, 0)).as_deref(), Some("The API reports a term of 0 months."));
        let backwards = term(Some(at(2027, 11, 1, 0, 0)), Some(at(2026, 11, 1, 0, 0)), 12);
        assert_eq!(
            term_mismatch(&backwards).as_deref(),
            Some("The end (1 Nov 2026) is not after the start (1 Nov 2027).")
        );
    }
}
