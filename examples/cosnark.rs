//! A Groth16 proof by `K` parties who share the witness and the decryption key, with the
//! witness map on an untrusted server: each party a process of its own, the messages files.
//!
//! ```text
//! cargo run --release --example cosnark -- [--parties K] [--constraints N] [--json] [--small]
//! cargo run --release --example cosnark -- --server URL --token-file FILE [--parties K] ...
//! ```
//!
//! The run plays the coordinator (and, without `--server`, the server in its own process). It
//! also plays the dealer of the demonstration: it makes a cubic MiMC-style circuit of about
//! `N` constraints (`he_groth16::CubicChain`), its Groth16 keys, and `K` additive shares of
//! its assignment (a coSNARK's parties get theirs from the computation that made the
//! witness). Then it starts `K` copies of itself as the parties, which talk through files
//! in a mailbox directory (`--dir`, by default a fresh one under the system's temporary
//! directory, mode 0700; one directory every process can read is a demonstration's
//! transport, not a deployment's), and:
//!
//! 1. the parties agree on a common random string and make the joint keys (three rounds:
//!    the string, key shares, relinearization answers); the coordinator combines them and
//!    hands them to the server;
//! 2. each party encrypts its shares of `a`, `b`, `r`, `s` and computes its shares of `A`,
//!    `B`; the server runs the witness map on the sums and multiplies `r` by `s`;
//! 3. each party sends masked decryption shares of `h` and `r s` and its share of `C` to
//!    party 0, which assembles the proof (so the coordinator never holds decryption
//!    shares); ark-groth16's verifier checks it.
//!
//! For comparison, the same circuit is then proven by one owner with the witness map on the
//! same kind of server (`he_groth16::Outsourcing`), and in the clear by ark-groth16.
//!
//! `--server URL --token-file FILE` puts the witness map on a running `he-server`
//! (`make cosnark` starts one on loopback). `--small` uses the insecure toy ring (N = 2048,
//! up to 4094 constraints; a server must allow it). `--json` prints one JSON object as the
//! last line: per party its time for each step and its bytes sent and received, the
//! coordinator's and server's times, the whole time, and the comparison. Exit status: 0 the
//! proof verified, 1 it did not, 2 usage or engine error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Groth16, ProvingKey};
use ark_relations::gr1cs::Matrix;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use bigp_he::job::{self, BoxError};
use bigp_he::mailbox::Mailbox;
use clap::{CommandFactory, Parser, Subcommand};
use he_fft::protocol::{Job, KeySetParts, Request, Ring};
use he_fft::DiagonalCache;
use he_groth16::parties::{
    self, Blinding, Broadcast, Completion, Contribution, Coordinator, KeyShares, Party,
    RelinMessage,
};
use he_groth16::{
    CubicChain, EncryptedReduction, InProcessServer, Outsourcing, R1cs, WitnessMapRoute,
    WitnessServer,
};
use helib_rs::threshold::{contribution, CommonRandomString, KeyShare};
use helib_rs::{Context, PubKey};
use serde_json::json;

/// The most constraints on a secure ring: a domain of 2^20 points.
const MAX_CONSTRAINTS: usize = (1 << 20) - 2;

/// A Groth16 proof by parties sharing the witness and the key, verified by ark-groth16.
#[derive(Parser, Debug)]
#[command(name = "cosnark", args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    role: Option<Role>,
    #[command(flatten)]
    args: Args,
}

/// The parties' processes, which the run starts itself.
#[derive(Subcommand, Debug)]
enum Role {
    /// One party: reads and posts its messages in the mailbox DIR.
    Party {
        /// The mailbox directory.
        #[arg(long)]
        dir: PathBuf,
        /// The party's index, 0..K.
        #[arg(long)]
        index: u32,
        /// Seconds to wait for a message before giving up.
        #[arg(long, default_value_t = 3600)]
        timeout: u64,
    },
}

#[derive(clap::Args, Debug)]
struct Args {
    /// The parties sharing the witness and the key (2 to 16).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=16))]
    parties: u32,
    /// About this many constraints (the circuit has an even number).
    #[arg(long, default_value_t = 4000)]
    constraints: usize,
    /// One JSON object as the last line of standard output.
    #[arg(long)]
    json: bool,
    /// The insecure toy ring (N = 2048), for quick checks.
    #[arg(long)]
    small: bool,
    /// A running he-server's base URL (`http://127.0.0.1:8700`).
    #[arg(long, requires = "token_file")]
    server: Option<String>,
    /// The file holding the server's bearer token.
    #[arg(long, requires = "server")]
    token_file: Option<PathBuf>,
    /// The mailbox directory (must not exist; by default a fresh one, removed at the end).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Seconds a process waits for a message before giving up.
    #[arg(long, default_value_t = 3600)]
    timeout: u64,
    /// Proofs with the same keys (each from a fresh split of the assignment; 1 to 100).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=100))]
    proofs: u64,
    /// Skip the one-owner and clear proofs of the same circuit.
    #[arg(long)]
    no_compare: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let usage = Cli::command().render_usage().to_string();
    job::main(
        &usage,
        cli.validated(),
        |_| 0,
        |c| match &c.role {
            Some(Role::Party {
                dir,
                index,
                timeout,
            }) => party(dir, *index, Duration::from_secs(*timeout)).map(|()| true),
            None => run(&c.args),
        },
    )
}

impl Cli {
    fn validated(self) -> Result<Cli, String> {
        if self.role.is_some() {
            return Ok(self);
        }
        let a = &self.args;
        bigp_he::groth16_files::check_constraints(a.constraints, a.small, MAX_CONSTRAINTS)?;
        if let Some(dir) = &a.dir {
            if dir.exists() {
                return Err(format!(
                    "--dir {} exists; name a new directory",
                    dir.display()
                ));
            }
        }
        Ok(self)
    }
}

/// What the dealer hands every party: the proving key and the circuit's matrices.
#[derive(CanonicalSerialize, CanonicalDeserialize)]
struct CircuitFile {
    proving_key: ProvingKey<Bn254>,
    /// The statement: what the assembler verifies the proof against.
    public_inputs: Vec<Fr>,
    matrices: Vec<Matrix<Fr>>,
    num_inputs: u64,
    num_constraints: u64,
}

fn to_bytes(x: &impl CanonicalSerialize) -> Result<Vec<u8>, BoxError> {
    let mut v = Vec::new();
    x.serialize_uncompressed(&mut v)?;
    Ok(v)
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// What a party sent and received, in bytes.
#[derive(Default)]
struct Traffic {
    sent: u64,
    received: u64,
}

impl Traffic {
    fn json(&self) -> serde_json::Value {
        json!({"sent": self.sent, "received": self.received})
    }
}

/// The `i`-th party's process: every step of the protocol on its side, then its report.
fn party(dir: &Path, i: u32, timeout: Duration) -> Result<(), BoxError> {
    let mb = Mailbox::new(dir, timeout)?;
    let abort = dir.join("abort");
    let parent = std::os::unix::process::parent_id();
    // The run that started this party ended (it gave up, or was killed): stop too.
    let mut alive = || -> Result<(), BoxError> {
        if abort.exists() || !dir.exists() || std::os::unix::process::parent_id() != parent {
            return Err(format!("party {i}: the coordinator is gone").into());
        }
        Ok(())
    };
    let header = String::from_utf8(mb.wait("request", &mut alive)?)?;
    let (proofs, request) = header
        .split_once('\n')
        .ok_or("the request message has no proof count")?;
    let proofs: usize = proofs.parse()?;
    let request: Request = request.parse()?;
    let k = request.parties;
    let ctx = request.context::<Fr>()?;
    let steps = request
        .transform::<Fr>(&ctx, DiagonalCache::Never)?
        .galois_steps();

    // The common random string: one contribution each (a deployment commits first).
    let mut crs_traffic = Traffic::default();
    crs_traffic.sent += mb.post(&format!("crs-{i}"), &contribution()?)?;
    let mut seeds = Vec::new();
    for j in 0..k {
        let bytes = mb.wait(&format!("crs-{j}"), &mut alive)?;
        if j != i {
            crs_traffic.received += bytes.len() as u64;
        }
        seeds.push(
            <[u8; 32]>::try_from(bytes.as_slice())
                .map_err(|_| format!("party {j}'s contribution is not 32 bytes"))?,
        );
    }
    let crs = CommonRandomString::agree(&seeds);

    // The key shares and first relinearization message, then the second.
    let mut keys_traffic = Traffic::default();
    let t = Instant::now();
    let key = KeyShare::generate(&ctx, &crs)?;
    let (shares, relin1, secret) = parties::key_shares(&key, i, &steps)?;
    let key_shares_time = t.elapsed();
    keys_traffic.sent += mb.post(&format!("keys-{i}"), &shares.to_bytes())?;
    drop(shares);
    keys_traffic.sent += mb.post(&format!("relin1-{i}"), &relin1.to_bytes())?;
    drop(relin1);
    let mut round1 = Vec::new();
    for j in 0..k {
        let bytes = mb.wait(&format!("relin1-{j}"), &mut alive)?;
        if j != i {
            keys_traffic.received += bytes.len() as u64;
        }
        round1.push(RelinMessage::from_bytes(&bytes)?);
    }
    let t = Instant::now();
    let relin2 = parties::relin_round2(&key, i, secret, &round1)?;
    let relin_time = t.elapsed();
    drop(round1);
    keys_traffic.sent += mb.post(&format!("relin2-{i}"), &relin2.to_bytes())?;
    drop(relin2);
    let joint = mb.wait("joint-pk", &mut alive)?;
    keys_traffic.received += joint.len() as u64;
    let joint = PubKey::from_bytes(&ctx, &joint)?;

    // The proofs.
    let circuit = CircuitFile::deserialize_uncompressed(&*mb.wait("circuit", &mut alive)?)?;
    let (num_inputs, num_constraints) = (
        usize::try_from(circuit.num_inputs)?,
        usize::try_from(circuit.num_constraints)?,
    );
    let me = Party::<Bn254>::new(i, key, joint, &request)?;
    let mut per_proof = Vec::new();
    for p in 0..proofs {
        let mut traffic = Traffic::default();
        let before = me.report();
        // Taken out of the mailbox: only this party reads its share.
        let assignment =
            Vec::<Fr>::deserialize_uncompressed(&*mb.take(&format!("share-{i}-{p}"), &mut alive)?)?;
        let share = R1cs {
            matrices: circuit.matrices.clone(),
            num_inputs,
            num_constraints,
            assignment,
        };
        let (c, state) = me.contribute(&circuit.proving_key, &share, Blinding::random()?)?;
        drop(share);
        traffic.sent += mb.post(&format!("contribution-{i}-{p}"), &c.to_bytes()?)?;
        drop(c);
        let broadcast = mb.wait(&format!("broadcast-{p}"), &mut alive)?;
        traffic.received += broadcast.len() as u64;
        let broadcast = Broadcast::<Bn254>::from_bytes(&broadcast)?;
        let done = me.complete(&circuit.proving_key, state, &broadcast)?;
        // The completions go to party 0, which assembles: the coordinator never holds the
        // parties' decryption shares.
        let mut assemble_time = Duration::ZERO;
        if i == 0 {
            let mut completions = vec![done];
            for j in 1..k {
                let bytes = mb.wait(&format!("completion-{j}-{p}"), &mut alive)?;
                traffic.received += bytes.len() as u64;
                completions.push(Completion::from_bytes(&bytes)?);
            }
            let t = Instant::now();
            // Verified before it leaves party 0 (a made-up broadcast could otherwise turn it
            // into a function of the witness alone).
            let proof = me.assemble(
                &circuit.proving_key,
                &circuit.public_inputs,
                &broadcast,
                &completions,
            )?;
            assemble_time = t.elapsed();
            let mut bytes = Vec::new();
            proof.serialize_compressed(&mut bytes)?;
            traffic.sent += mb.post(&format!("proof-{p}"), &bytes)?;
        } else {
            traffic.sent += mb.post(&format!("completion-{i}-{p}"), &done.to_bytes()?)?;
        }
        let after = me.report();
        per_proof.push(json!({
            "encrypt_s": secs(after.encrypt - before.encrypt),
            "decrypt_s": secs(after.decrypt - before.decrypt),
            "msm_s": secs(after.msm - before.msm),
            "assemble_s": secs(assemble_time),
            "bytes": traffic.json(),
        }));
    }

    let report = json!({
        "party": i,
        "key_shares_s": secs(key_shares_time),
        "relin_round2_s": secs(relin_time),
        "common_string_bytes": crs_traffic.json(),
        "key_bytes": keys_traffic.json(),
        "proofs": per_proof,
        "peak_rss_bytes": bigp_he::peak_rss_bytes(),
    });
    mb.post(&format!("report-{i}"), report.to_string().as_bytes())?;
    Ok(())
}

/// The parties' processes, killed if the run ends before they do.
struct Parties(Vec<Child>);

impl Parties {
    fn start(dir: &Path, k: u32, timeout: u64) -> Result<Parties, BoxError> {
        let exe = std::env::current_exe()?;
        let mut children = Parties(Vec::new());
        for i in 0..k {
            let child = Command::new(&exe)
                .arg("party")
                .arg("--dir")
                .arg(dir)
                .args(["--index", &i.to_string(), "--timeout", &timeout.to_string()])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot start party {i}: {e}"))?;
            children.0.push(child);
        }
        Ok(children)
    }

    /// An error when a party has ended with a failure.
    fn check(&mut self) -> Result<(), BoxError> {
        for (i, c) in self.0.iter_mut().enumerate() {
            if let Some(status) = c.try_wait()? {
                if !status.success() {
                    return Err(format!("party {i} failed ({status})").into());
                }
            }
        }
        Ok(())
    }

    fn wait_all(&mut self) -> Result<(), BoxError> {
        for (i, c) in self.0.iter_mut().enumerate() {
            let status = c.wait()?;
            if !status.success() {
                return Err(format!("party {i} failed ({status})").into());
            }
        }
        Ok(())
    }
}

impl Drop for Parties {
    fn drop(&mut self) {
        for c in &mut self.0 {
            if let Ok(None) = c.try_wait() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

/// The mailbox directory, removed at the end unless the caller named it.
struct MailboxDir {
    path: PathBuf,
    remove: bool,
}

impl Drop for MailboxDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
            return;
        }
        // The parties, if any are still waiting, stop; shares not taken (a failed run) go.
        let _ = std::fs::write(self.path.join("abort"), b"");
        if let Ok(entries) = std::fs::read_dir(&self.path) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with("share-") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
}

fn run(args: &Args) -> Result<bool, BoxError> {
    // Freed memory goes back to the OS here (no reuse_freed_memory, unlike the other
    // examples): the dealer's setup, the joint keys and the server each peak in turn, and
    // memory kept for reuse would add their peaks up.
    let say = |line: String| {
        if !args.json {
            println!("{line}");
        }
    };
    let k = args.parties;
    let dir = MailboxDir {
        path: args.dir.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!(
                "cosnark-{}-{}",
                std::process::id(),
                bigp_he::demo::time_seed()
            ))
        }),
        remove: args.dir.is_none(),
    };
    let mb = Mailbox::new(&dir.path, Duration::from_secs(args.timeout))?;

    // The dealer: a circuit, its keys, the shares of its assignment. Secrets from the OS.
    let mut rng = StdRng::from_seed(contribution()?);
    let circuit = CubicChain::<Fr>::with_constraints(args.constraints, &mut rng);
    let n = circuit.domain_size();
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)?;
    let r1cs = R1cs::from_circuit(circuit.clone())?;
    let ring = if args.small { Ring::Toy } else { Ring::Secure };
    let unpinned = Request {
        ring,
        ..Request::new(Job::WitnessMap, n).shared_by(k)
    };
    let ctx = unpinned.context::<Fr>()?;
    // The plan's chains pinned, so that the parties' Galois keys are the server's.
    let request = Request {
        chains: Some(he_fft::witness_map_chains(&ctx, n).clamp(1, 64)),
        ..unpinned
    };
    say(format!(
        "Groth16 over BN254 by {k} parties: {} constraints, domain {n}; witness map on {}",
        circuit.num_constraints(),
        args.server.as_deref().unwrap_or("an in-process server")
    ));
    say(job::parameters_line(&ctx, args.small));
    mb.post(
        "circuit",
        &to_bytes(&CircuitFile {
            proving_key: pk.clone(),
            public_inputs: circuit.public_inputs(),
            matrices: r1cs.matrices.clone(),
            num_inputs: r1cs.num_inputs as u64,
            num_constraints: r1cs.num_constraints as u64,
        })?,
    )?;
    // A fresh split of the same assignment for each proof.
    for p in 0..args.proofs {
        for (i, share) in parties::split_assignment(&r1cs.assignment, k as usize, &mut rng)
            .iter()
            .enumerate()
        {
            mb.post(&format!("share-{i}-{p}"), &to_bytes(share)?)?;
        }
    }

    let whole = Instant::now();
    mb.post("request", format!("{}\n{request}", args.proofs).as_bytes())?;
    let mut children = Parties::start(&dir.path, k, args.timeout)?;
    let mut alive = || children.check();
    // Every party's message, `name(i)` for party `i`.
    let wait_all = |name: &dyn Fn(u32) -> String,
                    alive: &mut dyn FnMut() -> Result<(), BoxError>| {
        (0..k)
            .map(|i| mb.wait(&name(i), alive))
            .collect::<Result<Vec<_>, BoxError>>()
    };

    // The joint keys, to the server.
    let read = |prefix: &str, alive: &mut dyn FnMut() -> Result<(), BoxError>| {
        wait_all(&|i| format!("{prefix}-{i}"), alive)?
            .iter()
            .map(|b| RelinMessage::from_bytes(b))
            .collect::<Result<Vec<_>, _>>()
            .map_err(BoxError::from)
    };
    // One message's bytes in memory at a time besides what they are read into.
    let mut shares = Vec::new();
    for i in 0..k {
        shares.push(KeyShares::from_bytes(
            &mb.wait(&format!("keys-{i}"), &mut alive)?,
        )?);
    }
    let round1 = read("relin1", &mut alive)?;
    let round2 = read("relin2", &mut alive)?;
    let t = Instant::now();
    let joint = parties::joint_keys(&ctx, shares, &round1, &round2)?;
    drop((round1, round2));
    let joint_keys_time = t.elapsed();
    let joint_pk_bytes = mb.post("joint-pk", &joint.public_key.to_bytes()?)?;
    let keygen_time = whole.elapsed();
    let t = Instant::now();
    let server: Box<dyn WitnessServer> = match (&args.server, &args.token_file) {
        (Some(url), Some(token)) => {
            let client = connect(url, token)?;
            let (context, public_key) = (ctx.to_bytes()?, joint.public_key.to_bytes()?);
            let keys = joint.galois_keys.to_bytes()?;
            drop(joint.galois_keys);
            let key_set = client.upload_key_set(&KeySetParts {
                request,
                context: &context,
                public_key: &public_key,
                keys: &keys,
                matrix: &[],
            })?;
            let outputs = request
                .transform::<Fr>(&ctx, DiagonalCache::Never)?
                .info()
                .output_ciphertexts;
            Box::new(he_client::RemoteWitnessServer::new(
                client,
                key_set,
                ctx.clone(),
                outputs,
            ))
        }
        _ => Box::new(InProcessServer::<Fr>::new(
            &ctx,
            joint.public_key.clone(),
            joint.galois_keys,
            n,
            &request.options(DiagonalCache::Never),
        )?),
    };
    let server_setup = t.elapsed();
    let coordinator = Coordinator::<Bn254>::new(joint.public_key, &request, server)?;

    // The proofs' two rounds.
    let mut proofs = Vec::new();
    let mut verified = true;
    for p in 0..args.proofs {
        let start = Instant::now();
        let before = coordinator.report();
        // Read one at a time: a message's raw bytes go once it is parsed.
        let mut contributions = Vec::new();
        for i in 0..k {
            let bytes = mb.wait(&format!("contribution-{i}-{p}"), &mut alive)?;
            contributions.push(Contribution::from_bytes(&bytes)?);
        }
        let broadcast = coordinator.witness_map(contributions)?;
        let broadcast_bytes = mb.post(&format!("broadcast-{p}"), &broadcast.to_bytes()?)?;
        drop(broadcast);
        let proof = ark_groth16::Proof::<Bn254>::deserialize_compressed(
            &*mb.wait(&format!("proof-{p}"), &mut alive)?,
        )?;
        let time = start.elapsed();
        let ok = Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof)?;
        verified &= ok;
        let c = coordinator.report();
        say(format!(
            "proof {p}: {:.2} s, of which the server {:.2} s, r s {:.3} s; {}",
            secs(time),
            secs(c.server - before.server),
            secs(c.product - before.product),
            if ok { "verified" } else { "DOES NOT VERIFY" }
        ));
        proofs.push(json!({
            "proof_s": secs(time),
            "add_s": secs(c.add - before.add),
            "server_s": secs(c.server - before.server),
            "product_s": secs(c.product - before.product),
            "broadcast_bytes": broadcast_bytes,
            "verified": ok,
        }));
    }
    let whole_time = whole.elapsed();
    let reports = wait_all(&|i| format!("report-{i}"), &mut alive)?
        .iter()
        .map(|b| serde_json::from_slice::<serde_json::Value>(b))
        .collect::<Result<Vec<_>, _>>()?;
    children.wait_all()?;
    drop(coordinator);

    say(format!(
        "keys: {:.2} s for the three rounds ({:.2} s combining, {:.2} s to the server)",
        secs(keygen_time),
        secs(joint_keys_time),
        secs(server_setup),
    ));
    for r in &reports {
        let last = &r["proofs"][args.proofs as usize - 1];
        say(format!(
            "party {}: key shares {:.2} s, relinearization {:.2} s, {:.1} MiB sent for the keys; \
             last proof: encrypt {:.2} s, decrypt {:.2} s, MSMs {:.2} s, {:.1} MiB sent, {:.1} MiB \
             received",
            r["party"],
            r["key_shares_s"].as_f64().unwrap_or(0.0),
            r["relin_round2_s"].as_f64().unwrap_or(0.0),
            mib(&r["key_bytes"]["sent"]),
            last["encrypt_s"].as_f64().unwrap_or(0.0),
            last["decrypt_s"].as_f64().unwrap_or(0.0),
            last["msm_s"].as_f64().unwrap_or(0.0),
            mib(&last["bytes"]["sent"]),
            mib(&last["bytes"]["received"]),
        ));
    }

    let comparison = if args.no_compare {
        serde_json::Value::Null
    } else {
        compare(args, &circuit, &pk, &vk, n, &say)?
    };
    // Last proofs against last proofs: both warm.
    let last = |v: &serde_json::Value| v.as_array().and_then(|a| a.last())?["server_s"].as_f64();
    let ratio = match (
        last(&serde_json::Value::Array(proofs.clone())),
        last(&comparison["one_owner"]["proofs"]),
    ) {
        (Some(ours), Some(one)) => Some(ours / one.max(1e-9)),
        _ => None,
    };
    if let Some(r) = ratio {
        say(format!(
            "the server's time, {k} parties against one owner (last proofs): {r:.2}x"
        ));
    }
    if args.json {
        println!(
            "{}",
            json!({
                "parties": k,
                "constraints": circuit.num_constraints(),
                "domain": n,
                "ring_degree": ctx.ring_degree(),
                "log2_qp": ctx.log2_qp(),
                "key_switching_digits": ctx.ks_digits(),
                "security": ctx.security_label(),
                "toy_ring": args.small,
                "server": args.server.as_deref().unwrap_or("in-process"),
                "verified": verified,
                "whole_s": secs(whole_time),
                "keygen_s": secs(keygen_time),
                "coordinator": {
                    "joint_keys_s": secs(joint_keys_time),
                    "server_setup_s": secs(server_setup),
                    "joint_public_key_bytes": joint_pk_bytes,
                },
                "proofs": proofs,
                "party": reports,
                "comparison": comparison,
                "server_ratio": ratio,
                "peak_rss_bytes": bigp_he::peak_rss_bytes(),
            })
        );
    }
    std::io::stdout().flush()?;
    Ok(verified)
}

fn mib(v: &serde_json::Value) -> f64 {
    v.as_u64().unwrap_or(0) as f64 / (1 << 20) as f64
}

/// A client of the server at `url`, once it answers (a server just started takes a moment).
fn connect(url: &str, token: &Path) -> Result<he_client::Client, BoxError> {
    let client = he_client::Client::with_token_file(url, token)?;
    let start = Instant::now();
    loop {
        match client.health() {
            Ok(_) => return Ok(client),
            Err(e) if start.elapsed() > Duration::from_secs(30) => {
                return Err(format!("the server at {url} does not answer: {e}").into())
            }
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

/// The same circuit proven by one owner (the witness map on the same kind of server) and in
/// the clear.
fn compare(
    args: &Args,
    circuit: &CubicChain<Fr>,
    pk: &ProvingKey<Bn254>,
    vk: &ark_groth16::VerifyingKey<Bn254>,
    n: usize,
    say: &dyn Fn(String),
) -> Result<serde_json::Value, BoxError> {
    let mut rng = StdRng::from_seed(contribution()?);
    let ring = if args.small { Ring::Toy } else { Ring::Secure };
    let session = match (&args.server, &args.token_file) {
        (Some(url), Some(token)) => {
            he_client::remote_witness_session::<Fr>(
                connect(url, token)?,
                n,
                ring,
                WitnessMapRoute::ServerOnly,
            )?
            .0
        }
        _ => {
            let one = Request {
                ring,
                ..Request::new(Job::WitnessMap, n)
            };
            let ctx: Context = one.context::<Fr>()?;
            Outsourcing::<Fr>::in_process_on(ctx, n, WitnessMapRoute::ServerOnly)?.0
        }
    };
    let session = std::sync::Arc::new(session);
    let mut proofs = Vec::new();
    let mut one_verified = true;
    for _ in 0..args.proofs {
        let before = session.report();
        let t = Instant::now();
        let proof = {
            let _guard = session.enter();
            Groth16::<Bn254, EncryptedReduction>::prove(pk, circuit.clone(), &mut rng)?
        };
        let time = t.elapsed();
        one_verified &= Groth16::<Bn254>::verify(vk, &circuit.public_inputs(), &proof)?;
        let r = session.report();
        say(format!(
            "one owner: proof {:.2} s (server {:.2} s, encrypt {:.2} s, decrypt and check {:.2} s)",
            secs(time),
            secs(r.server - before.server),
            secs(r.encrypt - before.encrypt),
            secs(r.decrypt + r.check - before.decrypt - before.check),
        ));
        proofs.push(json!({
            "prove_s": secs(time),
            "server_s": secs(r.server - before.server),
            "encrypt_s": secs(r.encrypt - before.encrypt),
            "decrypt_s": secs(r.decrypt - before.decrypt),
            "check_s": secs(r.check - before.check),
        }));
    }
    let report = session.report();
    drop(session);
    let t = Instant::now();
    let proof = Groth16::<Bn254>::prove(pk, circuit.clone(), &mut rng)?;
    let clear = t.elapsed();
    let clear_verified = Groth16::<Bn254>::verify(vk, &circuit.public_inputs(), &proof)?;
    say(format!("in the clear: {:.2} s", secs(clear)));
    Ok(json!({
        "one_owner": {
            "proofs": proofs,
            "upload_bytes": report.upload_bytes,
            "download_bytes": report.download_bytes,
            "verified": one_verified,
        },
        "clear": {"prove_s": secs(clear), "verified": clear_verified},
    }))
}
