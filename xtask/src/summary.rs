//! Test counts from libtest's summary lines, which wasm-bindgen-test-runner
//! prints in the same shape, so every stage can be summed into one line.

use std::fmt;
use std::ops::AddAssign;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
}

impl Counts {
    /// The counts of a line such as
    /// `test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s`,
    /// None for any other line.
    pub fn from_line(line: &str) -> Option<Counts> {
        let fields = line.trim_start().strip_prefix("test result: ")?;
        let (mut passed, mut failed) = (None, None);
        for field in fields.split(';') {
            // The count is the word before the label: "ok. 12 passed", " 0 failed".
            let mut words = field.split_whitespace().rev();
            let (Some(label), Some(count)) = (words.next(), words.next()) else {
                continue;
            };
            match label {
                "passed" => passed = count.parse().ok(),
                "failed" => failed = count.parse().ok(),
                _ => {}
            }
        }
        Some(Counts { passed: passed?, failed: failed? })
    }

    /// A stage that failed without reporting a failed test (a build error, a
    /// crash, a missing tool) counts as one failure, so the total can't read green.
    pub fn settle(self, stage_succeeded: bool) -> Counts {
        if stage_succeeded || self.failed > 0 {
            self
        } else {
            Counts { failed: 1, ..self }
        }
    }
}

impl AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        self.passed += other.passed;
        self.failed += other.failed;
    }
}

/// The summary line's exact wording: `N passed, N failed`.
impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(passed: u64, failed: u64) -> Counts {
        Counts { passed, failed }
    }

    #[test]
    fn reads_a_passing_libtest_summary() {
        let line = "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s";
        assert_eq!(Counts::from_line(line), Some(counts(12, 0)));
    }

    #[test]
    fn reads_a_failing_summary_with_leading_whitespace() {
        let line =
            "  test result: FAILED. 3 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; finished in 1.50s";
        assert_eq!(Counts::from_line(line), Some(counts(3, 2)));
    }

    #[test]
    fn reads_the_wasm_bindgen_test_runner_summary() {
        let line = "test result: ok. 1 passed; 0 failed; 0 ignored; 0 filtered out; finished in 0.04s";
        assert_eq!(Counts::from_line(line), Some(counts(1, 0)));
    }

    #[test]
    fn ignores_lines_that_are_not_summaries() {
        assert_eq!(Counts::from_line("test summary::tests::x ... ok"), None);
        assert_eq!(Counts::from_line("running 12 tests"), None);
        assert_eq!(Counts::from_line("test result: garbled"), None);
    }

    #[test]
    fn sums_stages_and_prints_the_final_line() {
        let mut total = Counts::default();
        total += counts(12, 0);
        total += counts(3, 2);
        assert_eq!(total.to_string(), "15 passed, 2 failed");
    }

    #[test]
    fn a_stage_that_broke_without_failed_tests_counts_one_failure() {
        assert_eq!(counts(4, 0).settle(false), counts(4, 1));
        assert_eq!(counts(4, 2).settle(false), counts(4, 2));
        assert_eq!(counts(4, 0).settle(true), counts(4, 0));
    }
}
