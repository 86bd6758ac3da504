//! `make plots`: draws docs/figures/*.svg from docs/figures/runs.jsonl (see the `figures`
//! crate), and prints the medians as a Markdown table.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use figures::{draw_figures, table, Runs};

/// Draws the figures from measured runs.
#[derive(Parser, Debug)]
struct Args {
    /// The runs, one JSON line each (figures/measure.sh appends them).
    #[arg(long, default_value = "docs/figures/runs.jsonl")]
    runs: PathBuf,
    /// Where the SVG files go.
    #[arg(long, default_value = "docs/figures")]
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = Runs::read(&args.runs).and_then(|runs| {
        let written = draw_figures(&runs, &args.out)?;
        print!("{}", table(&runs));
        if runs.skipped > 0 {
            eprintln!("figures: {} inverse or coset runs not drawn", runs.skipped);
        }
        for path in written {
            eprintln!("figures: wrote {}", path.display());
        }
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("figures: {e}");
            ExitCode::FAILURE
        }
    }
}
