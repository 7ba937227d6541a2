//! Launching on a reservation: a launch that fits is shown billed by the reservation;
//! 8-GPU launches until no node has room end in the mapped `gpu_capacity` error with the
//! request id the API sent — which, on a fresh read, is predicted before sending. An ended
//! reservation's launch page sends nothing; a launch is not cancelled by leaving its page.

use e2e::{Console, Fault, FaultKind, LoggedRequest, OWNER_KEY};
use std::time::Duration;

const LAUNCH_API: &str = "/api/gpu-instances";

/// Fills the form, sends it, and returns what the simulator logged for it.
async fn launch(console: &Console, gpus: &str, name: &str, nth: usize) -> LoggedRequest {
    let browser = &console.browser;
    browser.type_into("#launch-gpus", gpus).await;
    browser.type_into("#launch-name", name).await;
    browser.click("form.launch-form button[type=submit]").await;
    browser
        .eventually(format!("launch {nth} to be answered"), || async {
            let log = console.sim.requests(LAUNCH_API).await;
            let done: Vec<&LoggedRequest> = log.requests.iter().filter(|r| r.status.is_some()).collect();
            done.get(nth - 1).map(|r| (*r).clone()).ok_or(format!("{} answered", done.len()))
        })
        .await
}

/// N in "Largest launch that fits on one node now: N GPUs."
async fn largest_fit(console: &Console) -> u32 {
    let help = console.browser.wait_for_text("#launch-gpus-help", "Largest launch").await;
    let number = help.split("now: ").nth(1).and_then(|rest| rest.split(' ').next());
    number.and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no largest fit in {help:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launch_that_fits_is_billed_by_the_reservation_then_gpu_capacity_is_explained() {
    let console = Console::start().await;
    // Frozen, the placement changes only by these launches.
    console.sim.freeze_clock().await;
    console.connect(OWNER_KEY).await;
    console.navigate("/reservations/12/launch").await;
    let browser = &console.browser;

    let fits = largest_fit(&console).await;
    assert!(fits > 0, "the demo placement leaves room on reservation 12");
    let answer = launch(&console, &fits.to_string(), "e2e-fits", 1).await;
    assert_eq!(answer.status, Some(201), "a launch of the largest fit succeeds");
    let banner = browser.wait_for_text(".launched", "e2e-fits").await;
    assert!(banner.contains("billed by reservation, $0/h"), "{banner}");
    console.screenshots("owner-launch-12-launched").await;

    // 3 ready nodes of 8 GPUs: launches of 8 run out of room by the fourth at the latest.
    let mut refused = None;
    for nth in 2..=5 {
        let answer = launch(&console, "8", &format!("e2e-full-{nth}"), nth).await;
        match answer.status {
            Some(201) => continue,
            Some(409) => {
                refused = Some(answer);
                break;
            }
            other => panic!("launch {nth} answered {other:?}, expected 201 or 409"),
        }
    }
    let refused = refused.expect("4 launches of 8 GPUs cannot all fit on 3 ready nodes");
    let title = browser.wait_for_text(".launch-panel .error-panel .error-title", "GPUs").await;
    assert_eq!(title, "Not enough free GPUs on one node");
    let panel = browser.text(".launch-panel .error-panel").await;
    assert!(panel.contains("gpu_capacity"), "the code is shown: {panel}");
    assert_eq!(
        browser.text(".launch-panel .error-panel code.request-id").await,
        refused.request_id,
        "the request id shown is the one the API sent"
    );
    console.screenshots("owner-launch-12-gpu-capacity").await;

    // Read afresh, the nodes predict the refusal before anything is sent.
    console.navigate("/reservations/12/nodes").await;
    console.navigate("/reservations/12/launch").await;
    assert!(largest_fit(&console).await < 8, "no node has 8 free GPUs now");
    browser.type_into("#launch-gpus", "8").await;
    let prediction = browser.wait_for_text(".prediction", "Predicted answer").await;
    assert!(prediction.contains("409") && prediction.contains("gpu_capacity"), "{prediction}");
    console.assert_no_console_errors(&[409]).await;
}

/// Opened by its address, the launch page of the demo's ended reservation (#4) has no form:
/// a launch from it would land on another reservation of the account.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_launch_page_of_an_ended_reservation_says_so_and_sends_nothing() {
    let console = Console::start().await;
    console.connect(OWNER_KEY).await;
    console.navigate("/reservations/4/launch").await;
    let browser = &console.browser;
    let closed = browser.wait_for_text(".launches-closed", "Launches are closed on this reservation").await;
    assert!(closed.contains("Ended"), "{closed}");
    assert!(closed.contains("Nothing is sent from this page"), "{closed}");
    assert!(!browser.exists("form.launch-form").await, "no form to send");
    console.screenshots("owner-launch-4-ended").await;
    assert!(console.sim.requests(LAUNCH_API).await.requests.is_empty(), "no launch was sent");
    console.assert_no_console_errors(&[]).await;
}

/// Aborting a launch's request would not undo it, only lose its answer: leaving the page
/// while it is under way lets it finish, and the instance appears on the nodes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_the_page_does_not_cancel_a_launch_under_way() {
    let console = Console::start().await;
    console.sim.freeze_clock().await;
    console.connect(OWNER_KEY).await;
    console.navigate("/reservations/12/launch").await;
    let browser = &console.browser;
    largest_fit(&console).await;
    console.sim.add_fault(Fault::new(FaultKind::Slow(Duration::from_secs(2))).on(LAUNCH_API).times(1)).await;
    browser.type_into("#launch-gpus", "1").await;
    browser.type_into("#launch-name", "e2e-left-behind").await;
    browser.click("form.launch-form button[type=submit]").await;
    browser.wait_for_text("form.launch-form button[type=submit]", "Launching").await;
    console.navigate("/reservations/12/nodes").await;
    let answered = browser
        .eventually("the launch to be answered", || async {
            let log = console.sim.requests(LAUNCH_API).await;
            match log.requests.first() {
                Some(r) if r.finished_ms.is_some() => Ok(r.clone()),
                other => Err(format!("{other:?}")),
            }
        })
        .await;
    assert_eq!(answered.status, Some(201), "the launch was not cancelled when its page was left");
    // In the cards' text, drawn or behind a card's "+N more".
    browser
        .eventually("the instance on the Nodes page", || async {
            let cards = browser.script("return document.querySelector('.node-grid')?.textContent ?? ''").await;
            let cards = cards.as_str().unwrap_or_default().to_owned();
            if cards.contains("e2e-left-behind") {
                Ok(())
            } else {
                Err(cards)
            }
        })
        .await;
}
