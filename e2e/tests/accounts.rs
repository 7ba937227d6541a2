//! Issue 48, end to end: the demo account's owner key and the Europe account's member key
//! connected at once, with reservation ids that collide (#12 is atl in one, fra in the
//! other). `/fit` answers for both, each row under its account, and a row's launch link
//! opens the launch page of that account's #12, read with that account's key. Screenshots
//! of the overview and `/fit` with the two accounts at 390 and 1280 CSS pixels.

use e2e::{Console, EUROPE_MEMBER_KEY, OWNER_KEY};

const EUROPE: &str = "prod-eu";

/// Adds `key` under `label` from the header's accounts panel and waits for it to be listed.
async fn add_account(console: &Console, label: &str, key: &str) {
    let browser = &console.browser;
    browser.click("details.accounts-menu summary").await;
    browser.wait_for("#account-label").await;
    browser.type_into("#account-label", label).await;
    browser.type_into("#account-key", key).await;
    browser.click("form.accounts-add button[type=submit]").await;
    browser.wait_for(&format!(".accounts-list li[data-account='{label}']")).await;
    browser.click("details.accounts-menu summary").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_accounts_with_colliding_ids_each_link_to_their_own_accounts_launch_page() {
    let console = Console::start().await;
    let browser = &console.browser;
    console.connect(OWNER_KEY).await;
    add_account(&console, EUROPE, EUROPE_MEMBER_KEY).await;

    console.navigate("/fit?gpus=1").await;
    let europe = format!("section.account-part[data-account='{EUROPE}']");
    let row = format!("{europe} tr:has(a.row-link[href^='/reservations/12'])");
    browser.wait_for_text(&row, "Fits now").await;
    let first = "section.account-part[data-account=''] tr:has(a.row-link[href='/reservations/12'])";
    assert!(browser.exists(first).await, "the first account's #12 is listed under its own name");

    let links = browser
        .script(&format!("return [...document.querySelectorAll(\"{row} a\")].map((a) => a.getAttribute('href'))"))
        .await;
    let links: Vec<&str> = links.as_array().into_iter().flatten().filter_map(|v| v.as_str()).collect();
    assert!(
        links.iter().all(|href| href.contains(&format!("account={EUROPE}"))),
        "every link of Europe's #12 names its account: {links:?}"
    );
    let launch = links.iter().find(|href| href.starts_with("/reservations/12/launch")).expect("a launch link");
    console.screenshots("accounts-fit").await;

    browser.click(&format!("{row} a[href='{launch}']")).await;
    let page = browser.wait_for_text("main", "fra").await;
    assert!(page.contains("H100") && !page.contains("atl"), "Europe's #12 (fra, H100), not the demo's (atl): {page}");
    let sent = console.sim.requests("/api/gpu-reservations/12").await.requests;
    let last = sent.last().expect("the launch page read #12");
    assert_eq!(last.role.as_deref(), Some("europe-member"), "read with Europe's key: {last:?}");

    console.navigate("/overview").await;
    browser.wait_for(&format!("[data-account='{EUROPE}']")).await;
    console.screenshots("accounts-overview").await;
    console.assert_no_console_errors(&[]).await;
}
