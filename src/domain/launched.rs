//! What a launch answer says about billing, as the banner words it. A rate is a
//! payment figure: like the payment schedule it is the owner's, so a member is told that a
//! rate applies but not what it is.

use crate::api::enums::Billing;
use crate::api::models::LaunchedInstance;

/// The banner's billing words, and whether the answer is what a launch on the reservation
/// should get (billed by the reservation at $0/h). `owner`: the key is known to be the
/// owner's (an unknown role is not).
pub fn billing_text(instance: &LaunchedInstance, owner: bool) -> (String, bool) {
    let reserved = instance.billing == Some(Billing::Reserved);
    let free = instance.rate_usd_per_hour.is_none_or(|rate| rate.is_zero());
    if reserved && free {
        return ("billed by reservation, $0/h".to_owned(), true);
    }
    let billing = instance.billing.as_ref().map_or("not stated", |b| b.as_str());
    let rate = match &instance.rate_usd_per_hour {
        None => "no rate stated".to_owned(),
        Some(rate) if rate.is_zero() => "$0/h".to_owned(),
        Some(rate) if owner => format!("{rate}/h"),
        Some(_) => "an hourly rate applies (the account owner sees it)".to_owned(),
    };
    (format!("billing {billing}, {rate}"), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launched(billing: &str, rate: Option<f64>) -> LaunchedInstance {
        serde_json::from_value(serde_json::json!({
            "id": 7, "name": "nb", "gpus": 1, "billing": billing, "rate_usd_per_hour": rate
        }))
        .unwrap()
    }

    #[test]
    fn a_non_zero_rate_is_shown_to_the_owner_only() {
        let on_demand = launched("on_demand", Some(2.5));
        let (owner, ok) = billing_text(&on_demand, true);
        assert_eq!((owner.as_str(), ok), ("billing on_demand, $2.50/h", false));
        let (member, ok) = billing_text(&on_demand, false);
        assert!(!member.contains("2.5") && !ok, "{member}");
        assert_eq!(member, "billing on_demand, an hourly rate applies (the account owner sees it)");
        assert_eq!(
            billing_text(&launched("reserved", Some(0.0)), false),
            ("billed by reservation, $0/h".to_owned(), true)
        );
    }
}
