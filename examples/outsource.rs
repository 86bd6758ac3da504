//! An outsourced FFT in three steps that share nothing but files: the data owner encrypts, a
//! server that never sees the secret key computes the FFT, and the owner decrypts and checks.
//!
//! ```text
//! cargo run --release --example outsource                  # all three steps, in a temp dir
//! cargo run --release --example outsource -- owner  DIR [--size N] [--small] [--all-galois-keys | --master-keys]
//! cargo run --release --example outsource -- server DIR [--small]
//! cargo run --release --example outsource -- verify DIR
//! ```
//!
//! `--json` (any step) adds one JSON object per step: bytes up and down, key bytes, the
//! owner's and the server's times (key derivation and `keys_ready_s` among them).
//!
//! `owner` writes `DIR/public/` (context, public key without relinearization key, master keys
//! the server derives its Galois keys from where the ring has room for them, else every Galois
//! key, the encrypted input and the request; the input encrypted with the secret key, which halves its bytes) for the server,
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
use bigp_he::outsource::{self, KeyShipping};
use clap::{Parser, Subcommand};

/// An encrypted FFT outsourced through files: the owner's keys and input, the server's
/// transform, the owner's check.
#[derive(Parser, Debug)]
#[command(name = "outsource")]
struct Cli {
    /// One step (default: all three, in a temporary directory).
    #[command(subcommand)]
    step: Option<Step>,
    /// Each step also prints one JSON object, as the last line of its output.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Subcommand, Debug, Clone)]
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
        /// Ship every Galois key the FFT uses (more bytes, no derivation). The default: master
        /// keys for the server to derive them from where the route's ring has room (the
        /// two-stage sizes, 4096 to 32768), every key elsewhere.
        #[arg(long, conflicts_with = "master_keys")]
        all_galois_keys: bool,
        /// Ship master keys at any size (one-product sizes then run on a larger ring).
        #[arg(long)]
        master_keys: bool,
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
    // Clap reports a usage error itself (exit status 2); 0 threads is rayon's default.
    bigp_he::job::main("", Ok(Cli::parse()), |_| 0, run)
}

fn run(cli: &Cli) -> Result<bool, BoxError> {
    let json = cli.json;
    match cli.step.clone() {
        None => all_steps(json),
        Some(Step::Owner {
            dir,
            size,
            small,
            all_galois_keys,
            master_keys,
        }) => {
            let keys = if all_galois_keys {
                KeyShipping::AllGaloisKeys
            } else if master_keys {
                KeyShipping::MasterKeys
            } else {
                KeyShipping::Auto
            };
            owner(&dir, size, small, keys, json)
        }
        Some(Step::Server { dir, small }) => server(&dir, small, json),
        Some(Step::Verify { dir }) => verify(&dir, json),
    }
}

/// The three steps in a fresh temporary directory.
fn all_steps(json: bool) -> Result<bool, BoxError> {
    // A fresh directory of the user's alone (mode 0700, a random name), removed on drop.
    let dir = tempfile::Builder::new()
        .prefix("bigp-he-outsource-")
        .tempdir()?;
    owner(dir.path(), 256, false, KeyShipping::Auto, json)?;
    server(dir.path(), false, json)?;
    verify(dir.path(), json)
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn owner(
    dir: &Path,
    size: usize,
    small: bool,
    keys: KeyShipping,
    json: bool,
) -> Result<bool, BoxError> {
    bigp_he::reuse_freed_memory();
    let report = outsource::owner(dir, size, small, keys)?;
    for (name, bytes) in &report.files.files {
        println!("owner: {name:<12} {:>9.2} MiB", mib(*bytes));
    }
    let up: usize = report.files.files.iter().map(|(_, b)| b).sum();
    println!(
        "owner: n = {size}, {} route, N = {}, security {}; keys, encryption and files in {:.2} s ({} keys {:.2} s); {:.2} MiB up",
        report.route,
        report.files.ring_degree,
        report.files.security,
        report.files.time.as_secs_f64(),
        if report.master_keys { "master" } else { "Galois" },
        report.files.galois_keygen_time.as_secs_f64(),
        mib(up)
    );
    if json {
        let key_file = if report.master_keys {
            "masters.bin"
        } else {
            "galois.bin"
        };
        let key_bytes = report
            .files
            .files
            .iter()
            .find(|(name, _)| name == key_file)
            .map_or(0, |(_, b)| *b);
        println!(
            "{{\"step\":\"owner\",\"size\":{size},\"route\":\"{}\",\"ring_degree\":{},\"master_keys\":{},\
\"upload_bytes\":{up},\"galois_key_bytes\":{key_bytes},\"owner_s\":{:.6},\"galois_keygen_s\":{:.6}}}",
            report.route,
            report.files.ring_degree,
            report.master_keys,
            report.files.time.as_secs_f64(),
            report.files.galois_keygen_time.as_secs_f64()
        );
    }
    Ok(true)
}

fn server(dir: &Path, allow_toy: bool, json: bool) -> Result<bool, BoxError> {
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
        "server: {keys}; read the inputs in {:.2} s; {} in {:.2} s; FFT (with encoding its \
         diagonals) and writing in {:.2} s",
        report.load_time.as_secs_f64(),
        report.request,
        report.setup_time.as_secs_f64(),
        report.run_time.as_secs_f64()
    );
    if json {
        println!(
            "{{\"step\":\"server\",\"galois_keys\":{},\"master_keys\":{},\"derive_s\":{:.6},\
\"keys_ready_s\":{:.6},\"load_s\":{:.6},\"fft_s\":{:.6},\"download_bytes\":{}}}",
            report.keys,
            report.masters,
            report.derive_time.map_or(0.0, |d| d.as_secs_f64()),
            report.keys_ready_time.as_secs_f64(),
            report.load_time.as_secs_f64(),
            report.run_time.as_secs_f64(),
            report.download_bytes
        );
    }
    Ok(true)
}

fn verify(dir: &Path, json: bool) -> Result<bool, BoxError> {
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
    if json {
        println!(
            "{{\"step\":\"verify\",\"accepted\":{},\"noise_budget_bits\":{:.1},\"check_s\":{:.9},\"plain_fft_s\":{:.9}}}",
            verdict.accepted,
            verdict.noise_budget,
            verdict.check_time.as_secs_f64(),
            verdict.plain_fft_time.as_secs_f64()
        );
    }
    Ok(verdict.accepted)
}
