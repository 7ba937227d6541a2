//! Reduced case of Leptos 0.8's keyed `<For>` keeping wasm memory for every row created
//! and removed. 200 rows are set every 5 ms tick: `?keys=same` keeps the keys (nothing is
//! created); `?keys=new` gives every row a new key each tick (200 rows created and 200
//! removed). `?view=list` draws the same rows without `<For>` (the whole list rendered
//! again from a closure), for comparison. `#ticks[data-ticks]` counts the ticks done.
//!
//! Why (reactive_graph 0.2.16, `owner.rs`): `For` gives each row an `Owner::new()` under
//! the `For`'s own owner, and `Owner::new` pushes a `Weak` of the row's owner onto its
//! parent's `children`. A removed row drops its owner, but that `Weak` stays in the list
//! (pruned only when the parent is cleaned up, i.e. when the `For` unmounts), and a `Weak`
//! keeps the owner's allocation: about 85 bytes of wasm32 memory per row, never returned.
use leptos::prelude::*;
use std::time::Duration;

const ROWS: u32 = 200;

#[component]
fn App() -> impl IntoView {
    let search = window().location().search().unwrap_or_default();
    let fresh_keys = search.contains("keys=new");
    let keyed = !search.contains("view=list");
    let ticks = RwSignal::new(0u32);
    let rows = RwSignal::new((0..ROWS).collect::<Vec<_>>());
    set_interval(
        move || {
            let tick = ticks.get_untracked() + 1;
            if fresh_keys {
                rows.set((0..ROWS).map(|i| tick * ROWS + i).collect());
            } else {
                rows.set((0..ROWS).collect());
            }
            ticks.set(tick);
        },
        Duration::from_millis(5),
    );
    let list = if keyed {
        view! {
            <For each=move || rows.get() key=|k| *k let:k>
                <li>{k}</li>
            </For>
        }
        .into_any()
    } else {
        (move || {
            rows.get()
                .into_iter()
                .map(|k| view! { <li>{k}</li> })
                .collect_view()
        })
        .into_any()
    };
    view! {
        <p id="ticks" data-ticks=move || ticks.get().to_string()></p>
        <ul>{list}</ul>
    }
}

fn main() {
    mount_to_body(App);
}
