//! The main job: an exact encrypted BN254 FFT (or inverse FFT), verified against arkworks.
//!
//! ```text
//! cargo run --release --example fft -- [--size N] [--inverse] [--coset | --to-coset]
//!                                      [--threads T] [--json] [--input FILE --output FILE]
//!                                      [--cache auto|always|never] [--ring-degree R | --small]
//!                                      [--one-stage | --two-stage | --four-step | --row-ffts]
//!                                      [--server URL --token-file FILE]
//! ```
//!
//! A data owner generates keys and encrypts; a server holding only ciphertexts and the Galois
//! keys the plan asks for computes the FFT; the owner decrypts. The example plays both sides
//! and checks the result against `ark_poly::Radix2EvaluationDomain`. Exit status: 0 verified,
//! 1 mismatch, 2 usage or engine error.
//!
//! `--ring-degree R` uses ring degree R (>= 128-bit security is still required) instead of
//! the default: 32768 for one product, 65536 for two stages (131072 for n = 65536), and with
//! `--to-coset` 2n, from 32768 up to 65536, so the vector fits half the slots.
//!
//! `--server URL --token-file FILE` runs the transform on a running `he-server` (`make serve`):
//! the keys go up once as a key set, the transform is a job on it, and the JSON adds the bytes
//! on the wire each way, the time spent sending and receiving them, and the server's own time.
//!
//! `--coset` runs the transform on the coset `g H` (`g = Fr::GENERATOR`, as ark-groth16 does);
//! `--to-coset` takes evaluations on `H` to evaluations on `g H` (`coset.fft(&h.ifft(x))`, a
//! prover's move to its quotient coset) as one circulant product.
//!
//! `--two-stage` runs the FFT as two sparse products (`he_fft::TwoStageFft`: one
//! radix-sqrt(n) Cooley-Tukey step, two levels) on its own context (`N = 65536`);
//! `--one-stage` as one product (`he_fft::OneProductFft`); `--four-step` across `n / 32768` slot rows
//! (two per ciphertext), then two stages in each row (`he_fft::FourStepFft`, three levels,
//! `N = 65536`, for n >= 65536); `--row-ffts` the same with the step across rows done by the
//! owner while encoding (`he_fft::Route::RowFfts`: the server runs the row FFTs, two levels,
//! a smaller modulus). Without any of them, the example takes the fastest route for the size
//! (`he_fft::Route::fastest_for`): one product up to n = 2048, two stages up to 32768, four
//! steps beyond; with `--small` or `--ring-degree`, one product.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::SeedableRng;
use bigp_he::cli::{Cache, JobArgs};
use bigp_he::demo::time_seed;
use bigp_he::job::{self, BoxError};
use bigp_he::{median_time, peak_rss_bytes};
use clap::{CommandFactory, Parser};
use he_fft::protocol::{Job, KeyKind, KeySetParts, Request, Ring};
use he_fft::{
    check, CosetChange, Direction, EncodedTransform, EncryptedTransform, Fft, FftOptions,
    PlanOptions, Route, RouteTransform, TransformPlan, TwoStageFft,
};
use helib_rs::{Context, Ctxt, GaloisKeys, MasterKeys, PubKey, SecKey};

/// An exact encrypted FFT over BN254, compared with ark-poly's.
#[derive(Parser, Debug)]
#[command(name = "fft")]
struct Args {
    /// Transform size (a power of two).
    #[arg(long, default_value_t = 1024, conflicts_with = "input")]
    size: usize,
    /// The inverse FFT.
    #[arg(long)]
    inverse: bool,
    /// On the coset g H (g = Fr::GENERATOR), as ark-groth16 evaluates its quotient.
    #[arg(long)]
    coset: bool,
    /// Evaluations on H to evaluations on g H, in one product with a circulant matrix.
    #[arg(long, conflicts_with_all = ["coset", "inverse", "two_stage", "four_step"])]
    to_coset: bool,
    #[command(flatten)]
    job: JobArgs,
    /// The input vector, one decimal element per line (sets the size).
    #[arg(long)]
    input: Option<String>,
    /// Where to write the result, one decimal element per line.
    #[arg(long)]
    output: Option<String>,
    /// Keep the encoded plaintext diagonals in memory between runs.
    #[arg(long, value_enum, default_value_t)]
    cache: Cache,
    /// This ring degree instead of the one picked for the size (>= 128-bit security is still
    /// required).
    #[arg(long, conflicts_with = "small")]
    ring_degree: Option<usize>,
    /// One product of n diagonals (one level).
    #[arg(long, group = "route")]
    one_stage: bool,
    /// Two sparse products (two levels).
    #[arg(long, group = "route")]
    two_stage: bool,
    /// Across slot rows, then two stages in each (three levels).
    #[arg(long, group = "route")]
    four_step: bool,
    /// As --four-step, with the step across rows done by the owner while encoding (the server
    /// runs the row FFTs alone, two levels).
    #[arg(long, group = "route")]
    row_ffts: bool,
    /// The owner ships master keys and the server derives the Galois keys from them (a
    /// context with room for derived keys; see helib_rs::MasterKeys).
    #[arg(long, conflicts_with_all = ["ring_degree", "to_coset"])]
    master_keys: bool,
    /// Galois keys each stage's baby steps use (1 to 1024; default one per baby step, hoisted):
    /// fewer keys, the baby steps computed in rounds (see PlanOptions::baby_step_keys).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    baby_step_keys: Option<u16>,
    /// Run the transform on the he-server at this URL (e.g. http://127.0.0.1:8700; make serve
    /// starts one): the keys go up once as a key set, the transform is a job on it.
    #[arg(long, requires = "token_file", conflicts_with_all = ["coset", "to_coset", "ring_degree"])]
    server: Option<String>,
    /// The file holding the server's token (the token alone).
    #[arg(long, requires = "server")]
    token_file: Option<std::path::PathBuf>,
}

impl Args {
    /// The route asked for, if any (else the faster one for the size).
    fn route(&self) -> Option<Route> {
        if self.one_stage {
            Some(Route::OneProduct)
        } else if self.two_stage {
            Some(Route::TwoStages)
        } else if self.four_step {
            Some(Route::FourSteps)
        } else if self.row_ffts {
            Some(Route::RowFfts)
        } else {
            None
        }
    }

    /// What clap cannot say: a size the routes take.
    fn validated(self) -> Result<Self, String> {
        if self.input.is_none() {
            job::check_size(self.size)?;
        }
        Ok(self)
    }
}

fn main() -> ExitCode {
    let usage = Args::command().render_usage().to_string();
    job::main(&usage, Args::parse().validated(), |a| a.job.threads(), run)
}

fn run(args: &Args) -> Result<bool, BoxError> {
    // A long computation: reuse freed buffers instead of page-faulting fresh ones.
    bigp_he::reuse_freed_memory();
    // Claimed before the work, so that an unwritable path fails now, not after it.
    let output = args
        .output
        .as_deref()
        .map(job::OutputFile::create)
        .transpose()?;
    // A file's values are read now; random ones are drawn once the plan has accepted the size,
    // so that a size no route takes fails before anything of that size is built.
    let input = args
        .input
        .as_deref()
        .map(|p| bigp_he::field_text::read_elements(Path::new(p), he_fft::MAX_FFT_SIZE))
        .transpose()?;
    let n = input.as_ref().map_or(args.size, Vec::len);
    // The faster route for the size (Fft::fastest's choice) where the ring is ours to
    // pick.
    let route = args.route().unwrap_or(
        if args.to_coset || args.job.small || args.ring_degree.is_some() {
            Route::OneProduct
        } else {
            Route::fastest_for(n)
        },
    );
    let direction = if args.inverse {
        Direction::Inverse
    } else {
        Direction::Forward
    };
    let subgroup = Radix2EvaluationDomain::<Fr>::new(n)
        .filter(|d| d.size() == n)
        .ok_or("no FFT domain of this size")?;
    let coset = subgroup
        .get_coset(Fr::GENERATOR)
        .ok_or("the generator has no inverse")?;
    let domain = if args.coset { coset } else { subgroup };
    let transform = match (args.to_coset, args.coset, args.inverse) {
        (true, _, _) => "coset change (evaluations on H to g H)",
        (false, false, false) => "FFT",
        (false, false, true) => "inverse FFT",
        (false, true, false) => "coset FFT",
        (false, true, true) => "coset inverse FFT",
    };
    let say = |line: String| {
        if !args.job.json {
            println!("{line}");
        }
    };

    // On a remote server, the request names everything that decides the keys and the result.
    let remote = match (&args.server, &args.token_file) {
        (Some(url), Some(token)) => {
            let client = he_client::Client::with_token_file(url, token)?;
            let request = Request {
                ring: if args.job.small {
                    Ring::Toy
                } else {
                    Ring::Secure
                },
                keys: if args.master_keys {
                    KeyKind::Master
                } else {
                    KeyKind::Galois
                },
                baby_step_keys: args.baby_step_keys.map(usize::from),
                chains: Some(rayon::current_num_threads().clamp(1, 64)),
                ..Request::new(Job::Fft { direction, route }, n)
            };
            Some((client, request))
        }
        _ => None,
    };
    let bits = |ring: usize| route.ciphertext_bits::<Fr>(ring, n);
    let ctx = if let Some((_, request)) = &remote {
        request.context::<Fr>()?
    } else if args.job.small {
        // Toy ring for quick checks: far below 128-bit security (the parameters line says so).
        Context::builder()
            .ring_degree(2048)
            .plaintext_field::<Fr>()
            .ciphertext_bits(bits(2048))
            .derivable_keys(args.master_keys)
            .allow_insecure(true)
            .build()?
    } else if args.master_keys {
        route.derivable_context::<Fr>(n)?
    } else if let Some(r) = args.ring_degree {
        Context::for_field::<Fr>(r as u64, bits(r))?
    } else if args.to_coset {
        he_fft::CosetChange::<Fr>::secure_context(n)?
    } else {
        route.context::<Fr>(n)?
    };
    say(format!(
        "encrypted {transform} of size {n} over BN254 Fr, {} thread(s)",
        args.job.threads()
    ));
    say(job::parameters_line(&ctx, args.job.small));

    // Data owner: keys.
    let t = Instant::now();
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let keygen = t.elapsed();

    // Server side, data-independent: plan and diagonals.
    let t = Instant::now();
    let mut plan = PlanOptions::default();
    plan.baby_step_keys = args.baby_step_keys.map(usize::from);
    let options = match &remote {
        // The owner encrypts and decrypts only: no diagonals to encode.
        Some((_, request)) => request.options(he_fft::DiagonalCache::Never),
        None => FftOptions::default()
            .with_cache(args.cache.into())
            .with_plan(plan),
    };
    let fft: Box<dyn EncryptedTransform<Fr>> = if args.to_coset {
        let change = CosetChange::new(&ctx, &subgroup, &coset, &options)?;
        say(one_product_line(change.plan(), change.encoded()));
        Box::new(change)
    } else {
        let fft = Fft::new(route, &ctx, &domain, direction, &options)?;
        say(plan_line(&fft));
        Box::new(fft)
    };
    let encode = t.elapsed();

    let x = input.unwrap_or_else(|| {
        let mut rng = ark_std::rand::rngs::StdRng::seed_from_u64(time_seed());
        (0..n).map(|_| Fr::rand(&mut rng)).collect()
    });

    // Data owner: the Galois keys the plan asks for, or the masters they derive from, as
    // the bytes it ships; then encryption.
    let t = Instant::now();
    let (key_count, galois_keygen, galois_key_bytes) = if args.master_keys {
        let masters = MasterKeys::generate(&sk)?;
        let time = t.elapsed();
        (masters.elements().len(), time, masters.to_bytes()?)
    } else {
        let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
        let time = t.elapsed();
        (gk.elements().len(), time, gk.to_bytes()?)
    };
    let t = Instant::now();
    // With the secret key, straight to the bytes a server would receive (seeded: half size).
    let upload = fft.encrypt_to_bytes(&sk, &x)?;
    let encrypt = t.elapsed();
    // A transform multiplies no two ciphertexts: the server needs no relinearization key.
    let public_key = pk.to_bytes_without_relinearization()?;
    let key_bytes = (public_key.len() + galois_key_bytes.len()) as u64;
    let upload_bytes = key_bytes + upload.iter().map(|b| b.len() as u64).sum::<u64>();

    // Server: here (the keys and ciphertexts from their bytes), or a remote he-server.
    let served = match &remote {
        Some((client, request)) => {
            let parts = KeySetParts {
                request: *request,
                context: &ctx.to_bytes()?,
                public_key: &public_key,
                keys: &galois_key_bytes,
                matrix: &[],
            };
            serve_remote(
                client,
                &parts,
                &ctx,
                &pk,
                &upload,
                fft.info().output_ciphertexts,
            )?
        }
        None => serve_here(
            fft.as_ref(),
            &ctx,
            args.master_keys,
            &public_key,
            &galois_key_bytes,
            &upload,
            args.job.json,
        )?,
    };
    let galois_key_bytes = galois_key_bytes.len() as u64;
    let (y, he_fft, keys_ready, budget, download_bytes) = (
        &served.y,
        served.he_fft,
        served.keys_ready,
        served.budget,
        served.download_bytes,
    );

    // Data owner: decryption, and the plain reference.
    let t = Instant::now();
    let result = fft.decrypt(&sk, y)?;
    let decrypt = t.elapsed();
    let (expected, plain) = median_time(|| match (args.to_coset, args.inverse) {
        (true, _) => coset.fft(&subgroup.ifft(&x)),
        (false, false) => domain.fft(&x),
        (false, true) => domain.ifft(&x),
    });
    // The owner's O(n) check, as a data owner without the plain result would run it.
    let t = Instant::now();
    let checked = if args.to_coset {
        check::fft(&subgroup, Direction::Inverse, &x, &coset.ifft(&result))
    } else {
        check::fft(&domain, direction, &x, &result)
    };
    let check_time = t.elapsed();
    if let Err(e) = &checked {
        say(format!("owner's check: {e}"));
    }
    let verified = result == expected && checked.is_ok();

    if let Some(out) = output {
        out.commit(vector_text(&result).as_bytes())?;
    }

    let secs = |d: Duration| d.as_secs_f64();
    let overhead = secs(he_fft) / secs(plain).max(1e-9);
    let rss = peak_rss_bytes();
    say(format!(
        "key generation (secret, public, relinearization): {:>10.3} s",
        secs(keygen)
    ));
    let line = |label: String, seconds: f64| say(format!("{label:<48}{seconds:>10.3} s"));
    line(
        format!(
            "{} ({key_count}, {:.0} MiB on the wire):",
            if args.master_keys {
                "master keys"
            } else {
                "Galois keys"
            },
            galois_key_bytes as f64 / (1 << 20) as f64
        ),
        secs(galois_keygen),
    );
    if let Some(derive) = served.derive {
        line(
            format!("server: derive {} Galois keys:", served.derived_keys),
            secs(derive),
        );
    }
    line(
        match &served.remote {
            Some(r) => format!("server: key set {} stored and checked:", &r.key_set[..12]),
            None => format!(
                "server: keys ready ({:.0} MiB in memory):",
                served.key_memory as f64 / (1 << 20) as f64
            ),
        },
        secs(keys_ready),
    );
    say(format!(
        "encode diagonals (once per size):               {:>10.3} s",
        secs(encode)
    ));
    say(format!(
        "encrypt:                                        {:>10.3} s",
        secs(encrypt)
    ));
    say(format!(
        "HE FFT (server):                                {:>10.3} s",
        secs(he_fft)
    ));
    say(format!(
        "decrypt:                                        {:>10.3} s",
        secs(decrypt)
    ));
    say(format!(
        "plain arkworks FFT (median):                    {:>10.6} s",
        secs(plain)
    ));
    say(format!(
        "overhead HE / plain:                            {overhead:>10.0}x"
    ));
    say(format!(
        "owner's O(n) check of the result:               {:>10.6} s ({:.2}x the plain FFT, {})",
        secs(check_time),
        secs(check_time) / secs(plain).max(1e-9),
        if checked.is_ok() { "passed" } else { "FAILED" }
    ));
    say(format!(
        "noise budget left:                              {budget:>10.1} bits"
    ));
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    say(format!(
        "bytes up: {:.2} MiB (public key and {} keys {:.2} MiB); down: {:.2} MiB",
        mib(upload_bytes),
        if args.master_keys { "master" } else { "Galois" },
        mib(key_bytes),
        mib(download_bytes)
    ));
    say(format!(
        "peak RSS:                                       {:>10.0} MiB",
        rss as f64 / (1 << 20) as f64
    ));
    say(format!(
        "verified against ark-poly: {}",
        if verified { "yes" } else { "NO — MISMATCH" }
    ));
    if args.job.json {
        println!(
            "{{\"size\":{n},\"transform\":\"{transform}\",\"inverse\":{},\"ring_degree\":{},\"log2_qp\":{:.1},\"security_bits\":{:.1},\
\"threads\":{},\"keygen_s\":{:.6},\"galois_keygen_s\":{:.6},\"encode_s\":{:.6},\"encrypt_s\":{:.6},\
\"he_fft_s\":{:.6},\"decrypt_s\":{:.6},\"plain_fft_s\":{:.9},\"check_s\":{:.9},\"overhead\":{:.1},\"noise_budget_bits\":{:.1},\
\"diagonals_cached\":{},\"route\":\"{route:?}\",\"master_keys\":{},\"galois_keys\":{key_count},\"derive_s\":{:.6},\"keys_ready_s\":{:.6},\"galois_key_memory_bytes\":{},\"upload_bytes\":{upload_bytes},\"download_bytes\":{download_bytes},\"galois_key_bytes\":{galois_key_bytes},\"peak_rss_bytes\":{rss},\"verified\":{verified}{}}}",
            args.inverse,
            ctx.ring_degree(),
            ctx.log2_qp(),
            ctx.security_bits(),
            args.job.threads(),
            secs(keygen),
            secs(galois_keygen),
            secs(encode),
            secs(encrypt),
            secs(he_fft),
            secs(decrypt),
            secs(plain),
            secs(check_time),
            overhead,
            budget,
            fft.cache_bytes() > 0,
            args.master_keys,
            served.derive.map_or(0.0, secs),
            secs(keys_ready),
            served.key_memory,
            served.remote.as_ref().map_or(String::new(), |r| r.json(args.server.as_deref())),
        );
    }
    std::io::stdout().flush()?;
    Ok(verified)
}

/// What the server side gave back, here or remote.
struct Served {
    /// The outputs, switched down for the download.
    y: Vec<Ctxt>,
    /// The transform here; on a remote server, the job from submission to its result.
    he_fft: Duration,
    /// Keys ready here; on a remote server, the key set's upload and check.
    keys_ready: Duration,
    /// Deriving the Galois keys from master keys, here.
    derive: Option<Duration>,
    /// The Galois keys derived, here.
    derived_keys: usize,
    /// The Galois keys' memory, here (0 remote).
    key_memory: u64,
    /// The least noise budget among the outputs.
    budget: f64,
    /// The outputs' bytes.
    download_bytes: u64,
    /// What a remote server reported.
    remote: Option<Remote>,
}

/// A remote run's figures.
struct Remote {
    key_set: String,
    transfer: he_client::Transfer,
}

impl Remote {
    /// The JSON fields a remote run adds.
    fn json(&self, url: Option<&str>) -> String {
        let t = &self.transfer;
        format!(
            ",\"server_url\":{},\"key_set\":\"{}\",\"wire_upload_bytes\":{},\"wire_download_bytes\":{},\
\"network_s\":{:.6},\"remote_server_s\":{:.6}",
            serde_json::to_string(url.unwrap_or_default()).unwrap_or_default(),
            self.key_set,
            t.upload_bytes,
            t.download_bytes,
            t.network.as_secs_f64(),
            t.server.as_secs_f64()
        )
    }
}

/// The server's side in this process: the keys from their bytes (derived from the masters),
/// the ciphertexts from theirs, the transform, the outputs switched down.
fn serve_here(
    fft: &dyn EncryptedTransform<Fr>,
    ctx: &Context,
    master_keys: bool,
    public_key: &[u8],
    key_bytes: &[u8],
    upload: &[Vec<u8>],
    quiet: bool,
) -> Result<Served, BoxError> {
    let t = Instant::now();
    let (gk, derive) = if master_keys {
        let masters = MasterKeys::from_bytes(ctx, key_bytes)?;
        let t = Instant::now();
        let gk = masters.derive(&fft.galois_steps())?;
        (gk, Some(t.elapsed()))
    } else {
        (GaloisKeys::from_bytes(ctx, key_bytes)?, None)
    };
    let keys_ready = t.elapsed();
    let server_pk = PubKey::from_bytes(ctx, public_key)?;
    let ct = upload
        .iter()
        .map(|bytes| Ctxt::from_bytes(&server_pk, bytes))
        .collect::<helib_rs::Result<Vec<_>>>()?;
    let bar = job::progress_bar(fft.info().progress_total, "HE FFT", quiet);
    let t = Instant::now();
    let mut y = fft.apply_with(Some(&gk), &ct, &|done, _| bar.set_position(done as u64))?;
    let he_fft = t.elapsed();
    bar.finish_and_clear();
    let budget = y
        .iter()
        .map(|c| c.noise_budget())
        .fold(f64::INFINITY, f64::min);
    // What goes back: each result on the fewest primes the owner's decryption needs.
    let mut download_bytes = 0u64;
    for c in &mut y {
        c.compact_for_decryption(helib_rs::DECRYPTION_MARGIN_BITS)?;
        download_bytes += c.to_bytes()?.len() as u64;
    }
    Ok(Served {
        y,
        he_fft,
        keys_ready,
        derive,
        derived_keys: gk.elements().len(),
        key_memory: gk.size_bytes(),
        budget,
        download_bytes,
        remote: None,
    })
}

/// The server's side on a remote he-server: the key set uploaded unless it is there, the
/// transform as one job, its outputs parsed under the owner's public key.
fn serve_remote(
    client: &he_client::Client,
    parts: &KeySetParts<'_>,
    ctx: &Context,
    pk: &PubKey,
    upload: &[Vec<u8>],
    outputs: usize,
) -> Result<Served, BoxError> {
    let t = Instant::now();
    let key_set = client.upload_key_set(parts)?;
    let keys_ready = t.elapsed();
    let t = Instant::now();
    let (bytes, _) = client.run(&key_set, upload, ctx, outputs)?;
    let he_fft = t.elapsed();
    let y = bytes
        .iter()
        .map(|b| Ctxt::from_bytes(pk, b))
        .collect::<helib_rs::Result<Vec<_>>>()?;
    let budget = y
        .iter()
        .map(|c| c.noise_budget())
        .fold(f64::INFINITY, f64::min);
    Ok(Served {
        y,
        he_fft,
        keys_ready,
        derive: None,
        derived_keys: 0,
        key_memory: 0,
        budget,
        download_bytes: bytes.iter().map(|b| b.len() as u64).sum(),
        remote: Some(Remote {
            key_set,
            transfer: client.transfer(),
        }),
    })
}

/// `n diagonals (cached, M MiB)` or `(encoded on demand)`.
fn diagonals(n: usize, cached: bool, bytes: u64) -> String {
    let held = if cached {
        format!("cached, {:.0} MiB", bytes as f64 / (1 << 20) as f64)
    } else {
        "encoded on demand".to_string()
    };
    format!("{n} diagonals ({held})")
}

/// One product's plan in one line: layout, steps, diagonals, rotations, levels.
fn one_product_line(plan: &TransformPlan, enc: &EncodedTransform<Fr>) -> String {
    format!(
        "plan: layout {}, row period {}, {} ciphertext(s), BSGS {} x {}, {}, {} rotations, {} level",
        if plan.input_layout().is_replicated() { "replicated" } else { "split rows" },
        plan.input_layout().row_period(),
        plan.input_layout().num_ciphertexts(),
        plan.baby_steps(),
        plan.giant_steps(),
        diagonals(plan.num_diagonals(), enc.is_cached(), enc.cache_bytes()),
        plan.num_rotations(),
        plan.levels(),
    )
}

/// The plan in one line: layout, steps, diagonals, rotations, levels.
fn plan_line(fft: &Fft<Fr>) -> String {
    match fft.route_transform() {
        RouteTransform::OneProduct(f) => one_product_line(f.plan(), f.encoded()),
        RouteTransform::TwoStages(f) => format!("plan: two stages, {}", two_stages(f)),
        RouteTransform::FourSteps(f) if f.first_step() == he_fft::FirstStep::Owner => format!(
            "plan: four steps over {} rows of {} values in {} ciphertexts, the step across \
             them done by the owner while encoding, then in each two stages on both rows, {}",
            f.num_rows(),
            f.row_len(),
            f.num_ciphertexts(),
            two_stages(f.row_fft()),
        ),
        RouteTransform::FourSteps(f) => {
            let c = f.num_rows();
            format!(
                "plan: four steps over {c} rows of {} values in {} ciphertexts: {} products \
                 across them, then in each two stages on both rows, {}",
                f.row_len(),
                f.num_ciphertexts(),
                c * c / 2,
                two_stages(f.row_fft()),
            )
        }
    }
}

/// `n = n1 x n2; stage 1: ...; stage 2: ...; r rotations, 2 levels`.
fn two_stages(f: &TwoStageFft<Fr>) -> String {
    let (n1, n2) = f.split();
    let stage = |i: usize| {
        let (plan, enc) = f.stages()[i];
        format!(
            "stage {}: BSGS {} x {}, {}",
            i + 1,
            plan.baby_steps(),
            plan.giant_steps(),
            diagonals(plan.num_diagonals(), enc.is_cached(), enc.cache_bytes()),
        )
    };
    format!(
        "n = {n1} x {n2}; {}; {}; {} rotations, {} levels",
        stage(0),
        stage(1),
        f.num_rotations(),
        f.info().levels,
    )
}

fn vector_text(values: &[Fr]) -> String {
    let mut text = String::with_capacity(values.len() * 78);
    for v in values {
        text.push_str(&v.to_string());
        text.push('\n');
    }
    text
}
