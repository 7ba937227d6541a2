//! One workload across a reservation's nodes: the in-console workload page's figures.
//! Seed 004 lists a cluster once per node it has replicas on, so the workload is every
//! entry with its kind and id, its GPUs added up.

use crate::api::enums::WorkloadKind;
use crate::api::escape::percent_encoded;
use crate::api::models::NodesResponse;
use crate::domain::words::address::reservation_address;

/// The console's page of a workload on reservation `reservation` of the account labelled
/// `account` (`reservation_address`): the kind as the API spells it, so an unrecognised
/// kind has a page too.
pub fn workload_page_path(account: &str, reservation: i64, kind: &WorkloadKind, id: i64) -> String {
    let tab = format!("/workloads/{}/{id}", percent_encoded(kind.as_str()));
    reservation_address(account, reservation, &tab, &[])
}

/// Where a workload runs: its name (as the first node lists it), each node with its GPUs
/// there, in the nodes' order, and their sum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Whereabouts {
    pub name: String,
    pub nodes: Vec<(String, i64)>,
    pub total_gpus: i64,
}

/// Finds the workload `kind` #`id` on `response`'s nodes; `None` when no node lists it
/// (ended, or the region could not be read: see `workloads_unknown`).
pub fn locate(response: &NodesResponse, kind: &WorkloadKind, id: i64) -> Option<Whereabouts> {
    let nodes: Vec<(String, i64, &str)> = response
        .nodes
        .iter()
        .filter_map(|node| {
            let here: Vec<_> = node.workloads.iter().filter(|w| &w.kind == kind && w.id == id).collect();
            let first = here.first()?;
            Some((node.display_name.clone(), here.iter().map(|w| w.gpus).sum(), first.name.as_str()))
        })
        .collect();
    let name = nodes.first()?.2.to_owned();
    Some(Whereabouts {
        name,
        total_gpus: nodes.iter().map(|(_, gpus, _)| gpus).sum(),
        nodes: nodes.into_iter().map(|(node, gpus, _)| (node, gpus)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes() -> NodesResponse {
        serde_json::from_str(
            r#"{"nodes":[
              {"display_name":"node-1","state":"ready","gpus":8,"gpus_in_use":6,"workloads":[
                {"kind":"gpu_cluster","id":418,"name":"train","gpus":4,"billing":"reserved"},
                {"kind":"gpu_instance","id":418,"name":"other","gpus":2}]},
              {"display_name":"node-2","state":"ready","gpus":8,"gpus_in_use":8,"workloads":[
                {"kind":"gpu_cluster","id":418,"name":"train","gpus":8,"billing":"reserved"}]},
              {"display_name":"node-3","state":"ready","gpus":8,"gpus_in_use":0,"workloads":[]}],
              "workloads_unknown":false}"#,
        )
        .unwrap()
    }

    #[test]
    fn a_cluster_on_several_nodes_is_one_workload_with_its_gpus_added_up() {
        let found = locate(&nodes(), &WorkloadKind::GpuCluster, 418).unwrap();
        assert_eq!(found.name, "train");
        assert_eq!(found.nodes, [("node-1".to_owned(), 4), ("node-2".to_owned(), 8)]);
        assert_eq!(found.total_gpus, 12);
    }

    #[test]
    fn kind_and_id_together_name_a_workload() {
        let found = locate(&nodes(), &WorkloadKind::GpuInstance, 418).unwrap();
        assert_eq!((found.name.as_str(), found.total_gpus), ("other", 2));
        assert_eq!(locate(&nodes(), &WorkloadKind::FineTune, 418), None);
        assert_eq!(locate(&nodes(), &WorkloadKind::GpuCluster, 7), None);
    }

    #[test]
    fn the_page_path_is_under_the_reservation_and_keeps_unknown_kinds() {
        assert_eq!(
            workload_page_path("", 12, &WorkloadKind::GpuCluster, 418),
            "/reservations/12/workloads/gpu_cluster/418"
        );
        assert_eq!(
            workload_page_path("prod-eu", 12, &WorkloadKind::from("batch job"), 1),
            "/reservations/12/workloads/batch%20job/1?account=prod-eu"
        );
    }
}
