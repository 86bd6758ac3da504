//! A load test of `he-server` (`make load-test`): a server started on a free loopback port,
//! `--clients` threads that each upload a key set once and then run FFT jobs on it for
//! `--seconds`, every result checked against arkworks.
//!
//! ```text
//! cargo run --release -p he-client --example load_test -- [--clients 8] [--seconds 60]
//!     [--server-bin target/release/he-server] [--memory-budget 2G] [--json]
//! ```
//!
//! Reports jobs per second, latency percentiles (a job's whole round: the client's
//! encryption, the upload check, the server's work and the client's decryption), errors
//! (failed calls and wrong results) and the server's peak memory (`VmHWM`) against its budget. Toy rings (insecure, `N = 2048`):
//! this measures the server, not the cryptography. Exit status 0 when there were no errors
//! and the peak stayed within the budget, 1 otherwise, 2 when it could not run.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use clap::Parser;
use he_client::Client;
use he_fft::protocol::{Job, KeySetParts, Request};
use he_fft::{DiagonalCache, Direction, EncryptedTransform, Route};
use helib_rs::{Ctxt, GaloisKeys, PubKey, SecKey};

#[derive(Parser, Debug)]
struct Args {
    /// Clients running at once.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    clients: u32,
    /// How long they run.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    seconds: u64,
    /// The server binary (cargo build --release -p he-server).
    #[arg(long, default_value = "target/release/he-server")]
    server_bin: PathBuf,
    /// The server's memory budget.
    #[arg(long, default_value = "2G")]
    memory_budget: String,
    /// Print one JSON object as the last line.
    #[arg(long)]
    json: bool,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The sizes the clients cycle through: one product, two stages, four steps on the toy ring.
const SIZES: [usize; 3] = [64, 1024, 4096];

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("load_test: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<bool, BoxError> {
    let budget = budget_bytes(&args.memory_budget)?;
    let dir = std::env::temp_dir().join(format!("he-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let tokens: Vec<String> = (0..2)
        .map(|t| format!("load-tenant-{t}-0123456789abcdef0123456789"))
        .collect();
    let lines: String = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| format!("tenant{i} {t}\n"))
        .collect();
    std::fs::write(dir.join("tokens"), lines)?;
    let mut server = Command::new(&args.server_bin)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--allow-toy-ring",
            "--workers",
            "2",
        ])
        .args(["--memory-budget", &args.memory_budget])
        .arg("--state")
        .arg(dir.join("state"))
        .arg("--tokens")
        .arg(dir.join("tokens"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "{}: {e} (build it: cargo build --release -p he-server)",
                args.server_bin.display()
            )
        })?;
    let mut line = String::new();
    BufReader::new(server.stdout.take().ok_or("no stdout")?).read_line(&mut line)?;
    let addr = line
        .trim()
        .strip_prefix("he-server listening on ")
        .ok_or_else(|| format!("the server did not start: {line:?}"))?
        .to_string();
    let url = format!("http://{addr}");

    let latencies: Arc<Mutex<Vec<f64>>> = Arc::default();
    let errors: Arc<Mutex<Vec<String>>> = Arc::default();
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let start = Instant::now();
    let workers: Vec<_> = (0..args.clients as usize)
        .map(|c| {
            let (url, token) = (url.clone(), tokens[c % tokens.len()].clone());
            let (latencies, errors) = (Arc::clone(&latencies), Arc::clone(&errors));
            std::thread::spawn(move || {
                if let Err(e) = client_loop(&url, &token, c, deadline, &latencies) {
                    errors
                        .lock()
                        .map(|mut v| v.push(format!("client {c}: {e}")))
                        .ok();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().map_err(|_| "a client thread panicked")?;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let peak = peak_of(server.id());
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);

    let mut l = latencies.lock().map_err(|_| "poisoned")?.clone();
    l.sort_by(f64::total_cmp);
    let errors = errors.lock().map_err(|_| "poisoned")?.clone();
    let pct = |p: f64| {
        l.get(((l.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let jobs = l.len();
    // A peak that could not be read (0) is no evidence of staying within the budget.
    let ok = errors.is_empty() && peak > 0 && peak <= budget && jobs > 0;
    let report = serde_json::json!({
        "clients": args.clients,
        "seconds": elapsed,
        "jobs": jobs,
        "jobs_per_s": jobs as f64 / elapsed,
        "latency_p50_s": pct(0.5),
        "latency_p90_s": pct(0.9),
        "latency_p99_s": pct(0.99),
        "latency_max_s": l.last().copied().unwrap_or(0.0),
        "errors": errors.len(),
        "server_peak_rss_bytes": peak,
        "memory_budget_bytes": budget,
        "ok": ok,
    });
    let r = |key: &str| report[key].as_f64().unwrap_or(0.0);
    println!(
        "{jobs} jobs in {elapsed:.1} s from {} clients: {:.2} jobs/s; latency p50 {:.3} s, \
         p90 {:.3} s, p99 {:.3} s, max {:.3} s; {} errors; server peak {:.0} MiB of a {:.0} \
         MiB budget",
        args.clients,
        r("jobs_per_s"),
        r("latency_p50_s"),
        r("latency_p90_s"),
        r("latency_p99_s"),
        r("latency_max_s"),
        errors.len(),
        peak as f64 / 1048576.0,
        budget as f64 / 1048576.0
    );
    for e in &errors {
        println!("error: {e}");
    }
    if args.json {
        println!("{report}");
    }
    Ok(ok)
}

/// One client: a key set per size, uploaded once, then jobs until the deadline, each result
/// compared with arkworks' FFT.
fn client_loop(
    url: &str,
    token: &str,
    c: usize,
    deadline: Instant,
    latencies: &Mutex<Vec<f64>>,
) -> Result<(), BoxError> {
    let client = Client::new(url, token)?;
    let owners: Vec<_> = SIZES
        .iter()
        .map(|&n| owner(n))
        .collect::<Result<_, BoxError>>()?;
    let mut round = 0u64;
    while Instant::now() < deadline {
        let (n, o) = (
            SIZES[round as usize % SIZES.len()],
            &owners[round as usize % SIZES.len()],
        );
        let x: Vec<Fr> = (0..n as u64)
            .map(|i| Fr::from(i * 31 + round + c as u64))
            .collect();
        let t = Instant::now();
        let id = client.upload_key_set(&o.parts())?;
        let inputs = o.transform.encrypt_to_bytes(&o.sk, &x)?;
        let (outputs, _) =
            client.run(&id, &inputs, &o.ctx, o.transform.info().output_ciphertexts)?;
        let cts: Vec<Ctxt> = outputs
            .iter()
            .map(|b| Ctxt::from_bytes(&o.pk, b))
            .collect::<Result<_, _>>()?;
        let y = o.transform.decrypt(&o.sk, &cts)?;
        if y != Radix2EvaluationDomain::<Fr>::new(n)
            .ok_or("domain")?
            .fft(&x)
        {
            return Err(format!("a wrong FFT of size {n}").into());
        }
        latencies
            .lock()
            .map_err(|_| "poisoned")?
            .push(t.elapsed().as_secs_f64());
        round += 1;
    }
    Ok(())
}

struct Owner {
    request: Request,
    ctx: helib_rs::Context,
    sk: SecKey,
    pk: PubKey,
    transform: Box<dyn EncryptedTransform<Fr>>,
    bytes: [Vec<u8>; 3],
}

impl Owner {
    fn parts(&self) -> KeySetParts<'_> {
        KeySetParts {
            request: self.request,
            context: &self.bytes[0],
            public_key: &self.bytes[1],
            keys: &self.bytes[2],
            matrix: &[],
        }
    }
}

fn owner(n: usize) -> Result<Owner, BoxError> {
    let route = if n > 1024 {
        Route::FourSteps
    } else {
        Route::fastest_for(n)
    };
    let request = Request {
        chains: Some(1),
        ..Request::new(
            Job::Fft {
                direction: Direction::Forward,
                route,
            },
            n,
        )
        .on_toy_ring()
    };
    let ctx = request.context::<Fr>()?;
    let transform = request.transform::<Fr>(&ctx, DiagonalCache::Never)?;
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let keys = GaloisKeys::generate(&sk, &transform.galois_steps())?.to_bytes()?;
    let bytes = [
        ctx.to_bytes()?,
        pk.to_bytes_without_relinearization()?,
        keys,
    ];
    Ok(Owner {
        request,
        ctx,
        sk,
        pk,
        transform,
        bytes,
    })
}

/// The server's peak resident memory (`VmHWM` of `/proc/PID/status`), 0 where unreadable.
fn peak_of(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

fn budget_bytes(s: &str) -> Result<u64, BoxError> {
    let (digits, shift) = match s.as_bytes().last() {
        Some(b'G') => (&s[..s.len() - 1], 30),
        Some(b'M') => (&s[..s.len() - 1], 20),
        _ => (s, 0),
    };
    Ok(digits.parse::<u64>()? << shift)
}
