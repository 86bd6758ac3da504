//! The measured runs: one JSON object a line, each an example's `--json` line wrapped with what
//! ran it (`figures/measure.sh`), grouped into series of medians by size.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::Error;

/// One line of the runs file.
#[derive(Debug, Deserialize)]
struct Record {
    example: String,
    commit: String,
    cpu: String,
    avx512_ifma: bool,
    result: serde_json::Value,
}

/// What the figures read of an `fft --json` line.
#[derive(Debug, Deserialize)]
struct FftResult {
    size: usize,
    transform: String,
    inverse: bool,
    route: String,
    threads: usize,
    he_fft_s: f64,
    plain_fft_s: f64,
    verified: bool,
}

/// What the figures read of a `groth16 --json` line.
#[derive(Debug, Deserialize)]
struct WitnessMapResult {
    domain_size: usize,
    route: String,
    threads: usize,
    server_s: f64,
    plain_witness_map_s: f64,
    verified: bool,
}

/// Which computation a series times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Computation {
    /// The encrypted FFT (`fft` example) against ark-poly's.
    Fft,
    /// The encrypted witness map (`groth16` example) against ark-groth16's.
    WitnessMap,
}

/// One size's runs of one route: medians of the encrypted and plain times.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The transform's (or the witness map's domain) size.
    pub size: usize,
    /// Median seconds on ciphertexts (the server's part).
    pub encrypted_s: f64,
    /// Median seconds of the same computation in the clear, in the same runs.
    pub plain_s: f64,
    /// Median of each run's encrypted / plain ratio.
    pub overhead: f64,
    /// How many runs the medians are over.
    pub runs: usize,
}

/// One route of one computation, by size.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// What is timed.
    pub computation: Computation,
    /// The route's name as the example reports it.
    pub route: String,
    /// By increasing size.
    pub points: Vec<Point>,
}

impl Series {
    /// A label for legends: the computation and the route in words.
    pub fn label(&self) -> String {
        let route = match self.route.as_str() {
            "OneProduct" => "one product",
            "TwoStages" => "two stages",
            "FourSteps" => "four steps",
            "RowFfts" => "row FFTs, owner's step across rows",
            "server-only, one ciphertext, a and b packed" => "one ciphertext, a and b packed",
            "server-only, one ciphertext" => "one ciphertext",
            "server-only, four-step" => "four steps",
            other => other,
        };
        match self.computation {
            Computation::Fft => format!("FFT, {route}"),
            Computation::WitnessMap => format!("witness map, {route}"),
        }
    }
}

/// Every run of a file, grouped: the series and where they ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Runs {
    /// By computation, then route name.
    pub series: Vec<Series>,
    /// The `cpu (AVX-512 IFMA or not), threads` description (runs from several are refused).
    pub machines: Vec<String>,
    /// The distinct commits, sorted.
    pub commits: Vec<String>,
    /// Lines skipped because the figures do not draw them (inverse or coset transforms).
    pub skipped: usize,
}

/// Runs of one route and size before the medians.
#[derive(Default)]
struct Samples {
    encrypted: Vec<f64>,
    plain: Vec<f64>,
    overhead: Vec<f64>,
}

/// The median of a non-empty list.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

impl Runs {
    /// Reads a runs file (see [`Runs::parse`]).
    pub fn read(path: &Path) -> Result<Runs, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Runs::parse(&text).map_err(|e| e.in_file(path))
    }

    /// Parses runs, one JSON object a line (blank lines allowed). A run that did not verify, a
    /// size that is not a power of two or a time that is not positive is an error naming its
    /// line: a figure must not draw it.
    pub fn parse(text: &str) -> Result<Runs, Error> {
        let mut samples: BTreeMap<(Computation, String, usize), Samples> = BTreeMap::new();
        let mut machines = Vec::new();
        let mut commits = Vec::new();
        let mut skipped = 0;
        for (index, line) in text.lines().enumerate() {
            let line_no = index + 1;
            if line.trim().is_empty() {
                continue;
            }
            let bad = |reason: String| Error::Run {
                file: None,
                line: line_no,
                reason,
            };
            let record: Record =
                serde_json::from_str(line).map_err(|e| bad(format!("not a run record: {e}")))?;
            let (computation, route, size, threads, encrypted, plain, verified) =
                match record.example.as_str() {
                    "fft" => {
                        let r: FftResult = serde_json::from_value(record.result)
                            .map_err(|e| bad(format!("not an fft --json result: {e}")))?;
                        if r.inverse || r.transform != "FFT" {
                            skipped += 1;
                            continue;
                        }
                        let s = (r.size, r.threads, r.he_fft_s, r.plain_fft_s, r.verified);
                        (Computation::Fft, r.route, s.0, s.1, s.2, s.3, s.4)
                    }
                    "groth16" => {
                        let r: WitnessMapResult = serde_json::from_value(record.result)
                            .map_err(|e| bad(format!("not a groth16 --json result: {e}")))?;
                        let s = (r.domain_size, r.threads, r.server_s, r.plain_witness_map_s);
                        (
                            Computation::WitnessMap,
                            r.route,
                            s.0,
                            s.1,
                            s.2,
                            s.3,
                            r.verified,
                        )
                    }
                    other => return Err(bad(format!("unknown example {other:?}"))),
                };
            if !verified {
                return Err(bad("the run did not verify".into()));
            }
            if size < 2 || !size.is_power_of_two() {
                return Err(bad(format!("size {size} is not a power of two")));
            }
            for (what, t) in [("encrypted", encrypted), ("plain", plain)] {
                if !(t.is_finite() && t > 0.0) {
                    return Err(bad(format!("the {what} time {t} is not a positive number")));
                }
            }
            let ifma = if record.avx512_ifma {
                "AVX-512 IFMA"
            } else {
                "no AVX-512 IFMA"
            };
            let machine = format!("{} ({ifma}), {threads} threads", record.cpu);
            if !machines.contains(&machine) {
                machines.push(machine);
            }
            if !commits.contains(&record.commit) {
                commits.push(record.commit);
            }
            let s = samples.entry((computation, route, size)).or_default();
            s.encrypted.push(encrypted);
            s.plain.push(plain);
            s.overhead.push(encrypted / plain);
        }
        let mut series: Vec<Series> = Vec::new();
        for ((computation, route, size), s) in samples {
            let point = Point {
                size,
                runs: s.encrypted.len(),
                encrypted_s: median(s.encrypted),
                plain_s: median(s.plain),
                overhead: median(s.overhead),
            };
            match series.last_mut() {
                Some(last) if last.computation == computation && last.route == route => {
                    last.points.push(point)
                }
                _ => series.push(Series {
                    computation,
                    route,
                    points: vec![point],
                }),
            }
        }
        if series.is_empty() {
            return Err(Error::Empty { file: None });
        }
        // Routes in the order they take over as the size grows.
        series.sort_by_key(|s| (s.computation, s.points[0].size, s.route.clone()));
        // One figure, one setting: medians over runs on other machines or thread counts
        // would compare nothing.
        if machines.len() > 1 {
            return Err(Error::Mixed {
                file: None,
                machines: machines.join("; "),
            });
        }
        machines.sort();
        commits.sort();
        Ok(Runs {
            series,
            machines,
            commits,
            skipped,
        })
    }

    /// For each size, the fastest route's point of `computation` (by median encrypted time).
    pub fn fastest(&self, computation: Computation) -> Vec<Point> {
        let mut best: BTreeMap<usize, Point> = BTreeMap::new();
        for s in self.series.iter().filter(|s| s.computation == computation) {
            for p in &s.points {
                let better = best
                    .get(&p.size)
                    .is_none_or(|b| p.encrypted_s < b.encrypted_s);
                if better {
                    best.insert(p.size, p.clone());
                }
            }
        }
        best.into_values().collect()
    }

    /// Where the runs were taken, for a caption.
    pub fn provenance(&self) -> String {
        format!(
            "{}; commit {}",
            self.machines.join("; "),
            self.commits.join(", ")
        )
    }
}
