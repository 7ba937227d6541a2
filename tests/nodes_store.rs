//! The session's store of each reservation's `/nodes`: readers asking at once share one
//! request, a page opened anew sends its own, and an answer lands for every view.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{mount_with, now, provide_console, seed_nodes, settle, FakeApi};
use reservations_console::reads::nodes::{use_nodes, NodesStore};
use reservations_console::state::{Lifetime, Role};
use std::sync::Arc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn store() -> NodesStore {
    let (_, store) = mount_with(|| {
        provide_console(Role::Member);
        let store = use_nodes();
        (store, ())
    });
    store
}

#[wasm_bindgen_test]
async fn readers_asking_at_once_share_one_request_and_a_page_opened_anew_sends_its_own() {
    let store = store();
    let api = FakeApi::new(Vec::new());
    let (first, joined) = (store.fetch(12, Lifetime::Session), store.fetch(12, Lifetime::Session));
    let other = store.fetch(9, Lifetime::Session);
    let anew = store.fetch_new(12, Lifetime::Session);
    let after = store.fetch(12, Lifetime::Session);
    settle().await;
    assert_eq!(
        api.paths(),
        ["/api/gpu-reservations/12/nodes", "/api/gpu-reservations/9/nodes", "/api/gpu-reservations/12/nodes"],
        "two reads of 12 at once are one request; the read sent anew is a second; a later reader joins it"
    );
    drop((first, joined, other, anew, after));
}

#[wasm_bindgen_test]
async fn an_answer_just_received_is_taken_without_a_request_and_an_older_one_is_read_again() {
    let store = store();
    let session = store.begin_current().unwrap();
    store.receive(session, 12, Ok(Arc::new(seed_nodes())), chrono::Utc::now());
    store.receive(session, 9, Ok(Arc::new(seed_nodes())), now());
    let api = FakeApi::new(Vec::new());
    let fresh = store.fetch_fresh(12, Lifetime::Session).await.expect("the stored answer");
    assert_eq!(fresh.nodes.len(), seed_nodes().nodes.len());
    let old = store.fetch_fresh(9, Lifetime::Session);
    settle().await;
    assert_eq!(api.paths(), ["/api/gpu-reservations/9/nodes"], "only the older answer is read again");
    drop(old);
}
