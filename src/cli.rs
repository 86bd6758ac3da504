//! The command-line flags the examples share, for clap: the timed jobs' `--threads`, `--json`
//! and `--small`, the tours' `--small` and `--seed`, and `--cache`.

use std::num::NonZeroUsize;

use clap::{Args, ValueEnum};
use he_fft::DiagonalCache;

/// `--threads T --json --small`, flattened into a timed job's arguments.
#[derive(Args, Debug, Clone)]
pub struct JobArgs {
    /// Threads of the rayon pool (default: all cores).
    #[arg(long)]
    pub threads: Option<NonZeroUsize>,
    /// One JSON object as the last line of standard output.
    #[arg(long)]
    pub json: bool,
    /// An insecure toy ring (N = 2048) for quick checks.
    #[arg(long)]
    pub small: bool,
}

impl JobArgs {
    /// The pool size: `--threads`, or every core.
    pub fn threads(&self) -> usize {
        self.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
            NonZeroUsize::get,
        )
    }
}

/// `--small --seed S`, the example tours' flags.
#[derive(Args, Debug, Clone)]
pub struct TourArgs {
    /// Toy, insecure parameters (N = 2048) instead of 128-bit secure ones.
    #[arg(long)]
    pub small: bool,
    /// Seed of the random inputs (default: from the clock; printed, so a run can be repeated).
    #[arg(long)]
    pub seed: Option<u64>,
}

/// `--cache`: whether a transform keeps its encoded plaintext diagonals in memory.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cache {
    /// Encoded beforehand and kept when they fit the default budget (2 GiB per stage).
    #[default]
    Auto,
    /// Encoded beforehand and kept, whatever their size.
    Always,
    /// Encoded during each run: least memory.
    Never,
}

impl From<Cache> for DiagonalCache {
    fn from(cache: Cache) -> Self {
        match cache {
            Cache::Auto => DiagonalCache::default(),
            Cache::Always => DiagonalCache::Always,
            Cache::Never => DiagonalCache::Never,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Job {
        #[command(flatten)]
        job: JobArgs,
        #[arg(long, value_enum, default_value_t)]
        cache: Cache,
    }

    #[test]
    fn parses_and_refuses() {
        let j =
            Job::try_parse_from(["job", "--threads", "3", "--json", "--cache", "never"]).unwrap();
        assert_eq!((j.job.threads(), j.job.json, j.job.small), (3, true, false));
        assert_eq!(DiagonalCache::from(j.cache), DiagonalCache::Never);
        assert!(Job::try_parse_from(["job"]).unwrap().job.threads() >= 1);
        for bad in [
            &["job", "--threads", "0"][..],
            &["job", "--threads", "x"],
            &["job", "--cache", "sometimes"],
            &["job", "--size", "8"],
        ] {
            assert!(Job::try_parse_from(bad).is_err(), "{bad:?}");
        }
    }
}
