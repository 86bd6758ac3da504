//! A zk prover's quotient polynomial computed on encrypted data: the FFT work of Groth16's
//! witness map (three iFFTs, three coset FFTs and a coset iFFT around a pointwise
//! `(a b - c) / Z_H`) done by a server that holds only ciphertexts and keys, verified against
//! the plain computation.
//!
//! ```text
//! cargo run --release --example quotient -- [--size N] [--threads T] [--json]
//!                                           [--baby-steps B] [--small]
//! ```
//!
//! `--baby-steps B` sets the BSGS baby steps of both transforms (a power of two up to n/2):
//! fewer baby steps mean fewer Galois keys (the bulk of the memory at large n) and more
//! giant-step rotations.
//!
//! The evaluations `a`, `b`, `c` on `H` are random with `c = a b` (constraints that hold), so
//! `h` is the exact quotient `(A B - C) / Z_H`, of degree at most `n - 2`. Exit status: 0
//! verified, 1 mismatch, 2 usage or engine error.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::SeedableRng;
use bigp_he::cli::JobArgs;
use bigp_he::demo::time_seed;
use bigp_he::job::{self, BoxError};
use bigp_he::{median_time, peak_rss_bytes, plain_quotient};
use clap::{CommandFactory, Parser};
use he_fft::{
    quotient_ciphertext_bits, quotient_context, EncryptedTransform, FftOptions, Quotient,
};
use helib_rs::{GaloisKeys, PubKey, SecKey};

/// A zk prover's quotient polynomial on encrypted data, compared with the plain computation.
#[derive(Parser, Debug)]
#[command(name = "quotient")]
struct Args {
    /// Domain size n (a power of two).
    #[arg(long, default_value_t = 1024)]
    size: usize,
    #[command(flatten)]
    job: JobArgs,
    /// BSGS baby steps of both transforms (a power of two up to n/2): fewer mean fewer
    /// Galois keys and more giant-step rotations.
    #[arg(long)]
    baby_steps: Option<usize>,
}

fn main() -> ExitCode {
    let usage = Args::command().render_usage().to_string();
    let args = Args::parse();
    let checked = job::check_size(args.size)
        .map_err(|e| format!("--size: {e}"))
        .map(|()| args);
    job::main(&usage, checked, |a| a.job.threads(), run)
}

fn run(args: &Args) -> Result<bool, BoxError> {
    // A long computation: reuse freed buffers instead of page-faulting fresh ones.
    bigp_he::reuse_freed_memory();
    let n = args.size;
    let say = |line: String| {
        if !args.job.json {
            println!("{line}");
        }
    };

    let ctx = if args.job.small {
        // Toy ring for quick checks: far below 128-bit security (the parameters line says so).
        job::toy_context(quotient_ciphertext_bits(2048, 254, n))?
    } else {
        quotient_context::<Fr>(n)?
    };
    say(format!(
        "encrypted QAP quotient h = (A B - C) / Z_H of size {n} over BN254 Fr, {} thread(s)",
        args.job.threads()
    ));
    say(job::parameters_line(&ctx, args.job.small));

    // Data owner: keys.
    let t = Instant::now();
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let keygen = t.elapsed();

    // Server side, data-independent: both plans and their diagonals.
    let t = Instant::now();
    let mut options = FftOptions::default();
    options.plan.baby_steps = args.baby_steps;
    let quotient = Quotient::<Fr>::new(&ctx, n, &options)?;
    let encode = t.elapsed();
    // Drawn once the context and plans accepted the size.
    let mut rng = ark_std::rand::rngs::StdRng::seed_from_u64(time_seed());
    let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
    let stages = [
        (
            "coset change",
            quotient.to_coset().plan(),
            quotient.to_coset().encoded(),
        ),
        (
            "coset iFFT",
            quotient.from_coset().plan(),
            quotient.from_coset().encoded(),
        ),
    ];
    for (what, plan, encoded) in stages {
        say(format!(
            "{what}: BSGS {} x {}, {} rotations, diagonals {}",
            plan.baby_steps(),
            plan.giant_steps(),
            plan.num_rotations(),
            if encoded.is_cached() {
                format!(
                    "cached ({:.0} MiB)",
                    encoded.cache_bytes() as f64 / (1 << 20) as f64
                )
            } else {
                "encoded on demand".into()
            }
        ));
    }

    // Data owner: Galois keys, then the three encrypted vectors.
    let t = Instant::now();
    let gk = GaloisKeys::generate(&sk, &quotient.galois_steps())?;
    let galois_keygen = t.elapsed();
    let t = Instant::now();
    // a, b and c's ciphertexts, one vector after the other.
    let mut abc = quotient.encrypt(&pk, &a)?;
    abc.extend(quotient.encrypt(&pk, &b)?);
    abc.extend(quotient.encrypt(&pk, &c)?);
    let encrypt = t.elapsed();

    // Server: three coset changes, the product, the coset iFFT.
    let bar = job::progress_bar(quotient.progress_total(), "HE quotient", args.job.json);
    // When the third coset change's last giant step is done: the rest is the product and
    // the coset iFFT.
    let changes_done = 3 * quotient.to_coset().progress_total();
    let changes_ns = AtomicU64::new(0);
    let t = Instant::now();
    let h = quotient.apply_with_progress(&gk, &abc, &|done, _| {
        if done == changes_done {
            changes_ns.store(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
        bar.set_position(done as u64)
    })?;
    let server = t.elapsed();
    let changes = Duration::from_nanos(changes_ns.load(Ordering::Relaxed));
    bar.finish_and_clear();
    let budget = h
        .iter()
        .map(|c| c.noise_budget())
        .fold(f64::INFINITY, f64::min);

    // Data owner: decryption, and the plain reference.
    let t = Instant::now();
    let result = quotient.decrypt(&sk, &h)?;
    let decrypt = t.elapsed();
    let (expected, plain) = median_time(|| plain_quotient(&a, &b, &c, Fr::GENERATOR));
    // The owner's O(n) check, as an owner without the plain result would run it.
    let domain = Radix2EvaluationDomain::<Fr>::new(n).ok_or("no domain of this size")?;
    let checked = he_fft::check::quotient(&domain, &a, &b, &c, &result);
    if let Err(e) = &checked {
        say(format!("owner's check: {e}"));
    }
    let verified = Some(&result) == expected.as_ref() && result[n - 1].is_zero() && checked.is_ok();

    let secs = |d: Duration| d.as_secs_f64();
    let overhead = secs(server) / secs(plain).max(1e-9);
    let rss = peak_rss_bytes();
    let rows = [
        (
            "key generation (secret, public, relinearization)",
            secs(keygen),
        ),
        ("plans and diagonals (once per size)", secs(encode)),
        ("Galois keys", secs(galois_keygen)),
        ("encrypt a, b, c", secs(encrypt)),
        ("HE quotient (server)", secs(server)),
        ("  of which the three coset changes", secs(changes)),
        ("decrypt h", secs(decrypt)),
    ];
    for (what, s) in rows {
        say(format!("{what:<50}{s:>10.3} s"));
    }
    say(format!(
        "{:<50}{:>10.6} s",
        "plain quotient, 7 arkworks FFTs (median)",
        secs(plain)
    ));
    say(format!("{:<50}{overhead:>10.0}x", "overhead HE / plain"));
    say(format!(
        "{:<50}{:>10.0} MiB",
        format!("Galois keys ({} keys)", gk.elements().len()),
        gk.size_bytes() as f64 / (1 << 20) as f64
    ));
    say(format!("{:<50}{budget:>10.1} bits", "noise budget left"));
    say(format!(
        "{:<50}{:>10.0} MiB",
        "peak RSS",
        rss as f64 / (1 << 20) as f64
    ));
    say(format!(
        "verified against the plain witness map: {}",
        if verified { "yes" } else { "NO — MISMATCH" }
    ));
    if args.job.json {
        println!(
            "{{\"size\":{n},\"ring_degree\":{},\"log2_qp\":{:.1},\"security_bits\":{:.1},\"threads\":{},\"baby_steps\":{},\
\"keygen_s\":{:.6},\"encode_s\":{:.6},\"galois_keygen_s\":{:.6},\"galois_keys\":{},\"galois_key_bytes\":{},\
\"encrypt_s\":{:.6},\"he_quotient_s\":{:.6},\"coset_changes_s\":{:.6},\"decrypt_s\":{:.6},\"plain_s\":{:.9},\"overhead\":{:.1},\
\"noise_budget_bits\":{:.1},\"peak_rss_bytes\":{rss},\"verified\":{verified}}}",
            ctx.ring_degree(),
            ctx.log2_qp(),
            ctx.security_bits(),
            args.job.threads(),
            quotient.to_coset().plan().baby_steps(),
            secs(keygen),
            secs(encode),
            secs(galois_keygen),
            gk.elements().len(),
            gk.size_bytes(),
            secs(encrypt),
            secs(server),
            secs(changes),
            secs(decrypt),
            secs(plain),
            overhead,
            budget,
        );
    }
    std::io::stdout().flush()?;
    Ok(verified)
}
