//! Reclaiming released units on the org capacity page: a dry run first (what would be
//! terminated), then the confirmation, then the result — and the dry run changed nothing.

use e2e::{Console, OTHER_KEY, OWNER_KEY};

/// org_acme manages rsv_0007, whose units 0–3 are released to the spot market.
const RESERVATION: &str = "rsv_0007";
const RECLAIM_API: &str = "/api/v1/orgs/org_acme/reservations/rsv_0007/reclaim";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reclaim_shows_a_dry_run_before_the_confirmed_reclaim_and_its_result() {
    let console = Console::start().await;
    console.connect(OWNER_KEY).await;
    console.navigate("/orgs/org_acme").await;
    let browser = &console.browser;
    let panel = format!("section.reclaim[aria-label$='{RESERVATION}']");
    let card = format!("article.org-card[aria-label='Reservation {RESERVATION}']");
    let units_before = browser.text(&format!("{card} .units-heading")).await;
    assert!(units_before.contains("4 released to spot"), "{units_before}");

    browser.click(&format!("{panel} button")).await;
    let review = format!("{panel} .reclaim-review");
    let would_terminate = browser.wait_for_text(&format!("{review} p:first-child"), "would terminate").await;
    let would_skip = browser.text(&format!("{review} p:last-child")).await;
    let answered = console.sim.requests(RECLAIM_API).await.requests;
    assert_eq!(answered.len(), 1, "one dry run sent: {answered:?}");
    assert_eq!(answered[0].status, Some(200));
    assert_eq!(browser.text(&format!("{card} .units-heading")).await, units_before, "a dry run changes nothing");
    console.screenshots("owner-org-acme-reclaim-dry-run").await;

    let confirm = format!("{panel} .reclaim-actions .button-danger");
    assert!(browser.text(&confirm).await.starts_with("Confirm"), "a confirmation follows the dry run");
    browser.click(&confirm).await;
    let result = browser.wait_for_text(".banner.reclaimed", RESERVATION).await;
    assert!(result.contains("Terminated:"), "{result}");
    browser.wait_for_text(&format!("{card} .units-heading"), "0 released to spot").await;
    assert_eq!(console.sim.requests(RECLAIM_API).await.requests.len(), 2, "dry run, then the reclaim");
    // What the dry run listed is what the reclaim did.
    let terminated = after(&would_terminate, "spot VMs: ");
    let skipped = after(&would_skip, "(not spot): ");
    assert!(result.contains(&format!("Terminated: {terminated}.")), "dry run: {would_terminate}; result: {result}");
    assert!(result.contains(&format!("left running): {skipped}.")), "dry run: {would_skip}; result: {result}");
    console.screenshots("owner-org-acme-reclaimed").await;
    console.assert_no_console_errors(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_org_page_reads_the_org_api_at_its_own_base_url_and_says_which() {
    let console = Console::start().await;
    console.connect_with(OWNER_KEY, &[("org-base-url", "/org-api")]).await;
    console.navigate("/orgs/org_acme").await;
    let browser = &console.browser;
    let source = browser.wait_for_text(".org-source", "/org-api").await;
    assert_eq!(source, "Read from the org capacity API at /org-api (its base URL is set on Connect).");
    browser.wait_for(&format!("article.org-card[aria-label='Reservation {RESERVATION}']")).await;
    let read = console.sim.requests("/org-api/v1/orgs/org_acme/reservations").await.requests;
    assert!(!read.is_empty() && read.iter().all(|r| r.status == Some(200)), "{read:?}");
    assert!(console.sim.requests("/api/v1/orgs").await.requests.is_empty(), "nothing read at /api");
    console.screenshots("owner-org-own-base-url").await;

    // A base URL that serves the console's page instead of the org API is said to be one.
    let console = Console::start().await;
    console.connect_with(OWNER_KEY, &[("org-base-url", "/not-the-org-api")]).await;
    console.navigate("/orgs/org_acme").await;
    let panel = console.browser.wait_for_text(".error-panel", "does not serve the org capacity API").await;
    assert!(panel.contains("Not the org capacity API"), "{panel}");
    assert!(panel.contains("The org capacity API base URL /not-the-org-api answered"), "{panel}");
    console.screenshots("owner-org-wrong-base-url").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_403_on_a_reclaim_says_the_key_may_not_change_things() {
    let console = Console::start().await;
    // org_beta's key, on org_acme's page: it may read, not reclaim.
    console.connect(OTHER_KEY).await;
    console.navigate("/orgs/org_acme").await;
    let browser = &console.browser;
    let panel = format!("section.reclaim[aria-label$='{RESERVATION}']");
    browser.click(&format!("{panel} button")).await;
    let title = browser.wait_for_text(&format!("{panel} .error-panel .error-title"), "change").await;
    assert_eq!(title, "This key may not change things");
    let text = browser.text(&format!("{panel} .error-panel")).await;
    assert!(text.contains("not allowed to reclaim units (which terminates spot VMs)"), "{text}");
    console.assert_no_console_errors(&[403]).await;
}

/// The list after `marker` in a sentence, without its full stop.
fn after<'a>(sentence: &'a str, marker: &str) -> &'a str {
    let list = sentence.split_once(marker).map_or("", |(_, list)| list);
    list.trim_end_matches('.')
}
