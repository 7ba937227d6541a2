//! Two console tabs of one key, played by two coordinators on one `BroadcastChannel` in
//! this page: each hears the other and takes half of the key's 200 requests a minute, and
//! one closing gives its share back.
#![cfg(target_arch = "wasm32")]

use reservations_console::browser::sleep;
use reservations_console::state::TabShare;
use std::time::Duration;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Long enough for a message to cross the channel.
const CROSS: Duration = Duration::from_millis(200);

#[wasm_bindgen_test]
async fn two_tabs_split_the_keys_200_requests_a_minute_and_one_closing_gives_its_share_back() {
    let channel = "tab-share-test";
    let first = TabShare::join(channel);
    sleep(CROSS).await;
    assert_eq!((first.tabs(), first.per_minute()), (1, 200), "alone, the whole limit");
    let second = TabShare::join(channel);
    sleep(CROSS).await;
    assert_eq!((first.tabs(), second.tabs()), (2, 2), "each hears the other");
    assert_eq!((first.per_minute(), second.per_minute()), (100, 100), "half each: 200 together");
    drop(second);
    sleep(CROSS).await;
    assert_eq!((first.tabs(), first.per_minute()), (1, 200), "the tab that left gave its share back");
}
