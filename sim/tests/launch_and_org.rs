//! `POST /api/gpu-instances` answered from the account's real state, and the org capacity
//! API (seed 000): lists per org, reclaim dry run and real.

mod common;

use chrono::TimeDelta;
use common::*;
use serde_json::{json, Value};

fn launch_body(region: &str, gpu_type: &str, gpus: Value) -> Value {
    json!({ "region_id": region, "gpu_type": gpu_type, "gpus": gpus, "name": "nb-1" })
}

async fn launch(sim: &Sim, key: &str, body: Value) -> (u16, Value) {
    let reply = sim.post("/api/gpu-instances", Some(key), &body).await;
    (reply.status, reply.json())
}

#[tokio::test]
async fn each_launch_error_comes_from_the_reservations_state_in_the_documented_order() {
    let sim = sim().await;
    let mut interruptible = launch_body("sea", RTX, json!(2));
    interruptible["interruptible"] = json!(true);
    let (status, body) = launch(&sim, OWNER, interruptible).await;
    assert_eq!(status, 409, "checked before the past-due reservation in sea");
    assert!(
        body.as_object().unwrap().len() == 1 && body["error"].as_str().unwrap().contains("interruptible"),
        "{body}"
    );

    let (status, body) = launch(&sim, OWNER, launch_body("atl", H100, json!(1))).await;
    assert_eq!((status, &body["error"]), (403, &json!("reservation_only")));
    assert!(body["message"].as_str().unwrap().contains(&format!("{H100} in ord")), "{body}");
    let (status, body) = launch(&sim, OTHER, launch_body("atl", RTX, json!(1))).await;
    assert_eq!(status, 403);
    assert!(body["message"].as_str().unwrap().contains(&format!("Your reservation is for {H100} in atl")), "{body}");
    let (status, _) = launch(&sim, OWNER, launch_body("ord", H100, json!(1))).await;
    assert_eq!(status, 201, "the renewal in ord, not the ended reservation, takes it");

    for (region, gpu_type, status, code) in [
        ("sea", RTX, 402, "reservation_payment_due"),
        ("dfw", B200, 402, "reservation_payment_due"),
        ("phx", H100, 402, "reservation_awaiting_payment"),
        ("den", H100, 402, "reservation_awaiting_payment"),
        ("atl", B200, 403, "reservation_only"),
        ("lax", RTX, 409, "gpu_capacity"),
        ("atl", RTX, 409, "gpu_capacity"),
    ] {
        let gpus = if region == "atl" && gpu_type == RTX { 9 } else { 1 };
        let (got, body) = launch(&sim, OWNER, launch_body(region, gpu_type, json!(gpus))).await;
        assert_eq!((got, body["error"].as_str().unwrap()), (status, code), "{region} {gpu_type}: {body}");
        assert!(body["message"].is_string());
    }
    for gpus in [json!(0), json!(-1), json!("2"), json!(1.5), Value::Null] {
        let (status, body) = launch(&sim, OWNER, launch_body("atl", RTX, gpus)).await;
        assert_eq!((status, &body["error"]), (400, &json!("invalid_request")));
    }
    let (status, _) = launch(&sim, OWNER, json!({ "gpus": 1 })).await;
    assert_eq!(status, 400);
    assert_eq!(sim.post("/api/gpu-instances", None, &launch_body("atl", RTX, json!(1))).await.status, 401);
}

#[tokio::test]
async fn launches_take_free_gpus_until_none_is_left_show_on_nodes_then_end() {
    let sim = sim().await;
    sim.freeze().await;
    let mut launched = Vec::new();
    loop {
        let (status, body) = launch(&sim, OWNER, launch_body("atl", RTX, json!(1))).await;
        if status == 409 {
            assert_eq!(body["error"], "gpu_capacity");
            let nodes = sim.read("/api/gpu-reservations/12/nodes").await;
            let ready = nodes["nodes"].as_array().unwrap().iter().filter(|n| n["state"] == "ready");
            assert!(ready.clone().all(|n| n["gpus_in_use"] == n["gpus"]), "refused while a GPU is free: {nodes}");
            break;
        }
        assert_eq!(status, 201, "{body}");
        assert_eq!(
            (&body["billing"], &body["rate_usd_per_hour"], &body["gpus"], &body["name"]),
            (&json!("reserved"), &json!(0), &json!(1), &json!("nb-1"))
        );
        launched.push(body["id"].clone());
        let nodes = sim.read("/api/gpu-reservations/12/nodes").await;
        let shown: Vec<&Value> =
            nodes["nodes"].as_array().unwrap().iter().flat_map(|n| n["workloads"].as_array().unwrap()).collect();
        for id in &launched {
            assert!(
                shown.iter().any(|w| w["id"] == *id && w["kind"] == "gpu_instance" && w["billing"] == "reserved"),
                "{id} not on /nodes"
            );
        }
        for node in nodes["nodes"].as_array().unwrap() {
            let sum: u64 = node["workloads"].as_array().unwrap().iter().map(|w| w["gpus"].as_u64().unwrap()).sum();
            assert_eq!(node["gpus_in_use"].as_u64(), Some(sum));
            assert!(sum <= 8);
        }
        assert!(launched.len() <= 24, "three ready nodes of 8 GPUs");
    }
    assert!(!launched.is_empty());
    sim.advance(6.0 * 60.0).await;
    let nodes = sim.read("/api/gpu-reservations/12/nodes").await.to_string();
    assert!(launched.iter().all(|id| !nodes.contains(&format!("\"id\":{id}"))), "launched instances end");
}

#[tokio::test]
async fn org_lists_follow_audience_and_managers_with_every_schema_field() {
    let sim = sim().await;
    let acme = sim.read("/api/v1/orgs/org_acme/reservations").await;
    let acme = acme.as_array().unwrap();
    let statuses: std::collections::BTreeSet<&str> = acme.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["active", "cancelled", "expired", "needs-review", "pending"].into());
    for r in acme {
        for field in [
            "id",
            "status",
            "nodeId",
            "reservedUnitIds",
            "releasedUnitIds",
            "allowedOrgIds",
            "managingOrgIds",
            "startsAt",
            "contractRef",
            "createdAt",
            "updatedAt",
            "topologyGen",
        ] {
            assert!(r.get(field).is_some(), "{field} missing: {r}");
        }
        for field in ["terminated", "skipped", "wouldTerminate", "wouldSkip"] {
            assert!(r.get(field).is_none(), "reclaim-only {field} on GET");
        }
        let reserved = r["reservedUnitIds"].as_array().unwrap();
        assert!(r["releasedUnitIds"].as_array().unwrap().iter().all(|u| reserved.contains(u)));
        let member = |list: &str| r[list].as_array().unwrap().contains(&json!("org_acme"));
        assert!(member("allowedOrgIds") || member("managingOrgIds"));
    }
    let review = acme.iter().find(|r| r["status"] == "needs-review").unwrap();
    assert!(review["reason"].as_str().unwrap().contains("topology") && review["topologyGen"].is_u64());
    assert!(acme.iter().any(|r| r.get("endsAt").is_none()), "an open-ended reservation");
    assert!(acme.iter().any(|r| !r["releasedUnitIds"].as_array().unwrap().is_empty()));
    let managed = acme.iter().filter(|r| r["managingOrgIds"].as_array().unwrap().contains(&json!("org_acme"))).count();
    assert!(managed > 0 && managed < acme.len(), "manages some, only audience of others");

    let beta = sim.read_as("/api/v1/orgs/org_beta/reservations", OTHER).await;
    let ids: Vec<&str> = beta.as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["rsv_0002", "rsv_0007", "rsv_0008"]);
    let unknown = sim.get("/api/v1/orgs/org_nope/reservations", Some(OWNER)).await;
    assert_eq!((unknown.status, &unknown.json()["error"]), (404, &json!("not_found")));
    assert_eq!(sim.get("/api/v1/orgs/org_acme/reservations", None).await.status, 401);
}

#[tokio::test]
async fn reclaim_dry_run_changes_nothing_real_run_terminates_spot_vms_and_others_are_refused() {
    let sim = sim().await;
    let path = "/api/v1/orgs/org_acme/reservations/rsv_0007/reclaim";
    let units = json!(["nd-atl-0143-gpu0", "nd-atl-0143-gpu1"]);
    let dry = sim.post(path, Some(OWNER), &json!({ "unitIds": units, "dryRun": true })).await;
    assert_eq!(dry.status, 200);
    let dry = dry.json();
    assert_eq!((dry["wouldTerminate"].as_array().unwrap().len(), dry["wouldSkip"].as_array().unwrap().len()), (2, 1));
    assert!(dry["wouldTerminate"][0].as_str().unwrap().starts_with("vm-"));
    assert!(dry.get("terminated").is_none() && dry["releasedUnitIds"].as_array().unwrap().len() == 4);
    let listed = sim.read("/api/v1/orgs/org_acme/reservations").await;
    let before = listed.as_array().unwrap().iter().find(|r| r["id"] == "rsv_0007").unwrap().clone();
    assert_eq!(before["releasedUnitIds"], dry["releasedUnitIds"]);

    let real = sim.post(path, Some(MEMBER), &json!({ "unitIds": units, "dryRun": false })).await.json();
    assert_eq!((&real["terminated"], &real["skipped"]), (&dry["wouldTerminate"], &dry["wouldSkip"]));
    assert!(real.get("wouldTerminate").is_none());
    assert_eq!(real["releasedUnitIds"], json!(["nd-atl-0143-gpu2", "nd-atl-0143-gpu3"]));
    assert_ne!(real["updatedAt"], before["updatedAt"]);

    let again = sim.post(path, Some(OWNER), &json!({ "unitIds": ["nd-atl-0143-gpu0"], "dryRun": true })).await;
    assert_eq!(again.status, 409, "no longer released");
    assert!(again.json()["message"].as_str().unwrap().contains("nd-atl-0143-gpu0"));
    let body = json!({ "unitIds": ["nd-ord-0031-gpu2"], "dryRun": true });
    let audience_only = sim.post("/api/v1/orgs/org_acme/reservations/rsv_0002/reclaim", Some(OWNER), &body).await;
    assert_eq!((audience_only.status, &audience_only.json()["error"]), (403, &json!("forbidden")));
    let wrong_org = sim.post("/api/v1/orgs/org_beta/reservations/rsv_0002/reclaim", Some(OWNER), &body).await;
    assert_eq!(wrong_org.status, 403, "a key of org_acme cannot act for org_beta");
    assert_eq!(sim.post("/api/v1/orgs/org_beta/reservations/rsv_0002/reclaim", Some(OTHER), &body).await.status, 200);
    let bad = sim.post(path, Some(OWNER), &json!({ "unitIds": [] , "dryRun": true })).await;
    assert_eq!(bad.status, 400);
    let missing = sim.post("/api/v1/orgs/org_acme/reservations/rsv_0008/reclaim", Some(OWNER), &body).await;
    assert_eq!(missing.status, 404, "not listed for org_acme");
}

#[tokio::test]
async fn the_org_api_is_also_served_alone_under_its_own_base_url() {
    let sim = sim().await;
    let compute = sim.get("/api/gpu-reservations", Some(OWNER)).await;
    assert_eq!(compute.header("x-api-simulator"), Some("reservations-sim"), "the console shows demo hints by it");
    assert_eq!(sim.get("/api/gpu-reservations", None).await.header("x-api-simulator"), Some("reservations-sim"));
    let both = sim.read("/api/v1/orgs/org_acme/reservations").await;
    let alone = sim.read("/org-api/v1/orgs/org_acme/reservations").await;
    assert_eq!(both, alone, "the same org capacity API under either base URL");
    assert_eq!(sim.get("/org-api/v1/orgs/org_acme/reservations", None).await.status, 401, "keys are checked");
    assert_eq!(
        sim.get("/org-api/v1/orgs/org_acme/reservations", Some(OWNER)).await.header("x-api-simulator"),
        Some("reservations-sim")
    );
    let reply = sim.get("/org-api/gpu-reservations", Some(OWNER)).await;
    assert_eq!(reply.status, 404, "the Compute API is not served there: {}", reply.text());
    let dry_run = json!({ "unitIds": ["nonexistent"], "dryRun": true });
    let reply = sim.post("/org-api/v1/orgs/org_acme/reservations/rsv_0007/reclaim", Some(OWNER), &dry_run).await;
    assert_eq!(reply.status, 409, "reclaim is served there too: {}", reply.text());
}

#[tokio::test]
async fn one_live_reservation_per_region_plus_renewals_scheduled_after_it_and_launches_go_to_the_live_one() {
    let sim = sim().await;
    let list = sim.read("/api/gpu-reservations").await;
    let live: Vec<&Value> = list.as_array().unwrap().iter().filter(|r| r["status"] != "ended").collect();
    let mut regions: Vec<&str> = live.iter().map(|r| r["region_id"].as_str().unwrap()).collect();
    regions.sort_unstable();
    regions.dedup();
    for region in regions {
        let here: Vec<&&Value> = live.iter().filter(|r| r["region_id"] == region).collect();
        let current: Vec<&&Value> = here.iter().copied().filter(|r| r["status"] != "scheduled").collect();
        assert!(current.len() <= 1, "{region}: more than one live reservation: {here:?}");
        for renewal in here.iter().filter(|r| r["status"] == "scheduled") {
            if let Some(predecessor) = current.first() {
                assert!(time(&renewal["starts_at"]) > time(&predecessor["starts_at"]), "{region}: starts after it");
                assert_eq!(renewal["gpu_type"], predecessor["gpu_type"], "{region}");
            }
        }
    }
    let (twelve, fourteen) = (sim.read("/api/gpu-reservations/12").await, sim.read("/api/gpu-reservations/14").await);
    assert_eq!((fourteen["status"].as_str(), fourteen["region_id"].as_str()), (Some("scheduled"), Some("atl")));
    assert_eq!(fourteen["starts_at"], twelve["ends_at"], "14 is 12's renewal, at its end");
    // Issue 30: one renewal a week late (a gap) and one a month early (an overlap).
    let (six, twenty_one) = (sim.read("/api/gpu-reservations/6").await, sim.read("/api/gpu-reservations/21").await);
    assert_eq!(time(&twenty_one["starts_at"]) - time(&six["ends_at"]), TimeDelta::days(7));
    let (fifteen, twenty_two) =
        (sim.read("/api/gpu-reservations/15").await, sim.read("/api/gpu-reservations/22").await);
    let overlap = time(&fifteen["ends_at"]) - time(&twenty_two["starts_at"]);
    assert!((28..=31).contains(&overlap.num_days()), "22 starts a month before 15 ends: {overlap}");
    let reply = sim.post("/api/gpu-instances", Some(OWNER), &launch_body("atl", RTX, json!(1))).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let nodes = sim.read("/api/gpu-reservations/12/nodes").await.to_string();
    assert!(nodes.contains(&format!("\"id\":{}", reply.json()["id"])), "the launch runs on 12, the live one");
}
