//! An amount of money as the console shows it: exact, grouped, in tabular figures.

use crate::api::money::Usd;
use leptos::prelude::*;

#[component]
pub fn Money(amount: Usd) -> impl IntoView {
    view! { <span class="num money" class:negative=amount.is_negative()>{amount.to_string()}</span> }
}
