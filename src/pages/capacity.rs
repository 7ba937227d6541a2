//! Capacity without gaps: per region and GPU type, the reserved GPUs over the coming terms
//! (`domain::terms::timeline`), drawn and told again in words and a table with the same
//! facts: each term, its renewal and how it takes over (at the end, after a gap, with an
//! overlap), each term's GPUs as its amendments change them. It reads what the overview reads
//! (the same loop and store); only the owner reads what an overlap costs, from the renewal's
//! rate, which a member's key never gets.

use crate::api::assumptions::{MARK, OVERLAP_PRICE, RENEWAL_PAIRING};
use crate::api::models::{Amendment, Timestamp};
use crate::api::money::Usd;
use crate::components::alerts_bell;
use crate::components::api_text::CutText;
use crate::components::copy_summary::CopySummary;
use crate::components::data_table::{Column, DataTable, Scroller};
use crate::components::fleet_reads::{ListStatus, ReadLine};
use crate::components::money::Money;
use crate::components::timeline::position;
use crate::domain::exports::summary;
use crate::domain::nodes::capacity::gpus_text;
use crate::domain::terms::timeline::{lanes, Handover};
use crate::domain::words::address::reservation_address;
use crate::domain::words::shown::account_name;
use crate::domain::words::shown::{overlap_cost_of, stretches_text, LaneView, OverlapCost, TermRow};
use crate::domain::words::text::visible_controls;
use crate::domain::words::time::{format_utc_date, utc_title};
use crate::domain::words::{count, figure};
use crate::reads::accounts::{account_pages, AccountStores};
use crate::reads::fleet::FleetStore;
use crate::state::{use_clock, use_connection, Clock, Role};
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use leptos::prelude::*;
use std::collections::BTreeMap;

#[component]
pub fn CapacityPage() -> impl IntoView {
    let stores = account_pages("Capacity over the coming terms");
    alerts_bell::install();
    let several = Memo::new(move |_| stores.all().len() > 1);
    move || match several.get() {
        false => view! { <CapacityBoard store=stores.first()/> }.into_any(),
        true => view! { <CapacityAccounts stores/> }.into_any(),
    }
}

/// The lanes of several accounts (issue 48), each account's under its name: a renewal is
/// paired with a term of its own account only, and what an overlap costs is shown on an
/// owner's key's lanes alone.
#[component]
fn CapacityAccounts(stores: AccountStores) -> impl IntoView {
    let hour = this_hour(use_clock());
    view! {
        <section class="capacity-page">
            <PageHead subtitle="Per account, region and GPU type, what stays reserved: a gap is hours without reserved GPUs (the workloads there stop), an overlap hours reserved twice."/>
            <p class="assumed">{RENEWAL_PAIRING}</p>
            {move || stores.all().into_iter().enumerate().map(|(at, (account, store))| {
                let views = Memo::new(move |_| lane_views(store, hour.get()));
                let owner = account.role == Role::Owner;
                let (role, tone, _) = account.role.words();
                let label = account.label;
                let name = account_name(&label).to_owned();
                view! {
                    <section class="account-part" data-account=label>
                        <h2>
                            <span class="account-name">{name}</span>
                            " " <span class=format!("badge {tone}")>{role}</span>
                        </h2>
                        <ListStatus store/>
                        <Lanes store views owner=move || owner ids=format!("capacity-{at}-lane") account=label.clone()/>
                    </section>
                }
            }).collect_view()}
        </section>
    }
}

/// The page's title and `subtitle`, with its actions (`children`) if any.
#[component]
fn PageHead(subtitle: &'static str, #[prop(optional)] children: Option<Children>) -> impl IntoView {
    view! {
        <div class="page-head">
            <div>
                <h1>"Capacity over the coming terms"</h1>
                <p class="subtitle">{subtitle}</p>
            </div>
            {children.map(|actions| actions())}
        </div>
    }
}

/// The hour, not the second: the lanes start "now" and need not be drawn again each tick.
fn this_hour(clock: Clock) -> Memo<DateTime<Utc>> {
    Memo::new(move |_| clock.now().duration_trunc(TimeDelta::hours(1)).unwrap_or_else(|_| clock.now()))
}

/// The lanes of `store`'s reservations from `hour` on, `None` before its list is read.
fn lane_views(store: FleetStore, hour: DateTime<Utc>) -> Option<Vec<LaneView>> {
    let list = store.reservations()?;
    let read: BTreeMap<i64, Vec<Amendment>> =
        list.iter().filter_map(|r| Some((r.id, store.detail(r.id)?.amendments))).collect();
    let amendments = |id: i64| read.get(&id).map(Vec::as_slice);
    Some(lanes(&list, &amendments, hour).iter().map(LaneView::of).collect())
}

/// Every lane from the store. Tests mount it on a store fed fixture answers.
#[component]
pub fn CapacityBoard(store: FleetStore) -> impl IntoView {
    let clock = use_clock();
    let hour = this_hour(clock);
    let views = Memo::new(move |_| lane_views(store, hour.get()));
    let state = use_connection();
    let copy = Callback::new(move |amounts: bool| {
        let priced = |r: &TermRow| overlap_cost_of(r.handover, r.renewal, |id| renewal_rate(store, id));
        let costs = (amounts && state.role() == Role::Owner).then_some(&priced as &dyn Fn(&TermRow) -> OverlapCost);
        views.with_untracked(|lanes| summary::capacity(lanes.as_deref(), costs, clock.now_untracked()))
    });
    view! {
        <section class="capacity-page">
            <PageHead subtitle="Per region and GPU type, what stays reserved: a gap is hours without reserved GPUs (the workloads there stop), an overlap hours reserved twice.">
                <div class="page-actions"><CopySummary summary=copy money=true/></div>
            </PageHead>
            <ReadLine store/>
            <ListStatus store/>
            <p class="assumed">{RENEWAL_PAIRING}</p>
            <Lanes store views owner=move || state.role() == Role::Owner ids="capacity-lane".to_owned()/>
        </section>
    }
}

/// Each lane's panel; `owner` read as they are drawn, tracked: a role learnt after the page
/// opened redraws the costs. Each lane's heading is `<ids>-<n>`.
#[component]
fn Lanes(
    store: FleetStore,
    views: Memo<Option<Vec<LaneView>>>,
    #[prop(into)] owner: Signal<bool>,
    ids: String,
    /// The label of the account the lanes are of (empty: the connection's), which each
    /// reservation's link names.
    #[prop(optional)]
    account: String,
) -> impl IntoView {
    move || {
        match views.get() {
        None => ().into_any(),
        Some(lanes) if lanes.is_empty() => {
            view! { <p class="panel muted">"No reservation has a term still to come."</p> }.into_any()
        }
        Some(lanes) => lanes
            .into_iter()
            .enumerate()
            .map(|(index, lane)| view! { <LanePanel lane heading=format!("{ids}-{index}") store owner=owner.get() account=account.clone()/> })
            .collect_view()
            .into_any(),
    }
    }
}

#[component]
fn LanePanel(lane: LaneView, heading: String, store: FleetStore, owner: bool, account: String) -> impl IntoView {
    // The table's scroller is named by the lane's heading too.
    let (heading_id, table_label) = (heading.clone(), heading.clone());
    let summary = stretches_text(&lane.stretches);
    let unread = lane.unread_text();
    let mut columns =
        vec![Column::text("Reservation"), Column::figures("GPUs"), Column::text("Term (UTC)"), Column::text("Renewal")];
    columns.extend(owner.then(|| Column::figures("Reserved twice costs")));
    let drawing = draw(&lane);
    let rows = lane.rows.into_iter().map(|r| term_row(r, store, owner, &account)).collect_view();
    view! {
        <section class="panel capacity-lane" aria-labelledby=heading>
            <h2 id=heading_id><CutText text=format!("{} · {}", lane.region, lane.gpu_type)/></h2>
            {drawing}
            <p class="capacity-stretches">{summary}</p>
            {unread.map(|text| view! { <p class="capacity-unread muted">{text}</p> })}
            <DataTable class="data-table stack-table capacity-table" scroller=Scroller::LabelledBy(table_label) columns>
                {rows}
            </DataTable>
        </section>
    }
}

/// The renewal's GPU rate, once the owner's key read its detail.
fn renewal_rate(store: FleetStore, id: i64) -> Option<Usd> {
    store.detail(id).and_then(|d| d.payment).map(|p| p.rate_usd_per_gpu_hour)
}

fn term_row(r: TermRow, store: FleetStore, owner: bool, account: &str) -> impl IntoView {
    let term = r.term_text();
    let cost = owner.then(|| {
        let (handover, renewal) = (r.handover, r.renewal);
        let cell = move || match overlap_cost_of(handover, renewal, |id| renewal_rate(store, id)) {
            OverlapCost::Priced { amount, how } => view! {
                <Money amount/>
                <span class="cell-sub">{how}</span>
                <span class="cell-sub assumed" title=OVERLAP_PRICE>{MARK}</span>
            }
            .into_any(),
            missing => view! { <span class="muted">{missing.missing_text()}</span> }.into_any(),
        };
        view! { <td class="num" data-label="Reserved twice costs">{cell}</td> }
    });
    view! {
        <tr data-handover=r.tone>
            <th scope="row" data-label="Reservation">
                <a class="row-link" href=reservation_address(account, r.id, "", &[])>{format!("#{}", r.id)}</a>
            </th>
            <td class="num" data-label="GPUs">
                {figure(r.gpus)}
                {r.changes.map(|text| view! { <span class="cell-sub">{text}</span> })}
            </td>
            <td data-label="Term (UTC)">{term}</td>
            <td data-label="Renewal"><span class=format!("key fill-{}", r.tone) aria-hidden="true"></span> " " {r.told}</td>
            {cost}
        </tr>
    }
}

/// Room at each end (in % of the width) so nothing is clipped.
const INSET: f64 = 1.0;
/// Height of a term's bar and of the space between bars.
const BAR: f64 = 14.0;
const BAR_GAP: f64 = 6.0;

fn x(fraction: f64) -> String {
    format!("{:.2}%", INSET + fraction * (100.0 - 2.0 * INSET))
}

fn width(from: f64, to: f64) -> String {
    format!("{:.2}%", (to - from).max(0.0) * (100.0 - 2.0 * INSET))
}

/// One bar per dated term on a line from the first stretch's start to the last's end, the
/// gaps in red across every bar and the overlaps in amber. SVG attributes and classes only
/// (the CSP allows no inline style); the words and the table say the same.
fn draw(lane: &LaneView) -> Option<impl IntoView> {
    let (first, last) = (lane.stretches.first()?, lane.stretches.last()?);
    let (start, end) = (first.from, last.to);
    let at = |t: Timestamp| position(start, end, t);
    let dated: Vec<&TermRow> = lane.rows.iter().filter(|r| r.start.is_some() && r.end.is_some()).collect();
    let height = dated.len() as f64 * (BAR + BAR_GAP) + BAR_GAP;
    let bars = dated
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (from, to) = (at(r.start.unwrap_or(start)), at(r.end.unwrap_or(end)));
            let y = format!("{:.0}", BAR_GAP + i as f64 * (BAR + BAR_GAP));
            view! {
                <rect class="capacity-term fill-info" x=x(from) y=y width=width(from, to) height=BAR.to_string() rx="3">
                    <title>{match &r.changes {
                        Some(changes) => format!("#{}: {}, {changes}", r.id, gpus_text(r.gpus)),
                        None => format!("#{}: {}", r.id, gpus_text(r.gpus)),
                    }}</title>
                </rect>
            }
        })
        .collect_view();
    let overlaps = dated
        .iter()
        .filter_map(|r| match (r.handover, r.end, lane.rows.iter().find(|n| Some(n.id) == r.renewal)?.start) {
            (Some(Handover::Overlap { .. }), Some(end_at), Some(renewal_start)) => {
                Some((r.id, r.renewal?, renewal_start, end_at))
            }
            _ => None,
        })
        .map(|(id, renewal, from_t, to_t)| {
            let (from, to) = (at(from_t), at(to_t));
            view! {
                <rect class="capacity-overlap fill-warning" x=x(from) y="0" width=width(from, to) height=format!("{height:.0}")>
                    <title>{format!("#{id} and #{renewal} overlap: {} – {}", utc_title(from_t), utc_title(to_t))}</title>
                </rect>
            }
        })
        .collect_view();
    let gaps = lane
        .stretches
        .iter()
        .filter(|s| s.gpus == 0)
        .map(|s| {
            let (from, to) = (at(s.from), at(s.to));
            view! {
                <rect class="capacity-gap fill-danger" x=x(from) y="0" width=width(from, to) height=format!("{height:.0}")>
                    <title>{format!("No reserved GPUs for {}: {} – {}", count(s.hours(), "hour"), utc_title(s.from), utc_title(s.to))}</title>
                </rect>
            }
        })
        .collect_view();
    let label = format!(
        "{} · {}: {} from {} to {}; the words and the table below say the same.",
        visible_controls(&lane.region),
        visible_controls(&lane.gpu_type),
        count(dated.len(), "term"),
        format_utc_date(start),
        format_utc_date(end)
    );
    Some(view! {
        <figure class="capacity-timeline">
            <svg width="100%" height=format!("{height:.0}") role="img" aria-label=label>
                {overlaps}
                {bars}
                {gaps}
            </svg>
            <figcaption class="timeline-legend">
                <span class="num">{format_utc_date(start)}</span>
                <span class="timeline-key">
                    <span class="key fill-info" aria-hidden="true"></span>" term "
                    <span class="key fill-danger" aria-hidden="true"></span>" gap "
                    <span class="key fill-warning" aria-hidden="true"></span>" overlap"
                </span>
                <span class="num">{format_utc_date(end)}</span>
            </figcaption>
        </figure>
    })
}
