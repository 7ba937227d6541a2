//! Where k GPUs fit now: the question in the address (`/fit?gpus=4&replicas=2&type=…&region=…`,
//! so it can be shared), and one verdict per reservation with its reason and the age of the
//! nodes it was judged from (`domain::fleet::fit`). It reads what the overview reads (the same
//! loop, the same stores); money is not shown, so owner and member read the same page.

use crate::components::alerts_bell;
use crate::components::api_text::{ApiText, CutText};
use crate::components::copy_summary::CopySummary;
use crate::components::data_table::{Column, DataTable, Scroller};
use crate::components::fit_watch::WatchQuestion;
use crate::components::fleet_reads::{Freshness, ListStatus, ReadLine};
use crate::components::make_room::MakeRoom;
use crate::components::status_badge::StatusBadge;
use crate::domain::explain::ErrorContext;
use crate::domain::exports::summary::{self, fit_path};
use crate::domain::fleet::fit::{
    choices, fits_caveat, judge_all, launch_href, Judged, Question, Subject, Verdict, MAX_ASKED,
};
use crate::domain::fleet::make_room::Offer;
use crate::domain::status::Tone;
use crate::domain::words::address::{query_replacing, query_value, reservation_address};
use crate::domain::words::shown::account_name;
use crate::domain::words::shown::rooms_text;
use crate::reads::accounts::{account_pages, AccountStores};
use crate::reads::fleet::FleetStore;
use crate::router::{use_location, Navigation};
use crate::state::use_clock;
use leptos::prelude::*;

#[component]
pub fn FitPage() -> impl IntoView {
    let stores = account_pages("Where GPUs fit");
    alerts_bell::install();
    view! { <FitBoard store=stores.first() accounts=stores/> }
}

/// The form and the verdicts, from the address and the store. Tests mount it on a store fed
/// fixture answers, inside a `<Router>`.
#[component]
pub fn FitBoard(
    store: FleetStore,
    /// Every connected account's store: when more than one is connected, the verdicts are
    /// each account's, under its name, and the choices are those of all of them.
    #[prop(optional)]
    accounts: Option<AccountStores>,
) -> impl IntoView {
    let several = move || accounts.map(|a| a.all()).filter(|all| all.len() > 1);
    let location = use_location();
    let query = location.query();
    let asked = Memo::new(move |_| query.with(|q| Question::from_query(q)));
    view! {
        <section class="fit-page">
            <div class="page-head">
                <div>
                    <h1>"Where GPUs fit now"</h1>
                    <p class="subtitle">
                        "A launch runs on one node: what counts is GPUs free together on a ready node, not the total."
                    </p>
                </div>
            </div>
            <ReadLine store/>
            <ListStatus store/>
            <FitForm store accounts/>
            {move || match asked.get() {
                Err(problems) => view! {
                    <div class="panel" role="alert">
                        <p>"This address's question cannot be read:"</p>
                        <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                    </div>
                }
                .into_any(),
                Ok(None) => view! { <p class="panel muted">"Say how many GPUs to find room for."</p> }.into_any(),
                Ok(Some(question)) => match several() {
                    None => view! { <Verdicts store question=question.clone()/> <WatchQuestion store question/> }.into_any(),
                    Some(all) => all.into_iter().map(|(account, store)| {
                        let label = account.label;
                        let (name, part) = (account_name(&label).to_owned(), label.clone());
                        view! {
                            <section class="account-part" data-account=part>
                                <h2 class="account-name">{name}</h2>
                                {store.is_added().then(|| view! { <ListStatus store/> })}
                                <Verdicts store question=question.clone() account=label/>
                            </section>
                        }
                    }).collect_view().into_any(),
                },
            }}
        </section>
    }
}

/// GPUs, replicas, GPU type and region (chosen among the reservations read); Find writes
/// them into the address, which the verdicts follow.
#[component]
fn FitForm(store: FleetStore, accounts: Option<AccountStores>) -> impl IntoView {
    let location = use_location();
    let query = location.query();
    let read = move |key| query.with_untracked(|q| query_value(q, key).unwrap_or_default());
    let (gpus, replicas, gpu_type, region) = (
        RwSignal::new(read("gpus")),
        RwSignal::new(read("replicas")),
        RwSignal::new(read("type")),
        RwSignal::new(read("region")),
    );
    // The choices offered are those of the reservations read, and what the address asks.
    let offered = move |pick: fn(&crate::api::models::Reservation) -> String, chosen: String| {
        let stores = accounts.map_or_else(|| vec![store], |a| a.all().into_iter().map(|(_, s)| s).collect());
        let read: std::collections::BTreeSet<String> =
            stores.iter().flat_map(|s| s.reservations().unwrap_or_default()).map(|r| pick(&r)).collect();
        choices(read, &chosen)
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let pairs = [
            ("gpus", gpus.get_untracked().trim().to_owned()),
            ("replicas", replicas.get_untracked().trim().to_owned()),
            ("type", gpu_type.get_untracked()),
            ("region", region.get_untracked()),
        ];
        let wanted = query.with_untracked(|q| query_replacing(q, &pairs));
        location.navigate(&format!("/fit{wanted}"), Navigation::Push);
    };
    let select = move |id: &'static str, label: &'static str, all: &'static str, chosen: RwSignal<String>, pick| {
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <select id=id name=id on:change:target=move |ev| chosen.set(ev.target().value()) prop:value=move || chosen.get()>
                    <option value="">{all}</option>
                    {move || offered(pick, chosen.get()).into_iter().map(|c| view! { <option value=c.value>{c.label}</option> }).collect_view()}
                </select>
            </div>
        }
    };
    view! {
        <form class="panel filters fit-form" role="search" aria-label="Where GPUs fit" on:submit=on_submit>
            <div class="field">
                <label for="fit-gpus">"GPUs per replica"</label>
                <input id="fit-gpus" name="gpus" type="number" inputmode="numeric" min="1" max=MAX_ASKED.to_string() step="1" required=true bind:value=gpus/>
            </div>
            <div class="field">
                <label for="fit-replicas">"Replicas"</label>
                <input id="fit-replicas" name="replicas" type="number" inputmode="numeric" min="1" max=MAX_ASKED.to_string() step="1" placeholder="1" bind:value=replicas/>
            </div>
            {select("fit-type", "GPU type", "Any GPU type", gpu_type, |r| r.gpu_type.clone())}
            {select("fit-region", "Region", "Any region", region, |r| r.region_id.clone())}
            <button type="submit" class="button">"Find room"</button>
        </form>
    }
}

/// One row per reservation, best first.
#[component]
fn Verdicts(
    store: FleetStore,
    question: Question,
    /// The account the rows are of, named on each row when several are connected.
    #[prop(optional)]
    account: Option<String>,
) -> impl IntoView {
    let named = StoredValue::new(account);
    let question = StoredValue::new(question);
    let judged = Memo::new(move |_| {
        let list = store.reservations().unwrap_or_default();
        let reads: Vec<_> = list.iter().map(|r| store.read(r.id).latest).collect();
        let subjects: Vec<Subject> = list
            .iter()
            .zip(&reads)
            .map(|(reservation, latest)| Subject { reservation, nodes: latest.as_ref().map(|f| (&*f.value, f.at)) })
            .collect();
        let judged = question.with_value(|q| judge_all(&subjects, q));
        judged
            .into_iter()
            .map(|j| {
                let r = list.iter().find(|r| r.id == j.reservation_id).cloned();
                (j, r)
            })
            .collect::<Vec<_>>()
    });
    let (clock, query) = (use_clock(), use_location().query());
    let copy = Callback::new(move |_amounts: bool| {
        let path = query.with_untracked(|q| fit_path(q));
        judged.with_untracked(|rows| question.with_value(|q| summary::fit(q, rows, path, clock.now_untracked())))
    });
    view! {
        <div class="page-actions">
            <p class="muted">{move || question.with_value(|q| format!("Room for {} on one node each.", q.text()))}</p>
            <CopySummary summary=copy/>
        </div>
        <DataTable
            class="fleet-table fit-table stack-table"
            scroller=Scroller::Named("Where the GPUs fit, by reservation".to_owned())
            columns=vec![
                Column::text("Reservation"),
                Column::text("Verdict"),
                Column::text("Why"),
                Column::text("Nodes read"),
                Column::hidden("Launch"),
            ]
        >
                {move || judged.get().into_iter().map(|(j, r)| {
                    let Judged { reservation_id: id, verdict, .. } = j;
                    let context = r.as_ref().map(ErrorContext::of).unwrap_or_default();
                    let place = r.map(|r| format!("{} · {}", r.region_id, r.gpu_type)).unwrap_or_default();
                    let reason = question.with_value(|q| verdict.reason(q));
                    let label = named.get_value().unwrap_or_default();
                    let href = question.with_value(|q| launch_href(&label, id, q));
                    let launch = matches!(verdict, Verdict::FitsNow { .. }).then(|| view! {
                        <a class="button button-secondary" href=href>"Launch here"</a>
                    });
                    let rooms = match &verdict {
                        Verdict::FitsNow { rooms, .. } => Some(rooms_text(rooms)),
                        _ => None,
                    };
                    view! {
                        <tr data-verdict=verdict.label() data-account=named.get_value()>
                            <th scope="row" data-label="Reservation">
                                <a class="row-link" href=reservation_address(&label, id, "", &[])>{format!("#{id}")}</a>
                                {named.get_value().map(|label| view! { " " <span class="account-name">{account_name(&label).to_owned()}</span> })}
                                " " <span class="muted"><CutText text=place/></span>
                            </th>
                            <td data-label="Verdict"><StatusBadge label=verdict.label().to_owned() tone=tone(&verdict)/></td>
                            <td data-label="Why"><ApiText text=reason/>{rooms.map(|t| view! { <span class="cell-sub"><CutText text=t/></span> })}</td>
                            <td class="muted" data-label="Nodes read"><Freshness store id context/></td>
                            <td data-label="">{launch}</td>
                        </tr>
                    }
                }).collect_view()}
        </DataTable>
        {move || judged.with(|rows| fits_caveat(rows.iter().map(|(j, _)| &j.verdict))).map(|c| view! { <p class="muted fit-caveat"><span class="assumed">{c}</span></p> })}
        // What to stop so that one launch fits: for a question of one replica.
        {question.with_value(|q| (q.replicas.get() == 1).then_some(q.gpus)).map(|gpus| {
            let offered = Signal::derive(move || judged.with(|rows| {
                rows.iter().filter_map(|(j, _)| Offer::of(&j.verdict).map(|o| (j.reservation_id, o))).collect::<Vec<_>>()
            }));
            view! { <MakeRoom store gpus offered account=named.get_value().unwrap_or_default()/> }
        })}
    }
}

fn tone(verdict: &Verdict) -> Tone {
    match verdict {
        Verdict::FitsNow { .. } => Tone::Ok,
        Verdict::Fragmented { .. } => Tone::Warning,
        Verdict::Full { .. } | Verdict::Closed(_) => Tone::Danger,
        Verdict::Unknown(_) => Tone::Unknown,
        Verdict::NotAsked { .. } => Tone::Neutral,
    }
}
