//! Capacity without gaps: each reservation paired with its renewal (seed 004: "a renewal is
//! a new reservation"; the rule is [`renewal_of`]'s), whether the renewal starts
//! before, at or after the first one's end, and per region and GPU type the reserved GPUs
//! over the coming terms, with the gaps (hours without reserved GPUs: the workloads there
//! stop) and the overlaps (hours × GPUs reserved twice, which the owner pays twice). A term's
//! GPUs change where an amendment takes effect ([`gpus_at`]); a term whose amendments are not
//! read yet is drawn at the list's figure and said to be.
//!
//! Times are instants, so month ends and leap days need no care of their own; hours are
//! whole, a part hour counted as a whole one (never less than there is). A date the API has
//! not set yet is unknown, never a gap of zero.

use crate::api::enums::ReservationStatus;
use crate::api::models::{Reservation, Timestamp};
use crate::api::money::Usd;
use crate::domain::terms::amendments::{gpus_at, gpus_before, AmendmentsOf};
use crate::domain::terms::renewal::{renewal_of, same_place};
use chrono::TimeDelta;

/// How a renewal takes over from the term before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handover {
    /// It starts `hours` after the first one ends: its `gpus` (those of its last hour, its
    /// amendments counted) are not reserved meanwhile.
    Gap { hours: i64, gpus: i64 },
    /// It starts the instant the first one ends.
    AtEnd,
    /// It starts `hours` before the first one ends: `gpus` (the smaller of the first one's
    /// last hour and the renewal's first, amendments counted) are reserved twice for those hours.
    Overlap { hours: i64, gpus: i64 },
}

impl Handover {
    /// From `first`'s end and `renewal`'s dates, the GPUs of each as its `amendments` set
    /// them; `None` when a date it needs is not set.
    pub fn between(first: &Reservation, renewal: &Reservation, amendments: AmendmentsOf) -> Option<Handover> {
        let (end, start) = (first.ends_at?, renewal.starts_at?);
        let ending = gpus_before(first, amendments(first.id).unwrap_or_default(), end);
        Some(if start > end {
            Handover::Gap { hours: whole_hours(start - end), gpus: ending }
        } else if start == end {
            Handover::AtEnd
        } else {
            let until = renewal.ends_at.map_or(end, |renewal_end| renewal_end.min(end));
            let starting = gpus_at(renewal, amendments(renewal.id).unwrap_or_default(), start);
            Handover::Overlap { hours: whole_hours(until - start), gpus: ending.min(starting) }
        })
    }

    /// Whether the renewal takes over with no hour uncovered (at the end or overlapping):
    /// the one rule by which the alerts, the timeline and "what stops when" say a term's
    /// end is renewed.
    pub fn covers_the_end(&self) -> bool {
        !matches!(self, Handover::Gap { .. })
    }

    /// The GPU-hours without reservation (a gap) or reserved twice (an overlap).
    pub fn gpu_hours(&self) -> i64 {
        match *self {
            Handover::Gap { hours, gpus } | Handover::Overlap { hours, gpus } => hours * gpus,
            Handover::AtEnd => 0,
        }
    }
}

/// What the overlap costs a second time: its GPU-hours at the renewal's rate (the pricing
/// is an assumption, [`OVERLAP_PRICE`](crate::api::assumptions::OVERLAP_PRICE)). `None` for
/// a handover that is no overlap.
pub fn overlap_cost(handover: Handover, renewal_rate: Usd) -> Option<Usd> {
    matches!(handover, Handover::Overlap { .. }).then(|| renewal_rate.times(handover.gpu_hours()))
}

/// Hours in `span`, a part hour counted whole; 0 for an empty or negative span.
fn whole_hours(span: TimeDelta) -> i64 {
    let seconds = span.num_seconds().max(0) + i64::from(span.subsec_nanos() > 0);
    (seconds + 3599) / 3600
}

/// A reservation's renewal, as far as the list tells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Renewal<'a> {
    /// The next reservation of its region and GPU type; `handover` is `None` when the
    /// first one's end is not set.
    Next { renewal: &'a Reservation, handover: Option<Handover> },
    /// No reservation of its region and GPU type starts after it.
    None,
    /// The dates that would tell are not set: its own start (`None`), or the start of
    /// another reservation of its region and GPU type (awaiting its first payment), which
    /// could be it. Said in one wording everywhere: [`unknown_renewal`].
    Unknown(Option<&'a Reservation>),
}

/// `first`'s renewal among `all` ([`renewal_of`]), with how it takes over, the GPUs as
/// `amendments` set them; unknown while `first` or another reservation of its place has no
/// start date (which could be it).
pub fn renewal<'a>(first: &Reservation, all: &'a [Reservation], amendments: AmendmentsOf) -> Renewal<'a> {
    if first.starts_at.is_none() {
        return Renewal::Unknown(None);
    }
    match renewal_of(first, all) {
        Some(renewal) => Renewal::Next { renewal, handover: Handover::between(first, renewal, amendments) },
        None => match all.iter().find(|o| o.id != first.id && same_place(first, o) && o.starts_at.is_none()) {
            Some(candidate) => Renewal::Unknown(Some(candidate)),
            None => Renewal::None,
        },
    }
}

/// The one wording of a renewal not known ([`Renewal::Unknown`]), as a clause ("its renewal
/// is not known: …"): "what stops when", the alerts and `/capacity` all say it so. No payment
/// word: a member reads it too.
pub fn unknown_renewal(candidate: Option<i64>) -> String {
    match candidate {
        None => "its renewal is not known: this term has no dates yet".to_owned(),
        Some(id) => format!("its renewal is not known: #{id} could be it, but has no dates yet"),
    }
}

/// A stretch of time with one figure of reserved GPUs; 0 is a gap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stretch {
    pub from: Timestamp,
    pub to: Timestamp,
    pub gpus: i64,
}

impl Stretch {
    pub fn hours(&self) -> i64 {
        whole_hours(self.to - self.from)
    }
}

/// A reservation of a lane and its renewal.
#[derive(Clone, Debug, PartialEq)]
pub struct Term<'a> {
    pub reservation: &'a Reservation,
    pub renewal: Renewal<'a>,
    /// Whether its amendments were read: if not, it is drawn at the list's GPUs throughout.
    pub amendments_read: bool,
    /// Its reserved GPUs from now (or its start) to its end, changing where an amendment
    /// takes effect; empty when its dates are not set.
    pub gpus: Vec<Stretch>,
}

/// One region and GPU type over the coming terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane<'a> {
    pub region: &'a str,
    pub gpu_type: &'a str,
    /// Its reservations not over yet, by start (those without one last).
    pub terms: Vec<Term<'a>>,
    /// Reserved GPUs from now (or the first start) to the last end known, in order, each term
    /// changing where an amendment takes effect; the terms whose start or end is not set are
    /// left out (their `terms` entry says so).
    pub stretches: Vec<Stretch>,
}

impl Lane<'_> {
    /// The stretches without reserved GPUs between two with.
    pub fn gaps(&self) -> impl Iterator<Item = &Stretch> {
        self.stretches.iter().filter(|s| s.gpus == 0)
    }

    /// The terms whose start or end is not set.
    pub fn undated(&self) -> impl Iterator<Item = &Term<'_>> {
        self.terms.iter().filter(|t| dates(t.reservation).is_none())
    }
}

/// A term's start and end, when both are set and in order.
fn dates(r: &Reservation) -> Option<(Timestamp, Timestamp)> {
    let (start, end) = (r.starts_at?, r.ends_at?);
    (end > start).then_some((start, end))
}

/// Every region and GPU type with a term not over at `now`, by region then GPU type; the
/// renewals are looked for among `all` (an ended reservation included, as the rule says), and
/// each term's GPUs follow its `amendments`.
pub fn lanes<'a>(all: &'a [Reservation], amendments: AmendmentsOf, now: Timestamp) -> Vec<Lane<'a>> {
    let coming: Vec<&Reservation> =
        all.iter().filter(|r| r.status != ReservationStatus::Ended && r.ends_at.is_none_or(|end| end > now)).collect();
    let mut places: Vec<(&str, &str)> = coming.iter().map(|r| (r.region_id.as_str(), r.gpu_type.as_str())).collect();
    places.sort_unstable();
    places.dedup();
    places
        .into_iter()
        .map(|(region, gpu_type)| {
            let mut mine: Vec<&Reservation> =
                coming.iter().copied().filter(|r| r.region_id == region && r.gpu_type == gpu_type).collect();
            mine.sort_by_key(|r| (r.starts_at.is_none(), r.starts_at, r.id));
            let terms = mine
                .iter()
                .map(|r| Term {
                    reservation: r,
                    renewal: renewal(r, all, amendments),
                    amendments_read: amendments(r.id).is_some(),
                    gpus: term_gpus(r, amendments, now),
                })
                .collect();
            Lane { region, gpu_type, terms, stretches: stretches(&mine, amendments, now) }
        })
        .collect()
}

/// `r`'s reserved GPUs from `now` (or its start) to its end, cut where one of its
/// `amendments` takes effect ([`gpus_at`]); empty when its dates are not set or it is over.
fn term_gpus(r: &Reservation, amendments: AmendmentsOf, now: Timestamp) -> Vec<Stretch> {
    let Some((start, end)) = dates(r).map(|(start, end)| (start.max(now), end)).filter(|(start, end)| end > start)
    else {
        return Vec::new();
    };
    let changes = amendments(r.id).unwrap_or_default();
    let mut cuts: Vec<Timestamp> =
        changes.iter().map(|a| a.effective_at).filter(|at| start < *at && *at < end).collect();
    cuts.extend([start, end]);
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<Stretch> = Vec::new();
    for pair in cuts.windows(2) {
        join(&mut out, Stretch { from: pair[0], to: pair[1], gpus: gpus_at(r, changes, pair[0]) });
    }
    out
}

/// The reserved GPUs of `terms` from `now` (or the first start) to the last end, each term's
/// as its amendments set them ([`term_gpus`]), adjacent stretches of the same figure joined.
fn stretches(terms: &[&Reservation], amendments: AmendmentsOf, now: Timestamp) -> Vec<Stretch> {
    let dated: Vec<Stretch> = terms.iter().flat_map(|r| term_gpus(r, amendments, now)).collect();
    let mut bounds: Vec<Timestamp> = dated.iter().flat_map(|s| [s.from, s.to]).collect();
    bounds.sort_unstable();
    bounds.dedup();
    let mut out: Vec<Stretch> = Vec::new();
    for pair in bounds.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let gpus = dated.iter().filter(|s| s.from <= from && to <= s.to).map(|s| s.gpus).sum();
        join(&mut out, Stretch { from, to, gpus });
    }
    out
}

/// Adds `next` to `out`, joined to the last stretch when it has the same figure.
fn join(out: &mut Vec<Stretch>, next: Stretch) {
    match out.last_mut() {
        Some(last) if last.gpus == next.gpus => last.to = next.to,
        _ => out.push(next),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::Amendment;
    use crate::domain::fleet::tests::reservation;
    use crate::domain::words::time::tests::at;

    const RTX: &str = "RTX";

    /// No reservation's amendments read.
    fn unread(_: i64) -> Option<&'static [Amendment]> {
        None
    }

    /// An active term of `gpus` in atl (RTX) from `start` to `end`, each `None` when unset.
    fn term(id: i64, gpus: i64, start: Option<Timestamp>, end: Option<Timestamp>) -> Reservation {
        let mut r = reservation(id, ReservationStatus::Active, "atl", RTX, gpus);
        r.starts_at = start;
        r.ends_at = end;
        r
    }

    fn day(y: i32, m: u32, d: u32) -> Timestamp {
        at(y, m, d, 0, 0)
    }

    fn dated(id: i64, gpus: i64, start: Timestamp, end: Timestamp) -> Reservation {
        term(id, gpus, Some(start), Some(end))
    }

    fn handover(first: &Reservation, all: &[Reservation], amendments: AmendmentsOf) -> Option<Handover> {
        match renewal(first, all, amendments) {
            Renewal::Next { handover, .. } => handover,
            other => panic!("no renewal found: {other:?}"),
        }
    }

    #[test]
    fn a_term_ending_on_a_leap_day_and_renewed_the_next_day_has_a_24_hour_gap() {
        let first = dated(1, 32, day(2027, 2, 28), day(2028, 2, 29));
        let renewal = dated(2, 32, day(2028, 3, 1), day(2029, 3, 1));
        let all = [first.clone(), renewal];
        assert_eq!(handover(&first, &all, &unread), Some(Handover::Gap { hours: 24, gpus: 32 }));
        assert_eq!(Handover::Gap { hours: 24, gpus: 32 }.gpu_hours(), 768);
    }

    #[test]
    fn gaps_across_month_ends_count_the_calendar_hours() {
        let jan = dated(1, 8, day(2026, 2, 1), day(2027, 1, 31));
        let feb = dated(2, 8, day(2027, 2, 1), day(2028, 2, 1));
        assert_eq!(handover(&jan, &[jan.clone(), feb], &unread), Some(Handover::Gap { hours: 24, gpus: 8 }));
        // From 28 February to 1 April: the rest of February and all of March, in a leap year and not.
        let to_april = |y| {
            let first = dated(1, 8, day(y - 1, 2, 28), day(y, 2, 28));
            handover(&first, &[first.clone(), dated(2, 8, day(y, 4, 1), day(y + 1, 4, 1))], &unread)
        };
        assert_eq!(to_april(2027), Some(Handover::Gap { hours: (1 + 31) * 24, gpus: 8 }));
        assert_eq!(to_april(2028), Some(Handover::Gap { hours: (2 + 31) * 24, gpus: 8 }), "29 February");
    }

    #[test]
    fn an_overlap_through_a_leap_february_is_29_days_of_the_smaller_terms_gpus() {
        let first = dated(1, 32, day(2027, 3, 1), day(2028, 3, 1));
        let renewal = dated(2, 16, day(2028, 2, 1), day(2029, 2, 1));
        let all = [first.clone(), renewal];
        let overlap = handover(&first, &all, &unread).unwrap();
        assert_eq!(overlap, Handover::Overlap { hours: 29 * 24, gpus: 16 });
        assert_eq!(overlap.gpu_hours(), 11_136);
        // The same in 2027 is 28 days.
        let first = dated(1, 32, day(2026, 3, 1), day(2027, 3, 1));
        let renewal = dated(2, 16, day(2027, 2, 1), day(2028, 2, 1));
        assert_eq!(
            handover(&first, &[first.clone(), renewal], &unread),
            Some(Handover::Overlap { hours: 28 * 24, gpus: 16 })
        );
    }

    #[test]
    fn the_overlap_is_priced_exactly_at_the_renewals_rate() {
        let overlap = Handover::Overlap { hours: 696, gpus: 8 };
        assert_eq!(overlap_cost(overlap, Usd::from_cents(125)), Some(Usd::from_cents(696_000)));
        // A rate below a cent stays exact: 5,568 GPU-hours × $0.0125.
        assert_eq!(overlap_cost(overlap, Usd::from_micros(12_500)), Some(Usd::from_cents(6_960)));
        assert_eq!(overlap_cost(Handover::Gap { hours: 24, gpus: 8 }, Usd::from_cents(125)), None);
        assert_eq!(overlap_cost(Handover::AtEnd, Usd::from_cents(125)), None);
    }

    #[test]
    fn a_renewal_starting_the_instant_the_term_ends_is_no_gap() {
        let first = dated(12, 32, day(2026, 11, 1), day(2027, 11, 1));
        let renewal = dated(14, 32, day(2027, 11, 1), day(2028, 11, 1));
        let all = [renewal.clone(), first.clone()];
        assert_eq!(handover(&first, &all, &unread), Some(Handover::AtEnd));
        let lanes = lanes(&all, &unread, day(2027, 6, 1));
        assert_eq!(lanes[0].stretches, [Stretch { from: day(2027, 6, 1), to: day(2028, 11, 1), gpus: 32 }]);
        assert_eq!(lanes[0].gaps().count(), 0);
    }

    /// An amendment of reservation `id` taking effect at `at`, from `before` to `after` nodes.
    fn amendment(at: Timestamp, before: i64, after: i64) -> Amendment {
        serde_json::from_value(serde_json::json!({
            "effective_at": at.to_rfc3339(), "node_count_before": before, "node_count_after": after,
            "drive_quota_gib_before": 0, "drive_quota_gib_after": 0, "fs_quota_gib_before": 0, "fs_quota_gib_after": 0
        }))
        .unwrap()
    }

    #[test]
    fn an_amendment_lowering_nodes_lowers_the_timeline_its_gap_and_its_overlap_from_the_day_it_takes_effect() {
        // The demo's #7: 3 nodes of 8 GPUs, lowered to 2 nodes next month.
        let now = day(2027, 6, 1);
        let mut first = dated(7, 24, day(2027, 1, 1), day(2028, 1, 1));
        (first.node_count, first.gpus_per_node) = (3, 8);
        let lowered = [amendment(day(2027, 7, 1), 3, 2)];
        let read = |id: i64| (id == 7).then_some(&lowered[..]);
        let renewal = dated(8, 24, day(2028, 1, 8), day(2029, 1, 1));
        let all = [first.clone(), renewal.clone()];
        let lane = &lanes(&all, &read, now)[0];
        assert_eq!(
            lane.stretches,
            [
                Stretch { from: now, to: day(2027, 7, 1), gpus: 24 },
                Stretch { from: day(2027, 7, 1), to: day(2028, 1, 1), gpus: 16 },
                Stretch { from: day(2028, 1, 1), to: day(2028, 1, 8), gpus: 0 },
                Stretch { from: day(2028, 1, 8), to: day(2029, 1, 1), gpus: 24 },
            ]
        );
        assert_eq!(handover(&first, &all, &read), Some(Handover::Gap { hours: 7 * 24, gpus: 16 }));
        assert_eq!(
            lane.terms[0].gpus,
            [
                Stretch { from: now, to: day(2027, 7, 1), gpus: 24 },
                Stretch { from: day(2027, 7, 1), to: day(2028, 1, 1), gpus: 16 }
            ],
            "the term's own figures, as its row says them"
        );
        let read_of = |id: i64| lane.terms.iter().find(|t| t.reservation.id == id).map(|t| t.amendments_read);
        assert_eq!((read_of(7), read_of(8)), (Some(true), Some(false)), "8's detail is not read");
        // Overlapping by December, the GPUs reserved twice are the 16 left, not the 24 listed.
        let early = dated(8, 24, day(2027, 12, 1), day(2028, 12, 1));
        let all = [first.clone(), early];
        assert_eq!(handover(&first, &all, &read), Some(Handover::Overlap { hours: 31 * 24, gpus: 16 }));
        // An amendment taking effect at the end itself changes nothing before it.
        let at_end = [amendment(day(2028, 1, 1), 3, 1)];
        let at_end_read = |id: i64| (id == 7).then_some(&at_end[..]);
        assert_eq!(handover(&first, &all, &at_end_read), Some(Handover::Overlap { hours: 31 * 24, gpus: 24 }));
    }

    #[test]
    fn a_part_hour_counts_as_a_whole_one() {
        let first = dated(1, 8, day(2027, 1, 1), day(2027, 6, 1));
        let renewal = dated(2, 8, day(2027, 6, 1) + TimeDelta::minutes(1), day(2028, 6, 1));
        assert_eq!(handover(&first, &[first.clone(), renewal], &unread), Some(Handover::Gap { hours: 1, gpus: 8 }));
    }

    #[test]
    fn the_renewal_is_the_next_of_the_same_region_and_gpu_type_by_start() {
        let first = dated(1, 8, day(2027, 1, 1), day(2028, 1, 1));
        let later = dated(3, 8, day(2029, 1, 1), day(2030, 1, 1));
        let next = dated(2, 8, day(2028, 1, 1), day(2029, 1, 1));
        let mut elsewhere = dated(4, 8, day(2027, 6, 1), day(2028, 6, 1));
        elsewhere.region_id = "ams".into();
        let mut other_gpu = dated(5, 8, day(2027, 6, 1), day(2028, 6, 1));
        other_gpu.gpu_type = "H100".into();
        let earlier = dated(6, 8, day(2026, 1, 1), day(2027, 1, 1));
        let all = [later, elsewhere, other_gpu, earlier, next, first.clone()];
        match renewal(&first, &all, &unread) {
            Renewal::Next { renewal, .. } => assert_eq!(renewal.id, 2),
            other => panic!("{other:?}"),
        }
        assert_eq!(renewal(&all[0], &all, &unread), Renewal::None, "the last term has none");
        // Two starting together: the one created later renews the other, not itself.
        let twin = dated(7, 8, day(2027, 1, 1), day(2028, 1, 1));
        match renewal(&first, &[first.clone(), twin.clone()], &unread) {
            Renewal::Next { renewal, handover } => {
                assert_eq!(renewal.id, 7);
                assert_eq!(handover, Some(Handover::Overlap { hours: 365 * 24, gpus: 8 }));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(renewal(&twin, &[first, twin.clone()], &unread), Renewal::None);
    }

    #[test]
    fn unknown_dates_give_an_unknown_renewal_or_handover_never_a_gap_of_zero() {
        let first = dated(1, 8, day(2027, 1, 1), day(2028, 1, 1));
        let awaiting = term(2, 8, None, None);
        assert_eq!(renewal(&first, &[first.clone(), awaiting.clone()], &unread), Renewal::Unknown(Some(&awaiting)));
        assert_eq!(renewal(&awaiting, &[first.clone(), awaiting.clone()], &unread), Renewal::Unknown(None));
        let open_ended = term(3, 8, Some(day(2027, 1, 1)), None);
        let next = dated(4, 8, day(2028, 1, 1), day(2029, 1, 1));
        assert_eq!(handover(&open_ended, &[open_ended.clone(), next.clone()], &unread), None);
        let all = [first, awaiting, open_ended, next];
        let lane = &lanes(&all, &unread, day(2027, 6, 1))[0];
        let undated: Vec<i64> = lane.undated().map(|t| t.reservation.id).collect();
        assert_eq!(undated, [3, 2], "drawn nowhere, listed last");
        assert_eq!(lane.gaps().count(), 0, "an end not set is no gap");
    }

    #[test]
    fn a_timeline_shows_reserved_gpus_its_gaps_and_overlaps_per_region_and_gpu_type() {
        let now = day(2027, 6, 1);
        let over = dated(1, 8, day(2026, 1, 1), day(2027, 1, 1));
        let mut ended = dated(2, 8, day(2026, 1, 1), day(2027, 12, 1));
        ended.status = ReservationStatus::Ended;
        let a = dated(3, 16, day(2027, 1, 1), day(2028, 1, 1));
        let gap_after = dated(4, 16, day(2028, 1, 8), day(2028, 3, 1));
        let overlapping = dated(5, 8, day(2028, 2, 1), day(2029, 2, 1));
        let mut ams = dated(6, 24, day(2027, 1, 1), day(2028, 1, 1));
        ams.region_id = "ams".into();
        let all = [over, ended, a, gap_after, overlapping, ams];
        let lanes = lanes(&all, &unread, now);
        let places: Vec<(&str, &str)> = lanes.iter().map(|l| (l.region, l.gpu_type)).collect();
        assert_eq!(places, [("ams", RTX), ("atl", RTX)]);
        let atl = &lanes[1];
        let ids: Vec<i64> = atl.terms.iter().map(|t| t.reservation.id).collect();
        assert_eq!(ids, [3, 4, 5], "the ended and the past terms are not coming");
        assert_eq!(
            atl.stretches,
            [
                Stretch { from: now, to: day(2028, 1, 1), gpus: 16 },
                Stretch { from: day(2028, 1, 1), to: day(2028, 1, 8), gpus: 0 },
                Stretch { from: day(2028, 1, 8), to: day(2028, 2, 1), gpus: 16 },
                Stretch { from: day(2028, 2, 1), to: day(2028, 3, 1), gpus: 24 },
                Stretch { from: day(2028, 3, 1), to: day(2029, 2, 1), gpus: 8 },
            ]
        );
        let gaps: Vec<i64> = atl.gaps().map(Stretch::hours).collect();
        assert_eq!(gaps, [7 * 24]);
        let handovers: Vec<Option<Handover>> = atl
            .terms
            .iter()
            .map(|t| match t.renewal {
                Renewal::Next { handover, .. } => handover,
                _ => None,
            })
            .collect();
        assert_eq!(
            handovers,
            [
                Some(Handover::Gap { hours: 7 * 24, gpus: 16 }),
                Some(Handover::Overlap { hours: 29 * 24, gpus: 8 }),
                None
            ]
        );
    }
}
