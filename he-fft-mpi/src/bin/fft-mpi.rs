//! The four-step encrypted FFT across MPI ranks, as the data owner and the ranks of a server
//! exchange it through a shared directory.
//!
//! ```text
//! fft-mpi setup DIR --size N [--small] [--seed S] [--witness-map]  # the owner
//! mpirun -np P fft-mpi run DIR [--threads T] [--json]  # the server: rank r's block of the FFT
//! fft-mpi single DIR                                  # the same in one process (reference)
//! fft-mpi verify DIR [--json]                         # the owner: decrypt, compare with ark-poly
//! ```
//!
//! `--witness-map` sets up Groth16's witness map (`he_fft::FourStepWitnessMap`, random `a`,
//! `b` and `c = a b`) instead of the FFT; `run`, `single` and `verify` then run and check it.
//!
//! `make fft-mpi NP=4 FFT_ARGS="--size 1048576"` runs setup, run and verify. Each rank reads
//! the context and keys from the shared directory, its own input ciphertexts
//! (`input_<i>.bin`), and writes its outputs (`output_<j>.bin`); `run` prints one progress line
//! per rank and step, and rank 0 a JSON line with every rank's time, peak memory and bytes.
//! Exit status: 0 verified, 1 mismatch, 2 usage, I/O or engine error. A rank that dies ends
//! the whole job (Open MPI's default), and mpirun names it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use ark_bn254::Fr;
use ark_ff::{FftField, Field};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use clap::{Parser, Subcommand};
use he_fft::{
    four_step_fft_context, witness_map_context, Direction, EncryptedTransform, FftOptions,
    FourStepFft, FourStepWitnessMap, PlanOptions,
};
use helib_rs::{Context, Ctxt, GaloisKeys, ObjectKind, PubKey, SecKey, Zeroizing};
use mpi::traits::{Communicator, CommunicatorCollectives, Root};
use serde::{Deserialize, Serialize};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The four-step encrypted FFT across MPI ranks, through a shared directory.
#[derive(Parser, Debug)]
#[command(name = "fft-mpi")]
struct Args {
    #[command(subcommand)]
    step: Step,
}

#[derive(Subcommand, Debug)]
enum Step {
    /// The owner: a context for the size, keys, a random vector, its encrypted input files.
    Setup {
        dir: PathBuf,
        /// FFT size (a power of two spanning 2 to 128 slot rows).
        #[arg(long)]
        size: usize,
        /// An insecure toy ring (N = 2048, rows of 1024) for tests.
        #[arg(long)]
        small: bool,
        /// Seed of the random vector (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// Giant-step chains of the row FFTs' plans, fixed here for every rank and for
        /// `single`, so that their outputs are the same bytes (each chain costs a key).
        #[arg(long, default_value_t = 1)]
        chains: usize,
        /// Groth16's witness map of random constraints instead of the FFT (a size of at least
        /// two slot rows: N).
        #[arg(long)]
        witness_map: bool,
    },
    /// One rank of the server (under mpirun): its block of inputs in, its block of outputs out.
    Run {
        dir: PathBuf,
        /// Threads per rank.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Rank 0 prints one JSON object as the last line of standard output.
        #[arg(long)]
        json: bool,
    },
    /// The same transform in one process, writing `single_<j>.bin` (the reference).
    Single {
        dir: PathBuf,
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// The owner: decrypts the outputs and compares them with ark-poly's FFT (and, when
    /// `single` ran, byte for byte with its outputs).
    Verify {
        dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

/// What setup fixes, for the other steps.
#[derive(Serialize, Deserialize)]
struct Params {
    size: usize,
    small: bool,
    chains: usize,
    /// Input ciphertexts (the witness map: of each of a and b).
    ciphertexts: usize,
    /// Groth16's witness map instead of the FFT.
    #[serde(default)]
    witness_map: bool,
    /// The owner's figures, carried into the JSON of `run` and `verify`.
    keygen_s: f64,
    encrypt_s: f64,
    upload_bytes: u64,
    galois_key_bytes: u64,
}

impl Params {
    fn options(&self) -> FftOptions {
        FftOptions::default().with_plan(PlanOptions::default().with_chains(self.chains))
    }
}

/// One rank's figures, gathered by rank 0.
#[derive(Serialize, Deserialize, Clone, Copy, Default)]
struct RankFigures {
    rank: u64,
    keys_ready_s: f64,
    server_s: f64,
    peak_rss_bytes: u64,
    bytes_broadcast: u64,
    bytes_received: u64,
    prepare_s: f64,
    exchange_s: f64,
    first_step_s: f64,
    second_step_s: f64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    // Long computations over same-sized buffers: reuse freed ones instead of page-faulting
    // fresh memory (as the examples do).
    if let Err(e) = helib_rs::retain_freed_memory() {
        eprintln!("note: {e}");
    }
    let outcome = match &args.step {
        Step::Setup {
            dir,
            size,
            small,
            seed,
            chains,
            witness_map,
        } => setup(dir, *size, *small, *seed, *chains, *witness_map).map(|()| true),
        Step::Run { dir, threads, json } => with_threads(*threads, || run(dir, *json)),
        Step::Single { dir, threads } => with_threads(*threads, || single(dir)),
        Step::Verify { dir, json } => verify(dir, *json),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn with_threads(
    threads: usize,
    f: impl FnOnce() -> Result<bool, BoxError> + Send,
) -> Result<bool, BoxError> {
    if threads == 0 {
        return Err("--threads must be at least 1".into());
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?
        .install(f)
}

/// The job's own small files (parameters, the run's summary).
const MAX_JSON_BYTES: u64 = 1 << 16;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), BoxError> {
    let path = dir.join(name);
    fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The input ciphertexts `indices`, validated against `pk`.
fn read_inputs(
    dir: &Path,
    pk: &PubKey,
    indices: std::ops::Range<usize>,
) -> Result<Vec<Ctxt>, BoxError> {
    indices
        .map(|i| {
            let name = format!("input_{i}.bin");
            Ok(Ctxt::from_bytes(
                pk,
                &pk.context()
                    .read_object_file(&dir.join(&name), ObjectKind::Ciphertext)?,
            )?)
        })
        .collect()
}

fn context(small: bool, n: usize, witness_map: bool) -> helib_rs::Result<Context> {
    if small {
        // Far below 128-bit security: for tests only, and said so.
        let bits = if witness_map {
            he_fft::four_step_witness_map_ciphertext_bits(2048, 254, n)
        } else {
            he_fft::four_step_ciphertext_bits(2048, 254, n)
        };
        Context::builder()
            .ring_degree(2048)
            .plaintext_field::<Fr>()
            .ciphertext_bits(bits)
            .allow_insecure(true)
            .build()
    } else if witness_map {
        witness_map_context::<Fr>(n)
    } else {
        four_step_fft_context::<Fr>(n)
    }
}

/// What the owner set up: the four-step FFT, or the witness map.
enum Transform {
    Fft(Box<FourStepFft<Fr>>),
    WitnessMap(Box<FourStepWitnessMap<Fr>>),
}

impl Transform {
    fn new(ctx: &Context, params: &Params) -> helib_rs::Result<Self> {
        Ok(if params.witness_map {
            Transform::WitnessMap(Box::new(FourStepWitnessMap::new(
                ctx,
                params.size,
                &params.options(),
            )?))
        } else {
            Transform::Fft(Box::new(FourStepFft::new(
                ctx,
                params.size,
                Direction::Forward,
                &params.options(),
            )?))
        })
    }

    fn as_dyn(&self) -> &dyn EncryptedTransform<Fr> {
        match self {
            Transform::Fft(fft) => fft.as_ref(),
            Transform::WitnessMap(map) => map.as_ref(),
        }
    }

    /// Input ciphertexts: the FFT's, or of each of a and b.
    fn ciphertexts(&self) -> usize {
        self.as_dyn().num_input_ciphertexts()
    }

    /// Input files: the witness map's are a's, then b's.
    fn input_files(&self) -> usize {
        self.as_dyn().num_inputs() * self.ciphertexts()
    }

    /// Output ciphertexts.
    fn outputs(&self) -> usize {
        match self {
            Transform::Fft(fft) => fft.num_ciphertexts(),
            Transform::WitnessMap(map) => map.num_rows(),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Transform::Fft(_) => "fft",
            Transform::WitnessMap(_) => "witness map",
        }
    }
}

/// The transform and the public material every rank reads.
struct Shared {
    params: Params,
    ctx: Context,
    pk: PubKey,
    /// Read only by the steps that compute.
    gk: Option<GaloisKeys>,
    transform: Transform,
}

fn load_shared(dir: &Path, with_keys: bool) -> Result<Shared, BoxError> {
    let params: Params = serde_json::from_slice(&helib_rs::read_file_at_most(
        &dir.join("params.json"),
        MAX_JSON_BYTES,
    )?)?;
    // The context the parameters give, compared with the file's bytes: a context file is never
    // built as it stands.
    let ctx = context(params.small, params.size, params.witness_map)?;
    ctx.check_context_file(&dir.join("context.bin"))
        .map_err(|e| format!("{e}, the context params.json describes"))?;
    let pk = PubKey::from_bytes(
        &ctx,
        &ctx.read_object_file(&dir.join("pubkey.bin"), ObjectKind::PublicKey)?,
    )?;
    let gk = if with_keys {
        let bytes = ctx.read_key_set_file(&dir.join("galois.bin"))?;
        Some(GaloisKeys::from_bytes(&ctx, &bytes)?)
    } else {
        None
    };
    let transform = Transform::new(&ctx, &params)?;
    if transform.ciphertexts() != params.ciphertexts {
        return Err("params.json does not match the transform".into());
    }
    Ok(Shared {
        params,
        ctx,
        pk,
        gk,
        transform,
    })
}

fn setup(
    dir: &Path,
    n: usize,
    small: bool,
    seed: Option<u64>,
    chains: usize,
    witness_map: bool,
) -> Result<(), BoxError> {
    if chains == 0 {
        return Err("--chains must be at least 1".into());
    }
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let ctx = context(small, n, witness_map)?;
    let mut params = Params {
        size: n,
        small,
        chains,
        ciphertexts: 0,
        witness_map,
        keygen_s: 0.0,
        encrypt_s: 0.0,
        upload_bytes: 0,
        galois_key_bytes: 0,
    };
    let transform = Transform::new(&ctx, &params)?;
    let fft = transform.as_dyn();
    params.ciphertexts = transform.ciphertexts();
    let t = Instant::now();
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
    let keygen = t.elapsed();
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let mut rng = StdRng::seed_from_u64(seed);
    // The FFT's vector, or the witness map's a then b (c = a b, the constraints holding).
    let x: Vec<Fr> = (0..transform.as_dyn().num_inputs() * n)
        .map(|_| Fr::rand(&mut rng))
        .collect();
    let t = Instant::now();
    let mut inputs = Vec::new();
    for part in x.chunks(n) {
        inputs.extend(fft.encrypt_to_bytes(&sk, part)?);
    }
    let encrypt = t.elapsed();
    let galois = gk.to_bytes()?;
    params.keygen_s = keygen.as_secs_f64();
    params.encrypt_s = encrypt.as_secs_f64();
    params.galois_key_bytes = galois.len() as u64;
    params.upload_bytes = inputs.iter().map(|b| b.len() as u64).sum();
    write(dir, "params.json", &serde_json::to_vec(&params)?)?;
    write(dir, "context.bin", &ctx.to_bytes()?)?;
    write(dir, "pubkey.bin", &pk.to_bytes()?)?;
    write(dir, "galois.bin", &galois)?;
    helib_rs::write_private_file(&dir.join("secret.key"), &sk.to_bytes()?)?;
    let mut plain = Vec::new();
    x.serialize_compressed(&mut plain)?;
    helib_rs::write_private_file(&dir.join("x.bin"), &plain)?;
    for (i, bytes) in inputs.iter().enumerate() {
        write(dir, &format!("input_{i}.bin"), bytes)?;
    }
    eprintln!(
        "setup: {} of n = {n}, {} input ciphertexts, N = {}, security {}{}; keys {:.1} s, \
         encryption {:.1} s, upload {:.1} MB (keys {:.1} MB), seed {seed}",
        transform.name(),
        inputs.len(),
        ctx.ring_degree(),
        ctx.security_label(),
        if small {
            " (--small: INSECURE toy ring)"
        } else {
            ""
        },
        keygen.as_secs_f64(),
        encrypt.as_secs_f64(),
        params.upload_bytes as f64 / 1e6,
        params.galois_key_bytes as f64 / 1e6,
    );
    Ok(())
}

fn run(dir: &Path, json: bool) -> Result<bool, BoxError> {
    let universe = mpi::initialize().ok_or("MPI is initialized already")?;
    let world = universe.world();
    let (ranks, rank) = (world.size() as usize, world.rank() as usize);
    let t = Instant::now();
    let shared = load_shared(dir, true)?;
    let keys_ready = t.elapsed();
    let cts = shared.transform.ciphertexts();
    let block = he_fft_mpi::owned(cts, ranks, rank);
    let mine = read_inputs(dir, &shared.pk, block.clone())?;
    // The witness map's b: the same block, after a's files.
    let mine_b = match shared.transform {
        Transform::WitnessMap(_) => {
            read_inputs(dir, &shared.pk, block.start + cts..block.end + cts)?
        }
        Transform::Fft(_) => Vec::new(),
    };
    world.barrier();
    let t = Instant::now();
    // For the tests: FFT_MPI_KILL_RANK=r has rank r kill itself (SIGKILL) after its first
    // batch, as a crashed node would, to check that the job then ends with an error.
    let doomed = std::env::var("FFT_MPI_KILL_RANK")
        .ok()
        .and_then(|r| r.parse::<usize>().ok())
        == Some(rank);
    let progress = |done: usize, total: usize| {
        eprintln!("rank {rank}/{ranks}: {done}/{total} (step 1, then step 2 of its block)");
        if doomed && done == 1 {
            // SAFETY: signals this very process; no memory is involved.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
        }
    };
    let gk = shared.gk.as_ref().ok_or("no Galois keys")?;
    let (result, outputs) = match &shared.transform {
        Transform::Fft(fft) => (
            he_fft_mpi::four_step(&world, fft, gk, &shared.pk, &mine, &progress)?,
            block.clone(),
        ),
        Transform::WitnessMap(map) => (
            he_fft_mpi::witness_map(&world, map, gk, &shared.pk, &mine, &mine_b, &progress)?,
            he_fft_mpi::owned(map.num_rows(), ranks, rank),
        ),
    };
    let server = t.elapsed();
    for (j, y) in outputs.zip(&result.outputs) {
        write(dir, &format!("output_{j}.bin"), &y.to_bytes()?)?;
    }
    let mine_figures = RankFigures {
        rank: rank as u64,
        keys_ready_s: keys_ready.as_secs_f64(),
        server_s: server.as_secs_f64(),
        peak_rss_bytes: helib_rs::peak_rss_bytes(),
        bytes_broadcast: result.bytes_broadcast,
        bytes_received: result.bytes_received,
        prepare_s: result.prepare_s,
        exchange_s: result.exchange_s,
        first_step_s: result.first_step_s,
        second_step_s: result.second_step_s,
    };
    let fields = [
        mine_figures.rank as f64,
        mine_figures.keys_ready_s,
        mine_figures.server_s,
        mine_figures.peak_rss_bytes as f64,
        mine_figures.bytes_broadcast as f64,
        mine_figures.bytes_received as f64,
        mine_figures.prepare_s,
        mine_figures.exchange_s,
        mine_figures.first_step_s,
        mine_figures.second_step_s,
    ];
    let root = world.process_at_rank(0);
    if rank == 0 {
        let mut all = vec![0f64; fields.len() * ranks];
        root.gather_into_root(&fields[..], &mut all[..]);
        let figures: Vec<RankFigures> = all
            .chunks(fields.len())
            .map(|f| RankFigures {
                rank: f[0] as u64,
                keys_ready_s: f[1],
                server_s: f[2],
                peak_rss_bytes: f[3] as u64,
                bytes_broadcast: f[4] as u64,
                bytes_received: f[5] as u64,
                prepare_s: f[6],
                exchange_s: f[7],
                first_step_s: f[8],
                second_step_s: f[9],
            })
            .collect();
        let summary = serde_json::json!({
            "size": shared.params.size,
            "transform": shared.transform.name(),
            "inverse": false,
            "route": "four-step, across MPI ranks",
            "ring_degree": shared.ctx.ring_degree(),
            "log2_qp": shared.ctx.log2_qp(),
            "security_bits": shared.ctx.security_bits(),
            "ranks": ranks,
            "threads": rayon::current_num_threads(),
            "ciphertexts": cts,
            "he_fft_s": figures.iter().map(|f| f.server_s).fold(0.0, f64::max),
            "keys_ready_s": figures.iter().map(|f| f.keys_ready_s).fold(0.0, f64::max),
            "keygen_s": shared.params.keygen_s,
            "encrypt_s": shared.params.encrypt_s,
            "upload_bytes": shared.params.upload_bytes,
            "galois_key_bytes": shared.params.galois_key_bytes,
            "peak_rss_bytes": figures.iter().map(|f| f.peak_rss_bytes).max().unwrap_or(0),
            "per_rank": figures,
        });
        write(dir, "run.json", serde_json::to_string(&summary)?.as_bytes())?;
        eprintln!(
            "run: {ranks} rank(s), n = {}: {:.2} s (slowest rank)",
            shared.params.size,
            summary["he_fft_s"].as_f64().unwrap_or(0.0)
        );
        if json {
            println!("{summary}");
        }
    } else {
        root.gather_into(&fields[..]);
    }
    Ok(true)
}

fn single(dir: &Path) -> Result<bool, BoxError> {
    let shared = load_shared(dir, true)?;
    let x = read_inputs(dir, &shared.pk, 0..shared.transform.input_files())?;
    let t = Instant::now();
    let y = shared
        .transform
        .as_dyn()
        .apply(shared.gk.as_ref().ok_or("no Galois keys")?, &x)?;
    eprintln!("single: one process, {:.2} s", t.elapsed().as_secs_f64());
    for (j, ct) in y.iter().enumerate() {
        write(dir, &format!("single_{j}.bin"), &ct.to_bytes()?)?;
    }
    Ok(true)
}

fn verify(dir: &Path, json: bool) -> Result<bool, BoxError> {
    let shared = load_shared(dir, false)?;
    let secret = Zeroizing::new(
        shared
            .ctx
            .read_object_file(&dir.join("secret.key"), ObjectKind::SecretKey)?,
    );
    let sk = SecKey::from_bytes(&shared.ctx, &secret)?;
    // A length prefix and the 32-byte elements (a and b for the witness map).
    let max_x = 8 + 2 * 32 * shared.params.size as u64;
    let x = Vec::<Fr>::deserialize_compressed(
        &helib_rs::read_file_at_most(&dir.join("x.bin"), max_x)?[..],
    )?;
    let cts = shared.transform.outputs();
    let mut outputs = Vec::with_capacity(cts);
    let mut download = 0u64;
    let mut identical = true;
    let mut compared = false;
    for j in 0..cts {
        let bytes = shared
            .ctx
            .read_object_file(&dir.join(format!("output_{j}.bin")), ObjectKind::Ciphertext)?;
        let single = format!("single_{j}.bin");
        if let Ok(reference) = shared
            .ctx
            .read_object_file(&dir.join(&single), ObjectKind::Ciphertext)
        {
            compared = true;
            identical &= reference == bytes;
        }
        download += bytes.len() as u64;
        outputs.push(Ctxt::from_bytes(&shared.pk, &bytes)?);
    }
    let t = Instant::now();
    let y = shared.transform.as_dyn().decrypt(&sk, &outputs)?;
    let decrypt = t.elapsed();
    let n = shared.params.size;
    let domain = Radix2EvaluationDomain::<Fr>::new(n).ok_or("no FFT domain of that size")?;
    let t = Instant::now();
    // The plain result, and for the witness map also the owner's O(n) check of h.
    let (plain, checked) = match shared.transform {
        Transform::Fft(_) => (domain.fft(&x), true),
        Transform::WitnessMap(_) => {
            let (a, b) = x.split_at(n);
            let c: Vec<Fr> = a.iter().zip(b).map(|(p, q)| p * q).collect();
            let checked = he_fft::check::quotient(&domain, a, b, &c, &y).is_ok();
            (plain_quotient(&domain, a, b, &c)?, checked)
        }
    };
    let plain_fft = t.elapsed();
    let equal = y == plain && checked;
    let verified = equal && identical;
    eprintln!(
        "verify: decrypted in {:.2} s; {}{}",
        decrypt.as_secs_f64(),
        if equal {
            "equals the plain computation (ark-poly)"
        } else {
            "DIFFERS from the plain computation (ark-poly)"
        },
        match (compared, identical) {
            (false, _) => String::new(),
            (true, true) => "; byte for byte the single-process outputs".into(),
            (true, false) => "; NOT the single-process outputs".into(),
        }
    );
    if json {
        let mut summary: serde_json::Value =
            helib_rs::read_file_at_most(&dir.join("run.json"), MAX_JSON_BYTES)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or_else(|| serde_json::json!({}));
        summary["decrypt_s"] = decrypt.as_secs_f64().into();
        summary["download_bytes"] = download.into();
        summary["plain_fft_s"] = plain_fft.as_secs_f64().into();
        if let Some(he) = summary["he_fft_s"].as_f64() {
            summary["overhead"] = (he / plain_fft.as_secs_f64()).into();
        }
        summary["identical_to_single_process"] = if compared {
            identical.into()
        } else {
            serde_json::Value::Null
        };
        summary["verified"] = verified.into();
        println!("{summary}");
    }
    Ok(verified)
}

/// Groth16's quotient as ark-groth16's `LibsnarkReduction` computes it: `a`, `b`, `c` to the
/// coset `g H`, `(a b - c) / Z_H` there, back to coefficients.
fn plain_quotient(
    domain: &Radix2EvaluationDomain<Fr>,
    a: &[Fr],
    b: &[Fr],
    c: &[Fr],
) -> Result<Vec<Fr>, BoxError> {
    let coset = domain
        .get_coset(Fr::GENERATOR)
        .ok_or("the generator gives no coset")?;
    let [pa, pb, pc] = [a, b, c].map(|v| coset.fft(&domain.ifft(v)));
    let z_inv = domain
        .evaluate_vanishing_polynomial(Fr::GENERATOR)
        .inverse()
        .ok_or("the vanishing polynomial is zero at the generator")?;
    let q: Vec<Fr> = (0..domain.size())
        .map(|i| (pa[i] * pb[i] - pc[i]) * z_inv)
        .collect();
    Ok(coset.ifft(&q))
}
