//! CSV exports (RFC 4180: CRLF line ends). Every cell of API text is quoted, whatever it
//! holds, and guarded against formulas: a text cell, or any piece of it that follows a `;`,
//! tab or line break, that a spreadsheet would run as a formula (starting, after any blanks
//! or quotes, with `=`, `+`, `-`, `@`, or with a tab, carriage return or line feed) is
//! prefixed with `'`. The pieces matter because a spreadsheet in a locale whose separator is
//! `;` (German, French) splits a line at every `;` when the file does not say its separator,
//! quotes or not: `"nb;=1+1;x"` would give it a cell `=1+1`. Numbers and times are written by
//! the console itself and are left bare, so they stay numbers, except a negative one that
//! starts a line, where such a reader starts a cell too.

use crate::api::models::{NodesResponse, Payment, Timestamp};
use crate::domain::fleet::history::History;
use crate::domain::money::ledger::{Account, Sums};
use crate::domain::nodes::capacity::in_use;

/// A cell as written: `Text` goes through the formula guard, `Number` does not (a negative
/// amount must stay a number).
pub(super) enum Cell {
    Text(String),
    Number(String),
}

pub(super) fn text(s: impl Into<String>) -> Cell {
    Cell::Text(s.into())
}

pub(super) fn number(s: impl ToString) -> Cell {
    Cell::Number(s.to_string())
}

pub(super) fn time(t: Option<Timestamp>) -> Cell {
    Cell::Number(t.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_default())
}

/// Where a spreadsheet may cut a line whatever the quotes: at `;` or tab where its locale's
/// separator is one, and at a line break.
const LOOSE_CUTS: [char; 4] = [';', '\t', '\r', '\n'];

/// Whether a spreadsheet could take the text as a formula: some skip leading blanks, and one
/// that cut a quoted cell sees its quotes.
fn looks_like_formula(s: &str) -> bool {
    s.trim_start_matches(|c: char| c == '"' || (c.is_whitespace() && !LOOSE_CUTS.contains(&c)))
        .starts_with(['\t', '\r', '\n', '=', '+', '-', '@', '＝', '＋', '－', '＠'])
}

/// `s` with `'` before the text and before each piece after a [`LOOSE_CUTS`] character,
/// wherever that piece could be taken as a formula.
fn guarded(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 1);
    for piece in s.split_inclusive(LOOSE_CUTS) {
        if looks_like_formula(piece) {
            out.push('\'');
        }
        out.push_str(piece);
    }
    out
}

fn escape(cell: &Cell, starts_line: bool) -> String {
    match cell {
        Cell::Number(s) if !(starts_line && looks_like_formula(s)) => s.clone(),
        Cell::Text(s) | Cell::Number(s) => format!("\"{}\"", guarded(s).replace('"', "\"\"")),
    }
}

pub(super) fn write_csv(header: &[&str], rows: impl IntoIterator<Item = Vec<Cell>>) -> String {
    let mut out = header.join(",");
    out.push_str("\r\n");
    for row in rows {
        out.push_str(&row.iter().enumerate().map(|(i, cell)| escape(cell, i == 0)).collect::<Vec<_>>().join(","));
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

/// The amount columns of the ledger after `committed_usd` that are not parts of it, each
/// named so: past due is within invoiced and unpaid; the advance pays parts.
const NOT_PARTS: [&str; 3] = ["not_a_part_past_due_usd", "not_a_part_advance_usd", "not_a_part_advance_remaining_usd"];

/// The account's term ledger: one line per reservation, then one for the account, amounts
/// as plain decimals at whole cents. The `part_…` columns add up to `committed_usd` on every
/// line (`part_unaccounted_usd` is what no other part accounts for, ⚠ in `note`); the
/// `not_a_part_…` ones are not to be added. An unknown ledger writes `unknown` in every
/// amount and why in `note`, never 0; a known one notes its ⚠ lines and the rounding assumed.
pub fn ledger_csv(account: &Account) -> String {
    let parts = Sums::default().labelled_parts().map(|part| part.column);
    let mut header = vec!["reservation_id", "region_id", "gpu_type", "status", "committed_usd"];
    header.extend(parts);
    header.push("part_unaccounted_usd");
    header.extend(NOT_PARTS);
    header.push("note");
    let amounts = |sums: Option<Sums>| -> Vec<Cell> {
        match sums {
            Some(s) => std::iter::once(s.committed)
                .chain(s.labelled_parts().map(|part| part.amount))
                .chain([s.unaccounted(), s.past_due, s.advance, s.advance_remaining])
                .map(|amount| number(amount.to_plain_string()))
                .collect(),
            None => (0..1 + parts.len() + 1 + NOT_PARTS.len()).map(|_| text("unknown")).collect(),
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
    write_csv(&header, rows)
}

/// One line per workload (a node without workloads gets one line with the workload columns
/// empty). When the region could not be read, GPUs in use say `unknown`. The nodes the
/// decoder set apart follow, one line each, flagged by why in `unreadable` (empty for the
/// nodes read), their GPUs in use (and GPUs, when that count was absurd) `unknown`.
pub fn placement_csv(response: &NodesResponse) -> String {
    const HEADER: [&str; 10] = [
        "node",
        "state",
        "gpus",
        "gpus_in_use",
        "workload_kind",
        "workload_id",
        "workload_name",
        "workload_gpus",
        "billing",
        "unreadable",
    ];
    let no_workload = || (0..5).map(|_| text(""));
    let mut rows = Vec::new();
    for node in &response.nodes {
        let used = || match in_use(node, response.workloads_unknown) {
            Some(n) => number(n),
            None => text("unknown"),
        };
        let node_cells = || vec![text(&node.display_name), text(node.state.as_str()), number(node.gpus), used()];
        if node.workloads.is_empty() {
            let mut row = node_cells();
            row.extend(no_workload());
            row.push(text(""));
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
                text(""),
            ]);
            rows.push(row);
        }
    }
    for node in &response.unreadable_nodes {
        let gpus = node.gpus.map_or_else(|| text("unknown"), number);
        let mut row = vec![text(&node.display_name), text(node.state.as_str()), gpus, text("unknown")];
        row.extend(no_workload());
        row.push(text(&node.why));
        rows.push(row);
    }
    write_csv(&HEADER, rows)
}

/// The overview's utilization history: one line per point, shares in percent.
pub fn history_csv(histories: &[(i64, &History)]) -> String {
    const HEADER: [&str; 6] = ["time_utc", "reservation", "mean_percent", "min_percent", "max_percent", "samples"];
    let percent = |share: f64| number(format!("{:.1}", share * 100.0));
    let rows = histories.iter().flat_map(|(id, history)| {
        history.points().iter().map(move |p| {
            vec![time(Some(p.at)), number(id), percent(p.mean), percent(p.min), percent(p.max), number(p.samples)]
        })
    });
    write_csv(&HEADER, rows)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_utilization_history_has_one_line_per_point_in_percent() {
        let mut h = History::default();
        let start = chrono::DateTime::parse_from_rfc3339("2026-12-02T00:00:00Z").unwrap().to_utc();
        h.record(start, 0.25);
        assert_eq!(
            history_csv(&[(12, &h)]),
            "time_utc,reservation,mean_percent,min_percent,max_percent,samples\r\n2026-12-02T00:00:00Z,12,25.0,25.0,25.0,1\r\n"
        );
    }

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
        use crate::domain::money::ledger::{ledger, Missing, Row};
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
            "reservation_id,region_id,gpu_type,status,committed_usd,part_paid_usd,part_invoiced_unpaid_usd,part_scheduled_usd,part_waived_usd,part_covered_by_advance_usd,part_unrecognised_usd,part_unaccounted_usd,not_a_part_past_due_usd,not_a_part_advance_usd,not_a_part_advance_remaining_usd,note",
            "12,\"atl\",\"RTX-PRO-6000\",\"active\",88320.00,28800.00,29760.00,0.00,29760.00,0.00,0.00,0.00,29760.00,29200.00,29200.00,\"assumed: each charge counted at its whole cents, as an invoice shows it (the API sent more digits)\"",
            "3,\"atl\",\"RTX-PRO-6000\",\"active\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown: its schedule is laid out once its first invoice is paid\"",
            "\"account\",\"\",\"\",\"\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"unknown\",\"Unknown while a reservation's ledger is: #3: its schedule is laid out once its first invoice is paid.\"",
            ""
        ]);
        let known = Account::of(account.rows[..1].to_vec());
        assert!(ledger_csv(&known).ends_with(
            "\r\n\"account\",\"\",\"\",\"\",88320.00,28800.00,29760.00,0.00,29760.00,0.00,0.00,0.00,29760.00,29200.00,29200.00,\"\"\r\n"
        ));
    }

    #[test]
    fn placement_lists_every_workload_empty_nodes_once_and_the_nodes_set_apart_flagged_with_why() {
        let nodes: NodesResponse = serde_json::from_value(json!({
            "nodes": [
                { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 6, "workloads": [
                    { "kind": "gpu_cluster", "id": 418, "name": "train-run-7", "gpus": 4, "billing": "reserved" },
                    { "kind": "gpu_instance", "id": 902, "name": "notebook", "gpus": 2 } ] },
                { "display_name": "node-2", "state": "under_maintenance", "gpus": 8, "gpus_in_use": 0, "workloads": [] },
                // Set apart by the decoder: a count not whole, a workload larger than its node.
                { "display_name": "b", "state": "ready", "gpus": 8.5, "gpus_in_use": 0 },
                { "display_name": "c", "state": "preparing", "gpus": 8, "gpus_in_use": 0, "workloads": [
                    { "kind": "gpu_instance", "id": 7, "name": "big", "gpus": 9 } ] }
            ],
            "workloads_unknown": false
        }))
        .unwrap();
        let csv = placement_csv(&nodes);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(
            lines,
            [
                "node,state,gpus,gpus_in_use,workload_kind,workload_id,workload_name,workload_gpus,billing,unreadable",
                r#""node-1","ready",8,6,"gpu_cluster",418,"train-run-7",4,"reserved","""#,
                r#""node-1","ready",8,6,"gpu_instance",902,"notebook",2,"","""#,
                r#""node-2","under_maintenance",8,0,"","","","","","""#,
                r#""b","ready","unknown","unknown","","","","","","gpus: 8.5 is not a whole number""#,
                r#""c","preparing",8,"unknown","","","","","","workload #7 gpus: 9 on a node of 8""#,
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
        assert!(placement_csv(&nodes).contains("\r\n\"n\",\"ready\",8,\"unknown\",\"\",\"\",\"\",\"\",\"\",\"\"\r\n"));
    }

    /// The cells a spreadsheet sees that splits each line at `separator` whatever the quotes
    /// (German or French ones split at `;` when the file does not say its separator): lines
    /// broken at every CR or LF too, and each cell's leading blanks and quotes dropped, as a
    /// lenient reader might.
    fn loose_cells(csv: &str, separator: char) -> Vec<String> {
        csv.split(['\r', '\n'])
            .flat_map(|line| line.split(separator))
            .map(|cell| cell.trim_start_matches([' ', '"']).to_owned())
            .collect()
    }

    /// No cell of `csv`, read loosely at `;` or at tab, would run as a formula.
    pub(crate) fn assert_no_loose_formula(csv: &str) {
        for separator in [';', '\t'] {
            for cell in loose_cells(csv, separator) {
                assert!(
                    !cell.starts_with(['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠']),
                    "a cell {cell:?} when split at {separator:?}:\n{csv}"
                );
            }
        }
    }

    /// API text that becomes a formula cell where `;` (or tab) splits a line, quotes or not.
    pub(crate) const LOOSE_FORMULAS: [&str; 8] =
        ["nb;=1+1;x", "a; +1", "a;\"=1\"", "a;\t=1", "a\n-1", "a\r@x", ";@SUM(1)", "x;－1"];

    #[test]
    fn no_export_holds_a_formula_cell_when_read_split_at_every_semicolon_or_tab() {
        let workloads: Vec<serde_json::Value> = LOOSE_FORMULAS
            .iter()
            .enumerate()
            .map(|(i, name)| json!({ "kind": name, "id": i, "name": name, "gpus": 1, "billing": name }))
            .collect();
        let nodes: NodesResponse = serde_json::from_value(json!({
            "nodes": [
                { "display_name": "nb;=1+1;x", "state": "x;=1", "gpus": 8, "gpus_in_use": 8, "workloads": workloads },
                { "display_name": "a;-1", "state": "ready", "gpus": 8.5, "gpus_in_use": 0 }
            ]
        }))
        .unwrap();
        assert_no_loose_formula(&placement_csv(&nodes));

        let mut seed: serde_json::Value = serde_json::from_str(crate::api::models::tests::SEED_DETAIL).unwrap();
        seed["payment"]["charges"] = json!([
            { "period_index": -1, "period_start": "2026-11-01T00:00:00Z", "period_end": "2026-12-01T00:00:00Z",
              "gpu_amount_usd": -5, "storage_amount_usd": 0, "amount_usd": -5, "advance_applied_usd": 0, "status": "x;=1" }
        ]);
        let detail: crate::api::models::ReservationDetail = serde_json::from_value(seed).unwrap();
        assert_no_loose_formula(&charges_csv(detail.payment.as_ref().unwrap()));

        use crate::domain::money::ledger::{ledger, Row};
        let rows = LOOSE_FORMULAS.iter().enumerate().map(|(i, text)| {
            let mut reservation = detail.reservation.clone();
            reservation.id = -(i as i64);
            reservation.region_id = (*text).to_owned();
            reservation.gpu_type = (*text).to_owned();
            reservation.status = serde_json::from_value(json!(text)).unwrap();
            Row { ledger: ledger(&detail), reservation }
        });
        assert_no_loose_formula(&ledger_csv(&Account::of(rows.collect())));
        let mut history = History::default();
        history.record(chrono::DateTime::parse_from_rfc3339("2026-12-02T00:00:00Z").unwrap().to_utc(), 0.25);
        assert_no_loose_formula(&history_csv(&[(-1, &history)]));
    }

    /// The cells of a CSV line, as an RFC 4180 reader splits it at `,`.
    pub(crate) fn fields(line: &str) -> Vec<String> {
        let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    cell.push('"');
                    chars.next();
                }
                ('"', _) => quoted = !quoted,
                (',', false) => cells.push(std::mem::take(&mut cell)),
                _ => cell.push(c),
            }
        }
        cells.push(cell);
        cells
    }

    #[test]
    fn the_ledger_columns_named_parts_add_up_to_the_committed_total_and_the_others_say_they_are_not_parts() {
        use crate::api::money::Usd;
        use crate::domain::money::ledger::tests::one_of_each_status;
        use crate::domain::money::ledger::{ledger, Row};
        // July's charge is marked covered, but only 600 of it applied: 400 is in no part.
        let detail = one_of_each_status(600.0);
        let row = Row { ledger: ledger(&detail), reservation: detail.reservation.clone() };
        let csv = ledger_csv(&Account::of(vec![row.clone(), row]));
        let lines: Vec<Vec<String>> = csv.split("\r\n").filter(|l| !l.is_empty()).map(fields).collect();
        let header = &lines[0];
        // Amounts at whole cents: "1234.56".
        let amount = |line: &[String], column: usize| {
            Usd::from_cents(line[column].replace('.', "").parse().unwrap_or_else(|_| panic!("{line:?}")))
        };
        let committed = header.iter().position(|h| h == "committed_usd").unwrap();
        let parts: Vec<usize> = (0..header.len()).filter(|i| header[*i].starts_with("part_")).collect();
        for column in header.iter().filter(|h| h.ends_with("_usd")) {
            assert!(
                column == "committed_usd" || column.starts_with("part_") || column.starts_with("not_a_part_"),
                "{column}: neither the total, a part of it, nor named as not a part"
            );
        }
        assert_eq!(lines.len(), 4, "{csv}");
        for line in &lines[1..] {
            let sum: Usd = parts.iter().map(|i| amount(line, *i)).sum();
            assert_eq!(sum, amount(line, committed), "{line:?}");
        }
        let column = |name: &str| amount(&lines[1], header.iter().position(|h| h == name).unwrap());
        assert_eq!(column("part_unaccounted_usd"), Usd::from_cents(40_000));
        assert_eq!(column("not_a_part_past_due_usd"), Usd::from_cents(100_000));
        assert_eq!(column("not_a_part_advance_usd"), Usd::from_cents(150_000));
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
    fn text_is_quoted_and_formulas_after_blanks_semicolons_or_line_breaks_are_guarded() {
        let nodes: NodesResponse = serde_json::from_value(json!({
            "nodes": [{ "display_name": "x;=HYPERLINK(1)", "state": "ready", "gpus": 1, "gpus_in_use": 0, "workloads": [
                { "kind": "gpu_instance", "id": 1, "name": " =1+1", "gpus": 1 },
                { "kind": "gpu_instance", "id": 2, "name": "\n=1+1", "gpus": 1 },
                { "kind": "gpu_instance", "id": 3, "name": "a\tb", "gpus": 1 } ] }]
        }))
        .unwrap();
        let csv = placement_csv(&nodes);
        // A `;` locale splits `x;=HYPERLINK(1)` into a formula cell, quoted or not.
        assert!(csv.contains("\r\n\"x;'=HYPERLINK(1)\",\"ready\","), "{csv}");
        assert!(csv.contains(",1,\"' =1+1\",1,"), "{csv}");
        // A reader that breaks the line there sees `=1+1` start a line: guarded too.
        assert!(csv.contains(",2,\"'\n'=1+1\",1,"), "{csv}");
        assert!(csv.contains(",3,\"a\tb\",1,"), "{csv}");
        for line in csv.split("\r\n").skip(1).filter(|l| !l.is_empty()) {
            assert!(line.starts_with('"'), "{line}");
        }
    }
}
