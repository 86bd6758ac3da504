//! The figures under `docs/figures/`, drawn from measured runs (`make plots`).
//!
//! `figures/measure.sh` runs the `fft` and `groth16` examples with `--json` on each route at
//! the sizes it serves and appends their lines to `docs/figures/runs.jsonl`; this crate reads
//! that file ([`Runs`]) and draws two log-log charts ([`draw_figures`]):
//!
//! - `time-by-size.svg`: the encrypted FFT and witness map (the fastest route measured at
//!   each size) against arkworks' FFT and ark-groth16's witness map in the same runs;
//! - `overhead-by-route.svg`: encrypted time over plain time, one line per route.
//!
//! Every point is a median over the runs of its size and route, and a run that did not verify
//! is refused rather than drawn.

mod chart;
mod runs;

use std::path::{Path, PathBuf};

use chart::{draw, Frame, Line, PALETTE};
use plotters::prelude::SeriesLabelPosition;
pub use runs::{Computation, Point, Runs, Series};

/// What can go wrong reading runs or drawing them.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The runs file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line of the runs is not a run the figures can draw.
    #[error("{}line {line}: {reason}", file.as_ref().map(|f| format!("{}, ", f.display())).unwrap_or_default())]
    Run {
        /// The file, once known.
        file: Option<PathBuf>,
        /// Its line, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// Runs from several machines or thread counts, which one figure cannot compare.
    #[error("{}runs from more than one machine or thread count: {machines}", file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default())]
    Mixed {
        /// The file, once known.
        file: Option<PathBuf>,
        /// Their descriptions.
        machines: String,
    },
    /// No run to draw.
    #[error("{}no runs to draw", file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default())]
    Empty {
        /// The file, once known.
        file: Option<PathBuf>,
    },
    /// A chart could not be drawn or written.
    #[error("cannot draw {path}: {reason}")]
    Draw {
        /// The SVG file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl Error {
    /// The same error, naming the file it came from.
    fn in_file(self, path: &Path) -> Error {
        match self {
            Error::Run { line, reason, .. } => Error::Run {
                file: Some(path.into()),
                line,
                reason,
            },
            Error::Empty { .. } => Error::Empty {
                file: Some(path.into()),
            },
            Error::Mixed { machines, .. } => Error::Mixed {
                file: Some(path.into()),
                machines,
            },
            other => other,
        }
    }
}

/// The file names [`draw_figures`] writes, in order.
pub const FIGURES: [&str; 2] = ["time-by-size.svg", "overhead-by-route.svg"];

/// `(size, value)` pairs of a series.
fn points(points: &[Point], value: impl Fn(&Point) -> f64) -> Vec<(f64, f64)> {
    points.iter().map(|p| (p.size as f64, value(p))).collect()
}

/// Draws [`FIGURES`] into `dir` and returns their paths.
pub fn draw_figures(runs: &Runs, dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let footnote = format!("Medians of measured runs: {}.", runs.provenance());
    let mut time_lines = Vec::new();
    let computations = [
        (
            Computation::Fft,
            "encrypted FFT",
            "arkworks FFT (plain)",
            PALETTE[0],
        ),
        (
            Computation::WitnessMap,
            "encrypted witness map",
            "ark-groth16 witness map (plain)",
            PALETTE[1],
        ),
    ];
    for (computation, encrypted, plain, color) in computations {
        let fastest = runs.fastest(computation);
        if fastest.is_empty() {
            continue;
        }
        time_lines.push(Line {
            label: format!("{encrypted} (fastest route)"),
            points: points(&fastest, |p| p.encrypted_s),
            color,
            dashed: false,
        });
        time_lines.push(Line {
            label: plain.to_string(),
            points: points(&fastest, |p| p.plain_s),
            color,
            dashed: true,
        });
    }
    let time = dir.join(FIGURES[0]);
    draw(
        &time,
        &Frame {
            title: "BN254: encrypted (BGV) against plain, by size",
            y_label: "seconds",
            footnote: &footnote,
            legend: SeriesLabelPosition::LowerRight,
        },
        &time_lines,
    )?;

    let overhead_lines: Vec<Line> = runs
        .series
        .iter()
        .zip(PALETTE.iter().cycle())
        .map(|(s, &color)| Line {
            label: s.label(),
            points: points(&s.points, |p| p.overhead),
            color,
            dashed: s.computation == Computation::WitnessMap,
        })
        .collect();
    let overhead = dir.join(FIGURES[1]);
    draw(
        &overhead,
        &Frame {
            title: "Overhead (encrypted time / plain time) by route",
            y_label: "times the plain time",
            footnote: &footnote,
            legend: SeriesLabelPosition::UpperRight,
        },
        &overhead_lines,
    )?;
    Ok(vec![time, overhead])
}

/// The medians as a Markdown table, for BENCHMARKS.md.
pub fn table(runs: &Runs) -> String {
    let mut out = String::from(
        "| computation, route | n | runs | encrypted (median) | plain (median) | overhead (median) |\n\
         |---|---|---|---|---|---|\n",
    );
    for s in &runs.series {
        for p in &s.points {
            out.push_str(&format!(
                "| {} | {} | {} | {:.3} s | {:.6} s | {:.0}x |\n",
                s.label(),
                p.size,
                p.runs,
                p.encrypted_s,
                p.plain_s,
                p.overhead
            ));
        }
    }
    out
}
