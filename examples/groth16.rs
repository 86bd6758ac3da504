//! A Groth16 proof whose witness map runs on ciphertexts, verified by ark-groth16.
//!
//! ```text
//! cargo run --release --example groth16 -- [--constraints N] [--threads T] [--json] [--small]
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
//! insecure toy ring (N = 2048, up to 1022 constraints) for quick checks. Exit status: 0 the
//! proof verified, 1 it did not, 2 usage or engine error.
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
use bigp_he::{median_time, peak_rss_bytes};
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
    /// DIR/public/h-*.ct.
    Server {
        /// The working directory.
        dir: PathBuf,
        /// Accept the owner's insecure toy ring.
        #[arg(long)]
        small: bool,
        /// Keep the encoded plaintext diagonals in memory: never (encoded during the witness
        /// map: least memory), auto (up to 2 GiB per stage, encoded beforehand), or always.
        #[arg(long, value_enum, default_value_t = Cache::Never)]
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
    /// Keep the server's encoded plaintext diagonals in memory: never (encoded during the
    /// witness map: least memory, and less time in all for one proof), auto (up to 2 GiB per
    /// stage, encoded beforehand: faster repeated proofs), or always.
    #[arg(long, value_enum, default_value_t = Cache::Never)]
    cache: Cache,
    #[command(flatten)]
    shape: KeyShape,
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

impl KeyShape {
    /// The line the owner writes into request.txt: "n baby_steps baby_step_keys", 0 for a
    /// default.
    fn request(&self, n: usize) -> String {
        format!(
            "{n} {} {}\n",
            self.baby_steps.unwrap_or(0),
            self.baby_step_keys.unwrap_or(0)
        )
    }

    /// The domain size and the shape a request line asks for, or why it is malformed.
    fn parse_request(text: &str) -> Result<(usize, KeyShape), String> {
        let bad = || {
            format!("bad request {text:?}: expected the domain size, the baby steps and their keys")
        };
        let numbers: Vec<usize> = text
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let (n, baby, keys) = match numbers[..] {
            [n] => (n, 0, 0),
            [n, b] => (n, b, 0),
            [n, b, k] => (n, b, k),
            _ => return Err(bad()),
        };
        if (baby != 0 && power_of_two(&baby.to_string()).is_err()) || keys > 1024 {
            return Err(bad());
        }
        Ok((
            n,
            KeyShape {
                baby_steps: (baby != 0).then_some(baby),
                baby_step_keys: (keys != 0).then_some(keys as u16),
            },
        ))
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

/// The largest constraint count served here: a domain of 2^20 points.
const MAX_CONSTRAINTS: usize = (1 << 20) - 2;

/// The largest with --small: a domain of 4096 points (the toy ring's N = 2048 and 2N).
const MAX_SMALL_CONSTRAINTS: usize = 4096 - 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap's own rendering: the help text for --help, else the error and usage.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if let Some(step) = cli.step {
        bigp_he::end_quietly_on_closed_stdout();
        return match files::run(step) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let parsed: Result<Args, String> = Ok(cli.args);
    let parsed = parsed.and_then(|a| {
        let max = if a.job.small {
            MAX_SMALL_CONSTRAINTS
        } else {
            MAX_CONSTRAINTS
        };
        if !(2..=max).contains(&a.constraints) {
            return Err(format!(
                "--constraints must be from 2 to {max}{}, got {}",
                if a.job.small { " with --small" } else { "" },
                a.constraints
            ));
        }
        Ok(a)
    });
    let usage = Cli::command().render_usage().to_string();
    job::main(&usage, parsed, |a| a.job.threads(), run)
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
    let mut rng = StdRng::from_seed(os_random()?);

    // The circuit's keys (the trusted setup, not part of proving).
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)?;

    // The owner's keys and the server, with their one-time costs.
    let route = if args.client_assisted {
        WitnessMapRoute::ClientAssisted
    } else {
        WitnessMapRoute::ServerOnly
    };
    let server_options = options(args.cache, args.shape);
    let (session, setup) = if args.job.small {
        let bits = match route {
            WitnessMapRoute::ServerOnly => he_fft::witness_map_ciphertext_bits(2048, 254, n),
            WitnessMapRoute::ClientAssisted => he_fft::client_assisted_ciphertext_bits(2048, 254),
        };
        Outsourcing::<Fr>::in_process_with(job::toy_context(bits)?, n, route, &server_options)?
    } else {
        let context = match route {
            WitnessMapRoute::ServerOnly => he_fft::witness_map_context::<Fr>(n)?,
            WitnessMapRoute::ClientAssisted => he_fft::client_assisted_context::<Fr>(n)?,
        };
        Outsourcing::<Fr>::in_process_with(context, n, route, &server_options)?
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
    if args.job.json {
        println!(
            "{{\"constraints\":{},\"domain_size\":{n},\"route\":\"{route_name}\",\
\"ring_degree\":{},\"log2_qp\":{:.1},\"security_bits\":{:.1},\"threads\":{},\"keygen_s\":{:.6},\
\"galois_keygen_s\":{:.6},\"galois_keys\":{},\"galois_key_bytes\":{},\"galois_key_memory_bytes\":{},\"keys_ready_s\":0.0,\"server_setup_s\":{:.6},\
\"encrypt_s\":{:.6},\"server_s\":{:.6},\"decrypt_s\":{:.6},\"check_s\":{:.9},\"prove_rest_s\":{:.6},\
\"plain_witness_map_s\":{:.9},\"overhead\":{:.1},\"upload_bytes\":{upload},\"download_bytes\":{},\
\"noise_budget_bits\":{:.1},\"diagonal_cache\":\"{}\",\"baby_steps\":{},\"baby_step_keys\":{},\"peak_rss_bytes\":{rss},\"seed\":{seed},\"verified\":{verified}}}",
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

/// The owner, server and verify steps through files.
mod files {
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;
    use std::time::Instant;

    use ark_bn254::{Bn254, Fr};
    use ark_groth16::{Groth16, ProvingKey, VerifyingKey};
    use ark_snark::SNARK;
    use ark_std::rand::{rngs::StdRng, SeedableRng};
    use bigp_he::job::{self, BoxError};

    use super::{options, Cache, KeyShape};
    use he_fft::{DiagonalCache, FftOptions};
    use he_groth16::{
        CubicChain, EncryptedReduction, Evaluations, Outsourcing, R1cs, WitnessMapRoute,
        WitnessServer,
    };
    use helib_rs::{Context, Ctxt, GaloisKeys, ObjectKind, PubKey, SecKey};

    use super::Step;

    pub fn run(step: Step) -> Result<bool, BoxError> {
        match step {
            Step::Owner {
                dir,
                constraints,
                small,
                seed,
                shape,
            } => owner(
                &dir,
                constraints,
                small,
                match seed {
                    Some(seed) => seed,
                    None => u64::from_le_bytes(super::os_random()?),
                },
                shape,
            ),
            Step::Server {
                dir,
                small,
                cache,
                json,
            } => server(&dir, small, cache, json),
            Step::Verify { dir } => verify(&dir),
        }
    }

    fn public(dir: &Path, name: &str) -> PathBuf {
        dir.join("public").join(name)
    }

    fn private(dir: &Path, name: &str) -> PathBuf {
        dir.join("owner").join(name)
    }

    /// A request or a circuit record is one short line.
    const MAX_LINE: u64 = 256;

    fn write(path: PathBuf, bytes: &[u8]) -> Result<(), BoxError> {
        fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(())
    }

    /// The circuit, its Groth16 keys, and the rng a proof continues with.
    type Built = (
        CubicChain<Fr>,
        ProvingKey<Bn254>,
        VerifyingKey<Bn254>,
        StdRng,
    );

    /// What the owner keeps about its circuit: `constraints seed small`.
    struct Circuit {
        constraints: usize,
        seed: u64,
        small: bool,
    }

    impl Circuit {
        fn read(dir: &Path) -> Result<Circuit, BoxError> {
            let text = String::from_utf8(helib_rs::read_file_at_most(
                &private(dir, "circuit.txt"),
                MAX_LINE,
            )?)?;
            match text.split_whitespace().collect::<Vec<_>>().as_slice() {
                [c, s, small] => Ok(Circuit {
                    constraints: c.parse()?,
                    seed: s.parse()?,
                    small: *small == "small",
                }),
                _ => Err(format!("malformed owner/circuit.txt: {text:?}").into()),
            }
        }

        /// The circuit and its Groth16 keys, rebuilt from the seed, and the rng the proof
        /// continues with.
        fn build(&self) -> Result<Built, BoxError> {
            let mut rng = StdRng::seed_from_u64(self.seed);
            let circuit = CubicChain::<Fr>::with_constraints(self.constraints, &mut rng);
            let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)?;
            Ok((circuit, pk, vk, rng))
        }
    }

    /// The evaluations `a`, `b`, `c` of the circuit's constraint polynomials.
    fn evaluations(circuit: &CubicChain<Fr>) -> Result<Evaluations<Fr>, BoxError> {
        let r = R1cs::from_circuit(circuit.clone())?;
        Ok(Evaluations::new(
            &r.matrices,
            r.num_inputs,
            r.num_constraints,
            &r.assignment,
        )?)
    }

    /// The context of a witness map of `n` points: the toy ring `N = 2048` when `small`. The
    /// owner makes it, and the server rebuilds it from the request rather than build what a
    /// context file describes.
    fn context(n: usize, small: bool) -> Result<Context, BoxError> {
        Ok(if small {
            job::toy_context(he_fft::witness_map_ciphertext_bits(2048, 254, n))?
        } else {
            he_fft::witness_map_context::<Fr>(n)?
        })
    }

    /// A server that already answered: the `h` the server step wrote.
    struct Answered(Vec<Vec<u8>>);

    impl WitnessServer for Answered {
        fn witness_map(
            &self,
            _a: &[Vec<u8>],
            _b: &[Vec<u8>],
        ) -> Result<Vec<Vec<u8>>, he_groth16::Error> {
            Ok(self.0.clone())
        }
    }

    /// The ciphertext files `{name}-0.ct`, `{name}-1.ct`, ... of one encrypted vector.
    fn ct_name(name: &str, i: usize) -> String {
        format!("{name}-{i}.ct")
    }

    fn read_cts(
        ctx: &Context,
        dir: &Path,
        name: &str,
        count: usize,
    ) -> Result<Vec<Vec<u8>>, BoxError> {
        (0..count)
            .map(|i| ctx.read_object_file(&public(dir, &ct_name(name, i)), ObjectKind::Ciphertext))
            .collect::<helib_rs::Result<_>>()
            .map_err(Into::into)
    }

    fn owner(
        dir: &Path,
        constraints: usize,
        small: bool,
        seed: u64,
        shape: KeyShape,
    ) -> Result<bool, BoxError> {
        let max = if small {
            super::MAX_SMALL_CONSTRAINTS
        } else {
            super::MAX_CONSTRAINTS
        };
        if !(2..=max).contains(&constraints) {
            return Err(format!("--constraints must be from 2 to {max}, got {constraints}").into());
        }
        let start = Instant::now();
        let record = Circuit {
            constraints,
            seed,
            small,
        };
        let (circuit, _, _, _) = record.build()?;
        let n = circuit.domain_size();
        let ctx = context(circuit.domain_size(), small)?;
        fs::create_dir_all(dir.join("public"))?;
        fs::create_dir_all(dir.join("owner"))?;

        let sk = SecKey::generate(&ctx)?;
        let pk = PubKey::generate(&sk)?;
        let map = he_fft::witness_map_for::<Fr>(&ctx, n, &options(Cache::Never, shape))?;
        for i in 0..map
            .num_result_ciphertexts()
            .max(map.num_input_ciphertexts())
        {
            for name in ["a", "b", "h"] {
                let _ = fs::remove_file(public(dir, &ct_name(name, i)));
            }
        }
        let gk = GaloisKeys::generate(&sk, &map.galois_steps())?;
        let e = evaluations(&circuit)?;
        let mut files = vec![
            ("context.bin".to_string(), ctx.to_bytes()?),
            ("pubkey.bin".to_string(), pk.to_bytes()?),
            ("galois.bin".to_string(), gk.to_bytes()?),
            ("request.txt".to_string(), shape.request(n).into_bytes()),
        ];
        for (name, x) in [("a", &e.a), ("b", &e.b)] {
            for (i, bytes) in map.encrypt_to_bytes(&sk, x)?.into_iter().enumerate() {
                files.push((ct_name(name, i), bytes));
            }
        }
        let mut up = 0;
        for (name, bytes) in &files {
            write(public(dir, name), bytes)?;
            up += bytes.len();
            println!(
                "owner: public/{name:<12} {:>10.2} MiB",
                bytes.len() as f64 / 1048576.0
            );
        }
        helib_rs::write_private_file(&private(dir, "secret.bin"), &sk.to_bytes()?)?;
        helib_rs::write_private_file(
            &private(dir, "circuit.txt"),
            format!(
                "{constraints} {seed} {}\n",
                if small { "small" } else { "secure" }
            )
            .as_bytes(),
        )?;
        write(private(dir, "context.bin"), &files[0].1)?;
        write(private(dir, "pubkey.bin"), &files[1].1)?;
        println!(
            "owner: {} constraints, domain {n}, N = {}, security {}; {:.1} MiB up; {:.2} s",
            circuit.num_constraints(),
            ctx.ring_degree(),
            ctx.security_label(),
            up as f64 / 1048576.0,
            start.elapsed().as_secs_f64()
        );
        Ok(true)
    }

    fn server(dir: &Path, allow_toy: bool, cache: Cache, json: bool) -> Result<bool, BoxError> {
        bigp_he::reuse_freed_memory();
        let start = Instant::now();
        let text = String::from_utf8(helib_rs::read_file_at_most(
            &public(dir, "request.txt"),
            MAX_LINE,
        )?)?;
        let (n, shape) = KeyShape::parse_request(&text)?;
        let ctx = context(n, allow_toy)?;
        ctx.check_context_file(&public(dir, "context.bin"))
            .map_err(|e| {
                format!(
                    "{e}, the context of a {n}-point witness map; {}",
                    job::TOY_HINT
                )
            })?;
        let pk = PubKey::from_bytes(
            &ctx,
            &ctx.read_object_file(&public(dir, "pubkey.bin"), ObjectKind::PublicKey)?,
        )?;
        let gk = GaloisKeys::from_bytes(&ctx, &ctx.read_key_set_file(&public(dir, "galois.bin"))?)?;
        let keys_ready = start.elapsed();
        let server =
            he_groth16::InProcessServer::<Fr>::new(&ctx, pk, gk, n, &options(cache, shape))?;
        let loaded = start.elapsed();
        let t = Instant::now();
        let count = server.map().num_input_ciphertexts();
        let h = server.witness_map(
            &read_cts(&ctx, dir, "a", count)?,
            &read_cts(&ctx, dir, "b", count)?,
        )?;
        let witness_map = t.elapsed();
        for (i, bytes) in h.iter().enumerate() {
            write(public(dir, &ct_name("h", i)), bytes)?;
        }
        let down = h.iter().map(Vec::len).sum::<usize>();
        println!(
            "server: keys read in {:.2} s (keys_ready_s), matrices encoded in {:.2} s; witness map \
             (n = {n}) in {:.2} s; {:.2} MiB back",
            keys_ready.as_secs_f64(),
            (loaded - keys_ready).as_secs_f64(),
            witness_map.as_secs_f64(),
            down as f64 / 1048576.0
        );
        if json {
            println!(
                "{{\"domain_size\":{n},\"keys_ready_s\":{:.6},\"server_setup_s\":{:.6},\
\"server_s\":{:.6},\"download_bytes\":{down},\"peak_rss_bytes\":{}}}",
                keys_ready.as_secs_f64(),
                (loaded - keys_ready).as_secs_f64(),
                witness_map.as_secs_f64(),
                bigp_he::peak_rss_bytes()
            );
        }
        Ok(true)
    }

    fn verify(dir: &Path) -> Result<bool, BoxError> {
        let record = Circuit::read(dir)?;
        let (circuit, pk_g16, vk, _) = record.build()?;
        // The proof's r and s: fresh from the OS, never derived from the stored seed.
        let mut rng = StdRng::from_seed(super::os_random()?);
        let ctx = context(circuit.domain_size(), record.small)?;
        ctx.check_context_file(&private(dir, "context.bin"))?;
        let (sk, pk) = job::read_key_pair(
            &ctx,
            &private(dir, "secret.bin"),
            &private(dir, "pubkey.bin"),
        )?;
        let n = circuit.domain_size();
        let count = he_fft::witness_map_for::<Fr>(
            &ctx,
            n,
            &FftOptions::default().with_cache(DiagonalCache::Never),
        )?
        .num_result_ciphertexts();
        let h = read_cts(&ctx, dir, "h", count)?;
        // Only ciphertexts under the owner's key are taken (the check below decides the rest).
        for bytes in &h {
            Ctxt::from_bytes(&pk, bytes)?;
        }
        let session = Arc::new(Outsourcing::<Fr>::new(
            sk,
            pk,
            Box::new(Answered(h)),
            n,
            WitnessMapRoute::ServerOnly,
        )?);
        let proved = {
            let _guard = session.enter();
            Groth16::<Bn254, EncryptedReduction>::prove(&pk_g16, circuit.clone(), &mut rng)
        };
        let proof = match proved {
            Ok(proof) => proof,
            Err(e) => {
                return match he_groth16::last_error() {
                    // A verdict on the server's result, for the owner only.
                    Some(he_groth16::Error::Rejected(why)) => {
                        println!("verify: REJECTED: {why}");
                        Ok(false)
                    }
                    Some(detail) => Err(format!("proving failed: {e}: {detail}").into()),
                    None => Err(format!("proving failed: {e}").into()),
                };
            }
        };
        let verified = Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof)?;
        println!(
            "verify: h decrypted and checked; ark-groth16 verifier: {}",
            if verified {
                "proof accepted"
            } else {
                "PROOF REJECTED"
            }
        );
        Ok(verified)
    }
}

/// 32 (or 8) bytes from the OS's random source, for secrets the seed must not decide.
fn os_random<const N: usize>() -> Result<[u8; N], BoxError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| format!("the OS random source failed: {e}"))?;
    Ok(bytes)
}
