//! Security, end to end (issue 6): the console runs under its Content-Security-Policy
//! with no violation; after a full session the owner key is nowhere the browser keeps
//! anything (web storages unless opted in, cookies, URLs and history, the DOM and input
//! values, CSV exports, the console log); and a member key never shows a payment figure,
//! even right after an owner key in the same tab.

use e2e::{Console, MEMBER_KEY, OWNER_KEY};
use serde_json::Value;

/// Every page, and an element that shows it has its data.
const PAGES: [(&str, &str); 7] = [
    ("/overview", "table.fleet-table tbody tr"),
    ("/reservations", "table.reservations-table tbody tr"),
    ("/reservations/12", "#terms-title"),
    ("/reservations/12/nodes", "article.node-card"),
    ("/reservations/12/launch", "form.launch-form"),
    ("/orgs", "form.org-picker"),
    ("/orgs/org_acme", ".org-list"),
];

/// Everything the page keeps that a key could leak into, as one text per place.
const PLACES: &str = r#"
const storage = s => JSON.stringify(Object.fromEntries(Object.keys(s).map(k => [k, s.getItem(k)])));
return {
  localStorage: storage(localStorage),
  sessionStorage: storage(sessionStorage),
  cookie: document.cookie,
  url: location.href,
  dom: document.documentElement.outerHTML,
  inputs: JSON.stringify([...document.querySelectorAll('input, textarea, select')].map(i => i.value)),
  csv: JSON.stringify(window.__e2eCsv || []),
};"#;

/// Keeps the text of every Blob the page turns into a download URL (the CSV exports).
const CAPTURE_CSV: &str = r#"
if (!window.__e2eCsv) {
  window.__e2eCsv = [];
  const create = URL.createObjectURL.bind(URL);
  URL.createObjectURL = blob => { blob.text().then(t => window.__e2eCsv.push(t)); return create(blob); };
}"#;

/// The places (and the browser's history and console) where `needle` appears, except
/// those in `allowed`.
async fn leaks(console: &Console, needle: &str, allowed: &[&str]) -> Vec<String> {
    let places = console.browser.script(PLACES).await;
    let mut found: Vec<String> = places
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(place, text)| {
            !allowed.contains(&place.as_str()) && text.as_str().unwrap_or_default().contains(needle)
        })
        .map(|(place, _)| place.clone())
        .collect();
    let history = console.browser.cdp("Page.getNavigationHistory", serde_json::json!({})).await;
    let urls: Vec<&str> =
        history["entries"].as_array().into_iter().flatten().filter_map(|e| e["url"].as_str()).collect();
    if urls.iter().any(|url| url.contains(needle)) {
        found.push(format!("history {urls:?}"));
    }
    for entry in console.browser.console().await {
        if entry.message.contains(needle) {
            found.push(format!("console: {entry}"));
        }
    }
    found
}

async fn csv_count(console: &Console) -> usize {
    console.browser.script("return (window.__e2eCsv || []).length").await.as_u64().unwrap_or(0) as usize
}

/// Opens each page in the app (no reload: the key lives in memory), checking on each that
/// the key is nowhere, and exports every CSV offered.
async fn visit_every_page(console: &Console, key: &str) -> usize {
    console.browser.script(CAPTURE_CSV).await;
    for (path, ready) in PAGES {
        console.navigate(path).await;
        console.browser.wait_for(ready).await;
        let before = csv_count(console).await;
        let buttons = console
            .browser
            .script("const b = [...document.querySelectorAll('main button')].filter(b => b.textContent.includes('CSV')); b.forEach(b => b.click()); return b.length")
            .await;
        let clicked = buttons.as_u64().unwrap_or(0) as usize;
        console
            .browser
            .eventually(format!("{clicked} CSV file(s) from {path}"), || async {
                let now = csv_count(console).await;
                if now >= before + clicked {
                    Ok(())
                } else {
                    Err(format!("{now} read"))
                }
            })
            .await;
        let found = leaks(console, key, &["sessionStorage"]).await;
        assert!(found.is_empty(), "the key shows on {path} in: {found:?}");
    }
    csv_count(console).await
}

async fn disconnect(console: &Console) {
    console.browser.click("header .session button").await;
    console.browser.wait_for("#api-key").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_runs_under_its_content_security_policy_without_a_violation() {
    let console = Console::start().await;
    let index = std::fs::read_to_string(console.dist.dir().join("index.html")).expect("dist/index.html");
    let header = std::fs::read_to_string(console.dist.dir().join("csp-header.txt"))
        .expect("dist/csp-header.txt: build with `cargo xtask dist`, which writes the policy");
    for directive in ["default-src 'none'", "script-src 'self' 'wasm-unsafe-eval' 'sha256-", "frame-ancestors 'none'"] {
        assert!(header.contains(directive), "{directive} in {header}");
    }
    assert!(!header.contains("unsafe-inline") && !header.contains("nonce-"), "{header}");
    assert_eq!(index.matches("Content-Security-Policy").count(), 1, "one policy meta in {index:.400}");

    let served = e2e::http::get(&format!("{}/reservations", console.sim.url())).await.expect("the console's page");
    let sent = served.headers.get("content-security-policy").and_then(|v| v.to_str().ok());
    assert_eq!(sent, Some(header.trim()), "the simulator sends the build's policy");

    console.connect(OWNER_KEY).await;
    // The release page is minified, `<head>` tag and all: the parsed document tells.
    let first = console.browser.script("return document.head.firstElementChild.outerHTML").await;
    let first = first.as_str().unwrap_or_default();
    assert!(
        first.starts_with("<meta http-equiv=\"Content-Security-Policy\""),
        "the policy comes first in the head, before anything it covers: {first:.200}"
    );
    visit_every_page(&console, OWNER_KEY).await;
    let violations: Vec<String> = console
        .browser
        .console()
        .await
        .into_iter()
        .filter(|e| e.message.contains("Content Security Policy") || e.message.contains("Content-Security-Policy"))
        .map(|e| e.to_string())
        .collect();
    assert!(violations.is_empty(), "CSP violations: {violations:#?}");
    assert!(console.browser.exists("main#main h1").await, "the app mounted and rendered under the policy");
    console.assert_no_console_errors(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_full_session_the_key_held_in_memory_is_nowhere() {
    let console = Console::start().await;
    console.connect(OWNER_KEY).await;
    let inputs = console.browser.script("return [...document.querySelectorAll('input')].map(i => i.value)").await;
    assert!(!inputs.to_string().contains(OWNER_KEY), "the key field is cleared after connecting: {inputs}");
    let exported = visit_every_page(&console, OWNER_KEY).await;
    assert!(exported >= 2, "the charges and the placement were exported, got {exported} file(s)");
    disconnect(&console).await;
    let found = leaks(&console, OWNER_KEY, &[]).await;
    assert!(found.is_empty(), "after disconnecting the key is in: {found:?}");
    let csv: Value = console.browser.script("return window.__e2eCsv").await;
    assert!(csv.to_string().contains("period"), "the exports were read: {csv}");
    console.assert_no_console_errors(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_kept_for_the_tab_is_in_session_storage_only_and_gone_on_disconnect() {
    let console = Console::start().await;
    console.connect_keeping_key(OWNER_KEY).await;
    let places = console.browser.script(PLACES).await;
    assert!(places["sessionStorage"].as_str().unwrap_or_default().contains(OWNER_KEY), "opted in: kept for the tab");
    // A reload keeps the session: that is what the opt-in is for.
    console.open("/reservations/12/nodes").await;
    console.browser.wait_for("article.node-card").await;
    let found = leaks(&console, OWNER_KEY, &["sessionStorage"]).await;
    assert!(found.is_empty(), "kept for the tab, the key is still nowhere else: {found:?}");
    disconnect(&console).await;
    let found = leaks(&console, OWNER_KEY, &[]).await;
    assert!(found.is_empty(), "disconnecting removes the kept key: {found:?}");
    console.assert_no_console_errors(&[]).await;
}

/// The payment figures a page shows: money in `main`, and the payment section.
async fn payment_figures(console: &Console) -> (bool, Vec<String>) {
    let found = console
        .browser
        .script(
            "const main = document.querySelector('main');
             return [!!document.querySelector('section.payment'),
                     (main.innerText.match(/\\$[0-9][0-9,.]*/g) || [])]",
        )
        .await;
    let money = found[1].as_array().into_iter().flatten().filter_map(|m| m.as_str().map(str::to_owned)).collect();
    (found[0].as_bool().unwrap_or(false), money)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_key_after_an_owner_key_in_the_same_tab_sees_no_payment_figure() {
    let console = Console::start().await;
    console.connect(OWNER_KEY).await;
    console.navigate("/reservations/12").await;
    console.browser.wait_for("section.payment").await;
    let (section, money) = payment_figures(&console).await;
    assert!(section && money.iter().any(|m| m == "$29,760.00"), "the owner sees the charges: {money:?}");
    disconnect(&console).await;

    console.browser.type_into("#api-key", MEMBER_KEY).await;
    console.browser.click("form.connect-form button[type=submit]").await;
    console.browser.wait_for_text("header .session .badge", "Member").await;
    console.browser.script(CAPTURE_CSV).await;
    for (path, ready) in PAGES {
        console.navigate(path).await;
        console.browser.wait_for(ready).await;
        let (section, money) = payment_figures(&console).await;
        assert!(!section && money.is_empty(), "a member sees no payment figure on {path}: {money:?}");
    }
    console.navigate("/reservations/12").await;
    console.browser.wait_for("section.member-billing").await;
    let charges_button = console
        .browser
        .script("return [...document.querySelectorAll('main button')].some(b => b.textContent.includes('charges'))")
        .await;
    assert_eq!(charges_button, Value::Bool(false), "no charges export for a member");
    let dom = console.browser.script("return document.documentElement.outerHTML").await;
    assert!(!dom.as_str().unwrap_or_default().contains("29,760"), "no owner figure is left in the DOM");
    let csv: Value = console.browser.script("return window.__e2eCsv").await;
    assert!(
        !csv.to_string().contains('$') && !csv.to_string().contains("29760"),
        "no payment figure in a member's exports: {csv}"
    );
    console.assert_no_console_errors(&[]).await;
}

/// A base URL the page's Content-Security-Policy does not allow is said to be blocked by
/// it, not reported as a network failure (the browser tells the page only that much).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_base_url_the_policy_blocks_is_explained_as_blocked_by_it() {
    let console = Console::start().await;
    let browser = &console.browser;
    console.open("/").await;
    browser.type_into("#base-url", "https://api.ecohash.com").await;
    browser.type_into("#api-key", OWNER_KEY).await;
    browser.click("form.connect-form button[type=submit]").await;
    let panel = browser.wait_for_text(".connect-form .error-panel", "Content-Security-Policy").await;
    assert!(panel.contains("The request was not sent"), "{panel}");
    assert!(panel.contains("blocks requests to https://api.ecohash.com"), "{panel}");
    assert!(!panel.contains("Could not reach the API"), "{panel}");
    console.assert_no_console_errors(&[]).await;
}
