//! Repeated runs summed up: these machines are noisy, so every timing is a median with its
//! spread, and is compared to the baseline only as a ratio.

use serde::Serialize;

/// Median, min and max of the runs of one figure.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl Spread {
    /// None without samples: a figure with no run is not measured, never zero.
    pub fn of(samples: &[f64]) -> Option<Spread> {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let runs = sorted.len();
        let median = match runs {
            0 => return None,
            n if n % 2 == 1 => sorted[n / 2],
            n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        };
        Some(Spread { median, min: sorted[0], max: sorted[runs - 1], runs })
    }
}

/// How many times the baseline's figure the console's is; None when the baseline is zero.
pub fn ratio(console: f64, baseline: f64) -> Option<f64> {
    (baseline != 0.0).then(|| console / baseline)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_odd_number_of_runs_has_the_middle_one_as_median() {
        let spread = Spread::of(&[30.0, 10.0, 20.0, 50.0, 40.0]).unwrap();
        assert_eq!(spread, Spread { median: 30.0, min: 10.0, max: 50.0, runs: 5 });
    }

    #[test]
    fn an_even_number_of_runs_averages_the_middle_two() {
        assert_eq!(Spread::of(&[4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
    }

    #[test]
    fn no_runs_is_no_figure() {
        assert_eq!(Spread::of(&[]), None);
    }

    #[test]
    fn a_ratio_to_a_zero_baseline_is_undefined() {
        assert_eq!(ratio(3.0, 2.0), Some(1.5));
        assert_eq!(ratio(3.0, 0.0), None);
    }
}
