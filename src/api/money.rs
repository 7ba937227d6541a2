//! Exact money. The API sends USD as JSON numbers (`29760`, `2.34`, `1.25`); they are
//! decoded once into integer micro-dollars so that every sum and product the console
//! shows is exact. Floats never take part in arithmetic.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::iter::Sum;
use std::ops::{Add, Neg, Sub};

/// Micro-dollars per dollar: rates such as $0.0125/GiB-month stay exact.
const MICROS_PER_USD: i128 = 1_000_000;
const MICROS_PER_CENT: i128 = 10_000;
/// Beyond this magnitude (a trillion dollars, past any amount one account is charged) a JSON
/// number is refused as money: below it every product the console forms (a rate × a count of
/// at most `MAX_COUNT`² GPU-hours) fits in an `i128` of micro-dollars.
const MAX_ABS_USD: f64 = 1e12;

/// An amount of US dollars, exact to the millionth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Usd {
    micros: i128,
}

impl Usd {
    pub const ZERO: Usd = Usd { micros: 0 };

    pub const fn from_cents(cents: i64) -> Self {
        Usd { micros: cents as i128 * MICROS_PER_CENT }
    }

    pub const fn from_micros(micros: i128) -> Self {
        Usd { micros }
    }

    pub const fn micros(self) -> i128 {
        self.micros
    }

    /// Decodes a JSON number. `None` for a value that is not finite or too large to be money.
    pub fn from_f64(value: f64) -> Option<Self> {
        if !value.is_finite() || value.abs() > MAX_ABS_USD {
            return None;
        }
        Some(Usd { micros: (value * MICROS_PER_USD as f64).round() as i128 })
    }

    /// The nearest JSON number; only used to write money back out (CSV, round trips).
    pub fn to_f64(self) -> f64 {
        self.micros as f64 / MICROS_PER_USD as f64
    }

    /// `self × n`, e.g. a rate times GPU-hours.
    pub fn times(self, n: i64) -> Self {
        Usd { micros: self.micros * n as i128 }
    }

    pub fn is_zero(self) -> bool {
        self.micros == 0
    }

    pub fn is_negative(self) -> bool {
        self.micros < 0
    }

    /// Whole cents, rounded half away from zero: the figure an invoice shows.
    pub fn round_to_cents(self) -> Self {
        let half = MICROS_PER_CENT / 2 * self.micros.signum();
        Usd { micros: (self.micros + half) / MICROS_PER_CENT * MICROS_PER_CENT }
    }

    /// Plain decimal without currency sign or grouping, for CSV: `29760.00`, `-0.0125`.
    pub fn to_plain_string(self) -> String {
        let (sign, whole, frac) = self.parts();
        format!("{sign}{whole}.{frac}")
    }

    /// Sign, whole dollars and the fraction with at least two digits (more only when
    /// they are not zero, so a rate of $0.0125 is not shown as $0.01).
    fn parts(self) -> (&'static str, u128, String) {
        let sign = if self.micros < 0 { "-" } else { "" };
        let abs = self.micros.unsigned_abs();
        let whole = abs / MICROS_PER_USD as u128;
        let mut frac = format!("{:06}", abs % MICROS_PER_USD as u128);
        while frac.len() > 2 && frac.ends_with('0') {
            frac.pop();
        }
        (sign, whole, frac)
    }
}

/// `$29,760.00`, `-$12.50`, `$0.0125`.
impl fmt::Display for Usd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (sign, whole, frac) = self.parts();
        write!(f, "{sign}${}.{frac}", group_thousands(whole))
    }
}

/// `1234567` → `1,234,567`.
pub fn group_thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl Add for Usd {
    type Output = Usd;
    fn add(self, rhs: Usd) -> Usd {
        Usd { micros: self.micros + rhs.micros }
    }
}

impl Sub for Usd {
    type Output = Usd;
    fn sub(self, rhs: Usd) -> Usd {
        Usd { micros: self.micros - rhs.micros }
    }
}

impl Neg for Usd {
    type Output = Usd;
    fn neg(self) -> Usd {
        Usd { micros: -self.micros }
    }
}

impl Sum for Usd {
    fn sum<I: Iterator<Item = Usd>>(iter: I) -> Usd {
        iter.fold(Usd::ZERO, Add::add)
    }
}

impl<'de> Deserialize<'de> for Usd {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        Usd::from_f64(value).ok_or_else(|| serde::de::Error::custom(format!("{value} is not an amount of USD")))
    }
}

impl Serialize for Usd {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.to_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usd(json: &str) -> Usd {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn decodes_json_numbers_exactly() {
        assert_eq!(usd("29760"), Usd::from_cents(2_976_000));
        assert_eq!(usd("2.34"), Usd::from_cents(234));
        assert_eq!(usd("0.0125"), Usd::from_micros(12_500));
        assert_eq!(usd("-1.1"), Usd::from_cents(-110));
    }

    #[test]
    fn decimal_sums_do_not_drift_like_floats() {
        let total: Usd = std::iter::repeat_n(usd("0.1"), 10).sum();
        assert_eq!(total, Usd::from_cents(100));
    }

    #[test]
    fn displays_grouped_with_cents_and_keeps_finer_rates() {
        assert_eq!(Usd::from_cents(2_976_000).to_string(), "$29,760.00");
        assert_eq!(Usd::from_cents(-1250).to_string(), "-$12.50");
        assert_eq!(usd("0.0125").to_string(), "$0.0125");
        assert_eq!(Usd::ZERO.to_string(), "$0.00");
        assert_eq!(usd("1e12").to_string(), "$1,000,000,000,000.00");
    }

    #[test]
    fn plain_string_is_csv_friendly() {
        assert_eq!(Usd::from_cents(2_976_000).to_plain_string(), "29760.00");
        assert_eq!(usd("-0.0125").to_plain_string(), "-0.0125");
    }

    #[test]
    fn rejects_numbers_that_cannot_be_money() {
        assert!(serde_json::from_str::<Usd>("1e300").is_err());
        assert!(serde_json::from_str::<Usd>("1.1e12").is_err(), "past a trillion dollars");
        assert!(serde_json::from_str::<Usd>("\"12\"").is_err());
    }

    #[test]
    fn rate_times_gpu_hours_is_exact() {
        // Seed 004: December 2026 = 31 d × 24 h × 32 GPUs × $1.25.
        assert_eq!(usd("1.25").times(31 * 24 * 32), Usd::from_cents(2_976_000));
    }

    #[test]
    fn rounds_half_away_from_zero_to_cents() {
        assert_eq!(Usd::from_micros(12_345).round_to_cents(), Usd::from_cents(1));
        assert_eq!(Usd::from_micros(15_000).round_to_cents(), Usd::from_cents(2));
        assert_eq!(Usd::from_micros(-15_000).round_to_cents(), Usd::from_cents(-2));
    }

    #[test]
    fn serializes_back_to_the_same_json_number() {
        for text in ["29760.0", "2.34", "0.0125", "-7.5"] {
            let back = serde_json::to_string(&usd(text)).unwrap();
            assert_eq!(back.parse::<f64>().unwrap(), text.parse::<f64>().unwrap());
        }
    }
}
