//! The demo data, laid out from a base instant — the first of the simulator's start month,
//! 00:00 UTC — so that it looks realistic whatever the date. Ids grow with creation (newest
//! first = descending id):
//!
//! Demo account (`eco_demo_owner`, `eco_demo_member`):
//! - 4  ended, ord, 2×8 H100, 6 months monthly, wallet; its last month covered by the advance
//! - 5  suspended, dfw, 2×8 B200, quarterly, invoice; period 2 past due
//! - 6  active, ams (the unreachable region), 3×8 H100, quarterly, wallet
//! - 7  past_due, mia, 3×8 H100, monthly, wallet; period 2 past due; future amendment 3→2
//!   nodes (what stops when: a wallet-funded stop and an amendment lowering nodes)
//! - 8  past_due, sea, 1×8 RTX PRO 6000, monthly, invoice; period 3 past due
//! - 9  active, ord, H100, renewal of 4; past amendment 2→3 nodes (prorated adjustment);
//!   storage billed per GiB-month; drive near its quota; node-3 preparing
//! - 12 active, atl, 4×8 RTX PRO 6000, 12 months monthly, invoice, MSA-2026-014 (seed 004's
//!   example); future amendment 4→6 nodes; node-4 under maintenance; node-3 has 4 GPUs
//!   free at every tick (its half lane is kept empty, `placement`): room for `/fit?gpus=4`
//! - 14 scheduled, atl, RTX PRO 6000: the renewal of 12, starting when 12 ends
//! - 15 assigning, lax, RTX PRO 6000, quarterly
//! - 16 awaiting_payment, phx, H100, first invoice issued · 17 awaiting_payment, den, H100,
//!   first invoice not issued yet
//! - 21 scheduled, ams, H100: the renewal of 6, a week after 6 ends (a gap) · 22 scheduled,
//!   lax, RTX PRO 6000: the renewal of 15, a month before 15 ends (an overlap)
//! - 23 active, sjc, 3×8 H100, wallet: fragmented by construction (steady lanes, 2 GPUs
//!   free on every node: 6 free, never 4 together; `assumptions::STEADY_LANES`)
//!
//! One live reservation per region, plus scheduled renewals that start after their
//! predecessor (seed 004: "one per region, and a renewal is a new reservation").
//!
//! Europe, the demo company's second account (`eco_europe_owner`, `eco_europe_member`;
//! issue 48), in regions the demo account has none in, with ids the demo account uses too:
//! - 12 active, fra, 3×8 H100, monthly, wallet; node-3 has room to launch on
//! - 9  active, lhr, 2×8 B200, quarterly, invoice; node-2 under maintenance
//! - 4  scheduled, waw, 2×8 RTX PRO 6000
//!
//! Other account (`eco_demo_other`): 11 active, atl, 1×8 H100. Scenario `large` adds 20:
//! active, iad, 1,000 nodes of 8 B200; scenario `huge` adds the same reservation 20 with
//! 10,000 nodes (storage and quotas scaled with it).

use crate::assumptions::{unit_ids, STOPS_AFTER};
use crate::billing::{ChargeStatus, Usd};
use crate::clock::{add_months, month_start};
use crate::hash::mix;
use crate::org::{OrgReservation, OrgState, OrgStatus, Vm};
use crate::reservation::{
    Account, Amendment, BillingPeriod, FirstInvoiceTerms, Funding, NodeState, Reservation, Spec, Status, Terms,
};
use crate::Scenario;
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use std::collections::HashMap;

const RTX_PRO_6000: &str = "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition";
const H100: &str = "NVIDIA-H100-80GB-HBM3";
const B200: &str = "NVIDIA-B200";
/// Nodes of the `large` scenario's reservation.
pub const LARGE_NODES: u32 = 1_000;
/// Nodes of the `huge` scenario's reservation (the same id 20, ten times the nodes).
pub const HUGE_NODES: u32 = 10_000;

pub struct Data {
    pub reservations: Vec<Reservation>,
    pub org: OrgState,
}

pub fn build(scenario: Scenario, seed: u64, start: DateTime<Utc>) -> Data {
    let base = month_start(start);
    let mut specs = demo_reservations(base, start);
    specs.extend(europe_reservations(base));
    match scenario {
        Scenario::Demo => {}
        Scenario::Large => specs.push(large_reservation(base, LARGE_NODES)),
        Scenario::Huge => specs.push(large_reservation(base, HUGE_NODES)),
    }
    specs.sort_by_key(|spec| (spec.id, spec.account));
    Data {
        reservations: specs.into_iter().map(|spec| Reservation::new(spec, start)).collect(),
        org: org_data(base, seed),
    }
}

fn terms(node_count: u32, drive_quota_gib: u32, fs_quota_gib: u32) -> Terms {
    Terms { node_count, drive_quota_gib, fs_quota_gib }
}

/// A first invoice issued for, due at and paid three days before the start.
fn paid_first_invoice(start: DateTime<Utc>) -> Option<FirstInvoiceTerms> {
    Some(FirstInvoiceTerms { issued: true, due_at: Some(start), paid_at: Some(start - TimeDelta::days(3)) })
}

/// When the ended reservation ended: the latest first-of-month at least a month back whose
/// preceding month has at most 30 days, so that the advance (730 h) covers that month whole.
fn ended_at(base: DateTime<Utc>) -> DateTime<Utc> {
    let mut end = add_months(base, -1);
    while (end - add_months(end, -1)).num_days() > 30 {
        end = add_months(end, -1);
    }
    end
}

fn demo_reservations(base: DateTime<Utc>, start: DateTime<Utc>) -> Vec<Spec> {
    let month = |k: i32| add_months(base, k);
    let ended = ended_at(base);
    let today = start.duration_trunc(TimeDelta::days(1)).unwrap_or(start);
    let ord_h100 = terms(2, 2000, 10000);
    let atl_rtx = terms(4, 5000, 20000);
    use NodeState::{Preparing, Ready, UnderMaintenance};
    vec![
        Spec {
            id: 4,
            status: Status::Ended,
            region_id: "ord",
            gpu_type: H100,
            term_months: 6,
            starts_at: Some(add_months(ended, -6)),
            contract_ref: "MSA-2025-031".into(),
            rate: Usd(210),
            initial: ord_h100,
            overrides: vec![(1, ChargeStatus::Waived)],
            ended_at: Some(ended),
            ..Spec::default()
        },
        Spec {
            id: 5,
            status: Status::Suspended,
            region_id: "dfw",
            gpu_type: B200,
            billing_period: BillingPeriod::Quarterly,
            starts_at: Some(month(-5)),
            contract_ref: "MSA-2025-044".into(),
            funding: Funding::Invoice,
            rate: Usd(340),
            initial: terms(2, 2000, 8000),
            storage_used: (800, 3000),
            overrides: vec![(1, ChargeStatus::PastDue)],
            first_invoice: paid_first_invoice(month(-5)),
            node_states: vec![Ready, Ready],
            ..Spec::default()
        },
        Spec {
            id: 6,
            region_id: "ams",
            gpu_type: H100,
            billing_period: BillingPeriod::Quarterly,
            starts_at: Some(month(-2)),
            contract_ref: "MSA-2025-052".into(),
            rate: Usd(205),
            initial: terms(3, 1000, 8000),
            storage_used: (300, 2500),
            node_states: vec![Ready, Ready, Ready],
            ..Spec::default()
        },
        Spec {
            id: 7,
            status: Status::PastDue,
            region_id: "mia",
            gpu_type: H100,
            starts_at: Some(month(-2)),
            contract_ref: "MSA-2025-071".into(),
            rate: Usd(205),
            initial: terms(3, 1000, 4000),
            // From a period's start: a lowering amendment within a period would be a negative
            // prorated adjustment, which the advance's drawing does not model.
            amendments: vec![Amendment {
                effective_at: month(1),
                before: terms(3, 1000, 4000),
                after: terms(2, 1000, 4000),
            }],
            storage_used: (400, 1500),
            overrides: vec![(1, ChargeStatus::PastDue)],
            stops_at: Some(today + STOPS_AFTER),
            node_states: vec![Ready, Ready, Ready],
            ..Spec::default()
        },
        Spec {
            id: 8,
            status: Status::PastDue,
            region_id: "sea",
            gpu_type: RTX_PRO_6000,
            starts_at: Some(month(-3)),
            contract_ref: "MSA-2025-060".into(),
            funding: Funding::Invoice,
            rate: Usd(130),
            initial: terms(1, 500, 2000),
            storage_used: (120, 900),
            overrides: vec![(2, ChargeStatus::PastDue)],
            first_invoice: paid_first_invoice(month(-3)),
            stops_at: Some(today + STOPS_AFTER),
            node_states: vec![Ready],
            ..Spec::default()
        },
        Spec {
            id: 9,
            region_id: "ord",
            gpu_type: H100,
            starts_at: Some(ended),
            contract_ref: "MSA-2025-031-R1 (renewal of reservation 4)".into(),
            rate: Usd(210),
            drive_rate: Usd(8),
            fs_rate: Usd(5),
            initial: ord_h100,
            amendments: vec![Amendment {
                effective_at: month(-1) + TimeDelta::days(9),
                before: ord_h100,
                after: terms(3, 2000, 10000),
            }],
            storage_used: (1980, 6400),
            node_states: vec![Ready, Ready, Preparing],
            ..Spec::default()
        },
        Spec {
            id: 11,
            account: Account::Other,
            region_id: "atl",
            gpu_type: H100,
            starts_at: Some(month(-2)),
            contract_ref: "MSA-2026-101".into(),
            rate: Usd(220),
            initial: terms(1, 500, 2000),
            storage_used: (100, 700),
            node_states: vec![Ready],
            ..Spec::default()
        },
        Spec {
            id: 12,
            region_id: "atl",
            gpu_type: RTX_PRO_6000,
            starts_at: Some(month(-1)),
            contract_ref: "MSA-2026-014".into(),
            funding: Funding::Invoice,
            rate: Usd(125),
            initial: atl_rtx,
            amendments: vec![Amendment { effective_at: month(2), before: atl_rtx, after: terms(6, 5000, 30000) }],
            storage_used: (1200, 8000),
            first_invoice: paid_first_invoice(month(-1)),
            node_states: vec![Ready, Ready, Ready, UnderMaintenance],
            ..Spec::default()
        },
        // Seed 004: "one per region, and a renewal is a new reservation": 12's renewal is
        // scheduled to start when 12 ends (its 12-month term).
        Spec {
            id: 14,
            status: Status::Scheduled,
            region_id: "atl",
            gpu_type: RTX_PRO_6000,
            starts_at: Some(month(11)),
            contract_ref: "MSA-2026-014-R1 (renewal of reservation 12)".into(),
            funding: Funding::Invoice,
            rate: Usd(125),
            initial: atl_rtx,
            ..Spec::default()
        },
        Spec {
            id: 15,
            status: Status::Assigning,
            region_id: "lax",
            gpu_type: RTX_PRO_6000,
            term_months: 6,
            billing_period: BillingPeriod::Quarterly,
            starts_at: Some(month(2)),
            contract_ref: "MSA-2026-023".into(),
            rate: Usd(125),
            initial: terms(2, 1000, 5000),
            ..Spec::default()
        },
        Spec {
            id: 16,
            status: Status::AwaitingPayment,
            region_id: "phx",
            gpu_type: H100,
            contract_ref: "MSA-2026-027".into(),
            funding: Funding::Invoice,
            rate: Usd(210),
            initial: terms(1, 1000, 4000),
            first_invoice: Some(FirstInvoiceTerms { issued: true, due_at: Some(month(1)), paid_at: None }),
            ..Spec::default()
        },
        Spec {
            id: 17,
            status: Status::AwaitingPayment,
            region_id: "den",
            gpu_type: H100,
            term_months: 3,
            contract_ref: "MSA-2026-031".into(),
            funding: Funding::Invoice,
            rate: Usd(215),
            initial: terms(2, 1000, 4000),
            first_invoice: Some(FirstInvoiceTerms { issued: false, due_at: None, paid_at: None }),
            ..Spec::default()
        },
        // Renewals that do not meet their predecessor's end (issue 30, capacity without gaps):
        // 6's starts a week after 6 ends, 15's a month before 15 ends.
        Spec {
            id: 21,
            status: Status::Scheduled,
            region_id: "ams",
            gpu_type: H100,
            starts_at: Some(month(10) + TimeDelta::days(7)),
            contract_ref: "MSA-2025-052-R1 (renewal of reservation 6)".into(),
            rate: Usd(205),
            initial: terms(3, 1000, 8000),
            ..Spec::default()
        },
        Spec {
            id: 22,
            status: Status::Scheduled,
            region_id: "lax",
            gpu_type: RTX_PRO_6000,
            starts_at: Some(month(7)),
            contract_ref: "MSA-2026-023-R1 (renewal of reservation 15)".into(),
            rate: Usd(125),
            initial: terms(2, 1000, 5000),
            ..Spec::default()
        },
        // Issue 30: where k GPUs fit. Enough free for 4 in total, never 4 on one node.
        Spec {
            id: 23,
            region_id: "sjc",
            gpu_type: H100,
            starts_at: Some(month(-1)),
            contract_ref: "MSA-2026-040".into(),
            rate: Usd(205),
            initial: terms(3, 1000, 4000),
            storage_used: (250, 1200),
            node_states: vec![Ready, Ready, Ready],
            steady_lanes: true,
            ..Spec::default()
        },
    ]
}

/// The second account's reservations: each id is also one of the demo account's.
fn europe_reservations(base: DateTime<Utc>) -> Vec<Spec> {
    let month = |k: i32| add_months(base, k);
    vec![
        Spec {
            id: 12,
            account: Account::Europe,
            region_id: "fra",
            gpu_type: H100,
            starts_at: Some(month(-1)),
            contract_ref: "MSA-EU-2026-012".into(),
            rate: Usd(230),
            initial: terms(3, 1000, 4000),
            storage_used: (300, 1100),
            node_states: vec![NodeState::Ready; 3],
            ..Spec::default()
        },
        Spec {
            id: 9,
            account: Account::Europe,
            region_id: "lhr",
            gpu_type: B200,
            billing_period: BillingPeriod::Quarterly,
            starts_at: Some(month(-2)),
            contract_ref: "MSA-EU-2026-009".into(),
            funding: Funding::Invoice,
            rate: Usd(335),
            initial: terms(2, 2000, 8000),
            storage_used: (700, 2600),
            first_invoice: paid_first_invoice(month(-2)),
            node_states: vec![NodeState::Ready, NodeState::UnderMaintenance],
            ..Spec::default()
        },
        Spec {
            id: 4,
            account: Account::Europe,
            status: Status::Scheduled,
            region_id: "waw",
            gpu_type: RTX_PRO_6000,
            starts_at: Some(month(1)),
            contract_ref: "MSA-EU-2026-004".into(),
            rate: Usd(128),
            initial: terms(2, 1000, 5000),
            ..Spec::default()
        },
    ]
}

/// Reservation 20 with `nodes` nodes of 8 B200; storage use and quotas grow with the node
/// count so that the drive and file-system figures keep the same proportions.
fn large_reservation(base: DateTime<Utc>, nodes: u32) -> Spec {
    let scale = nodes / LARGE_NODES;
    let state = |i: u32| match (i % 50, i % 125) {
        (49, _) => NodeState::UnderMaintenance,
        (_, 7) => NodeState::Preparing,
        _ => NodeState::Ready,
    };
    Spec {
        id: 20,
        region_id: "iad",
        gpu_type: B200,
        starts_at: Some(add_months(base, -1)),
        contract_ref: "MSA-2026-200".into(),
        rate: Usd(320),
        initial: terms(nodes, 50_000 * scale, 200_000 * scale),
        storage_used: (21_000 * scale, 90_000 * scale),
        node_states: (0..nodes).map(state).collect(),
        ..Spec::default()
    }
}

/// One org reservation; `released` picks units by index.
struct OrgPlan {
    id: &'static str,
    status: OrgStatus,
    node: &'static str,
    /// The node's GPUs, one unit each ([`unit_ids`]).
    units: u32,
    released: &'static [usize],
    allowed: &'static [&'static str],
    managing: &'static [&'static str],
    starts: DateTime<Utc>,
    ends: Option<DateTime<Utc>>,
    reason: Option<&'static str>,
    topology_gen: u32,
}

/// org_acme manages rsv_0001, rsv_0003, rsv_0004, rsv_0006, rsv_0007; it is only in the
/// audience of rsv_0002 (managed by org_beta) and rsv_0005 (managed by nobody).
/// org_beta manages rsv_0002 and rsv_0008 and is in the audience of rsv_0007.
fn org_data(base: DateTime<Utc>, seed: u64) -> OrgState {
    const ACME: &str = "org_acme";
    const BETA: &str = "org_beta";
    let month = |k: i32| add_months(base, k);
    let plans = [
        OrgPlan { id: "rsv_0001", status: OrgStatus::Active, node: "nd-atl-0142", units: 8, released: &[6, 7], allowed: &[ACME], managing: &[ACME], starts: month(-3), ends: Some(month(9)), reason: None, topology_gen: 4 },
        OrgPlan { id: "rsv_0002", status: OrgStatus::Active, node: "nd-ord-0031", units: 4, released: &[2, 3], allowed: &[ACME, BETA], managing: &[BETA], starts: month(-6), ends: None, reason: None, topology_gen: 2 },
        OrgPlan { id: "rsv_0003", status: OrgStatus::Pending, node: "nd-atl-0150", units: 8, released: &[], allowed: &[ACME], managing: &[ACME], starts: month(1), ends: Some(month(7)), reason: None, topology_gen: 1 },
        OrgPlan { id: "rsv_0004", status: OrgStatus::Expired, node: "nd-dfw-0007", units: 4, released: &[], allowed: &[ACME], managing: &[ACME], starts: month(-12), ends: Some(month(-1)), reason: None, topology_gen: 3 },
        OrgPlan { id: "rsv_0005", status: OrgStatus::Cancelled, node: "nd-sea-0019", units: 2, released: &[], allowed: &[ACME], managing: &[], starts: month(-2), ends: Some(month(4)), reason: Some("Cancelled by the node owner at org_acme's request"), topology_gen: 1 },
        OrgPlan { id: "rsv_0006", status: OrgStatus::NeedsReview, node: "nd-ord-0044", units: 8, released: &[], allowed: &[ACME], managing: &[ACME], starts: month(-4), ends: None, reason: Some("GPU topology changed under the reservation: node nd-ord-0044 is at topology generation 7 (two GPUs replaced, NVLink re-cabled), this reservation was written against generation 6. It grants nothing until an operator re-affirms it."), topology_gen: 6 },
        OrgPlan { id: "rsv_0007", status: OrgStatus::Active, node: "nd-atl-0143", units: 8, released: &[0, 1, 2, 3], allowed: &[ACME, BETA], managing: &[ACME], starts: month(-1), ends: Some(month(11)), reason: None, topology_gen: 5 },
        OrgPlan { id: "rsv_0008", status: OrgStatus::Active, node: "nd-ams-0002", units: 8, released: &[4, 5], allowed: &[BETA], managing: &[BETA], starts: month(-2), ends: None, reason: None, topology_gen: 2 },
    ];
    let mut vms = HashMap::new();
    let reservations = plans
        .iter()
        .enumerate()
        .map(|(n, plan)| {
            let units = unit_ids(plan.node, plan.units);
            let released: Vec<String> = plan.released.iter().map(|&i| units[i].clone()).collect();
            for (j, unit) in released.iter().enumerate() {
                // Every released unit runs a spot VM; every second one also a non-spot VM.
                let count = 1 + j % 2;
                let unit_vms = (0..count)
                    .map(|v| Vm {
                        id: format!("vm-{:012x}", mix(&[seed, n as u64, j as u64, v as u64]) >> 16),
                        spot: v == 0,
                    })
                    .collect();
                vms.insert(unit.clone(), unit_vms);
            }
            let created = plan.starts - TimeDelta::days(14);
            OrgReservation {
                id: plan.id.into(),
                status: plan.status,
                node_id: plan.node.into(),
                reserved_unit_ids: units,
                released_unit_ids: released,
                allowed_org_ids: plan.allowed.to_vec(),
                managing_org_ids: plan.managing.to_vec(),
                starts_at: plan.starts,
                ends_at: plan.ends,
                contract_ref: format!("CAP-{}", &plan.id[4..]),
                created_at: created,
                updated_at: created + TimeDelta::days(3),
                reason: plan.reason.map(str::to_owned),
                topology_gen: plan.topology_gen,
            }
        })
        .collect();
    OrgState { orgs: vec![ACME, BETA], reservations, vms }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billing::schedule;

    /// Seed 004's example is read in November: reservation 12 (from 1 Nov 2026) then has
    /// December as `period_index: 1`, `scheduled`, after November's period 0 paid by the first
    /// invoice. (At the simulator's own clock, 17 Dec, December has been invoiced.)
    #[test]
    fn reservation_12_read_in_november_is_seed_004s_example() {
        let clock: DateTime<Utc> = "2026-12-17T10:00:00Z".parse().unwrap();
        let specs = demo_reservations(month_start(clock), clock);
        let spec = specs.iter().find(|spec| spec.id == 12).expect("reservation 12");
        let read_in_november = schedule(spec, "2026-11-20T00:00:00Z".parse().unwrap());
        let regular: Vec<_> = read_in_november.charges.iter().filter(|c| !c.adjustment).collect();
        assert_eq!(regular[0].period_start, "2026-11-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap());
        assert_eq!((regular[0].period_index, regular[0].status), (0, ChargeStatus::Paid));
        assert_eq!(regular[1].period_start, "2026-12-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap());
        assert_eq!((regular[1].period_index, regular[1].status), (1, ChargeStatus::Scheduled));
    }
}
