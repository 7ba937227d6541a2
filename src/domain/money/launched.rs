//! What a launch answer says about billing, as the banner words it. A rate is a
//! payment figure: like the payment schedule it is the owner's, so a member is told that a
//! rate applies but not what it is.

use crate::api::enums::{Billing, WorkloadKind};
use crate::api::models::{LaunchedInstance, NodesResponse};

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

/// A launch whose answer never came, looked for on a read of the nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sighting {
    /// A GPU instance of that name that was not there when the launch was sent.
    Found {
        node: String,
        id: i64,
    },
    NotSeen,
    /// The region cannot be reached: the read lists no workloads to look in.
    Unknown,
}

/// The ids of the GPU instances on `nodes`: what was there before a launch was sent.
pub fn instance_ids(nodes: &NodesResponse) -> Vec<i64> {
    nodes
        .nodes
        .iter()
        .flat_map(|n| &n.workloads)
        .filter(|w| w.kind == WorkloadKind::GpuInstance)
        .map(|w| w.id)
        .collect()
}

/// Looks on `nodes` for the instance a launch named `name` would have made: one whose id is
/// not among `before` (an older instance of the same name is not it).
pub fn look_for_launch(nodes: &NodesResponse, name: &str, before: &[i64]) -> Sighting {
    if nodes.workloads_unknown {
        return Sighting::Unknown;
    }
    nodes
        .nodes
        .iter()
        .flat_map(|n| n.workloads.iter().map(move |w| (n, w)))
        .find(|(_, w)| w.kind == WorkloadKind::GpuInstance && w.name == name && !before.contains(&w.id))
        .map_or(Sighting::NotSeen, |(n, w)| Sighting::Found { node: n.display_name.clone(), id: w.id })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(json: serde_json::Value) -> NodesResponse {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn an_unanswered_launch_is_found_only_as_a_new_instance_of_its_name() {
        let before = nodes(serde_json::json!({ "nodes": [
            { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 2, "workloads": [
                { "kind": "gpu_instance", "id": 7, "name": "nb", "gpus": 2 } ] }
        ], "workloads_unknown": false }));
        let known = instance_ids(&before);
        assert_eq!(look_for_launch(&before, "nb", &known), Sighting::NotSeen, "the older nb is not it");
        let after = nodes(serde_json::json!({ "nodes": [
            { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 2, "workloads": [
                { "kind": "gpu_instance", "id": 7, "name": "nb", "gpus": 2 } ] },
            { "display_name": "node-2", "state": "ready", "gpus": 8, "gpus_in_use": 3, "workloads": [
                { "kind": "gpu_cluster", "id": 8, "name": "nb", "gpus": 1 },
                { "kind": "gpu_instance", "id": 9, "name": "nb", "gpus": 2 } ] }
        ], "workloads_unknown": false }));
        assert_eq!(look_for_launch(&after, "nb", &known), Sighting::Found { node: "node-2".into(), id: 9 });
        assert_eq!(
            look_for_launch(&nodes(serde_json::json!({ "nodes": [], "workloads_unknown": true })), "nb", &known),
            Sighting::Unknown
        );
    }

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
