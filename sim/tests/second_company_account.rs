//! The company's second account (issue 48): its own owner and member keys, its own regions,
//! and reservation ids that are also the demo account's, each answered from its own account.

mod common;

use common::*;
use serde_json::{json, Value};

pub const EUROPE_OWNER: &str = "eco_europe_owner";
pub const EUROPE_MEMBER: &str = "eco_europe_member";

fn ids_and_regions(list: &Value) -> Vec<(u64, String)> {
    let list = list.as_array().expect("a bare array");
    list.iter().map(|r| (r["id"].as_u64().unwrap(), r["region_id"].as_str().unwrap().to_owned())).collect()
}

#[tokio::test]
async fn the_second_account_lists_its_own_reservations_in_regions_the_demo_account_has_none_in() {
    let sim = sim().await;
    let europe = ids_and_regions(&sim.read_as("/api/gpu-reservations", EUROPE_OWNER).await);
    let demo = ids_and_regions(&sim.read_as("/api/gpu-reservations", OWNER).await);
    assert_eq!(europe.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [12, 9, 4], "newest first");
    assert!(europe.iter().all(|(id, _)| demo.iter().any(|(demo_id, _)| demo_id == id)), "every id collides");
    assert!(europe.iter().all(|(_, region)| demo.iter().all(|(_, demo_region)| demo_region != region)));
    assert_eq!(sim.read_as("/api/gpu-reservations", EUROPE_MEMBER).await.as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn a_colliding_id_answers_each_key_with_its_own_accounts_reservation() {
    let sim = sim().await;
    let theirs = sim.read_as("/api/gpu-reservations/12", EUROPE_OWNER).await;
    let ours = sim.read_as("/api/gpu-reservations/12", OWNER).await;
    assert_eq!((theirs["region_id"].as_str(), ours["region_id"].as_str()), (Some("fra"), Some("atl")));
    assert!(theirs["payment"].is_object(), "the second account's owner sees its payment");
    let member = sim.read_as("/api/gpu-reservations/12", EUROPE_MEMBER).await;
    assert!(member.get("payment").is_none(), "its member does not: {member}");
    let nodes = sim.read_as("/api/gpu-reservations/12/nodes", EUROPE_MEMBER).await;
    assert_eq!(nodes["nodes"].as_array().unwrap().len(), 3);
    assert_eq!(sim.read_as("/api/gpu-reservations/12/nodes", OWNER).await["nodes"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn an_id_only_the_demo_account_holds_is_forbidden_to_the_second_accounts_keys() {
    let sim = sim().await;
    for key in [EUROPE_OWNER, EUROPE_MEMBER] {
        assert_eq!(sim.get("/api/gpu-reservations/5", Some(key)).await.status, 403);
        assert_eq!(sim.get("/api/gpu-reservations/999", Some(key)).await.status, 404);
    }
    assert_eq!(sim.get("/api/gpu-reservations/12", Some(OTHER)).await.status, 403);
}

#[tokio::test]
async fn a_launch_lands_on_its_own_accounts_reservation_not_on_the_same_id_of_another() {
    let sim = sim().await;
    sim.freeze().await;
    let in_use = |nodes: &Value| -> u64 {
        nodes["nodes"].as_array().unwrap().iter().map(|n| n["gpus_in_use"].as_u64().unwrap()).sum()
    };
    let (theirs, ours) = (
        in_use(&sim.read_as("/api/gpu-reservations/12/nodes", EUROPE_OWNER).await),
        in_use(&sim.read_as("/api/gpu-reservations/12/nodes", OWNER).await),
    );
    let body = json!({ "region_id": "fra", "gpu_type": H100, "gpus": 1, "name": "nb-eu" });
    let reply = sim.post("/api/gpu-instances", Some(EUROPE_OWNER), &body).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert_eq!(in_use(&sim.read_as("/api/gpu-reservations/12/nodes", EUROPE_OWNER).await), theirs + 1);
    assert_eq!(in_use(&sim.read_as("/api/gpu-reservations/12/nodes", OWNER).await), ours);
}

#[tokio::test]
async fn a_hook_names_the_account_of_a_colliding_id() {
    let sim = sim().await;
    let body = json!({ "reservation_id": 9, "account": "europe", "node": "node-2", "state": "ready" });
    sim.hook("POST", "/node-state", Some(body)).await;
    let nodes = sim.read_as("/api/gpu-reservations/9/nodes", EUROPE_OWNER).await;
    assert_eq!(nodes["nodes"][1]["state"], "ready", "its node under maintenance is back");
    let demo = sim.read_as("/api/gpu-reservations/9/nodes", OWNER).await;
    assert_eq!(demo["nodes"][2]["state"], "preparing", "the demo account's 9 is untouched");
}

#[tokio::test]
async fn a_fault_given_a_key_touches_that_keys_requests_only() {
    let sim = sim().await;
    sim.fault(json!({ "kind": "429", "key": EUROPE_OWNER, "retry_after": 3 })).await;
    sim.fault(json!({ "kind": "unreachable", "key": OWNER })).await;
    let refused = sim.get("/api/gpu-reservations", Some(EUROPE_OWNER)).await;
    assert_eq!((refused.status, refused.header("retry-after")), (429, Some("3")));
    assert_eq!(sim.get("/api/gpu-reservations", Some(EUROPE_MEMBER)).await.status, 200, "another key of that account");
    assert_eq!(sim.get("/api/gpu-reservations", Some(OWNER)).await.status, 200);
    let theirs = sim.read_as("/api/gpu-reservations/12/nodes", EUROPE_MEMBER).await;
    assert_eq!(theirs["workloads_unknown"], false, "the other key's region is read");
    let ours = sim.read_as("/api/gpu-reservations/12/nodes", OWNER).await;
    assert_eq!(ours["workloads_unknown"], true);
    let listed = sim.hook("GET", "/faults", None).await;
    assert_eq!(listed["faults"][0]["key"], EUROPE_OWNER, "{listed}");
}
