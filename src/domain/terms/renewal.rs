//! Which reservation renews which. Seed 004: "a renewal is a new reservation", and says
//! nothing of how the two are linked; the rule the console pairs them by is
//! [`RENEWAL_PAIRING`](crate::api::assumptions::RENEWAL_PAIRING): the next reservation of the
//! same region and GPU type by start date, whether it starts before, at or after the first
//! one's end. "What stops when" and the capacity timeline both read it from here.

use crate::api::models::Reservation;

/// The renewal of `r` among `all` (which may include `r` itself): of the reservations in the
/// same region with the same GPU type, the one that starts next after `r` (by `starts_at`,
/// then by id when two start together). `None` when none does, and always when `r` has no
/// start date yet (awaiting payment): what has no place in time renews nothing and is the
/// renewal of nothing.
pub fn renewal_of<'a>(r: &Reservation, all: impl IntoIterator<Item = &'a Reservation>) -> Option<&'a Reservation> {
    let key = (r.starts_at?, r.id);
    all.into_iter()
        .filter(|o| same_place(r, o))
        .filter_map(|o| o.starts_at.map(|at| ((at, o.id), o)))
        .filter(|(k, _)| *k > key)
        .min_by_key(|(k, _)| *k)
        .map(|(_, o)| o)
}

/// Whether `a` and `b` reserve the same GPU type in the same region: only such may renew.
pub fn same_place(a: &Reservation, b: &Reservation) -> bool {
    a.region_id == b.region_id && a.gpu_type == b.gpu_type
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::enums::ReservationStatus;
    use crate::api::models::Timestamp;
    use crate::domain::fleet::tests::reservation;

    fn at(text: &str) -> Timestamp {
        crate::api::timestamp::parse_rfc3339(text).unwrap()
    }

    /// Reservation `id` in `region` with `gpu_type`, starting at `start` (if any).
    fn term(id: i64, region: &str, gpu_type: &str, start: Option<&str>) -> Reservation {
        let mut r = reservation(id, ReservationStatus::Active, region, gpu_type, 8);
        r.starts_at = start.map(at);
        r
    }

    #[test]
    fn the_renewal_is_the_next_start_in_the_same_region_and_gpu_type() {
        let all = [
            term(1, "us-east-1", "h100", Some("2026-01-01T00:00:00Z")),
            term(2, "us-east-1", "h100", Some("2027-03-01T00:00:00Z")),
            term(3, "us-east-1", "h100", Some("2027-01-01T00:00:00Z")),
            term(4, "eu-west-1", "h100", Some("2026-06-01T00:00:00Z")),
            term(5, "us-east-1", "a100", Some("2026-06-01T00:00:00Z")),
        ];
        assert_eq!(renewal_of(&all[0], &all).map(|r| r.id), Some(3));
        assert_eq!(renewal_of(&all[2], &all).map(|r| r.id), Some(2));
        assert_eq!(renewal_of(&all[1], &all), None, "the last term has no renewal");
        assert_eq!(renewal_of(&all[3], &all), None, "alone in its region");
        assert_eq!(renewal_of(&all[4], &all), None, "alone with its GPU type");
    }

    #[test]
    fn a_renewal_may_start_before_the_first_term_ends() {
        // The overlap counts as a renewal: pairing is by start date, not by the end.
        let all =
            [term(1, "r", "h100", Some("2026-01-31T00:00:00Z")), term(2, "r", "h100", Some("2026-02-28T00:00:00Z"))];
        assert_eq!(renewal_of(&all[0], &all).map(|r| r.id), Some(2));
    }

    #[test]
    fn two_terms_starting_together_are_ordered_by_id() {
        let all = [
            term(7, "r", "h100", Some("2026-01-01T00:00:00Z")),
            term(9, "r", "h100", Some("2026-01-01T00:00:00Z")),
            term(8, "r", "h100", Some("2026-01-01T00:00:00Z")),
        ];
        assert_eq!(renewal_of(&all[0], &all).map(|r| r.id), Some(8));
        assert_eq!(renewal_of(&all[2], &all).map(|r| r.id), Some(9));
        assert_eq!(renewal_of(&all[1], &all), None);
    }

    #[test]
    fn a_term_without_a_start_date_is_neither_renewed_nor_a_renewal() {
        let all = [term(1, "r", "h100", Some("2026-01-01T00:00:00Z")), term(2, "r", "h100", None)];
        assert_eq!(renewal_of(&all[0], &all), None);
        assert_eq!(renewal_of(&all[1], &all), None);
    }
}
