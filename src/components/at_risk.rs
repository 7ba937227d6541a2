//! "What stops when": each deadline ahead (`domain::terms::at_risk`) with its countdown in the
//! chosen zone and in UTC, the workloads it would stop, and for the owner what would avert
//! it. Shown on the overview (every reservation, each linking to its detail) and on a
//! reservation's detail (its own), both lazily loaded pages; the alerts link to it by
//! [`ANCHOR`].

use crate::api::assumptions::{MARK, RENEWAL_PAIRING};
use crate::api::enums::WorkloadKind;
use crate::api::models::{Reservation, ReservationDetail, Timestamp};
use crate::browser::page_origin;
use crate::components::api_text::CutText;
use crate::components::copy_summary::CopySummary;
use crate::components::data_table::{Column, DataTable, Scroller};
use crate::components::money::Money;
use crate::components::time::zone;
use crate::domain::explain::could_not_read;
use crate::domain::exports::ics::{calendar, events, Deadlines};
use crate::domain::exports::summary::what_stops_when;
use crate::domain::nodes::grid::kind_label;
use crate::domain::terms::at_risk::{at_risk, averted_by, Deadline, Stopping, Subject, Workloads, ANCHOR};
use crate::domain::words::address::reservation_address;
use crate::domain::words::count;
use crate::domain::words::shown::account_name;
pub use crate::domain::words::shown::Shown;
use crate::domain::words::shown::{
    averted_by_words, deadline_countdown, renewal_keeps, OWNER_ONLY, SUM_NOT_READ, WORKLOADS_LISTED,
};
use crate::domain::words::time::{format_time, Zone};
use crate::reads::fleet::FleetStore;
use crate::reads::nodes::NodesStore;
use crate::reads::org::OrgRead;
use crate::state::{use_clock, use_connection, use_time_zone, Role};
use leptos::prelude::*;
use std::collections::BTreeMap;

/// Calls `f` with every reservation of the overview's reads as "what stops when" reads it,
/// the account's reservations and the details read (tracked): `None` before the list arrives.
fn with_fleet<R>(
    store: FleetStore,
    f: impl FnOnce(&[Subject], &[Reservation], &BTreeMap<i64, ReservationDetail>) -> R,
) -> Option<R> {
    let all = store.reservations()?;
    let nodes: Vec<_> = all.iter().map(|r| store.read(r.id).latest).collect();
    // The details as kept, not copied: this runs on every answer.
    Some(store.reservations_store().with_details(|details| {
        let subjects: Vec<Subject> = all
            .iter()
            .zip(&nodes)
            .map(|(r, n)| Subject {
                reservation: r,
                amendments: details.get(&r.id).map(|d| d.amendments.as_slice()),
                nodes: n.as_ref().map(|f| &*f.value),
            })
            .collect();
        f(&subjects, &all, details)
    }))
}

/// Every reservation's deadlines, from the overview's reads (tracked): `None` before the
/// list arrives.
pub fn fleet_at_risk(store: FleetStore, now: Timestamp) -> Option<Vec<Shown>> {
    with_fleet(store, |subjects, all, details| {
        at_risk(subjects, all, now)
            .into_iter()
            .map(|risk| {
                let payment = details.get(&risk.reservation).and_then(|d| d.payment.as_ref());
                Shown { averted_by: averted_by(&risk, payment), risk }
            })
            .collect()
    })
}

/// The account's deadlines as an `.ics` file ([`crate::domain::exports::ics`]), from the overview's
/// reads and the org reservations read this session, as of the oldest of them; `None` before
/// the list arrives.
pub fn fleet_calendar(store: FleetStore, owner: bool, now: Timestamp) -> Option<String> {
    let as_of = store.oldest_read().or_else(|| store.list_at())?;
    let org = store.orgs().latest();
    let org_data = org.as_ref().and_then(|read| Some((read.org.as_str(), read.data.as_ref()?)));
    let as_of = org_data.map_or(as_of, |(_, data)| as_of.min(data.at));
    with_fleet(store, |subjects, all, details| {
        let details: Vec<&ReservationDetail> = details.values().collect();
        let origin = page_origin();
        let org = org_data.map(|(id, data)| (id, data.value.as_slice()));
        let deadlines = Deadlines { subjects, all, details: &details, org, owner, as_of, origin: &origin };
        calendar(&events(&deadlines, now), now)
    })
}

/// Beside the account's calendar, when the latest read of the org reservations failed: that
/// their ends are not in it, or are as of the earlier read kept (tracked).
#[component]
pub fn CalendarOrgEnds(store: FleetStore) -> impl IntoView {
    move || {
        let OrgRead { org, data, error } = store.orgs().latest()?;
        let failed = could_not_read(&format!("{org}'s reservations"), &error?);
        let held = match data {
            None => " The calendar does not hold their ends.".to_owned(),
            Some(data) => {
                format!(" The calendar holds their ends as read at {}.", format_time(data.at, Zone::Utc))
            }
        };
        Some(view! { <p class="muted calendar-org-ends" role="status">{failed}{held}</p> })
    }
}

/// One reservation's deadlines as an `.ics` file, `all` the account's reservations (for its
/// renewal; itself alone while they are read), its nodes in `nodes`; as of the older of
/// `detail_at` (when the detail was read) and its nodes' latest read.
pub fn detail_calendar(
    detail: &ReservationDetail,
    detail_at: Timestamp,
    all: Option<Vec<Reservation>>,
    nodes: NodesStore,
    now: Timestamp,
) -> String {
    let all = all.unwrap_or_else(|| vec![detail.reservation.clone()]);
    let latest = nodes.read(detail.reservation.id).latest;
    let as_of = latest.as_ref().map_or(detail_at, |f| f.at.min(detail_at));
    let subjects = [Subject {
        reservation: &detail.reservation,
        amendments: Some(&detail.amendments),
        nodes: latest.as_ref().map(|f| &*f.value),
    }];
    let origin = page_origin();
    let deadlines = Deadlines {
        subjects: &subjects,
        all: &all,
        details: &[detail],
        org: None,
        // Only the owner's key reads a payment.
        owner: detail.payment.is_some(),
        as_of,
        origin: &origin,
    };
    calendar(&events(&deadlines, now), now)
}

/// One reservation's deadlines from its detail, `all` the account's reservations (for its
/// renewal; `None` while being read) and its nodes in `nodes` (tracked).
pub fn detail_at_risk(
    detail: &ReservationDetail,
    all: Option<Vec<Reservation>>,
    nodes: NodesStore,
    now: Timestamp,
) -> Option<Vec<Shown>> {
    let all = all?;
    let latest = nodes.read(detail.reservation.id).latest;
    let subject = Subject {
        reservation: &detail.reservation,
        amendments: Some(&detail.amendments),
        nodes: latest.as_ref().map(|f| &*f.value),
    };
    Some(
        at_risk(&[subject], &all, now)
            .into_iter()
            .map(|risk| Shown { averted_by: averted_by(&risk, detail.payment.as_ref()), risk })
            .collect(),
    )
}

/// The panel. `linked`: each deadline names its reservation with a link to its detail (the
/// overview's); `None` while what it is drawn from is still being read.
#[component]
pub fn AtRiskPanel(
    shown: Signal<Option<Vec<Shown>>>,
    #[prop(optional)] linked: bool,
    /// The account the deadlines are of, when several are connected, and whether its key is
    /// the owner's (alone, the connection's role says it): one panel per account.
    #[prop(optional)]
    account: Option<(String, bool)>,
) -> impl IntoView {
    let (clock, state) = (use_clock(), use_connection());
    let account = StoredValue::new(account);
    let owner = move || {
        account.with_value(|a| a.as_ref().map(|(_, owner)| *owner)).unwrap_or_else(|| state.role() == Role::Owner)
    };
    // The page's path alone (the overview's or a detail's): an address never holds a key.
    let copy = Callback::new(move |amounts: bool| {
        let path = web_sys::window().and_then(|w| w.location().pathname().ok()).unwrap_or_default();
        shown.with_untracked(|list| what_stops_when(list.as_deref(), owner(), amounts, &path, clock.now_untracked()))
    });
    // One account's panel among others: named by its account, not by the page's anchor.
    let named = account.with_value(|a| a.as_ref().map(|(label, _)| account_name(label).to_owned()));
    let (anchored, labelled) = (named.is_none().then_some(ANCHOR), named.is_none().then_some("at-risk-title"));
    let label = named.as_ref().map(|n| format!("What stops when, {n}"));
    view! {
        <section class="panel at-risk" id=anchored aria-labelledby=labelled aria-label=label>
            <div class="panel-head">
                <h2 id=labelled>"What stops when" {named.map(|n| view! { " · " <span class="account-name">{n}</span> })}</h2>
                <CopySummary summary=copy money=true/>
            </div>
            {move || match shown.get() {
                None => view! { <p class="muted">"Reading the reservations…"</p> }.into_any(),
                Some(list) if list.is_empty() => view! {
                    <p class="muted">"No deadline ahead: no past-due stop, no term end, no amendment lowering nodes."</p>
                }
                .into_any(),
                Some(list) => view! {
                    <ol class="at-risk-list">
                        {list.into_iter().map(|item| view! { <RiskItem item linked owner=owner() account=account.with_value(|a| a.as_ref().map(|(l, _)| l.clone()).unwrap_or_default())/> }).collect_view()}
                    </ol>
                }
                .into_any(),
            }}
        </section>
    }
}

#[component]
/// `account`: its label (empty: the connection's), which the reservation's link names.
fn RiskItem(item: Shown, linked: bool, owner: bool, account: String) -> impl IntoView {
    let (clock, tz) = (use_clock(), use_time_zone());
    let Shown { risk, averted_by } = item;
    let (id, at) = (risk.reservation, risk.at);
    let kind = match risk.deadline {
        Deadline::PastDue => "past-due",
        Deadline::TermEnds { .. } => "term-ends",
        Deadline::NodesLowered { .. } => "nodes-lowered",
    };
    let countdown = move || deadline_countdown(clock.now(), at);
    let when = move || {
        let chosen = zone(tz.get());
        match chosen {
            Zone::Utc => format_time(at, Zone::Utc),
            _ => format!("{} · {}", format_time(at, chosen), format_time(at, Zone::Utc)),
        }
    };
    let remedy = match (&risk.deadline, averted_by) {
        (Deadline::PastDue, Some((sum, settle))) => {
            let (before, after) = averted_by_words(settle);
            view! { <p class="at-risk-remedy">{before} <Money amount=sum/> {after}</p> }.into_any()
        }
        (Deadline::PastDue, None) if owner => view! { <p class="at-risk-remedy muted">{SUM_NOT_READ}</p> }.into_any(),
        (Deadline::PastDue, None) => view! { <p class="at-risk-remedy">{OWNER_ONLY}</p> }.into_any(),
        (Deadline::TermEnds { renewal }, _) => {
            let keeps = renewal_keeps(renewal, at);
            view! {
                <p class="at-risk-remedy">
                    {keeps}
                    <span class="assumed" title=RENEWAL_PAIRING>{format!("{MARK} pairing")}</span>
                </p>
            }
            .into_any()
        }
        (Deadline::NodesLowered { .. }, _) => ().into_any(),
    };
    let assumed = risk.assumption();
    let scope = risk.scope();
    let title = risk.title(owner);
    // Names the table's scroller: "Workloads that would stop: #8, Workloads stop unless …".
    let label = format!("Workloads that would stop: #{id}, {title}");
    view! {
        <li class="at-risk-item" data-deadline=kind>
            <h3 class="at-risk-title">
                {linked.then(|| view! { <a href=format!("{}#{ANCHOR}", reservation_address(&account, id, "", &[]))>{format!("#{id}")}</a> " · " })}
                {title}
            </h3>
            <p class="at-risk-when">
                <strong class="num">{countdown}</strong>
                " · "
                <time class="num" datetime=at.to_rfc3339()>{when}</time>
            </p>
            <p class="at-risk-scope">
                {scope}
                {assumed.map(|text| view! { " " <span class="assumed">{text}</span> })}
            </p>
            <WorkloadsTable workloads=risk.workloads label/>
            {remedy}
        </li>
    }
}

/// The workloads a deadline would stop. Narrow, the table scrolls in its own box, which
/// the keyboard reaches and a screen reader names by `label`; a long name, kind or node is
/// cut to a few lines, the whole in its title.
#[component]
fn WorkloadsTable(workloads: Workloads, label: String) -> impl IntoView {
    let known: Vec<Stopping> = match workloads {
        Workloads::Known(known) | Workloads::Partly { known, .. } => known,
        Workloads::Unknown(_) => Vec::new(),
    };
    let more = known.len().saturating_sub(WORKLOADS_LISTED);
    (!known.is_empty()).then(|| {
        view! {
            <DataTable
                class="data-table at-risk-workloads"
                scroller=Scroller::Named(label)
                columns=vec![Column::text("Workload"), Column::text("Kind"), Column::figures("GPUs"), Column::text("Nodes")]
            >
                        {known.into_iter().take(WORKLOADS_LISTED).map(|w| view! {
                            <tr>
                                <th scope="row"><CutText text=w.name/></th>
                                // The console's own words wrap between words; only a kind the
                                // API spelled (unrecognised) is API text to cut.
                                <td>{match &w.kind {
                                    WorkloadKind::Unknown(_) => view! { <CutText text=kind_label(&w.kind)/> }.into_any(),
                                    known => kind_label(known).into_any(),
                                }}</td>
                                <td class="num">{w.gpus}</td>
                                <td><CutText text=w.nodes.join(", ")/></td>
                            </tr>
                        }).collect_view()}
            </DataTable>
            {(more > 0).then(|| view! { <p class="muted">{format!("and {} more", count(more, "workload"))}</p> })}
        }
    })
}
