//! An outsourced FFT in three steps that share nothing but files: the data owner encrypts, a
//! server that never sees the secret key computes the FFT, and the owner decrypts and checks.
//!
//! ```text
//! cargo run --release --example outsource                  # all three steps, in a temp dir
//! cargo run --release --example outsource -- owner  DIR [--size N] [--small] [--all-galois-keys]
//! cargo run --release --example outsource -- server DIR [--small]
//! cargo run --release --example outsource -- verify DIR
//! ```
//!
//! `owner` writes `DIR/public/` (context, public key without relinearization key, master keys
//! the server derives its Galois keys from, or with `--all-galois-keys` every Galois key, the
//! encrypted input and the request; the input encrypted with the secret key, which halves its bytes) for the server,
//! and keeps `DIR/owner/` (secret key and plain input, both readable by the owner only, and its
//! own copies of the context, public key and request) to itself. `server` reads only
//! `DIR/public/` and writes the encrypted result there; `--small` lets it accept the owner's
//! insecure toy ring. `verify` trusts nothing in `DIR/public/` but the outputs: it decrypts them
//! with what `DIR/owner/` holds and runs the owner's O(n) check (`he_fft::check::fft`) against
//! the kept input. Exit status: 0 accepted, 1 rejected, 2 usage or engine error (a result that
//! does not even decrypt). Neither verdict is for the server's ears.
//! The steps are `bigp_he::outsource`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bigp_he::job::BoxError;
use bigp_he::outsource::{self, route_name, KeyShipping};
use clap::{Parser, Subcommand};

/// An encrypted FFT outsourced through files: the owner's keys and input, the server's
/// transform, the owner's check.
#[derive(Parser, Debug)]
#[command(name = "outsource")]
struct Cli {
    /// One step (default: all three, in a temporary directory).
    #[command(subcommand)]
    step: Option<Step>,
}

#[derive(Subcommand, Debug)]
enum Step {
    /// Keys and the encrypted input in DIR/public; the secret key and the input in DIR/owner.
    Owner {
        /// The working directory.
        dir: PathBuf,
        /// Transform size (a power of two).
        #[arg(long, default_value_t = 256)]
        size: usize,
        /// An insecure toy ring (N = 2048) for quick checks.
        #[arg(long)]
        small: bool,
        /// Ship every Galois key the FFT uses instead of master keys for the server to derive
        /// them from (more bytes, no derivation).
        #[arg(long)]
        all_galois_keys: bool,
    },
    /// The FFT on what DIR/public holds; writes the encrypted result there.
    Server {
        /// The working directory.
        dir: PathBuf,
        /// Accept the owner's insecure toy ring.
        #[arg(long)]
        small: bool,
    },
    /// Decrypt the result with what DIR/owner holds and run the owner's check.
    Verify {
        /// The working directory.
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    bigp_he::end_quietly_on_closed_stdout();
    let result = match Cli::parse().step {
        None => all_steps(),
        Some(Step::Owner {
            dir,
            size,
            small,
            all_galois_keys,
        }) => owner(&dir, size, small, all_galois_keys),
        Some(Step::Server { dir, small }) => server(&dir, small),
        Some(Step::Verify { dir }) => verify(&dir),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The three steps in a fresh temporary directory.
fn all_steps() -> Result<bool, BoxError> {
    let dir = std::env::temp_dir().join(format!("bigp-he-outsource-{}", std::process::id()));
    owner(&dir, 256, false, false)?;
    server(&dir, false)?;
    let ok = verify(&dir)?;
    std::fs::remove_dir_all(&dir)?;
    Ok(ok)
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn owner(dir: &Path, size: usize, small: bool, all_galois_keys: bool) -> Result<bool, BoxError> {
    bigp_he::reuse_freed_memory();
    let keys = if all_galois_keys {
        KeyShipping::AllGaloisKeys
    } else {
        KeyShipping::MasterKeys
    };
    let report = outsource::owner(dir, size, small, keys)?;
    for (name, bytes) in &report.files {
        println!("owner: {name:<12} {:>9.2} MiB", mib(*bytes));
    }
    let up: usize = report.files.iter().map(|(_, b)| b).sum();
    println!(
        "owner: n = {size}, {} route, N = {}, security {}; keys, encryption and files in {:.2} s ({} keys {:.2} s); {:.2} MiB up",
        route_name(report.request.route),
        report.ring_degree,
        report.security,
        report.time.as_secs_f64(),
        if all_galois_keys { "Galois" } else { "master" },
        report.galois_keygen_time.as_secs_f64(),
        mib(up)
    );
    Ok(true)
}

fn server(dir: &Path, allow_toy: bool) -> Result<bool, BoxError> {
    bigp_he::reuse_freed_memory();
    let report = outsource::server(dir, allow_toy)?;
    let keys = match report.derive_time {
        Some(d) => format!(
            "derived {} Galois keys from {} master keys in {:.2} s (ready in {:.2} s)",
            report.keys,
            report.masters,
            d.as_secs_f64(),
            report.keys_ready_time.as_secs_f64()
        ),
        None => format!(
            "read and validated {} Galois keys in {:.2} s",
            report.keys,
            report.keys_ready_time.as_secs_f64()
        ),
    };
    println!(
        "server: {keys}; read {} ciphertext(s) in {:.2} s; FFT ({}, with encoding its \
         diagonals) and writing in {:.2} s",
        report.request.count,
        report.load_time.as_secs_f64(),
        route_name(report.request.route),
        report.run_time.as_secs_f64()
    );
    Ok(true)
}

fn verify(dir: &Path) -> Result<bool, BoxError> {
    let verdict = outsource::verify(dir)?;
    match &verdict.reason {
        None => println!(
            "verify: accepted: the decrypted result passed the owner's check (O(n): {:.3} ms, \
             the plain FFT {:.3} ms); noise budget left {:.0} bits",
            verdict.check_time.as_secs_f64() * 1e3,
            verdict.plain_fft_time.as_secs_f64() * 1e3,
            verdict.noise_budget
        ),
        Some(reason) => println!("verify: REJECTED: {reason}"),
    }
    Ok(verdict.accepted)
}
