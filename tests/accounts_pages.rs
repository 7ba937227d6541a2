//! The overview with two accounts connected (issue 48), reading a fake API that answers
//! each account at its own base URL: money only on the owner's rows, one account's failure
//! on its own rows alone, and an account removed leaving nothing on the page and sending
//! nothing more.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{
    button, december_charge, member_detail, owner_detail, provide_console, reservation, seed_nodes, sleep, text,
    type_into, until, Answer, FakeApi, HostAt,
};
use leptos::prelude::*;
use reservations_console::api::client::Connection;
use reservations_console::components::alerts_bell::BellSlot;
use reservations_console::components::header::Header;
use reservations_console::domain::words::shown::OWNER_ONLY;
use reservations_console::pages::capacity::CapacityPage;
use reservations_console::pages::fit::FitPage;
use reservations_console::pages::ledger::LedgerPage;
use reservations_console::pages::overview::OverviewPage;
use reservations_console::reads::accounts::{use_account_stores, AccountStores};
use reservations_console::reads::fleet::FleetStore;
use reservations_console::router::Router;
use reservations_console::state::{ConnectionState, Role};
use serde_json::json;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The key of the account added beside the connection ([`provide_console`]'s), its label
/// and the base URL the fake API answers it at.
const SECOND_KEY: &str = "eco_prod_eu_key";
const SECOND: &str = "prod-eu";
const SECOND_BASE: &str = "/eu";

/// Each account holds reservation 12 (the same id in both: two reservations), the seed's
/// (atl, 6 of 8 GPUs in use on its ready node); the first's key is the owner's, the
/// second's a member's. `second_list` is what the second's list answers.
fn api(second_list: Answer) -> FakeApi {
    let listed = |region: &str| json!([reservation(json!({ "id": 12, "region_id": region }))]);
    let nodes = || vec![Answer::ok(serde_json::to_value(seed_nodes()).unwrap())];
    let member = serde_json::to_value(member_detail()).unwrap();
    FakeApi::new(vec![
        ("/api/gpu-reservations", vec![Answer::ok(listed("atl"))]),
        ("/api/gpu-reservations/12/nodes", nodes()),
        ("/api/gpu-reservations/12", vec![Answer::ok(serde_json::to_value(owner_detail(json!({}))).unwrap())]),
        ("/eu/gpu-reservations", vec![second_list]),
        ("/eu/gpu-reservations/12/nodes", nodes()),
        ("/eu/gpu-reservations/12", vec![Answer::ok(json!(member))]),
    ])
}

fn second_list_ok() -> Answer {
    Answer::ok(json!([reservation(json!({ "id": 12, "region_id": "fra" }))]))
}

/// The overview page as the app shows it, on the loopback test interval; the second
/// account added before it opens, or once it is shown (`added_later`).
fn overview(
    added_later: bool,
) -> (AccountStores, ConnectionState, leptos::mount::UnmountHandle<impl Mountable>, HostAt) {
    opened("/overview?poll_ms=100", added_later, || view! { <OverviewPage/> }.into_any())
}

/// The page `page` at `path`, as [`overview`] opens the overview.
fn opened(
    path: &str,
    added_later: bool,
    page: fn() -> AnyView,
) -> (AccountStores, ConnectionState, leptos::mount::UnmountHandle<impl Mountable>, HostAt) {
    let at = HostAt::new(path);
    let made = Rc::new(Cell::new(None));
    let handle = {
        let made = Rc::clone(&made);
        leptos::mount::mount_to(at.host.clone(), move || {
            let state = provide_console(Role::Owner);
            provide_context(FleetStore::new());
            provide_context(BellSlot::new());
            let stores = use_account_stores();
            made.set(Some((stores, state)));
            if !added_later {
                add_second(stores);
            }
            view! { <Router>{page()}</Router> }
        })
    };
    let (stores, state) = made.get().expect("mounted");
    (stores, state, handle, at)
}

fn add_second(stores: AccountStores) {
    stores.add(SECOND, Connection::new(SECOND_BASE, SECOND_KEY), Role::Member, false).expect("added");
}

/// The text of what names the account `label` (its part, its rows, its lines in the sums).
fn of_account(host: &web_sys::HtmlElement, label: &str) -> Vec<String> {
    texts(host, &format!("[data-account=\"{label}\"]"))
}

/// The text of each element of `host` matching `selector`.
fn texts(host: &web_sys::HtmlElement, selector: &str) -> Vec<String> {
    let found = host.query_selector_all(selector).unwrap();
    (0..found.length()).map(|i| found.item(i).unwrap().text_content().unwrap_or_default()).collect()
}

/// The text of the account's reservation rows.
fn rows_of(host: &web_sys::HtmlElement, label: &str) -> Vec<String> {
    texts(host, &format!("tr[data-reservation][data-account=\"{label}\"]"))
}

fn first_text_of(host: &web_sys::HtmlElement, selector: &str) -> String {
    host.query_selector(selector).unwrap().and_then(|e| e.text_content()).unwrap_or_default()
}

fn sent_with_second_key(api: &FakeApi) -> usize {
    api.authorizations().iter().filter(|a| **a == format!("Bearer {SECOND_KEY}")).count()
}

/// Both accounts' rows read in full: each one's figures, and the owner's idle cost.
async fn both_read(host: &web_sys::HtmlElement) {
    until(true, || rows_of(host, "").iter().any(|row| row.contains("$2.50/h"))).await;
    until(true, || rows_of(host, SECOND).iter().any(|row| row.contains("updated"))).await;
}

#[wasm_bindgen_test]
async fn with_an_owner_and_a_member_account_money_shows_on_the_owners_rows_alone() {
    let api = api(second_list_ok());
    let (_stores, _, page, at) = overview(false);
    both_read(&at.host).await;
    // Let the member's detail arrive too: a rate, had one reached it, would still not show.
    sleep(1_500).await;
    let (owner, member) = (rows_of(&at.host, ""), rows_of(&at.host, SECOND));
    assert_eq!((owner.len(), member.len()), (1, 1), "#12 of each account: two reservations");
    assert!(owner[0].contains("first key"), "each row names its account: {owner:?}");
    assert!(member[0].contains(SECOND), "{member:?}");
    assert!(!member.concat().contains('$'), "a member's rows carry no money: {member:?}");
    let page_text = text(&at.host);
    assert!(page_text.contains(&format!("Money not shown for {SECOND}")), "{page_text}");
    assert!(
        page_text.contains("$2.50/h of reserved capacity is idle and open to launches in first key"),
        "{page_text}"
    );
    let sums = of_account(&at.host, SECOND);
    assert!(sums.iter().any(|s| s.starts_with(SECOND) && s.contains('8')), "its line in the sums: {sums:?}");
    assert!(api.authorizations().contains(&"Bearer eco_test_key".to_owned()));
    assert!(sent_with_second_key(&api) > 0, "each account read with its own key");
    drop(page);
    drop(at);
}

#[wasm_bindgen_test]
async fn a_403_on_one_account_shows_on_its_rows_and_leaves_the_others_whole() {
    let _api = api(Answer::error(403, "forbidden", "req_eu_403"));
    let (_stores, _, page, at) = overview(false);
    until(true, || of_account(&at.host, SECOND).concat().contains("req_eu_403")).await;
    until(true, || rows_of(&at.host, "").iter().any(|row| row.contains("$2.50/h"))).await;
    let page_text = text(&at.host);
    assert!(page_text.contains(&format!("Not counted: {SECOND}, whose reservations are not read")), "{page_text}");
    assert!(rows_of(&at.host, SECOND).is_empty(), "no rows of it, never zeros");
    let owner = rows_of(&at.host, "");
    assert!(owner[0].contains("first key") && owner[0].contains('6'), "the owner's row whole: {owner:?}");
    drop(page);
    drop(at);
}

#[wasm_bindgen_test]
async fn removing_an_account_takes_its_rows_off_the_page_and_its_reads_stop() {
    let api = api(second_list_ok());
    let (stores, _, page, at) = overview(true);
    until(true, || first_text_of(&at.host, "tr[data-reservation]").contains("$2.50/h")).await;
    let named = at.host.query_selector("[data-account]").unwrap();
    assert!(named.is_none(), "one account alone: the page as it was, no account named");
    add_second(stores);
    both_read(&at.host).await;

    stores.remove(SECOND);
    until(Vec::<String>::new(), || of_account(&at.host, SECOND)).await;
    let sent = sent_with_second_key(&api);
    // Many rounds of the loop's pace (600 ms a request, each reservation every 100 ms asked).
    sleep(2_000).await;
    assert_eq!(sent_with_second_key(&api), sent, "no request with its key once removed");
    assert_eq!(stores.all().len(), 1);
    assert!(!text(&at.host).contains(SECOND), "nothing of it on the page");
    drop(page);
    drop(at);
}

#[wasm_bindgen_test]
async fn a_key_added_from_the_header_is_checked_with_itself_named_and_removable() {
    let api = FakeApi::new(vec![("/api/gpu-reservations", vec![Answer::ok(json!([]))])]);
    let (stores, _, page, at) = opened("/overview", true, || view! { <Header/> }.into_any());
    let menu = at.host.query_selector("details.accounts-menu").unwrap().expect("the header offers accounts");
    menu.set_attribute("open", "").unwrap();
    until(true, || at.host.query_selector("#account-key").unwrap().is_some()).await;
    type_into(&at.host, "#account-label", SECOND);
    type_into(&at.host, "#account-key", SECOND_KEY);
    button(&at.host, "Add key").expect("its button").click();
    until(2, || stores.all().len()).await;
    assert_eq!(api.authorizations(), [format!("Bearer {SECOND_KEY}")], "checked with its own key, once");
    until(true, || button(&at.host, &format!("Remove {SECOND}")).is_some()).await;

    type_into(&at.host, "#account-label", "PROD-EU");
    type_into(&at.host, "#account-key", "eco_other_key");
    button(&at.host, "Add key").unwrap().click();
    until(true, || text(&at.host).contains("Another connected account has this label")).await;
    assert_eq!(api.authorizations().len(), 1, "refused before any request");

    button(&at.host, &format!("Remove {SECOND}")).unwrap().click();
    until(1, || stores.all().len()).await;
    drop(page);
    drop(at);
}

#[wasm_bindgen_test]
async fn fit_judges_each_accounts_reservations_under_its_name() {
    let _api = api(second_list_ok());
    let (_stores, _, page, at) = opened("/fit?gpus=2&poll_ms=100", false, || view! { <FitPage/> }.into_any());
    let verdicts = |label: &str| texts(&at.host, &format!("tr[data-verdict][data-account=\"{label}\"]"));
    until(true, || verdicts("").iter().any(|row| row.contains("first key") && row.contains("Launch here"))).await;
    until(true, || verdicts(SECOND).iter().any(|row| row.contains(SECOND) && row.contains("Launch here"))).await;
    assert_eq!((verdicts("").len(), verdicts(SECOND).len()), (1, 1), "#12 of each account, each judged");
    drop(page);
    drop(at);
}

#[wasm_bindgen_test]
async fn capacity_shows_each_accounts_lanes_and_overlap_costs_on_the_owners_alone() {
    let _api = api(second_list_ok());
    let (_stores, _, page, at) = opened("/capacity?poll_ms=100", false, || view! { <CapacityPage/> }.into_any());
    let lanes = |label: &str| {
        let part = format!("section[data-account=\"{label}\"] .capacity-lane");
        at.host.query_selector_all(&part).unwrap().length()
    };
    until((1, 1), || (lanes(""), lanes(SECOND))).await;
    let part = |label: &str| first_text_of(&at.host, &format!("section[data-account=\"{label}\"]"));
    assert!(part("").contains("Reserved twice costs"), "the owner's lanes price an overlap: {}", part(""));
    assert!(!part(SECOND).contains("Reserved twice costs"), "a member's never: {}", part(SECOND));
    drop(page);
    drop(at);
}

#[wasm_bindgen_test]
async fn the_accounts_added_to_a_connection_go_with_it_when_it_ends() {
    let _api = api(second_list_ok());
    let (stores, state, page, at) = overview(false);
    until(true, || !rows_of(&at.host, SECOND).is_empty()).await;
    // The header's Disconnect.
    state.disconnect();
    state.connect(Connection::new("/api", "eco_test_key"), false, Role::Owner);
    until(1, || stores.all().len()).await;
    assert!(stores.accounts().added().is_empty(), "nothing of it kept for the next connection");
    drop(page);
    drop(at);
}

#[wasm_bindgen_test]
async fn what_stops_when_and_the_bell_are_each_accounts_and_the_overdue_sum_the_owners_alone() {
    // Reservation 8 past due in both accounts, its workloads stopping in 3 days.
    let past_due = json!({
        "id": 8, "status": "past_due", "past_due_since": "2026-12-01T00:00:00Z", "stops_at": "2026-12-05T09:30:00Z",
        "payment": { "funding": "wallet", "charges": [december_charge("past_due")] }
    });
    let owners = serde_json::to_value(owner_detail(past_due.clone())).unwrap();
    let mut members = owners.clone();
    members.as_object_mut().unwrap().remove("payment");
    let mut listed = owners.clone();
    for detail_only in ["storage", "amendments", "payment"] {
        listed.as_object_mut().unwrap().remove(detail_only);
    }
    let nodes = || vec![Answer::ok(serde_json::to_value(seed_nodes()).unwrap())];
    let _api = FakeApi::new(vec![
        ("/api/gpu-reservations", vec![Answer::ok(json!([listed.clone()]))]),
        ("/api/gpu-reservations/8/nodes", nodes()),
        ("/api/gpu-reservations/8", vec![Answer::ok(owners)]),
        ("/eu/gpu-reservations", vec![Answer::ok(json!([listed]))]),
        ("/eu/gpu-reservations/8/nodes", nodes()),
        ("/eu/gpu-reservations/8", vec![Answer::ok(members)]),
    ]);
    let (_stores, _, page, at) =
        opened("/overview?poll_ms=100", false, || view! { <Header/> <OverviewPage/> }.into_any());
    let panel =
        |name: &str| first_text_of(&at.host, &format!("section.at-risk[aria-label=\"What stops when, {name}\"]"));
    until(true, || panel("first key").contains('$')).await;
    until(true, || panel(SECOND).contains("#8")).await;
    assert!(
        panel("first key").contains("#8 · Workloads stop unless the overdue payment is made"),
        "{}",
        panel("first key")
    );
    let members = panel(SECOND);
    assert!(
        members.contains(OWNER_ONLY) && !members.contains('$'),
        "a member's: no sum, the owner averts it: {members}"
    );
    assert!(at.host.query_selector("#at-risk").unwrap().is_none(), "no page anchor shared by two panels");
    // The bell: each account's alert, named by its account.
    let bell = at.host.query_selector("details.alerts-bell").unwrap().expect("the bell, installed by the overview");
    bell.set_attribute("open", "").unwrap();
    let alerts = || texts(&at.host, ".alerts-panel li");
    until(true, || alerts().iter().any(|a| a.contains(&format!("{SECOND}: ")))).await;
    assert!(alerts().iter().any(|a| a.contains("first key: ")), "{:?}", alerts());
    drop(page);
    drop(at);
}

#[wasm_bindgen_test]
async fn the_ledger_is_the_owners_accounts_alone_and_names_the_others() {
    let _api = api(second_list_ok());
    let (_stores, _, page, at) = opened("/ledger", false, || view! { <LedgerPage/> }.into_any());
    let owner = || first_text_of(&at.host, "section[data-account=\"\"]");
    until(true, || owner().contains('$')).await;
    assert!(owner().starts_with("first key"), "under its account's name: {}", owner());
    assert!(of_account(&at.host, SECOND).is_empty(), "no ledger of a member's key");
    let page_text = text(&at.host);
    assert!(
        page_text.contains(&format!("Not shown: the ledgers of {SECOND}, whose keys are not the owner's")),
        "{page_text}"
    );
    drop(page);
    drop(at);
}
