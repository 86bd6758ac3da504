//! Private aggregation: K users each encrypt a vector of L values under one public key, a
//! server sums the uploads from files without seeing any, and the key owner decrypts the sum,
//! checked against the plain sum over the field.
//!
//! ```text
//! cargo run --release --example aggregate -- [--users K] [--len L] [--counters]
//!                                            [--dir DIR] [--threads T] [--json] [--small]
//! ```
//!
//! Values are random BN254 field elements, or random `u64` counters with `--counters` (their
//! sum is exact: the field leaves room for `2^189` users' counters). Half the users encrypt
//! afresh, half online from an encryption pool filled offline. Each user's upload is
//! written to its own file (in `--dir`, or a temporary directory removed afterwards); the
//! server streams them on `--threads` threads. When the peers benchmark is built (`make
//! peers`), it runs in the same process run and its Paillier and SEAL figures are printed
//! beside ours. Exit status: 0 verified, 1 mismatch, 2 usage or engine error.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_ff::{UniformRand, Zero};
use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
use bigp_he::cli::JobArgs;
use bigp_he::demo::time_seed;
use bigp_he::job::{self, BoxError};
use bigp_he::peak_rss_bytes;
use clap::{CommandFactory, Parser};
use helib_rs::{Aggregation, EncryptedSum, EncryptionPool, PubKey, SecKey};
use rayon::prelude::*;

/// Private aggregation of many users' encrypted vectors, checked against the plain sum.
#[derive(Parser, Debug)]
#[command(name = "aggregate")]
struct Args {
    /// Number of users K.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    users: u64,
    /// Values per user L (32768 per ciphertext at 128-bit security; 2048 with --small).
    #[arg(long, default_value_t = 32768, value_parser = clap::value_parser!(u64).range(1..=(1 << 24)))]
    len: u64,
    /// Random u64 counters instead of random field elements.
    #[arg(long)]
    counters: bool,
    /// Directory for the users' upload files (default: a temporary one, removed at the end).
    #[arg(long)]
    dir: Option<PathBuf>,
    #[command(flatten)]
    job: JobArgs,
}

fn main() -> ExitCode {
    let usage = Args::command().render_usage().to_string();
    job::main(&usage, Ok(Args::parse()), |a| a.job.threads(), run)
}

/// One user's timings (fresh, or offline and online) and upload size.
#[derive(Default)]
struct UserTimes {
    fresh: Option<Duration>,
    offline: Option<Duration>,
    online: Option<Duration>,
    bytes: usize,
}

/// One scheme's per-element figures from the peers benchmark.
struct Peer {
    scheme: String,
    encrypt_s: f64,
    add_s: f64,
    decrypt_s: f64,
    bytes: f64,
}

fn run(args: &Args) -> Result<bool, BoxError> {
    // Many same-sized buffers: reuse freed ones instead of page-faulting fresh ones.
    bigp_he::reuse_freed_memory();
    let (users, len) = (args.users, args.len as usize);
    let say = |line: String| {
        if !args.job.json {
            println!("{line}");
        }
    };
    let t = Instant::now();
    let agg = if args.job.small {
        let ctx = job::toy_context(330)?;
        Aggregation::with_context(&ctx, users)?
    } else {
        Aggregation::new::<Fr>(users)?
    };
    let sk = SecKey::generate(agg.context())?;
    let pk = PubKey::generate(&sk)?;
    let keygen = t.elapsed();
    let per_user = agg.ciphertexts_for(len);
    say(format!(
        "private aggregation: {users} users x {len} {} over BN254 Fr, {per_user} ciphertext(s) \
         per user, {} thread(s)",
        if args.counters {
            "u64 counters"
        } else {
            "field elements"
        },
        args.job.threads()
    ));
    say(job::parameters_line(agg.context(), args.job.small));

    match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| format!("--dir {}: {e}", dir.display()))?;
            users_server_owner(args, &agg, &sk, &pk, dir, keygen)
        }
        None => {
            // A fresh directory of the user's alone (mode 0700, a random name), removed on drop.
            let dir = tempfile::Builder::new()
                .prefix("aggregate-")
                .tempdir()
                .map_err(|e| format!("a temporary directory: {e}"))?;
            users_server_owner(args, &agg, &sk, &pk, dir.path(), keygen)
        }
    }
}

fn users_server_owner(
    args: &Args,
    agg: &Aggregation,
    sk: &SecKey,
    pk: &PubKey,
    dir: &Path,
    keygen: Duration,
) -> Result<bool, BoxError> {
    let (users, len) = (args.users, args.len as usize);
    let say = |line: String| {
        if !args.job.json {
            println!("{line}");
        }
    };
    // Users, in parallel: each draws its vector, encrypts it (timed alone) and writes its file.
    // Even users encrypt afresh; odd users fill an encryption pool offline (timed apart) and
    // encrypt online from it. Both kinds of upload go into the same sum.
    let seed = time_seed();
    let t = Instant::now();
    let files: Vec<PathBuf> = (0..users)
        .map(|u| dir.join(format!("user{u:07}.bin")))
        .collect();
    let per_user = agg.ciphertexts_for(len);
    let results: Vec<UserTimes> = files
        .par_iter()
        .enumerate()
        .map(|(u, path)| -> Result<UserTimes, BoxError> {
            let values = user_values(seed, u as u64, len, args.counters, agg)?;
            let mut times = UserTimes::default();
            let bytes = if u % 2 == 0 {
                let t = Instant::now();
                let upload = agg.encrypt(pk, &values)?;
                times.fresh = Some(t.elapsed());
                Aggregation::upload_to_bytes(&upload)?
            } else {
                let t = Instant::now();
                let mut pool = EncryptionPool::public(pk, per_user)?;
                times.offline = Some(t.elapsed());
                // Online: the message added to the zeros' rows, straight to bytes (the
                // fresh upload above still has its serialization ahead of it).
                let t = Instant::now();
                let parts = agg.encrypt_with_pool_to_bytes(&mut pool, &values)?;
                times.online = Some(t.elapsed());
                Aggregation::upload_parts_to_bytes(&parts)?
            };
            std::fs::write(path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            times.bytes = bytes.len();
            Ok(times)
        })
        .collect::<Result<_, _>>()?;
    let users_wall = t.elapsed();
    let median_of = |pick: fn(&UserTimes) -> Option<Duration>| {
        let mut v: Vec<Duration> = results.iter().filter_map(pick).collect();
        v.sort();
        v.get(v.len() / 2).copied().unwrap_or_default()
    };
    let (encrypt, online, offline) = (
        median_of(|t| t.fresh),
        median_of(|t| t.online),
        median_of(|t| t.offline),
    );
    let upload_bytes = results.iter().map(|t| t.bytes).max().unwrap_or(0);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    say(format!(
        "users: median encryption {:.1} ms per user ({:.2} M elements/s); online from a pool \
         {:.1} ms ({:.1}x faster; the pool took {:.1} ms offline); upload {:.2} MiB per user \
         ({:.0} bytes per element); all {users} in {:.1} s",
        ms(encrypt),
        len as f64 / encrypt.as_secs_f64() / 1e6,
        ms(online),
        if online.is_zero() {
            0.0
        } else {
            encrypt.as_secs_f64() / online.as_secs_f64()
        },
        ms(offline),
        upload_bytes as f64 / (1 << 20) as f64,
        upload_bytes as f64 / len as f64,
        users_wall.as_secs_f64()
    ));

    // Server: stream the files into one sum.
    let t = Instant::now();
    let sum = EncryptedSum::sum_files(agg, pk, &files)?;
    let server = t.elapsed();
    let threads = rayon::current_num_threads();
    let ciphertexts = users as f64 * agg.ciphertexts_for(len) as f64;
    let per_ct = server.as_secs_f64() / ciphertexts;
    let rate_per_core = (users as f64 * len as f64) / server.as_secs_f64() / threads as f64;
    say(format!(
        "server: {users} uploads summed from files in {:.2} s, {:.3} ms per added ciphertext, \
         {:.1} M elements/s per core",
        server.as_secs_f64(),
        per_ct * 1e3,
        rate_per_core / 1e6
    ));

    // Owner: decrypt, and check against the plain sum.
    let t = Instant::now();
    let got = sum.decrypt::<Fr>(sk, len)?;
    let decrypt = t.elapsed();
    let expected = plain_sum(seed, users, len, args.counters, agg)?;
    let verified = got == expected;
    say(format!(
        "owner: decrypted the sum in {:.1} ms; {} (noise budget left {:.1} bits)",
        decrypt.as_secs_f64() * 1e3,
        if verified {
            "equals the plain sum"
        } else {
            "MISMATCH with the plain sum"
        },
        sum.ciphertexts()
            .iter()
            .map(|c| c.noise_budget())
            .fold(f64::INFINITY, f64::min)
    ));

    let peers = peers_figures();
    let ours = Peer {
        scheme: "this library, BN254".into(),
        encrypt_s: encrypt.as_secs_f64() / len as f64,
        add_s: per_ct / agg.values_per_ciphertext() as f64,
        decrypt_s: decrypt.as_secs_f64() / len as f64,
        bytes: upload_bytes as f64 / len as f64,
    };
    match &peers {
        Ok(list) => {
            say("per element, one core (peers from `make peers`, measured now):".into());
            say(format!(
                "  {:<28} {:>12} {:>12} {:>12} {:>10}",
                "scheme", "encrypt", "add", "decrypt", "bytes"
            ));
            for p in std::iter::once(&ours).chain(list) {
                say(format!(
                    "  {:<28} {:>9.3} us {:>9.4} us {:>9.3} us {:>10.1}",
                    p.scheme,
                    p.encrypt_s * 1e6,
                    p.add_s * 1e6,
                    p.decrypt_s * 1e6,
                    p.bytes
                ));
            }
        }
        Err(why) => say(format!("peers: {why}")),
    }

    if args.job.json {
        let peers_json = peers
            .as_ref()
            .map(|list| {
                list.iter()
                    .map(|p| {
                        format!(
                            "{{\"scheme\":\"{}\",\"encrypt_per_element_s\":{:e},\
                             \"add_per_element_s\":{:e},\"decrypt_per_element_s\":{:e},\
                             \"bytes_per_element\":{:.1}}}",
                            p.scheme, p.encrypt_s, p.add_s, p.decrypt_s, p.bytes
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default();
        println!(
            "{{\"users\":{users},\"len\":{len},\"counters\":{},\"ring_degree\":{},\
             \"log2_qp\":{:.1},\"security_bits\":{:.1},\"threads\":{threads},\
             \"keygen_s\":{:.6},\"encrypt_user_s\":{:.6},\"encrypt_elements_per_s\":{:.0},\
             \"encrypt_online_user_s\":{:.6},\"pool_offline_user_s\":{:.6},\
             \"upload_bytes_per_user\":{upload_bytes},\"bytes_per_element\":{:.1},\
             \"server_s\":{:.6},\"server_per_ciphertext_s\":{:e},\
             \"server_elements_per_s_per_core\":{:.0},\"decrypt_s\":{:.6},\
             \"peak_rss_bytes\":{},\"peers\":[{peers_json}],\"verified\":{verified}}}",
            args.counters,
            agg.context().ring_degree(),
            agg.context().log2_qp(),
            agg.context().security_bits(),
            keygen.as_secs_f64(),
            encrypt.as_secs_f64(),
            len as f64 / encrypt.as_secs_f64(),
            online.as_secs_f64(),
            offline.as_secs_f64(),
            upload_bytes as f64 / len as f64,
            server.as_secs_f64(),
            per_ct,
            rate_per_core,
            decrypt.as_secs_f64(),
            peak_rss_bytes(),
        );
    }
    Ok(verified)
}

/// User `u`'s values, drawn from a generator seeded by the run's seed and `u`, so the plain
/// sum can be recomputed without keeping every vector.
fn user_values(
    seed: u64,
    u: u64,
    len: usize,
    counters: bool,
    agg: &Aggregation,
) -> helib_rs::Result<Vec<Fr>> {
    let mut rng = StdRng::seed_from_u64(seed ^ u.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    if counters {
        let raw: Vec<u64> = (0..len).map(|_| rng.gen()).collect();
        agg.encode_counters(&raw)
    } else {
        Ok((0..len).map(|_| Fr::rand(&mut rng)).collect())
    }
}

fn plain_sum(
    seed: u64,
    users: u64,
    len: usize,
    counters: bool,
    agg: &Aggregation,
) -> helib_rs::Result<Vec<Fr>> {
    (0..users)
        .into_par_iter()
        .try_fold(
            || vec![Fr::zero(); len],
            |mut sum, u| {
                for (s, x) in sum
                    .iter_mut()
                    .zip(user_values(seed, u, len, counters, agg)?)
                {
                    *s += x;
                }
                Ok(sum)
            },
        )
        .try_reduce(
            || vec![Fr::zero(); len],
            |mut a, b| {
                for (s, x) in a.iter_mut().zip(b) {
                    *s += x;
                }
                Ok(a)
            },
        )
}

/// The peers benchmark's aggregation figures (Paillier and SEAL, and whatever else it
/// reports), run now when it is built: `PEERS_BIN`, or `peers/target/release/peers` of this
/// repository (found from where it was built, never from the current directory).
fn peers_figures() -> Result<Vec<Peer>, String> {
    let bin = std::env::var_os("PEERS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("peers/target/release/peers")
        });
    if !bin.exists() {
        return Err(format!(
            "not built ({} is absent; `make peers` builds and runs it)",
            bin.display()
        ));
    }
    let out = Command::new(&bin)
        .args(["--aggregation-only", "--json"])
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            bin.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    parse_peers(last).ok_or_else(|| format!("{}: unreadable output", bin.display()))
}

/// Reads the peers benchmark's JSON rows: `[{"scheme":..,"encrypt_per_element_s":..,..},..]`.
fn parse_peers(json: &str) -> Option<Vec<Peer>> {
    let rows: serde_json::Value = serde_json::from_str(json).ok()?;
    rows.as_array()?
        .iter()
        .map(|row| {
            let num = |key: &str| row.get(key)?.as_f64();
            Some(Peer {
                scheme: row.get("scheme")?.as_str()?.to_string(),
                encrypt_s: num("encrypt_per_element_s")?,
                add_s: num("add_per_element_s")?,
                decrypt_s: num("decrypt_per_element_s")?,
                bytes: num("bytes_per_element")?,
            })
        })
        .collect()
}
