//! What the overview, "what stops when", `/fit` and `/capacity` say in words: one home for
//! each wording, read by the page and by the summary it copies (`domain::exports::summary`), so the
//! text pasted elsewhere says what the page says.

use crate::api::assumptions::SUSPENDED_ACCRUES;
use crate::api::models::Timestamp;
use crate::api::money::Usd;
use crate::domain::fleet::fit::Room;
use crate::domain::fleet::{GpuSplit, IdleCost};
use crate::domain::money::ledger::OVERDUE_RULE;
use crate::domain::nodes::capacity::gpus_text;
use crate::domain::terms::at_risk::{Risk, Successor};
use crate::domain::terms::timeline::{overlap_cost, unknown_renewal, Handover, Lane, Renewal, Stretch, Term};
use crate::domain::words::time::{format_utc_date, relative};
use crate::domain::words::{self, count, figure, sentence};

/// "#6 and #9", "#4, #6 and #9".
pub fn ids_text(ids: &[i64]) -> String {
    names_text(&ids.iter().map(|id| format!("#{id}")).collect::<Vec<_>>())
}

/// "a and b", "a, b and c".
pub fn names_text(names: &[String]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// How an account is named beside the others: its label; the connection's own, which was
/// connected without one (docs/accounts.md), is the first key.
pub fn account_name(label: &str) -> &str {
    if label.is_empty() {
        FIRST_ACCOUNT
    } else {
        label
    }
}

/// The name of the account connected first, without a label.
pub const FIRST_ACCOUNT: &str = "first key";

/// "training and the first key": accounts by [`account_name`].
pub fn accounts_text(labels: &[String]) -> String {
    names_text(&labels.iter().map(|l| account_name(l).to_owned()).collect::<Vec<_>>())
}

/// A count, "value out of range" past `i64`.
pub fn reserved_text(split: &GpuSplit) -> String {
    split.reserved().map_or_else(|| "value out of range".to_owned(), figure)
}

/// "32 GPUs = 10 in use + 6 free + 0 not available + 16 unknown".
pub fn sum_text(split: &GpuSplit) -> String {
    match split.reserved() {
        Some(total) => format!(
            "{} = {} in use + {} free to launch on + {} idle, launches closed + {} not available + {} unknown",
            words::count(total, "GPU"),
            figure(split.in_use),
            figure(split.free),
            figure(split.idle_closed),
            figure(split.not_available),
            figure(split.unknown)
        ),
        None => "The API's counts add up past what can be shown: value out of range.".to_owned(),
    }
}

/// The columns of a split, as the overview's tables head them (the row's name first).
pub const SPLIT_COLUMNS: [&str; 6] =
    ["Reserved", "In use", "Free to launch on", "Idle, launches closed", "Not available", "Unknown"];

/// A split's figures in the order of [`SPLIT_COLUMNS`].
pub fn split_cells(split: &GpuSplit) -> [String; 6] {
    [
        reserved_text(split),
        figure(split.in_use),
        figure(split.free),
        figure(split.idle_closed),
        figure(split.not_available),
        figure(split.unknown),
    ]
}

/// The overview's idle-cost line opens with this when a rate is not read: what is counted is
/// a part.
pub const AT_LEAST: &str = "At least ";

/// "$312.50/h": the idle-cost line's figure, which the page sets apart.
pub fn per_hour_text(cost: IdleCost) -> String {
    format!("{}/h", cost.per_hour)
}

/// What follows the figure of the GPUs idle and open to launches.
pub fn idle_open_rest(open: IdleCost) -> String {
    format!(
        " of reserved capacity is idle and open to launches ({} a day): free GPUs on ready nodes × each \
         reservation's GPU rate, as last read.",
        open.per_day
    )
}

/// What sits idle behind reservations closed to launches; `None` when nothing does.
pub fn idle_closed_text(closed: IdleCost) -> Option<String> {
    (closed.per_hour != Usd::ZERO).then(|| {
        format!(
            " A further {} ({} a day) sits idle on reservations closed to launches (past due, suspended): \
             nothing can be launched there until they are open again.",
            per_hour_text(closed),
            closed.per_day
        )
    })
}

/// The reservations left out of the idle cost because their use is unknown.
pub fn use_unknown_text(ids: &[i64]) -> Option<String> {
    (!ids.is_empty()).then(|| {
        format!(
            " Not counted: {}, whose GPUs' use is unknown (not read yet, or the region could not be reached).",
            ids_text(ids)
        )
    })
}

/// The reservations left out of the idle cost because their rate is not read.
pub fn rate_not_read_text(ids: &[i64]) -> Option<String> {
    (!ids.is_empty()).then(|| format!(" Not counted: {}, whose rate is not read.", ids_text(ids)))
}

/// The overview's idle-cost line as text, word for word what the page shows (which sets the
/// figure apart, and says why a rate could not be read where it failed).
pub fn idle_cost_text(
    open: IdleCost,
    closed: IdleCost,
    closed_assumed: bool,
    use_unknown: &[i64],
    rate_unknown: &[i64],
) -> String {
    let lead = if rate_unknown.is_empty() { "" } else { AT_LEAST };
    let mut text = format!("{lead}{}{}", per_hour_text(open), idle_open_rest(open));
    if let Some(closed) = idle_closed_text(closed) {
        text.push_str(&closed);
        if closed_assumed {
            text.push_str(&format!(" {SUSPENDED_ACCRUES}"));
        }
    }
    text.extend(use_unknown_text(use_unknown));
    text.extend(rate_not_read_text(rate_unknown));
    text
}

/// A reservation's idle cost on the overview where there is no sum: its term has not started…
pub const NOT_CHARGED_YET: &str = "not charged yet";
/// …its GPUs' use is unknown (never $0.00)…
pub const COST_UNKNOWN: &str = "unknown";
/// …or its rate is not read.
pub const RATE_NOT_READ: &str = "rate not read";

/// Rooms listed at most; the rest are counted.
const ROOMS_LISTED: usize = 6;

/// "node-3: 5 free · node-1: 8 free · and 4 more nodes".
pub fn rooms_text(rooms: &[Room]) -> String {
    let mut parts: Vec<String> =
        rooms.iter().take(ROOMS_LISTED).map(|r| format!("{}: {} free", r.node, r.free)).collect();
    if rooms.len() > ROOMS_LISTED {
        parts
            .push(format!("and {} more", count(i64::try_from(rooms.len() - ROOMS_LISTED).unwrap_or(i64::MAX), "node")));
    }
    parts.join(" · ")
}

/// Workloads a deadline lists before the rest are counted.
pub const WORKLOADS_LISTED: usize = 8;

/// One deadline as shown: the risk and, for the owner, what averts it (the overdue sum and
/// where to pay); `None` for a member, and before the owner's detail is read.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub risk: Risk,
    pub averted_by: Option<(Usd, &'static str)>,
}

/// "in 3 days" ahead of the deadline, "was due 2 hours ago" after it.
pub fn deadline_countdown(now: Timestamp, at: Timestamp) -> String {
    if at > now {
        relative(now, at)
    } else {
        format!("was due {}", relative(now, at))
    }
}

/// What keeps the GPUs of a term ending at `at` reserved, by its `renewal`.
pub fn renewal_keeps(renewal: &Successor, at: Timestamp) -> String {
    match renewal {
        Successor::TakesOver { id, start } => format!(
            "#{id} keeps the GPUs reserved from {}: the workloads would be launched on it again. ",
            format_utc_date(*start)
        ),
        _ => format!(
            "A renewal of the same region and GPU type starting by {} would keep the GPUs reserved. ",
            format_utc_date(at)
        ),
    }
}

/// One row of a `/capacity` lane's table: a term and how its renewal takes over.
#[derive(Clone, Debug, PartialEq)]
pub struct TermRow {
    pub id: i64,
    pub gpus: i64,
    pub start: Option<Timestamp>,
    pub end: Option<Timestamp>,
    pub renewal: Option<i64>,
    pub handover: Option<Handover>,
    /// The sentence for the renewal column.
    pub told: String,
    pub tone: &'static str,
    /// Its amendments are not read yet: drawn at the list's GPUs, and said.
    pub amendments_unread: bool,
    /// Where an amendment changes its GPUs after the first figure: "then 16 GPUs from 1 Jul 2027".
    pub changes: Option<String>,
}

impl TermRow {
    /// "1 Dec 2026 – 1 Nov 2027", "from 1 Dec 2026; end not set", "dates not set yet".
    pub fn term_text(&self) -> String {
        match (self.start, self.end) {
            (Some(start), Some(end)) => format!("{} – {}", format_utc_date(start), format_utc_date(end)),
            (Some(start), None) => format!("from {}; end not set", format_utc_date(start)),
            (None, _) => "dates not set yet".to_owned(),
        }
    }
}

/// A lane as `/capacity` shows it (owned, so a memo can compare it).
#[derive(Clone, Debug, PartialEq)]
pub struct LaneView {
    pub region: String,
    pub gpu_type: String,
    pub stretches: Vec<Stretch>,
    pub rows: Vec<TermRow>,
}

impl LaneView {
    pub fn of(lane: &Lane) -> Self {
        let rows = lane.terms.iter().map(row).collect();
        LaneView {
            region: lane.region.to_owned(),
            gpu_type: lane.gpu_type.to_owned(),
            stretches: lane.stretches.clone(),
            rows,
        }
    }

    /// "The amendments of #12, #14 are not read yet: …", when some are not.
    pub fn unread_text(&self) -> Option<String> {
        let unread: Vec<String> =
            self.rows.iter().filter(|r| r.amendments_unread).map(|r| format!("#{}", r.id)).collect();
        (!unread.is_empty()).then(|| {
            format!(
                "The amendments of {} are not read yet: drawn at the GPUs listed today throughout.",
                unread.join(", ")
            )
        })
    }
}

fn row(term: &Term) -> TermRow {
    let (r, gpus) = (term.reservation, &term.gpus);
    let (renewal_id, handover, told, tone) = match term.renewal {
        Renewal::None => (None, None, "No renewal reserved: its GPUs stop at the end.".to_owned(), "danger"),
        Renewal::Unknown(candidate) => {
            (None, None, format!("{}.", sentence(&unknown_renewal(candidate.map(|c| c.id)))), "unknown")
        }
        Renewal::Next { renewal, handover } => {
            let id = renewal.id;
            let (told, tone) = match handover {
                None => (format!("#{id}; whether it leaves a gap is not known: this term has no end yet."), "unknown"),
                Some(Handover::AtEnd) => (format!("#{id} takes over the instant this term ends: no gap."), "ok"),
                Some(h @ Handover::Gap { hours, .. }) => (
                    format!(
                        "#{id} starts after a gap of {}: {} without reservation.",
                        count(hours, "hour"),
                        count(h.gpu_hours(), "GPU-hour")
                    ),
                    "danger",
                ),
                Some(h @ Handover::Overlap { hours, gpus }) => (
                    format!(
                        "#{id} starts {} before this term ends: {} reserved twice for {}, {}.",
                        count(hours, "hour"),
                        gpus_text(gpus),
                        count(hours, "hour"),
                        count(h.gpu_hours(), "GPU-hour")
                    ),
                    "warning",
                ),
            };
            (Some(id), handover, told, tone)
        }
    };
    TermRow {
        id: r.id,
        // Its first figure from now: an amendment before its start already counted.
        gpus: gpus.first().map_or(r.reserved_gpus, |s| s.gpus),
        start: r.starts_at,
        end: r.ends_at,
        renewal: renewal_id,
        handover,
        told,
        tone,
        amendments_unread: !term.amendments_read,
        changes: changes_text(gpus),
    }
}

/// A term's GPUs after its first stretch, as its amendments change them; `None` when they do not.
fn changes_text(gpus: &[Stretch]) -> Option<String> {
    let later: Vec<String> =
        gpus.iter().skip(1).map(|s| format!("{} from {}", gpus_text(s.gpus), format_utc_date(s.from))).collect();
    (!later.is_empty()).then(|| format!("then {}", later.join(", then ")))
}

/// The stretches in words: "32 GPUs from 1 Dec 2026 to 1 Nov 2027 · none from … (a gap of 24 hours)".
pub fn stretches_text(stretches: &[Stretch]) -> String {
    if stretches.is_empty() {
        return "No term here has both dates set: nothing to draw.".to_owned();
    }
    let parts: Vec<String> = stretches
        .iter()
        .map(|s| {
            let span = format!("from {} to {}", format_utc_date(s.from), format_utc_date(s.to));
            match s.gpus {
                0 => format!("no reserved GPUs {span} (a gap of {})", count(s.hours(), "hour")),
                g => format!("{} reserved {span}", gpus_text(g)),
            }
        })
        .collect();
    format!("Reserved: {}.", parts.join("; "))
}

/// What a term's overlap with its renewal costs the owner (`/capacity`'s last column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OverlapCost {
    /// No overlap: nothing is reserved twice.
    NoOverlap,
    /// The renewal's (`id`) rate is not read yet.
    RateNotRead(i64),
    /// `amount`, and `how` it is made: "24 GPU-hours × $1.25".
    Priced { amount: Usd, how: String },
}

impl OverlapCost {
    /// What the cell says where there is no sum: "—", "#14's rate not read yet".
    pub fn missing_text(&self) -> Option<String> {
        match self {
            OverlapCost::NoOverlap => Some("—".to_owned()),
            OverlapCost::RateNotRead(id) => Some(format!("#{id}'s rate not read yet")),
            OverlapCost::Priced { .. } => None,
        }
    }
}

/// The cost of reserving twice across `handover` to `renewal`, at the renewal's `rate`
/// (`None` while its detail is not read).
pub fn overlap_cost_of(
    handover: Option<Handover>,
    renewal: Option<i64>,
    rate: impl FnOnce(i64) -> Option<Usd>,
) -> OverlapCost {
    match (handover, renewal) {
        (Some(h @ Handover::Overlap { .. }), Some(id)) => match rate(id).and_then(|r| Some((r, overlap_cost(h, r)?))) {
            Some((rate, amount)) => {
                OverlapCost::Priced { amount, how: format!("{} × {rate}", count(h.gpu_hours(), "GPU-hour")) }
            }
            None => OverlapCost::RateNotRead(id),
        },
        _ => OverlapCost::NoOverlap,
    }
}

/// A past-due deadline's remedy around its sum: ("Averted by paying the ", " owed on …: how to pay.").
pub fn averted_by_words(settle: &str) -> (&'static str, String) {
    ("Averted by paying the ", format!(" {OVERDUE_RULE}: {settle}."))
}

/// A past-due deadline's remedy for the owner before the reservation's payment is read.
pub const SUM_NOT_READ: &str = "The overdue sum shows once the reservation's payment is read.";

/// A past-due deadline's remedy for a member.
pub const OWNER_ONLY: &str = "Only the account owner can avert it.";
