//! Every choice this simulator makes where seed 004, seed 000 and CONTRACT.md are silent, in
//! one place, so that each can be changed when the real behaviour is known. Each item below is
//! an **assumption**. Those that are a rule of code rather than a value are listed here and
//! implemented where noted:
//!
//! - **assumption** (`billing::draw_advance`): the advance is applied to the term's *last*
//!   charges, from the last backwards, as they are charged; a charge it pays entirely is
//!   `covered_by_advance`. An active reservation's `advance_remaining_usd` is therefore the
//!   whole advance; an ended one's is what the last periods did not use.
//! - **assumption** (`billing::lay_out`): `period_index` counts from 0, the period that
//!   starts at `starts_at` and that the first invoice pays ("the advance plus period 1" in
//!   seed 004's words is the first period); seed 004's example, a reservation starting
//!   1 Nov 2026, has 1 Dec – 1 Jan as `period_index: 1`, `scheduled`: the example is read in
//!   November (`scenario`'s test pins it); at the demo clock, 17 Dec, December is invoiced.
//!   An adjustment carries its period's index.
//! - **assumption** (`billing::settle`): wallet periods are paid from credit when they start
//!   (`paid_at` = start, no `due_at`); invoice periods are invoiced at their start and due
//!   [`INVOICE_TERM_MONTHS`] later, paid [`PAID_BEFORE_DUE`] before that; period 0 of a
//!   reservation with a first invoice is paid by it; an adjustment is charged when its
//!   amendment takes effect. Waived charges carry neither `due_at` nor `paid_at`.
//!   A wallet period that could not be taken (overridden `past_due`) fell due when it
//!   started: `due_at` = start, the reservation's `past_due_since`.
//! - **assumption** (`scenario`): reservation data (statuses, schedules) is fixed when the
//!   simulator starts; only placement and launches follow the clock.
//! - **assumption** (`launch`): a launch in the unreachable region succeeds (the simulator
//!   knows the truth; only the `/nodes` read cannot see it), and the 403 `reservation_only`
//!   message lists every non-ended reservation of the account.
//! - **assumption** (`launch::Launch::reservation_only`): an account with no non-ended
//!   reservation at all is answered `403 reservation_only` too ("this account has no current
//!   reservation"). Seed 004 gives these codes only "while your account has a reservation";
//!   such an account's launch would be billed by the hour, which the simulator does not serve.
//! - **assumption** (`billing::schedule`): every reservation takes an advance of one average
//!   month (730 h × GPUs × rate), wallet-funded ones too, so the simulator never sends the
//!   `advance_usd: 0` that CONTRACT.md reads as "no advance taken (e.g. wallet funding)".
//! - **assumption** (`scenario`): a node under maintenance stays one of the reservation's
//!   `node_count` nodes in `/nodes`, idle and taking no launches; no replacement node is
//!   listed beside it (seed 004: "the capacity is kept on a replacement", without saying
//!   whether the replacement appears in `/nodes` or takes launches meanwhile). The console
//!   therefore counts its GPUs as not available and still reserved.
//! - **assumption** (`org`): any valid key may read any org's reservations; reclaim checks, in
//!   order: org exists (404), reservation listed for it (404), the key's org is `orgId` (403),
//!   `orgId` manages the reservation (403), body well formed with at least one unit (400),
//!   every unit released ([`UNIT_NOT_RELEASED`]). Spot VMs on the units are terminated,
//!   others skipped and left running.

use crate::auth::Role;
use crate::billing::Usd;
use crate::reservation::Status;
use axum::http::StatusCode;
use chrono::TimeDelta;
use std::time::Duration;

/// One check of `POST /gpu-instances`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchCheck {
    /// The body is a JSON object with string `region_id`, `gpu_type` and `name`: `400`.
    WellFormed,
    /// `interruptible: true`: `409` with the free-text error and no code.
    Interruptible,
    /// No non-ended reservation of the account has this region and GPU type: `403`.
    ReservationOnly,
    /// The reservation is in one of [`PAYMENT_DUE_STATUSES`]: `402 reservation_payment_due`.
    PaymentDue,
    /// `402 reservation_awaiting_payment`.
    AwaitingPayment,
    /// `gpus` is not a whole number ≥ 1: `400 invalid_request`.
    GpuCount,
    /// No single ready node has that many free GPUs (nodes of assigning and scheduled
    /// reservations are not ready): `409 gpu_capacity`.
    Capacity,
}

/// **assumption**: the order in which a launch is checked; the first failing check answers.
pub const LAUNCH_CHECKS: [LaunchCheck; 7] = [
    LaunchCheck::WellFormed,
    LaunchCheck::Interruptible,
    LaunchCheck::ReservationOnly,
    LaunchCheck::PaymentDue,
    LaunchCheck::AwaitingPayment,
    LaunchCheck::GpuCount,
    LaunchCheck::Capacity,
];

/// **assumption** (seed 004: "one per region, and a renewal is a new reservation"): the demo
/// account holds at most one live reservation per region, plus renewals in this status that
/// start after it: at its end, or (issue 30's demo of gaps and overlaps) a week after or a
/// month before. A launch goes to the region's live reservation, never
/// to the renewal scheduled after it.
pub const RENEWAL_STATUS: Status = Status::Scheduled;

/// **assumption**: a suspended reservation answers launches like a past-due one (its
/// payment is overdue too), and the check is on the reservation launched on, not account-wide.
pub const PAYMENT_DUE_STATUSES: [Status; 2] = [Status::PastDue, Status::Suspended];

/// **assumption**: how long (simulated time) an instance launched through the API runs.
pub const INSTANCE_LIFETIME: TimeDelta = TimeDelta::minutes(5);

/// **assumption**: the region the simulator cannot reach: its `/nodes` answer
/// `workloads_unknown: true`.
pub const UNREACHABLE_REGION: &str = "ams";

/// **decision** (issue 30: the demo shows a fragmented reservation): the lanes (½, ¼, ¼ of a
/// node's GPUs, [`crate::placement`]) of a reservation with `steady_lanes` are busy or empty
/// by this, whatever the tick, and a busy one fills its lane: on nodes of 8 GPUs, 6 in use and
/// 2 free on every ready node. Reservation 23 (3 such nodes) so has 6 GPUs free in total and
/// never 4 on one node, by construction: `/fit?gpus=4` judges it fragmented. A launch takes
/// capacity first, as everywhere, so it only makes the nodes fuller.
pub const STEADY_LANES: [bool; 3] = [true, true, false];

/// Which nodes a reservation shows, and whether workloads run on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodePresence {
    /// No nodes (yet, or any more): `nodes: []`.
    None,
    /// Every node `preparing`, without workloads.
    Preparing,
    /// The nodes in their own states, workloads on the ready ones.
    Running,
    /// The nodes in their own states, no workloads.
    Stopped,
}

/// **assumption**: assigning has no nodes yet (they are being assigned); scheduled and
/// awaiting_payment have theirs assigned and `preparing`; active and past_due run workloads
/// (past_due only pauses new launches); suspended keeps its nodes with workloads stopped;
/// ended has no nodes.
pub fn node_presence(status: Status) -> NodePresence {
    match status {
        Status::Assigning | Status::Ended => NodePresence::None,
        Status::Scheduled | Status::AwaitingPayment => NodePresence::Preparing,
        Status::Active | Status::PastDue => NodePresence::Running,
        Status::Suspended => NodePresence::Stopped,
    }
}

/// **assumption**: `first_invoice` sits beside `payment` in the detail and, like it, is
/// shown to the owner only.
pub fn sees_first_invoice(role: Role) -> bool {
    role == Role::Owner
}

/// **assumption**: an invoice is due one month after it is issued.
pub const INVOICE_TERM_MONTHS: i32 = 1;

/// **assumption**: paid invoices were paid this long before they fell due.
pub const PAID_BEFORE_DUE: TimeDelta = TimeDelta::days(2);

/// **assumption**: while awaiting payment a reservation has no dates, so its first invoice
/// prices its first period (index 0) at an average month (730 h) per month of the period.
pub const UNSTARTED_HOURS_PER_MONTH: i64 = 730;

/// **assumption**: storage quota changes take effect with the next period; a prorated
/// adjustment charges GPUs only.
pub const ADJUSTMENT_STORAGE: Usd = Usd::ZERO;

/// **assumption**: a past-due reservation's `stops_at` is this long after the simulator's
/// start day (so it is always "in a few days"); `past_due_since` is when its unpaid charge fell due.
pub const STOPS_AFTER: TimeDelta = TimeDelta::days(3);

/// **assumption**: the rate-limit window is a fixed 60 s of real time, opened by a key's first
/// request after the previous window closed.
pub const RATE_WINDOW: Duration = Duration::from_secs(60);

/// **assumption**: the org capacity API is a different API (seed 000) with a base URL of its
/// own: the simulator serves it under `/api` beside the Compute API (the console's default)
/// and alone under this prefix, where the Compute API and the hooks are not served (so that
/// the console's own setting for it can be tried).
pub const ORG_API_PREFIX: &str = "/org-api";

/// Every answer of either API says it comes from this simulator, so that the console shows
/// its demo hints (the demo org) only then. **assumption**: the real APIs send no such
/// header (their documents name none), so a console pointed at them shows no demo hint.
pub const SIMULATOR_HEADER: (&str, &str) = ("x-api-simulator", "reservations-sim");

/// **assumption**: a workload in `/nodes` carries `"billing": "reserved"` like the
/// workload endpoints' answers (seed 004 says reserved workloads carry it "in their API
/// responses"; its `/nodes` example shows workloads without it).
pub const NODES_WORKLOAD_BILLING: &str = "reserved";

/// **assumption**: one org unit (seed 000's `reservedUnitIds`) is one GPU of its node, named
/// `{node}-gpu{i}` (`nd-atl-0142-gpu0` …); seed 000 does not say what a unit is.
pub fn unit_ids(node: &str, gpus: u32) -> Vec<String> {
    (0..gpus).map(|i| format!("{node}-gpu{i}")).collect()
}

/// **assumption**: reclaiming a unit that is not on the spot market answers this.
pub const UNIT_NOT_RELEASED: (StatusCode, &str) = (StatusCode::CONFLICT, "unit_not_released");
