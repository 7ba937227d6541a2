//! Every assumption the client makes about the APIs where the seed documents are silent
//! (CONTRACT.md: "every decision marked **assumption** must live in one clearly named
//! place"). Change them here when the real behaviour is known; the code refers to these
//! names and nowhere else spells the values out.
//!
//! How an assumption is shown, one way everywhere: its sentence here opens with "Assumed:"
//! (or "assumed:" where another sentence carries it) and is shown as it is, in
//! `span.assumed`, never after a mark of its own; where there is no room for the sentence (a
//! table cell), [`MARK`] stands for it, the sentence in its title.

use super::enums::{ChargeStatus, OrgReservationStatus, ReservationStatus, WorkloadKind};
use std::time::Duration;

/// The word that stands for an assumption's sentence where there is no room for it.
pub const MARK: &str = "assumed";

/// The API base URL when the user sets none: the console's own origin, where the simulator
/// (and a reverse proxy in production) serves the API. CORS is never relied upon.
pub const DEFAULT_BASE_URL: &str = "/api";

/// The answer header by which the local simulator says it is the API (`x-api-simulator:
/// reservations-sim`); the console shows its demo hints (the demo org) only then.
/// **assumption**: the real APIs send no such header (their documents name none).
pub const SIMULATOR_HEADER: &str = "x-api-simulator";

/// How long one request may take before it is aborted (AbortController) and reported as
/// `ErrorKind::Timeout`. Not documented; long enough for a live `/nodes` read of a region.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request that changes something (a launch, a reclaim) may take. Longer than a
/// read: its answer may take the time to place the work, and an abort does not undo it, so a
/// change given up early is one whose outcome the user must then go and find.
pub const CHANGE_TIMEOUT: Duration = Duration::from_secs(30);

/// **assumption**: the short error code arrives in the `error` field, as everywhere else in
/// this API; a `code` field is also accepted. When both carry a short code, `code` wins:
/// it is the more specific one (`{"error":"conflict","code":"gpu_capacity"}`).
pub const CODE_FIELDS: [&str; 2] = ["code", "error"];

/// What makes the text of `error` a short code rather than free text: `^[a-z][a-z0-9_]*$`.
/// Anything else (`"Reservation not found"`) is shown as the message.
pub fn is_short_code(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some('a'..='z')) && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

/// **assumption**: launches on a reservation go to `POST /gpu-instances` with
/// `{"region_id","gpu_type","gpus","name","interruptible"?}` and answer
/// `201 {"id","name","gpus","billing":"reserved","rate_usd_per_hour":0}` or one of the
/// errors seed 004 documents.
pub const LAUNCH_PATH: &str = "/gpu-instances";

/// **assumption**: reclaiming released units is
/// `POST /v1/orgs/{orgId}/reservations/{id}/reclaim` with `{"unitIds":[…],"dryRun":bool}`,
/// allowed only for an org in `managingOrgIds`, answering the reservation object with
/// `wouldTerminate`/`wouldSkip` (dry run) or `terminated`/`skipped`.
pub fn reclaim_path(org_segment: &str, reservation_segment: &str) -> String {
    format!("/v1/orgs/{org_segment}/reservations/{reservation_segment}/reclaim")
}

/// Seed 000's documented read, under the org capacity API's own base URL (set on Connect;
/// the Compute API's when left blank, as the simulator serves both under `/api`).
pub fn org_reservations_path(org_segment: &str) -> String {
    format!("/v1/orgs/{org_segment}/reservations")
}

/// **assumption**: the provider's own console shows a workload at `{origin}/{kind}s/{id}`
/// with the kind's words joined by `-` (`/gpu-instances/902`, `/gpu-clusters/418`,
/// `/inference-instances/7`, `/fine-tunes/3`): seed 004 says the id "is the one the
/// matching endpoint and console page use", not the page's path. The origin is the user's
/// (Connect, empty by default: no link); a kind the console does not know gets no link.
pub fn provider_console_path(kind: &WorkloadKind, id: i64) -> Option<String> {
    let segment = match kind {
        WorkloadKind::GpuInstance => "gpu-instances",
        WorkloadKind::GpuCluster => "gpu-clusters",
        WorkloadKind::InferenceInstance => "inference-instances",
        WorkloadKind::FineTune => "fine-tunes",
        WorkloadKind::Unknown(_) => return None,
    };
    Some(format!("/{segment}/{id}"))
}

/// **assumption**: on the org page, a 2xx that is not seed 000's list (a web page, another
/// API's JSON) means the org capacity API base URL points at something else, and a 404
/// means that, or an org the API does not know (the documents say neither what an unknown
/// org answers nor where the org API lives), so both are said.
pub const ORG_API_MISPLACED: &str = "this base URL does not serve the org capacity API";

/// **assumption**: the documents do not say whether an overdue payment pauses launches on
/// the reservation it is for or on the whole account (seed 004: "a reservation payment is
/// overdue; new launches are paused"). The console takes it per reservation: the launch
/// page's prediction and /fit's verdicts judge each reservation from its own status, so
/// "Expected to succeed" and "Fits now" are only expected, and say (through
/// `domain::nodes::capacity::success_caveat`) that an overdue payment on another reservation of the
/// account could still pause a launch.
pub const PAYMENT_DUE_SCOPE: &str = "Assumed per reservation: the API does not say whether an overdue payment on another reservation of the account also pauses launches here.";

/// **assumption** (`domain::fleet::make_room`): seed 004's `409 gpu_capacity` ("no single node has
/// enough free GPUs together") is read as the placement rule: a launch lands on a ready node
/// with its GPUs free together, any such node. The make-room plan relies on it (once the
/// stopped workloads free a node, the launch of K fits there, and each stopped one fits again
/// where room is left); which node the API picks when several have room is not documented,
/// so the launch may land elsewhere and the relaunches move with it.
pub const LAUNCH_LANDS_ON_ROOM: &str = "Assumed: a launch lands on any ready node with its GPUs free together (what the API's “no single node has enough free GPUs together” answer implies); which one it picks when several have room is not documented.";

/// **assumption**: a suspended reservation still accrues its GPU rate. Seed 004 says its
/// workloads were stopped, not that its charges stop (its term runs on and its overdue
/// invoices are still owed), so the overview counts its idle GPUs in the idle cost, apart
/// from what can be launched on, and says this wherever it changes a figure.
pub const SUSPENDED_ACCRUES: &str =
    "Assumed: a suspended reservation still accrues its rate (the API does not say whether its charges stop).";

/// **assumption** (`domain::terms::amendments::gpus_at`): a reservation's `reserved_gpus`, as the
/// list sends it, holds from its start until an amendment takes effect, which sets
/// `node_count_after` × `gpus_per_node`. The list carries no amendments (the detail does),
/// so a term whose detail is not read is counted at this figure over its whole term, and
/// the pages say so.
/// Takes the listed figure (not the reservation: this file names no model, the models read
/// their limits from here).
pub const fn reserved_gpus_over_term(listed_reserved_gpus: i64) -> i64 {
    listed_reserved_gpus
}

/// **assumption** (`domain::money::billing::check_next_charge`): seed 004 says `next_charge` is "the
/// earliest charge not yet paid" without naming the statuses that are. Scheduled, invoiced
/// and past due are taken as not yet paid; paid, covered by the advance and waived as
/// settled; a status the console does not know as neither (it is counted apart, never as
/// unpaid).
pub fn not_yet_paid(status: &ChargeStatus) -> bool {
    matches!(status, ChargeStatus::Scheduled | ChargeStatus::Invoiced | ChargeStatus::PastDue)
}

/// **assumption** (`domain::nodes::grid::state_meaning`, and every count of not-available GPUs):
/// seed 004 says a node under maintenance is "being repaired or replaced; the capacity is
/// kept on a replacement", not whether the replacement is listed in `/nodes` or takes
/// launches meanwhile. The console takes the node to stay listed, its GPUs not available
/// (no launch goes there) and still reserved and charged, and no replacement to be listed
/// beside it; a node under maintenance is shown with these words:
pub const MAINTENANCE_MEANING: &str = "not usable now; still part of what is reserved";

/// **assumption**: which statuses have nodes to read. Seed 004 lists `/nodes` for every
/// reservation and says only that assigning ones are "being set up" and ended ones over;
/// the console reads every status but assigning (nodes not assigned yet) and ended
/// (released), and an unknown status too, since the API answering for it is the only way to
/// tell.
pub fn has_nodes(status: &ReservationStatus) -> bool {
    !matches!(status, ReservationStatus::Assigning | ReservationStatus::Ended)
}

/// **assumption**: which statuses run workloads, so that reading placement tells something.
/// Seed 004: past_due only pauses new launches (its workloads run until `stops_at`) and
/// suspended has its workloads stopped; not-started statuses (assigning, scheduled,
/// awaiting_payment) are taken to run none, and an unknown status none either.
pub fn runs_workloads(status: &ReservationStatus) -> bool {
    matches!(status, ReservationStatus::Active | ReservationStatus::PastDue)
}

/// **assumption**: the documents do not say how two overlapping terms are charged. Both are
/// taken to be charged in full, so the GPU-hours reserved twice are paid again at the
/// renewal's rate (`domain::terms::timeline::overlap_cost`); said beside that figure:
pub const OVERLAP_PRICE: &str =
    "Assumed: both terms are charged for the hours they overlap, the second time at the renewal's rate.";

// **assumption** (`domain::status`): a reservation is suspended because a payment stayed
// overdue past its `stops_at`. Seed 004 says only "suspended (workloads stopped)"; the
// console words a suspended reservation as "payment stayed overdue" and tells the owner to
// settle the overdue payment ([`settle_overdue`](crate::domain::status::settle_overdue)).

/// **assumption**: released units are offered for reclaim only on an `active` org
/// reservation. Seed 000 calls them "reclaimable at any time" without naming statuses; a
/// `pending` one grants nothing yet and the others grant nothing any more, so the console
/// does not offer reclaim there (the API's answer would be the judge).
pub fn reclaim_allowed(status: &OrgReservationStatus) -> bool {
    *status == OrgReservationStatus::Active
}

/// **assumption**: the documents set no sizes. The console reads at most a 32 MiB body,
/// 100,000 nodes, 10,000 workloads on one node, 1,000 charges and 1,000 amendments
/// (`api::limits`): far above what the API sends (the largest scenario is 1,000 nodes of 8
/// GPUs; a term of monthly charges is dozens), low enough that decoding stays well under a
/// second.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
pub const MAX_NODES: usize = 100_000;
pub const MAX_WORKLOADS_PER_NODE: usize = 10_000;
pub const MAX_CHARGES: usize = 1_000;
pub const MAX_AMENDMENTS: usize = 1_000;

/// **assumption**: no count the API sends (nodes, GPUs on a node or a workload, months of a
/// term) is beyond a billion in size; a larger one is refused as out of range when decoded.
/// The bound makes every sum and product of counts the console computes fit in an `i64`
/// (a billion × a billion < 2⁶³), so none can wrap in a release build.
pub const MAX_COUNT: i64 = 1_000_000_000;

// **assumption**: a workload reporting more GPUs than its node has is as absurd as a count
// out of range (seed 004 adds a cluster's replicas on one node up, so they fit in it): its
// node is set apart as unreadable, its GPUs unknown. It lives with the decoder, see
// `models::WireWorkload::read`.

// The location of `first_invoice` (beside `payment` or inside it) is the remaining
// assumption; it lives with the model, see `ReservationDetail::first_invoice`.

/// **assumption** (`domain::money::billing::check_storage`): a regular charge's storage is (drive
/// quota × drive rate + fs quota × fs rate) per GiB-month at the quotas in force at the
/// period's start, × the months of `billing_period` when the period is exactly that long,
/// else prorated by its hours over 730 h a month (as the advance counts a month); an
/// adjustment charges no storage (quota changes take effect with the next period, as the
/// simulator does). An unknown billing period leaves storage unchecked, never ✓. The seed
/// documents none of it, so every storage figure the console checks says so:
pub const STORAGE_WHOLE_MONTHS: &str = "assumed: the quotas at the period's start, for whole months";
pub const STORAGE_PRORATED: &str = "assumed: the quotas at the period's start, prorated by hours ÷ 730 h a month";
pub const STORAGE_NOT_ON_ADJUSTMENTS: &str =
    "assumed: an adjustment charges no storage, quota changes being charged from the next period";
/// Said after a ⚠ that only the storage rule above raises (the GPU charge and the total
/// agree with the terms).
pub const STORAGE_ONLY_ASSUMED: &str =
    "Only the assumed storage rule raises this ⚠: the API documents no storage formula, and the GPU charge matches.";

/// **assumption**: an `advance_usd` of 0 is "no advance taken" (e.g. wallet funding), shown
/// as such and not as a mismatch with 730 h × GPUs × rate; any other figure is checked.
pub const ZERO_ADVANCE: &str = "No advance taken: each period is charged on its own.";

/// **assumption** (`domain::money::ledger`): the term ledger counts each charge, the advance and
/// what is left of it at their whole cents (half away from zero), the figure an invoice
/// shows, and adds those: the seed sends money as JSON numbers without saying how a sub-cent
/// amount is billed. Said beside the ledger whenever a figure had more than cents.
pub const LEDGER_WHOLE_CENTS: &str =
    "assumed: each charge counted at its whole cents, as an invoice shows it (the API sent more digits)";

/// **assumption** (`domain::terms::renewal::renewal_of`): seed 004 says "a renewal is a new
/// reservation" and not how the new one names the old. The console pairs a reservation with
/// the next reservation of the same region and GPU type by start date (then by id), whether
/// it starts before, at or after the first one's end; one without a start date (awaiting
/// payment) is left out. Shown wherever a renewal changes what is said:
pub const RENEWAL_PAIRING: &str =
    "Assumed: the renewal is the next reservation of the same region and GPU type by start date (the API does not link them).";

/// **assumption** (`domain::terms::at_risk`): the documents do not say which workloads stop when an
/// amendment lowers `node_count`, nor which nodes go. The console lists every workload
/// running now as at risk, "up to" the removed nodes' worth, and says so after the figure:
pub const NODES_LOWERED_WHICH: &str =
    "Assumed: the API does not say which nodes an amendment removes, so any of them may be among those stopped.";

/// **assumption** (`domain::terms::at_risk`): the documents do not say whether the workloads running
/// at a term's end move to the renewal that takes over then. Seed 004 says "a renewal is a
/// new reservation", and the simulator gives it nodes of its own, so "what stops when" lists
/// that end too, its workloads taken to stop with the term and to be launched again on the
/// renewal, and says so after what would stop:
pub const RENEWAL_CARRY_OVER: &str =
    "Assumed: a renewal is a new reservation on nodes of its own, and the API does not say that running workloads move to it, so they are taken to stop with this term and to be launched again on the renewal.";

/// **assumption** (`domain::exports::focus`): FOCUS wants `BilledCost` (what is invoiced) and
/// `EffectiveCost` (the cost once prepayments are spread over what they cover) per charge; the
/// API sends a schedule, not invoices. Each charge's `BilledCost` is its amount at whole cents,
/// whatever its status, so that Σ `BilledCost` is the ledger's committed total: a charge
/// covered by the advance carries the part of the advance that prepaid it (the advance is no
/// row of its own, which would count those GPU-hours twice), and its description says how
/// much; a waived charge is billed as scheduled and its `EffectiveCost` is 0, nothing being
/// paid for it; every other charge, an unrecognised status included, costs what it bills.
/// Said in the description of each row it shapes (waived, paid by the advance):
pub const FOCUS_COSTS: &str = "assumed: BilledCost is the scheduled amount, advance-covered and waived charges included, the advance being no row of its own; EffectiveCost is 0 when waived";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_console_pages_follow_the_kind_and_an_unknown_kind_has_none() {
        assert_eq!(provider_console_path(&WorkloadKind::GpuInstance, 902).as_deref(), Some("/gpu-instances/902"));
        assert_eq!(provider_console_path(&WorkloadKind::GpuCluster, 418).as_deref(), Some("/gpu-clusters/418"));
        assert_eq!(provider_console_path(&WorkloadKind::FineTune, 3).as_deref(), Some("/fine-tunes/3"));
        assert_eq!(provider_console_path(&WorkloadKind::Unknown("batch".into()), 1), None);
    }

    #[test]
    fn short_codes_are_lowercase_identifiers() {
        for code in ["unauthorized", "gpu_capacity", "rate_limit_exceeded", "e2"] {
            assert!(is_short_code(code), "{code}");
        }
        for text in ["", "Reservation not found", "2fa", "gpu-capacity", "_x", "Unauthorized", "no free GPUs"] {
            assert!(!is_short_code(text), "{text}");
        }
    }
}
