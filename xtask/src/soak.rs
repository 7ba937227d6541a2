//! `cargo xtask soak [--minutes 30] [--seed N] [--poll-ms 1000]`: builds dist/, then runs
//! the soak (e2e/tests/soak.rs, ignored by plain `cargo test`) against it: the live Nodes
//! page in headless Chromium, polling for the whole run while faults come and go at random
//! (seeded). Not part of `cargo xtask test`: it takes minutes.

use crate::proc::{self, find};
use crate::{dist, Result};

#[derive(Debug, PartialEq)]
struct Options {
    minutes: u64,
    seed: u64,
    poll_ms: u64,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut options = Options { minutes: 30, seed: 1, poll_ms: 1000 };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let slot = match flag.as_str() {
                "--minutes" => &mut options.minutes,
                "--seed" => &mut options.seed,
                "--poll-ms" => &mut options.poll_ms,
                other => return Err(format!("soak: unknown flag {other} (--minutes N, --seed N, --poll-ms N)")),
            };
            let value = args.next().ok_or_else(|| format!("{flag} needs a number"))?;
            *slot = value.parse().map_err(|_| format!("{flag} {value}: not a whole number"))?;
        }
        if options.minutes == 0 || options.poll_ms == 0 {
            return Err("soak: --minutes and --poll-ms must be at least 1".to_owned());
        }
        Ok(options)
    }
}

pub fn run(args: &[String]) -> Result {
    let options = Options::parse(args)?;
    dist::run()?;
    let chromedriver = find("chromedriver")?;
    proc::run(
        proc::cargo()
            .args(["test", "--package", "e2e", "--test", "soak", "--", "--ignored", "--nocapture"])
            .env("CONSOLE_DIST", dist::dist_dir())
            .env("CHROMEDRIVER", chromedriver)
            .env("SOAK_MINUTES", options.minutes.to_string())
            .env("SOAK_SEED", options.seed.to_string())
            .env("SOAK_POLL_MS", options.poll_ms.to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options> {
        Options::parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn defaults_to_thirty_minutes_seed_one_and_a_poll_a_second() {
        assert_eq!(parse(&[]).unwrap(), Options { minutes: 30, seed: 1, poll_ms: 1000 });
    }

    #[test]
    fn reads_minutes_seed_and_poll_interval() {
        assert_eq!(parse(&["--seed", "7", "--minutes", "5"]).unwrap(), Options { minutes: 5, seed: 7, poll_ms: 1000 });
        assert_eq!(parse(&["--poll-ms", "300"]).unwrap().poll_ms, 300);
    }

    #[test]
    fn refuses_unknown_flags_missing_and_zero_values() {
        for args in [&["--hours", "1"][..], &["--minutes"], &["--minutes", "x"], &["--minutes", "0"]] {
            assert!(parse(args).is_err(), "{args:?}");
        }
    }
}
