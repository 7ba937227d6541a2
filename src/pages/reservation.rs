use leptos::prelude::*;
#[component]
pub fn ReservationPage() -> impl IntoView { "todo" }
