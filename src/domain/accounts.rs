//! The fleet of several accounts at once (issue 48, `docs/accounts.md`): each account's own
//! [`Fleet`], and the sums by region and by GPU type across the accounts, each naming what
//! every account adds. The sum across accounts is, by construction, the sum of the
//! per-account sums.
//!
//! Money is shown only for an owner's key: a member account's rows never carry a figure of
//! money, even if one reached it, and the accounts whose money is not shown are named. An
//! account whose read failed is named as missing and adds nothing, so the others' figures
//! stay exact (never a zero in its place).

use crate::domain::fleet::{CostView, Entry, Fleet, GpuSplit, IdleCost};
use std::collections::BTreeMap;

/// One connected account as the sums need it.
#[derive(Clone, Debug)]
pub struct AccountRead<'a> {
    /// The label the user gave it: unique among the connected accounts.
    pub label: &'a str,
    /// Whether its key is the owner's: only then is its money shown.
    pub owner: bool,
    /// Its reservations as read; `None` when its list could not be read (the caller keeps
    /// why, with the request id).
    pub entries: Option<&'a [Entry<'a>]>,
}

/// One group (a region, a GPU type): the sum across accounts and what each adds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    pub total: GpuSplit,
    /// In the order the accounts were given; an account with nothing in the group is absent.
    pub per_account: Vec<(String, GpuSplit)>,
}

impl Group {
    fn add(&mut self, label: &str, split: GpuSplit) {
        self.total += split;
        self.per_account.push((label.to_owned(), split));
    }
}

/// Idle cost across the owner accounts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Money {
    /// Idle on reservations that take launches, summed over the owner accounts shown.
    pub launchable: IdleCost,
    /// Idle on reservations closed to launches, likewise.
    pub closed: IdleCost,
    /// Whether `closed` counts a suspended reservation on the assumption that it accrues.
    pub closed_assumed: bool,
    /// Owner accounts whose figure is partial: some reservation's use or rate is unknown
    /// (each account's own [`CostView::Owner`] names which).
    pub partial: Vec<String>,
    /// Accounts whose money is not shown: a member's key, or an owner's before any rate was
    /// read. Missing accounts are named in [`Accounts::missing`] instead.
    pub not_shown: Vec<String>,
}

/// Every connected account's fleet, and the sums across them.
#[derive(Clone, Debug, PartialEq)]
pub struct Accounts {
    /// Each account read, in the order given, with its own sums; a member account's cost
    /// is always [`CostView::Member`].
    pub per_account: Vec<(String, Fleet)>,
    pub by_region: BTreeMap<String, Group>,
    pub by_gpu_type: BTreeMap<String, Group>,
    pub total: GpuSplit,
    pub money: Money,
    /// The accounts whose read failed: in no sum above.
    pub missing: Vec<String>,
}

impl Accounts {
    pub fn of(accounts: &[AccountRead<'_>]) -> Self {
        let mut sums = Accounts {
            per_account: Vec::new(),
            by_region: BTreeMap::new(),
            by_gpu_type: BTreeMap::new(),
            total: GpuSplit::default(),
            money: Money::default(),
            missing: Vec::new(),
        };
        for account in accounts {
            let label = account.label;
            let Some(entries) = account.entries else {
                sums.missing.push(label.to_owned());
                continue;
            };
            let mut fleet = Fleet::of(entries);
            if !account.owner {
                fleet.cost = CostView::Member;
            }
            for (region, split) in &fleet.by_region {
                sums.by_region.entry(region.clone()).or_default().add(label, *split);
            }
            for (gpu_type, split) in &fleet.by_gpu_type {
                sums.by_gpu_type.entry(gpu_type.clone()).or_default().add(label, *split);
            }
            sums.total += fleet.total;
            sums.money.add(label, &fleet.cost);
            sums.per_account.push((label.to_owned(), fleet));
        }
        sums
    }
}

impl Money {
    fn add(&mut self, label: &str, cost: &CostView) {
        let CostView::Owner { launchable, closed, closed_assumed, use_unknown, rate_unknown, .. } = cost else {
            self.not_shown.push(label.to_owned());
            return;
        };
        self.launchable = self.launchable + *launchable;
        self.closed = self.closed + *closed;
        self.closed_assumed |= closed_assumed;
        if !use_unknown.is_empty() || !rate_unknown.is_empty() {
            self.partial.push(label.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::enums::{NodeState, ReservationStatus};
    use crate::api::models::{NodesResponse, Reservation};
    use crate::api::money::Usd;
    use crate::domain::fleet::tests::{node, nodes, reservation};
    use proptest::prelude::*;

    /// Reservations and their `/nodes` answers, owned; entries borrow them.
    struct Held {
        reservations: Vec<Reservation>,
        answers: Vec<Option<NodesResponse>>,
        rate: Option<Usd>,
    }

    impl Held {
        fn entries(&self) -> Vec<Entry<'_>> {
            let pairs = self.reservations.iter().zip(&self.answers);
            pairs.map(|(reservation, nodes)| Entry { reservation, nodes: nodes.as_ref(), rate: self.rate }).collect()
        }
    }

    /// One active reservation per (region, GPU type, GPUs in use of 8 on one ready node).
    fn held(rows: &[(&str, &str, i64)], rate: Option<Usd>) -> Held {
        let reservations = rows
            .iter()
            .enumerate()
            .map(|(i, (region, gpu, _))| reservation(12 + i as i64, ReservationStatus::Active, region, gpu, 8))
            .collect();
        let answers =
            rows.iter().map(|(_, _, used)| Some(nodes(vec![node(NodeState::Ready, 8, Some(*used))], false))).collect();
        Held { reservations, answers, rate }
    }

    fn split(in_use: i64, free: i64) -> GpuSplit {
        GpuSplit { in_use, free, ..GpuSplit::default() }
    }

    #[test]
    fn the_same_ids_in_two_accounts_are_two_reservations_each_named_by_its_account() {
        let training = held(&[("atl", "H100", 6)], Some(Usd::from_cents(125)));
        let prod = held(&[("atl", "H100", 2)], None);
        let (t, p) = (training.entries(), prod.entries());
        assert_eq!(t[0].reservation.id, p[0].reservation.id, "the same id in both");
        let sums = Accounts::of(&[
            AccountRead { label: "training", owner: true, entries: Some(&t) },
            AccountRead { label: "prod", owner: false, entries: Some(&p) },
        ]);
        assert_eq!(sums.total, split(8, 8));
        let atl = &sums.by_region["atl"];
        assert_eq!(atl.per_account, vec![("training".to_owned(), split(6, 2)), ("prod".to_owned(), split(2, 6))]);
        assert_eq!(sums.by_gpu_type["H100"], *atl);
    }

    #[test]
    fn money_is_summed_over_owner_accounts_only_and_the_others_are_named() {
        let rate = Some(Usd::from_cents(100));
        let owner = held(&[("atl", "H100", 6)], rate);
        let member_with_a_rate = held(&[("ord", "H100", 0)], rate);
        let owner_before_rates = held(&[("sea", "B200", 0)], None);
        let (o, m, b) = (owner.entries(), member_with_a_rate.entries(), owner_before_rates.entries());
        let sums = Accounts::of(&[
            AccountRead { label: "training", owner: true, entries: Some(&o) },
            AccountRead { label: "prod", owner: false, entries: Some(&m) },
            AccountRead { label: "eu", owner: true, entries: Some(&b) },
        ]);
        assert_eq!(sums.money.launchable, IdleCost::of(2, Usd::from_cents(100)), "training's 2 free GPUs alone");
        assert_eq!(sums.money.not_shown, ["prod", "eu"]);
        assert_eq!(sums.per_account[1].1.cost, CostView::Member, "a member's rows carry no money, whatever arrived");
        assert!(sums.money.partial.is_empty());
    }

    #[test]
    fn an_owner_account_with_a_reservation_of_unknown_use_is_named_partial() {
        let mut owner = held(&[("atl", "H100", 6), ("ord", "H100", 0)], Some(Usd::from_cents(100)));
        owner.answers[1] = None;
        let entries = owner.entries();
        let sums = Accounts::of(&[AccountRead { label: "training", owner: true, entries: Some(&entries) }]);
        assert_eq!(sums.money.launchable, IdleCost::of(2, Usd::from_cents(100)));
        assert_eq!(sums.money.partial, ["training"]);
        assert_eq!(sums.total.unknown, 8, "not read: unknown, never free");
    }

    #[test]
    fn an_account_whose_read_failed_is_named_missing_and_leaves_the_others_exact() {
        let training = held(&[("atl", "H100", 6), ("ord", "B200", 1)], Some(Usd::from_cents(100)));
        let entries = training.entries();
        let alone = Accounts::of(&[AccountRead { label: "training", owner: true, entries: Some(&entries) }]);
        let beside_a_failure = Accounts::of(&[
            AccountRead { label: "prod", owner: true, entries: None },
            AccountRead { label: "training", owner: true, entries: Some(&entries) },
        ]);
        assert_eq!(beside_a_failure.missing, ["prod"]);
        assert_eq!(Accounts { missing: Vec::new(), ..beside_a_failure }, alone);
    }

    fn any_row() -> impl Strategy<Value = (&'static str, &'static str, i64)> {
        (prop::sample::select(vec!["atl", "ord", "fra"]), prop::sample::select(vec!["H100", "B200"]), 0i64..=8)
    }

    fn any_account() -> impl Strategy<Value = (Vec<(&'static str, &'static str, i64)>, bool, bool)> {
        (prop::collection::vec(any_row(), 0..4), any::<bool>(), any::<bool>())
    }

    proptest! {
        #[test]
        fn the_sum_across_accounts_is_the_sum_of_the_per_account_sums(
            accounts in prop::collection::vec(any_account(), 0..4),
        ) {
            let labels = ["a", "b", "c", "d"];
            let held: Vec<Held> = accounts.iter().map(|(rows, _, _)| held(rows, Some(Usd::from_cents(125)))).collect();
            let entries: Vec<Vec<Entry>> = held.iter().map(Held::entries).collect();
            let reads: Vec<AccountRead> = accounts
                .iter()
                .zip(&entries)
                .zip(labels)
                .map(|(((_, owner, failed), entries), label)| AccountRead {
                    label,
                    owner: *owner,
                    entries: (!failed).then_some(entries.as_slice()),
                })
                .collect();
            let sums = Accounts::of(&reads);
            let read: Vec<&AccountRead> = reads.iter().filter(|r| r.entries.is_some()).collect();
            let each: Vec<Accounts> = read.iter().map(|r| Accounts::of(std::slice::from_ref(*r))).collect();
            let total = each.iter().fold(GpuSplit::default(), |sum, one| sum + one.total);
            prop_assert_eq!(sums.total, total);
            for groups in [&sums.by_region, &sums.by_gpu_type] {
                for group in groups.values() {
                    let parts = group.per_account.iter().fold(GpuSplit::default(), |sum, (_, s)| sum + *s);
                    prop_assert_eq!(group.total, parts);
                }
                let all = groups.values().fold(GpuSplit::default(), |sum, g| sum + g.total);
                prop_assert_eq!(all, sums.total);
            }
            let launchable = each.iter().fold(IdleCost::default(), |sum, one| sum + one.money.launchable);
            prop_assert_eq!(sums.money.launchable, launchable);
            let missing: Vec<&str> = reads.iter().filter(|r| r.entries.is_none()).map(|r| r.label).collect();
            prop_assert_eq!(&sums.missing, &missing);
            for member in reads.iter().filter(|r| r.entries.is_some() && !r.owner) {
                prop_assert!(sums.money.not_shown.iter().any(|label| label == member.label));
            }
        }
    }
}
