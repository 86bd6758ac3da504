//! A circom circuit proven with the witness map on ciphertexts, in snarkjs's convention:
//!
//! ```text
//! cargo run --release --example circom -- --r1cs C.r1cs --wtns C.wtns --zkey C.zkey --out DIR
//!     [--verification-key verification_key.json] [--snarkjs path/to/snarkjs/cli.cjs]
//!     [--name NAME] [--threads T] [--json] [--small] [--cache auto|always|never]
//! ```
//!
//! Reads the circuit (`circom --r1cs`), its witness (`snarkjs wtns calculate`) and its
//! snarkjs proving key (`snarkjs groth16 setup`, `zkey contribute`), and checks that they
//! belong together. Makes the owner's keys and an in-process server for the key's domain,
//! proves with `he_groth16::EncryptedCircomReduction` (the server computes `h` on
//! ciphertexts, the owner checks it and evaluates it on circom's coset), checks that the
//! quotient equals `CircomReduction`'s in the clear, verifies the proof with the key's
//! verifying key, writes `DIR/proof.json` and `DIR/public.json` as snarkjs reads them and, with
//! `--snarkjs`, runs `node CLI groth16 verify` on them (with `--verification-key`, or the key's
//! own verifying key written to `DIR/verification_key.json`).
//!
//! To compare, it also times the server's witness map in ark-groth16's form on the same keys
//! (`libsnark_server_s`). `--json` prints one object as the last line: `circuit`,
//! `constraints`, `domain_size`, `server_s`, `plain_witness_map_s`, `upload_bytes`,
//! `download_bytes`, `verified_ark`, `verified_snarkjs` and more. Exit status 0 when every
//! check passed; 1 when the quotient, ark-groth16 or snarkjs disagreed (no proof is written
//! when the first two do); 2 on bad input or a failure on the way, a result the owner's
//! check rejected included. `make circom` runs it on circomlib
//! circuits of growing size.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_groth16::r1cs_to_qap::R1CSToQAP;
use ark_groth16::{Groth16, VerifyingKey};
use ark_poly::GeneralEvaluationDomain;
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use bigp_he::cli::{Cache, JobArgs};
use bigp_he::groth16_files::{MAX_CONSTRAINTS, MAX_SMALL_CONSTRAINTS};
use bigp_he::job::{self, BoxError, OutputFile};
use bigp_he::peak_rss_bytes;
use clap::{CommandFactory, Parser};
use he_groth16::circom::{snarkjs, CircomR1cs, CircomWitness, Zkey};
use he_groth16::{CircomReduction, EncryptedCircomReduction, Outsourcing, WitnessMapRoute};

/// A circom circuit proven with the witness map on ciphertexts, checked by snarkjs.
#[derive(Parser, Debug)]
struct Args {
    /// The circuit, as `circom --r1cs` writes it.
    #[arg(long)]
    r1cs: PathBuf,
    /// Its witness, as `snarkjs wtns calculate` writes it.
    #[arg(long)]
    wtns: PathBuf,
    /// Its snarkjs Groth16 proving key (BN254).
    #[arg(long)]
    zkey: PathBuf,
    /// The directory for proof.json and public.json (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// snarkjs's verifying key (`snarkjs zkey export verificationkey`), checked against the
    /// proving key's and given to snarkjs.
    #[arg(long)]
    verification_key: Option<PathBuf>,
    /// snarkjs's command-line script (node_modules/snarkjs/build/cli.cjs): verify the proof
    /// with `node SCRIPT groth16 verify`.
    #[arg(long)]
    snarkjs: Option<PathBuf>,
    /// The circuit's name in the report (default: the .r1cs file's stem).
    #[arg(long)]
    name: Option<String>,
    /// Keep the server's encoded plaintext diagonals in memory.
    #[arg(long, value_enum, default_value_t = Cache::Auto)]
    cache: Cache,
    #[command(flatten)]
    job: JobArgs,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let usage = Args::command().render_usage().to_string();
    job::main(&usage, Ok(args), |a| a.job.threads(), run)
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn run(args: &Args) -> Result<bool, BoxError> {
    bigp_he::reuse_freed_memory();
    let say = |line: String| {
        if !args.job.json {
            println!("{line}");
        }
    };
    let name = args.name.clone().unwrap_or_else(|| {
        args.r1cs
            .file_stem()
            .map_or("circuit".into(), |s| s.to_string_lossy().into_owned())
    });

    // The three files, and whether they belong together.
    let t = Instant::now();
    let r1cs = CircomR1cs::<Fr>::read(&args.r1cs)?;
    let witness = CircomWitness::<Fr>::read(&args.wtns)?;
    let zkey = Zkey::read(&args.zkey)?;
    zkey.check_circuit(&r1cs)?;
    r1cs.check_witness(&witness)?;
    let read = t.elapsed();
    let n = zkey.domain_size;
    let max = if args.job.small {
        MAX_SMALL_CONSTRAINTS
    } else {
        MAX_CONSTRAINTS
    } + 2;
    if n > max {
        return Err(format!(
            "{}: a domain of {n} points; this example takes up to {max}{}",
            args.zkey.display(),
            if args.job.small { " with --small" } else { "" }
        )
        .into());
    }
    let vk = zkey.verifying_key().clone();
    if let Some(path) = &args.verification_key {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let exported = snarkjs::verifying_key_from_json(&path.display().to_string(), &text)?;
        if exported != vk {
            return Err(format!(
                "{}: not the verifying key of {}",
                path.display(),
                args.zkey.display()
            )
            .into());
        }
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("--out {}: cannot create it: {e}", args.out.display()))?;
    let out = |file: &str| args.out.join(file).display().to_string();
    // Claimed before the work, so that an unwritable directory fails now.
    let (proof_file, public_file) = (
        OutputFile::create(&out("proof.json"))?,
        OutputFile::create(&out("public.json"))?,
    );

    let (inputs, constraints) = (zkey.num_public + 1, zkey.num_constraints);
    let z = &witness.values;
    say(format!(
        "circuit {name}: {constraints} constraints, {} public, {} wires, domain {n}; files read and checked in {:.2} s",
        zkey.num_public,
        zkey.num_vars,
        secs(read)
    ));

    // The owner's keys and the server.
    let options = he_fft::FftOptions::default().with_cache(args.cache.into());
    let context = if args.job.small {
        job::toy_context(he_fft::witness_map_ciphertext_bits::<Fr>(2048, n))?
    } else {
        he_fft::witness_map_context::<Fr>(n)?
    };
    let (session, setup) =
        Outsourcing::<Fr>::in_process_with(context, n, WitnessMapRoute::ServerOnly, &options)?;
    let session = Arc::new(session);
    say(job::parameters_line(&setup.context, args.job.small));

    // The proof, with the witness map on ciphertexts; r and s from the OS.
    let mut rng = StdRng::from_seed(job::os_random()?);
    let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
    let t = Instant::now();
    let proof = {
        let _guard = session.enter();
        Groth16::<Bn254, EncryptedCircomReduction>::create_proof_with_reduction_and_matrices(
            &zkey.proving_key,
            r,
            s,
            &zkey.matrices,
            inputs,
            constraints,
            z,
        )
        .map_err(|e| match he_groth16::last_error() {
            Some(detail) => format!("proving failed: {e}: {detail}"),
            None => format!("proving failed: {e}"),
        })?
    };
    let prove = t.elapsed();
    let report = session.report();

    // The same quotient in the clear (CircomReduction), timed, and compared.
    type D = GeneralEvaluationDomain<Fr>;
    let t = Instant::now();
    let clear = CircomReduction::witness_map_from_matrices::<Fr, D>(
        &zkey.matrices,
        inputs,
        constraints,
        z,
    )?;
    let plain = t.elapsed();
    let encrypted = session.circom_witness_map(&zkey.matrices, inputs, constraints, z)?;
    let same_quotient = encrypted == clear;
    let circom_server = session.report().server - report.server;

    // ark-groth16's form on the same keys and server, for the comparison.
    let before = session.report().server;
    session.witness_map(&r1cs.matrices, inputs, constraints, z)?;
    let libsnark_server = session.report().server - before;

    let public = witness.public_inputs(zkey.num_public)?;
    let verified_ark = Groth16::<Bn254>::verify(&vk, public, &proof)?;
    // A proof that failed here is not written (an older proof.json stays as it was, and
    // snarkjs is not asked about it).
    let verified_snarkjs = if verified_ark && same_quotient {
        proof_file.commit(snarkjs::proof_to_json(&proof).as_bytes())?;
        public_file.commit(snarkjs::public_to_json(public).as_bytes())?;
        match &args.snarkjs {
            Some(script) => Some(snarkjs_verify(
                script,
                args.verification_key.as_deref(),
                &vk,
                &args.out,
            )?),
            None => None,
        }
    } else {
        None
    };

    say(format!("proof: {:.2} s, of which the server's witness map {:.2} s (encrypt {:.2} s, decrypt and check {:.3} s, circom's coset step {:.3} s)",
        secs(prove), secs(report.server), secs(report.encrypt), secs(report.decrypt + report.check), secs(report.finish)));
    say(format!(
        "server: circom's form {:.2} s and {:.2} s, ark-groth16's form {:.2} s; plain CircomReduction {:.3} s",
        secs(report.server),
        secs(circom_server),
        secs(libsnark_server),
        secs(plain)
    ));
    say(format!(
        "up {:.1} MB (ciphertexts; keys in process), down {:.1} MB",
        report.upload_bytes as f64 / 1e6,
        report.download_bytes as f64 / 1e6
    ));
    say(format!(
        "quotient equals CircomReduction's: {}",
        if same_quotient { "yes" } else { "NO" }
    ));
    say(format!(
        "verified with the zkey's verifying key (ark-groth16): {}",
        if verified_ark { "yes" } else { "NO" }
    ));
    if verified_ark && same_quotient {
        say(format!(
            "wrote {} and {}",
            out("proof.json"),
            out("public.json")
        ));
    }
    if let Some(ok) = verified_snarkjs {
        say(format!(
            "snarkjs groth16 verify: {}",
            if ok { "OK" } else { "FAILED" }
        ));
    }
    if args.job.json {
        let json = serde_json::json!({
            "circuit": name,
            "constraints": constraints,
            "public_inputs": zkey.num_public,
            "wires": zkey.num_vars,
            "domain_size": n,
            "ring_degree": setup.context.ring_degree(),
            "security_bits": setup.context.security_bits(),
            "threads": rayon::current_num_threads(),
            "read_s": secs(read),
            "keygen_s": secs(setup.keygen + setup.galois_keygen),
            "prove_s": secs(prove),
            "encrypt_s": secs(report.encrypt),
            "server_s": secs(report.server),
            "server_again_s": secs(circom_server),
            "libsnark_server_s": secs(libsnark_server),
            "decrypt_check_s": secs(report.decrypt + report.check),
            "coset_step_s": secs(report.finish),
            "plain_witness_map_s": secs(plain),
            "upload_bytes": report.upload_bytes,
            "download_bytes": report.download_bytes,
            "peak_rss_bytes": peak_rss_bytes(),
            "same_quotient": same_quotient,
            "verified_ark": verified_ark,
            "verified_snarkjs": verified_snarkjs,
        });
        println!("{json}");
    }
    Ok(same_quotient && verified_ark && verified_snarkjs.unwrap_or(true))
}

/// `node SCRIPT groth16 verify VK DIR/public.json DIR/proof.json`: whether snarkjs says OK.
/// Without snarkjs's own verifying key, the proving key's is written for it.
fn snarkjs_verify(
    script: &Path,
    exported: Option<&Path>,
    own: &VerifyingKey<Bn254>,
    dir: &Path,
) -> Result<bool, BoxError> {
    let vk = match exported {
        Some(path) => path.to_path_buf(),
        None => {
            let path = dir.join("verification_key.json");
            OutputFile::create(&path.display().to_string())?
                .commit(snarkjs::verifying_key_to_json(own).as_bytes())?;
            path
        }
    };
    let output = Command::new("node")
        .arg(script)
        .args(["groth16", "verify"])
        .arg(&vk)
        .arg(dir.join("public.json"))
        .arg(dir.join("proof.json"))
        .output()
        .map_err(|e| format!("cannot run node {}: {e}", script.display()))?;
    let said = String::from_utf8_lossy(&output.stdout);
    Ok(output.status.success() && said.contains("OK"))
}
