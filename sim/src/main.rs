//! `reservations-sim [--port N] [--dist DIR] [--scenario demo|large|huge] [--seed N]
//! [--rate-limit N] [--now RFC3339] [--cors-for-tests]`: serves the simulator on 127.0.0.1 until Ctrl-C.
//! Flags are parsed by hand to keep the build small.

use reservations_sim::{key_table, serve, Config};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: reservations-sim [--port N] [--dist DIR] [--scenario demo|large|huge] [--seed N] \
[--rate-limit N] [--now RFC3339] [--cors-for-tests]";

struct Options {
    port: u16,
    config: Config,
}

fn value<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value.parse().map_err(|_| format!("{flag} {value}: not a valid value"))
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options { port: 8080, config: Config::default() };
    while let Some(flag) = args.next() {
        let config = &mut options.config;
        match flag.as_str() {
            "--port" => options.port = value(&flag, args.next())?,
            "--dist" => {
                let dir: PathBuf = value(&flag, args.next())?;
                if !dir.is_dir() {
                    return Err(format!("--dist {}: not a directory", dir.display()));
                }
                config.dist = Some(dir);
            }
            "--scenario" => config.scenario = value(&flag, args.next())?,
            "--seed" => config.seed = value(&flag, args.next())?,
            "--rate-limit" => config.rate_limit_per_min = value(&flag, args.next())?,
            "--now" => config.now = Some(value(&flag, args.next())?),
            "--cors-for-tests" => config.cors_for_tests = true,
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown flag {other}\n{USAGE}")),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, options.port));
    let listener = match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("reservations-sim: cannot listen on {address}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let port = listener.local_addr().map_or(options.port, |a| a.port());
    println!("reservations-sim listening on http://127.0.0.1:{port}/ (API under /api)");
    print!("Demo keys:\n{}", key_table());
    match serve(listener, options.config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("reservations-sim: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_args(args: &[&str]) -> Result<Options, String> {
        parse(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn defaults_to_port_8080_the_demo_and_200_requests_a_minute() {
        let options = parse_args(&[]).unwrap();
        assert_eq!((options.port, options.config.rate_limit_per_min, options.config.now), (8080, 200, None));
        assert_eq!(options.config.scenario, reservations_sim::Scenario::Demo);
    }

    #[test]
    fn reads_every_flag_and_refuses_bad_values() {
        let options = parse_args(&[
            "--port",
            "9000",
            "--scenario",
            "large",
            "--seed",
            "7",
            "--rate-limit",
            "5",
            "--now",
            "2027-01-10T08:00:00Z",
        ])
        .unwrap();
        assert_eq!((options.port, options.config.seed, options.config.rate_limit_per_min), (9000, 7, 5));
        assert_eq!(options.config.scenario, reservations_sim::Scenario::Large);
        let huge = parse_args(&["--scenario", "huge"]).unwrap();
        assert_eq!(huge.config.scenario, reservations_sim::Scenario::Huge);
        assert_eq!(options.config.now.unwrap().to_rfc3339(), "2027-01-10T08:00:00+00:00");
        for bad in [
            &["--port", "80808"][..],
            &["--scenario", "enormous"],
            &["--now", "tomorrow"],
            &["--dist", "/no/such/dir"],
            &["--seed"],
            &["--verbose"],
        ] {
            assert!(parse_args(bad).is_err(), "{bad:?}");
        }
    }
}
