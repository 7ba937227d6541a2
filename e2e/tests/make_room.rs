//! Issue 47 part 1, end to end: on the demo's fragmented #23 (2 GPUs free on each of its three
//! ready nodes), `/fit?gpus=4` plans what to stop so 4 fit together on one node, and where the
//! stopped workload fits again; nothing is sent. Screenshots of the plan as a member and as
//! the owner, at 390 and 1280 CSS pixels.

use e2e::{Console, MEMBER_KEY, OWNER_KEY};

const QUESTION: &str = "/fit?gpus=4&region=sjc";
const PLAN: &str = ".make-room-plan[data-reservation='23']";

/// Opens the question as `key` (in place of any key held) and returns the plan's text once drawn.
async fn plan_as(console: &Console, key: &str) -> String {
    console.connect_instead(key).await;
    console.navigate(QUESTION).await;
    console.browser.wait_for_text(PLAN, "to free the GPUs together on node-").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fragmented_reservation_gets_a_plan_naming_the_workload_to_stop_and_where_it_fits_again() {
    let console = Console::start().await;
    let plan = plan_as(&console, MEMBER_KEY).await;
    assert!(plan.contains("Stop 1 workload (2 GPUs displaced in all)"), "{plan}");
    let stops = console
        .browser
        .script(&format!(
            "return [...document.querySelectorAll(\"{PLAN} .make-room-stops li\")]
                .map((li) => li.textContent + ' -> ' + li.querySelector('a').getAttribute('href'))"
        ))
        .await;
    let stops: Vec<String> =
        stops.as_array().into_iter().flatten().filter_map(|v| v.as_str().map(str::to_owned)).collect();
    assert_eq!(stops.len(), 1, "one workload to stop: {stops:?}");
    assert!(stops[0].contains("fits again on node-"), "the stopped workload launches again elsewhere: {stops:?}");
    assert!(stops[0].contains("-> /reservations/23/workloads/"), "it links to where it is managed: {stops:?}");
    assert_eq!(
        plan.to_lowercase().matches("assumed").count(),
        1,
        "the placement rule it relies on, said assumed once: {plan}"
    );
    console.browser.wait_for_text(".make-room-advisory", "nothing is sent").await;
    let writes = console.sim.requests("/api/").await.requests;
    assert!(
        writes.iter().all(|r| r.method == "GET"),
        "planning sends nothing: {:?}",
        writes.iter().map(|r| (&r.method, &r.path)).collect::<Vec<_>>()
    );
    console.screenshots("fit-make-room-member").await;

    let plan = plan_as(&console, OWNER_KEY).await;
    assert!(!plan.contains('$'), "a plan holds no money: {plan}");
    console.screenshots("fit-make-room-owner").await;
}
