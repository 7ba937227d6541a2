//! Readers shared by the tests of the nodes, launch and org pages.
#![allow(dead_code)] // each test binary uses a different subset

use wasm_bindgen::JsCast;

/// The text of the fact labelled `label` (a `dt` and the `dd` after it) in `host`.
pub fn fact(host: &web_sys::Element, label: &str) -> String {
    let terms = host.query_selector_all("dt").unwrap();
    (0..terms.length())
        .map(|i| terms.item(i).unwrap().unchecked_into::<web_sys::Element>())
        .find(|dt| dt.text_content().unwrap() == label)
        .and_then(|dt| dt.next_element_sibling())
        .and_then(|dd| dd.text_content())
        .unwrap_or_else(|| panic!("no fact {label}"))
}
