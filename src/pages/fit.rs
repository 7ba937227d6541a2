//! Where k GPUs fit now: the question in the address (`/fit?gpus=4&replicas=2&type=…&region=…`,
//! so it can be shared), and one verdict per reservation with its reason and the age of the
//! nodes it was judged from (`domain::fit`). It reads what the overview reads (the same
//! loop, the same stores); money is not shown, so owner and member read the same page.

use crate::components::alerts_bell;
use crate::components::api_text::{ApiText, CutText};
use crate::components::fleet_reads::{Freshness, ListStatus, ReadLine};
use crate::components::make_room::MakeRoom;
use crate::components::status_badge::StatusBadge;
use crate::domain::address::{query_replacing, query_value};
use crate::domain::explain::ErrorContext;
use crate::domain::fit::{choices, fits_caveat, judge_all, Judged, Question, Room, Subject, Verdict, MAX_ASKED};
use crate::domain::make_room::Offer;
use crate::domain::status::Tone;
use crate::reads::fleet::{fleet_page, FleetStore};
use crate::router::{use_location, Navigation};
use leptos::prelude::*;

#[component]
pub fn FitPage() -> impl IntoView {
    let store = fleet_page("Where GPUs fit");
    alerts_bell::install();
    view! { <FitBoard store/> }
}

/// The form and the verdicts, from the address and the store. Tests mount it on a store fed
/// fixture answers, inside a `<Router>`.
#[component]
pub fn FitBoard(store: FleetStore) -> impl IntoView {
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
            <FitForm store/>
            {move || match asked.get() {
                Err(problems) => view! {
                    <div class="panel" role="alert">
                        <p>"This address's question cannot be read:"</p>
                        <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                    </div>
                }
                .into_any(),
                Ok(None) => view! { <p class="panel muted">"Say how many GPUs to find room for."</p> }.into_any(),
                Ok(Some(question)) => view! { <Verdicts store question/> }.into_any(),
            }}
        </section>
    }
}

/// GPUs, replicas, GPU type and region (chosen among the reservations read); Find writes
/// them into the address, which the verdicts follow.
#[component]
fn FitForm(store: FleetStore) -> impl IntoView {
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
        choices(store.reservations().unwrap_or_default().iter().map(pick).collect(), &chosen)
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
fn Verdicts(store: FleetStore, question: Question) -> impl IntoView {
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
    view! {
        <p class="muted">{move || question.with_value(|q| format!("Room for {} on one node each.", q.text()))}</p>
        <div class="table-wrap" tabindex="0" role="region" aria-label="Where the GPUs fit, by reservation">
        <table class="fleet-table fit-table stack-table">
            <thead>
                <tr>
                    <th scope="col">"Reservation"</th>
                    <th scope="col">"Verdict"</th>
                    <th scope="col">"Why"</th>
                    <th scope="col">"Nodes read"</th>
                    <th scope="col"><span class="visually-hidden">"Launch"</span></th>
                </tr>
            </thead>
            <tbody>
                {move || judged.get().into_iter().map(|(j, r)| {
                    let Judged { reservation_id: id, verdict, .. } = j;
                    let context = r.as_ref().map(ErrorContext::of).unwrap_or_default();
                    let place = r.map(|r| format!("{} · {}", r.region_id, r.gpu_type)).unwrap_or_default();
                    let reason = question.with_value(|q| verdict.reason(q));
                    let gpus = question.with_value(|q| q.gpus.get());
                    let launch = matches!(verdict, Verdict::FitsNow { .. }).then(|| view! {
                        <a class="button button-secondary" href=format!("/reservations/{id}/launch?gpus={gpus}")>"Launch here"</a>
                    });
                    let rooms = match &verdict {
                        Verdict::FitsNow { rooms, .. } => Some(rooms_text(rooms)),
                        _ => None,
                    };
                    view! {
                        <tr data-verdict=verdict.label()>
                            <th scope="row" data-label="Reservation">
                                <a class="row-link" href=format!("/reservations/{id}")>{format!("#{id}")}</a>
                                " " <span class="muted"><CutText text=place/></span>
                            </th>
                            <td data-label="Verdict"><StatusBadge label=verdict.label().to_owned() tone=tone(&verdict)/></td>
                            <td data-label="Why"><ApiText text=reason/>{rooms.map(|t| view! { <span class="cell-sub"><CutText text=t/></span> })}</td>
                            <td class="muted" data-label="Nodes read"><Freshness store id context/></td>
                            <td data-label="">{launch}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        </div>
        {move || judged.with(|rows| fits_caveat(rows.iter().map(|(j, _)| &j.verdict))).map(|c| view! { <p class="muted fit-caveat"><span class="assumed">{c}</span></p> })}
        // What to stop so that one launch fits: for a question of one replica.
        {question.with_value(|q| (q.replicas.get() == 1).then_some(q.gpus)).map(|gpus| {
            let offered = Signal::derive(move || judged.with(|rows| {
                rows.iter().filter_map(|(j, _)| Offer::of(&j.verdict).map(|o| (j.reservation_id, o))).collect::<Vec<_>>()
            }));
            view! { <MakeRoom store gpus offered/> }
        })}
    }
}

/// Rooms listed at most; the rest are counted.
const ROOMS_LISTED: usize = 6;

/// "node-3: 5 free · node-1: 8 free · and 4 more nodes".
fn rooms_text(rooms: &[Room]) -> String {
    let mut parts: Vec<String> =
        rooms.iter().take(ROOMS_LISTED).map(|r| format!("{}: {} free", r.node, r.free)).collect();
    if rooms.len() > ROOMS_LISTED {
        parts.push(format!(
            "and {} more",
            crate::domain::words::count(i64::try_from(rooms.len() - ROOMS_LISTED).unwrap_or(i64::MAX), "node")
        ));
    }
    parts.join(" · ")
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
