//! Connecting with each demo key through the real Connect page: what each role is shown,
//! and a wrong key explained where it was typed.

use e2e::{Console, MEMBER_KEY, OTHER_KEY, OWNER_KEY};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owner_key_is_shown_as_owner_and_sees_the_payment_section() {
    let console = Console::start().await;
    console.connect(OWNER_KEY).await;
    let browser = &console.browser;
    assert_eq!(browser.text("header .session .badge").await, "Owner");
    assert_eq!(browser.text("header .session .role-note").await, "sees payments");

    browser.click("a.row-link[href='/reservations/12']").await;
    let payment = browser.wait_for_text("section.payment", "Payment").await;
    // Seed 004's example reservation: $1.25 per GPU-hour.
    assert!(payment.contains("$1.25"), "the owner sees the rate: {payment}");
    assert!(!browser.exists("section.member-billing").await, "no member note for the owner");
    console.assert_no_console_errors(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn member_key_sees_no_payment_figures_and_is_told_billing_is_the_owners() {
    let console = Console::start().await;
    console.connect(MEMBER_KEY).await;
    let browser = &console.browser;
    assert_eq!(browser.text("header .session .badge").await, "Member");
    assert_eq!(browser.text("header .session .role-note").await, "billing is the account owner's");

    browser.click("a.row-link[href='/reservations/12']").await;
    let note = browser.wait_for_text("section.member-billing", "Payment").await;
    assert!(note.contains("Billing is the account owner's"), "{note}");
    assert!(!browser.exists("section.payment").await, "a member gets no payment section");
    browser.wait_for("#terms-title").await;
    let page = browser.text("main").await;
    assert!(!page.contains('$'), "no money figure anywhere on a member's detail:\n{page}");
    console.assert_no_console_errors(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_account_key_lists_only_its_own_reservation_and_is_refused_the_demo_one() {
    let console = Console::start().await;
    console.connect(OTHER_KEY).await;
    let browser = &console.browser;
    assert_eq!(browser.current_path().await, "/overview", "Connect lands on the overview");
    console.navigate("/reservations").await;
    browser.wait_for("table.reservations-table tbody tr").await;
    // A row's cells are written again whole when its GPUs in use arrive: a link found just
    // before is gone when its text is read, and `texts_now` skips it.
    let rows = browser
        .eventually("the list's row links to be read", || async {
            let rows = browser.texts_now("table.reservations-table tbody a.row-link").await;
            if rows.is_empty() {
                Err("no row link read".to_owned())
            } else {
                Ok(rows)
            }
        })
        .await;
    assert_eq!(rows, ["#11"], "the other account holds reservation 11 only");

    console.navigate("/reservations/12").await;
    let refusal = browser.wait_for_text(".error-panel .error-title", "Not allowed").await;
    assert_eq!(refusal, "Not allowed with this key");
    console.assert_no_console_errors(&[403]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_key_is_explained_on_connect_with_its_request_id() {
    let console = Console::start().await;
    console.submit_key("eco_not_a_key_of_this_account").await;
    let browser = &console.browser;
    let title = browser.wait_for_text(".connect-form .error-panel .error-title", "key").await;
    assert_eq!(title, "The API key was not accepted");
    let panel = browser.text(".connect-form .error-panel").await;
    assert!(panel.contains("401"), "the status is shown: {panel}");
    let shown_id = browser.text(".connect-form .error-panel code.request-id").await;
    let log = console.sim.requests("/api/gpu-reservations").await;
    let refused = log.requests.iter().find(|r| r.status == Some(401)).expect("the sim saw the 401");
    assert_eq!(shown_id, refused.request_id, "the request id shown is the one the API sent");
    assert_eq!(browser.current_path().await, "/", "still on Connect");
    assert!(!browser.exists("header .session").await, "not connected");
    console.screenshots("connect-wrong-key").await;
    console.assert_no_console_errors(&[401]).await;
}
