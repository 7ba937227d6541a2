//! Poll bounds from the simulator's request log: how many `/nodes` requests overlapped,
//! and how far apart they started.

use e2e::LoggedRequest;

/// The most requests in flight at once. One still in flight counts until the end.
pub fn max_in_flight(requests: &[LoggedRequest]) -> u64 {
    // Ends sort before starts at the same instant: back-to-back is not overlapping.
    let mut events: Vec<(f64, i64)> =
        requests.iter().flat_map(|r| [(r.started_ms, 1), (r.finished_ms.unwrap_or(f64::INFINITY), -1)]).collect();
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut current = 0i64;
    let mut most = 0i64;
    for (_, change) in events {
        current += change;
        most = most.max(current);
    }
    most as u64
}

/// Milliseconds between the starts of successive requests.
pub fn start_gaps_ms(requests: &[LoggedRequest]) -> Vec<f64> {
    let mut starts: Vec<f64> = requests.iter().map(|r| r.started_ms).collect();
    starts.sort_by(f64::total_cmp);
    starts.windows(2).map(|pair| pair[1] - pair[0]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(started_ms: f64, finished_ms: Option<f64>) -> LoggedRequest {
        LoggedRequest {
            method: "GET".into(),
            path: "/api/gpu-reservations/20/nodes".into(),
            role: Some("owner".into()),
            started_ms,
            finished_ms,
            status: finished_ms.map(|_| 200),
            request_id: "req_1".into(),
        }
    }

    #[test]
    fn back_to_back_requests_are_one_in_flight() {
        let log = [request(0.0, Some(40.0)), request(40.0, Some(80.0)), request(100.0, Some(120.0))];
        assert_eq!(max_in_flight(&log), 1);
    }

    #[test]
    fn a_request_started_before_the_last_ended_makes_two() {
        let log = [request(0.0, Some(40.0)), request(30.0, Some(80.0))];
        assert_eq!(max_in_flight(&log), 2);
    }

    #[test]
    fn a_request_still_in_flight_overlaps_every_later_one() {
        let log = [request(0.0, None), request(500.0, Some(520.0))];
        assert_eq!(max_in_flight(&log), 2);
    }

    #[test]
    fn gaps_are_between_successive_starts_in_time_order() {
        let log = [request(10_300.0, None), request(100.0, Some(140.0)), request(5_200.5, Some(5_260.0))];
        assert_eq!(start_gaps_ms(&log), vec![5_100.5, 5_099.5]);
        assert!(start_gaps_ms(&log[..1]).is_empty());
    }
}
