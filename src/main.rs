fn main() {
    // Where panics unwind or abort (tests, `trunk serve`), the hook puts the message in
    // the console. The release build aborts on the spot (xtask/src/dist.rs): no hook runs.
    #[cfg(not(panic = "immediate-abort"))]
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(reservations_console::App);
}
