//! The fleet across every reservation that has nodes: reserved GPUs split into in use, free to
//! launch on, idle behind a reservation closed to launches, not available and unknown, by
//! region and by GPU type, and (for the owner) what the idle ones cost per hour and per day.
//!
//! The split is built so that it always adds up: `reserved` is computed as the sum of its
//! parts. A reservation whose nodes have not been read yet, or whose region is unreachable,
//! counts as unknown — never as free, never as zero in use.

pub mod fit;
pub mod fit_watch;
pub mod history;
pub mod make_room;
pub mod org_capacity;

use crate::api::enums::{NodeState, ReservationStatus};
use crate::api::models::{NodesResponse, Reservation};
use crate::api::money::Usd;
use crate::domain::status::launch_access;
use std::collections::BTreeMap;
use std::ops::{Add, AddAssign};

/// Hours in the "per day" figure of idle cost.
const HOURS_PER_DAY: i64 = 24;

/// Which statuses have nodes to read: an assumption, see [`has_nodes`].
pub use crate::api::assumptions::has_nodes;

/// GPUs by what they are doing. No `reserved` field: it is [`GpuSplit::reserved`], the sum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuSplit {
    pub in_use: i64,
    /// Not in use, on nodes in state `ready` of a reservation that takes launches: capacity
    /// paid for, idle, and launchable now.
    pub free: i64,
    /// Not in use, on ready nodes of a reservation whose status rules launches out (past
    /// due, suspended, not started): idle, but nothing can be launched there now.
    pub idle_closed: i64,
    /// On nodes that take no workloads now (preparing, under maintenance, a state the
    /// console does not know). A node under maintenance is counted here, with no
    /// replacement beside it (an assumption,
    /// [`MAINTENANCE_MEANING`](crate::api::assumptions::MAINTENANCE_MEANING)).
    pub not_available: i64,
    /// Not read yet, or the region could not be reached.
    pub unknown: i64,
    /// A sum of the API's counts went past `i64`: the figures are capped at `i64::MAX` and
    /// must be shown as "value out of range", never as a number.
    pub out_of_range: bool,
}

/// `a + b`, or `i64::MAX` with `flag` set when the sum overflows (the parts are never
/// negative here).
fn add_flagged(a: i64, b: i64, flag: &mut bool) -> i64 {
    a.checked_add(b).unwrap_or_else(|| {
        *flag = true;
        i64::MAX
    })
}

impl GpuSplit {
    /// The sum of the parts, `None` when it (or any part) is out of range.
    pub fn reserved(&self) -> Option<i64> {
        if self.out_of_range {
            return None;
        }
        self.in_use
            .checked_add(self.free)?
            .checked_add(self.idle_closed)?
            .checked_add(self.not_available)?
            .checked_add(self.unknown)
    }

    /// Not in use on ready nodes, launchable or not: what the idle cost counts.
    pub fn idle(&self) -> i64 {
        self.free.saturating_add(self.idle_closed)
    }

    /// A reservation never read: all of its reserved GPUs are unknown.
    pub fn unread(r: &Reservation) -> Self {
        GpuSplit { unknown: r.reserved_gpus.max(0), ..GpuSplit::default() }
    }

    /// One `/nodes` answer. A negative count is taken as 0 and more in use than a node has
    /// as all of it, so that the parts still add up to the node's GPUs (the Nodes page flags
    /// such figures; here they must not break the sums). A node whose figures could not be
    /// read counts its GPUs unknown; when its GPU count itself is absurd, the sum cannot be
    /// known at all: out of range.
    pub fn of(response: &NodesResponse) -> Self {
        let mut split = GpuSplit::default();
        let flag = &mut split.out_of_range;
        for unreadable in &response.unreadable_nodes {
            match unreadable.gpus {
                Some(gpus) => split.unknown = add_flagged(split.unknown, gpus.max(0), flag),
                None => *flag = true,
            }
        }
        for node in &response.nodes {
            let gpus = node.gpus.max(0);
            if node.state != NodeState::Ready {
                split.not_available = add_flagged(split.not_available, gpus, flag);
                continue;
            }
            match crate::domain::nodes::capacity::in_use(node, response.workloads_unknown) {
                None => split.unknown = add_flagged(split.unknown, gpus, flag),
                Some(used) => {
                    let used = used.clamp(0, gpus);
                    split.in_use = add_flagged(split.in_use, used, flag);
                    split.free = add_flagged(split.free, gpus - used, flag);
                }
            }
        }
        split
    }

    /// In use of all the GPUs, `None` when the use of any is unknown (not read, region
    /// unreachable): a share of the known ones alone would record an unreachable region's
    /// preparing or maintenance nodes as 0 % use, into the history, the CSV and the alerts.
    pub fn utilization(&self) -> Option<f64> {
        let reserved = self.reserved()?;
        (self.unknown == 0 && reserved > 0).then(|| self.in_use as f64 / reserved as f64)
    }
}

impl Add for GpuSplit {
    type Output = GpuSplit;
    fn add(self, o: GpuSplit) -> GpuSplit {
        let mut out_of_range = self.out_of_range || o.out_of_range;
        let flag = &mut out_of_range;
        GpuSplit {
            in_use: add_flagged(self.in_use, o.in_use, flag),
            free: add_flagged(self.free, o.free, flag),
            idle_closed: add_flagged(self.idle_closed, o.idle_closed, flag),
            not_available: add_flagged(self.not_available, o.not_available, flag),
            unknown: add_flagged(self.unknown, o.unknown, flag),
            out_of_range,
        }
    }
}

impl AddAssign for GpuSplit {
    fn add_assign(&mut self, o: GpuSplit) {
        *self = *self + o;
    }
}

/// What free capacity costs while it stays free.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdleCost {
    pub per_hour: Usd,
    pub per_day: Usd,
}

impl IdleCost {
    /// `free × rate` per hour, 24 times that per day.
    pub fn of(free_gpus: i64, rate_per_gpu_hour: Usd) -> Self {
        let per_hour = rate_per_gpu_hour.times(free_gpus.max(0));
        IdleCost { per_hour, per_day: per_hour.times(HOURS_PER_DAY) }
    }
}

impl Add for IdleCost {
    type Output = IdleCost;
    fn add(self, o: IdleCost) -> IdleCost {
        IdleCost { per_hour: self.per_hour + o.per_hour, per_day: self.per_day + o.per_day }
    }
}

/// Whether a reservation's GPUs are charged now, idle or not, by its status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accrual {
    /// Its term runs (active, past due, or a status the console does not know, counted as
    /// charged rather than as free of charge).
    Charged,
    /// Suspended: taken to be charged, an assumption said beside every figure it changes
    /// ([`SUSPENDED_ACCRUES`](crate::api::assumptions::SUSPENDED_ACCRUES)).
    AssumedCharged,
    /// Not started yet (assigning, scheduled, awaiting payment) or ended: no charge runs
    /// outside the term (seed 004 lays the periods out from `starts_at` to `ends_at`).
    NotCharged,
}

impl Accrual {
    pub fn of(status: &ReservationStatus) -> Self {
        match status {
            ReservationStatus::Active | ReservationStatus::PastDue | ReservationStatus::Unknown(_) => Accrual::Charged,
            ReservationStatus::Suspended => Accrual::AssumedCharged,
            ReservationStatus::Assigning
            | ReservationStatus::Scheduled
            | ReservationStatus::AwaitingPayment
            | ReservationStatus::Ended => Accrual::NotCharged,
        }
    }

    /// What `idle` GPUs cost at `rate` while they stay idle: nothing when not charged.
    pub fn idle_cost(self, idle: i64, rate: Usd) -> IdleCost {
        match self {
            Accrual::Charged | Accrual::AssumedCharged => IdleCost::of(idle, rate),
            Accrual::NotCharged => IdleCost::default(),
        }
    }
}

/// One reservation as the overview knows it now.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry<'a> {
    pub reservation: &'a Reservation,
    /// The last `/nodes` answer, if any arrived.
    pub nodes: Option<&'a NodesResponse>,
    /// `payment.rate_usd_per_gpu_hour`: present only when the owner's key read the detail.
    pub rate: Option<Usd>,
}

impl Entry<'_> {
    /// Its GPUs split; the free ones of a reservation closed to launches are `idle_closed`.
    pub fn split(&self) -> GpuSplit {
        let mut split = self.nodes.map_or_else(|| GpuSplit::unread(self.reservation), GpuSplit::of);
        if !launch_access(&self.reservation.status).allows_launch() {
            split.idle_closed = split.free;
            split.free = 0;
        }
        split
    }
}

/// What the viewer may see of cost. A member never gets a rate or an amount.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CostView {
    Owner {
        /// Per reservation id, in the order of the reservations; `None` where the use of some
        /// of its GPUs is unknown (not read yet, region unreachable): its idle cost is
        /// unknown, never $0.
        per_reservation: Vec<(i64, Option<IdleCost>)>,
        /// Idle on reservations that take launches.
        launchable: IdleCost,
        /// Idle on reservations closed to launches (past due, suspended; one not started
        /// is not charged: [`Accrual`]).
        closed: IdleCost,
        /// Whether `closed` counts a suspended reservation, on the assumption that it still
        /// accrues its rate ([`SUSPENDED_ACCRUES`](crate::api::assumptions::SUSPENDED_ACCRUES)).
        closed_assumed: bool,
        /// The reservations left out of both sums because their use is unknown.
        use_unknown: Vec<i64>,
        /// The reservations left out of everything above because their rate is not read
        /// (detail not read yet, or its read failed): the sums are then a partial, lower
        /// figure, never withheld for one missing rate.
        rate_unknown: Vec<i64>,
    },
    /// No rate read at all: a member's key (it is never sent one), or an owner's before the
    /// first detail arrives.
    Member,
}

impl CostView {
    /// The owner's view of each reservation's idle cost (`None`: its use is unknown), summed
    /// apart by whether the reservation takes launches; `rate_unknown` are left out.
    fn owner(costs: &[(&Reservation, Option<IdleCost>)], rate_unknown: Vec<i64>) -> Self {
        let (mut launchable, mut closed) = (IdleCost::default(), IdleCost::default());
        let (mut closed_assumed, mut use_unknown) = (false, Vec::new());
        for (r, cost) in costs {
            match cost {
                None => use_unknown.push(r.id),
                Some(cost) if launch_access(&r.status).allows_launch() => launchable = launchable + *cost,
                Some(cost) => {
                    closed = closed + *cost;
                    closed_assumed |= Accrual::of(&r.status) == Accrual::AssumedCharged && cost.per_hour != Usd::ZERO;
                }
            }
        }
        let per_reservation = costs.iter().map(|(r, c)| (r.id, *c)).collect();
        CostView::Owner { per_reservation, launchable, closed, closed_assumed, use_unknown, rate_unknown }
    }
}

/// The fleet summed, by region and by GPU type, with the total line.
#[derive(Clone, Debug, PartialEq)]
pub struct Fleet {
    pub per_reservation: Vec<(i64, GpuSplit)>,
    pub by_region: BTreeMap<String, GpuSplit>,
    pub by_gpu_type: BTreeMap<String, GpuSplit>,
    pub total: GpuSplit,
    pub cost: CostView,
}

impl Fleet {
    /// Sums over the reservations that have nodes (others are left out). Cost is the owner's
    /// once any rate was read; the reservations without one are named, the sums partial.
    pub fn of(members: &[Entry<'_>]) -> Self {
        let members: Vec<&Entry> = members.iter().filter(|m| has_nodes(&m.reservation.status)).collect();
        let mut fleet = Fleet {
            per_reservation: Vec::new(),
            by_region: BTreeMap::new(),
            by_gpu_type: BTreeMap::new(),
            total: GpuSplit::default(),
            cost: CostView::Member,
        };
        let (mut costs, mut rate_unknown) = (Vec::new(), Vec::new());
        for m in &members {
            let split = m.split();
            let r = m.reservation;
            fleet.per_reservation.push((r.id, split));
            *fleet.by_region.entry(r.region_id.clone()).or_default() += split;
            *fleet.by_gpu_type.entry(r.gpu_type.clone()).or_default() += split;
            fleet.total += split;
            let known = (split.unknown == 0).then_some(split);
            match m.rate {
                Some(rate) => costs.push((r, known.map(|s| Accrual::of(&r.status).idle_cost(s.idle(), rate)))),
                None => rate_unknown.push(r.id),
            }
        }
        if !costs.is_empty() {
            fleet.cost = CostView::owner(&costs, rate_unknown);
        }
        fleet
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::models::{Node, UnreadableNode};

    pub(crate) fn reservation(id: i64, status: ReservationStatus, region: &str, gpu: &str, gpus: i64) -> Reservation {
        let mut r = serde_json::from_str::<Vec<Reservation>>(crate::api::models::tests::SEED_LIST).unwrap().remove(0);
        r.id = id;
        r.status = status;
        r.region_id = region.to_owned();
        r.gpu_type = gpu.to_owned();
        r.reserved_gpus = gpus;
        r
    }

    pub(crate) fn node(state: NodeState, gpus: i64, in_use: Option<i64>) -> Node {
        Node { display_name: "n".into(), state, gpus, gpus_in_use: in_use, workloads: Vec::new() }
    }

    pub(crate) fn nodes(list: Vec<Node>, unknown: bool) -> NodesResponse {
        NodesResponse { nodes: list, workloads_unknown: unknown, ..NodesResponse::default() }
    }

    #[test]
    fn a_ready_node_splits_into_in_use_and_free_and_others_are_not_available() {
        let r = nodes(
            vec![
                node(NodeState::Ready, 8, Some(6)),
                node(NodeState::UnderMaintenance, 8, Some(0)),
                node(NodeState::Preparing, 8, None),
            ],
            false,
        );
        let s = GpuSplit::of(&r);
        assert_eq!(
            s,
            GpuSplit { in_use: 6, free: 2, idle_closed: 0, not_available: 16, unknown: 0, out_of_range: false }
        );
        assert_eq!(s.reserved(), Some(24));
    }

    #[test]
    fn an_unreachable_region_is_unknown_never_free_or_zero() {
        let s = GpuSplit::of(&nodes(vec![node(NodeState::Ready, 8, Some(0)), node(NodeState::Ready, 8, None)], true));
        assert_eq!(
            s,
            GpuSplit { in_use: 0, free: 0, idle_closed: 0, not_available: 0, unknown: 16, out_of_range: false }
        );
        assert_eq!(s.utilization(), None);
    }

    #[test]
    fn absurd_counts_are_clamped_so_the_parts_add_up_to_the_node() {
        let s =
            GpuSplit::of(&nodes(vec![node(NodeState::Ready, 8, Some(11)), node(NodeState::Ready, -4, Some(0))], false));
        assert_eq!(
            s,
            GpuSplit { in_use: 8, free: 0, idle_closed: 0, not_available: 0, unknown: 0, out_of_range: false }
        );
    }

    #[test]
    fn a_node_whose_figures_could_not_be_read_counts_unknown_beside_its_neighbours() {
        let mut answer = nodes(vec![node(NodeState::Ready, 8, Some(6))], false);
        answer.unreadable_nodes.push(UnreadableNode {
            display_name: "node-2".into(),
            state: NodeState::Ready,
            gpus: Some(8),
            why: "gpus_in_use: out of range".into(),
        });
        let s = GpuSplit::of(&answer);
        assert_eq!(
            s,
            GpuSplit { in_use: 6, free: 2, idle_closed: 0, not_available: 0, unknown: 8, out_of_range: false }
        );
        assert_eq!(s.utilization(), None, "a node of unknown use: no share recorded");
        answer.unreadable_nodes[0].gpus = None;
        assert_eq!(GpuSplit::of(&answer).reserved(), None, "its GPU count is absurd: the sum is out of range");
    }

    #[test]
    fn sums_past_i64_are_flagged_out_of_range_never_wrapped_or_panicked() {
        let huge = || node(NodeState::Ready, i64::MAX, Some(0));
        let s = GpuSplit::of(&nodes(vec![huge(), huge()], false));
        assert!(s.out_of_range);
        assert_eq!((s.free, s.reserved(), s.utilization()), (i64::MAX, None, None));
        let one = GpuSplit::of(&nodes(vec![huge()], false));
        assert!(!one.out_of_range);
        assert_eq!(one.reserved(), Some(i64::MAX));
        let sum = one + one;
        assert!(sum.out_of_range && sum.free == i64::MAX);
        let mixed = GpuSplit::of(&nodes(vec![huge(), node(NodeState::Preparing, i64::MAX, None)], false));
        assert!(!mixed.out_of_range);
        assert_eq!(mixed.reserved(), None, "the parts fit, their sum does not");
    }

    #[test]
    fn sums_by_region_and_gpu_type_add_up_to_the_total_and_unread_is_unknown() {
        let a = reservation(1, ReservationStatus::Active, "atl", "B200", 16);
        let b = reservation(2, ReservationStatus::PastDue, "ams", "B200", 8);
        let c = reservation(3, ReservationStatus::Active, "atl", "H100", 8);
        let ended = reservation(4, ReservationStatus::Ended, "atl", "H100", 64);
        let na = nodes(vec![node(NodeState::Ready, 8, Some(2)), node(NodeState::Ready, 8, Some(8))], false);
        let nb = nodes(vec![node(NodeState::Ready, 8, None)], true);
        let members = [
            Entry { reservation: &a, nodes: Some(&na), rate: None },
            Entry { reservation: &b, nodes: Some(&nb), rate: None },
            Entry { reservation: &c, nodes: None, rate: None },
            Entry { reservation: &ended, nodes: None, rate: None },
        ];
        let f = Fleet::of(&members);
        assert_eq!(f.per_reservation.len(), 3, "ended has no nodes and is left out");
        assert_eq!(
            f.total,
            GpuSplit { in_use: 10, free: 6, idle_closed: 0, not_available: 0, unknown: 16, out_of_range: false }
        );
        assert_eq!(f.total.reserved(), Some(32));
        for groups in [&f.by_region, &f.by_gpu_type] {
            let sum = groups.values().fold(GpuSplit::default(), |s, g| s + *g);
            assert_eq!(sum, f.total);
        }
        assert_eq!(
            f.by_region["atl"],
            GpuSplit { in_use: 10, free: 6, idle_closed: 0, not_available: 0, unknown: 8, out_of_range: false }
        );
        assert_eq!(
            f.by_gpu_type["B200"],
            GpuSplit { in_use: 10, free: 6, idle_closed: 0, not_available: 0, unknown: 8, out_of_range: false }
        );
        assert_eq!(f.cost, CostView::Member);
    }

    #[test]
    fn the_owner_sees_idle_cost_per_reservation_and_in_total_exactly() {
        let a = reservation(1, ReservationStatus::Active, "atl", "B200", 16);
        let b = reservation(2, ReservationStatus::Active, "ams", "B200", 8);
        let na = nodes(vec![node(NodeState::Ready, 8, Some(3)), node(NodeState::UnderMaintenance, 8, Some(0))], false);
        let nb = nodes(vec![node(NodeState::Ready, 8, Some(0))], false);
        let rate = Usd::from_micros(2_340_000);
        let owner = [
            Entry { reservation: &a, nodes: Some(&na), rate: Some(rate) },
            Entry { reservation: &b, nodes: Some(&nb), rate: Some(Usd::from_cents(125)) },
        ];
        let CostView::Owner { per_reservation, launchable, closed, closed_assumed, use_unknown, .. } =
            Fleet::of(&owner).cost
        else {
            panic!("owner sees cost")
        };
        assert_eq!(
            per_reservation[0],
            (1, Some(IdleCost { per_hour: Usd::from_cents(1170), per_day: Usd::from_cents(28080) }))
        );
        assert_eq!(per_reservation[1].1.unwrap().per_hour, Usd::from_cents(1000));
        assert_eq!(launchable, IdleCost { per_hour: Usd::from_cents(2170), per_day: Usd::from_cents(52080) });
        assert_eq!((closed, closed_assumed, use_unknown), (IdleCost::default(), false, vec![]));

        let member = [
            Entry { reservation: &a, nodes: Some(&na), rate: None },
            Entry { reservation: &b, nodes: Some(&nb), rate: None },
        ];
        assert_eq!(Fleet::of(&member).cost, CostView::Member);
    }

    #[test]
    fn one_rate_not_read_leaves_the_others_summed_and_names_it() {
        let a = reservation(1, ReservationStatus::Active, "atl", "B200", 8);
        let b = reservation(2, ReservationStatus::Active, "ams", "B200", 8);
        let free = nodes(vec![node(NodeState::Ready, 8, Some(6))], false);
        let owner = [
            Entry { reservation: &a, nodes: Some(&free), rate: Some(Usd::from_cents(125)) },
            Entry { reservation: &b, nodes: Some(&free), rate: None },
        ];
        let CostView::Owner { per_reservation, launchable, rate_unknown, .. } = Fleet::of(&owner).cost else {
            panic!("one rate read is enough to show the known part")
        };
        assert_eq!(launchable.per_hour, Usd::from_cents(250), "2 free × $1.25 of #1 only");
        assert_eq!(per_reservation, vec![(1, Some(IdleCost::of(2, Usd::from_cents(125))))]);
        assert_eq!(rate_unknown, vec![2]);
    }

    #[test]
    fn an_unreachable_region_with_a_node_not_ready_records_no_utilization() {
        let unreachable =
            nodes(vec![node(NodeState::Ready, 8, None), node(NodeState::UnderMaintenance, 8, None)], true);
        let split = GpuSplit::of(&unreachable);
        assert_eq!((split.unknown, split.not_available), (8, 8));
        assert_eq!(split.utilization(), None, "8 GPUs of unknown use: no share, never 0 %");
        let read =
            GpuSplit::of(&nodes(vec![node(NodeState::Ready, 8, Some(2)), node(NodeState::Preparing, 8, None)], false));
        assert_eq!(read.utilization(), Some(2.0 / 16.0), "a node not ready is known: none of it in use");
    }

    #[test]
    fn a_reservation_whose_use_is_unknown_has_an_unknown_idle_cost_never_zero() {
        let a = reservation(1, ReservationStatus::Active, "atl", "B200", 8);
        let b = reservation(2, ReservationStatus::Active, "ams", "B200", 16);
        let c = reservation(3, ReservationStatus::Active, "dfw", "B200", 8);
        let na = nodes(vec![node(NodeState::Ready, 8, Some(6))], false);
        let nb = nodes(vec![node(NodeState::Ready, 8, None), node(NodeState::Preparing, 8, None)], true);
        let rate = Some(Usd::from_cents(100));
        let owner = [
            Entry { reservation: &a, nodes: Some(&na), rate },
            Entry { reservation: &b, nodes: Some(&nb), rate },
            Entry { reservation: &c, nodes: None, rate },
        ];
        let CostView::Owner { per_reservation, launchable, use_unknown, .. } = Fleet::of(&owner).cost else {
            panic!("owner sees cost")
        };
        assert_eq!(per_reservation[1], (2, None), "region unreachable");
        assert_eq!(per_reservation[2], (3, None), "not read yet");
        assert_eq!(launchable.per_hour, Usd::from_cents(200), "only #1's 2 free GPUs are known");
        assert_eq!(use_unknown, [2, 3]);
    }

    #[test]
    fn idle_behind_a_closed_reservation_is_not_free_to_launch_on_nor_in_the_launchable_cost() {
        let active = reservation(1, ReservationStatus::Active, "atl", "B200", 8);
        let past_due = reservation(8, ReservationStatus::PastDue, "atl", "B200", 8);
        let suspended = reservation(5, ReservationStatus::Suspended, "ams", "H100", 8);
        let used = nodes(vec![node(NodeState::Ready, 8, Some(6))], false);
        let idle = nodes(vec![node(NodeState::Ready, 8, Some(0))], false);
        let rate = Some(Usd::from_cents(100));
        let members = [
            Entry { reservation: &active, nodes: Some(&used), rate },
            Entry { reservation: &past_due, nodes: Some(&used), rate },
            Entry { reservation: &suspended, nodes: Some(&idle), rate: Some(Usd::from_cents(340)) },
        ];
        let f = Fleet::of(&members);
        assert_eq!(
            f.total,
            GpuSplit { in_use: 12, free: 2, idle_closed: 10, not_available: 0, unknown: 0, out_of_range: false }
        );
        assert_eq!((f.by_region["atl"].free, f.by_region["atl"].idle_closed), (2, 2));
        assert_eq!(f.total.reserved(), Some(24));
        let CostView::Owner { per_reservation, launchable, closed, closed_assumed, .. } = f.cost else {
            panic!("owner sees cost")
        };
        assert_eq!(launchable.per_hour, Usd::from_cents(200));
        assert_eq!(closed.per_hour, Usd::from_cents(200 + 2720), "2 idle on #8 at $1, 8 on #5 at $3.40");
        assert!(closed_assumed, "a suspended reservation's rate is assumed to accrue");
        assert_eq!(per_reservation[2].1.unwrap().per_hour, Usd::from_cents(2720));
    }

    #[test]
    fn idle_gpus_of_a_reservation_not_yet_started_cost_nothing_as_no_charge_runs_before_its_term() {
        let scheduled = reservation(14, ReservationStatus::Scheduled, "atl", "B200", 8);
        let awaiting = reservation(16, ReservationStatus::AwaitingPayment, "dfw", "B200", 8);
        let idle = nodes(vec![node(NodeState::Ready, 8, Some(0))], false);
        let rate = Some(Usd::from_cents(125));
        let members = [
            Entry { reservation: &scheduled, nodes: Some(&idle), rate },
            Entry { reservation: &awaiting, nodes: Some(&idle), rate },
        ];
        let f = Fleet::of(&members);
        assert_eq!(f.total.idle_closed, 16, "idle, and closed to launches, all the same");
        let CostView::Owner { per_reservation, closed, closed_assumed, .. } = f.cost else { panic!("owner sees cost") };
        assert_eq!(closed, IdleCost::default(), "nothing accrues before the term starts");
        assert!(!closed_assumed);
        assert_eq!(per_reservation, vec![(14, Some(IdleCost::default())), (16, Some(IdleCost::default()))]);
    }
}
