//! The command line shared by the example tours: `[--small] [--seed N]`, a seed that changes
//! per run (and is printed so a run can be repeated), and exit codes (0 all checks passed,
//! 1 a decrypted result differed from the plain computation, 2 usage or engine error).

use std::process::ExitCode;

/// What the tours accept on the command line.
pub struct DemoOptions {
    /// Toy, insecure parameters (N = 2048) instead of 128-bit secure ones.
    pub small: bool,
    /// Seed of the random inputs.
    pub seed: u64,
}

/// Parses the arguments, runs `run` (which returns the number of mismatched checks) and maps
/// the outcome to an exit code. `name` and `about` appear in the usage message.
pub fn main(
    name: &str,
    about: &str,
    run: impl FnOnce(&DemoOptions) -> helib_rs::Result<usize>,
) -> ExitCode {
    crate::end_quietly_on_closed_stdout();
    let options = match parse_args(about) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            eprintln!("usage: {name} [--small] [--seed N]");
            return ExitCode::from(2);
        }
    };
    let seed = options.seed;
    match run(&options) {
        Ok(0) => {
            println!("\nall checks passed");
            ExitCode::SUCCESS
        }
        Ok(mismatches) => {
            println!("\n{mismatches} check(s) MISMATCHED (seed {seed})");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn parse_args(about: &str) -> Result<DemoOptions, String> {
    let mut options = DemoOptions {
        small: false,
        seed: time_seed(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--small" => options.small = true,
            "--seed" => {
                let value = args.next().ok_or("--seed needs a number")?;
                options.seed = value.parse().map_err(|_| format!("bad seed {value:?}"))?;
            }
            "-h" | "--help" => return Err(about.to_string()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

/// A seed that changes from run to run (test data, not a secret).
pub fn time_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}
