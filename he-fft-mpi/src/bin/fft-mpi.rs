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
//! `make fft-mpi NP=4 FFT_ARGS="--size 1048576"` runs setup, run and verify. The directory
//! is `he_fft::protocol`'s exchange: `DIR/public/` (the request, context, keys, inputs
//! `input-<i>.ct`, outputs `output-<j>.ct`, the reference `single-<j>.ct`, the owner's
//! figures and the run's summary) and `DIR/owner/` (secret key and plain input, 0600). Each
//! rank reads the context and keys, its own input ciphertexts, and writes its outputs; `run` prints one progress line
//! per rank and step, and rank 0 a JSON line with every rank's time, peak memory and bytes.
//! Exit status: 0 verified, 1 mismatch, 2 usage, I/O or engine error. A rank that dies ends
//! the whole job (Open MPI's default), and mpirun names it.

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
use he_fft::protocol::{self, ExchangeDir, Job, OwnerJob, OwnerKeys, Request, Side};
use he_fft::{
    DiagonalCache, Direction, EncryptedTransform, FourStepFft, FourStepWitnessMap, Route,
};
use helib_rs::{Context, Ctxt, GaloisKeys, ObjectKind, PubKey};
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
    /// The same transform in one process, writing `public/single-<j>.ct` (the reference).
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

/// The owner's figures, carried into the JSON of `run` and `verify` (`public/owner.json`:
/// times and byte counts, nothing secret).
#[derive(Serialize, Deserialize)]
struct OwnerFigures {
    keygen_s: f64,
    encrypt_s: f64,
    upload_bytes: u64,
    galois_key_bytes: u64,
}

/// The owner's figures file in `public/`.
const FIGURES_FILE: &str = "owner.json";
/// The run's summary in `public/`.
const SUMMARY_FILE: &str = "run.json";
/// The owner's plain input in `owner/` (0600).
const PLAIN_FILE: &str = "x.bin";

/// The single-process reference output `j`.
fn single_name(j: usize) -> String {
    format!("single-{j}.ct")
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

/// A JSON file of the job's own (figures, the run's summary) in `public/`, or `None`.
fn read_json<T: serde::de::DeserializeOwned>(dir: &ExchangeDir, name: &str) -> Option<T> {
    helib_rs::read_file_at_most(&dir.path(Side::Public, name), MAX_JSON_BYTES)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
}

/// What the owner asks for: the four-step FFT (forward) or the witness map of `n` points,
/// with its giant-step chains fixed for every rank and for `single`.
fn request(n: usize, small: bool, chains: usize, witness_map: bool) -> Request {
    let job = if witness_map {
        Job::WitnessMap
    } else {
        Job::Fft {
            direction: Direction::Forward,
            route: Route::FourSteps,
        }
    };
    let mut request = Request::new(job, n);
    request.chains = Some(chains);
    if small {
        request = request.on_toy_ring();
    }
    request
}

/// What the owner set up: the four-step FFT, or the witness map.
enum Transform {
    Fft(Box<FourStepFft<Fr>>),
    WitnessMap(Box<FourStepWitnessMap<Fr>>),
}

impl Transform {
    /// The request's transform; `computing` on the server's side (`run`, `single`), where the
    /// witness map encodes its row map's diagonals once for all of a rank's components
    /// (within the default budget) instead of once per row map. The FFT's and the owner's
    /// encode when needed.
    fn new(ctx: &Context, request: &Request, computing: bool) -> he_fft::Result<Self> {
        // The ranks share out the four-step FFT (its first step on the server) and the
        // four-step witness map: any other request is refused, not run as another.
        let four_steps = matches!(
            request.job,
            Job::Fft {
                route: he_fft::Route::FourSteps,
                ..
            } | Job::WitnessMap
        );
        if request.parties > 1 {
            return Err(he_fft::Error::BadRequest(format!(
                "fft-mpi serves keys of one owner, not keys shared by parties ({request})"
            )));
        }
        if !four_steps || request.domain != he_fft::protocol::Domain::Subgroup {
            return Err(he_fft::Error::BadRequest(format!(
                "fft-mpi runs the four-step FFT on the subgroup and the four-step witness map, \
                 not {request}"
            )));
        }
        let cache = match request.job {
            Job::WitnessMap if computing => DiagonalCache::default(),
            _ => DiagonalCache::Never,
        };
        let options = request.options(cache);
        Ok(match request.job {
            Job::WitnessMap => Transform::WitnessMap(Box::new(FourStepWitnessMap::new(
                ctx,
                request.size,
                &options,
            )?)),
            Job::Fft { direction, .. } => Transform::Fft(Box::new(FourStepFft::new(
                ctx,
                request.size,
                direction,
                &options,
            )?)),
            Job::CosetChange | Job::ClientAssistedWitnessMap | Job::MatrixProduct { .. } => {
                return Err(he_fft::Error::Internal(
                    "a job fft-mpi does not run passed its check".into(),
                ))
            }
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
        self.as_dyn().info().input_ciphertexts
    }

    /// Input files: the witness map's are a's, then b's.
    fn input_files(&self) -> usize {
        self.as_dyn().info().total_input_ciphertexts()
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
    request: Request,
    ctx: Context,
    pk: PubKey,
    /// Read only by the steps that compute.
    gk: Option<GaloisKeys>,
    transform: Transform,
}

fn load_shared(dir: &ExchangeDir, with_keys: bool) -> Result<Shared, BoxError> {
    let request = dir.read_request(Side::Public)?;
    // The context the request gives, compared with the file's bytes: a context file is never
    // built as it stands.
    let ctx = request.context::<Fr>()?;
    ctx.check_context_file(&dir.path(Side::Public, protocol::CONTEXT_FILE))
        .map_err(|e| format!("{e}, the context the request describes ({request})"))?;
    let pk = dir.read_public_key(&ctx, Side::Public)?;
    let gk = if with_keys {
        let path = dir.path(Side::Public, protocol::GALOIS_KEYS_FILE);
        Some(GaloisKeys::from_bytes(
            &ctx,
            &ctx.read_key_set_file(&path)?,
        )?)
    } else {
        None
    };
    let transform = Transform::new(&ctx, &request, with_keys)?;
    Ok(Shared {
        request,
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
    let request = request(n, small, chains, witness_map);
    let job = OwnerJob::<Fr>::new(&request)?;
    // The MPI ranks run the four-step routes only.
    let ctx = request.context::<Fr>()?;
    let transform = Transform::new(&ctx, &request, false)?;
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let mut rng = StdRng::seed_from_u64(seed);
    // The FFT's vector, or the witness map's a then b (c = a b, the constraints holding).
    let inputs = job.transform().info().num_inputs;
    let x: Vec<Fr> = (0..inputs * n).map(|_| Fr::rand(&mut rng)).collect();
    let parts: Vec<&[Fr]> = x.chunks(n).collect();
    let exchange = ExchangeDir::new(dir);
    let report = job.write(&exchange, &parts)?;
    let bytes_of = |name: &str| {
        report
            .files
            .iter()
            .filter(|(n, _)| n == name || (name == "input" && n.starts_with("input-")))
            .map(|(_, b)| *b as u64)
            .sum::<u64>()
    };
    let figures = OwnerFigures {
        keygen_s: report.galois_keygen_time.as_secs_f64(),
        encrypt_s: report.encrypt_time.as_secs_f64(),
        upload_bytes: bytes_of("input"),
        galois_key_bytes: bytes_of(protocol::GALOIS_KEYS_FILE),
    };
    exchange.write(Side::Public, FIGURES_FILE, &serde_json::to_vec(&figures)?)?;
    let mut plain = Vec::new();
    x.serialize_compressed(&mut plain)?;
    exchange.write_secret(PLAIN_FILE, &plain)?;
    eprintln!(
        "setup: {} of n = {n}, {} input ciphertexts, N = {}, security {}{}; keys {:.1} s, \
         encryption {:.1} s, upload {:.1} MB (keys {:.1} MB), seed {seed}",
        transform.name(),
        transform.input_files(),
        report.ring_degree,
        report.security,
        if small {
            " (--small: INSECURE toy ring)"
        } else {
            ""
        },
        figures.keygen_s,
        figures.encrypt_s,
        figures.upload_bytes as f64 / 1e6,
        figures.galois_key_bytes as f64 / 1e6,
    );
    Ok(())
}

fn run(dir: &Path, json: bool) -> Result<bool, BoxError> {
    let dir = &ExchangeDir::new(dir);
    let universe = mpi::initialize().ok_or("MPI is initialized already")?;
    let world = universe.world();
    let (ranks, rank) = (world.size() as usize, world.rank() as usize);
    let t = Instant::now();
    let shared = load_shared(dir, true)?;
    let keys_ready = t.elapsed();
    let cts = shared.transform.ciphertexts();
    let block = he_fft_mpi::owned(cts, ranks, rank);
    let mine = dir.read_ciphertexts(&shared.pk, ExchangeDir::input_name, block.clone())?;
    // The witness map's b: the same block, after a's files.
    let mine_b = match shared.transform {
        Transform::WitnessMap(_) => dir.read_ciphertexts(
            &shared.pk,
            ExchangeDir::input_name,
            block.start + cts..block.end + cts,
        )?,
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
        dir.write(
            Side::Public,
            &ExchangeDir::output_name(j),
            &download_bytes(y)?,
        )?;
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
    let figures_of_owner: Option<OwnerFigures> = read_json(dir, FIGURES_FILE);
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
            "size": shared.request.size,
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
            "keygen_s": figures_of_owner.as_ref().map(|f| f.keygen_s),
            "encrypt_s": figures_of_owner.as_ref().map(|f| f.encrypt_s),
            "upload_bytes": figures_of_owner.as_ref().map(|f| f.upload_bytes),
            "galois_key_bytes": figures_of_owner.as_ref().map(|f| f.galois_key_bytes),
            "peak_rss_bytes": figures.iter().map(|f| f.peak_rss_bytes).max().unwrap_or(0),
            "per_rank": figures,
        });
        dir.write(
            Side::Public,
            SUMMARY_FILE,
            serde_json::to_string(&summary)?.as_bytes(),
        )?;
        eprintln!(
            "run: {ranks} rank(s), n = {}: {:.2} s (slowest rank)",
            shared.request.size,
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
    let dir = &ExchangeDir::new(dir);
    let shared = load_shared(dir, true)?;
    let x = dir.read_ciphertexts(
        &shared.pk,
        ExchangeDir::input_name,
        0..shared.transform.input_files(),
    )?;
    let t = Instant::now();
    let y = shared
        .transform
        .as_dyn()
        .apply(shared.gk.as_ref().ok_or("no Galois keys")?, &x)?;
    eprintln!("single: one process, {:.2} s", t.elapsed().as_secs_f64());
    for (j, ct) in y.iter().enumerate() {
        dir.write(Side::Public, &single_name(j), &download_bytes(ct)?)?;
    }
    Ok(true)
}

/// An output's bytes for the owner: switched down to the fewest primes that still decrypt
/// with the usual margin, as the one-process server sends them.
fn download_bytes(y: &Ctxt) -> Result<Vec<u8>, BoxError> {
    let mut y = y.try_clone()?;
    y.compact_for_decryption(helib_rs::DECRYPTION_MARGIN_BITS)?;
    Ok(y.to_bytes()?)
}

fn verify(dir: &Path, json: bool) -> Result<bool, BoxError> {
    let dir = &ExchangeDir::new(dir);
    // The owner's own request, context and keys: nothing the server can write.
    let kept = OwnerKeys::open::<Fr>(dir)?;
    let transform = Transform::new(&kept.ctx, &kept.request, false)?;
    let n = kept.request.size;
    // A length prefix and the 32-byte elements (a and b for the witness map).
    let max_x = 8 + 2 * 32 * n as u64;
    let x = Vec::<Fr>::deserialize_compressed(
        &helib_rs::read_file_at_most(&dir.path(Side::Owner, PLAIN_FILE), max_x)?[..],
    )?;
    let mut outputs = Vec::new();
    let mut download = 0u64;
    let mut identical = true;
    let mut compared = false;
    for (j, bytes) in kept.output_bytes::<Fr>(dir)?.iter().enumerate() {
        let single = dir.path(Side::Public, &single_name(j));
        if let Ok(reference) = kept.ctx.read_object_file(&single, ObjectKind::Ciphertext) {
            compared = true;
            identical &= &reference == bytes;
        }
        download += bytes.len() as u64;
        outputs.push(Ctxt::from_bytes(&kept.pk, bytes)?);
    }
    let t = Instant::now();
    let y = transform.as_dyn().decrypt(&kept.sk, &outputs)?;
    let decrypt = t.elapsed();
    let domain = Radix2EvaluationDomain::<Fr>::new(n).ok_or("no FFT domain of that size")?;
    let t = Instant::now();
    // The plain result, and for the witness map also the owner's O(n) check of h.
    let (plain, checked) = match transform {
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
            read_json(dir, SUMMARY_FILE).unwrap_or_else(|| serde_json::json!({}));
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
