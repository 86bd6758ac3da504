//! A Groth16 proof whose witness map runs on ciphertexts, verified by ark-groth16.
//!
//! ```text
//! cargo run --release --example groth16 -- [--constraints N] [--threads T] [--json] [--small]
//! cargo run --release --example groth16 -- --server URL --token-file FILE [--constraints N] [--json]
//! cargo run --release --example groth16 -- owner DIR [--constraints N] [--small] [--seed S]
//! cargo run --release --example groth16 -- server DIR [--small] [--json]
//! cargo run --release --example groth16 -- verify DIR
//! ```
//!
//! It proves a cubic MiMC-style chain of about `N` constraints (`he_groth16::CubicChain`)
//! with `Groth16::<Bn254, EncryptedReduction>`: the data owner generates keys, encrypts the
//! evaluations `a` and `b` of the constraint polynomials, a server holding only public and
//! Galois keys computes the encrypted quotient `h` (`he_fft::WitnessMap`), and the owner
//! decrypts it, checks it in O(n) and finishes the proof (the MSMs) in the clear. The plain
//! witness map (ark-groth16's `LibsnarkReduction`) runs in the same process for comparison.
//!
//! `--json` prints one JSON object as the last line of standard output (in-process, the
//! server holds the owner's keys in memory, so its `keys_ready_s` is 0; the `server` step's
//! `--json` reports the real time to read them from bytes). `--small` uses an
//! insecure toy ring (N = 2048, up to 4094 constraints) for quick checks. Exit status: 0 the
//! proof verified, 1 it did not, 2 usage or engine error.
//!
//! `--server URL --token-file FILE` runs the witness map on a running `he-server` (`make serve`
//! starts one on loopback and writes its token to `target/he-server/token`): the owner's keys
//! go up once as a key set, each witness map is a job on it, and the JSON adds the bytes on
//! the wire each way and the time spent sending and receiving them.
//!
//! The `owner`, `server` and `verify` steps do the same through files, as
//! `examples/outsource.rs` does for an FFT: `owner` writes `DIR/public/` (context, public and
//! Galois keys, the encrypted `a` and `b`) and keeps `DIR/owner/` (the secret key, 0600, and
//! the circuit's seed); `server` reads `DIR/public/` only and writes the encrypted `h` there;
//! `verify` decrypts and checks `h`, finishes the proof with it, and runs ark-groth16's
//! verifier. (The circuit and its Groth16 keys are rebuilt from the seed in each owner step;
//! a real prover would keep its proving key.)

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ark_bn254::{Bn254, Fr};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::Groth16;
use ark_poly::GeneralEvaluationDomain;
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use bigp_he::cli::{Cache, JobArgs};
use bigp_he::job::{self, BoxError};
use bigp_he::{groth16_files, median_time, peak_rss_bytes};
use clap::{CommandFactory, Parser, Subcommand};
use he_groth16::{CubicChain, EncryptedReduction, Outsourcing, R1cs, WitnessMapRoute};
use std::path::PathBuf;

/// A Groth16 proof with the witness map on ciphertexts, verified by ark-groth16.
#[derive(Parser, Debug)]
#[command(name = "groth16", args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    step: Option<Step>,
    #[command(flatten)]
    args: Args,
}

/// The three steps through files.
#[derive(Subcommand, Debug)]
enum Step {
    /// Keys, the encrypted evaluations and the request in DIR/public; secrets in DIR/owner.
    Owner {
        /// The working directory.
        dir: PathBuf,
        /// Constraints of the circuit.
        #[arg(long, default_value_t = 1000)]
        constraints: usize,
        /// An insecure toy ring (N = 2048).
        #[arg(long)]
        small: bool,
        /// Seed of the circuit and its Groth16 keys, kept in the owner's private directory
        /// (default: from the OS). The proof's randomness (r, s) always comes from the OS.
        #[arg(long)]
        seed: Option<u64>,
        #[command(flatten)]
        shape: KeyShape,
    },
    /// The witness map on what DIR/public holds (with the owner's --baby-steps); writes
    /// DIR/public/output-*.ct.
    Server {
        /// The working directory.
        dir: PathBuf,
        /// Accept the owner's insecure toy ring.
        #[arg(long)]
        small: bool,
        /// Keep the encoded plaintext diagonals in memory: auto (up to 2 GiB per stage,
        /// encoded beforehand), never (encoded during the witness map: least memory), or
        /// always.
        #[arg(long, value_enum, default_value_t = Cache::Auto)]
        cache: Cache,
        /// Also print one JSON object as the last line of standard output.
        #[arg(long)]
        json: bool,
    },
    /// Decrypt and check h, finish the proof, verify it.
    Verify {
        /// The working directory.
        dir: PathBuf,
    },
}

/// The in-process run's options.
#[derive(clap::Args, Debug)]
struct Args {
    /// Constraints of the circuit (a cubic chain, two a round; at least 2).
    #[arg(long, default_value_t = 1000)]
    constraints: usize,
    #[command(flatten)]
    job: JobArgs,
    /// Seed of the circuit's values, to repeat a run (default: from the clock). The trusted
    /// setup and the proof's randomness (r, s) always come from the OS.
    #[arg(long)]
    seed: Option<u64>,
    /// The owner interpolates a and b itself (two inverse FFTs in the clear) and the server
    /// multiplies once, with no Galois keys.
    #[arg(long)]
    client_assisted: bool,
    /// Keep the server's encoded plaintext diagonals in memory: auto (up to 2 GiB per stage,
    /// encoded beforehand: past one ciphertext the row map runs twice per component on the
    /// same diagonals, so even one proof gains), never (encoded during the witness map: least
    /// memory), or always.
    #[arg(long, value_enum, default_value_t = Cache::Auto)]
    cache: Cache,
    #[command(flatten)]
    shape: KeyShape,
    /// Run the witness map on the he-server at this URL (e.g. http://127.0.0.1:8700).
    #[arg(long, requires = "token_file", conflicts_with_all = ["baby_steps", "baby_step_keys"])]
    server: Option<String>,
    /// The file holding the server's token (the token alone).
    #[arg(long, requires = "server")]
    token_file: Option<PathBuf>,
}

/// How the server-only witness map trades Galois keys against rotations.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
struct KeyShape {
    /// At most this many baby steps (a power of two) in each stage: more giant steps, which
    /// run one after the other. Default: chosen per stage.
    #[arg(long, value_parser = power_of_two)]
    baby_steps: Option<usize>,
    /// Galois keys each stage's baby steps use (1 to 1024), the baby steps computed in rounds
    /// of that many rotations. Default: one per thread. A key per baby step (e.g. 1024) hoists
    /// them all from the input: more keys, sometimes faster.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    baby_step_keys: Option<u16>,
}

impl From<KeyShape> for groth16_files::KeyShape {
    fn from(shape: KeyShape) -> Self {
        groth16_files::KeyShape {
            baby_steps: shape.baby_steps,
            baby_step_keys: shape.baby_step_keys.map(usize::from),
        }
    }
}

/// The witness map's options: a diagonal cache policy and the keys' shape.
fn options(cache: Cache, shape: KeyShape) -> he_fft::FftOptions {
    let mut plan = he_fft::PlanOptions::default();
    plan.baby_steps = shape.baby_steps;
    plan.baby_step_keys = shape.baby_step_keys.map(usize::from);
    he_fft::FftOptions::default()
        .with_cache(cache.into())
        .with_plan(plan)
}

/// A power of two from 1 to 2^20, for --baby-steps.
fn power_of_two(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(b) if b.is_power_of_two() && b <= 1 << 20 => Ok(b),
        _ => Err(format!(
            "expected a power of two from 1 to 1048576, got {text:?}"
        )),
    }
}

use groth16_files::MAX_CONSTRAINTS;

fn main() -> ExitCode {
    // Clap reports a usage error itself (exit status 2).
    let cli = Cli::parse();
    let usage = Cli::command().render_usage().to_string();
    // The file steps take rayon's default pool; the in-process run its --threads.
    let threads = |c: &Cli| c.step.as_ref().map_or_else(|| c.args.job.threads(), |_| 0);
    job::main(&usage, cli.validated(), threads, |c| match &c.step {
        Some(step) => files::run(step),
        None => run(&c.args),
    })
}

impl Cli {
    /// The command line, with the in-process run's constraint count checked against its ring.
    fn validated(self) -> Result<Cli, String> {
        if self.step.is_some() {
            return Ok(self);
        }
        let a = &self.args;
        groth16_files::check_constraints(a.constraints, a.job.small, MAX_CONSTRAINTS)?;
        Ok(self)
    }
}

fn run(args: &Args) -> Result<bool, BoxError> {
    bigp_he::reuse_freed_memory();
    let say = |line: String| {
        if !args.job.json {
            println!("{line}");
        }
    };
    let seed = args.seed.unwrap_or_else(bigp_he::demo::time_seed);
    let circuit =
        CubicChain::<Fr>::with_constraints(args.constraints, &mut StdRng::seed_from_u64(seed));
    let n = circuit.domain_size();
    // The setup's toxic waste and the proof's r and s are secrets: from the OS, never the seed.
    let mut rng = StdRng::from_seed(job::os_random()?);

    // The circuit's keys (the trusted setup, not part of proving).
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)?;

    // The owner's keys and the server, with their one-time costs.
    let route = if args.client_assisted {
        WitnessMapRoute::ClientAssisted
    } else {
        WitnessMapRoute::ServerOnly
    };
    let server_options = options(args.cache, args.shape);
    let (session, setup, remote) = if let (Some(url), Some(token)) =
        (&args.server, &args.token_file)
    {
        let client = he_client::Client::with_token_file(url, token)?;
        let ring = if args.job.small {
            he_fft::protocol::Ring::Toy
        } else {
            he_fft::protocol::Ring::Secure
        };
        let (session, r) = he_client::remote_witness_session::<Fr>(client.clone(), n, ring, route)?;
        let setup = he_groth16::Setup {
            context: r.context.clone(),
            keygen: r.keygen_time,
            galois_keygen: r.galois_keygen_time,
            galois_keys: r.galois_keys,
            galois_key_bytes: r.galois_key_bytes,
            galois_key_memory: r.galois_key_memory,
            public_key_bytes: r.public_key_bytes,
            server_setup: r.upload_time,
        };
        (session, setup, Some((client, r)))
    } else if args.job.small {
        let bits = match route {
            WitnessMapRoute::ServerOnly => he_fft::witness_map_ciphertext_bits::<Fr>(2048, n),
            WitnessMapRoute::ClientAssisted => {
                he_fft::ClientAssistedWitnessMap::<Fr>::ciphertext_bits(2048)
            }
        };
        let (session, setup) =
            Outsourcing::<Fr>::in_process_with(job::toy_context(bits)?, n, route, &server_options)?;
        (session, setup, None)
    } else {
        let context = match route {
            WitnessMapRoute::ServerOnly => he_fft::witness_map_context::<Fr>(n)?,
            WitnessMapRoute::ClientAssisted => {
                he_fft::ClientAssistedWitnessMap::<Fr>::secure_context(n)?
            }
        };
        let (session, setup) =
            Outsourcing::<Fr>::in_process_with(context, n, route, &server_options)?;
        (session, setup, None)
    };
    let ctx = &setup.context;
    let route_name = session.route_name();
    say(format!(
        "Groth16 over BN254: {} constraints, domain {n}; witness map on ciphertexts ({route_name}), \
         {} thread(s)",
        circuit.num_constraints(),
        rayon::current_num_threads()
    ));
    say(job::parameters_line(ctx, args.job.small));

    // Proving, with the witness map outsourced.
    let session = Arc::new(session);
    let t = Instant::now();
    let proof = {
        let _guard = session.enter();
        Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng).map_err(
            |e| match he_groth16::last_error() {
                Some(detail) => format!("proving failed: {e}: {detail}"),
                None => format!("proving failed: {e}"),
            },
        )?
    };
    let prove = t.elapsed();
    let report = session.report();
    let outsourced = report.encrypt + report.server + report.decrypt + report.check;
    let prove_rest = prove.saturating_sub(outsourced);
    let verified = Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof)?;

    // The plain witness map on the same R1CS, in the same run.
    let r1cs = R1cs::from_circuit(circuit.clone())?;
    let (_, plain) = median_time(|| {
        LibsnarkReduction::witness_map_from_matrices::<Fr, GeneralEvaluationDomain<Fr>>(
            &r1cs.matrices,
            r1cs.num_inputs,
            r1cs.num_constraints,
            &r1cs.assignment,
        )
    });

    let secs = |d: Duration| d.as_secs_f64();
    let upload = setup.public_key_bytes + setup.galois_key_bytes + report.upload_bytes;
    let rss = peak_rss_bytes();
    let overhead = secs(report.server) / secs(plain).max(1e-9);
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    let lines = [
        format!("owner: keys (secret, public, relinearization)  {:>10.3} s", secs(setup.keygen)),
        format!(
            "owner: Galois keys ({} keys, {:.0} MiB in memory) {:>10.3} s",
            setup.galois_keys,
            mib(setup.galois_key_memory),
            secs(setup.galois_keygen)
        ),
        format!("server: encode its matrices (once per size)   {:>10.3} s", secs(setup.server_setup)),
        format!("owner: encrypt a and b (after its inverse FFTs if client-assisted) {:>7.3} s", secs(report.encrypt)),
        format!("server: witness map on ciphertexts            {:>10.3} s", secs(report.server)),
        format!("owner: decrypt h ({:.0} bits of noise budget left) {:>6.3} s", report.noise_budget_bits, secs(report.decrypt)),
        format!("owner: O(n) check of h                        {:>10.6} s", secs(report.check)),
        format!("prover: the rest of proving (MSMs)            {:>10.3} s", secs(prove_rest)),
        format!("plain witness map (LibsnarkReduction, median) {:>10.6} s", secs(plain)),
        format!("overhead server / plain witness map           {overhead:>10.0}x"),
        format!(
            "bytes up: {:.1} MiB (public key {:.1}, Galois keys {:.1}, ciphertexts {:.2}); down: {:.2} MiB",
            mib(upload),
            mib(setup.public_key_bytes),
            mib(setup.galois_key_bytes),
            mib(report.upload_bytes),
            mib(report.download_bytes)
        ),
        format!("peak RSS                                      {:>10.0} MiB", mib(rss)),
        format!(
            "ark-groth16 verifier: {}",
            if verified { "proof accepted" } else { "PROOF REJECTED" }
        ),
    ];
    for line in lines {
        say(line);
    }
    // On a remote server: what went over the wire, and how the wait splits.
    let remote_json = match &remote {
        Some((client, r)) => {
            let t = client.transfer();
            say(format!(
                "remote: key set {} ({:.1} MiB, up in {:.2} s with the server's check); \
                 {:.1} MiB up and {:.2} MiB down in {:.3} s on the wire; the server computed \
                 {:.3} s of the {:.3} s waited",
                &r.key_set[..12],
                mib(r.key_set_bytes),
                secs(r.upload_time),
                mib(t.upload_bytes),
                mib(t.download_bytes),
                secs(t.network),
                secs(t.server),
                secs(report.server),
            ));
            format!(
                ",\"server_url\":{},\"key_set\":\"{}\",\"key_set_bytes\":{},\"key_set_upload_s\":{:.6},\
\"wire_upload_bytes\":{},\"wire_download_bytes\":{},\"network_s\":{:.6},\"remote_server_s\":{:.6}",
                serde_json::to_string(args.server.as_deref().unwrap_or_default())
                    .unwrap_or_default(),
                r.key_set,
                r.key_set_bytes,
                secs(r.upload_time),
                t.upload_bytes,
                t.download_bytes,
                secs(t.network),
                secs(t.server),
            )
        }
        None => String::new(),
    };
    if args.job.json {
        println!(
            "{{\"constraints\":{},\"domain_size\":{n},\"route\":\"{route_name}\",\
\"ring_degree\":{},\"log2_qp\":{:.1},\"security_bits\":{:.1},\"threads\":{},\"keygen_s\":{:.6},\
\"galois_keygen_s\":{:.6},\"galois_keys\":{},\"galois_key_bytes\":{},\"galois_key_memory_bytes\":{},\"keys_ready_s\":0.0,\"server_setup_s\":{:.6},\
\"encrypt_s\":{:.6},\"server_s\":{:.6},\"decrypt_s\":{:.6},\"check_s\":{:.9},\"prove_rest_s\":{:.6},\
\"plain_witness_map_s\":{:.9},\"overhead\":{:.1},\"upload_bytes\":{upload},\"download_bytes\":{},\
\"noise_budget_bits\":{:.1},\"diagonal_cache\":\"{}\",\"baby_steps\":{},\"baby_step_keys\":{},\"peak_rss_bytes\":{rss},\"seed\":{seed},\"verified\":{verified}{remote_json}}}",
            circuit.num_constraints(),
            ctx.ring_degree(),
            ctx.log2_qp(),
            ctx.security_bits(),
            rayon::current_num_threads(),
            secs(setup.keygen),
            secs(setup.galois_keygen),
            setup.galois_keys,
            setup.galois_key_bytes,
            setup.galois_key_memory,
            secs(setup.server_setup),
            secs(report.encrypt),
            secs(report.server),
            secs(report.decrypt),
            secs(report.check),
            secs(prove_rest),
            secs(plain),
            overhead,
            report.download_bytes,
            report.noise_budget_bits,
            format!("{:?}", args.cache).to_lowercase(),
            args.shape
                .baby_steps
                .map_or("null".to_string(), |b| b.to_string()),
            args.shape
                .baby_step_keys
                .map_or("null".to_string(), |k| k.to_string()),
        );
    }
    std::io::stdout().flush()?;
    Ok(verified)
}

/// The owner, server and verify steps through files ([`bigp_he::groth16_files`]).
mod files {
    use bigp_he::groth16_files;
    use bigp_he::job::BoxError;

    use super::Step;

    pub fn run(step: &Step) -> Result<bool, BoxError> {
        match step {
            Step::Owner {
                dir,
                constraints,
                small,
                seed,
                shape,
            } => {
                let seed = match seed {
                    Some(seed) => *seed,
                    None => u64::from_le_bytes(bigp_he::job::os_random()?),
                };
                let report =
                    groth16_files::owner(dir, *constraints, *small, seed, (*shape).into())?;
                let mut up = 0;
                for (name, bytes) in &report.files.files {
                    up += bytes;
                    println!(
                        "owner: public/{name:<12} {:>10.2} MiB",
                        *bytes as f64 / 1048576.0
                    );
                }
                println!(
                    "owner: {} constraints, {}, N = {}, security {}; {:.1} MiB up; {:.2} s",
                    report.constraints,
                    report.request,
                    report.files.ring_degree,
                    report.files.security,
                    up as f64 / 1048576.0,
                    report.files.time.as_secs_f64()
                );
                Ok(true)
            }
            Step::Server {
                dir,
                small,
                cache,
                json,
            } => {
                bigp_he::reuse_freed_memory();
                let report = groth16_files::server(dir, *small, (*cache).into())?;
                let n = report.request.size;
                println!(
                    "server: keys read in {:.2} s (keys_ready_s), transform built in {:.2} s; \
                     witness map (n = {n}) in {:.2} s; {:.2} MiB back",
                    report.keys_ready_time.as_secs_f64(),
                    report.setup_time.as_secs_f64(),
                    report.run_time.as_secs_f64(),
                    report.download_bytes as f64 / 1048576.0
                );
                if *json {
                    println!(
                        "{{\"domain_size\":{n},\"keys_ready_s\":{:.6},\"server_setup_s\":{:.6},\
\"server_s\":{:.6},\"download_bytes\":{},\"peak_rss_bytes\":{}}}",
                        report.keys_ready_time.as_secs_f64(),
                        report.setup_time.as_secs_f64(),
                        report.run_time.as_secs_f64(),
                        report.download_bytes,
                        bigp_he::peak_rss_bytes()
                    );
                }
                Ok(true)
            }
            Step::Verify { dir } => {
                let verdict = groth16_files::verify(dir)?;
                if let Some(why) = &verdict.rejected {
                    println!("verify: REJECTED: {why}");
                    return Ok(false);
                }
                println!(
                    "verify: h decrypted and checked; ark-groth16 verifier: {}",
                    if verdict.verified {
                        "proof accepted"
                    } else {
                        "PROOF REJECTED"
                    }
                );
                Ok(verdict.verified)
            }
        }
    }
}
