//! "Copy summary": what the overview, "what stops when", `/fit` and `/capacity` show, as text
//! to paste into a chat or a ticket (Markdown, or plain text). Built from the values the page
//! draws, in its own words (`domain::words::shown`), with when it was read ("as of … UTC") and the
//! page's address, which never holds a key. Money is written only when the builder is told to:
//! a member's copy never, the owner's only when asked.

use crate::api::assumptions::MARK;
use crate::api::models::{Reservation, Timestamp};
use crate::domain::fleet::fit::{fits_caveat, Judged, Question, Verdict};
use crate::domain::fleet::{Accrual, CostView, Fleet, GpuSplit, IdleCost};
use crate::domain::nodes::grid::kind_label;
use crate::domain::status::reservation_status;
use crate::domain::terms::at_risk::{Deadline, Stopping, Workloads, ANCHOR};
use crate::domain::words::address::{query_replacing, query_value};
use crate::domain::words::shown::{
    averted_by_words, deadline_countdown, idle_cost_text, renewal_keeps, rooms_text, split_cells, stretches_text,
    sum_text, LaneView, OverlapCost, Shown, TermRow, COST_UNKNOWN, NOT_CHARGED_YET, OWNER_ONLY, RATE_NOT_READ,
    SPLIT_COLUMNS, SUM_NOT_READ, WORKLOADS_LISTED,
};
use crate::domain::words::text::visible_controls;
use crate::domain::words::time::{format_time, Zone};
use crate::domain::words::{count, figure};

/// How the copy is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Plain,
}

/// A table as the page draws it: its head, then one row of cells per line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One piece of a summary, in the page's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    Heading(String),
    Text(String),
    Table(Table),
}

/// A page's figures as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub title: String,
    /// The page's path and query on the console ("/fit?gpus=4"): the console's own address.
    pub path: String,
    /// When what it says was on the page.
    pub as_of: Timestamp,
    pub blocks: Vec<Block>,
}

impl Summary {
    /// The summary in `format`, its address on the console at `origin` ("https://console.example").
    pub fn render(&self, format: Format, origin: &str) -> String {
        let as_of = format!("As of {}: {origin}{}", format_time(self.as_of, Zone::Utc), self.path);
        let mut out = match format {
            Format::Markdown => format!("# {}\n\n{}\n", markdown(&self.title), markdown(&as_of)),
            Format::Plain => format!("{}\n{}\n", plain(&self.title), plain(&as_of)),
        };
        for block in &self.blocks {
            out.push('\n');
            match (format, block) {
                (Format::Markdown, Block::Heading(h)) => out.push_str(&format!("## {}\n", markdown(h))),
                (Format::Plain, Block::Heading(h)) => out.push_str(&format!("{}\n", plain(h))),
                (Format::Markdown, Block::Text(t)) => out.push_str(&format!("{}\n", markdown(t))),
                (Format::Plain, Block::Text(t)) => out.push_str(&format!("{}\n", plain(t))),
                (Format::Markdown, Block::Table(t)) => markdown_table(&mut out, t),
                (Format::Plain, Block::Table(t)) => plain_table(&mut out, t),
            }
        }
        out
    }
}

/// Text as plain text: bidirectional controls made visible, on one line.
fn plain(text: &str) -> String {
    visible_controls(text).replace(['\r', '\n'], " ")
}

/// Text as Markdown: what [`plain`] gives, with every character Markdown would read as
/// markup escaped, so that API text (a workload's name) cannot turn into a link, an emphasis,
/// a table cell or a formula ("$…$" where math is rendered).
fn markdown(text: &str) -> String {
    let mut out = String::new();
    for c in plain(text).chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '$' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn markdown_table(out: &mut String, table: &Table) {
    let line =
        |cells: &[String]| format!("| {} |\n", cells.iter().map(|c| markdown(c)).collect::<Vec<_>>().join(" | "));
    out.push_str(&line(&table.head));
    out.push_str(&format!("|{}\n", " --- |".repeat(table.head.len())));
    for row in &table.rows {
        out.push_str(&line(row));
    }
}

/// A row per line: its first cell, then each other column's name and value.
fn plain_table(out: &mut String, table: &Table) {
    for row in &table.rows {
        let rest: Vec<String> =
            table.head.iter().zip(row).skip(1).map(|(h, c)| format!("{}: {}", plain(h), plain(c))).collect();
        out.push_str(&format!("- {}: {}\n", plain(row.first().map_or("", String::as_str)), rest.join(" · ")));
    }
}

fn strings<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|c| (*c).to_owned()).collect()
}

/// "read 2 Dec 2026, 09:29 UTC", or "not read yet".
fn read_text(at: Option<Timestamp>) -> String {
    at.map_or_else(|| "not read yet".to_owned(), |at| format!("read {}", format_time(at, Zone::Utc)))
}

/// What a copy made before the reservations arrive says.
const STILL_READING: &str = "The reservations are still being read.";

/// One reservation of the overview's rows, and when its nodes were last read.
#[derive(Clone, Copy, Debug)]
pub struct FleetRow<'a> {
    pub reservation: &'a Reservation,
    pub read_at: Option<Timestamp>,
}

/// The overview: the sum line, the split by region and by GPU type, each reservation's split;
/// with `amounts` (an owner's choice), what the idle GPUs cost.
pub fn overview(fleet: &Fleet, rows: &[FleetRow], amounts: bool, now: Timestamp) -> Summary {
    let mut blocks = vec![Block::Heading("Reserved GPUs".to_owned()), Block::Text(sum_text(&fleet.total))];
    let costs = match (&fleet.cost, amounts) {
        (CostView::Owner { per_reservation, launchable, closed, closed_assumed, use_unknown, rate_unknown }, true) => {
            blocks.push(Block::Text(idle_cost_text(*launchable, *closed, *closed_assumed, use_unknown, rate_unknown)));
            Some(per_reservation)
        }
        _ => None,
    };
    let split_table = |name: &str, splits: &std::collections::BTreeMap<String, GpuSplit>| {
        let mut head = vec![name.to_owned()];
        head.extend(SPLIT_COLUMNS.map(str::to_owned));
        let line = |name: &str, split: &GpuSplit| {
            let mut row = vec![name.to_owned()];
            row.extend(split_cells(split));
            row
        };
        let mut rows: Vec<Vec<String>> = splits.iter().map(|(n, s)| line(n, s)).collect();
        rows.push(line("All", &fleet.total));
        Block::Table(Table { head, rows })
    };
    blocks.push(Block::Heading("By region".to_owned()));
    blocks.push(split_table("Region", &fleet.by_region));
    blocks.push(Block::Heading("By GPU type".to_owned()));
    blocks.push(split_table("GPU type", &fleet.by_gpu_type));
    blocks.push(Block::Heading("By reservation".to_owned()));
    let mut head = vec!["Reservation".to_owned()];
    head.extend(SPLIT_COLUMNS.map(str::to_owned));
    if costs.is_some() {
        head.push("Idle cost".to_owned());
    }
    head.push("Figures".to_owned());
    let rows = rows
        .iter()
        .map(|FleetRow { reservation: r, read_at }| {
            let split = fleet.per_reservation.iter().find(|(id, _)| *id == r.id).map_or(GpuSplit::unread(r), |s| s.1);
            let mut row =
                vec![format!("#{} {} · {} · {}", r.id, reservation_status(r, now).label, r.region_id, r.gpu_type)];
            row.extend(split_cells(&split));
            if let Some(costs) = costs {
                let cost = costs.iter().find(|(id, _)| *id == r.id).map(|c| c.1);
                row.push(idle_cost_cell(cost, Accrual::of(&r.status)));
            }
            row.push(read_text(*read_at));
            row
        })
        .collect();
    blocks.push(Block::Table(Table { head, rows }));
    Summary { title: "Overview".to_owned(), path: "/overview".to_owned(), as_of: now, blocks }
}

/// A reservation's idle cost as its cell on the overview reads (`None`: its rate is not read).
fn idle_cost_cell(cost: Option<Option<IdleCost>>, accrual: Accrual) -> String {
    match cost {
        Some(Some(_)) if accrual == Accrual::NotCharged => NOT_CHARGED_YET.to_owned(),
        Some(Some(c)) => format!("{}/h ({}/day)", c.per_hour, c.per_day),
        Some(None) => COST_UNKNOWN.to_owned(),
        None => RATE_NOT_READ.to_owned(),
    }
}

/// "What stops when" at `path` (the overview's, or one reservation's detail): each deadline,
/// its countdown and UTC time, what it stops; the owner's remedy with its sum only with
/// `amounts`. `None`: still being read.
pub fn what_stops_when(shown: Option<&[Shown]>, owner: bool, amounts: bool, path: &str, now: Timestamp) -> Summary {
    let mut blocks = Vec::new();
    match shown {
        None => blocks.push(Block::Text(STILL_READING.to_owned())),
        Some([]) => blocks.push(Block::Text(
            "No deadline ahead: no past-due stop, no term end, no amendment lowering nodes.".to_owned(),
        )),
        Some(list) => {
            for Shown { risk, averted_by } in list {
                blocks.push(Block::Heading(format!("#{} · {}", risk.reservation, risk.title(owner))));
                blocks.push(Block::Text(format!(
                    "{} · {}",
                    deadline_countdown(now, risk.at),
                    format_time(risk.at, Zone::Utc)
                )));
                let assumed = risk.assumption().map(|text| format!(" {text}")).unwrap_or_default();
                blocks.push(Block::Text(format!("{}{assumed}", risk.scope())));
                if let Some(table) = workloads_table(&risk.workloads) {
                    blocks.extend(table);
                }
                let remedy = match (&risk.deadline, averted_by) {
                    (Deadline::PastDue, Some((sum, settle))) => {
                        let (before, after) = averted_by_words(settle);
                        let sum = if amounts { sum.to_string() } else { "sum".to_owned() };
                        Some(format!("{before}{sum}{after}"))
                    }
                    (Deadline::PastDue, None) if owner => Some(SUM_NOT_READ.to_owned()),
                    (Deadline::PastDue, None) => Some(OWNER_ONLY.to_owned()),
                    (Deadline::TermEnds { renewal }, _) => {
                        Some(format!("{}({MARK} pairing)", renewal_keeps(renewal, risk.at)))
                    }
                    (Deadline::NodesLowered { .. }, _) => None,
                };
                blocks.extend(remedy.map(Block::Text));
            }
        }
    }
    Summary { title: "What stops when".to_owned(), path: format!("{path}#{ANCHOR}"), as_of: now, blocks }
}

/// The workloads a deadline would stop, as its table lists them, and how many more.
fn workloads_table(workloads: &Workloads) -> Option<Vec<Block>> {
    let known: &[Stopping] = match workloads {
        Workloads::Known(known) | Workloads::Partly { known, .. } => known,
        Workloads::Unknown(_) => &[],
    };
    if known.is_empty() {
        return None;
    }
    let rows = known
        .iter()
        .take(WORKLOADS_LISTED)
        .map(|w| vec![w.name.clone(), kind_label(&w.kind), figure(w.gpus), w.nodes.join(", ")])
        .collect();
    let mut blocks = vec![Block::Table(Table { head: strings(["Workload", "Kind", "GPUs", "Nodes"]), rows })];
    let more = known.len().saturating_sub(WORKLOADS_LISTED);
    if more > 0 {
        blocks.push(Block::Text(format!("and {} more", count(more, "workload"))));
    }
    Some(blocks)
}

/// The question's own keys of `/fit`'s query, in its order: nothing else the address held.
pub fn fit_path(query: &str) -> String {
    let pairs: Vec<(&str, String)> =
        ["gpus", "replicas", "type", "region"].iter().filter_map(|k| Some((*k, query_value(query, k)?))).collect();
    format!("/fit{}", query_replacing("", &pairs))
}

/// `/fit`'s verdicts, best first, as the page lists them. No money: the page shows none.
pub fn fit(question: &Question, judged: &[(Judged, Option<Reservation>)], path: String, now: Timestamp) -> Summary {
    let rows = judged
        .iter()
        .map(|(j, r)| {
            let place = r.as_ref().map(|r| format!(" {} · {}", r.region_id, r.gpu_type)).unwrap_or_default();
            let mut why = j.verdict.reason(question);
            if let Verdict::FitsNow { rooms, .. } = &j.verdict {
                why.push_str(&format!(" ({})", rooms_text(rooms)));
            }
            vec![format!("#{}{place}", j.reservation_id), j.verdict.label().to_owned(), why, read_text(j.read_at)]
        })
        .collect();
    let mut blocks = vec![
        Block::Text(format!("Room for {} on one node each.", question.text())),
        Block::Table(Table { head: strings(["Reservation", "Verdict", "Why", "Nodes read"]), rows }),
    ];
    blocks.extend(fits_caveat(judged.iter().map(|(j, _)| &j.verdict)).map(|c| Block::Text(c.to_owned())));
    Summary { title: "Where GPUs fit now".to_owned(), path, as_of: now, blocks }
}

/// `/capacity`'s lanes: each its stretches in words and its terms' table; `costs` (the
/// owner's, when amounts are asked for) prices each overlap.
pub fn capacity(
    lanes: Option<&[LaneView]>,
    costs: Option<&dyn Fn(&TermRow) -> OverlapCost>,
    now: Timestamp,
) -> Summary {
    let mut blocks = Vec::new();
    match lanes {
        None => blocks.push(Block::Text(STILL_READING.to_owned())),
        Some([]) => blocks.push(Block::Text("No reservation has a term still to come.".to_owned())),
        Some(_) => {}
    }
    for lane in lanes.unwrap_or_default() {
        blocks.push(Block::Heading(format!("{} · {}", lane.region, lane.gpu_type)));
        blocks.push(Block::Text(stretches_text(&lane.stretches)));
        blocks.extend(lane.unread_text().map(Block::Text));
        let mut head = strings(["Reservation", "GPUs", "Term (UTC)", "Renewal"]);
        if costs.is_some() {
            head.push("Reserved twice costs".to_owned());
        }
        let rows = lane
            .rows
            .iter()
            .map(|r| {
                let gpus = match &r.changes {
                    Some(changes) => format!("{} ({changes})", figure(r.gpus)),
                    None => figure(r.gpus),
                };
                let mut row = vec![format!("#{}", r.id), gpus, r.term_text(), r.told.clone()];
                if let Some(costs) = costs {
                    row.push(match costs(r) {
                        OverlapCost::Priced { amount, how } => format!("{amount} ({how}, {MARK})"),
                        missing => missing.missing_text().unwrap_or_default(),
                    });
                }
                row
            })
            .collect();
        blocks.push(Block::Table(Table { head, rows }));
    }
    Summary { title: "Capacity over the coming terms".to_owned(), path: "/capacity".to_owned(), as_of: now, blocks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::enums::ReservationStatus;
    use crate::api::models::tests::SEED_NODES;
    use crate::api::models::NodesResponse;
    use crate::api::money::Usd;
    use crate::domain::fleet::tests::reservation;
    use crate::domain::fleet::Entry;
    use chrono::TimeZone;

    fn now() -> Timestamp {
        chrono::Utc.with_ymd_and_hms(2026, 12, 2, 9, 30, 0).unwrap()
    }

    /// Reservation 12 (atl, seed 004's nodes: 6 in use, 2 free, 8 under maintenance) and 9
    /// (ams, not read), each at `rate` when the owner's key read it.
    fn fleet_of(rate: Option<Usd>) -> (Fleet, Vec<Reservation>) {
        let list = vec![
            reservation(12, ReservationStatus::Active, "atl", "RTX", 16),
            reservation(9, ReservationStatus::Active, "ams", "H100", 8),
        ];
        let nodes: NodesResponse = serde_json::from_str(SEED_NODES).unwrap();
        let entries = [
            Entry { reservation: &list[0], nodes: Some(&nodes), rate },
            Entry { reservation: &list[1], nodes: None, rate },
        ];
        (Fleet::of(&entries), list)
    }

    fn overview_text(rate: Option<Usd>, amounts: bool, format: Format) -> String {
        let (fleet, list) = fleet_of(rate);
        let rows: Vec<FleetRow> = list.iter().map(|r| FleetRow { reservation: r, read_at: Some(now()) }).collect();
        overview(&fleet, &rows, amounts, now()).render(format, "https://console.example")
    }

    #[test]
    fn the_overview_copy_holds_the_sums_when_and_where_and_a_table_per_split() {
        let text = overview_text(None, false, Format::Markdown);
        assert!(
            text.starts_with("# Overview\n\nAs of 2 Dec 2026, 09:30 UTC: https://console.example/overview\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "24 GPUs = 6 in use + 2 free to launch on + 0 idle, launches closed + 8 not available + 8 unknown"
            ),
            "{text}"
        );
        assert!(text.contains("| Region | Reserved | In use | Free to launch on | Idle, launches closed | Not available | Unknown |\n| --- | --- | --- | --- | --- | --- | --- |\n| ams | 8 | 0 | 0 | 0 | 0 | 8 |\n| atl | 16 | 6 | 2 | 0 | 8 | 0 |\n| All | 24 | 6 | 2 | 0 | 8 | 8 |\n"), "{text}");
        assert!(text.contains("read 2 Dec 2026, 09:30 UTC"), "{text}");
    }

    #[test]
    fn money_is_copied_only_for_the_owner_who_asks_for_it() {
        let rate = Usd::from_cents(125);
        let member = overview_text(None, true, Format::Plain);
        let owner_without = overview_text(Some(rate), false, Format::Plain);
        let owner_with = overview_text(Some(rate), true, Format::Plain);
        assert!(!member.contains('$'), "a member's key reads no rate: {member}");
        assert!(!owner_without.contains('$'), "amounts not asked for: {owner_without}");
        assert!(
            owner_with.contains(
                "$2.50/h of reserved capacity is idle and open to launches ($60.00 a day): free GPUs on ready nodes × \
                 each reservation's GPU rate, as last read. Not counted: #9, whose GPUs' use is unknown (not read \
                 yet, or the region could not be reached)."
            ),
            "{owner_with}"
        );
        assert!(owner_with.contains("Idle cost: $2.50/h ($60.00/day)"), "{owner_with}");
        assert!(owner_with.contains("Idle cost: unknown"), "#9 not read: unknown, never $0.00: {owner_with}");
    }

    #[test]
    fn plain_text_writes_each_row_with_its_column_names() {
        let text = overview_text(None, false, Format::Plain);
        assert!(
            text.starts_with("Overview\nAs of 2 Dec 2026, 09:30 UTC: https://console.example/overview\n"),
            "{text}"
        );
        assert!(
            text.contains("- atl: Reserved: 16 · In use: 6 · Free to launch on: 2 · Idle, launches closed: 0 · Not available: 8 · Unknown: 0\n"),
            "{text}"
        );
    }

    #[test]
    fn api_text_cannot_become_markdown_markup_or_hide_behind_bidi_controls() {
        let summary = Summary {
            title: "T".to_owned(),
            path: "/overview".to_owned(),
            as_of: now(),
            blocks: vec![Block::Table(Table {
                head: vec!["Workload".to_owned()],
                rows: vec![vec!["[x](javascript:1) | *b* $1$ <i>\n\u{202E}cba".to_owned()]],
            })],
        };
        let md = summary.render(Format::Markdown, "");
        assert!(md.ends_with("| \\[x\\](javascript:1) \\| \\*b\\* \\$1\\$ \\<i\\> ⟨RLO⟩cba |\n"), "{md}");
        let plain = summary.render(Format::Plain, "");
        assert!(!plain.contains('\u{202E}'), "{plain}");
    }

    #[test]
    fn the_fit_address_keeps_the_question_and_nothing_else() {
        assert_eq!(fit_path("?gpus=4&key=eco_secret&region=atl"), "/fit?gpus=4&region=atl");
        assert_eq!(fit_path(""), "/fit");
    }

    #[test]
    fn what_stops_when_leaves_the_overdue_sum_out_unless_asked() {
        let risk = crate::domain::terms::at_risk::Risk {
            reservation: 8,
            at: now() + chrono::TimeDelta::days(2),
            deadline: Deadline::PastDue,
            workloads: Workloads::Known(Vec::new()),
        };
        let shown =
            [Shown { risk, averted_by: Some((Usd::from_cents(2_976_000), "pay it under Billing → Invoices")) }];
        let with = what_stops_when(Some(&shown), true, true, "/overview", now()).render(Format::Plain, "");
        let without = what_stops_when(Some(&shown), true, false, "/overview", now()).render(Format::Plain, "");
        assert!(with.contains("Averted by paying the $29,760.00 owed"), "{with}");
        assert!(with.contains("in 2 days · 4 Dec 2026, 09:30 UTC"), "{with}");
        assert!(without.contains("Averted by paying the sum owed") && !without.contains('$'), "{without}");
        assert!(with.contains(": /overview#at-risk\n"), "{with}");
    }
}
