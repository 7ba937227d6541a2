//! Property tests of [`decode`]: arbitrary JSON, random bytes and the seed examples mutated
//! (fields dropped, types changed, text truncated, bytes inserted) are fed to every decoder,
//! which must never panic; every value that decodes must round-trip, and well-formed
//! variants of the seeds (leaves replaced by values of the same kind) must decode.
//!
//! Each property runs [`DEFAULT_CASES`] inputs, or `PROPTEST_CASES` if set; every run
//! prints how many inputs it tried (`cargo test -- --nocapture` shows them).

use super::client::decode;
use super::error::{ErrorKind, ResponseHeaders};
use super::models::tests::{SEED_DETAIL, SEED_LIST, SEED_NODES};
use super::models::{LaunchedInstance, NodesResponse, Reservation, ReservationDetail};
use super::org::tests::ALL_FIELDS;
use super::org::OrgReservation;
use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::cell::Cell;
use std::fmt::Debug;

/// Inputs per property unless `PROPTEST_CASES` says otherwise.
const DEFAULT_CASES: u32 = 256;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CASES)
}

/// Runs `test` on `cases()` inputs from `strategy` and prints the tally.
fn check<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) {
    let config = Config { cases: cases(), failure_persistence: None, ..Config::default() };
    let tried = Cell::new(0u64);
    let decoded = Cell::new(0u64);
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy, |input| {
        tried.set(tried.get() + 1);
        DECODED.with(|d| d.set(0));
        let outcome = test(input);
        decoded.set(decoded.get() + DECODED.with(Cell::get));
        outcome
    });
    if let Err(failure) = result {
        panic!("{name}: {failure}");
    }
    println!(
        "{name}: {} inputs tried (shrinking included), {} decodes succeeded and round-tripped",
        tried.get(),
        decoded.get()
    );
}

thread_local! {
    /// Successful decodes in the current input, for the tally.
    static DECODED: Cell<u64> = const { Cell::new(0) };
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 2, 14, 5, 0).unwrap()
}

/// Decodes `text` as a 200 of type `T`; a value that decodes must serialize and decode
/// back to itself. Returns whether it decoded.
fn decodes_and_round_trips<T>(text: &str) -> Result<bool, TestCaseError>
where
    T: DeserializeOwned + Serialize + PartialEq + Debug,
{
    let headers = ResponseHeaders::default();
    let Ok(value) = decode::<T>(200, &headers, text, now()) else {
        return Ok(false);
    };
    let written = serde_json::to_string(&value).map_err(|e| TestCaseError::fail(format!("serialize: {e}")))?;
    let again = decode::<T>(200, &headers, &written, now());
    prop_assert_eq!(again.as_ref(), Ok(&value), "round trip of {}", written);
    DECODED.with(|d| d.set(d.get() + 1));
    Ok(true)
}

/// Every decoder the client uses, on one text. Returns which decoded.
fn every_decoder(text: &str) -> Result<[bool; 6], TestCaseError> {
    Ok([
        decodes_and_round_trips::<Vec<Reservation>>(text)?,
        decodes_and_round_trips::<ReservationDetail>(text)?,
        decodes_and_round_trips::<NodesResponse>(text)?,
        decodes_and_round_trips::<Vec<OrgReservation>>(text)?,
        decodes_and_round_trips::<OrgReservation>(text)?,
        decodes_and_round_trips::<LaunchedInstance>(text)?,
    ])
}

/// CONTRACT.md's 201 answer of a launch.
const LAUNCHED: &str = r#"{"id":7,"name":"notebook","gpus":2,"billing":"reserved","rate_usd_per_hour":0}"#;

/// The seed documents' examples, one per decoder (same order as [`every_decoder`]). The
/// detail gets its charge list and a first invoice so that every object is present.
fn seeds() -> [Value; 6] {
    let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    let mut detail = parse(SEED_DETAIL);
    let next_charge = detail["payment"]["next_charge"].clone();
    detail["payment"]["charges"] = Value::Array(vec![next_charge]);
    detail["first_invoice"] = serde_json::json!({ "amount_usd": 2.34, "due_at": "2026-11-05T00:00:00Z", "paid_at": "2026-11-01T09:00:00Z", "issued": true });
    let org = parse(ALL_FIELDS);
    [parse(SEED_LIST), detail, parse(SEED_NODES), Value::Array(vec![org.clone()]), org, parse(LAUNCHED)]
}

/// One change to a JSON tree: which node (pre-order index, modulo the count), what to do
/// and a random payload.
#[derive(Clone, Debug)]
struct Mutation {
    target: u32,
    kind: MutationKind,
    payload: u64,
}

#[derive(Clone, Copy, Debug)]
enum MutationKind {
    /// Remove the node from its object or array.
    Drop,
    /// Replace it with a value of another JSON type.
    Retype,
    /// Replace a leaf with a value of the same kind (a timestamp by a timestamp).
    SameKind,
    /// Duplicate an array element, or add an unknown field to an object.
    Grow,
}

impl MutationKind {
    fn keeps_well_formed(self) -> bool {
        matches!(self, MutationKind::SameKind | MutationKind::Grow)
    }
}

fn mutation(kinds: &'static [MutationKind]) -> impl Strategy<Value = Mutation> {
    (any::<u32>(), prop::sample::select(kinds), any::<u64>()).prop_map(|(target, kind, payload)| Mutation {
        target,
        kind,
        payload,
    })
}

const ALL_KINDS: &[MutationKind] =
    &[MutationKind::Drop, MutationKind::Retype, MutationKind::SameKind, MutationKind::Grow];
const WELL_FORMED_KINDS: &[MutationKind] = &[MutationKind::SameKind, MutationKind::Grow];

fn count_nodes(v: &Value) -> u32 {
    1 + match v {
        Value::Array(items) => items.iter().map(count_nodes).sum(),
        Value::Object(fields) => fields.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// Applies `m` to the node with pre-order index `*index` (counting down to it).
fn apply(v: &mut Value, index: &mut u32, m: &Mutation) -> bool {
    if *index == 0 {
        mutate_here(v, m);
        return true;
    }
    *index -= 1;
    match v {
        Value::Array(items) => {
            for i in 0..items.len() {
                if *index == 0 && matches!(m.kind, MutationKind::Drop) {
                    items.remove(i);
                    return true;
                }
                if apply(&mut items[i], index, m) {
                    return true;
                }
            }
        }
        Value::Object(fields) => {
            let keys: Vec<String> = fields.keys().cloned().collect();
            for key in keys {
                if *index == 0 && matches!(m.kind, MutationKind::Drop) {
                    fields.remove(&key);
                    return true;
                }
                if apply(fields.get_mut(&key).unwrap(), index, m) {
                    return true;
                }
            }
        }
        _ => {}
    }
    false
}

fn mutate_here(v: &mut Value, m: &Mutation) {
    let p = m.payload;
    match m.kind {
        MutationKind::Drop => *v = Value::Null,
        MutationKind::Retype => {
            *v = match (p % 8, &*v) {
                (0, Value::String(_)) | (1, Value::Number(_)) => Value::Bool(p.is_multiple_of(2)),
                (0 | 1, _) => Value::String(format!("{p}")),
                (2, _) => Value::Array(vec![Value::from(p)]),
                (3, _) => serde_json::json!({ "value": p }),
                (4, _) => Value::from(1e300),
                (5, _) => Value::from(-(p as i64).abs()),
                (6, _) => Value::from(u64::MAX),
                _ => Value::from((p % 1000) as f64 + 0.5),
            }
        }
        MutationKind::SameKind => same_kind(v, p),
        MutationKind::Grow => match v {
            Value::Array(items) if !items.is_empty() => {
                let copy = items[(p as usize) % items.len()].clone();
                items.push(copy);
            }
            Value::Object(fields) => {
                fields.insert(format!("x_unknown_{}", p % 100), Value::from(p));
            }
            _ => same_kind(v, p),
        },
    }
}

/// Known wire names first, so that well-formed variants also visit every known variant.
const WORDS: &[&str] = &[
    "active",
    "past_due",
    "awaiting_payment",
    "needs-review",
    "ready",
    "preparing",
    "under_maintenance",
    "gpu_cluster",
    "fine_tune",
    "reserved",
    "invoice",
    "wallet",
    "quarterly",
    "covered_by_advance",
    "waived",
    "",
    "ü \"quoted\" \\ \n",
];

fn same_kind(v: &mut Value, p: u64) {
    *v = match &*v {
        Value::Bool(_) => Value::Bool(p % 2 == 1),
        Value::Number(n) if n.is_f64() => Value::from(((p % 200_000_000_000) as i64 - 100_000_000_000) as f64 / 100.0),
        Value::Number(_) => Value::from((p % 2_000_000_000) as i64 - 1_000_000_000),
        Value::String(s) if DateTime::parse_from_rfc3339(s).is_ok() => {
            let secs = (p % 4_102_444_800) as i64;
            let nanos = if p.is_multiple_of(3) { ((p >> 32) % 1_000_000_000) as u32 } else { 0 };
            Value::String(Utc.timestamp_opt(secs, nanos).unwrap().to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
        }
        Value::String(_) => match WORDS.get((p % 32) as usize) {
            Some(word) => Value::String((*word).to_owned()),
            None => Value::String(format!("unknown_{p:x}")),
        },
        other => other.clone(),
    }
}

fn mutated(seed: &Value, mutations: &[Mutation]) -> Value {
    let mut v = seed.clone();
    for m in mutations {
        let mut index = m.target % count_nodes(&v);
        apply(&mut v, &mut index, m);
    }
    v
}

/// A change to the text after serializing: the transport's faults.
#[derive(Clone, Debug)]
enum TextFault {
    None,
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Overwrite(usize, u8),
}

fn text_fault() -> impl Strategy<Value = TextFault> {
    prop_oneof![
        Just(TextFault::None),
        any::<usize>().prop_map(TextFault::Truncate),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8)).prop_map(|(at, bytes)| TextFault::Insert(at, bytes)),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| TextFault::Overwrite(at, byte)),
    ]
}

fn faulted(text: String, fault: &TextFault) -> String {
    let mut bytes = text.into_bytes();
    let len = bytes.len().max(1);
    match fault {
        TextFault::None => {}
        TextFault::Truncate(at) => bytes.truncate(at % len),
        TextFault::Insert(at, extra) => {
            let at = at % len;
            bytes.splice(at..at, extra.iter().copied());
        }
        TextFault::Overwrite(at, byte) => {
            if let Some(b) = bytes.get_mut(at % len) {
                *b = *byte;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-z_]{0,12}".prop_map(Value::String),
        prop::sample::select(WORDS).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof!["[a-z_]{1,10}".boxed(), prop::sample::select(FIELD_NAMES).prop_map(str::to_owned).boxed()],
                inner,
                0..8
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Field names of the models, so arbitrary objects sometimes look like them.
const FIELD_NAMES: &[&str] = &[
    "id",
    "status",
    "nodes",
    "gpus",
    "gpus_in_use",
    "workloads",
    "workloads_unknown",
    "display_name",
    "state",
    "kind",
    "name",
    "payment",
    "storage",
    "amendments",
    "reservedUnitIds",
    "allowedOrgIds",
    "nodeId",
    "startsAt",
    "error",
    "message",
    "code",
];

#[test]
fn mutated_seed_examples_never_panic_and_what_decodes_round_trips() {
    let seeds = seeds();
    let strategy = (0..seeds.len(), prop::collection::vec(mutation(ALL_KINDS), 0..6), text_fault());
    check("mutated seeds", strategy, |(which, mutations, fault)| {
        let text = faulted(mutated(&seeds[which], &mutations).to_string(), &fault);
        every_decoder(&text)?;
        Ok(())
    });
}

#[test]
fn well_formed_variants_of_the_seeds_decode_and_round_trip() {
    let seeds = seeds();
    let strategy = (0..seeds.len(), prop::collection::vec(mutation(WELL_FORMED_KINDS), 0..12));
    check("well-formed variants", strategy, |(which, mutations)| {
        prop_assert!(mutations.iter().all(|m| m.kind.keeps_well_formed()));
        let text = mutated(&seeds[which], &mutations).to_string();
        let decoded = every_decoder(&text)?;
        prop_assert!(decoded[which], "seed {} variant did not decode: {}", which, text);
        Ok(())
    });
}

#[test]
fn arbitrary_json_never_panics_any_decoder() {
    check("arbitrary JSON", arbitrary_json(), |v| {
        every_decoder(&v.to_string())?;
        Ok(())
    });
}

#[test]
fn random_bytes_never_panic_any_decoder() {
    check("random bytes", prop::collection::vec(any::<u8>(), 0..256), |bytes| {
        every_decoder(&String::from_utf8_lossy(&bytes))?;
        Ok(())
    });
}

fn header_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..100_000).prop_map(|n| n.to_string()),
        (0i64..4_102_444_800).prop_map(|s| Utc
            .timestamp_opt(s, 0)
            .unwrap()
            .format("%a, %d %b %Y %H:%M:%S GMT")
            .to_string()),
        (0i64..4_102_444_800).prop_map(|s| Utc
            .timestamp_opt(s, 0)
            .unwrap()
            .format("%A, %d-%b-%y %H:%M:%S GMT")
            .to_string()),
        (0i64..4_102_444_800).prop_map(|s| Utc.timestamp_opt(s, 0).unwrap().format("%a %b %e %H:%M:%S %Y").to_string()),
        ".{0,40}",
    ]
}

#[test]
fn every_form_of_http_date_reads_as_the_instant_it_writes() {
    // RFC 850's two-digit years name 1970–2069 only.
    let before_2070 = 3_155_760_000i64;
    check("http dates", 0i64..before_2070, |seconds| {
        let at = Utc.timestamp_opt(seconds, 0).unwrap();
        let epoch = Utc.timestamp_opt(0, 0).unwrap();
        for form in ["%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"] {
            let written = at.format(form).to_string();
            let wait = super::error::parse_retry_after(&written, epoch);
            prop_assert_eq!(wait, Some(std::time::Duration::from_secs(seconds as u64)), "{}", written);
        }
        Ok(())
    });
}

fn error_body() -> impl Strategy<Value = String> {
    prop_oneof![
        arbitrary_json().prop_map(|v| v.to_string()),
        ("[a-z][a-z0-9_]{0,20}|.{0,30}", ".{0,40}")
            .prop_map(|(e, m)| serde_json::json!({ "error": e, "message": m }).to_string()),
        ".{0,40}".prop_map(|e| serde_json::json!({ "error": e }).to_string()),
        ("[a-z_]{1,20}", ".{0,20}").prop_map(|(c, e)| serde_json::json!({ "error": e, "code": c }).to_string()),
        Just("<html><body><h1>502 Bad Gateway</h1></body></html>".to_owned()),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

#[test]
fn error_answers_of_any_status_headers_and_body_decode_to_an_api_error() {
    let names = prop::sample::select(
        &[
            "retry-after",
            "Retry-After",
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
            "x-ecolink-request-id",
            "content-type",
            "x-other",
        ][..],
    );
    let strategy = (
        (100u16..600).prop_filter("an error status", |s| !(200..300).contains(s)),
        prop::collection::vec((names, header_value()), 0..6),
        error_body(),
    );
    check("error answers", strategy, |(status, headers, body)| {
        let headers = ResponseHeaders::from_pairs(headers);
        let err = decode::<NodesResponse>(status, &headers, &body, now()).unwrap_err();
        prop_assert_eq!((err.kind, err.status), (ErrorKind::Http, Some(status)));
        if let Some(code) = &err.code {
            prop_assert!(super::assumptions::is_short_code(code));
        }
        if body.trim_start().starts_with('<') {
            prop_assert!(!err.message.as_deref().unwrap_or("").contains('<'), "markup shown: {:?}", err.message);
        }
        prop_assert!(!err.to_string().is_empty());
        Ok(())
    });
}
