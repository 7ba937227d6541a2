//! Every page, as the owner and then as a member in the same tab, in both layouts:
//! each renders its data without a console error. The screenshots are for people to
//! look at (target/e2e-screenshots).

use e2e::{Console, MEMBER_KEY, OWNER_KEY};

/// (screenshot name, path, what shows once the page has its data).
const PAGES: [(&str, &str, &str); 7] = [
    ("overview", "/overview", "table.fleet-table tbody tr"),
    ("reservations", "/reservations", "table.reservations-table tbody tr"),
    ("reservation-12", "/reservations/12", "#terms-title"),
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
        for (name, path, ready) in PAGES {
            console.navigate(path).await;
            browser.wait_for(ready).await;
            if name == "reservation-12" {
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
