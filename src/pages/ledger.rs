//! The term ledger of the account: for each reservation and for the account, what the term
//! commits (Σ of its schedule) and where it stands — paid, invoiced and unpaid, scheduled,
//! waived, covered by the advance — and what is left of the advance (`domain::money::ledger`).
//! The owner's only: a member's key reads no payment and is told whose the ledger is. It
//! prints as a statement (style/overview.css) and downloads as CSV.

use crate::api::error::ApiError;
use crate::api::models::ReservationDetail;
use crate::browser::set_page_title;
use crate::components::api_text::{ApiText, CutText};
use crate::components::data_table::{Column, DataTable, Scroller};
use crate::components::download_button::DownloadButton;
use crate::components::error_panel::ErrorPanel;
use crate::components::money::Money;
use crate::components::remote::RemoteStatus;
use crate::components::status_badge::StatusBadge;
use crate::domain::explain::{explain, ErrorContext};
use crate::domain::exports::csv::ledger_csv;
use crate::domain::exports::focus::focus_csv;
use crate::domain::money::ledger::{ledger, Account, Missing, Row, Sums, OVERDUE_RULE};
use crate::domain::status::reservation_status;
use crate::domain::words::address::reservation_address;
use crate::domain::words::count;
use crate::domain::words::shown::{account_name, accounts_text};
use crate::domain::words::time::{format_time, Zone};
use crate::reads::accounts::{use_account_stores, AccountStores};
use crate::reads::fleet::app_fleet;
use crate::reads::reservations::{use_reservations, DetailsProgress, ReservationsStore};
use crate::state::{use_clock, use_connection, Role};
use chrono::{DateTime, Utc};
use leptos::prelude::*;

#[component]
pub fn LedgerPage() -> impl IntoView {
    set_page_title("Term ledger");
    let state = use_connection();
    let single = move || {
        let member = Signal::derive(move || state.role() == Role::Member);
        view! { <AccountLedger store=use_reservations() member/> }
    };
    // The accounts' stores follow the app's fleet store: a test may mount the page without.
    let Some(stores) = app_fleet().map(|_| use_account_stores()) else {
        return single().into_any();
    };
    let several = Memo::new(move |_| stores.all().len() > 1);
    (move || match several.get() {
        false => single().into_any(),
        true => view! { <AccountsLedgers stores/> }.into_any(),
    })
    .into_any()
}

/// The ledgers of several accounts (issue 48): the owner's keys' each under its account's
/// name; a member's key reads no payment, and the page names those accounts.
#[component]
fn AccountsLedgers(stores: AccountStores) -> impl IntoView {
    let not_shown =
        move || {
            let labels: Vec<String> =
                stores.all().into_iter().filter(|(a, _)| a.role != Role::Owner).map(|(a, _)| a.label).collect();
            (!labels.is_empty()).then(|| view! {
            <p class="panel muted ledger-not-shown">{format!(
                "Not shown: the ledgers of {}, whose keys are not the owner's (a member's key reads no payment).",
                accounts_text(&labels)
            )}</p>
        })
        };
    view! {
        {not_shown}
        {move || stores.all().into_iter().filter(|(a, _)| a.role == Role::Owner).map(|(account, store)| {
            let (label, name) = (account.label.clone(), account_name(&account.label).to_owned());
            view! {
                <section class="account-part" data-account=label>
                    <h2 class="account-name">{name}</h2>
                    <AccountLedger store=store.reservations_store() member=Signal::derive(|| false) label=account.label.clone()/>
                </section>
            }
        }).collect_view()}
    }
}

/// One account's ledger: its list, each detail read at the page's pace, and the board.
#[component]
fn AccountLedger(
    store: ReservationsStore,
    member: Signal<bool>,
    /// The account's label (empty: the connection's), which each reservation's link names.
    #[prop(optional)]
    label: String,
) -> impl IntoView {
    let label = StoredValue::new(label);
    let list = store.list_remote();
    // Each reservation's detail (its payment is the ledger's source), paced, through the
    // store: those read within a minute (the overview's, a reservation's page) are not read
    // again.
    let progress = DetailsProgress::new(store);
    let ids = move || list.data().map(|l| l.iter().map(|r| r.id).collect::<Vec<_>>()).unwrap_or_default();
    Effect::new(move || {
        list.fetched_at();
        progress.read(untrack(ids));
    });
    let rows = Memo::new(move |_| {
        let member = member.get();
        let queued = progress.queued();
        list.data().map(|list| {
            list.into_iter()
                .map(|reservation| {
                    let id = reservation.id;
                    let ledger = match store.detail(id) {
                        // A member's key reads no payment anywhere.
                        _ if member => Err(Missing::NotOwner),
                        Some(detail) => ledger(&detail),
                        None => match store.detail_error(id) {
                            Some(error) if !queued.contains(&id) => Err(Missing::NotRead(why(&error))),
                            _ => Err(Missing::NotReadYet),
                        },
                    };
                    Row { reservation, ledger }
                })
                .collect::<Vec<_>>()
        })
    });
    view! {
        <RemoteStatus remote=list what="the reservations"/>
        <DetailsLine progress rows ids=Callback::new(move |()| untrack(ids))/>
        {move || {
            let read_at = list.fetched_at()?;
            // The schedules the ledger adds up, for the FOCUS file: a member's key reads none.
            let details: Vec<ReservationDetail> = match member.get() {
                true => Vec::new(),
                false => ids().into_iter().filter_map(|id| store.detail(id)).collect(),
            };
            rows.get().map(|rows| view! { <LedgerBoard account=Account::of(rows) read_at details label=label.get_value()/> })
        }}
    }
}

/// A detail's failure in a row's words: the error panel's title and the request id.
fn why(error: &ApiError) -> String {
    let title = explain(error, &ErrorContext::default()).title;
    match &error.request_id {
        Some(id) => format!("{title}; request id {id}"),
        None => format!("{title}; no request id sent"),
    }
}

/// How the payments are read: how many are left, the wait the API asked for, and a Retry
/// of those that could not be read.
#[component]
fn DetailsLine(progress: DetailsProgress, rows: Memo<Option<Vec<Row>>>, ids: Callback<(), Vec<i64>>) -> impl IntoView {
    let failed = move || {
        rows.with(|rows| rows.iter().flatten().filter(|r| matches!(r.ledger, Err(Missing::NotRead(_)))).count())
    };
    view! {
        {move || {
            let left = progress.queued().len();
            (left > 0).then(|| view! {
                <p class="remote-line" aria-busy="true">
                    {format!(
                        "Reading the payments: {} still to read, one request at a time.",
                        count(i64::try_from(left).unwrap_or(i64::MAX), "reservation")
                    )}
                </p>
            })
        }}
        {move || progress.waiting().map(|error| view! { <ErrorPanel error/> })}
        {move || {
            let failed = failed();
            (failed > 0 && progress.queued().is_empty()).then(|| view! {
                <p class="remote-line">
                    {format!("{} could not be read; each row says why. ", count(i64::try_from(failed).unwrap_or(i64::MAX), "payment"))}
                    <button type="button" class="link-button" on:click=move |_| progress.read(ids.run(()))>"Read them again"</button>
                </p>
            })
        }}
    }
}

/// The ledger of what was read. Tests mount it with fixture rows.
#[component]
pub fn LedgerBoard(
    account: Account,
    read_at: DateTime<Utc>,
    /// The details read, whose charges the FOCUS file lists (none: no FOCUS button).
    #[prop(optional)]
    details: Vec<ReservationDetail>,
    /// The account's label (empty: the connection's), which each reservation's link names.
    #[prop(optional)]
    label: String,
) -> impl IntoView {
    if !account.rows.is_empty() && !account.shows_payment() {
        return view! { <MemberNote/> }.into_any();
    }
    let now = use_clock().now_untracked();
    let warnings: Vec<String> = account
        .rows
        .iter()
        .filter_map(|r| r.ledger.as_ref().ok().map(|l| (r.reservation.id, l)))
        .flat_map(|(id, l)| l.disagreements.iter().map(move |line| format!("#{id}: {line}")))
        .collect();
    let assumed = account.assumed();
    let unknown = account.unknown_words();
    let total = account.total();
    let for_csv = StoredValue::new(account.clone());
    let focus = (!details.is_empty()).then(|| {
        let details = StoredValue::new(details);
        view! {
            <DownloadButton
                label="Download (FOCUS CSV)"
                filename="charges-focus.csv".to_owned()
                contents=Callback::new(move |()| details.with_value(|d| focus_csv(&d.iter().collect::<Vec<_>>())))
            />
        }
    });
    let rows = account
        .rows
        .into_iter()
        .map(|Row { reservation: r, ledger }| {
            let status = reservation_status(&r, now);
            let figures = match ledger {
                Ok(l) => view! { <Figures sums=Some(l.sums)/> }.into_any(),
                Err(why) => view! {
                    <td colspan="7" class="ledger-unknown" data-label="Ledger"><ApiText text=format!("Unknown: {}.", why.words())/></td>
                }
                .into_any(),
            };
            view! {
                <tr>
                    <th scope="row" data-label="Reservation">
                        <a class="row-link" href=reservation_address(&label, r.id, "", &[])>{format!("#{}", r.id)}</a>
                        " " <StatusBadge label=status.label tone=status.tone/>
                        <span class="cell-sub"><CutText text=format!("{} · {}", r.region_id, r.gpu_type)/></span>
                    </th>
                    {figures}
                </tr>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <section class="panel ledger" aria-labelledby="ledger-title">
            // Printed only: the head of the statement.
            <div class="print-only statement-head">
                <p>"Term ledger of the account"</p>
                <p>{format!("Read from the API at {}; every date in UTC, every amount at whole cents.", format_time(read_at, Zone::Utc))}</p>
            </div>
            <div class="panel-head">
                <h1 id="ledger-title">"Term ledger"</h1>
                <div class="page-actions">
                    <span class="muted">"Shown to the account owner only"</span>
                    <DownloadButton
                        label="Download the ledger (CSV)"
                        filename="term-ledger.csv".to_owned()
                        contents=Callback::new(move |()| for_csv.with_value(ledger_csv))
                    />
                    {focus}
                    <button type="button" class="button button-secondary" on:click=|_| print()>"Print"</button>
                </div>
            </div>
            <p class="muted">
                "What each reservation's term commits (the sum of its payment schedule) and where it stands. "
                "The parts add up to the committed total; the advance covers charges as the API applies it."
            </p>
            <DataTable
                class="data-table stack-table ledger-table"
                scroller=Scroller::Named("The term ledger of each reservation".to_owned())
                columns=vec![
                    Column::text("Reservation"),
                    Column::figures("Committed for the term"),
                    Column::figures("Paid"),
                    Column::figures("Invoiced, unpaid"),
                    Column::figures("Scheduled"),
                    Column::figures("Waived"),
                    Column::figures("Covered by the advance"),
                    Column::figures("Advance remaining"),
                ]
                foot=move || view! {
                    <tr class="sum-row">
                        <th scope="row" data-label="Reservation">"Account"</th>
                        <Figures sums=total/>
                    </tr>
                }
            >
                {rows}
            </DataTable>
            {unknown.map(|text| view! { <p class="ledger-note tone-text-warning"><ApiText text/></p> })}
            {assumed.map(|text| view! { <p class="ledger-note muted">{text}</p> })}
            {(!warnings.is_empty()).then(|| view! {
                <ul class="schedule-issues tone-text-warning" aria-label="Where the ledger's figures disagree">
                    {warnings.into_iter().map(|line| view! { <li>{line}</li> }).collect::<Vec<_>>()}
                </ul>
            })}
        </section>
    }
    .into_any()
}

/// One row's amounts; `None` (the account's, while a reservation's ledger is unknown) says
/// unknown in each, never 0.
#[component]
fn Figures(sums: Option<Sums>) -> impl IntoView {
    let cell = move |label: &'static str, amount: Option<crate::api::money::Usd>, sub: Option<String>| {
        view! {
            <td class="num" data-label=label>
                {match amount {
                    Some(amount) => view! { <Money amount/> }.into_any(),
                    None => view! { <span class="muted">"unknown"</span> }.into_any(),
                }}
                {sub.map(|text| view! { <span class="cell-sub">{text}</span> })}
            </td>
        }
    };
    let pick = |f: fn(&Sums) -> crate::api::money::Usd| sums.as_ref().map(f);
    let note = |amount: crate::api::money::Usd, what: &str| (!amount.is_zero()).then(|| format!("{amount} {what}"));
    let unaccounted = sums.as_ref().and_then(|s| note(s.unaccounted(), "⚠ in no part"));
    let unrecognised = sums.as_ref().and_then(|s| note(s.unrecognised, "of an unrecognised status"));
    let committed_sub = match (unrecognised, unaccounted) {
        (Some(a), Some(b)) => Some(format!("{a} · {b}")),
        (a, b) => a.or(b),
    };
    let past_due = sums.as_ref().and_then(|s| note(s.past_due, OVERDUE_RULE));
    view! {
        {cell("Committed for the term", pick(|s| s.committed), committed_sub)}
        {cell("Paid", pick(|s| s.paid), None)}
        {cell("Invoiced, unpaid", pick(|s| s.invoiced_unpaid), past_due)}
        {cell("Scheduled", pick(|s| s.scheduled), None)}
        {cell("Waived", pick(|s| s.waived), None)}
        {cell("Covered by the advance", pick(|s| s.covered_by_advance), None)}
        {cell("Advance remaining", pick(|s| s.advance_remaining), None)}
    }
}

/// The browser's print dialog: the page prints as the statement.
fn print() {
    if let Some(window) = web_sys::window() {
        let _ = window.print();
    }
}

#[component]
fn MemberNote() -> impl IntoView {
    view! {
        <section class="panel member-billing" aria-labelledby="ledger-title">
            <h1 id="ledger-title">"Term ledger"</h1>
            <p>
                "The term ledger is the account owner's. This key belongs to a member, so what the "
                "terms commit, what is paid and what is owed are not shown; the owner sees them here "
                "with their key."
            </p>
        </section>
    }
}
