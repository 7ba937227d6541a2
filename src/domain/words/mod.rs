//! Counts in words, in one place, so that no page says "1 GPUs" or "2 node", and every
//! figure is grouped the same way ("8,000").

pub mod address;
pub mod shown;
pub mod text;
pub mod time;

use crate::api::money::group_thousands;
use std::fmt::Display;

/// `8000` → "8,000"; a negative figure (inconsistent data, shown as reported) keeps its sign.
pub fn figure<N>(n: N) -> String
where
    N: Display + Copy + TryInto<i128>,
{
    match n.try_into() {
        Ok(n) if n < 0 => format!("-{}", group_thousands(n.unsigned_abs())),
        Ok(n) => group_thousands(n.unsigned_abs()),
        Err(_) => n.to_string(),
    }
}

/// "1 GPU", "2 GPUs", "0 nodes", "1,000 nodes": the noun is singular for exactly one.
pub fn count<N>(n: N, noun: &str) -> String
where
    N: Display + Copy + TryInto<i128>,
{
    let one = n.try_into().is_ok_and(|n: i128| n == 1);
    format!("{} {noun}{}", figure(n), if one { "" } else { "s" })
}

/// `text` with its first letter in capitals, to start a sentence.
pub fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_noun_is_singular_for_exactly_one_of_any_integer_type() {
        assert_eq!(count(1i64, "GPU"), "1 GPU");
        assert_eq!(count(2i64, "GPU"), "2 GPUs");
        assert_eq!(count(0usize, "node"), "0 nodes");
        assert_eq!(count(1u32, "amendment"), "1 amendment");
        assert_eq!(count(-1i64, "GPU"), "-1 GPUs");
    }

    #[test]
    fn figures_are_grouped_by_thousands_and_keep_their_sign() {
        assert_eq!(count(8000i64, "GPU"), "8,000 GPUs");
        assert_eq!(figure(-12345i64), "-12,345");
        assert_eq!(figure(i64::MIN), "-9,223,372,036,854,775,808");
        assert_eq!(figure(u128::MAX), u128::MAX.to_string(), "beyond i128 it is shown as sent");
    }
}
