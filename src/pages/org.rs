//! Org capacity (seed 000): what GPU capacity is reserved to an org, unit by unit, and —
//! where the org manages a reservation — reclaiming units released to the spot market,
//! always through a dry run and an explicit confirmation first.

use crate::api::client;
use crate::api::enums::OrgReservationStatus;
use crate::api::error::ApiError;
use crate::api::org::{OrgReservation, ReclaimRequest};
use crate::components::error_panel::ErrorPanel;
use crate::components::field::Field;
use crate::components::remote::RemoteStatus;
use crate::components::status_badge::StatusWithExplanation;
use crate::components::time::Time;
use crate::domain::explain::{Action, ErrorContext};
use crate::domain::fleet::org_capacity::{can_manage, inconsistencies, org_capacity, reclaimable, OrgCapacity};
use crate::domain::status::org_status;
use crate::domain::words;
use crate::domain::words::text::visible_controls;
use crate::reads::fleet::use_fleet;
use crate::reads::org::org_reservations;
use crate::router::{use_location, Navigation};
use crate::state::use_connection;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The demo data's org (the simulator's), offered as a starting point when the API is the
/// simulator (its answers say so), never to a user of the real API.
const DEMO_ORG: &str = "org_acme";
const MAX_ORG_ID: usize = 64;

/// Why `raw` cannot be an org id in an address, or `None`: letters, digits, `_`, `-` and
/// `.`, at most 64 of them, and not `.` or `..` (which a URL would resolve away).
pub fn org_id_problem(raw: &str) -> Option<String> {
    if raw.is_empty() {
        return Some("Enter an org id, such as org_acme.".to_owned());
    }
    if raw.chars().count() > MAX_ORG_ID {
        return Some(format!("An org id has at most {MAX_ORG_ID} characters."));
    }
    if raw == "." || raw == ".." || !raw.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
        return Some("An org id has only letters, digits, “_”, “-” and “.”.".to_owned());
    }
    None
}

#[component]
pub fn OrgPage() -> impl IntoView {
    let route = use_location().route();
    let org = Memo::new(move |_| route.read().org_id().map(str::to_owned));
    view! {
        <div class="page-head">
            <div>
                <h1>"Org capacity"</h1>
                <p class="subtitle">"GPU units reserved to an org, released to the spot market, or withheld for review."</p>
            </div>
        </div>
        <OrgPicker current=org/>
        {move || org.get().map(|org_id| match org_id_problem(&org_id) {
            None => view! { <OrgReservations org_id/> }.into_any(),
            Some(problem) => view! { <p class="field-error" role="alert">{problem}</p> }.into_any(),
        })}
    }
}

/// The org id field: validated here, then put in the address (bookmarkable). Tests mount it.
#[component]
pub fn OrgPicker(current: Memo<Option<String>>) -> impl IntoView {
    let location = use_location();
    let simulator = use_connection().connection_untracked().is_some_and(|c| c.is_simulator());
    let typed = RwSignal::new(current.get_untracked().unwrap_or_default());
    let problem = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(org) = current.get() {
            typed.set(org);
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let org = typed.get_untracked().trim().to_owned();
        problem.set(org_id_problem(&org));
        if problem.get_untracked().is_none() {
            location.navigate(&format!("/orgs/{org}"), Navigation::Push);
        }
    };
    view! {
        <form class="panel org-picker" on:submit=on_submit novalidate=true>
            <Field
                label="Org id"
                id="org-id"
                help=move || view! {
                    "An org id has letters, digits, “_”, “-” and “.”."
                    {simulator.then(|| view! {
                        " The demo org is " <a href=format!("/orgs/{DEMO_ORG}")><code>{DEMO_ORG}</code></a> "."
                    })}
                }
                error=problem
                beside=|| view! { <button type="submit" class="button">"Show"</button> }
            >
                <input name="org_id" type="text" autocomplete="off" spellcheck="false" bind:value=typed/>
            </Field>
        </form>
    }
}

#[component]
fn OrgReservations(org_id: String) -> impl IntoView {
    let id = StoredValue::new(org_id.clone());
    let list = org_reservations(org_id, use_fleet().orgs());
    // Only new data re-renders the list, not a refresh starting.
    let data = Memo::new(move |_| list.data());
    // Kept above the list, which the refresh after a reclaim redraws.
    let reclaimed = RwSignal::new(None::<Reclaimed>);
    let on_reclaimed = Callback::new(move |done: Reclaimed| {
        reclaimed.set(Some(done));
        list.refetch();
    });
    // The org capacity API has its own base URL (Connect): said, and named in its errors.
    let base = org_base_url();
    view! {
        <p class="panel-note org-source">
            "Read from the org capacity API at " <code>{base.clone()}</code> " (its base URL is set on Connect)."
        </p>
        <RemoteStatus remote=list what="the org's reservations" context=ErrorContext::org_api(&base)/>
        {move || reclaimed.get().map(|done| view! {
            <div class="banner tone-ok reclaimed" role="status">
                <strong class="banner-title">
                    {format!("Reclaimed {} on reservation {}", vm_list(&done.units), done.reservation_id)}
                </strong>
                " "
                <span class="banner-body">
                    {format!(
                        "Terminated: {}. Skipped (not spot, left running): {}.",
                        vm_list(&done.terminated),
                        vm_list(&done.skipped)
                    )}
                </span>
            </div>
        })}
        {move || data.get().map(|reservations| view! {
            <OrgView org_id=id.get_value() reservations on_reclaimed/>
        })}
    }
}

/// The org capacity API's base URL of the connection in use (untracked: for an error text).
fn org_base_url() -> String {
    use_connection().connection_untracked().map(|c| c.org_base_url().to_owned()).unwrap_or_default()
}

/// The answer of a confirmed reclaim.
#[derive(Clone, Debug, PartialEq)]
pub struct Reclaimed {
    pub reservation_id: String,
    pub units: Vec<String>,
    pub terminated: Vec<String>,
    pub skipped: Vec<String>,
}

/// The org's totals and each reservation. Tests mount it on fixtures.
#[component]
pub fn OrgView(
    org_id: String,
    reservations: Vec<OrgReservation>,
    /// Told of each confirmed reclaim (the page then reads the list again).
    on_reclaimed: Callback<Reclaimed>,
) -> impl IntoView {
    let capacity = org_capacity(&reservations).get(&org_id).copied().unwrap_or_default();
    let managed = reservations.iter().filter(|r| can_manage(r, &org_id)).count();
    let count = reservations.len();
    view! {
        <OrgTotals org_id=org_id.clone() capacity managed count/>
        {(count == 0).then(|| view! {
            <p class="panel muted">{format!("No reservations are listed for {org_id}.")}</p>
        })}
        <div class="org-list">
            {reservations
                .into_iter()
                .map(|r| view! { <OrgReservationCard org_id=org_id.clone() r on_reclaimed/> })
                .collect::<Vec<_>>()}
        </div>
    }
}

#[component]
fn OrgTotals(org_id: String, capacity: OrgCapacity, managed: usize, count: usize) -> impl IntoView {
    let OrgCapacity { granted, released, withheld, pending } = capacity;
    view! {
        <section class="panel" aria-labelledby="org-totals-heading">
            <h2 id="org-totals-heading">{format!("Units for {org_id}")}</h2>
            <dl class="facts compact-facts">
                <div><dt>"Granted (active)"</dt><dd class="num">{granted.to_string()}</dd></div>
                <div>
                    <dt>"In hand"</dt>
                    <dd class="num">{capacity.in_hand().to_string()}<span class="sub">"granted, not on the spot market"</span></dd>
                </div>
                <div>
                    <dt>"Released to spot"</dt>
                    <dd class="num">{released.to_string()}<span class="sub">"still granted; reclaimable by a managing org"</span></dd>
                </div>
                <div>
                    <dt>"Withheld"</dt>
                    <dd class="num">{withheld.to_string()}<span class="sub">"needs review: granted to nobody"</span></dd>
                </div>
                <div><dt>"Pending"</dt><dd class="num">{pending.to_string()}</dd></div>
                <div>
                    <dt>"Reservations"</dt>
                    <dd class="num">{format!("{count} listed, {managed} managed by {org_id}")}</dd>
                </div>
            </dl>
        </section>
    }
}

/// What one unit is, for its cell.
#[derive(Clone, Copy, PartialEq, Eq)]
enum UnitUse {
    Reserved,
    Released,
    Reclaimable,
    Withheld,
    /// Expired, cancelled or a status the console does not know.
    Inactive,
}

impl UnitUse {
    fn of(r: &OrgReservation, unit: &str, reclaimable: &[&str]) -> Self {
        match r.status {
            OrgReservationStatus::NeedsReview => UnitUse::Withheld,
            OrgReservationStatus::Active | OrgReservationStatus::Pending => {
                if reclaimable.contains(&unit) {
                    UnitUse::Reclaimable
                } else if r.released_unit_ids.iter().any(|u| u == unit) {
                    UnitUse::Released
                } else {
                    UnitUse::Reserved
                }
            }
            _ => UnitUse::Inactive,
        }
    }

    fn class_and_word(self) -> (&'static str, &'static str) {
        match self {
            UnitUse::Reserved => ("unit reserved", "reserved"),
            UnitUse::Released => ("unit released", "released to spot"),
            UnitUse::Reclaimable => ("unit released reclaimable", "released to spot, reclaimable"),
            UnitUse::Withheld => ("unit withheld", "withheld"),
            UnitUse::Inactive => ("unit inactive", "not in force"),
        }
    }
}

/// A list of org ids with this org marked.
/// API text as shown: bidirectional controls made visible, so an id cannot pose as another.
fn shown(text: &str) -> String {
    visible_controls(text).into_owned()
}

fn org_list(ids: &[String], org_id: &str) -> impl IntoView {
    if ids.is_empty() {
        return view! { <span class="muted">"none"</span> }.into_any();
    }
    ids.iter()
        .map(|id| {
            let this = id == org_id;
            view! {
                <span class="org-chip" class:this-org=this>
                    {shown(id)}
                    {this.then_some(view! { <span class="visually-hidden">" (this org)"</span> })}
                </span>
            }
        })
        .collect::<Vec<_>>()
        .into_any()
}

#[component]
fn OrgReservationCard(org_id: String, r: OrgReservation, on_reclaimed: Callback<Reclaimed>) -> impl IntoView {
    let status = org_status(&r);
    let manages = can_manage(&r, &org_id);
    let in_audience = r.allowed_org_ids.contains(&org_id);
    let reclaim = reclaimable(&r, &org_id);
    let units = r
        .reserved_unit_ids
        .iter()
        .map(|unit| {
            let (class, word) = UnitUse::of(&r, unit, &reclaim).class_and_word();
            // Unit ids start with their node's id, which the card already shows.
            let short = unit.strip_prefix(&format!("{}-", r.node_id)).filter(|s| !s.is_empty()).unwrap_or(unit);
            view! {
                <li class=class title=format!("{}: {word}", shown(unit))>
                    <span class="unit-id">{shown(short)}</span>
                    <span class="unit-word">{word}</span>
                </li>
            }
        })
        .collect::<Vec<_>>();
    let reclaim_units: Vec<String> = reclaim.into_iter().map(str::to_owned).collect();
    let withheld = r.status == OrgReservationStatus::NeedsReview;
    let role = match (manages, in_audience) {
        (true, true) => format!("{org_id} is in the audience and manages this reservation."),
        (true, false) => {
            format!("{org_id} manages this reservation (release, reclaim, terminate spot) but is not in its audience.")
        }
        (false, true) => {
            format!("{org_id} is in the audience: it may place workloads here, but cannot release or reclaim units.")
        }
        (false, false) => format!("{org_id} is neither in the audience nor managing."),
    };
    let flags = inconsistencies(&r);
    let heading = format!("Reservation {}", shown(&r.id));
    let reservation_id = r.id.clone();
    view! {
        <article class="panel org-card" aria-label=heading.clone()>
            <header class="org-card-head">
                <h2>{heading.clone()}</h2>
                <span class="muted">{format!("node {}", shown(&r.node_id))}</span>
            </header>
            <StatusWithExplanation status/>
            <h3 class="units-heading">
                {format!("Units ({} reserved, {} released to spot)", r.reserved_unit_ids.len(), r.released_unit_ids.len())}
            </h3>
            {withheld.then(|| view! {
                <p class="units-withheld" role="note">
                    {format!("All {} units are withheld: granted to nobody until an operator re-affirms this reservation.", r.reserved_unit_ids.len())}
                </p>
            })}
            <ul class="unit-cells">{units}</ul>
            <dl class="facts org-facts">
                <div><dt>"Audience (may place workloads)"</dt><dd class="chips">{org_list(&r.allowed_org_ids, &org_id)}</dd></div>
                <div><dt>"Managing orgs (release, reclaim)"</dt><dd class="chips">{org_list(&r.managing_org_ids, &org_id)}</dd></div>
                <div><dt>"Starts"</dt><dd><Time at=r.starts_at/></dd></div>
                <div>
                    <dt>"Ends"</dt>
                    <dd>{match r.ends_at {
                        Some(at) => view! { <Time at/> }.into_any(),
                        None => view! { <span>"Open-ended (until cancelled)"</span> }.into_any(),
                    }}</dd>
                </div>
                <div><dt>"Topology generation"</dt><dd class="num">{r.topology_gen.map_or_else(|| "not stated".to_owned(), |g| g.to_string())}</dd></div>
                <div><dt>"Contract"</dt><dd>{r.contract_ref.as_deref().map_or_else(|| "none".to_owned(), shown)}</dd></div>
                <div class="wide"><dt>"Reason"</dt><dd class="prose">{r.reason.as_deref().map_or_else(|| "none given".to_owned(), shown)}</dd></div>
                {r.created_at.map(|at| view! { <div><dt>"Created"</dt><dd><Time at/></dd></div> })}
                {r.updated_at.map(|at| view! { <div><dt>"Updated"</dt><dd><Time at/></dd></div> })}
            </dl>
            <p class="org-role">{role}</p>
            {(!flags.is_empty()).then(|| view! {
                <div class="node-flags" role="note"><ul>{flags.into_iter().map(|f| view! { <li>{f}</li> }).collect::<Vec<_>>()}</ul></div>
            })}
            {(!reclaim_units.is_empty()).then(|| view! {
                <ReclaimPanel org_id=org_id.clone() reservation_id units=reclaim_units on_reclaimed/>
            })}
        </article>
    }
}

/// Where a reclaim is: choose units, see the dry run, confirm, see the result.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Choosing,
    DryRunning,
    Reviewing { units: Vec<String>, would_terminate: Vec<String>, would_skip: Vec<String> },
    Reclaiming { units: Vec<String> },
    Failed { error: ApiError, dry_run: bool },
}

impl Step {
    /// What Retry sends after a failure: the chosen units, as a dry run. After a failed
    /// confirmed reclaim too: other spot VMs may have landed on those units since the
    /// last dry run, so a real reclaim is sent only after a fresh list is confirmed.
    fn retry(&self, chosen: Vec<String>) -> Option<(Vec<String>, bool)> {
        matches!(self, Step::Failed { .. }).then(|| (chosen, true))
    }
}

fn vm_list(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".to_owned()
    } else {
        ids.join(", ")
    }
}

#[component]
fn ReclaimPanel(
    org_id: String,
    reservation_id: String,
    units: Vec<String>,
    on_reclaimed: Callback<Reclaimed>,
) -> impl IntoView {
    let state = use_connection();
    let chosen = RwSignal::new(units.clone());
    let step = RwSignal::new(Step::Choosing);
    let ids = StoredValue::new((org_id, reservation_id.clone()));

    let send = move |units: Vec<String>, dry_run: bool| {
        if !state.is_connected_untracked() {
            return;
        }
        let (org, reservation) = ids.get_value();
        step.set(if dry_run { Step::DryRunning } else { Step::Reclaiming { units: units.clone() } });
        spawn_local(async move {
            let request = ReclaimRequest { unit_ids: units.clone(), dry_run };
            let answer = {
                let reservation = reservation.clone();
                state.send(|c| async move { client::reclaim(&c, &org, &reservation, &request).await }).await
            };
            let (next, reclaimed) = match answer {
                Ok(answer) if dry_run => (
                    Step::Reviewing {
                        units,
                        would_terminate: answer.would_terminate.unwrap_or_default(),
                        would_skip: answer.would_skip.unwrap_or_default(),
                    },
                    None,
                ),
                Ok(answer) => (
                    Step::Choosing,
                    Some(Reclaimed {
                        reservation_id: reservation,
                        units,
                        terminated: answer.terminated.unwrap_or_default(),
                        skipped: answer.skipped.unwrap_or_default(),
                    }),
                ),
                Err(error) => (Step::Failed { error, dry_run }, None),
            };
            // `try_set` hands the value back when the page was left meanwhile.
            if step.try_set(next).is_none() {
                if let Some(done) = reclaimed {
                    on_reclaimed.try_run(done);
                }
            }
        });
    };
    let busy = move || matches!(step.get(), Step::DryRunning | Step::Reclaiming { .. });
    let toggle = move |unit: String, on: bool| {
        chosen.update(|c| {
            c.retain(|u| *u != unit);
            if on {
                c.push(unit);
            }
        });
        // A dry run is valid only for the units it was run on.
        if matches!(step.get_untracked(), Step::Reviewing { .. } | Step::Failed { .. }) {
            step.set(Step::Choosing);
        }
    };
    let boxes = units
        .iter()
        .map(|unit| {
            let unit = unit.clone();
            let checked = {
                let unit = unit.clone();
                move || chosen.with(|c| c.contains(&unit))
            };
            let on_change = {
                let unit = unit.clone();
                move |ev: leptos::ev::Event| toggle(unit.clone(), event_target_checked(&ev))
            };
            view! {
                <label class="check unit-choice">
                    <input type="checkbox" prop:checked=checked on:change=on_change disabled=busy/>
                    <span><code>{unit.clone()}</code></span>
                </label>
            }
        })
        .collect::<Vec<_>>();
    let label = format!("Reclaim released units of reservation {reservation_id}");
    let body = move || match step.get() {
        Step::Choosing | Step::DryRunning => {
            let count = chosen.with(Vec::len);
            view! {
                <button
                    type="button"
                    class="button button-secondary"
                    disabled=move || busy() || chosen.with(Vec::is_empty)
                    on:click=move |_| send(chosen.get_untracked(), true)
                >
                    {if matches!(step.get_untracked(), Step::DryRunning) {
                        "Running the dry run…".to_owned()
                    } else {
                        format!("Dry run: reclaim {}", words::count(count, "unit"))
                    }}
                </button>
                <p class="field-help">"The dry run changes nothing: it says which spot VMs a reclaim would terminate."</p>
            }
            .into_any()
        }
        Step::Reviewing { units, would_terminate, would_skip } => {
            let confirm_units = units.clone();
            view! {
                <div class="reclaim-review" role="status">
                    <p><strong>"Dry run: "</strong>{format!("reclaiming {} would terminate these spot VMs: {}.", vm_list(&units), vm_list(&would_terminate))}</p>
                    <p>{format!("It would leave running (not spot): {}.", vm_list(&would_skip))}</p>
                </div>
                <div class="reclaim-actions">
                    <button type="button" class="button button-danger" on:click=move |_| send(confirm_units.clone(), false)>
                        {format!("Confirm: reclaim and terminate {}", words::count(would_terminate.len(), "VM"))}
                    </button>
                    <button type="button" class="button button-secondary" on:click=move |_| step.set(Step::Choosing)>"Cancel"</button>
                </div>
            }
            .into_any()
        }
        Step::Reclaiming { units } => view! {
            <p role="status">{format!("Reclaiming {}…", vm_list(&units))}</p>
        }
        .into_any(),
        Step::Failed { error, dry_run } => {
            let retry = Callback::new(move |()| {
                if let Some((units, dry_run)) = step.get_untracked().retry(chosen.get_untracked()) {
                    send(units, dry_run);
                }
            });
            let fresh = (!dry_run).then_some(view! {
                <p class="field-help">"Retry runs a new dry run first: spot VMs may have landed on these units since."</p>
            });
            let context = ErrorContext::org_api(&org_base_url()).acting(Action::Reclaim);
            view! { <ErrorPanel error context retry/> {fresh} }.into_any()
        }
    };
    view! {
        <section class="reclaim" aria-label=label>
            <h3>"Reclaim released units"</h3>
            <fieldset class="unit-choices" disabled=busy>
                <legend>"Units to reclaim"</legend>
                {boxes}
            </fieldset>
            {body}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::{org_id_problem, Step};
    use crate::api::error::ApiError;

    #[test]
    fn retrying_a_failed_reclaim_runs_a_new_dry_run() {
        let units = vec!["u3".to_owned()];
        for dry_run in [true, false] {
            let failed = Step::Failed { error: ApiError::invalid_request("x"), dry_run };
            assert_eq!(failed.retry(units.clone()), Some((units.clone(), true)), "after dry_run={dry_run}");
        }
        assert_eq!(Step::Choosing.retry(units), None);
    }

    #[test]
    fn org_ids_that_are_safe_in_an_address_pass() {
        for id in ["org_acme", "org-2", "a.b", "X9"] {
            assert_eq!(org_id_problem(id), None, "{id}");
        }
    }

    #[test]
    fn org_ids_that_would_change_the_address_are_refused() {
        for id in ["", ".", "..", "org/acme", "org acme", "org?x=1", "org%2F", "örg", &"a".repeat(65)] {
            assert!(org_id_problem(id).is_some(), "{id}");
        }
    }
}
