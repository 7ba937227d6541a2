//! CSV exports (RFC 4180: CRLF line ends). Every cell of API text is quoted, whatever it
//! holds: a spreadsheet in a locale whose separator is `;` (or tab) splits unquoted fields on
//! it, so `x;=HYPERLINK(…)` would become a formula cell there. A text cell that a spreadsheet
//! would run as a formula (starting, after any blanks, with `=`, `+`, `-`, `@`, or with a
//! tab, carriage return or line feed) is prefixed with `'`. Numbers and times are written by
//! the console itself and are left bare, so they stay numbers.

use super::capacity::in_use;
use super::ledger::{Account, Sums};
use crate::api::models::{NodesResponse, Payment, Timestamp};

/// A cell as written: `Text` goes through the formula guard, `Number` does not (a negative
/// amount must stay a number).
enum Cell {
    Text(String),
    Number(String),
}

fn text(s: impl Into<String>) -> Cell {
    Cell::Text(s.into())
}

fn number(s: impl ToString) -> Cell {
    Cell::Number(s.to_string())
}

fn time(t: Option<Timestamp>) -> Cell {
    Cell::Number(t.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_default())
}

/// Whether a spreadsheet could take the text as a formula (some trim leading blanks first).
fn looks_like_formula(s: &str) -> bool {
    s.starts_with(['\t', '\r', '\n']) || s.trim_start().starts_with(['=', '+', '-', '@', '＝', '＋', '－', '＠'])
}

fn escape(cell: &Cell) -> String {
    match cell {
        Cell::Text(s) => {
            let guarded = if looks_like_formula(s) { format!("'{s}") } else { s.clone() };
            format!("\"{}\"", guarded.replace('"', "\"\""))
        }
        Cell::Number(s) => s.clone(),
    }
}

fn write_csv(header: &[&str], rows: impl IntoIterator<Item = Vec<Cell>>) -> String {
    let mut out = header.join(",");
    out.push_str("\r\n");
    for row in rows {
        out.push_str(&row.iter().map(escape).collect::<Vec<_>>().join(","));
        out.push_str("\r\n");
    }
    out
}

/// Every charge of the schedule, one per line, amounts as plain decimals.
pub fn charges_csv(payment: &Payment) -> String {
    const HEADER: [&str; 11] = [
        "period_index",
        "adjustment",
        "period_start",
        "period_end",
        "status",
        "gpu_amount_usd",
        "storage_amount_usd",
        "amount_usd",
        "advance_applied_usd",
        "due_at",
        "paid_at",
    ];
    write_csv(
        &HEADER,
        payment.charges.iter().map(|c| {
            vec![
                number(c.period_index),
                number(c.adjustment),
                time(Some(c.period_start)),
                time(Some(c.period_end)),
                text(c.status.as_str()),
                number(c.gpu_amount_usd.to_plain_string()),
                number(c.storage_amount_usd.to_plain_string()),
                number(c.amount_usd.to_plain_string()),
                number(c.advance_applied_usd.to_plain_string()),
                time(c.due_at),
                time(c.paid_at),
            ]
        }),
    )
}

/// The account's term ledger: one line per reservation, then one for the account, amounts
/// as plain decimals at whole cents. An unknown ledger writes `unknown` in every amount and
/// why in `note`, never 0; a known one notes its ⚠ lines and the rounding assumed.
pub fn ledger_csv(account: &Account) -> String {
    const HEADER: [&str; 15] = [
        "reservation_id",
        "region_id",
        "gpu_type",
        "status",
        "committed_usd",
        "paid_usd",
        "invoiced_unpaid_usd",
        "past_due_usd",
        "scheduled_usd",
        "waived_usd",
        "covered_by_advance_usd",
        "unrecognised_usd",
        "advance_usd",
        "advance_remaining_usd",
        "note",
    ];
    let amounts = |sums: Option<Sums>| -> Vec<Cell> {
        match sums {
            Some(s) => [
                s.committed,
                s.paid,
                s.invoiced_unpaid,
                s.past_due,
                s.scheduled,
                s.waived,
                s.covered_by_advance,
                s.unrecognised,
                s.advance,
                s.advance_remaining,
            ]
            .into_iter()
            .map(|amount| number(amount.to_plain_string()))
            .collect(),
            None => (0..10).map(|_| text("unknown")).collect(),
        }
    };
    let mut rows: Vec<Vec<Cell>> = account
        .rows
        .iter()
        .map(|row| {
            let r = &row.reservation;
            let mut cells = vec![number(r.id), text(&r.region_id), text(&r.gpu_type), text(r.status.as_str())];
            let (sums, note) = match &row.ledger {
                Ok(ledger) => {
                    let mut notes = ledger.disagreements.clone();
                    notes.extend(ledger.assumed().map(str::to_owned));
                    (Some(ledger.sums), notes.join(" "))
                }
                Err(missing) => (None, format!("unknown: {}", missing.words())),
            };
            cells.extend(amounts(sums));
            cells.push(text(note));
            cells
        })
        .collect();
    let mut total = vec![text("account"), text(""), text(""), text("")];
    total.extend(amounts(account.total()));
    total.push(text(account.unknown_words().unwrap_or_default()));
    rows.push(total);
    write_csv(&HEADER, rows)
}

/// One line per workload (a node without workloads gets one line with the workload columns
/// empty). When the region could not be read, GPUs in use say `unknown`.
pub fn placement_csv(response: &NodesResponse) -> String {
    const HEADER: [&str; 9] = [
        "node",
        "state",
        "gpus",
        "gpus_in_use",
        "workload_kind",
        "workload_id",
        "workload_name",
        "workload_gpus",
        "billing",
    ];
    let mut rows = Vec::new();
    for node in &response.nodes {
        let used = || match in_use(node, response.workloads_unknown) {
            Some(n) => number(n),
            None => text("unknown"),
        };
        let node_cells = || vec![text(&node.display_name), text(node.state.as_str()), number(node.gpus), used()];
        if node.workloads.is_empty() {
            let mut row = node_cells();
            row.extend((0..5).map(|_| text("")));
            rows.push(row);
        }
        for w in &node.workloads {
            let mut row = node_cells();
            row.extend([
                text(w.kind.as_str()),
                number(w.id),
                text(&w.name),
                number(w.gpus),
                text(w.billing.as_ref().map(|b| b.as_str()).unwrap_or("")),
            ]);
            rows.push(row);
        }
    }
    write_csv(&HEADER, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn charges_are_one_line_each_with_plain_amounts() {
        let payment: Payment = serde_json::from_value(json!({
            "rate_usd_per_gpu_hour": 1.25, "drive_rate_usd_per_gib_month": 0, "fs_rate_usd_per_gib_month": 0,
            "funding": "invoice", "advance_usd": 29200, "advance_remaining_usd": 29200,
            "charges": [{
                "period_index": 1, "adjustment": false,
                "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
                "gpu_amount_usd": 29760, "storage_amount_usd": 0, "amount_usd": 29760,
                "advance_applied_usd": 0, "status": "paid", "paid_at": "2026-12-01T09:30:00Z"
            }]
        }))
        .unwrap();
        assert_eq!(
            charges_csv(&payment),
            "period_index,adjustment,period_start,period_end,status,gpu_amount_usd,storage_amount_usd,amount_usd,advance_applied_usd,due_at,paid_at\r\n\
             1,false,2026-12-01T00:00:00Z,2027-01-01T00:00:00Z,\"paid\",29760.00,0.00,29760.00,0.00,,2026-12-01T09:30:00Z\r\n"
        );
    }

    #[test]
    fn the_ledger_is_one_line_per_reservation_and_one_for_the_account_unknown_never_zero() {
        use crate::domain::ledger::{ledger, Missing, Row};
        let mut seed: serde_json::Value = serde_json::from_str(crate::api::models::tests::SEED_DETAIL).unwrap();
        // A short GPU type keeps the expected lines readable.
        seed["gpu_type"] = "RTX-PRO-6000".into();
        seed["payment"]["charges"] = json!([
            { "period_index": 0, "period_start": "2026-11-01T00:00:00Z", "period_end": "2026-12-01T00:00:00Z",
              "gpu_amount_usd": 28800, "storage_amount_usd": 0, "amount_usd": 28800, "advance_applied_usd": 0, "status": "paid" },
            { "period_index": 1, "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
              "gpu_amount_usd": 29760.004, "storage_amount_usd": 0, "amount_usd": 29760.004, "advance_applied_usd": 0, "status": "past_due" },
            { "period_index": 2, "period_start": "2027-01-01T00:00:00Z", "period_end": "2027-02-01T00:00:00Z",
              "gpu_amount_usd": 29760, "storage_amount_usd": 0, "amount_usd": 29760, "advance_applied_usd": 0, "status": "waived" }
        ]);
        let detail: crate::api::models::ReservationDetail = serde_json::from_value(seed).unwrap();
        let mut awaiting = detail.reservation.clone();
        awaiting.id = 3;
        let account = Account::of(vec![
            Row { ledger: ledger(&detail), reservation: detail.reservation.clone() },
            Row { reservation: awaiting, ledger: Err(Missing::AwaitingFirstInvoice) },
        ]);
        let csv = ledger_csv(&account);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines, [
            "reservation_id,region_id,gpu_type,status,committed_usd,paid_usd,invoiced_unpaid_usd,past_due_usd,scheduled_usd,waived_usd,covered_by_advance_usd,unrecognised_usd,advance_usd,advance_remaining_usd,note",
            "12,\"atl\",\"RTX-PRO-6000\",\"active\",88320.00,28800.00,29760.00,29760.00,0.00,29760.00,0.00,0.00,29200.00,29200.00,\"assumed: each charge counted at its whole cents, as an invoice shows it (the API sent more digits)\"",
            "3,\"atl\",\"RTX-PRO-6000\",\"active\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown: its schedule is laid out once its first invoice is paid\"",
            "\"account\",\"\",\"\",\"\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"Unknown while a reservation's ledger is: #3: its schedule is laid out once its first invoice is paid.\"",
            ""
        ]);
        let known = Account::of(account.rows[..1].to_vec());
        assert!(ledger_csv(&known).ends_with(
            "\r\n\"account\",\"\",\"\",\"\",88320.00,28800.00,29760.00,29760.00,0.00,29760.00,0.00,0.00,29200.00,29200.00,\"\"\r\n"
        ));
    }

    #[test]
    fn placement_lists_every_workload_and_empty_nodes_once() {
        let nodes: NodesResponse = serde_json::from_value(json!({
            "nodes": [
                { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 6, "workloads": [
                    { "kind": "gpu_cluster", "id": 418, "name": "train-run-7", "gpus": 4, "billing": "reserved" },
                    { "kind": "gpu_instance", "id": 902, "name": "notebook", "gpus": 2 } ] },
                { "display_name": "node-2", "state": "under_maintenance", "gpus": 8, "gpus_in_use": 0, "workloads": [] }
            ],
            "workloads_unknown": false
        }))
        .unwrap();
        let csv = placement_csv(&nodes);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(
            lines,
            [
                "node,state,gpus,gpus_in_use,workload_kind,workload_id,workload_name,workload_gpus,billing",
                r#""node-1","ready",8,6,"gpu_cluster",418,"train-run-7",4,"reserved""#,
                r#""node-1","ready",8,6,"gpu_instance",902,"notebook",2,"""#,
                r#""node-2","under_maintenance",8,0,"","","","","""#,
                ""
            ]
        );
    }

    #[test]
    fn an_unreachable_region_exports_unknown_use_not_zero() {
        let nodes: NodesResponse = serde_json::from_str(
            r#"{"nodes":[{"display_name":"n","state":"ready","gpus":8,"gpus_in_use":0}],"workloads_unknown":true}"#,
        )
        .unwrap();
        assert!(placement_csv(&nodes).contains("\r\n\"n\",\"ready\",8,\"unknown\",\"\",\"\",\"\",\"\",\"\"\r\n"));
    }

    #[test]
    fn quotes_separators_and_guards_against_formulas() {
        let nodes: NodesResponse = serde_json::from_value(json!({
            "nodes": [{ "display_name": "=HYPERLINK(\"x\")", "state": "ready", "gpus": -1, "gpus_in_use": 0, "workloads": [
                { "kind": "gpu_instance", "id": -3, "name": "a,b\nc", "gpus": 1 },
                { "kind": "gpu_instance", "id": 4, "name": "@sum", "gpus": 1 },
                { "kind": "gpu_instance", "id": 5, "name": "-2+3", "gpus": 1 } ] }]
        }))
        .unwrap();
        let csv = placement_csv(&nodes);
        assert!(csv.contains("\"'=HYPERLINK(\"\"x\"\")\",\"ready\",-1,0,\"gpu_instance\",-3,\"a,b\nc\",1,"), "{csv}");
        assert!(csv.contains(",4,\"'@sum\",1,"), "{csv}");
        assert!(csv.contains(",5,\"'-2+3\",1,"), "{csv}");
    }

    #[test]
    fn text_is_quoted_for_semicolon_locales_and_blank_led_formulas_are_guarded() {
        let nodes: NodesResponse = serde_json::from_value(json!({
            "nodes": [{ "display_name": "x;=HYPERLINK(1)", "state": "ready", "gpus": 1, "gpus_in_use": 0, "workloads": [
                { "kind": "gpu_instance", "id": 1, "name": " =1+1", "gpus": 1 },
                { "kind": "gpu_instance", "id": 2, "name": "\n=1+1", "gpus": 1 },
                { "kind": "gpu_instance", "id": 3, "name": "a\tb", "gpus": 1 } ] }]
        }))
        .unwrap();
        let csv = placement_csv(&nodes);
        // In a `;` locale an unquoted `x;=HYPERLINK(1)` splits into a formula cell.
        assert!(csv.contains("\r\n\"x;=HYPERLINK(1)\",\"ready\","), "{csv}");
        assert!(csv.contains(",1,\"' =1+1\",1,"), "{csv}");
        assert!(csv.contains(",2,\"'\n=1+1\",1,"), "{csv}");
        assert!(csv.contains(",3,\"a\tb\",1,"), "{csv}");
        for line in csv.split("\r\n").skip(1).filter(|l| !l.is_empty()) {
            assert!(line.starts_with('"'), "{line}");
        }
    }
}
