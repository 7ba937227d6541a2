//! The connection as a set of accounts (issue 48): one account is the connection as it
//! was; an added key has its own budget of 200 requests a minute, and removing it leaves
//! nothing of it behind.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{mount_with, now, provide_console, settle, text, Answer, FakeApi};
use leptos::prelude::*;
use reservations_console::api::client::{self, Connection};
use reservations_console::browser::sleep;
use reservations_console::domain::polling::tab_share::channel_for;
use reservations_console::pages::launch::LaunchPage;
use reservations_console::pages::reservation::ReservationPage;
use reservations_console::reads::reservations::use_reservations;
use reservations_console::reads::session::{Accounts, Refused};
use reservations_console::router::Router;
use reservations_console::state::{ConnectionState, Role, Sent, TabShare, KEPT_CONNECTION};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The key [`provide_console`] connects with, and the one added beside it.
const FIRST_KEY: &str = "eco_test_key";
const SECOND_KEY: &str = "eco_prod_eu_key";

/// Long enough for a message to cross a `BroadcastChannel`, and for answers given at once.
const CROSS: Duration = Duration::from_millis(300);

fn connected() -> (ConnectionState, Accounts) {
    web_sys::window().unwrap().session_storage().unwrap().unwrap().clear().unwrap();
    let (_, handles) = mount_with(|| {
        let state = provide_console(Role::Owner);
        ((state, Accounts::new()), ())
    });
    handles
}

fn second_key() -> Connection {
    Connection::new("/api", SECOND_KEY)
}

fn stored_values() -> Vec<String> {
    let storage = web_sys::window().unwrap().session_storage().unwrap().unwrap();
    (0..storage.length().unwrap())
        .map(|i| storage.get_item(&storage.key(i).unwrap().unwrap()).unwrap().unwrap())
        .collect()
}

#[wasm_bindgen_test]
async fn one_account_is_the_connection_as_it_was_and_another_needs_its_own_label_and_key() {
    let (state, accounts) = connected();
    let all = accounts.all();
    assert_eq!(all.len(), 1);
    assert_eq!(
        (all[0].label.as_str(), Some(all[0].session.id), all[0].role),
        ("", state.session_id_untracked(), Role::Owner)
    );
    let api = FakeApi::new(vec![("/api/gpu-reservations", vec![Answer::ok(serde_json::json!([]))])]);
    accounts.send(&all[0], |c| async move { client::list_reservations(&c).await }).await.expect("read as today");
    assert_eq!(api.paths(), ["/api/gpu-reservations"], "the same address as today");
    assert_eq!(api.authorizations(), [format!("Bearer {FIRST_KEY}")]);

    let refused = |label: &str, key: &str| accounts.add(label, Connection::new("/api", key), Role::Member, false).err();
    assert_eq!(refused("  ", SECOND_KEY), Some(Refused::NoLabel));
    assert_eq!(refused("prod-eu", FIRST_KEY), Some(Refused::KeyTaken), "a key is in the set once");
    accounts.add(" prod-eu ", second_key(), Role::Member, false).expect("added");
    assert_eq!(refused("PROD-EU", "eco_other_key"), Some(Refused::LabelTaken), "labels compare case-insensitively");
    let labels: Vec<String> = accounts.all().into_iter().map(|a| a.label).collect();
    assert_eq!(labels, ["", "prod-eu"]);
    assert!(accounts.all()[1].session.id > all[0].session.id, "its own session id");
    state.disconnect();
    assert_eq!(refused("training", "eco_other_key"), Some(Refused::NotConnected));
}

/// The old console had one budget for the tab: two keys read at full speed got about 100
/// requests each in the first minute. Each key's own 200 is the API's rule.
#[wasm_bindgen_test]
async fn two_keys_in_one_tab_each_send_within_their_own_200_requests_a_minute() {
    let (state, accounts) = connected();
    let second = accounts.add("prod-eu", second_key(), Role::Member, false).expect("added");
    let first = accounts.all().remove(0);
    let api = FakeApi::new(vec![("/api/gpu-reservations", vec![Answer::ok(serde_json::json!([]))])]);
    for _ in 0..230 {
        for account in [&first, &second] {
            let read = accounts.send(account, |c| async move { client::list_reservations(&c).await });
            wasm_bindgen_futures::spawn_local(async move { drop(read.await) });
        }
    }
    sleep(CROSS).await;
    let sent = api.authorizations();
    let by = |key: &str| sent.iter().filter(|a| **a == format!("Bearer {key}")).count();
    assert_eq!((by(FIRST_KEY), by(SECOND_KEY)), (200, 200), "each key's first minute: its own 200, no more");
    // The 30 of each left wait for the minute: removing ends them without a request.
    accounts.remove("prod-eu");
    state.disconnect();
}

#[wasm_bindgen_test]
async fn removing_an_account_purges_its_stored_entry_its_reads_in_flight_and_its_share_of_the_key() {
    let (state, accounts) = connected();
    let second = accounts.add("prod-eu", second_key(), Role::Member, true).expect("added");
    assert!(stored_values().iter().any(|v| v.contains(SECOND_KEY)), "kept for the tab, as ticked");
    let restored = mount_with(move || {
        provide_context(state);
        (Accounts::restore(), ())
    })
    .1
    .all();
    assert_eq!(
        restored.iter().map(|a| (a.label.as_str(), a.role, a.kept)).collect::<Vec<_>>(),
        [("", Role::Owner, false), ("prod-eu", Role::Member, true)],
        "a reload finds it again"
    );

    // Another tab of the same key, and a read that is never answered.
    let other_tab = TabShare::join(&channel_for(SECOND_KEY));
    let api = FakeApi::new(vec![]);
    let ended = Rc::new(RefCell::new(None));
    let read = accounts.send(&second, |c| async move { client::reservation(&c, 12).await });
    let into = Rc::clone(&ended);
    wasm_bindgen_futures::spawn_local(async move { *into.borrow_mut() = Some(read.await.map(|_| ())) });
    sleep(CROSS).await;
    assert_eq!(api.authorizations(), [format!("Bearer {SECOND_KEY}")]);
    assert_eq!(other_tab.tabs(), 2, "this tab shares the key's budget with the other");

    accounts.remove("prod-eu");
    sleep(CROSS).await;
    let labels: Vec<String> = accounts.all().into_iter().map(|a| a.label).collect();
    assert_eq!(labels, [""], "gone from the set");
    assert!(!stored_values().iter().any(|v| v.contains(SECOND_KEY)), "nothing of it stored: {:?}", stored_values());
    let ended = ended.borrow_mut().take().expect("its read in flight ended");
    assert!(ended.is_err_and(|e| e.is_cancelled()), "aborted, not answered");
    assert_eq!(other_tab.tabs(), 1, "the key's other tab takes its share back");
    assert!(accounts.send(&second, |c| async move { client::reservation(&c, 12).await }).await.is_err());
    assert_eq!(api.authorizations().len(), 1, "a removed account sends nothing");
}

/// Seed 004's detail of reservation #12, in `region`: the same id in two accounts.
fn detail_in(region: &str) -> serde_json::Value {
    let mut detail: serde_json::Value = serde_json::from_str(include_str!("../fixtures/seed_004_detail.json")).unwrap();
    detail["region_id"] = region.into();
    detail
}

/// `page` at `address` in a console connected with the first key, whose store already holds
/// the first account's #12 (in region "atl"), and "prod-eu" added beside it (its role not
/// known yet), each kept for the tab as `kept` says; the runner's address is put back after.
async fn two_accounts_kept_at(
    address: &str,
    kept: (bool, bool),
    page: fn() -> AnyView,
) -> (web_sys::HtmlElement, Accounts) {
    web_sys::window().unwrap().session_storage().unwrap().unwrap().clear().unwrap();
    let history = web_sys::window().unwrap().history().unwrap();
    let before = web_sys::window().unwrap().location().href().unwrap();
    history.replace_state_with_url(&JsValue::NULL, "", Some(address)).unwrap();
    let (host, accounts) = mount_with(move || {
        let state = provide_console(Role::Owner);
        if kept.0 {
            state.connect(Connection::new("/api", FIRST_KEY), true, Role::Owner);
        }
        let store = use_reservations();
        let first = store.begin_current().unwrap();
        store.receive_detail(first, serde_json::from_value(detail_in("atl")).unwrap(), now());
        let accounts = Accounts::new();
        provide_context(accounts);
        accounts.add("prod-eu", second_key(), Role::Unknown, kept.1).expect("added");
        (accounts, view! { <Router>{page()}</Router> })
    });
    settle().await;
    sleep(CROSS).await;
    history.replace_state_with_url(&JsValue::NULL, "", Some(&before)).unwrap();
    (host, accounts)
}

/// The addresses of the links of `host` that lead to a page of reservation #12.
fn links_to_12(host: &web_sys::HtmlElement) -> Vec<String> {
    let links = host.query_selector_all("a[href^='/reservations/12']").unwrap();
    (0..links.length())
        .map(|i| links.item(i).unwrap().unchecked_into::<web_sys::Element>().get_attribute("href").unwrap())
        .collect()
}

/// Ids repeat between accounts: `#12` of "prod-eu" is read with its key and shown as its,
/// never the first account's `#12` the app's store already holds; its links to the
/// reservation's other pages keep the account; the role its read reveals is the account's;
/// once it is removed, nothing of it is shown.
#[wasm_bindgen_test]
async fn a_reservation_page_naming_an_account_reads_with_its_key_and_its_links_keep_the_account() {
    let api = FakeApi::new(vec![
        ("/api/gpu-reservations/12", vec![Answer::ok(detail_in("ams"))]),
        ("/api/gpu-reservations", vec![Answer::ok(serde_json::json!([]))]),
        ("/api/gpu-reservations/12/nodes", vec![Answer::ok(serde_json::json!({ "nodes": [] }))]),
    ]);
    type Build = fn() -> AnyView;
    let pages: [(&str, Build); 2] = [
        ("/reservations/12?account=prod-eu", || view! { <ReservationPage/> }.into_any()),
        ("/reservations/12/launch?gpus=2&account=prod-eu", || view! { <LaunchPage/> }.into_any()),
    ];
    for (address, page) in pages {
        let (host, accounts) = two_accounts_kept_at(address, (false, false), page).await;
        let shown = text(&host);
        assert!(shown.contains("ams") && !shown.contains("atl"), "{address}: prod-eu's #12, not the first's: {shown}");
        let sent = api.authorizations();
        assert!(!sent.is_empty() && sent.iter().all(|a| *a == format!("Bearer {SECOND_KEY}")), "{address}: {sent:?}");
        let links = links_to_12(&host);
        assert!(!links.is_empty() && links.iter().all(|l| l.ends_with("account=prod-eu")), "{address}: {links:?}");
        let role = accounts.find("prod-eu").map(|a| a.role);
        assert_eq!(role, Some(Role::Owner), "{address}: its detail (with payment) told its role");
        accounts.remove("prod-eu");
        settle().await;
        let shown = text(&host);
        assert!(shown.contains("Account not connected") && !shown.contains("ams"), "{address}: removed: {shown}");
        accounts.remove("");
        host.remove();
        js_clear_log();
    }
}

/// An address naming an account the tab has no key for says so, the label drawn as text,
/// and reads nothing (no other account's `#12` in its place).
#[wasm_bindgen_test]
async fn an_address_naming_an_account_not_connected_says_so_and_reads_nothing() {
    let api = FakeApi::new(vec![("/api/gpu-reservations/12", vec![Answer::ok(detail_in("ams"))])]);
    let address = "/reservations/12?account=%3Cb%3Etraining%3C%2Fb%3E";
    let (host, accounts) =
        two_accounts_kept_at(address, (false, false), || view! { <ReservationPage/> }.into_any()).await;
    let shown = text(&host);
    assert!(shown.contains("Account not connected") && shown.contains("<b>training</b>"), "{shown}");
    assert!(host.query_selector("b").unwrap().is_none(), "the label is text, never markup");
    assert!(!shown.contains("atl") && !shown.contains("ams"), "{shown}");
    assert!(api.paths().is_empty(), "nothing read: {:?}", api.paths());
    accounts.remove("");
    host.remove();
}

/// Forgets the requests the fake API logged so far.
fn js_clear_log() {
    console_fixtures::js("window.__log = [];");
}

/// Every entry of the tab's `localStorage` and `sessionStorage`: which, name, value.
fn stored_entries() -> Vec<(&'static str, String, String)> {
    let window = web_sys::window().unwrap();
    let storages = [("local", window.local_storage()), ("session", window.session_storage())];
    let mut entries = Vec::new();
    for (which, storage) in storages {
        let storage = storage.unwrap().unwrap();
        for i in 0..storage.length().unwrap() {
            let name = storage.key(i).unwrap().unwrap();
            entries.push((which, name.clone(), storage.get_item(&name).unwrap().unwrap()));
        }
    }
    entries
}

/// The names of the origin's IndexedDB databases, where the browser lists them.
async fn indexed_databases() -> Option<Vec<String>> {
    let listed = console_fixtures::js(
        "return (typeof indexedDB !== 'undefined' && indexedDB.databases) \
           ? indexedDB.databases().then((all) => all.map((db) => db.name)) : null;",
    );
    if listed.is_null() {
        return None;
    }
    let names = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(listed)).await.unwrap();
    Some(js_sys::Array::from(&names).iter().filter_map(|name| name.as_string()).collect())
}

/// Issue 48's rule for storage: after a session with two accounts, one kept for the tab and
/// one not, each having read (the detail and list of its #12), the tab holds the kept key's
/// entry alone, in `sessionStorage`: nothing of the other key, nothing read, no `localStorage`,
/// no IndexedDB.
#[wasm_bindgen_test]
async fn after_a_session_with_two_accounts_only_the_kept_keys_entry_is_stored() {
    web_sys::window().unwrap().local_storage().unwrap().unwrap().clear().unwrap();
    let api = FakeApi::new(vec![
        ("/api/gpu-reservations/12", vec![Answer::ok(detail_in("ams"))]),
        ("/api/gpu-reservations", vec![Answer::ok(serde_json::json!([detail_in("ams")]))]),
    ]);
    let arrangements = [
        ((true, false), (KEPT_CONNECTION.to_owned(), FIRST_KEY, SECOND_KEY)),
        ((false, true), (format!("{KEPT_CONNECTION}.prod-eu"), SECOND_KEY, FIRST_KEY)),
    ];
    for (kept, (entry, kept_key, other_key)) in arrangements {
        let (host, accounts) =
            two_accounts_kept_at("/reservations/12?account=prod-eu", kept, || view! { <ReservationPage/> }.into_any())
                .await;
        let first = accounts.all().remove(0);
        accounts.send(&first, |c| async move { client::reservation(&c, 12).await }).await.expect("read");
        accounts.send(&first, |c| async move { client::list_reservations(&c).await }).await.expect("read");
        let sent = api.authorizations();
        for key in [FIRST_KEY, SECOND_KEY] {
            assert!(sent.contains(&format!("Bearer {key}")), "both accounts read: {sent:?}");
        }

        let entries = stored_entries();
        let names: Vec<(&str, &str)> = entries.iter().map(|(which, name, _)| (*which, name.as_str())).collect();
        assert_eq!(names, [("session", entry.as_str())], "{kept:?}: the kept key's entry alone: {entries:?}");
        let value = &entries[0].2;
        assert!(value.contains(kept_key), "{kept:?}: {value}");
        for absent in [other_key, "ams", "atl", "gpu_type", "payment"] {
            assert!(!value.contains(absent), "{kept:?}: {absent} stored: {value}");
        }
        if let Some(databases) = indexed_databases().await {
            assert!(databases.is_empty(), "{kept:?}: IndexedDB holds {databases:?}");
        }
        accounts.remove("");
        host.remove();
        js_clear_log();
    }
}

/// A 429 on one key is that key's: its `retry-after` holds its next reads (sent with the
/// real pacing of [`Accounts::send`]), while the other key's reads go on at once, each key
/// within its own budget.
#[wasm_bindgen_test]
async fn a_429_on_one_key_holds_that_keys_reads_for_its_retry_after_and_not_the_others() {
    let (_, accounts) = connected();
    let second = accounts.add("prod-eu", second_key(), Role::Member, false).expect("added");
    let first = accounts.all().remove(0);
    // Each key reads its own path: the fake answers by path.
    let api = FakeApi::new(vec![
        (
            "/api/gpu-reservations",
            vec![
                Answer::error(429, "rate_limited", "req-429").with_header("retry-after", "2"),
                Answer::ok(serde_json::json!([])),
            ],
        ),
        ("/api/gpu-reservations/12", vec![Answer::ok(detail_in("ams"))]),
    ]);
    let refused = accounts.send(&first, |c| async move { client::list_reservations(&c).await }).await;
    assert_eq!(refused.err().and_then(|e| e.status), Some(429));
    for _ in 0..5 {
        for account in [&first, &second] {
            let read: Sent<()> = if account.label.is_empty() {
                let read = accounts.send(account, |c| async move { client::list_reservations(&c).await });
                Box::pin(async move { read.await.map(drop) })
            } else {
                let read = accounts.send(account, |c| async move { client::reservation(&c, 12).await });
                Box::pin(async move { read.await.map(drop) })
            };
            wasm_bindgen_futures::spawn_local(async move { drop(read.await) });
        }
    }
    let by = |key: &str| api.authorizations().iter().filter(|a| **a == format!("Bearer {key}")).count();
    sleep(Duration::from_millis(1_000)).await;
    assert_eq!((by(FIRST_KEY), by(SECOND_KEY)), (1, 5), "a second in: the held key's reads wait, the other's went");
    sleep(Duration::from_millis(1_600)).await;
    assert_eq!((by(FIRST_KEY), by(SECOND_KEY)), (6, 5), "past its retry-after the held key reads again");
    let first_key_sent: Vec<f64> = api
        .sent()
        .into_iter()
        .zip(api.authorizations())
        .filter(|(_, authorization)| *authorization == format!("Bearer {FIRST_KEY}"))
        .map(|((_, at), _)| at)
        .collect();
    assert!(first_key_sent[1] - first_key_sent[0] >= 1_900.0, "held for its retry-after: {first_key_sent:?}");
    accounts.remove("");
}
