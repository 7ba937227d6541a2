//! The printed statements: the owner's detail page prints as its Payment section (issue 18), and
//! the term ledger of the account prints alone (issue 30).

use e2e::{Console, MEMBER_KEY, OWNER_KEY};
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

/// Issue 30's term ledger: the owner reads every reservation's committed total and its parts
/// (the demo's ended #4 has a waived month and its last covered by the advance), and the page
/// prints as the statement alone; a member is told the ledger is the owner's, with no money.
/// Screenshots of both at 390 and 1280 CSS pixels.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_reads_the_term_ledger_and_a_member_is_told_it_is_the_owners() {
    let console = Console::start().await;
    let browser = &console.browser;
    console.connect(OWNER_KEY).await;
    console.navigate("/overview").await;
    browser.click("a[href='/ledger']").await;
    // The details are read one at a time, at the overview's pace (600 ms apart): the ended
    // #4, which the overview does not read, comes late in the list.
    let row = ".ledger-table tbody tr:has(a[href='/reservations/4'])";
    let ended = browser.wait_for_text_within(std::time::Duration::from_secs(60), row, "$").await;
    let figures: Vec<&str> = ended.split_whitespace().filter(|w| w.starts_with('$')).collect();
    assert_eq!(figures.len(), 7, "seven amounts: {ended}");
    assert!(
        figures[4] != "$0.00" && figures[5] != "$0.00",
        "#4 has a waived month and one covered by the advance: {ended}"
    );
    let account = browser.text(".ledger-table tfoot").await;
    assert!(account.starts_with("Account"), "{account}");
    assert!(!browser.exists(".schedule-issues").await, "the demo's figures agree");
    // At 1,280 px every column is on screen: a past-due row's note under its unpaid figure
    // wraps rather than widening its column past the page.
    let widths = browser
        .script("const wrap = document.querySelector('.ledger-table').closest('.table-wrap'); return [wrap.scrollWidth, wrap.clientWidth]")
        .await;
    assert!(
        widths[0].as_u64() <= widths[1].as_u64(),
        "the ledger scrolls sideways at 1,280 px (scroll, client): {widths}"
    );
    console.screenshots("ledger-owner").await;
    browser.cdp("Emulation.setEmulatedMedia", json!({ "media": "print" })).await;
    let on_paper = "const shown = s => { const e = document.querySelector(s); return !!e && e.getClientRects().length > 0 };
        return ['header.app-header', '.remote-line', '.ledger .page-actions', '.statement-head', '.ledger-table'].map(shown)";
    assert_eq!(browser.script(on_paper).await, json!([false, false, false, true, true]), "printed: the ledger alone");
    browser.screenshot("ledger-owner-print").await;
    browser.cdp("Emulation.setEmulatedMedia", json!({ "media": "" })).await;

    console.connect_instead(MEMBER_KEY).await;
    console.navigate("/ledger").await;
    let note = browser.wait_for_text("main", "The term ledger is the account owner's").await;
    assert!(!note.contains('$'), "no money for a member: {note}");
    console.screenshots("ledger-member").await;
    console.assert_no_console_errors(&[]).await;
}
