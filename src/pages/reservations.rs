use leptos::prelude::*;
#[component]
pub fn ReservationsPage() -> impl IntoView { "todo" }
