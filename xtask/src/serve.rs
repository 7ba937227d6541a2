//! `cargo xtask serve`: builds dist/, then runs the simulator in release,
//! serving the console at `/` and the APIs under `/api`.

use crate::proc;
use crate::{dist, Result};

const SIMULATOR: &str = "reservations-sim";

#[derive(Debug, PartialEq)]
struct Options {
    port: u16,
    scenario: String,
    /// Passed to the simulator unchanged (`--seed N`, `--rate-limit N`, `--now RFC3339`).
    simulator_flags: Vec<String>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut options = Options { port: 8080, scenario: "demo".into(), simulator_flags: Vec::new() };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--port" => {
                    let value = args.next().ok_or("--port needs a number")?;
                    options.port = value.parse().map_err(|_| format!("--port {value}: not a port number"))?;
                }
                "--scenario" => options.scenario = args.next().ok_or("--scenario needs demo, large or huge")?.clone(),
                _ => options.simulator_flags.push(arg.clone()),
            }
        }
        Ok(options)
    }
}

pub fn run(args: &[String]) -> Result {
    let options = Options::parse(args)?;
    dist::run()?;
    // Built before the banner so the URL shows up only once the wait is over.
    proc::run(proc::cargo().args(["build", "--release", "--package", SIMULATOR]))?;
    // The demo keys are printed by the simulator as it starts (one list, `sim/src/auth.rs`).
    println!("\nConsole: http://127.0.0.1:{}/  (scenario {}; Ctrl-C stops)\n", options.port, options.scenario);
    proc::run(
        proc::cargo()
            .args(["run", "--quiet", "--release", "--package", SIMULATOR, "--", "--port"])
            .arg(options.port.to_string())
            .arg("--dist")
            .arg(dist::dist_dir())
            .args(["--scenario", &options.scenario])
            .args(&options.simulator_flags),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options> {
        Options::parse(&args.iter().map(|arg| arg.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn defaults_to_port_8080_and_the_demo_scenario() {
        let options = parse(&[]).unwrap();
        assert_eq!((options.port, options.scenario.as_str()), (8080, "demo"));
    }

    #[test]
    fn reads_port_and_scenario_and_forwards_other_flags() {
        let options = parse(&["--seed", "7", "--port", "9000", "--scenario", "large"]).unwrap();
        assert_eq!(
            options,
            Options { port: 9000, scenario: "large".into(), simulator_flags: vec!["--seed".into(), "7".into()] }
        );
    }

    #[test]
    fn rejects_a_port_that_is_not_a_port_number() {
        assert!(parse(&["--port", "80808"]).is_err());
        assert!(parse(&["--port"]).is_err());
    }
}
