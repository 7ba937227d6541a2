//! The API's timestamps (RFC 3339, `2026-11-01T00:00:00Z`), read field by field.
//!
//! chrono's own `Deserialize` goes through its format-string parser, which with its tables
//! was about 12 KB of the first load's wasm; the models name these functions instead.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use serde::{de, Deserialize, Deserializer};

/// Every instant the APIs send, in UTC.
pub type Timestamp = DateTime<Utc>;

/// A field of ASCII digits whose length is in `digits`.
pub fn number(field: &str, digits: std::ops::RangeInclusive<usize>) -> Option<u32> {
    let plain = digits.contains(&field.len()) && field.bytes().all(|b| b.is_ascii_digit());
    plain.then(|| field.parse().ok()).flatten()
}

/// English month abbreviations, as the console writes dates and HTTP dates spell them.
/// Dates are put together from their fields rather than with chrono's `format`, whose
/// format-string engine would be most of chrono's weight in the first load.
pub const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, with `t`, `z` or a space accepted as RFC 3339
/// allows; a leap second (`:60`) is chrono's leap-second form of the second before.
pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
    let (date, rest) = (text.get(..10)?, text.get(10..)?);
    let (separator, rest) = rest.split_at_checked(1)?;
    if !matches!(separator, "T" | "t" | " ") {
        return None;
    }
    let (time, zone) = rest.split_at_checked(8)?;
    let [year, month, day] = fields(date, '-')?;
    let [hour, minute, second] = fields(time, ':')?;
    let (year, month, day) = (number(year, 4..=4)?, number(month, 2..=2)?, number(day, 2..=2)?);
    let (hour, minute, second) = (number(hour, 2..=2)?, number(minute, 2..=2)?, number(second, 2..=2)?);
    let (nanos, zone) = match zone.strip_prefix('.') {
        Some(fraction) => {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            // Nanoseconds: the first nine digits, padded; any further ones are dropped.
            let nanos = fraction[..digits.min(9)].bytes().chain(std::iter::repeat(b'0')).take(9);
            (nanos.fold(0, |n, digit| n * 10 + u32::from(digit - b'0')), &fraction[digits..])
        }
        None => (0, zone),
    };
    let east_seconds = match zone {
        "Z" | "z" => 0,
        _ => {
            let (sign, offset) = zone.split_at_checked(1)?;
            let sign = match sign {
                "+" => 1,
                "-" => -1,
                _ => return None,
            };
            let [hours, minutes] = fields(offset, ':')?;
            let (hours, minutes) = (number(hours, 2..=2)?, number(minutes, 2..=2)?);
            if hours > 23 || minutes > 59 {
                return None;
            }
            sign * i64::from(hours * 3600 + minutes * 60)
        }
    };
    let (second, nanos) = match second {
        60 => (59, nanos.checked_add(1_000_000_000)?),
        _ => (second, nanos),
    };
    let local = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?
        .and_hms_nano_opt(hour, minute, second, nanos)?;
    Some(local.checked_sub_signed(TimeDelta::seconds(east_seconds))?.and_utc())
}

/// `text` cut at `separator` into exactly `N` fields.
fn fields<const N: usize>(text: &str, separator: char) -> Option<[&str; N]> {
    let mut parts = text.split(separator);
    let fields = std::array::from_fn(|_| parts.next().unwrap_or(""));
    parts.next().is_none().then_some(fields)
}

fn read<E: de::Error>(text: &str) -> Result<Timestamp, E> {
    parse_rfc3339(text).ok_or_else(|| E::custom(format!("“{text}” is not an RFC 3339 timestamp")))
}

/// For `#[serde(deserialize_with = "timestamp::required")]`.
pub fn required<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
    read(&String::deserialize(deserializer)?)
}

/// For an `Option<Timestamp>` field, with `#[serde(default)]` so that it may be missing.
pub fn optional<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Timestamp>, D::Error> {
    Option::<String>::deserialize(deserializer)?.map(|text| read(&text)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, SecondsFormat, Utc};
    use proptest::prelude::*;

    fn chrono_reads(text: &str) -> Option<Timestamp> {
        DateTime::parse_from_rfc3339(text).ok().map(|t| t.with_timezone(&Utc))
    }

    #[test]
    fn the_apis_own_forms_read_as_their_instant() {
        let at = |text| parse_rfc3339(text).map(|t| t.to_rfc3339_opts(SecondsFormat::AutoSi, true));
        assert_eq!(at("2026-11-01T00:00:00Z").as_deref(), Some("2026-11-01T00:00:00Z"));
        assert_eq!(at("2026-11-01T02:30:00+02:30").as_deref(), Some("2026-11-01T00:00:00Z"));
        assert_eq!(at("2026-10-31t23:00:00-01:00").as_deref(), Some("2026-11-01T00:00:00Z"));
        assert_eq!(at("2026-11-01 00:00:00.25z").as_deref(), Some("2026-11-01T00:00:00.250Z"));
        assert_eq!(at("2026-11-01T00:00:00.1234567891Z").as_deref(), Some("2026-11-01T00:00:00.123456789Z"));
    }

    #[test]
    fn a_malformed_timestamp_is_refused() {
        for text in [
            "",
            "2026-11-01",
            "2026-11-01T00:00:00",
            "2026-11-01T00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-11-01T24:00:00Z",
            "2026-11-01T00:00:00.Z",
            "2026-11-01T00:00:00+0100",
            "2026-11-01T00:00:00+24:00",
            "2026-11-01X00:00:00Z",
            "+2026-11-01T00:00:00Z",
            "2026-1-01T00:00:00Z",
            "2026-11-01T00:00:00Z ",
            "2026-11-01T00:00:00.5+01:00:00",
            "２０２６-11-01T00:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(text), None, "{text}");
            assert_eq!(chrono_reads(text), None, "chrono agrees on {text}");
        }
    }

    #[test]
    fn a_field_reads_missing_null_and_text_and_names_what_it_refused() {
        #[derive(Deserialize)]
        struct Row {
            #[serde(deserialize_with = "required")]
            at: Timestamp,
            #[serde(default, deserialize_with = "optional")]
            until: Option<Timestamp>,
        }
        let row: Row = serde_json::from_str(r#"{"at":"2026-11-01T00:00:00Z"}"#).unwrap();
        assert_eq!((row.at.timestamp(), row.until), (1_793_491_200, None));
        let row: Row = serde_json::from_str(r#"{"at":"2026-11-01T00:00:00Z","until":null}"#).unwrap();
        assert_eq!(row.until, None);
        let row: Row = serde_json::from_str(r#"{"at":"2026-11-01T00:00:00Z","until":"2027-11-01T00:00:00Z"}"#).unwrap();
        assert_eq!(row.until.map(|t| t.timestamp()), Some(1_825_027_200));
        let refused = serde_json::from_str::<Row>(r#"{"at":"1 Nov 2026"}"#).err().unwrap().to_string();
        assert!(refused.contains("“1 Nov 2026” is not an RFC 3339 timestamp"), "{refused}");
    }

    proptest! {
        #[test]
        fn any_instant_written_in_any_offset_reads_back_as_chrono_reads_it(
            seconds in 0i64..4_102_444_800, nanos in 0u32..1_000_000_000, offset_minutes in -1439i32..=1439,
        ) {
            let at = DateTime::from_timestamp(seconds, nanos).unwrap();
            let zone = chrono::FixedOffset::east_opt(offset_minutes * 60).unwrap();
            let text = at.with_timezone(&zone).to_rfc3339_opts(SecondsFormat::AutoSi, false);
            prop_assert_eq!(parse_rfc3339(&text), Some(at), "{}", text);
            prop_assert_eq!(parse_rfc3339(&text), chrono_reads(&text));
        }
    }
}
