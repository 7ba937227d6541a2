//! Readers shared by the tests of the nodes, launch and org pages.
#![allow(dead_code)] // each test binary uses a different subset

use wasm_bindgen::JsCast;

/// The `title` of every element matching `selector` in `host`, in order.
pub fn titles(host: &web_sys::Element, selector: &str) -> Vec<String> {
    let found = host.query_selector_all(selector).unwrap();
    (0..found.length())
        .map(|i| found.item(i).unwrap().unchecked_into::<web_sys::Element>().get_attribute("title").unwrap())
        .collect()
}

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
