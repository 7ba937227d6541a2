//! The connection kept for the tab in `sessionStorage`, when the user opts in.

use super::role::Role;
use crate::api::client::Connection;
use wasm_bindgen::JsValue;

/// `sessionStorage` entry of a key kept for the tab.
pub const KEPT_CONNECTION: &str = "reservations-console.connection";

/// The role is kept beside the key, so that a reload shows it at once instead of reading
/// the list a second time beside the page's own read; every detail read corrects it
/// ([`crate::state::ConnectionState::learn_role`]). An entry without one (or `Unknown`) is probed again.
///
/// The entry is a JSON object that `index.html`'s inline script reads too (`key`,
/// `base_url`), written and read with the browser's own JSON: it is one small object, and
/// serde's code for it weighed more on the first load than the object ever will.
pub(crate) struct Kept {
    base_url: String,
    key: String,
    pub(crate) role: Role,
    /// Kept like `base_url`; absent in an entry from before it existed (then the same).
    org_base_url: String,
    console_origin: String,
    simulator: bool,
}

impl Kept {
    pub(super) fn write(connection: &Connection, role: Role) {
        Self::write_to(KEPT_CONNECTION, connection, role);
    }

    /// [`Self::write`] under `name`: an added account's entry (`reads::session::Accounts`).
    pub(crate) fn write_to(name: &str, connection: &Connection, role: Role) {
        let entry = js_sys::Object::new();
        let fields = [
            ("base_url", JsValue::from_str(connection.base_url())),
            ("key", JsValue::from_str(connection.expose_key())),
            ("role", JsValue::from_str(role.name())),
            ("org_base_url", JsValue::from_str(connection.org_base_url())),
            ("console_origin", JsValue::from_str(connection.console_origin().unwrap_or_default())),
            ("simulator", JsValue::from_bool(connection.is_simulator())),
        ];
        for (name, value) in fields {
            let _ = js_sys::Reflect::set(&entry, &JsValue::from_str(name), &value);
        }
        let json = js_sys::JSON::stringify(&entry).ok().and_then(|json| json.as_string());
        if let (Some(storage), Some(json)) = (session_storage(), json) {
            // A full or blocked storage only means the key is not kept.
            let _ = storage.set_item(name, &json);
        }
    }

    pub(super) fn forget() {
        Self::forget_entry(KEPT_CONNECTION);
    }

    pub(crate) fn forget_entry(name: &str) {
        if let Some(storage) = session_storage() {
            let _ = storage.remove_item(name);
        }
    }

    pub(super) fn read() -> Option<Kept> {
        Self::read_from(KEPT_CONNECTION)
    }

    /// The entry `name`, if it holds a key and a base URL; the other fields default when absent.
    pub(crate) fn read_from(name: &str) -> Option<Kept> {
        let json = session_storage()?.get_item(name).ok().flatten()?;
        let entry = js_sys::JSON::parse(&json).ok()?;
        let field = |name: &str| js_sys::Reflect::get(&entry, &JsValue::from_str(name)).ok();
        let text = |name: &str| field(name).and_then(|value| value.as_string());
        Some(Kept {
            base_url: text("base_url")?,
            key: text("key")?,
            role: text("role").map_or(Role::Unknown, |name| Role::named(&name)),
            org_base_url: text("org_base_url").unwrap_or_default(),
            console_origin: text("console_origin").unwrap_or_default(),
            simulator: field("simulator").and_then(|value| value.as_bool()).unwrap_or(false),
        })
    }

    pub(crate) fn connection(&self) -> Connection {
        Connection::new(&self.base_url, &self.key)
            .with_org_base_url(&self.org_base_url)
            .with_console_origin(&self.console_origin)
            .with_simulator(self.simulator)
    }
}

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}
