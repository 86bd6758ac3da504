//! The Groth16 proof of `examples/groth16.rs` with its witness map outsourced through files
//! (the layout and the steps of [`he_fft::protocol`]): the owner encrypts the evaluations
//! `a` and `b` ([`owner`]), a server that never sees the secret key computes the encrypted `h`
//! ([`server`]), and the owner decrypts and checks `h`, finishes the proof and verifies it
//! ([`verify`]).
//!
//! `DIR/owner/` keeps the secret key and the circuit record (its size, seed and ring; both
//! 0600); the circuit and its Groth16 keys are rebuilt from the seed in each owner step (a
//! real prover would keep its proving key).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Groth16, ProvingKey, VerifyingKey};
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use he_fft::protocol::{
    self, ExchangeDir, Job, OwnerJob, OwnerKeys, Request, Ring, ServePolicy, ServerReport, Side,
};
use he_fft::DiagonalCache;
use he_groth16::{
    CubicChain, EncryptedReduction, Evaluations, Outsourcing, R1cs, WitnessMapRoute, WitnessServer,
};

use crate::job::BoxError;

/// The owner's circuit record: `constraints seed ring`.
const CIRCUIT_FILE: &str = "circuit.txt";
/// A circuit record is one short line.
const MAX_RECORD_BYTES: u64 = 128;

/// The largest constraint count on a secure ring: a domain of 2^22 points (the four-step
/// witness map fits one machine of 24 GiB there).
pub const MAX_CONSTRAINTS: usize = (1 << 22) - 2;
/// The largest on the toy ring: a domain of 4096 points (the toy ring's `N = 2048` and `2N`).
pub const MAX_SMALL_CONSTRAINTS: usize = 4096 - 2;

/// Refuses a `--constraints` count outside 2 ..= [`MAX_SMALL_CONSTRAINTS`] on the toy ring
/// (`small`), or 2 ..= `max` on a secure one, before anything of that size is built.
pub fn check_constraints(constraints: usize, small: bool, max: usize) -> Result<(), String> {
    let max = if small { MAX_SMALL_CONSTRAINTS } else { max };
    if !(2..=max).contains(&constraints) {
        return Err(format!(
            "--constraints must be from 2 to {max}{}, got {constraints}",
            if small { " with --small" } else { "" },
        ));
    }
    Ok(())
}

/// How the server-only witness map trades Galois keys against rotations (the request's
/// `baby-steps` and `baby-step-keys`; `None` for the plans' choice).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyShape {
    /// At most this many baby steps (a power of two) in each stage.
    pub baby_steps: Option<usize>,
    /// Galois keys each stage's baby steps use (1 to 1024).
    pub baby_step_keys: Option<usize>,
}

/// What the owner keeps about its circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Circuit {
    constraints: usize,
    seed: u64,
    ring: Ring,
}

/// The circuit, its Groth16 keys, and the rng a proof continues with.
type Built = (
    CubicChain<Fr>,
    ProvingKey<Bn254>,
    VerifyingKey<Bn254>,
    StdRng,
);

impl Circuit {
    fn to_line(self) -> String {
        let ring = match self.ring {
            Ring::Secure => "secure",
            Ring::Toy => "toy",
        };
        format!("{} {} {ring}\n", self.constraints, self.seed)
    }

    fn read(dir: &ExchangeDir) -> Result<Circuit, BoxError> {
        let path = dir.path(Side::Owner, CIRCUIT_FILE);
        let text = String::from_utf8(helib_rs::read_file_at_most(&path, MAX_RECORD_BYTES)?)?;
        let malformed = || format!("{}: malformed record {text:?}", path.display());
        match text.split_whitespace().collect::<Vec<_>>().as_slice() {
            [c, s, ring] => {
                let circuit = Circuit {
                    constraints: c.parse().map_err(|_| malformed())?,
                    seed: s.parse().map_err(|_| malformed())?,
                    ring: match *ring {
                        "secure" => Ring::Secure,
                        "toy" => Ring::Toy,
                        _ => return Err(malformed().into()),
                    },
                };
                circuit.check()?;
                Ok(circuit)
            }
            _ => Err(malformed().into()),
        }
    }

    /// Refuses a constraint count the ring does not serve, before any circuit is built.
    fn check(&self) -> Result<(), BoxError> {
        let (max, which) = match self.ring {
            Ring::Secure => (MAX_CONSTRAINTS, ""),
            Ring::Toy => (MAX_SMALL_CONSTRAINTS, " on the toy ring"),
        };
        if !(2..=max).contains(&self.constraints) {
            return Err(format!(
                "the constraints must be from 2 to {max}{which}, got {}",
                self.constraints
            )
            .into());
        }
        Ok(())
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

/// What [`owner`] did.
#[derive(Debug)]
pub struct OwnerReport {
    /// The request written to both sides.
    pub request: Request,
    /// The circuit's constraints.
    pub constraints: usize,
    /// The protocol's report: files, ring, security, times.
    pub files: protocol::OwnerReport,
}

/// The owner's step: the circuit of `constraints` constraints from `seed`, its evaluations
/// `a` and `b` encrypted for the witness map of its domain, with keys and the request, in
/// `DIR/public/`; the secret key and the circuit record in `DIR/owner/`. `small` takes the
/// insecure toy ring.
pub fn owner(
    dir: &Path,
    constraints: usize,
    small: bool,
    seed: u64,
    shape: KeyShape,
) -> Result<OwnerReport, BoxError> {
    let record = Circuit {
        constraints,
        seed,
        ring: if small { Ring::Toy } else { Ring::Secure },
    };
    record.check()?;
    let (circuit, _, _, _) = record.build()?;
    let mut request = Request::new(Job::WitnessMap, circuit.domain_size());
    request.ring = record.ring;
    request.baby_steps = shape.baby_steps;
    request.baby_step_keys = shape.baby_step_keys;
    let job = OwnerJob::<Fr>::new(&request)?;
    let r = R1cs::from_circuit(circuit.clone())?;
    let e = Evaluations::new(&r.matrices, r.num_inputs, r.num_constraints, &r.assignment)?;
    let exchange = ExchangeDir::new(dir);
    let files = job.write(&exchange, &[&e.a, &e.b])?;
    exchange.write_secret(CIRCUIT_FILE, record.to_line().as_bytes())?;
    Ok(OwnerReport {
        request: *job.request(),
        constraints: circuit.num_constraints(),
        files,
    })
}

/// The server's step ([`protocol::serve_directory`]): reads `DIR/public/` only and writes the
/// encrypted `h` there. `allow_toy` serves the owner's `--small` toy ring.
pub fn server(dir: &Path, allow_toy: bool, cache: DiagonalCache) -> Result<ServerReport, BoxError> {
    let policy = ServePolicy {
        allow_toy_ring: allow_toy,
        serve_fft: false,
        cache,
        ..ServePolicy::default()
    };
    Ok(protocol::serve_directory::<Fr>(
        &ExchangeDir::new(dir),
        policy,
        &|_, _| {},
    )?)
}

/// What [`verify`] found.
#[derive(Debug)]
pub struct Verdict {
    /// Whether ark-groth16's verifier accepted the proof.
    pub verified: bool,
    /// Why the owner's check refused the server's `h`, if it did (no proof was made).
    pub rejected: Option<String>,
    /// Proving with the decrypted `h`: the check and the MSMs.
    pub prove_time: Duration,
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

/// The owner's last step: decrypts the server's `h` with what it kept in `DIR/owner/`,
/// checks it in `O(n)` (a wrong `h` is a verdict, `rejected`), finishes the proof with
/// randomness from the OS, and runs ark-groth16's verifier. `Err` is a result that could not
/// be read or decrypted.
pub fn verify(dir: &Path) -> Result<Verdict, BoxError> {
    let exchange = ExchangeDir::new(dir);
    let record = Circuit::read(&exchange)?;
    let kept = OwnerKeys::open::<Fr>(&exchange)?;
    let (circuit, pk_g16, vk, _) = record.build()?;
    let n = circuit.domain_size();
    if kept.request.job != Job::WitnessMap || kept.request.size != n {
        return Err(format!(
            "owner/ holds a request ({}) for another job than the circuit's witness map of {n} points",
            kept.request
        )
        .into());
    }
    let h = kept.output_bytes::<Fr>(&exchange)?;
    let session = Arc::new(Outsourcing::<Fr>::new(
        kept.sk,
        kept.pk,
        Box::new(Answered(h)),
        n,
        WitnessMapRoute::ServerOnly,
    )?);
    // The proof's r and s: fresh from the OS, never derived from the stored seed.
    let mut rng = StdRng::from_seed(crate::job::os_random()?);
    let start = std::time::Instant::now();
    let proved = {
        let _guard = session.enter();
        Groth16::<Bn254, EncryptedReduction>::prove(&pk_g16, circuit.clone(), &mut rng)
    };
    let prove_time = start.elapsed();
    let proof = match proved {
        Ok(proof) => proof,
        Err(e) => {
            return match he_groth16::last_error() {
                Some(he_groth16::Error::Rejected(why)) => Ok(Verdict {
                    verified: false,
                    rejected: Some(why),
                    prove_time,
                }),
                Some(detail) => Err(format!("proving failed: {e}: {detail}").into()),
                None => Err(format!("proving failed: {e}").into()),
            };
        }
    };
    let verified = Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof)?;
    Ok(Verdict {
        verified,
        rejected: None,
        prove_time,
    })
}
