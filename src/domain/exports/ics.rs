//! Deadlines to the calendar: an iCalendar file (RFC 5545) of every dated deadline the
//! console knows, each event naming the workloads at risk as of the read and linking back to
//! the console page (an address, never the key).
//!
//! The deadlines are those "what stops when" lists ([`at_risk`]: a past-due stop, a term's
//! end with or without its renewal, an amendment lowering nodes), an org reservation's
//! `endsAt`, and for the owner only the first invoice's and each charge's `due_at` (the
//! charges the ledger adds up). A member's file has no payment event and no amount.
//!
//! RFC 5545 to the letter: CRLF line ends; content lines folded at 75 octets, never inside a
//! UTF-8 character; TEXT escaped (`\`, `;`, `,`, line breaks); times in UTC with `Z`; a UID
//! that names the deadline, not its date, so a second import updates the event; `DTSTAMP` the
//! export's time; reminders 30, 7 and 1 days before, each only when the event is further
//! away than that.

use crate::api::enums::{ChargeStatus, OrgReservationStatus};
use crate::api::escape::percent_encoded;
use crate::api::models::{Charge, Reservation, ReservationDetail, Timestamp};
use crate::api::org::OrgReservation;
use crate::domain::money::billing::period_name;
use crate::domain::money::ledger::OVERDUE_RULE;
use crate::domain::nodes::grid::kind_label;
use crate::domain::terms::at_risk::{at_risk, averted_by, running, Deadline, Risk, Subject, Workloads, ANCHOR};
use crate::domain::words::address::reservation_address;
use crate::domain::words::count;
use crate::domain::words::text::visible_controls;
use crate::domain::words::time::{format_time, Zone};
use chrono::TimeDelta;

/// What the calendar is made of, as the console read it.
#[derive(Clone, Copy, Debug)]
pub struct Deadlines<'a> {
    /// The reservations the file covers, with their amendments and nodes as read.
    pub subjects: &'a [Subject<'a>],
    /// Every reservation of the account, among which renewals are found.
    pub all: &'a [Reservation],
    /// The details read, whose payment gives the owner's payment dates.
    pub details: &'a [&'a ReservationDetail],
    /// The org whose reservations `org` lists, and them (none: the org API not read).
    pub org: Option<(&'a str, &'a [OrgReservation])>,
    /// The owner's key: payment events and amounts. A member's file has neither.
    pub owner: bool,
    /// When what the events say was read.
    pub as_of: Timestamp,
    /// The console's origin (`https://console.example`), for the links back.
    pub origin: &'a str,
}

/// One event of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Names the deadline (not its date): the same across exports.
    pub uid: String,
    pub at: Timestamp,
    pub summary: String,
    pub description: String,
    /// The console page it comes from.
    pub url: String,
}

/// The domain of every UID: the console's, whatever origin serves it.
const UID_DOMAIN: &str = "reservations-console";

/// Every event of `deadlines` at `now` (the export's time): what stops when, soonest first,
/// then the org reservations' ends, then the owner's payment dates.
pub fn events(deadlines: &Deadlines, now: Timestamp) -> Vec<Event> {
    let as_of = format!("As of {} (what the console last read).", format_time(deadlines.as_of, Zone::Utc));
    let detail = |id: i64| deadlines.details.iter().copied().find(|d| d.reservation.id == id);
    let mut out: Vec<Event> = at_risk(deadlines.subjects, deadlines.all, now)
        .iter()
        .map(|risk| risk_event(risk, deadlines, detail(risk.reservation), &as_of))
        .collect();
    if let Some((org, reservations)) = deadlines.org {
        out.extend(reservations.iter().filter_map(|r| org_event(org, r, deadlines.origin, now, &as_of)));
    }
    if deadlines.owner {
        for subject in deadlines.subjects {
            if let Some(detail) = detail(subject.reservation.id) {
                out.extend(payment_events(detail, running(subject.nodes), deadlines.origin, &as_of));
            }
        }
    }
    out
}

/// The `.ics` file of `events`, stamped with `now`.
pub fn calendar(events: &[Event], now: Timestamp) -> String {
    let mut out = String::new();
    for line in
        ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//reservations-console//Deadlines//EN", "CALSCALE:GREGORIAN"]
    {
        fold(line, &mut out);
    }
    for event in events {
        fold("BEGIN:VEVENT", &mut out);
        fold(&format!("UID:{}", text(&event.uid)), &mut out);
        fold(&format!("DTSTAMP:{}", utc(now)), &mut out);
        fold(&format!("DTSTART:{}", utc(event.at)), &mut out);
        fold(&format!("SUMMARY:{}", text(&event.summary)), &mut out);
        fold(&format!("DESCRIPTION:{}", text(&event.description)), &mut out);
        fold(&format!("URL:{}", event.url), &mut out);
        for days in REMINDER_DAYS.into_iter().filter(|days| event.at - now > TimeDelta::days(*days)) {
            fold("BEGIN:VALARM", &mut out);
            fold("ACTION:DISPLAY", &mut out);
            fold(&format!("TRIGGER:-P{days}D"), &mut out);
            fold(&format!("DESCRIPTION:{}", text(&format!("In {}: {}", count(days, "day"), event.summary))), &mut out);
            fold("END:VALARM", &mut out);
        }
        fold("END:VEVENT", &mut out);
    }
    fold("END:VCALENDAR", &mut out);
    out
}

/// Reminders before each event, in days: each only when the event is further away.
const REMINDER_DAYS: [i64; 3] = [30, 7, 1];

/// `20261201T000000Z`: a DATE-TIME in UTC (RFC 5545 §3.3.5, form #2).
fn utc(t: Timestamp) -> String {
    t.format("%Y%m%dT%H%M%SZ").to_string()
}

/// TEXT (RFC 5545 §3.3.11): `\`, `;` and `,` escaped, a line break as `\n`; other control
/// characters, which TEXT does not allow, shown as `�`.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => out.push_str("\\n"),
            '\t' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// `line` written as content lines of at most 75 octets, each continued on the next after a
/// space (§3.1), cut between characters, ended with CRLF. A line never ends in a blank:
/// parsers that trim lines (the `ical` crate, some calendar apps) would lose it, so the
/// blanks before a cut (a few: the next line must hold them) move to the next line.
fn fold(line: &str, out: &mut String) {
    // Octets of the line being written, and how many of them are the fold's own space.
    let (mut octets, mut marker) = (0, 0);
    for c in line.chars() {
        if octets + c.len_utf8() > 75 {
            let mut blanks = 0;
            while octets > marker && blanks < 8 && out.ends_with(' ') {
                out.pop();
                octets -= 1;
                blanks += 1;
            }
            out.push_str("\r\n ");
            out.extend(std::iter::repeat_n(' ', blanks));
            (octets, marker) = (1 + blanks, 1);
        }
        out.push(c);
        octets += c.len_utf8();
    }
    out.push_str("\r\n");
}

/// The address of reservation `id`'s page at `origin`, at `anchor`.
fn reservation_page(origin: &str, id: i64, anchor: &str) -> String {
    format!("{origin}{}#{anchor}", reservation_address("", id, "", &[]))
}

/// The workloads a deadline would stop, one line each, as read.
fn workload_lines(workloads: &Workloads) -> Vec<String> {
    let known = match workloads {
        Workloads::Known(known) | Workloads::Partly { known, .. } => known.as_slice(),
        Workloads::Unknown(_) => &[],
    };
    known
        .iter()
        .map(|w| {
            format!(
                "- {} ({}, {} on {})",
                visible_controls(&w.name),
                visible_controls(&kind_label(&w.kind)),
                count(w.gpus, "GPU"),
                visible_controls(&w.nodes.join(", "))
            )
        })
        .collect()
}

fn risk_event(risk: &Risk, deadlines: &Deadlines, detail: Option<&ReservationDetail>, as_of: &str) -> Event {
    let id = risk.reservation;
    let (uid, what) = match &risk.deadline {
        Deadline::PastDue => (format!("reservation-{id}-past-due-stop"), "past-due".to_owned()),
        Deadline::TermEnds { .. } => (format!("reservation-{id}-term-end"), "term-end".to_owned()),
        Deadline::NodesLowered { .. } => {
            (format!("reservation-{id}-amendment-{}", utc(risk.at)), "amendment".to_owned())
        }
    };
    let mut lines = vec![risk.scope()];
    lines.extend(risk.assumption().map(str::to_owned));
    lines.extend(workload_lines(&risk.workloads));
    let payment = detail.and_then(|d| d.payment.as_ref()).filter(|_| deadlines.owner);
    match (&risk.deadline, averted_by(risk, payment)) {
        (Deadline::PastDue, Some((sum, settle))) => {
            lines.push(format!("Averted by paying the {sum} {OVERDUE_RULE}: {settle}."))
        }
        (Deadline::PastDue, None) if !deadlines.owner => lines.push("Only the account owner can avert it.".to_owned()),
        _ => {}
    }
    lines.push(as_of.to_owned());
    let url = reservation_page(deadlines.origin, id, ANCHOR);
    lines.push(url.clone());
    Event {
        uid: format!("{uid}@{UID_DOMAIN}"),
        at: risk.at,
        summary: format!("#{id}: {} ({what})", risk.title(deadlines.owner)),
        description: lines.join("\n"),
        url,
    }
}

/// An org reservation's end ahead of `now`, unless it is over already (expired, cancelled).
fn org_event(org: &str, r: &OrgReservation, origin: &str, now: Timestamp, as_of: &str) -> Option<Event> {
    let end = r.ends_at.filter(|end| *end > now)?;
    if matches!(r.status, OrgReservationStatus::Expired | OrgReservationStatus::Cancelled) {
        return None;
    }
    let url = format!("{origin}/orgs/{}", percent_encoded(org));
    let units = i64::try_from(r.reserved_unit_ids.len()).unwrap_or(i64::MAX);
    let description = [
        format!(
            "Its {} on node {} stop being reserved to {}.",
            count(units, "unit"),
            visible_controls(&r.node_id),
            visible_controls(&r.allowed_org_ids.join(", "))
        ),
        "Which workloads run on its units is not something the org API says.".to_owned(),
        as_of.to_owned(),
        url.clone(),
    ];
    Some(Event {
        uid: format!("org-{}-reservation-{}-end@{UID_DOMAIN}", percent_encoded(org), percent_encoded(&r.id)),
        at: end,
        summary: format!("Org reservation {} ends", visible_controls(&r.id)),
        description: description.join("\n"),
        url,
    })
}

/// The owner's payment dates of one reservation: its first invoice's and each charge's
/// `due_at`, each naming what runs there now (an unpaid charge pauses launches, and then
/// stops the running workloads at the date the API sets).
fn payment_events(detail: &ReservationDetail, workloads: Workloads, origin: &str, as_of: &str) -> Vec<Event> {
    let id = detail.reservation.id;
    let url = reservation_page(origin, id, "payment-title");
    let mut at_risk = vec![
        "Unpaid past its due date, new launches pause; if it stays unpaid, the running workloads stop at the date the API then sets.".to_owned(),
    ];
    match &workloads {
        Workloads::Unknown(_) => at_risk.push("Which workloads run there now is unknown.".to_owned()),
        Workloads::Known(known) if known.is_empty() => at_risk.push("Nothing runs there now, as read.".to_owned()),
        _ => {
            at_risk.push("Running there now, as read:".to_owned());
            at_risk.extend(workload_lines(&workloads));
        }
    }
    // A payment settled (paid, waived, covered by the advance) puts nothing at risk.
    let event = |uid: String, at: Timestamp, summary: String, first: String, settled: bool| {
        let mut lines = vec![first];
        if settled {
            lines.push("Nothing is at risk from it, as read.".to_owned());
        } else {
            lines.extend(at_risk.iter().cloned());
        }
        lines.push(as_of.to_owned());
        lines.push(url.clone());
        Event { uid: format!("{uid}@{UID_DOMAIN}"), at, summary, description: lines.join("\n"), url: url.clone() }
    };
    let mut out = Vec::new();
    if let Some((invoice, due)) = detail.first_invoice().and_then(|i| Some((i, i.due_at?))) {
        let paid = invoice.paid_at.map_or_else(
            || "Not paid as of the read.".to_owned(),
            |at| format!("Paid {}.", format_time(at, Zone::Utc)),
        );
        out.push(event(
            format!("reservation-{id}-first-invoice"),
            due,
            format!("#{id}: first invoice due, {}", invoice.amount_usd),
            format!("The first invoice (the advance plus the first period): {}. {paid}", invoice.amount_usd),
            invoice.paid_at.is_some(),
        ));
    }
    for c in detail.payment.iter().flat_map(|p| &p.charges) {
        let Some(due) = c.due_at else { continue };
        out.push(event(
            charge_uid(id, c),
            due,
            format!("#{id}: charge due, {}", c.amount_usd),
            format!(
                "{} {}: {}{}; status as read: {}.",
                if c.adjustment { "Adjustment of" } else { "Charge for" },
                period_name(c),
                c.amount_usd,
                if c.advance_applied_usd.is_zero() {
                    String::new()
                } else {
                    format!(", {} of it covered by the advance", c.advance_applied_usd)
                },
                visible_controls(c.status.as_str())
            ),
            c.paid_at.is_some()
                || matches!(c.status, ChargeStatus::Paid | ChargeStatus::Waived | ChargeStatus::CoveredByAdvance),
        ));
    }
    out
}

/// A charge named by its period (start and index, and whether it is an adjustment), which
/// stays when its amount or due date changes.
fn charge_uid(id: i64, c: &Charge) -> String {
    let kind = if c.adjustment { "adjustment" } else { "charge" };
    format!("reservation-{id}-{kind}-{}-{}-due", c.period_index, utc(c.period_start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::enums::ReservationStatus;
    use crate::api::models::NodesResponse;
    use crate::domain::terms::at_risk::tests::at;
    use serde_json::json;

    /// The export's time.
    fn now() -> Timestamp {
        at("2027-01-10T09:00:00Z")
    }

    /// Reservation 12 past due (stops on 20 Jan), ending 1 Nov 2027 with no renewal, an
    /// amendment lowering its nodes on 1 Mar; one charge paid, one past due with a due date,
    /// and its first invoice. Its nodes run a cluster on two nodes.
    fn detail() -> ReservationDetail {
        let mut seed: serde_json::Value = serde_json::from_str(crate::api::models::tests::SEED_DETAIL).unwrap();
        seed["status"] = "past_due".into();
        seed["past_due_since"] = "2027-01-06T00:00:00Z".into();
        seed["stops_at"] = "2027-01-20T00:00:00Z".into();
        seed["amendments"] = json!([{
            "effective_at": "2027-03-01T00:00:00Z", "node_count_before": 4, "node_count_after": 3,
            "drive_quota_gib_before": 5000, "drive_quota_gib_after": 5000,
            "fs_quota_gib_before": 20000, "fs_quota_gib_after": 20000
        }]);
        seed["payment"]["charges"] = json!([
            { "period_index": 0, "period_start": "2026-11-01T00:00:00Z", "period_end": "2026-12-01T00:00:00Z",
              "gpu_amount_usd": 28800, "storage_amount_usd": 0, "amount_usd": 28800, "advance_applied_usd": 0,
              "status": "paid", "due_at": "2026-11-01T00:00:00Z", "paid_at": "2026-11-01T08:00:00Z" },
            { "period_index": 1, "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
              "gpu_amount_usd": 29760, "storage_amount_usd": 0, "amount_usd": 29760, "advance_applied_usd": 0,
              "status": "past_due", "due_at": "2027-01-06T00:00:00Z" },
            { "period_index": 2, "period_start": "2027-01-01T00:00:00Z", "period_end": "2027-02-01T00:00:00Z",
              "gpu_amount_usd": 29760, "storage_amount_usd": 0, "amount_usd": 29760, "advance_applied_usd": 0,
              "status": "scheduled" }
        ]);
        seed["first_invoice"] = json!({ "amount_usd": 58560, "due_at": "2026-10-25T00:00:00Z", "paid_at": "2026-10-24T10:00:00Z", "issued": true });
        serde_json::from_value(seed).unwrap()
    }

    fn nodes() -> NodesResponse {
        serde_json::from_value(json!({
            "nodes": [
                { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 6, "workloads": [
                    { "kind": "gpu_cluster", "id": 418, "name": "train; run,7", "gpus": 4 },
                    { "kind": "gpu_instance", "id": 902, "name": "notebook", "gpus": 2 } ] },
                { "display_name": "node-2", "state": "ready", "gpus": 8, "gpus_in_use": 4, "workloads": [
                    { "kind": "gpu_cluster", "id": 418, "name": "train; run,7", "gpus": 4 } ] }
            ],
            "workloads_unknown": false
        }))
        .unwrap()
    }

    /// One org reservation ending ahead, one with no end, one cancelled.
    fn org() -> Vec<OrgReservation> {
        serde_json::from_str(include_str!("../../../fixtures/org_acme_reservations.json")).unwrap()
    }

    /// The file of `detail` with its nodes, for the owner or a member.
    fn file(detail: &ReservationDetail, owner: bool) -> (Vec<Event>, String) {
        let nodes = nodes();
        let org = org();
        let subjects =
            [Subject { reservation: &detail.reservation, amendments: Some(&detail.amendments), nodes: Some(&nodes) }];
        let all = [detail.reservation.clone()];
        let deadlines = Deadlines {
            subjects: &subjects,
            all: &all,
            details: &[detail],
            org: Some(("org_acme", &org)),
            owner,
            as_of: at("2027-01-10T08:59:30Z"),
            origin: "https://console.example",
        };
        let events = events(&deadlines, now());
        let file = calendar(&events, now());
        (events, file)
    }

    fn member_view(detail: &ReservationDetail) -> ReservationDetail {
        ReservationDetail { payment: None, first_invoice: None, ..detail.clone() }
    }

    #[test]
    fn the_owners_file_matches_the_golden_file() {
        let (_, file) = file(&detail(), true);
        let golden = include_str!("ics_golden.ics");
        assert_eq!(file, golden.replace("\r\n", "\n").replace('\n', "\r\n"), "got:\n{file}");
    }

    #[test]
    fn lines_end_in_crlf_and_fold_at_75_octets_without_cutting_a_character() {
        let detail = detail();
        // A long name of multi-octet characters: each fold falls between characters.
        let long = "é€😀".repeat(40);
        let mut nodes_named = nodes();
        nodes_named.nodes[0].workloads[1].name = long.clone();
        let subjects = [Subject {
            reservation: &detail.reservation,
            amendments: Some(&detail.amendments),
            nodes: Some(&nodes_named),
        }];
        let all = [detail.reservation.clone()];
        let deadlines = Deadlines {
            subjects: &subjects,
            all: &all,
            details: &[],
            org: None,
            owner: false,
            as_of: now(),
            origin: "https://console.example",
        };
        let file = calendar(&events(&deadlines, now()), now());
        assert!(file.ends_with("END:VCALENDAR\r\n"));
        for line in file.split_terminator("\r\n") {
            assert!(!line.contains(['\r', '\n']), "a bare line break: {line:?}");
            assert!(line.len() <= 75, "{} octets: {line:?}", line.len());
        }
        let unfolded = file.replace("\r\n ", "");
        assert!(unfolded.contains(&long), "the name reads whole once unfolded");
    }

    #[test]
    fn text_escapes_backslash_semicolon_comma_and_line_breaks() {
        assert_eq!(text("a\\b;c,d\ne\r\nf\rg\u{7}h"), "a\\\\b\\;c\\,d\\ne\\nf\\ng\u{FFFD}h");
    }

    #[test]
    fn uids_name_the_deadline_and_stay_when_its_date_or_the_export_time_moves() {
        let first = detail();
        let (a, _) = file(&first, true);
        let mut moved = first.clone();
        moved.reservation.stops_at = Some(at("2027-01-25T00:00:00Z"));
        moved.reservation.ends_at = Some(at("2027-12-01T00:00:00Z"));
        let (b, _) = file(&moved, true);
        let uids = |events: &[Event]| events.iter().map(|e| e.uid.clone()).collect::<Vec<_>>();
        assert_eq!(uids(&a), uids(&b));
        let mut unique = uids(&a);
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), a.len(), "one UID per event: {:?}", uids(&a));
        assert_ne!(a[0].at, b[0].at);
    }

    #[test]
    fn reminders_come_30_7_and_1_days_before_only_when_the_event_is_further_away() {
        let event = |days: i64| Event {
            uid: "x@y".into(),
            at: now() + TimeDelta::days(days) + TimeDelta::hours(1),
            summary: "s".into(),
            description: "d".into(),
            url: "https://console.example/".into(),
        };
        let triggers = |days| {
            calendar(&[event(days)], now())
                .split("\r\n")
                .filter(|l| l.starts_with("TRIGGER:"))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(triggers(45), ["TRIGGER:-P30D", "TRIGGER:-P7D", "TRIGGER:-P1D"]);
        assert_eq!(triggers(10), ["TRIGGER:-P7D", "TRIGGER:-P1D"]);
        assert_eq!(triggers(1), ["TRIGGER:-P1D"]);
        assert!(triggers(0).is_empty());
        assert!(triggers(-3).is_empty(), "a date passed has no reminder");
    }

    #[test]
    fn a_members_file_has_no_payment_event_and_no_amount() {
        let owner = detail();
        let (owners, _) = file(&owner, true);
        let (members, text) = file(&member_view(&owner), false);
        assert!(owners.len() > members.len());
        assert!(!text.contains('$'), "an amount in the member's file:\n{text}");
        for word in ["payment", "invoice", "charge", "paid", "averted by paying"] {
            assert!(!text.to_lowercase().contains(word), "{word:?} in the member's file:\n{text}");
        }
        // Even when handed the owner's detail, a member's file says no money.
        let subjects_detail = owner.clone();
        let nodes = nodes();
        let subjects = [Subject { reservation: &subjects_detail.reservation, amendments: None, nodes: Some(&nodes) }];
        let deadlines = Deadlines {
            subjects: &subjects,
            all: std::slice::from_ref(&owner.reservation),
            details: &[&owner],
            org: None,
            owner: false,
            as_of: now(),
            origin: "https://console.example",
        };
        assert!(!calendar(&events(&deadlines, now()), now()).contains('$'));
    }

    #[test]
    fn no_file_holds_a_key_and_every_link_is_the_console_page() {
        let (events, text) = file(&detail(), true);
        assert!(!text.contains("eco_"), "{text}");
        for e in &events {
            assert!(e.url.starts_with("https://console.example/"), "{}", e.url);
            assert!(!e.url.contains('?'), "no query in a link back: {}", e.url);
        }
    }

    /// The events an iCalendar parser reads back from `file`, each as (UID, DTSTART,
    /// SUMMARY, DESCRIPTION, reminders), the TEXT values unescaped.
    fn parsed(file: &str) -> Vec<(String, String, String, String, usize)> {
        let mut calendars = ical::IcalParser::new(std::io::BufReader::new(file.as_bytes()));
        let calendar = calendars.next().expect("one calendar").expect("it parses");
        assert!(calendars.next().is_none());
        let unescape = |s: &str| s.replace("\\n", "\n").replace("\\,", ",").replace("\\;", ";").replace("\\\\", "\\");
        calendar
            .events
            .iter()
            .map(|e| {
                let value = |name: &str| {
                    e.properties
                        .iter()
                        .find(|p| p.name == name)
                        .and_then(|p| p.value.clone())
                        .unwrap_or_else(|| panic!("no {name}"))
                };
                (
                    value("UID"),
                    value("DTSTART"),
                    unescape(&value("SUMMARY")),
                    unescape(&value("DESCRIPTION")),
                    e.alarms.len(),
                )
            })
            .collect()
    }

    #[test]
    fn a_real_parser_reads_back_one_event_per_deadline_what_stops_when_and_the_ledger_list() {
        let owner = detail();
        let nodes = nodes();
        let subject =
            Subject { reservation: &owner.reservation, amendments: Some(&owner.amendments), nodes: Some(&nodes) };
        let stops = at_risk(&[subject], std::slice::from_ref(&owner.reservation), now()).len();
        let dues = owner.payment.as_ref().unwrap().charges.iter().filter(|c| c.due_at.is_some()).count();
        let org_ends = 1;
        assert_eq!((stops, dues), (3, 2), "the fixture: a stop, an amendment, the term's end; two charges due");

        let (events, text) = file(&owner, true);
        let read = parsed(&text);
        assert_eq!(read.len(), stops + org_ends + dues + 1, "and the first invoice");
        assert_eq!(read.len(), events.len());
        for ((uid, start, summary, description, alarms), event) in read.iter().zip(&events) {
            assert_eq!(uid, &event.uid);
            assert_eq!(start, &utc(event.at));
            assert!(start.ends_with('Z'));
            assert_eq!(summary, &event.summary);
            assert_eq!(description, &event.description, "the TEXT reads back as written");
            let expected = REMINDER_DAYS.iter().filter(|d| event.at - now() > TimeDelta::days(**d)).count();
            assert_eq!(*alarms, expected, "{summary}");
        }
        let (member, text) = file(&member_view(&owner), false);
        assert_eq!(parsed(&text).len(), stops + org_ends);
        assert_eq!(member.len(), stops + org_ends);
    }

    #[test]
    fn every_event_names_the_workloads_at_risk_and_says_as_of_when() {
        let (events, _) = file(&detail(), true);
        let settled = |e: &Event| e.description.contains("Nothing is at risk from it, as read.");
        // The first invoice and November's charge are paid.
        assert_eq!(events.iter().filter(|e| settled(e)).count(), 2);
        for e in events.iter().filter(|e| e.uid.starts_with("reservation-") && !settled(e)) {
            assert!(
                e.description.contains("train; run,7 (GPU cluster, 8 GPUs on node-1, node-2)"),
                "{}",
                e.description
            );
        }
        for e in &events {
            assert!(e.description.contains("As of 10 Jan 2027, 08:59 UTC"), "{}", e.description);
        }
        let term_end = events.iter().find(|e| e.uid.contains("term-end")).unwrap();
        assert!(term_end.summary.contains("The term ends with no renewal"), "{}", term_end.summary);
    }

    #[test]
    fn only_reservations_that_run_workloads_have_deadlines_and_an_ended_term_none() {
        let mut ended = detail();
        ended.reservation.status = ReservationStatus::Ended;
        let (events, _) = file(&member_view(&ended), false);
        assert!(events.iter().all(|e| e.uid.starts_with("org-")), "{events:?}");
    }
}
