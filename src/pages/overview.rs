//! Overview: every reserved GPU of the account at once — in use, free to launch on, idle
//! behind a reservation closed to launches, not available, unknown — by region and by GPU
//! type, each reservation with the age of its figures; for the owner, what the idle ones cost
//! while they stay idle. Where Connect lands.

use crate::api::assumptions::{MARK, SUSPENDED_ACCRUES};
use crate::api::money::Usd;
use crate::components::alerts_bell;
use crate::components::api_text::ApiText;
use crate::components::at_risk::{fleet_at_risk, fleet_calendar, AtRiskPanel, CalendarOrgEnds};
use crate::components::copy_summary::CopySummary;
use crate::components::data_table::{Column, DataTable};
use crate::components::download_button::{DownloadButton, FileKind};
use crate::components::fleet_reads::{Freshness, ListStatus, ReadFailure, ReadLine};
use crate::components::html::Html;
use crate::components::sparkline::{write_sparkline, Spark};
use crate::components::status_badge::StatusBadge;
use crate::domain::accounts::{AccountRead, Accounts, Group};
use crate::domain::explain::ErrorContext;
use crate::domain::exports::csv::history_csv;
use crate::domain::exports::summary::{self, FleetRow};
use crate::domain::fleet::history::History;
use crate::domain::fleet::Entry;
use crate::domain::fleet::{Accrual, CostView, Fleet, GpuSplit, IdleCost};
use crate::domain::status::{launches_in_brief, reservation_status};
use crate::domain::words::address::reservation_address;
use crate::domain::words::shown::{account_name, accounts_text};
use crate::domain::words::shown::{
    idle_closed_text, idle_open_rest, per_hour_text, rate_not_read_text, split_cells, sum_text, use_unknown_text,
    AT_LEAST, COST_UNKNOWN, NOT_CHARGED_YET, RATE_NOT_READ, SPLIT_COLUMNS,
};
use crate::reads::accounts::{account_pages, AccountStores};
use crate::reads::fleet::{FleetStore, ReadNow};
use crate::reads::session::Account;
use crate::state::{use_clock, use_connection, Clock, Role};
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use leptos::prelude::*;
use std::collections::BTreeMap;

#[component]
pub fn OverviewPage() -> impl IntoView {
    let stores = account_pages("Overview");
    alerts_bell::install();
    let several = Memo::new(move |_| stores.all().len() > 1);
    move || match several.get() {
        false => view! { <OverviewBoard store=stores.first()/> }.into_any(),
        true => view! { <AccountsBoard stores/> }.into_any(),
    }
}

/// The overview of several accounts (issue 48): the sums across them by region and GPU
/// type with what each adds, the idle cost of the owners' accounts and which accounts'
/// money is not shown, then each account's reservations under its name, each with its own
/// reads' state: one account's failure is said on its rows and leaves the others whole.
/// Tests mount this on the stores of accounts fed fixture answers.
#[component]
pub fn AccountsBoard(stores: AccountStores) -> impl IntoView {
    let sums = Memo::new(move |_| {
        let all = stores.all();
        let reads: Vec<(String, bool, Option<ReadNow>)> = all
            .iter()
            .map(|(account, store)| {
                let read = store.reservations().is_some().then(|| store.read_now());
                (account.label.clone(), account.role == Role::Owner, read)
            })
            .collect();
        let entries: Vec<Option<Vec<Entry>>> =
            reads.iter().map(|(.., read)| read.as_ref().map(ReadNow::entries)).collect();
        let accounts: Vec<AccountRead> = reads
            .iter()
            .zip(&entries)
            .map(|((label, owner, _), entries)| AccountRead { label, owner: *owner, entries: entries.as_deref() })
            .collect();
        Accounts::of(&accounts)
    });
    view! {
        <section class="overview-page">
            <div class="page-head">
                <div>
                    <h1>"Overview"</h1>
                    <p class="subtitle">{move || format!(
                        "Every reserved GPU of the {} connected accounts: what is working, what sits idle, what is unknown.",
                        stores.all().len()
                    )}</p>
                </div>
                <div class="page-actions">
                    <a class="button button-secondary" href="/fit">"Where do k GPUs fit?"</a>
                </div>
            </div>
            <AccountsMoney sums/>
            <AccountsSums sums/>
            {move || stores.all().into_iter().map(|(account, store)| view! { <AccountRows account store/> }).collect_view()}
        </section>
    }
}

/// The idle cost summed over the owners' accounts; the accounts whose money is not shown
/// (a member's key, or an owner's before any rate was read) and those not read, by name.
#[component]
fn AccountsMoney(sums: Memo<Accounts>) -> impl IntoView {
    move || {
        sums.with(|sums| {
            let money = &sums.money;
            let shown = sums.per_account.len() > money.not_shown.len();
            let owners: Vec<String> =
                sums.per_account.iter().map(|(l, _)| l.clone()).filter(|l| !money.not_shown.contains(l)).collect();
            view! {
                <p class="idle-cost panel">
                    {shown.then(|| view! {
                        {(!money.partial.is_empty()).then(|| view! { <span class="stale-mark partial-mark">"Partial"</span> " At least " })}
                        <strong class="idle-cost-figure num">{format!("{}/h", money.launchable.per_hour)}</strong>
                        {format!(" of reserved capacity is idle and open to launches in {} ", accounts_text(&owners))}
                        <span class="num">{format!("({} a day)", money.launchable.per_day)}</span>
                        ": free GPUs on ready nodes × each reservation's GPU rate, as last read."
                        {(money.closed.per_hour != Usd::ZERO).then(|| view! {
                            " A further "
                            <strong class="idle-cost-closed num">{format!("{}/h", money.closed.per_hour)}</strong>
                            " sits idle on reservations closed to launches."
                            {money.closed_assumed.then(|| view! { " " <span class="assumed">{SUSPENDED_ACCRUES}</span> })}
                        })}
                        {(!money.partial.is_empty()).then(|| format!(
                            " Partial in {}: some reservations' use or rate is unknown (their rows say which).",
                            accounts_text(&money.partial)
                        ))}
                    })}
                    {(!money.not_shown.is_empty()).then(|| view! {
                        <span class="money-not-shown">{format!(
                            " Money not shown for {}: a member's key is shown GPU figures only (or no rate was read yet).",
                            accounts_text(&money.not_shown)
                        )}</span>
                    })}
                    {(!sums.missing.is_empty()).then(|| view! {
                        <span class="accounts-missing">{format!(
                            " Not counted: {}, whose reservations are not read (each account's part below says why).",
                            accounts_text(&sums.missing)
                        )}</span>
                    })}
                </p>
            }
        })
    }
}

/// The split by region and by GPU type across the accounts: each group's sum, then what
/// each account adds to it, named.
#[component]
fn AccountsSums(sums: Memo<Accounts>) -> impl IntoView {
    view! {
        <SumsPanel heading="Reserved GPUs, all accounts" total=move || sums.with(|s| s.total)>
            <AccountsSplitTable caption="By region" id="by-region" sums pick=|s| &s.by_region/>
            <AccountsSplitTable caption="By GPU type" id="by-gpu-type" sums pick=|s| &s.by_gpu_type/>
        </SumsPanel>
    }
}

#[component]
fn AccountsSplitTable(
    caption: &'static str,
    id: &'static str,
    sums: Memo<Accounts>,
    pick: fn(&Accounts) -> &BTreeMap<String, Group>,
) -> impl IntoView {
    let row = split_row;
    let columns = split_columns(id);
    let foot = move || view! { <tr class="sum-row">{move || sums.with(|s| row("All".into_any(), &s.total))}</tr> };
    view! {
        <DataTable class="data-table stack-table split-table" id=id caption=caption columns foot>
            {move || sums.with(|s| {
                pick(s).iter().map(|(name, group)| view! {
                    <tr class="group-row">{row(view! { <ApiText text=name.clone()/> }.into_any(), &group.total)}</tr>
                    {group.per_account.iter().map(|(label, split)| view! {
                        <tr class="account-row" data-account=label.clone()>
                            {row(view! { <span class="account-name">{account_name(label).to_owned()}</span> }.into_any(), split)}
                        </tr>
                    }).collect_view()}
                }).collect_view()
            })}
        </DataTable>
    }
}

/// One account's part: its name and role, its reads' failure (with the request id and a
/// Retry), and its reservations' rows, money only when its key is the owner's.
#[component]
fn AccountRows(account: Account, store: FleetStore) -> impl IntoView {
    let fleet = Memo::new(move |_| store.fleet());
    let minute = this_minute(use_clock());
    let at_risk = Memo::new(move |_| fleet_at_risk(store, minute.get()));
    let owner = account.role == Role::Owner;
    let (role, tone, note) = account.role.words();
    let label = account.label;
    let (name, rows) = (account_name(&label).to_owned(), label.clone());
    view! {
        <section class="account-part" data-account=label>
            <h2>
                <span class="account-name">{name}</span>
                " " <span class=format!("badge {tone}")>{role}</span>
                " " <span class="role-note">{note}</span>
            </h2>
            <ListStatus store/>
            {move || match store.reservations() {
                Some(_) => view! {
                    <AtRiskPanel shown=at_risk.into() linked=true account=(rows.clone(), owner)/>
                    <ReservationRows store fleet account=rows.clone() owner/>
                }.into_any(),
                None if store.list_error().is_none() => view! { <p class="panel-note">"Reading the reservations…"</p> }.into_any(),
                None => ().into_any(),
            }}
        </section>
    }
}

/// Everything drawn from the store. Tests mount this on a store fed fixture answers.
#[component]
pub fn OverviewBoard(store: FleetStore) -> impl IntoView {
    let fleet = Memo::new(move |_| store.fleet());
    let listed = move || store.reservations().is_some();
    let state = use_connection();
    let clock = use_clock();
    let minute = this_minute(clock);
    let at_risk = Memo::new(move |_| fleet_at_risk(store, minute.get()));
    let copy = Callback::new(move |amounts: bool| {
        let with_nodes = store.with_nodes();
        let rows: Vec<FleetRow> = with_nodes
            .iter()
            .map(|r| FleetRow { reservation: r, read_at: store.read(r.id).latest.map(|f| f.at) })
            .collect();
        fleet.with(|f| summary::overview(f, &rows, amounts, clock.now_untracked()))
    });
    let csv = Callback::new(move |()| {
        let all = store.histories();
        history_csv(&all.iter().map(|(id, h)| (*id, h)).collect::<Vec<(i64, &History)>>())
    });
    // Shown once the list is read, so there is always a file to build.
    let ics = Callback::new(move |()| {
        fleet_calendar(store, state.role() == Role::Owner, clock.now_untracked()).unwrap_or_default()
    });
    view! {
        <section class="overview-page">
            <div class="page-head">
                <div>
                    <h1>"Overview"</h1>
                    <p class="subtitle">"Every reserved GPU of the account: what is working, what sits idle, what is unknown."</p>
                </div>
                <div class="page-actions">
                    <a class="button button-secondary" href="/fit">"Where do k GPUs fit?"</a>
                    <a class="button button-secondary" href="/capacity">"Gaps between terms"</a>
                    // The ledger is the owner's: a member's key is not offered it.
                    {move || (state.role() != Role::Member).then(|| view! {
                        <a class="button button-secondary" href="/ledger">"Term ledger"</a>
                    })}
                    <DownloadButton label="Download utilization (CSV)" filename="utilization.csv".to_owned() contents=csv/>
                    {move || listed().then(|| view! {
                        <DownloadButton
                            label="Add to calendar (.ics)"
                            filename="reservation-deadlines.ics".to_owned()
                            kind=FileKind::Calendar
                            contents=ics
                        />
                    })}
                    <CopySummary summary=copy money=true/>
                </div>
            </div>
            <ReadLine store/>
            <ListStatus store/>
            <CalendarOrgEnds store/>
            {move || listed().then(|| view! {
                <IdleCostLine store fleet/>
                <FleetSums fleet/>
                <AtRiskPanel shown=at_risk.into() linked=true/>
                <ReservationRows store fleet/>
            })}
        </section>
    }
}

/// "$312.50/h of reserved capacity is idle and open to launches" for the owner, apart from
/// what sits idle behind reservations closed to launches and from the reservations whose
/// use is unknown; a rate not read leaves the rest shown as a partial figure and says why;
/// for a member, that the cost is the owner's view (and no figure of it).
#[component]
fn IdleCostLine(store: FleetStore, fleet: Memo<Fleet>) -> impl IntoView {
    let role = use_connection();
    move || {
        match (role.role(), fleet.with(|f| f.cost.clone())) {
        (_, CostView::Owner { launchable, closed, closed_assumed, use_unknown, rate_unknown, .. }) => view! {
            <p class="idle-cost panel">
                // The words of `shown::idle_cost_text`, which the copied summary pastes.
                {(!rate_unknown.is_empty()).then(|| view! { <span class="stale-mark partial-mark">"Partial"</span> " " {AT_LEAST} })}
                <strong class="idle-cost-figure num">{per_hour_text(launchable)}</strong>
                {idle_open_rest(launchable)}
                {idle_closed_text(closed).map(|text| view! {
                    {text}
                    {closed_assumed.then(|| view! { " " <span class="assumed">{SUSPENDED_ACCRUES}</span> })}
                })}
                {use_unknown_text(&use_unknown)}
                <RatesNotRead store ids=rate_unknown/>
            </p>
        }
        .into_any(),
        (Role::Owner, CostView::Member) => view! {
            <p class="idle-cost panel muted">
                "The cost of idle capacity is shown once a reservation's rate has been read."
                <RatesNotRead store ids=store.with_nodes().iter().map(|r| r.id).collect()/>
            </p>
        }
        .into_any(),
        (_, CostView::Member) => view! {
            <p class="idle-cost panel muted">
                "What idle capacity costs is the account owner's view: this key is shown GPU figures only."
            </p>
        }
        .into_any(),
    }
    }
}

/// " Not counted: #8, whose rate could not be read: <cause> Request id …": each reservation
/// left out of the owner's cost for want of its rate, and why (its detail's latest failure,
/// or not read yet). Retried on the page's schedule (`reads::fleet`).
#[component]
fn RatesNotRead(store: FleetStore, ids: Vec<i64>) -> impl IntoView {
    let (failed, pending): (Vec<_>, Vec<_>) =
        ids.into_iter().map(|id| (id, store.detail_error(id))).partition(|(_, e)| e.is_some());
    let pending: Vec<i64> = pending.into_iter().map(|(id, _)| id).collect();
    view! {
        {rate_not_read_text(&pending)}
        {failed.into_iter().filter_map(|(id, e)| Some((id, e?))).map(|(id, error)| view! {
            <span class="rate-failure">
                {format!(" Not counted: #{id}, whose rate could not be read:")}
                <ReadFailure error context=ErrorContext { owner: true, ..ErrorContext::default() }/>
            </span>
        }).collect_view()}
    }
}

/// The split by region and by GPU type, each with its total row.
#[component]
fn FleetSums(fleet: Memo<Fleet>) -> impl IntoView {
    view! {
        <SumsPanel heading="Reserved GPUs" total=move || fleet.with(|f| f.total)>
            <SplitTable caption="By region" id="by-region" fleet pick=|f| f.by_region.clone()/>
            <SplitTable caption="By GPU type" id="by-gpu-type" fleet pick=|f| f.by_gpu_type.clone()/>
        </SumsPanel>
    }
}

#[component]
fn SplitTable(
    caption: &'static str,
    id: &'static str,
    fleet: Memo<Fleet>,
    pick: fn(&Fleet) -> BTreeMap<String, GpuSplit>,
) -> impl IntoView {
    // `name` is a region or GPU type as the API spelled it, or the sum row's own "All".
    let row = |name: String, split: GpuSplit| split_row(view! { <ApiText text=name/> }.into_any(), &split);
    let columns = split_columns(id);
    let foot = move || view! { <tr class="sum-row">{move || fleet.with(|f| row("All".to_owned(), f.total))}</tr> };
    view! {
        <DataTable class="data-table stack-table split-table" id=id caption=caption columns foot>
            {move || fleet.with(|f| {
                pick(f).into_iter().map(|(name, split)| view! { <tr>{row(name, split)}</tr> }).collect::<Vec<_>>()
            })}
        </DataTable>
    }
}

/// Each reservation with nodes: its split, the age of its figures (stale when the latest
/// read failed, the region is unreachable, or the figures are older than two intervals),
/// and for the owner its idle cost.
#[component]
fn ReservationRows(
    store: FleetStore,
    fleet: Memo<Fleet>,
    /// The account the rows are of, named on each row when several are connected.
    #[prop(optional)]
    account: Option<String>,
    /// Whether its key is the owner's, when several are connected; alone, the role the
    /// connection learnt decides (a member's never shows money).
    #[prop(optional)]
    owner: Option<bool>,
) -> impl IntoView {
    let state = use_connection();
    let clock = use_clock();
    let owner_costs = Memo::new(move |_| match fleet.with(|f| f.cost.clone()) {
        CostView::Owner { per_reservation, .. } => {
            Some(per_reservation.into_iter().collect::<BTreeMap<i64, Option<IdleCost>>>())
        }
        CostView::Member => None,
    });
    let splits =
        Memo::new(move |_| fleet.with(|f| f.per_reservation.iter().copied().collect::<BTreeMap<i64, GpuSplit>>()));
    let shows_cost = move || owner_costs.with(Option::is_some) && owner.unwrap_or_else(|| state.role() != Role::Member);
    let named = StoredValue::new(account);
    let columns = Signal::derive(move || {
        let mut columns = vec![
            Column::text("Reservation"),
            Column::figures("Reserved"),
            Column::figures("In use"),
            // Short: the sum line and the split tables name them in full.
            Column::figures("Free"),
            Column::figures("Idle, closed"),
            Column::figures("Not available"),
            Column::figures("Unknown"),
        ];
        columns.extend(shows_cost().then(|| Column::figures("Idle cost")));
        columns.push(Column::text("Use since opened"));
        columns
    });
    view! {
        <section class="panel" aria-label=move || named.with_value(|a| match a {
            Some(label) => format!("By reservation, {}", account_name(label)),
            None => "By reservation".to_owned(),
        })>
            <h2>"By reservation"</h2>
            {move || store.with_nodes().is_empty().then(|| view! {
                <p class="panel-note">"No reservation has nodes yet: they appear here once EcoLink has assigned them."</p>
            })}
            <DataTable class="data-table stack-table fleet-table" columns>
                        {move || store.with_nodes().into_iter().map(|r| {
                            let id = r.id;
                            let status = reservation_status(&r, clock.now_untracked());
                            let unread = GpuSplit::unread(&r);
                            let split = move || splits.with(|s| s.get(&id).copied().unwrap_or(unread));
                            let cost = move || owner_costs.with(|c| c.as_ref().and_then(|c| c.get(&id).copied()));
                            let accrual = Accrual::of(&r.status);
                            view! {
                                <tr data-reservation=id.to_string() data-account=named.get_value()>
                                    <td data-label="Reservation">
                                        <a class="row-link" href=named.with_value(|a| reservation_address(a.as_deref().unwrap_or(""), id, "", &[]))>{format!("#{id}")}</a>
                                        {named.get_value().map(|label| view! { " " <span class="account-name">{account_name(&label).to_owned()}</span> })}
                                        " " <StatusBadge label=status.label tone=status.tone/>
                                        // What the status does to launches, as the idle cost beside it says.
                                        {launches_in_brief(&r.status).map(|words| view! { <span class="cell-sub launches-closed">{words}</span> })}
                                        <span class="cell-sub"><ApiText text=r.region_id.clone()/>" · "<ApiText text=r.gpu_type.clone()/></span>
                                        <span class="cell-sub freshness"><Freshness store id context=ErrorContext::of(&r)/></span>
                                    </td>
                                    {move || split_cells(&split()).into_iter().zip(SPLIT_COLUMNS).map(|(cell, label)| view! {
                                        <td class="num" data-label=label>{cell}</td>
                                    }).collect_view()}
                                    {move || shows_cost().then(|| view! {
                                        <td class="num idle-cost-cell" data-label="Idle cost">
                                            {move || match cost() {
                                                Some(Some(_)) if accrual == Accrual::NotCharged => view! {
                                                    <span class="muted" title="No period is charged before the term starts.">{NOT_CHARGED_YET}</span>
                                                }.into_any(),
                                                Some(Some(c)) => view! {
                                                    {format!("{}/h", c.per_hour)}
                                                    <span class="cell-sub">{format!("{}/day", c.per_day)}</span>
                                                    {(accrual == Accrual::AssumedCharged && c.per_hour != Usd::ZERO).then(|| view! {
                                                        <span class="cell-sub assumed" title=SUSPENDED_ACCRUES>{MARK}</span>
                                                    })}
                                                }.into_any(),
                                                Some(None) => view! {
                                                    <span class="muted" title="Its GPUs' use is unknown: not read yet, or the region could not be reached.">{COST_UNKNOWN}</span>
                                                }.into_any(),
                                                None => view! {
                                                    <span class="muted" title="Its rate is not read: the line above says why.">{RATE_NOT_READ}</span>
                                                }.into_any(),
                                            }}
                                        </td>
                                    })}
                                    <td data-label="Use since opened"><UseHistory store id/></td>
                                </tr>
                            }
                        }).collect::<Vec<_>>()}
            </DataTable>
        </section>
    }
}

/// The minute, not the second: drawn again when an answer changes or a minute turns, not
/// on every tick of the clock (the countdowns tick by themselves).
fn this_minute(clock: Clock) -> Memo<DateTime<Utc>> {
    Memo::new(move |_| clock.now().duration_trunc(TimeDelta::minutes(1)).unwrap_or_else(|_| clock.now()))
}

/// A row of a split table: its name (a region, a GPU type, an account, "All") and figures.
fn split_row(name: AnyView, split: &GpuSplit) -> impl IntoView {
    view! {
        <th scope="row">{name}</th>
        {split_cells(split).into_iter().zip(SPLIT_COLUMNS).map(|(cell, label)| view! {
            <td class="num" data-label=label>{cell}</td>
        }).collect_view()}
    }
}

/// The columns of the split table `id` ("by-region" or "by-gpu-type").
fn split_columns(id: &str) -> Vec<Column> {
    let mut columns = vec![Column::text(if id == "by-region" { "Region" } else { "GPU type" })];
    columns.extend(SPLIT_COLUMNS.map(Column::figures));
    columns
}

/// The panel of the sums: `heading`, the sum line of `total`, what unknown means, and the
/// split tables (`children`).
#[component]
fn SumsPanel(heading: &'static str, #[prop(into)] total: Signal<GpuSplit>, children: Children) -> impl IntoView {
    view! {
        <section class="panel fleet-sums" aria-labelledby="sums-heading">
            <h2 id="sums-heading">{heading}</h2>
            <p class="fleet-sum-line num">{move || sum_text(&total.get())}</p>
            <p class="panel-note">
                "Unknown: not read yet, or the region could not be reached. Never counted as free or as zero in use."
            </p>
            <div class="fleet-sum-tables">{children()}</div>
        </section>
    }
}

/// A row's line of use (the stylesheet sizes it).
const ROW_LINE: Spark = Spark { class: "spark", width: 120.0, height: 28.0, dot: true };

/// A small line of the share of GPUs in use since the tab opened, with min, mean and max and
/// the share of time under 20 % beside it.
#[component]
fn UseHistory(store: FleetStore, id: i64) -> impl IntoView {
    let clock = use_clock();
    move || {
        let history = store.history(id).unwrap_or_default();
        let mut line = Html::default();
        let Some(stats) = write_sparkline(&mut line, &ROW_LINE, &history, clock.now()) else {
            return view! { <span class="muted">"no figures yet"</span> }.into_any();
        };
        view! {
            <span class="spark-box" inner_html=line.into_string()></span>
            <span class="cell-sub num spark-stats">{stats.summary()}</span>
        }
        .into_any()
    }
}
