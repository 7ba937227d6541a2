//! The query of an address, read and written by one rule: a page reads and writes its own
//! keys and keeps every other pair as it was, in its place (`tz`, `poll_ms` and another
//! page's filters survive a filter change). Pure, so pages and `domain` share it.

use crate::api::escape::{percent_decoded, percent_encoded};

/// The value of `key` in a query string (`?a=1&b=2`, `+` as a space), if it is there.
pub fn query_value(query: &str, key: &str) -> Option<String> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(name, _)| percent_decoded(&name.replace('+', " ")) == key)
        .map(|(_, value)| percent_decoded(&value.replace('+', " ")))
}

/// `query` with `pairs` put in (an empty value removes its key) and every other pair kept as
/// it was, in its place: a page changes its own keys and keeps the rest (`tz`, `poll_ms`).
pub fn query_replacing(query: &str, pairs: &[(&str, String)]) -> String {
    let owned = |raw: &str| {
        let name = raw.split('=').next().unwrap_or(raw);
        pairs.iter().any(|(key, _)| percent_decoded(&name.replace('+', " ")) == *key)
    };
    let kept = query.trim_start_matches('?').split('&').filter(|raw| !raw.is_empty() && !owned(raw));
    let added = query_string(pairs);
    let all: Vec<&str> = kept.chain(added.trim_start_matches('?').split('&').filter(|raw| !raw.is_empty())).collect();
    if all.is_empty() {
        String::new()
    } else {
        format!("?{}", all.join("&"))
    }
}

/// The query key of the account a page of one reservation is of (read by `router::Route`).
pub const ACCOUNT_KEY: &str = "account";

/// The one builder of the console's addresses of a reservation's pages: reservation `id`'s
/// page `tab` (`""` for its detail, `"/nodes"`, `"/launch"`, a workload's `"/workloads/…"`)
/// with the query's `pairs`, of the account labelled `account`. The connection's first
/// account has the empty label, so its addresses are the console's with one key; another
/// account's name it by label (never its key): ids collide between accounts
/// (docs/accounts.md).
pub fn reservation_address(account: &str, id: i64, tab: &str, pairs: &[(&str, String)]) -> String {
    let account = [(ACCOUNT_KEY, account.to_owned())];
    let pairs: Vec<(&str, String)> = pairs.iter().cloned().chain(account).collect();
    format!("/reservations/{id}{tab}{}", query_string(&pairs))
}

/// A query string of the non-empty pairs, in their order: `?a=1&b=2`, or `""` if none.
fn query_string(pairs: &[(&str, String)]) -> String {
    let written: Vec<String> = pairs
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(key, value)| format!("{}={}", percent_encoded(key), percent_encoded(value)))
        .collect();
    if written.is_empty() {
        String::new()
    } else {
        format!("?{}", written.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_value_is_read_decoded_and_a_missing_one_is_none() {
        let query = "?region=us%2Deast&status=past_due&note=a+b&flag";
        assert_eq!(query_value(query, "region").as_deref(), Some("us-east"));
        assert_eq!(query_value(query, "status").as_deref(), Some("past_due"));
        assert_eq!(query_value(query, "note").as_deref(), Some("a b"));
        assert_eq!(query_value(query, "flag").as_deref(), Some(""));
        assert_eq!(query_value(query, "tz"), None);
        assert_eq!(query_value("", "tz"), None);
    }

    #[test]
    fn a_query_string_skips_empty_values_and_escapes_the_rest() {
        let pairs = [("region", "atl".to_owned()), ("status", String::new()), ("q", "a&b c".to_owned())];
        assert_eq!(query_string(&pairs), "?region=atl&q=a%26b%20c");
        assert_eq!(query_string(&[("tz", String::new())]), "");
        assert_eq!(query_value(&query_string(&pairs), "q").as_deref(), Some("a&b c"));
    }

    #[test]
    fn a_reservations_address_names_an_added_account_by_label_and_the_first_not_at_all() {
        assert_eq!(reservation_address("", 12, "", &[]), "/reservations/12");
        assert_eq!(reservation_address("", 12, "/launch", &[("gpus", "4".into())]), "/reservations/12/launch?gpus=4");
        assert_eq!(reservation_address("prod-eu", 12, "/nodes", &[]), "/reservations/12/nodes?account=prod-eu");
        let launch = reservation_address("eu & us", 12, "/launch", &[("gpus", "4".into())]);
        assert_eq!(launch, "/reservations/12/launch?gpus=4&account=eu%20%26%20us");
        assert_eq!(query_value(&launch[launch.find('?').unwrap()..], ACCOUNT_KEY).as_deref(), Some("eu & us"));
    }

    #[test]
    fn writing_a_pages_keys_keeps_every_other_pair_in_its_place() {
        let pairs = [("region", "ams".to_owned()), ("status", String::new())];
        assert_eq!(
            query_replacing("?tz=utc&region=atl&status=past_due&poll_ms=500", &pairs),
            "?tz=utc&poll_ms=500&region=ams"
        );
        assert_eq!(query_replacing("?status=ended", &pairs), "?region=ams");
        assert_eq!(query_replacing("", &[("status", String::new())]), "");
    }
}
