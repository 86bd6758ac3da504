//! One benchmark, one core, one run: this library at BN254 against Paillier-3072
//! (kzen-paillier), SEAL's BFV (sealy) and fhe.rs's BFV. Per ciphertext and per element:
//! encrypt, add, multiply by a constant, multiply by a plaintext vector, decrypt, and the bytes
//! of a ciphertext. Every scheme's results are checked against the plain computation.
//!
//! ```text
//! make peers                          # builds and runs this, writes peers.json
//! peers/target/release/peers [--json] [--output FILE] [--only ours,paillier,seal,fhers]
//!                            [--aggregation-only] [--budget-ms MS]
//! ```

mod fhers;
mod measure;
mod ours;
mod paillier;
mod seal;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use measure::Row;

/// This library against Paillier, SEAL and fhe.rs, on one core.
#[derive(Parser, Debug)]
#[command(name = "peers")]
struct Args {
    /// The rows as one JSON array, the last line of standard output.
    #[arg(long)]
    json: bool,
    /// Also write the JSON array to this file.
    #[arg(long)]
    output: Option<std::path::PathBuf>,
    /// The schemes to measure (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Scheme>,
    /// The peers only, for `examples/aggregate.rs`, which measures this library itself.
    #[arg(long)]
    aggregation_only: bool,
    /// Wall time to spend on each timed operation (medians of at least 5-20 runs).
    #[arg(long, default_value_t = 300)]
    budget_ms: u64,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    Ours,
    Paillier,
    Seal,
    Fhers,
}

type Measure = fn(Duration) -> Result<measure::Figures, Box<dyn std::error::Error>>;

fn main() -> ExitCode {
    let args = Args::parse();
    // As the examples do: freed buffers are reused, so no scheme's timings include the page
    // faults of fresh memory.
    if let Err(e) = helib_rs::retain_freed_memory() {
        eprintln!("note: {e}");
    }
    // One core for every scheme: a one-thread pool (kzen-paillier's CRT decryption and this
    // library's engine would otherwise use more).
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: thread pool: {e}");
            return ExitCode::from(2);
        }
    };
    pool.install(|| run(&args))
}

fn run(args: &Args) -> ExitCode {
    let budget = Duration::from_millis(args.budget_ms);
    let all: [(Scheme, Measure); 5] = [
        (Scheme::Ours, ours::measure_slots),
        (Scheme::Ours, ours::measure_coefficients),
        (Scheme::Paillier, paillier::measure),
        (Scheme::Seal, seal::measure),
        (Scheme::Fhers, fhers::measure),
    ];
    let mut rows: Vec<Row> = Vec::new();
    for (scheme, measure) in all {
        let wanted = args.only.is_empty() || args.only.contains(&scheme);
        if !wanted || (args.aggregation_only && scheme == Scheme::Ours) {
            continue;
        }
        match measure(budget) {
            Ok(f) => rows.push(f.row()),
            Err(e) => {
                eprintln!("error: {scheme:?}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if !args.json {
        print_table(&rows);
    }
    let json = match serde_json::to_string(&rows) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &args.output {
        if let Err(e) = std::fs::write(path, format!("{json}\n")) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if args.json {
        println!("{json}");
    }
    if rows.iter().all(|r| r.verified) {
        ExitCode::SUCCESS
    } else {
        eprintln!("error: a scheme's decrypted results differ from the plain computation");
        ExitCode::FAILURE
    }
}

fn print_table(rows: &[Row]) {
    let us = |s: f64| format!("{:.3}", s * 1e6);
    println!("per ciphertext (elements per ciphertext in brackets), one core:");
    println!(
        "{:<30} {:>7} {:>12} {:>12} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "scheme",
        "p bits",
        "encrypt ms",
        "online ms",
        "add ms",
        "x const",
        "x plain",
        "decrypt ms",
        "bytes"
    );
    for r in rows {
        println!(
            "{:<30} {:>7} {:>12.3} {:>12} {:>10.4} {:>10.3} {:>10} {:>12.3} {:>10}",
            format!("{} [{}]", r.scheme, r.elements_per_ciphertext),
            r.plaintext_bits,
            r.encrypt_s * 1e3,
            r.encrypt_online_s
                .map_or("-".into(), |s| format!("{:.3}", s * 1e3)),
            r.add_s * 1e3,
            r.mul_const_s * 1e3,
            r.mul_plain_s
                .map_or("-".into(), |s| format!("{:.3}", s * 1e3)),
            r.decrypt_s * 1e3,
            r.ciphertext_bytes
        );
    }
    println!("per element (us; bytes), and per 254-bit value (ciphertexts a CRT split needs):");
    println!(
        "{:<30} {:>12} {:>12} {:>12} {:>10} {:>14} {:>14}",
        "scheme", "encrypt", "add", "decrypt", "bytes", "254-bit: enc", "254-bit: bytes"
    );
    for r in rows {
        let k = f64::from(r.ciphertexts_per_254_bit_value);
        println!(
            "{:<30} {:>12} {:>12} {:>12} {:>10.1} {:>14} {:>14.1}",
            r.scheme,
            us(r.encrypt_per_element_s),
            us(r.add_per_element_s),
            us(r.decrypt_per_element_s),
            r.bytes_per_element,
            us(r.encrypt_per_element_s * k),
            r.bytes_per_element * k
        );
    }
    for r in rows {
        println!(
            "  {}: {}{}",
            r.scheme,
            r.parameters,
            if r.verified { "" } else { "  RESULTS WRONG" }
        );
    }
}
