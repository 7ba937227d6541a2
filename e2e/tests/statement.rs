//! Issue 18's printed statement: the owner's detail page prints as its Payment section.

use e2e::{Console, OWNER_KEY};
use serde_json::json;

/// Issue 18's statement: printing the owner's detail page prints the Payment section alone,
/// headed by the reservation, its term and when it was read, in UTC.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owners_payment_section_prints_as_a_statement_and_nothing_else() {
    let console = Console::start().await;
    let browser = &console.browser;
    console.connect(OWNER_KEY).await;
    console.navigate("/reservations/12").await;
    browser.wait_for("section.payment table").await;
    let on_paper = "const shown = s => { const e = document.querySelector(s); return !!e && e.getClientRects().length > 0 };
        return ['header.app-header', '.page-head', '#terms-title', 'section.payment', '.statement-head', 'section.payment table'].map(shown)";
    assert_eq!(
        browser.script(on_paper).await,
        json!([true, true, true, true, false, true]),
        "on screen: the whole page"
    );
    browser.cdp("Emulation.setEmulatedMedia", json!({ "media": "print" })).await;
    assert_eq!(
        browser.script(on_paper).await,
        json!([false, false, false, true, true, true]),
        "printed: the Payment section and its statement head only"
    );
    let head = browser.text(".statement-head").await;
    assert!(head.starts_with("Statement of reservation #12 · contract MSA-2026-014"), "{head}");
    assert!(head.contains("(UTC)") && head.contains("Read from the API at") && head.contains(" UTC;"), "{head}");
    browser.screenshot("statement-print").await;
    browser.cdp("Emulation.setEmulatedMedia", json!({ "media": "" })).await;
    console.assert_no_console_errors(&[]).await;
}
