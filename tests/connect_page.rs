//! Connect and the header: how the key is asked for and kept, what a rejected key shows,
//! and how the header names the key's role.
#![cfg(target_arch = "wasm32")]

mod console_fixtures;

use console_fixtures::{js, mount, now, provide_console, settle, sleep, text, until, Answer, FakeApi};
use leptos::prelude::*;
use reservations_console::api::client::Connection;
use reservations_console::api::error::{ApiError, ResponseHeaders};
use reservations_console::components::header::Header;
use reservations_console::pages::connect::ConnectPage;
use reservations_console::router::Router;
use reservations_console::state::{Clock, ConnectionState, Role, TimeZone, TimeZoneChoice};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const KEPT: &str = "reservations-console.connection";

fn disconnected() -> ConnectionState {
    let state = ConnectionState::new();
    provide_context(state);
    provide_context(TimeZoneChoice(RwSignal::new(TimeZone::Utc)));
    provide_context(Clock::fixed(now()));
    state
}

/// The Connect page, not connected.
async fn connect_page() -> web_sys::HtmlElement {
    let host = mount(|| {
        disconnected();
        view! { <Router><ConnectPage prefetch=|_| {}/></Router> }
    });
    settle().await;
    host
}

thread_local! {
    /// The paths [`ConnectPage`] asked to prefetch.
    static PREFETCHED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn record_prefetch(path: &str) {
    PREFETCHED.with(|asked| asked.borrow_mut().push(path.to_owned()));
}

/// The `focusin` a click or a tab into the field `selector` of `host` sends.
fn focus(host: &web_sys::HtmlElement, selector: &str) {
    let event: web_sys::Event =
        wasm_bindgen::JsCast::unchecked_into(js("return new FocusEvent('focusin', { bubbles: true });"));
    host.query_selector(selector).unwrap().expect(selector).dispatch_event(&event).unwrap();
}

#[wasm_bindgen_test]
async fn starting_on_the_form_prefetches_the_code_of_the_page_it_leads_to_once() {
    PREFETCHED.with(|asked| asked.borrow_mut().clear());
    let host = mount(|| {
        disconnected();
        view! { <Router><ConnectPage prefetch=record_prefetch/></Router> }
    });
    settle().await;
    assert!(PREFETCHED.with(|asked| asked.borrow().is_empty()), "nothing is fetched before the user starts");
    focus(&host, "#base-url");
    focus(&host, "#api-key");
    settle().await;
    assert_eq!(PREFETCHED.with(|asked| asked.borrow().clone()), ["/overview"], "the landing's code, once");
    host.remove();

    // A page the user was sent here from is where Connect goes: its code is fetched.
    PREFETCHED.with(|asked| asked.borrow_mut().clear());
    let host = mount(|| {
        disconnected().remember_return_path("/reservations/12/nodes?state=ready".into());
        view! { <Router><ConnectPage prefetch=record_prefetch/></Router> }
    });
    settle().await;
    focus(&host, "#api-key");
    settle().await;
    assert_eq!(PREFETCHED.with(|asked| asked.borrow().clone()), ["/reservations/12/nodes?state=ready"]);
    host.remove();
}

fn attribute(host: &web_sys::HtmlElement, selector: &str, name: &str) -> Option<String> {
    host.query_selector(selector).unwrap().expect(selector).get_attribute(name)
}

#[wasm_bindgen_test]
async fn the_key_is_a_password_field_and_the_base_url_defaults_to_api() {
    let host = connect_page().await;
    assert_eq!(attribute(&host, "#api-key", "type").as_deref(), Some("password"));
    // Not a login to save: "new-password" invites browsers to save or generate one; these
    // are the attributes password managers honour to leave a field alone.
    for (name, value) in [
        ("autocomplete", "off"),
        ("data-1p-ignore", "true"),
        ("data-lpignore", "true"),
        ("data-bwignore", "true"),
        ("data-form-type", "other"),
    ] {
        assert_eq!(attribute(&host, "#api-key", name).as_deref(), Some(value), "{name}");
    }
    let base: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("#base-url").unwrap().unwrap());
    assert_eq!(base.value(), "/api");
    let keep: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("input[type=checkbox]").unwrap().unwrap());
    assert!(!keep.checked(), "keeping the key is opt-in");
    let page = text(&host);
    assert!(page.contains("Keep the key for this tab"), "{page}");
    assert!(page.contains("any script running on this page could read it there"), "the risk is explained: {page}");
    assert!(page.contains("duplicating the tab copies it"), "{page}");
    assert!(page.contains("restoring the browser's session can bring it back"), "{page}");
    assert!(page.contains("If the browser or a password manager offers to save it, decline"), "{page}");
}

/// What the browser would send if the submit handler never ran (a native submission): the
/// form's data set holds no key and goes by POST, so the key cannot reach a URL.
#[wasm_bindgen_test]
async fn a_native_submission_would_carry_no_key() {
    let host = connect_page().await;
    let input: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("#api-key").unwrap().unwrap());
    input.set_value("eco_secret_native");
    let form: web_sys::HtmlFormElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("form").unwrap().unwrap());
    assert_eq!(form.method(), "post");
    let data = web_sys::FormData::new_with_form(&form).unwrap();
    let entries = js_sys::Array::from(&data.entries().into());
    for entry in entries.iter() {
        let value = js_sys::Array::from(&entry).get(1).as_string().unwrap_or_default();
        assert!(!value.contains("eco_secret_native"), "a native submission would send the key");
    }
}

#[wasm_bindgen_test]
async fn an_empty_key_is_refused_before_anything_is_sent() {
    let host = connect_page().await;
    let form: web_sys::HtmlFormElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("form").unwrap().unwrap());
    form.request_submit().unwrap();
    settle().await;
    assert!(text(&host).contains("Enter an API key."));
    assert_eq!(attribute(&host, "#api-key", "aria-invalid").as_deref(), Some("true"));
    assert_eq!(attribute(&host, "#api-key", "aria-describedby").as_deref(), Some("api-key-error api-key-help"));
    assert_eq!(host.query_selector("#api-key-error").unwrap().unwrap().text_content().unwrap(), "Enter an API key.");
}

#[wasm_bindgen_test]
async fn connect_says_what_viewing_needs_and_that_launch_and_reclaim_change_things() {
    let page = text(&connect_page().await);
    assert!(!page.contains("nothing is changed"), "Launch and Reclaim do change things: {page}");
    assert!(page.contains("Viewing needs a key with Read-only Compute access."), "{page}");
    assert!(page.contains("Launching a workload and reclaiming org units change things"), "{page}");
}

#[wasm_bindgen_test]
async fn each_field_is_labelled_and_described_by_its_help() {
    let host = connect_page().await;
    for (id, label) in [("base-url", "API base URL"), ("api-key", "API key")] {
        let for_it =
            host.query_selector(&format!("label[for={id}]")).unwrap().unwrap_or_else(|| panic!("no label for {id}"));
        assert_eq!(for_it.text_content().unwrap(), label);
        assert_eq!(attribute(&host, &format!("#{id}"), "aria-describedby"), Some(format!("{id}-help")));
        assert!(host.query_selector(&format!("#{id}-help")).unwrap().is_some(), "{id}'s help");
        assert_eq!(attribute(&host, &format!("#{id}"), "aria-invalid"), None, "{id} is not invalid before a try");
    }
}

#[wasm_bindgen_test]
async fn the_org_capacity_api_and_the_provider_console_are_set_on_connect() {
    let host = connect_page().await;
    let value = |id: &str| -> String {
        let input: web_sys::HtmlInputElement =
            wasm_bindgen::JsCast::unchecked_into(host.query_selector(&format!("#{id}")).unwrap().expect(id));
        input.value()
    };
    assert_eq!(value("org-base-url"), "/api", "the same as the Compute API's by default");
    assert_eq!(value("console-origin"), "", "no provider console unless set");
    for (id, label) in
        [("org-base-url", "Org capacity API base URL"), ("console-origin", "Provider console (optional)")]
    {
        let for_it = host.query_selector(&format!("label[for={id}]")).unwrap().unwrap_or_else(|| panic!("{id}"));
        assert_eq!(for_it.text_content().unwrap(), label);
    }
    // A console origin that is not one is refused before anything is sent.
    let set = |id: &str, to: &str| {
        let input: web_sys::HtmlInputElement =
            wasm_bindgen::JsCast::unchecked_into(host.query_selector(&format!("#{id}")).unwrap().unwrap());
        input.set_value(to);
        input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    };
    set("api-key", "eco_demo_owner");
    set("console-origin", "javascript:alert(1)");
    let form: web_sys::HtmlFormElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("form").unwrap().unwrap());
    form.request_submit().unwrap();
    settle().await;
    assert_eq!(attribute(&host, "#console-origin", "aria-invalid").as_deref(), Some("true"));
    assert!(text(&host).contains("Enter an origin starting with https://"), "{}", text(&host));
    assert!(!text(&host).contains("Checking the key"), "nothing was sent");
}

/// The key goes to both base URLs: Connect says so, and each accepts only a path on this
/// site, `https://`, or `http://` to this computer, before anything is sent.
#[wasm_bindgen_test]
async fn both_base_urls_receive_the_key_and_accept_only_a_path_https_or_loopback_http() {
    let host = connect_page().await;
    let page = text(&host);
    assert!(page.contains("The key is sent there and to the org capacity API's base URL below."), "{page}");
    assert!(page.contains("The same key is sent here too"), "{page}");
    let set = |id: &str, to: &str| {
        let input: web_sys::HtmlInputElement =
            wasm_bindgen::JsCast::unchecked_into(host.query_selector(&format!("#{id}")).unwrap().unwrap());
        input.set_value(to);
        input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    };
    let form: web_sys::HtmlFormElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("form").unwrap().unwrap());
    set("api-key", "eco_demo_owner");
    for id in ["base-url", "org-base-url"] {
        for bad in ["http://api.ecohash.com", "//api.ecohash.com", "https://user@api.ecohash.com"] {
            set(id, bad);
            form.request_submit().unwrap();
            settle().await;
            assert_eq!(attribute(&host, &format!("#{id}"), "aria-invalid").as_deref(), Some("true"), "{id} {bad}");
            assert!(!text(&host).contains("Checking the key"), "{id} {bad}: nothing was sent");
        }
        set(id, "/api");
    }
    form.request_submit().unwrap();
    settle().await;
    assert_eq!(attribute(&host, "#org-base-url", "aria-invalid"), None, "a path on this site is fine");
}

/// A request answered with `status` and `body`, sent through the console's one door as any
/// page's request is; resolves once its answer has been handled.
async fn answered_by(state: ConnectionState, status: u16, body: &'static str) {
    let headers = ResponseHeaders::from_pairs([("x-ecolink-request-id", "req-7f3a")]);
    let error = ApiError::from_response(status, &headers, body, now());
    let answer = state.send(move |_| async move { Err::<(), _>(error) }).await;
    assert!(answer.is_err());
    settle().await;
}

/// An owner connected, with Connect shown once the session ends (as the app does); returns
/// the host and the connection state.
fn connected_connect_page() -> (web_sys::HtmlElement, ConnectionState) {
    let state = Rc::new(Cell::new(None));
    let host = mount({
        let state = Rc::clone(&state);
        move || {
            let connection = provide_console(Role::Owner);
            state.set(Some(connection));
            move || (!connection.is_connected()).then(|| view! { <Router><ConnectPage prefetch=|_| {}/></Router> })
        }
    });
    (host, state.get().expect("mounted"))
}

#[wasm_bindgen_test]
async fn a_revoked_key_returns_to_connect_with_the_401_explained_and_the_page_to_go_back_to() {
    let (host, state) = connected_connect_page();
    answered_by(state, 401, r#"{"error":"unauthorized"}"#).await;
    assert!(!state.is_connected_untracked(), "a 401 from any request ends the session");
    let page = text(&host);
    assert!(page.contains("The API key was not accepted"), "{page}");
    assert!(page.contains("missing, malformed or revoked"), "{page}");
    assert!(page.contains("req-7f3a"), "the request id: {page}");
    assert!(page.contains("After connecting again you return to"), "{page}");
}

#[wasm_bindgen_test]
async fn other_errors_do_not_end_the_session() {
    let (_, state) = connected_connect_page();
    answered_by(state, 503, "").await;
    assert!(state.is_connected_untracked());
}

#[wasm_bindgen_test]
async fn a_late_401_for_an_earlier_key_does_not_end_the_session_of_the_key_connected_since() {
    let (_, state) = connected_connect_page();
    let error = ApiError::from_response(401, &ResponseHeaders::default(), r#"{"error":"unauthorized"}"#, now());
    let (answer, deliver) = answered_later();
    // Sent with the first key; the user reconnects with another before it is answered.
    let late = state.send(move |_| answer);
    state.connect(Connection::new("/api", "eco_second"), false, Role::Member);
    deliver(Err(error));
    assert!(late.await.is_err());
    settle().await;
    assert!(state.is_connected_untracked(), "the old key's 401 must not end the new session");
}

/// A future answered later by the returned function (a request still under way).
fn answered_later() -> (impl std::future::Future<Output = Result<(), ApiError>>, impl FnOnce(Result<(), ApiError>)) {
    let slot: Rc<RefCell<Option<Result<(), ApiError>>>> = Rc::default();
    let answer = {
        let slot = Rc::clone(&slot);
        async move {
            loop {
                if let Some(answer) = slot.borrow_mut().take() {
                    return answer;
                }
                sleep(5).await;
            }
        }
    };
    (answer, move |value| *slot.borrow_mut() = Some(value))
}

#[wasm_bindgen_test]
fn a_kept_key_lives_in_session_storage_only_and_goes_on_disconnect() {
    let window = web_sys::window().unwrap();
    let session = window.session_storage().unwrap().unwrap();
    let local = window.local_storage().unwrap().unwrap();
    mount(move || {
        let state = disconnected();
        state.connect(Connection::new("/api", "eco_kept"), true, Role::Member);
        let kept = session.get_item(KEPT).unwrap().expect("kept for the tab");
        assert!(kept.contains("eco_kept"));
        assert_eq!(local.length().unwrap(), 0, "never localStorage");
        assert!(!window.location().href().unwrap().contains("eco_kept"), "never in the address");

        state.disconnect();
        assert!(session.get_item(KEPT).unwrap().is_none());

        state.connect(Connection::new("/api", "eco_not_kept"), false, Role::Member);
        assert!(session.get_item(KEPT).unwrap().is_none(), "not kept without the opt-in");
    });
}

#[wasm_bindgen_test]
fn a_reload_comes_back_in_the_kept_role_and_a_learnt_role_is_kept() {
    let session = web_sys::window().unwrap().session_storage().unwrap().unwrap();
    mount(move || {
        let state = disconnected();
        let connection = Connection::new("/api", "eco_kept");
        state.connect(connection.clone(), true, Role::Owner);
        let restored = ConnectionState::restore();
        assert_eq!(restored.connection(), Some(connection.clone()));
        assert_eq!(restored.role(), Role::Owner, "no read needed to name the role again");

        state.learn_role(&connection, Role::Member);
        assert_eq!(ConnectionState::restore().role(), Role::Member, "a detail read corrects the kept role");

        // A later key's role is never written over the kept one's.
        state.connect(Connection::new("/api", "eco_other"), false, Role::Unknown);
        assert!(session.get_item(KEPT).unwrap().is_none());
        state.learn_role(&Connection::new("/api", "eco_other"), Role::Owner);
        assert!(session.get_item(KEPT).unwrap().is_none(), "a key not kept stays out of storage");
    });
}

#[wasm_bindgen_test]
fn an_entry_kept_before_roles_were_kept_restores_the_key_with_the_role_unknown() {
    let session = web_sys::window().unwrap().session_storage().unwrap().unwrap();
    session.set_item(KEPT, r#"{"base_url":"/nowhere","key":"eco_old"}"#).unwrap();
    mount(|| {
        disconnected();
        let restored = ConnectionState::restore();
        assert_eq!(restored.connection(), Some(Connection::new("/nowhere", "eco_old")));
        assert_eq!(restored.role(), Role::Unknown);
    });
    session.remove_item(KEPT).unwrap();
}

/// The entry as the releases before wrote it (serde's field names and role names): a tab
/// reloaded onto this release keeps its key, its role, its org API and its simulator mark.
#[wasm_bindgen_test]
fn an_entry_written_by_an_earlier_release_restores_every_field() {
    let session = web_sys::window().unwrap().session_storage().unwrap().unwrap();
    let entry = r#"{"base_url":"/api","key":"eco_earlier","role":"Owner","org_base_url":"/org-api","console_origin":"","simulator":true}"#;
    session.set_item(KEPT, entry).unwrap();
    mount(|| {
        disconnected();
        let restored = ConnectionState::restore();
        let expected = Connection::new("/api", "eco_earlier").with_org_base_url("/org-api").with_simulator(true);
        assert_eq!(restored.connection(), Some(expected));
        assert_eq!(restored.role(), Role::Owner);
    });
    session.remove_item(KEPT).unwrap();
}

#[wasm_bindgen_test]
fn the_header_names_the_role_and_what_it_sees() {
    let owner = mount(|| {
        provide_console(Role::Owner);
        view! { <Router><Header/></Router> }
    });
    assert!(text(&owner).contains("Ownersees payments"), "{}", text(&owner));
    let member = mount(|| {
        provide_console(Role::Member);
        view! { <Router><Header/></Router> }
    });
    assert!(text(&member).contains("Memberbilling is the account owner's"), "{}", text(&member));
    assert!(text(&member).contains("Disconnect"));
}

#[wasm_bindgen_test]
async fn a_failed_role_probe_says_its_cause_and_request_id_and_lets_the_user_go_on() {
    // The key's check answers the list; the role probe (the first reservation's detail) a 500.
    let list = serde_json::to_value(vec![console_fixtures::reservation(serde_json::json!({ "id": 12 }))]).unwrap();
    let api = FakeApi::new(vec![
        ("/api/gpu-reservations", vec![Answer::ok(list)]),
        ("/api/gpu-reservations/12", vec![Answer::error(500, "internal", "req-probe-1")]),
    ]);
    let state = Rc::new(Cell::new(None));
    let host = mount({
        let state = Rc::clone(&state);
        move || {
            state.set(Some(disconnected()));
            view! { <Router><ConnectPage prefetch=|_| {}/></Router> }
        }
    });
    let state = state.get().expect("mounted");
    settle().await;
    let input: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("#api-key").unwrap().unwrap());
    input.set_value("eco_demo_owner");
    input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    let form: web_sys::HtmlFormElement =
        wasm_bindgen::JsCast::unchecked_into(host.query_selector("form").unwrap().unwrap());
    form.request_submit().unwrap();
    // Two answers in a row: waited for, not timed (a busy machine took longer than 100 ms).
    until(true, || host.query_selector(".role-probe-failed").unwrap().is_some()).await;
    settle().await;
    drop(api);
    let shown = host.query_selector(".role-probe-failed").unwrap().expect("the probe's failure is shown");
    let failed = text(&wasm_bindgen::JsCast::unchecked_into(shown));
    assert!(failed.starts_with("The key works, but its role could not be learnt."), "{failed}");
    assert!(failed.contains("The server had a problem"), "its cause: {failed}");
    assert!(failed.contains("req-probe-1"), "its request id: {failed}");
    assert!(!state.is_connected_untracked(), "nothing is started before the user goes on");
    let go_on = host.query_selector(".role-probe-failed > button").unwrap().unwrap();
    wasm_bindgen::JsCast::unchecked_into::<web_sys::HtmlElement>(go_on).click();
    settle().await;
    assert!(state.is_connected_untracked());
    assert_eq!(state.role_untracked(), Role::Unknown);
}
