//! Issue 30, capacity without gaps: from the overview to `/capacity` on the demo data, where
//! 6's renewal (21) leaves a week's gap in ams and 15's (22) overlaps it by a month in lax; the
//! owner reads the overlap's cost, a member the same hours and no money.

use e2e::{Console, MEMBER_KEY, OWNER_KEY};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_overview_leads_to_the_gaps_and_overlaps_between_terms_for_the_owner_and_a_member() {
    let console = Console::start().await;
    let browser = &console.browser;
    for (role, key) in [("owner", OWNER_KEY), ("member", MEMBER_KEY)] {
        console.connect_instead(key).await;
        browser.wait_for("table.fleet-table tbody tr").await;
        browser.click("a[href='/capacity']").await;
        browser.wait_for("section.capacity-lane").await;
        let gap = browser.wait_for_text("tr[data-handover=danger]", "starts after a gap of 168 hours").await;
        assert!(gap.contains("#21"), "{role}: 6's renewal leaves a week: {gap}");
        let overlap = browser.wait_for_text("tr[data-handover=warning]", "reserved twice").await;
        assert!(overlap.contains("#22 starts"), "{role}: 15's renewal overlaps it: {overlap}");
        let page = browser.text("section.capacity-page").await;
        if role == "owner" {
            let cost = browser.wait_for_text("tr[data-handover=warning]", "$").await;
            assert!(cost.contains("× $1.25") && cost.contains("assumed"), "the overlap at 22's rate: {cost}");
        } else {
            assert!(!page.contains('$'), "no money for a member:\n{page}");
        }
        console.screenshots(&format!("{role}-capacity")).await;
    }
    console.assert_no_console_errors(&[]).await;
}
