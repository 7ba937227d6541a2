//! Issue 30 part 2, end to end: what stops when, on the overview and on a reservation's
//! detail, for the owner (the overdue sum of the wallet-funded past-due #7 and where to pay)
//! and a member (no money); screenshots of both pages as both at 390 and 1280 CSS pixels.

use e2e::{Console, MEMBER_KEY, OWNER_KEY};

/// Connects with `key` and opens the overview with fast reads until #7's nodes and detail
/// are read (its workloads listed, its amendment's deadline shown).
async fn open_overview(console: &Console, key: &str) -> String {
    console.connect_instead(key).await;
    console.navigate("/reservations").await;
    console.navigate("/overview?poll_ms=200").await;
    console.browser.wait_for_text("tr[data-reservation='7']", "updated").await;
    console.browser.wait_for_text("#at-risk [data-deadline='past-due']", "#7").await;
    console.browser.wait_for_text("#at-risk", "An amendment lowers the nodes from 3 to 2").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owner_and_member_read_what_stops_when_on_the_overview_and_the_detail() {
    let console = Console::start().await;
    let browser = &console.browser;

    open_overview(&console, OWNER_KEY).await;
    let panel = browser.wait_for_text("#at-risk", "Averted by paying the $").await;
    assert!(panel.contains("add credit to the account"), "#7 is wallet-funded: {panel}");
    console.screenshots("at-risk-overview-owner").await;
    console.navigate("/reservations/7").await;
    let detail = browser.wait_for_text("#at-risk", "Averted by paying the $").await;
    assert!(detail.contains("Up to 1 node's workloads would stop"), "{detail}");
    console.screenshots("at-risk-detail-owner").await;

    let panel = open_overview(&console, MEMBER_KEY).await;
    assert!(panel.contains("Only the account owner can avert it."), "{panel}");
    assert!(!panel.contains('$') && !panel.to_lowercase().contains("pay"), "no money for a member: {panel}");
    console.screenshots("at-risk-overview-member").await;
    console.navigate("/reservations/7").await;
    let detail = browser.wait_for_text("#at-risk", "Only the account owner can avert it.").await;
    assert!(!detail.contains('$'), "{detail}");
    console.screenshots("at-risk-detail-member").await;
    console.assert_no_console_errors(&[]).await;
}
