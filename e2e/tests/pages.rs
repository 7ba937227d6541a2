//! Every page, as the owner and then as a member in the same tab, in both layouts:
//! each renders its data without a console error. The screenshots are for people to
//! look at (target/e2e-screenshots).

use e2e::{Console, Viewport, MEMBER_KEY, OWNER_KEY};

/// Issue 14: the owner of a reservation awaiting payment reads what is and is not due yet,
/// and a member is never told to pay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn awaiting_payment_reads_true_to_the_owner_and_to_a_member() {
    let console = Console::start().await;
    let browser = &console.browser;
    console.connect_instead(OWNER_KEY).await;
    console.navigate("/reservations/16").await;
    browser.wait_for("section.payment").await;
    let payment = browser.text("section.payment").await;
    assert!(payment.contains("None until the first invoice is paid"), "{payment}");
    assert!(!payment.contains("every charge is paid"), "{payment}");
    console.screenshots("owner-awaiting-payment-16").await;
    console.connect_instead(MEMBER_KEY).await;
    console.navigate("/reservations/16").await;
    let banner = browser.wait_for_text(".banners", "first invoice").await;
    assert!(banner.contains("the account owner pays it under Billing → Invoices"), "{banner}");
    assert!(!banner.contains("Pay "), "{banner}");
    console.screenshots("member-awaiting-payment-16").await;
    console.assert_no_console_errors(&[]).await;
}

/// The list's filters sit side by side on a wide screen and one above the other on a phone,
/// each select inside its own filter: the region select ran into the "Status" label beside
/// it (its minimum width, a percentage of the filter, counted for nothing in the filter's
/// own width).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lists_filters_do_not_overlap_on_a_wide_screen_or_a_phone() {
    let console = Console::start().await;
    let browser = &console.browser;
    console.connect_instead(MEMBER_KEY).await;
    console.navigate("/reservations").await;
    for viewport in [Viewport::Wide, Viewport::Narrow] {
        browser.set_viewport(viewport).await;
        browser.wait_for(".filters .filter select").await;
        let overlaps = browser
            .script(
                "return [...document.querySelectorAll('.filters .filter')].flatMap((filter) => {
                   const inner = filter.getBoundingClientRect();
                   const select = filter.querySelector('select').getBoundingClientRect();
                   const next = filter.nextElementSibling?.getBoundingClientRect();
                   const out = [];
                   if (select.right > inner.right + 0.5) out.push(`select ends at ${select.right}, its filter at ${inner.right}`);
                   if (next && next.top < select.bottom && next.left < select.right - 0.5) out.push(`the next filter starts at ${next.left}, under the select ending at ${select.right}`);
                   return out;
                 });",
            )
            .await;
        assert_eq!(overlaps, serde_json::json!([]), "{viewport:?}");
    }
}

/// Issue 14: the workload view links to the provider's own console only when its origin
/// was set on Connect, in a new tab without opener or referrer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workload_view_links_to_the_provider_console_only_when_one_is_set() {
    let console = Console::start().await;
    let browser = &console.browser;
    let workload = "/reservations/12/workloads/gpu_cluster/418";
    console.connect(OWNER_KEY).await;
    console.navigate(workload).await;
    browser.wait_for(".workload-page .page-head").await;
    assert!(!browser.exists(".provider-link").await, "no provider console set, no link");

    console.connect_with(OWNER_KEY, &[("console-origin", "https://console.ecohash.com")]).await;
    console.navigate(workload).await;
    let link = browser.wait_for(".provider-link").await;
    assert_eq!(link.attr("href").await.unwrap().as_deref(), Some("https://console.ecohash.com/gpu-clusters/418"));
    assert_eq!(link.attr("target").await.unwrap().as_deref(), Some("_blank"));
    assert_eq!(link.attr("rel").await.unwrap().as_deref(), Some("noopener noreferrer"));
    console.screenshots("owner-workload-provider-link").await;
    console.assert_no_console_errors(&[]).await;
}

/// (screenshot name, path, what shows once the page has its data).
const PAGES: [(&str, &str, &str); 8] = [
    ("overview", "/overview", "table.fleet-table tbody tr"),
    ("reservations", "/reservations", "table.reservations-table tbody tr"),
    ("reservation-12", "/reservations/12", "#terms-title"),
    ("reservation-16-awaiting-payment", "/reservations/16", "#terms-title"),
    ("nodes-12", "/reservations/12/nodes", ".totals-panel"),
    ("nodes-6-unreachable", "/reservations/6/nodes", ".unreachable"),
    ("launch-12", "/reservations/12/launch", "form.launch-form"),
    ("org-acme", "/orgs/org_acme", "article.org-card"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_renders_for_the_owner_and_then_a_member_without_console_errors() {
    let console = Console::start().await;
    let browser = &console.browser;
    for (role, key) in [("owner", OWNER_KEY), ("member", MEMBER_KEY)] {
        console.connect_instead(key).await;
        // Issue 14: the key's rate limit, as the answer that checked it said, after connecting.
        let budget = browser.wait_for_text("header .session-budget", "requests left when connected").await;
        assert!(budget.contains(" of "), "x-ratelimit-remaining of x-ratelimit-limit: {budget}");
        for (name, path, ready) in PAGES {
            console.navigate(path).await;
            browser.wait_for(ready).await;
            if name.starts_with("reservation-") {
                let billing = if role == "owner" { "section.payment" } else { "section.member-billing" };
                browser.wait_for(billing).await;
            }
            console.screenshots(&format!("{role}-{name}")).await;
        }
    }
    console.assert_no_console_errors(&[]).await;
}

/// Issue 14: a workload's name on Nodes leads to a page that exists, the workload view, with
/// every node the workload runs on and its GPUs added up; for the owner and for a member.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workload_name_on_nodes_opens_the_workload_view_for_the_owner_and_a_member() {
    let console = Console::start().await;
    // Placement moves every 4 s and a workload lasts a few ticks: on a slow machine the one
    // clicked could end before its page's first read (the page then says so, rightly).
    console.sim.freeze_clock().await;
    let browser = &console.browser;
    for (role, key) in [("owner", OWNER_KEY), ("member", MEMBER_KEY)] {
        console.connect_instead(key).await;
        console.navigate("/reservations/12/nodes").await;
        let link = ".node-body a.workload-name[href]";
        let name = browser.wait_for_text(link, "").await;
        browser.click(link).await;
        browser.wait_for("table.workload-nodes").await;
        let path = browser.current_path().await;
        assert!(path.starts_with("/reservations/12/workloads/"), "{role}: the link went to {path}");
        assert_eq!(browser.text(".workload-name").await, name, "{role}: the page names the workload clicked");
        let total = browser.text(".workload-total").await;
        assert!(total.contains("GPU"), "{role}: the total of its GPUs, got {total:?}");
        console.screenshots(&format!("{role}-workload")).await;
    }
    console.assert_no_console_errors(&[]).await;
}
