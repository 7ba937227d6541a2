//! A reservation's payment panel, shown to the owner only: the schedule checked against the
//! terms (next charge, first invoice, ledger facts), its chart, its table and CSV export.

use crate::api::enums::Funding;
use crate::api::models::{Charge, FirstInvoice, Payment, ReservationDetail};
use crate::api::money::Usd;
use crate::components::api_text::ApiText;
use crate::components::bar_chart::{Bar, BarChart};
use crate::components::data_table::{Column, DataTable, Scroller};
use crate::components::download_button::DownloadButton;
use crate::components::money::Money;
use crate::components::status_badge::StatusBadge;
use crate::components::time::{Period, UtcDate};
use crate::domain::exports::csv::charges_csv;
use crate::domain::exports::focus::focus_csv;
use crate::domain::money::billing::{
    check_advance, check_charge, check_next_charge, check_schedule, unstated_due, NextCharge as NextChargeCheck,
};
use crate::domain::money::ledger::{ledger, Ledger, Part};
use crate::domain::status::{charge_status, Tone};
use crate::domain::words::time::{format_period, format_time, format_utc_date, month_and_short_year, term_text};
use crate::state::use_clock;
use leptos::prelude::*;

/// Funding method and what it means for paying.
fn funding_text(funding: &Funding) -> (String, &'static str) {
    match funding {
        Funding::Wallet => ("Wallet".into(), "Each period is taken from the account's credit when it starts."),
        Funding::Invoice => ("Invoice".into(), "Each period is invoiced; pay it under Billing → Invoices."),
        Funding::Unknown(raw) => (format!("{raw} (unrecognised)"), "A funding method this console does not know yet."),
    }
}

#[component]
pub fn PaymentPanel(detail: ReservationDetail, payment: Payment) -> impl IntoView {
    let id = detail.reservation.id;
    let (funding, funding_note) = funding_text(&payment.funding);
    let advance = check_advance(&detail, &payment);
    let term_ledger = ledger(&detail).ok();
    let for_csv = StoredValue::new(payment.clone());
    let for_focus = StoredValue::new(detail.clone());
    let first_invoice = detail.first_invoice().cloned();
    let charges = payment.charges.clone();
    let awaiting = detail.reservation.starts_at.is_none();
    let next_charge = check_next_charge(&payment, &detail.reservation.status);
    let schedule_issues = check_schedule(&detail, &payment);
    let statement = statement_lines(&detail, use_clock().now_untracked());
    view! {
        <section class="panel payment" aria-labelledby="payment-title">
            // Printed only (style/main.css): the section prints as the owner's statement. Its
            // lines hold the API's type, region and contract.
            <div class="print-only statement-head">
                {statement.into_iter().map(|line| view! { <p><ApiText text=line/></p> }).collect::<Vec<_>>()}
            </div>
            <div class="panel-head">
                <h2 id="payment-title">"Payment"</h2>
                <div class="page-actions">
                    <span class="muted">"Shown to the account owner only"</span>
                    <a class="button button-secondary" href="/ledger">"The account's term ledger"</a>
                    {(!charges.is_empty()).then(|| view! {
                        <DownloadButton
                            label="Download charges (CSV)"
                            filename=format!("reservation-{id}-charges.csv")
                            contents=Callback::new(move |()| for_csv.with_value(charges_csv))
                        />
                        <DownloadButton
                            label="Download (FOCUS CSV)"
                            filename=format!("reservation-{id}-focus.csv")
                            contents=Callback::new(move |()| for_focus.with_value(|d| focus_csv(&[d])))
                        />
                    })}
                </div>
            </div>
            <dl class="facts">
                <div><dt>"GPU rate"</dt><dd><Money amount=payment.rate_usd_per_gpu_hour/>" per GPU-hour"</dd></div>
                <div><dt>"Cloud drive rate"</dt><dd><StorageRate rate=payment.drive_rate_usd_per_gib_month/></dd></div>
                <div><dt>"Shared filesystem rate"</dt><dd><StorageRate rate=payment.fs_rate_usd_per_gib_month/></dd></div>
                <div>
                    <dt>"Funding"</dt>
                    <dd>{funding}<span class="sub">{funding_note}</span></dd>
                </div>
                <div>
                    <dt>"Advance"</dt>
                    <dd>
                        <Money amount=payment.advance_usd/>
                        <Check matches=advance.matches note=advance.note unchecked=None/>
                    </dd>
                </div>
                <div>
                    <dt>"Advance remaining"</dt>
                    <dd><Money amount=payment.advance_remaining_usd/></dd>
                </div>
                <div class="fact-wide">
                    <dt>"Next charge"</dt>
                    <dd><NextChargeFact check=next_charge funding=payment.funding.clone()/></dd>
                </div>
                {first_invoice.map(|invoice| view! { <FirstInvoiceFact invoice/> })}
            </dl>
            {(!schedule_issues.is_empty()).then(|| view! {
                <ul class="schedule-issues tone-text-warning" aria-label="The schedule as a whole">
                    {schedule_issues.into_iter().map(|line| view! { <li>{line}</li> }).collect::<Vec<_>>()}
                </ul>
            })}
            {term_ledger.map(|ledger| view! { <LedgerFacts ledger/> })}
            {if charges.is_empty() {
                view! {
                    <p class="panel-note">
                        {if awaiting {
                            "No charges yet: the schedule is laid out from the first invoice's payment."
                        } else {
                            "No charges in the schedule."
                        }}
                    </p>
                }.into_any()
            } else {
                view! {
                    <ChargesChart charges=charges.clone()/>
                    <ChargesTable detail payment/>
                }.into_any()
            }}
        </section>
    }
}

/// The head of the printed statement: which reservation, its terms, and when the figures
/// were read, all in UTC.
fn statement_lines(detail: &ReservationDetail, read_at: chrono::DateTime<chrono::Utc>) -> Vec<String> {
    let r = &detail.reservation;
    let term = match (r.starts_at, r.ends_at) {
        (Some(start), Some(end)) => format!("{} → {}", format_utc_date(start), format_utc_date(end)),
        _ => "no dates yet (they start when the first invoice is paid)".to_owned(),
    };
    vec![
        format!(
            "Statement of reservation #{}{}",
            r.id,
            r.contract_ref.as_ref().map(|c| format!(" · contract {c}")).unwrap_or_default()
        ),
        format!(
            "{} × {} in region {} · {} · term {term} (UTC)",
            r.reserved_gpus,
            r.gpu_type,
            r.region_id,
            term_text(r)
        ),
        format!(
            "Read from the API at {}; every date in UTC.",
            format_time(read_at, crate::domain::words::time::Zone::Utc)
        ),
    ]
}

/// `next_charge` as sent, worded by the reservation's state, ⚠ with both values when it is
/// not the earliest unpaid entry of the schedule.
#[component]
fn NextChargeFact(check: NextChargeCheck, funding: Funding) -> impl IntoView {
    let warn = |text: String| view! { <span class="sub tone-text-warning">{text}</span> };
    let describe = |c: &Charge| {
        format!("period {} ({}, {})", c.period_index, format_period(c.period_start, c.period_end), c.amount_usd)
    };
    match check {
        NextChargeCheck::Agrees(charge) => view! { <NextCharge charge funding/> }.into_any(),
        NextChargeCheck::Disagrees { sent, earliest_unpaid } => {
            let text = match &earliest_unpaid {
                Some(e) => format!(
                    "⚠ The API sends {} as next, but the earliest unpaid charge is {}.",
                    describe(&sent),
                    describe(e)
                ),
                None => {
                    format!("⚠ The API sends {} as next, but no charge of the schedule is unpaid.", describe(&sent))
                }
            };
            view! { <NextCharge charge=sent funding/> {warn(text)} }.into_any()
        }
        NextChargeCheck::NoneUntilFirstInvoicePaid
        | NextChargeCheck::NoneNoChargeListed
        | NextChargeCheck::NoneLeftToPay { .. } => view! { <span>{check.none_words()}</span> }.into_any(),
        NextChargeCheck::NoneButUnpaid(earliest) => view! {
            <span>"None sent"</span>
            {warn(format!("⚠ The API sends no next charge, but {} is unpaid.", describe(&earliest)))}
        }
        .into_any(),
    }
}

/// A storage rate per GiB-month, or that the API did not send it.
#[component]
fn StorageRate(rate: Option<Usd>) -> impl IntoView {
    match rate {
        Some(amount) => view! { <Money amount/>" per GiB-month" }.into_any(),
        None => view! { <span class="muted">"not sent"</span> }.into_any(),
    }
}

#[component]
fn NextCharge(charge: Charge, funding: Funding) -> impl IntoView {
    let (status, tone) = charge_status(&charge.status);
    let expected = unstated_due(&charge, &funding);
    view! {
        <Period start=charge.period_start end=charge.period_end/>
        <span class="sub num">{format!(" (period_index {} as sent)", charge.period_index)}</span>
        " · " <Money amount=charge.amount_usd/> " "
        <StatusBadge label=status tone/>
        {charge.due_at.map(|at| view! { <span class="sub">"due " <UtcDate at/></span> })}
        {expected.map(|text| view! { <span class="sub due-expected">{text}</span> })}
    }
}

#[component]
fn FirstInvoiceFact(invoice: FirstInvoice) -> impl IntoView {
    let state = match (invoice.issued, invoice.paid_at) {
        (_, Some(at)) => view! { <span class="sub tone-text-ok">"Paid " <UtcDate at/></span> }.into_any(),
        (false, None) => view! {
            <span class="sub tone-text-warning">"Being created: pay it under Billing → Invoices once it appears."</span>
        }
        .into_any(),
        (true, None) => view! {
            <span class="sub tone-text-warning">
                "Unpaid"
                {invoice.due_at.map(|at| view! { ", due " <UtcDate at/> })}
                " — pay it under Billing → Invoices."
            </span>
        }
        .into_any(),
    };
    view! {
        <div class="fact-wide">
            <dt>"First invoice (advance + first period)"</dt>
            <dd><Money amount=invoice.amount_usd/>{state}</dd>
        </div>
    }
}

/// ✓ only when every checked part matches and none went unchecked; ⚠ when one differs;
/// otherwise it says what could not be checked. The arithmetic follows.
#[component]
fn Check(matches: bool, note: String, unchecked: Option<String>) -> impl IntoView {
    let (class, mark, verdict) = match (matches, &unchecked) {
        (false, _) => ("charge-check check-off", "⚠ ", "does not match the terms"),
        (true, Some(_)) => ("charge-check check-partial", "? ", "not fully checked"),
        (true, None) => ("charge-check check-ok", "✓ ", "matches the terms"),
    };
    view! {
        <span class=class>
            <span aria-hidden="true">{mark}</span>
            {verdict}
            <span class="check-note">{note}{unchecked.map(|why| format!(" {why}"))}</span>
        </span>
    }
}

/// The term ledger: the committed total and its parts, which add up to it to the cent; a
/// part no figure accounts for and every disagreement of the API's figures is a ⚠ line.
#[component]
fn LedgerFacts(ledger: Ledger) -> impl IntoView {
    let sums = ledger.sums;
    let unaccounted = sums.unaccounted();
    view! {
        <div class="term-ledger">
            <dl class="totals" aria-label="The term ledger">
                {sums
                    .labelled_parts()
                    .into_iter()
                    .filter(|part| !part.amount.is_zero())
                    .map(|Part { label, amount, .. }| view! { <div><dt>{label}</dt><dd><Money amount/></dd></div> })
                    .collect::<Vec<_>>()}
                {(!sums.past_due.is_zero()).then(|| view! {
                    <div><dt>"of which past due"</dt><dd class="tone-text-danger"><Money amount=sums.past_due/></dd></div>
                })}
                {(!unaccounted.is_zero()).then(|| view! {
                    <div><dt>"⚠ In no part"</dt><dd class="tone-text-warning"><Money amount=unaccounted/></dd></div>
                })}
                <div class="totals-total"><dt>"Committed for the term"</dt><dd><Money amount=sums.committed/></dd></div>
            </dl>
            {(!ledger.unrecognised_statuses.is_empty()).then(|| view! {
                <p class="sub muted">
                    "Unrecognised status as sent: " <ApiText text=ledger.unrecognised_statuses.join(", ")/> "."
                </p>
            })}
            {ledger.assumed().map(|text| view! { <p class="sub muted">{text}</p> })}
            {(!ledger.disagreements.is_empty()).then(|| view! {
                <ul class="schedule-issues tone-text-warning" aria-label="Where the ledger's figures disagree">
                    {ledger.disagreements.into_iter().map(|line| view! { <li>{line}</li> }).collect::<Vec<_>>()}
                </ul>
            })}
        </div>
    }
}

/// One bar per period (adjustments added to their period), coloured by the period's status.
#[component]
fn ChargesChart(charges: Vec<Charge>) -> impl IntoView {
    let mut periods: Vec<(i64, Vec<&Charge>)> = Vec::new();
    for c in &charges {
        match periods.iter_mut().find(|(index, _)| *index == c.period_index) {
            Some((_, list)) => list.push(c),
            None => periods.push((c.period_index, vec![c])),
        }
    }
    periods.sort_by_key(|(index, _)| *index);
    let mut legend: Vec<(Tone, String)> = Vec::new();
    let bars = periods
        .iter()
        .map(|(index, list)| {
            let main = list.iter().find(|c| !c.adjustment).unwrap_or(&list[0]);
            let (status, tone) = charge_status(&main.status);
            // One legend entry per colour: "Scheduled / Waived" share one.
            match legend.iter_mut().find(|(t, _)| *t == tone) {
                Some((_, words)) if !words.split(" / ").any(|w| w == status) => {
                    words.push_str(" / ");
                    words.push_str(&status);
                }
                Some(_) => {}
                None => legend.push((tone, status.clone())),
            }
            let amount = list.iter().map(|c| c.amount_usd).sum();
            let adjusted = if list.len() > 1 { " (with adjustment)" } else { "" };
            Bar {
                label: month_and_short_year(main.period_start),
                value: amount,
                tone,
                title: format!(
                    "Period {index} · {} · {amount}{adjusted} · {status}",
                    format_period(main.period_start, main.period_end)
                ),
            }
        })
        .collect::<Vec<_>>();
    let summary = format!("Charges per period, {} periods; the table below lists each amount.", bars.len());
    view! { <BarChart bars summary legend/> }
}

#[component]
fn ChargesTable(detail: ReservationDetail, payment: Payment) -> impl IntoView {
    let mut charges = payment.charges.clone();
    charges.sort_by_key(|c| (c.period_index, c.adjustment, c.period_start));
    let rows = charges
        .into_iter()
        .map(|c| {
            let check = check_charge(&c, &detail, &payment);
            let (status, tone) = charge_status(&c.status);
            view! {
                <tr class:adjustment=c.adjustment>
                    <td data-label="Period">
                        <strong class="num">{format!("#{}", c.period_index)}</strong>
                        " "
                        {c.adjustment.then(|| view! { <span class="badge tone-info">"Adjustment"</span> })}
                        <span class="cell-sub"><Period start=c.period_start end=c.period_end/></span>
                    </td>
                    <td data-label="GPUs" class="num"><Money amount=c.gpu_amount_usd/></td>
                    <td data-label="Storage" class="num"><Money amount=c.storage_amount_usd/></td>
                    <td data-label="Amount" class="num"><strong><Money amount=c.amount_usd/></strong></td>
                    <td data-label="Advance applied" class="num"><Money amount=c.advance_applied_usd/></td>
                    <td data-label="Status">
                        <StatusBadge label=status tone/>
                        {c.due_at.map(|at| view! { <span class="cell-sub nowrap">"due " <UtcDate at/></span> })}
                        {c.paid_at.map(|at| view! { <span class="cell-sub nowrap">"paid " <UtcDate at/></span> })}
                    </td>
                    <td data-label="Check"><Check matches=check.matches note=check.note unchecked=check.unchecked/></td>
                </tr>
            }
        })
        .collect::<Vec<_>>();
    // The table scrolls sideways where it is wider than the screen: focusable and named, so
    // a keyboard can scroll it too.
    view! {
        <DataTable
            class="data-table stack-table charges-table"
            scroller=Scroller::Named("Charges per billing period".to_owned())
            caption="Charges per billing period (dates in UTC, last day included)"
            columns=vec![
                Column::text("Period (UTC)"),
                Column::figures("GPUs"),
                Column::figures("Storage"),
                Column::figures("Amount"),
                Column::figures("Advance applied"),
                Column::text("Status"),
                Column::text("Check: GPU hours × rate, storage GiB-months × rate, total"),
            ]
        >
            {rows}
        </DataTable>
    }
}
