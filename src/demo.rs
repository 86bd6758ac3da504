//! The command line shared by the example tours: `[--small] [--seed N]`, a seed that changes
//! per run (and is printed so a run can be repeated), and exit codes (0 all checks passed,
//! 1 a decrypted result differed from the plain computation, 2 usage or engine error).

use std::process::ExitCode;

use clap::{Args, FromArgMatches};

use crate::cli::TourArgs;

/// What the tours accept on the command line.
pub struct DemoOptions {
    /// Toy, insecure parameters (N = 2048) instead of 128-bit secure ones.
    pub small: bool,
    /// Seed of the random inputs.
    pub seed: u64,
}

/// Parses the arguments (clap: `--help`, and exit code 2 on a usage error), runs `run`
/// (which returns the number of mismatched checks) on the examples' shared runner
/// ([`job::main`](crate::job::main)), which maps the outcome to an exit code. `name` and
/// `about` appear in the help.
pub fn main(
    name: &'static str,
    about: &'static str,
    run: impl FnOnce(&DemoOptions) -> helib_rs::Result<usize> + Send,
) -> ExitCode {
    let command = TourArgs::augment_args(clap::Command::new(name)).about(about);
    let parsed = command
        .try_get_matches()
        .and_then(|m| TourArgs::from_arg_matches(&m));
    let args = match parsed {
        Ok(args) => args,
        Err(e) => e.exit(),
    };
    let options = DemoOptions {
        small: args.small,
        seed: args.seed.unwrap_or_else(time_seed),
    };
    // 0 threads: rayon's default pool, as the tours have no --threads.
    crate::job::main(
        "",
        Ok(options),
        |_| 0,
        |options| {
            let mismatches = run(options)?;
            if mismatches == 0 {
                println!("\nall checks passed");
            } else {
                println!("\n{mismatches} check(s) MISMATCHED (seed {})", options.seed);
            }
            Ok(mismatches == 0)
        },
    )
}

/// A seed that changes from run to run (test data, not a secret).
pub fn time_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}
