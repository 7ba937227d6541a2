//! Charges in FOCUS 1.2 (the FinOps Open Cost and Usage Specification): the owner's payment
//! schedule, one row per charge, in the specification's column names, types and allowed
//! values, written by the one CSV writer ([`crate::domain::exports::csv`]: its formula guard applies).
//!
//! What the API says fills a column; a column it cannot fill is left empty, never guessed
//! (no list price, invoice id or billing account is sent). The reservation is a *capacity
//! reservation* (`CapacityReservationId`), bought for its term at an agreed rate
//! (`ChargeCategory` `Purchase`, `PricingCategory` `Standard`): it is not a commitment
//! discount on usage billed elsewhere, so the `CommitmentDiscount…` columns do not apply and
//! are not written. How the advance, waived and covered charges map to `BilledCost` and
//! `EffectiveCost` is [`FOCUS_COSTS`]; Σ `BilledCost` is the ledger's committed total.

use crate::api::assumptions::FOCUS_COSTS;
use crate::api::enums::ChargeStatus;
use crate::api::models::{Charge, ReservationDetail};
use crate::api::money::Usd;
use crate::domain::exports::csv::{number, text, time, write_csv, Cell};
use crate::domain::money::billing::{gpu_hours, period_name};

/// The columns, in the specification's names.
const HEADER: [&str; 32] = [
    "BillingAccountId",
    "BillingAccountName",
    "BillingCurrency",
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "BilledCost",
    "EffectiveCost",
    "ListCost",
    "ListUnitPrice",
    "ContractedCost",
    "ContractedUnitPrice",
    "PricingCategory",
    "PricingQuantity",
    "PricingUnit",
    "InvoiceId",
    "InvoiceIssuerName",
    "ProviderName",
    "PublisherName",
    "ServiceCategory",
    "ServiceName",
    "RegionId",
    "ResourceId",
    "ResourceType",
    "CapacityReservationId",
    "SkuId",
    "SubAccountId",
];

/// The provider, as the API's documents name it.
const PROVIDER: &str = "EcoLink";

/// `BilledCost` and `EffectiveCost` of a charge ([`FOCUS_COSTS`]), at whole cents as the
/// ledger counts it.
pub fn costs(c: &Charge) -> (Usd, Usd) {
    let billed = c.amount_usd.round_to_cents();
    let effective = if c.status == ChargeStatus::Waived { Usd::ZERO } else { billed };
    (billed, effective)
}

/// What the description says of how a charge stands, in the console's words.
fn settled(c: &Charge) -> String {
    let status = match &c.status {
        ChargeStatus::Unknown(raw) => format!("status as sent: {raw} (unrecognised)"),
        known => known.as_str().replace('_', " "),
    };
    let advance = c.advance_applied_usd.round_to_cents();
    let paid_by_advance = if advance.is_zero() {
        String::new()
    } else {
        format!("; {} of it paid by the advance", advance.to_plain_string())
    };
    let assumed = c.status == ChargeStatus::Waived || !advance.is_zero();
    format!("{status}{paid_by_advance}{}", if assumed { format!(" ({FOCUS_COSTS})") } else { String::new() })
}

/// Every charge of `details` (the owner's: a detail without payment has none), one row each,
/// in the order given and then the schedule's.
pub fn focus_csv(details: &[&ReservationDetail]) -> String {
    let rows = details.iter().flat_map(|detail| {
        let r = &detail.reservation;
        detail.payment.iter().flat_map(|p| &p.charges).map(move |c| {
            let (billed, effective) = costs(c);
            let quantity = gpu_hours(c, detail);
            let what = if c.adjustment { "Adjustment of reserved GPU capacity" } else { "Reserved GPU capacity" };
            let empty = || text("");
            let row: Vec<Cell> = vec![
                empty(),
                empty(),
                text("USD"),
                time(Some(c.period_start)),
                time(Some(c.period_end)),
                time(Some(c.period_start)),
                time(Some(c.period_end)),
                text("Purchase"),
                empty(),
                text(format!("{what} #{}, {}: {}", r.id, period_name(c), settled(c))),
                text(if c.adjustment { "One-Time" } else { "Recurring" }),
                number(billed.to_plain_string()),
                number(effective.to_plain_string()),
                empty(),
                empty(),
                number(billed.to_plain_string()),
                empty(),
                text("Standard"),
                quantity.map_or_else(empty, number),
                if quantity.is_some() { text("GPU-Hours") } else { empty() },
                empty(),
                text(PROVIDER),
                text(PROVIDER),
                text(PROVIDER),
                text("Compute"),
                text("Reserved GPU nodes"),
                text(&r.region_id),
                number(r.id),
                text("GPU reservation"),
                number(r.id),
                text(&r.gpu_type),
                empty(),
            ];
            row
        })
    });
    write_csv(&HEADER, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::exports::csv::tests::{assert_no_loose_formula, fields, LOOSE_FORMULAS};
    use crate::domain::money::ledger::ledger;
    use proptest::prelude::*;
    use serde_json::json;

    /// Seed 004's detail with `charges` as its schedule.
    fn detail(charges: serde_json::Value) -> ReservationDetail {
        let mut seed: serde_json::Value = serde_json::from_str(crate::api::models::tests::SEED_DETAIL).unwrap();
        seed["gpu_type"] = "RTX-PRO-6000".into();
        seed["payment"]["charges"] = charges;
        serde_json::from_value(seed).unwrap()
    }

    /// The file's rows as column → cell maps.
    fn rows(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
        let mut lines = csv.split("\r\n").filter(|l| !l.is_empty()).map(fields);
        let header = lines.next().unwrap();
        lines.map(|cells| header.iter().cloned().zip(cells).collect()).collect()
    }

    #[test]
    fn every_column_is_a_focus_1_2_column_name() {
        let csv = focus_csv(&[]);
        assert_eq!(csv.lines().next().unwrap().split(',').count(), HEADER.len());
        assert_eq!(
            csv,
            "BillingAccountId,BillingAccountName,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeClass,ChargeDescription,ChargeFrequency,BilledCost,EffectiveCost,ListCost,ListUnitPrice,ContractedCost,ContractedUnitPrice,PricingCategory,PricingQuantity,PricingUnit,InvoiceId,InvoiceIssuerName,ProviderName,PublisherName,ServiceCategory,ServiceName,RegionId,ResourceId,ResourceType,CapacityReservationId,SkuId,SubAccountId\r\n"
        );
    }

    #[test]
    fn a_charge_is_a_purchase_of_gpu_hours_and_what_the_api_does_not_say_is_left_empty() {
        let d = detail(json!([
            { "period_index": 1, "adjustment": false, "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
              "gpu_amount_usd": 29760, "storage_amount_usd": 0, "amount_usd": 29760, "advance_applied_usd": 29200, "status": "paid" },
            // The amendment adds 2 nodes (16 GPUs) on 15 Feb: 14 days to the end of February.
            { "period_index": 3, "adjustment": true, "period_start": "2027-02-01T00:00:00Z", "period_end": "2027-03-01T00:00:00Z",
              "gpu_amount_usd": 6720, "storage_amount_usd": 0, "amount_usd": 6720, "advance_applied_usd": 0, "status": "waived" }
        ]));
        let mut d = d;
        d.amendments[0].effective_at = crate::api::timestamp::parse_rfc3339("2027-02-15T00:00:00Z").unwrap();
        let csv = focus_csv(&[&d]);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(
            lines[1],
            "\"\",\"\",\"USD\",2026-12-01T00:00:00Z,2027-01-01T00:00:00Z,2026-12-01T00:00:00Z,2027-01-01T00:00:00Z,\"Purchase\",\"\",\
             \"Reserved GPU capacity #12, period 1 (1 Dec 2026 – 31 Dec 2026): paid; 29200.00 of it paid by the advance (assumed: BilledCost is the scheduled amount, advance-covered and waived charges included, the advance being no row of its own; EffectiveCost is 0 when waived)\",\"Recurring\",\
             29760.00,29760.00,\"\",\"\",29760.00,\"\",\"Standard\",23808,\"GPU-Hours\",\"\",\"EcoLink\",\"EcoLink\",\"EcoLink\",\"Compute\",\
             \"Reserved GPU nodes\",\"atl\",12,\"GPU reservation\",12,\"RTX-PRO-6000\",\"\""
        );
        let adjustment = &rows(&csv)[1];
        assert_eq!(adjustment["ChargeFrequency"], "One-Time");
        assert_eq!(adjustment["PricingQuantity"], (16 * 14 * 24).to_string());
        assert_eq!((adjustment["BilledCost"].as_str(), adjustment["EffectiveCost"].as_str()), ("6720.00", "0.00"));
        assert!(adjustment["ChargeDescription"].starts_with("Adjustment of reserved GPU capacity #12"));
    }

    #[test]
    fn gpu_hours_not_known_leave_the_quantity_and_its_unit_empty_never_zero() {
        // An adjustment with no amendment within its period.
        let d = detail(json!([
            { "period_index": 1, "adjustment": true, "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
              "gpu_amount_usd": 10, "storage_amount_usd": 0, "amount_usd": 10, "advance_applied_usd": 0, "status": "scheduled" }
        ]));
        let row = &rows(&focus_csv(&[&d]))[0];
        assert_eq!((row["PricingQuantity"].as_str(), row["PricingUnit"].as_str()), ("", ""));
    }

    #[test]
    fn the_advance_waived_covered_and_unrecognised_charges_map_as_the_assumption_says() {
        let charge = |status: &str, applied: f64| {
            json!({ "period_index": 1, "adjustment": false, "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
                    "gpu_amount_usd": 100.004, "storage_amount_usd": 0, "amount_usd": 100.004, "advance_applied_usd": applied, "status": status })
        };
        let d = detail(json!([
            charge("covered_by_advance", 100.0),
            charge("waived", 0.0),
            charge("refunded", 0.0),
            charge("past_due", 40.0)
        ]));
        let costs: Vec<(String, String, String)> = rows(&focus_csv(&[&d]))
            .into_iter()
            .map(|r| (r["BilledCost"].clone(), r["EffectiveCost"].clone(), r["ChargeDescription"].clone()))
            .collect();
        assert_eq!(costs[0].0, "100.00", "covered: billed as the charge the advance prepaid");
        assert_eq!(costs[0].1, "100.00");
        assert!(
            costs[0].2.ends_with(&format!("covered by advance; 100.00 of it paid by the advance ({FOCUS_COSTS})")),
            "{}",
            costs[0].2
        );
        assert!(costs[1].2.ends_with(&format!("waived ({FOCUS_COSTS})")), "{}", costs[1].2);
        assert_eq!((costs[1].0.as_str(), costs[1].1.as_str()), ("100.00", "0.00"), "waived: nothing is paid for it");
        assert!(costs[2].2.ends_with("status as sent: refunded (unrecognised)"), "{}", costs[2].2);
        assert_eq!((costs[3].0.as_str(), costs[3].1.as_str()), ("100.00", "100.00"));
    }

    #[test]
    fn a_member_detail_without_payment_writes_no_row() {
        let mut d = detail(json!([]));
        d.payment = None;
        assert_eq!(focus_csv(&[&d]).split("\r\n").filter(|l| !l.is_empty()).count(), 1);
    }

    #[test]
    fn no_cell_runs_as_a_formula_whatever_the_api_sends() {
        let details: Vec<ReservationDetail> = LOOSE_FORMULAS
            .iter()
            .enumerate()
            .map(|(i, hostile)| {
                let mut d = detail(json!([
                    { "period_index": -1, "adjustment": false, "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
                      "gpu_amount_usd": -5, "storage_amount_usd": 0, "amount_usd": -5, "advance_applied_usd": 0, "status": hostile }
                ]));
                d.reservation.id = -(i as i64);
                d.reservation.region_id = (*hostile).to_owned();
                d.reservation.gpu_type = (*hostile).to_owned();
                d
            })
            .collect();
        assert_no_loose_formula(&focus_csv(&details.iter().collect::<Vec<_>>()));
    }

    /// A status of the schedule, unrecognised ones among them.
    fn status() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "paid",
            "invoiced",
            "past_due",
            "scheduled",
            "waived",
            "covered_by_advance",
            "refunded",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Σ BilledCost, read back from the file, is the ledger's committed total to the cent,
        /// whatever the amounts (sub-cent ones included), statuses and advance applied.
        #[test]
        fn billed_cost_adds_up_to_the_ledgers_committed_total(
            charges in prop::collection::vec((0i64..500_000_000, 0i64..100, status(), any::<bool>(), 0u8..=100), 1..30),
        ) {
            let schedule: Vec<serde_json::Value> = charges.iter().enumerate().map(|(i, (cents, sub, status, adjustment, applied))| {
                // A fraction of a cent more than whole cents: the ledger rounds each.
                let amount = (*cents as f64 + *sub as f64 / 100.0) / 100.0;
                let applied = (*cents * i64::from(*applied) / 100) as f64 / 100.0;
                json!({ "period_index": i, "adjustment": adjustment,
                        "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
                        "gpu_amount_usd": amount, "storage_amount_usd": 0, "amount_usd": amount,
                        "advance_applied_usd": applied, "status": status })
            }).collect();
            let d = detail(serde_json::Value::Array(schedule));
            let committed = ledger(&d).unwrap().sums.committed;
            let billed: Usd = rows(&focus_csv(&[&d]))
                .iter()
                .map(|r| Usd::from_cents(r["BilledCost"].replace('.', "").parse().unwrap()))
                .sum();
            prop_assert_eq!(billed, committed);
        }
    }
}
