//! Reservation detail: the terms and their timeline, storage used of the quota, the
//! amendments as before → after, and — for the owner only — the payment schedule checked
//! against the terms, with its chart and CSV export.

use crate::api::models::{Amendment, Reservation, ReservationDetail, Storage};
use crate::browser::set_page_title;
use crate::components::api_text::ApiText;
use crate::components::at_risk::{detail_at_risk, detail_calendar, AtRiskPanel};
use crate::components::banner::ActionBanner;
use crate::components::download_button::{DownloadButton, FileKind};
use crate::components::flag::Flag;
use crate::components::launch_link::LaunchLink;
use crate::components::payment_panel::PaymentPanel;
use crate::components::placements::InUseFigure;
use crate::components::remote::RemoteStatus;
use crate::components::reservation_route::{for_reservation_id, route_account};
use crate::components::status_badge::{StatusBadge, StatusWithExplanation};
use crate::components::time::{zone, Ago, TermDates, Time, UtcDate};
use crate::components::timeline::{Mark, TermTimeline};
use crate::components::usage_bar::UsageBar;
use crate::domain::nodes::capacity::{capacity_text, gpus_text, runs_workloads};
use crate::domain::status::{needs_action, reservation_status, reservation_status_in};
use crate::domain::terms::amendments::{differences, is_future, quota_mismatches};
use crate::domain::words::address::reservation_address;
use crate::domain::words::time::{countdown, format_utc_date, term_mismatch, term_text};
use crate::reads::nodes::use_nodes;
use crate::reads::placements::Placements;
use crate::reads::reservations::use_reservations;
use crate::state::{use_clock, use_time_zone};
use leptos::prelude::*;

#[component]
pub fn ReservationPage() -> impl IntoView {
    for_reservation_id(|id| view! { <ReservationOf id/> })
}

#[component]
fn ReservationOf(id: i64) -> impl IntoView {
    set_page_title(&format!("Reservation #{id}"));
    let store = use_reservations();
    let detail = store.detail_remote(id);
    // The account's reservations, among which the renewal is found (what stops when).
    let list = store.list_remote();
    let account = Signal::derive(move || list.data());
    let placements = Placements::default();
    placements.read_after(Memo::new(move |_| detail.fetched_at()), move || {
        detail.data().map(|d| vec![d.reservation]).unwrap_or_default()
    });
    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/reservations">"Reservations"</a>
            " / "
            <span aria-current="page">{format!("#{id}")}</span>
        </nav>
        <RemoteStatus remote=detail what="the reservation"/>
        {move || detail.data().map(|detail| view! { <ReservationView detail placements account/> })}
    }
}

/// The whole page from a detail already read. What it shows of billing depends only on
/// the detail: `payment` is present for the owner's key alone.
#[component]
pub fn ReservationView(
    detail: ReservationDetail,
    /// GPUs in use; none shown without.
    #[prop(optional)]
    placements: Placements,
    /// The account's reservations (`None` while read), for what stops when; without it the
    /// panel is not shown.
    #[prop(optional)]
    account: Option<Signal<Option<Vec<Reservation>>>>,
) -> impl IntoView {
    let clock = use_clock();
    let tz = use_time_zone();
    let r = detail.reservation.clone();
    let id = r.id;
    let for_banner = StoredValue::new(r.clone());
    let status = reservation_status(&r, clock.now_untracked());
    let owner = detail.payment.is_some();
    let funding = detail.payment.as_ref().map(|p| p.funding.clone());
    // The detail is drawn as it arrives: now is when it was read.
    let (for_ics, nodes, read_at) = (StoredValue::new(detail.clone()), use_nodes(), clock.now_untracked());
    let ics = Callback::new(move |()| {
        let all = account.and_then(|a| a.get_untracked());
        for_ics.with_value(|d| detail_calendar(d, read_at, all, nodes, clock.now_untracked()))
    });
    view! {
        <div class="page-head">
            <div>
                <h1>
                    {format!("Reservation #{id}")}
                    " "
                    <StatusBadge label=status.label tone=status.tone/>
                </h1>
                <p class="subtitle">
                    {format!("{} × ", r.reserved_gpus)}
                    <ApiText text=r.gpu_type.clone()/>
                    " in region "
                    <ApiText text=r.region_id.clone()/>
                    {r.contract_ref.clone().map(|c| view! { " · contract " <ApiText text=c/> })}
                </p>
            </div>
            <div class="page-actions">
                <a class="button button-secondary" href=reservation_address(&route_account(), id, "/nodes", &[])>
                    "Nodes and workloads"
                </a>
                <LaunchLink id status=r.status.clone()/>
                <DownloadButton
                    label="Add to calendar (.ics)"
                    filename=format!("reservation-{id}-deadlines.ics")
                    kind=FileKind::Calendar
                    contents=ics
                />
            </div>
        </div>
        {move || {
            for_banner
                .with_value(|r| needs_action(r, funding.as_ref(), zone(tz.get()), owner))
                .map(|banner| view! { <div class="banners"><ActionBanner banner/></div> })
        }}
        {account.filter(|_| runs_workloads(&r.status)).map(|account| {
            let (detail, nodes) = (StoredValue::new(detail.clone()), use_nodes());
            let shown = Memo::new(move |_| detail.with_value(|d| detail_at_risk(d, account.get(), nodes, clock.now())));
            view! { <AtRiskPanel shown=shown.into()/> }
        })}
        <TermsPanel detail=detail.clone() placements/>
        <div class="grid-2">
            <StoragePanel storage=detail.storage.clone() mismatches=quota_mismatches(&r, &detail.storage)/>
            <AmendmentsPanel amendments=detail.amendments.clone() with_rates=owner/>
        </div>
        {match detail.payment.clone() {
            Some(payment) => view! { <PaymentPanel detail payment/> }.into_any(),
            None => view! { <MemberBillingNote/> }.into_any(),
        }}
    }
}

#[component]
fn TermsPanel(detail: ReservationDetail, placements: Placements) -> impl IntoView {
    let clock = use_clock();
    let tz = use_time_zone();
    let r = detail.reservation.clone();
    let (nodes, mismatch) = capacity_text(&r);
    let term_off = term_mismatch(&r);
    let for_status = StoredValue::new(r.clone());
    let marks = detail
        .amendments
        .iter()
        .map(|a| Mark { at: a.effective_at, label: format!("Amendment from {}", format_utc_date(a.effective_at)) })
        .collect::<Vec<_>>();
    let timeline = match (r.starts_at, r.ends_at) {
        (Some(start), Some(end)) => view! {
            {move || view! { <TermTimeline start end now=clock.now() marks=marks.clone()/> }}
        }
        .into_any(),
        _ => view! {
            <p class="panel-note">"The term has no dates yet: it starts when the first invoice is paid, and its end follows from the start."</p>
        }
        .into_any(),
    };
    view! {
        <section class="panel" aria-labelledby="terms-title">
            <h2 id="terms-title">"Terms"</h2>
            <dl class="facts">
                <div class="fact-wide">
                    <dt>"Status"</dt>
                    <dd>{move || for_status.with_value(|r| {
                        let status = reservation_status_in(r, clock.now(), zone(tz.get()));
                        view! {
                            <StatusWithExplanation status=status.clone()/>
                            <span class="sub">{status.launches}</span>
                        }
                    })}</dd>
                </div>
                <div>
                    <dt>"Reserved GPUs"</dt>
                    <dd class="num">
                        {gpus_text(r.reserved_gpus)}
                        <span class="sub">{nodes}</span>
                        {mismatch.map(|text| view! { <Flag text class="sub"/> })}
                        <InUseFigure placements id=r.id class="sub"/>
                    </dd>
                </div>
                <div><dt>"GPU type"</dt><dd><ApiText text=r.gpu_type.clone()/></dd></div>
                <div><dt>"Region"</dt><dd><ApiText text=r.region_id.clone()/></dd></div>
                <div><dt>"Term"</dt><dd>{term_text(&r)}</dd></div>
                <div>
                    <dt>"Start → end (UTC)"</dt>
                    <dd>
                        <TermDates r=r.clone()/>
                        {term_off.map(|text| view! { <Flag text class="sub"/> })}
                    </dd>
                </div>
                <div>
                    <dt>"Next"</dt>
                    <dd>{move || for_status.with_value(|r| countdown(r, clock.now())).unwrap_or_else(|| "—".to_owned())}</dd>
                </div>
                {r.past_due_since.map(|at| view! { <div><dt>"Past due since"</dt><dd><Time at/></dd></div> })}
                {r.stops_at.map(|at| view! {
                    <div><dt>"Workloads stop"</dt><dd class="tone-text-danger"><Time at/><span class="sub"><Ago at/></span></dd></div>
                })}
                {r.ended_at.map(|at| view! { <div><dt>"Ended"</dt><dd><Time at/></dd></div> })}
                <div>
                    <dt>"Contract ref"</dt>
                    <dd>
                        {match r.contract_ref.clone() {
                            Some(c) => view! { <ApiText text=c/> }.into_any(),
                            None => "—".into_any(),
                        }}
                    </dd>
                </div>
            </dl>
            {timeline}
        </section>
    }
}

#[component]
fn StoragePanel(
    storage: Storage,
    /// The list-level quotas where they differ from `storage`'s.
    mismatches: Vec<String>,
) -> impl IntoView {
    view! {
        <section class="panel" aria-labelledby="storage-title">
            <h2 id="storage-title">"Storage included"</h2>
            <UsageBar label="Cloud drive" used=storage.drive_used_gib quota=storage.drive_quota_gib/>
            <UsageBar label="Shared filesystem" used=storage.fs_used_gib quota=storage.fs_quota_gib/>
            {mismatches.into_iter().map(|text| view! { <p class="quota-mismatch"><Flag text class="sub"/></p> }).collect::<Vec<_>>()}
        </section>
    }
}

/// Each amendment's changes. `with_rates` is false for a member: even if an answer carried
/// rates, a member's page shows no payment figure.
#[component]
fn AmendmentsPanel(amendments: Vec<Amendment>, with_rates: bool) -> impl IntoView {
    let clock = use_clock();
    let mut amendments = amendments;
    amendments.sort_by_key(|a| a.effective_at);
    let items = amendments
        .into_iter()
        .map(|a| {
            let a = if with_rates {
                a
            } else {
                Amendment { rate_usd_per_gpu_hour_before: None, rate_usd_per_gpu_hour_after: None, ..a }
            };
            let changes = differences(&a);
            let future = is_future(&a, clock.now_untracked());
            view! {
                <li class="amendment">
                    <p class="amendment-head">
                        "From " <strong><UtcDate at=a.effective_at/></strong> " "
                        <span class=if future { "badge tone-info" } else { "badge tone-neutral" }>
                            {if future { "Upcoming" } else { "In force" }}
                        </span>
                        " " <span class="muted"><Ago at=a.effective_at/></span>
                    </p>
                    {if changes.is_empty() {
                        view! { <p class="muted">"No change to nodes, storage or rate."</p> }.into_any()
                    } else {
                        view! {
                            <table class="diff-table">
                                <thead>
                                    <tr>
                                        <th scope="col"><span class="visually-hidden">"What"</span></th>
                                        <th scope="col">"Before"</th>
                                        <th scope="col" aria-hidden="true"></th>
                                        <th scope="col">"After"</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {changes.into_iter().map(|d| view! {
                                        <tr>
                                            <th scope="row">{d.label}</th>
                                            <td class="num diff-before">{d.before}</td>
                                            <td class="diff-arrow" aria-hidden="true">"→"</td>
                                            <td class="num diff-after">{d.after}</td>
                                        </tr>
                                    }).collect::<Vec<_>>()}
                                </tbody>
                            </table>
                        }.into_any()
                    }}
                </li>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <section class="panel" aria-labelledby="amendments-title">
            <h2 id="amendments-title">"Amendments"</h2>
            {if items.is_empty() {
                view! { <p class="muted">"None: the terms are as first agreed."</p> }.into_any()
            } else {
                view! { <ul class="amendments">{items}</ul> }.into_any()
            }}
        </section>
    }
}

#[component]
fn MemberBillingNote() -> impl IntoView {
    view! {
        <section class="panel member-billing" aria-labelledby="billing-title">
            <h2 id="billing-title">"Payment"</h2>
            <p>
                "Billing is the account owner's. This key belongs to a member, so rates, the "
                "advance and the charges are not shown; the owner sees them here with their key."
            </p>
        </section>
    }
}
