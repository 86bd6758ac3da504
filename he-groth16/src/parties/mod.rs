//! A Groth16 proof by `k` parties who share the witness and the decryption key, with the
//! witness map on one untrusted server: the coSNARK setting, where nobody sees the witness,
//! `a`, `b` or `h` whole.
//!
//! Once per key set (three rounds; [`helib_rs::threshold`] has the objects):
//! 1. the parties agree on a [`CommonRandomString`](helib_rs::threshold::CommonRandomString)
//!    and each makes its [`KeyShare`](helib_rs::threshold::KeyShare) on the request's
//!    context ([`Request::shared_by`](he_fft::protocol::Request::shared_by));
//! 2. each sends its [`KeyShares`] to whoever combines, and its first [`RelinMessage`] to
//!    everyone ([`key_shares`]);
//! 3. each answers every first relinearization message with its second
//!    ([`relin_round2`]); whoever combines forms the [`JointKeys`] ([`joint_keys`]) and hands
//!    them to the server.
//!
//! Then per proof, two rounds through the [`Coordinator`]:
//! 1. each [`Party::contribute`]s from its additive share of the assignment: its shares of
//!    `a` and `b` encrypted under the joint key, its blinding shares `r_i`, `s_i` encrypted
//!    alike, and its shares of `A`, `B` (every term of them is linear in the assignment);
//!    the coordinator adds the ciphertexts, its server runs the witness map on the sums, and
//!    it multiplies `r` by `s` on ciphertexts ([`Coordinator::witness_map`]);
//! 2. each [`Party::complete`]s with masked decryption shares of `h` and `r s` (which leave
//!    it holding a random share of each) and its share of `C`; the coordinator combines the
//!    decryption shares into the rest of both and assembles the proof
//!    ([`Coordinator::assemble`]).
//!
//! The proof is the one ark-groth16 makes with `r = sum r_i` and `s = sum s_i`, bit for bit.
//! The assembler verifies it before it lets it go, and that is the parties' check of the
//! server: a wrong `h` or `r s` does not verify. docs/parties.md has each party's view and
//! the security model.
//!
//! ```
//! use ark_bn254::{Bn254, Fr};
//! use ark_groth16::Groth16;
//! use ark_snark::SNARK;
//! use ark_std::rand::{rngs::StdRng, SeedableRng};
//! use he_fft::protocol::{Job, Request};
//! use he_fft::DiagonalCache;
//! use he_groth16::parties::{self, Blinding, Coordinator, Party};
//! use he_groth16::{CubicChain, InProcessServer, R1cs};
//! use helib_rs::threshold::{CommonRandomString, KeyShare};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut rng = StdRng::seed_from_u64(1);
//! let circuit = CubicChain::<Fr>::random(5, &mut rng);
//! let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)?;
//! let request = Request::new(Job::WitnessMap, circuit.domain_size()).on_toy_ring().shared_by(2);
//! let ctx = request.context::<Fr>()?; // the toy ring: insecure, for the example's speed
//! let steps = request.transform::<Fr>(&ctx, DiagonalCache::Never)?.galois_steps();
//!
//! // Keys: two rounds after the common random string.
//! let crs = CommonRandomString::agree(&[[1; 32], [2; 32]]);
//! let keys = [KeyShare::generate(&ctx, &crs)?, KeyShare::generate(&ctx, &crs)?];
//! let (mut shares, mut round1, mut secrets) = (Vec::new(), Vec::new(), Vec::new());
//! for (key, i) in keys.iter().zip(0..) {
//!     let (s, r, secret) = parties::key_shares(key, i, &steps)?;
//!     shares.push(s);
//!     round1.push(r);
//!     secrets.push(secret);
//! }
//! let round2 = keys.iter().zip(secrets).zip(0..)
//!     .map(|((k, s), i)| parties::relin_round2(k, i, s, &round1)).collect::<Result<Vec<_>, _>>()?;
//! let joint = parties::joint_keys(&ctx, shares, &round1, &round2)?;
//! let server = InProcessServer::<Fr>::new(&ctx, joint.public_key.clone(), joint.galois_keys,
//!     request.size, &request.options(DiagonalCache::Never))?;
//! let coordinator = Coordinator::<Bn254>::new(joint.public_key.clone(), &request, Box::new(server))?;
//! let parties: Vec<Party<Bn254>> = keys.into_iter().zip(0..)
//!     .map(|(k, i)| Party::new(i, k, joint.public_key.clone(), &request))
//!     .collect::<Result<_, _>>()?;
//!
//! // A proof: each party holds an additive share of the assignment.
//! let r1cs = R1cs::from_circuit(circuit.clone())?;
//! let shares = parties::split_assignment(&r1cs.assignment, 2, &mut rng);
//! let mut contributions = Vec::new();
//! let mut states = Vec::new();
//! for (party, share) in parties.iter().zip(shares) {
//!     let share = R1cs { assignment: share, ..r1cs.clone() };
//!     let (c, state) = party.contribute(&pk, &share, Blinding::random()?)?;
//!     contributions.push(c);
//!     states.push(state);
//! }
//! let broadcast = coordinator.witness_map(contributions)?;
//! let completions = parties.iter().zip(states)
//!     .map(|(p, s)| p.complete(&pk, s, &broadcast)).collect::<Result<Vec<_>, _>>()?;
//! // Party 0 assembles, and verifies before the proof leaves it.
//! let inputs = circuit.public_inputs();
//! let proof = parties[0].assemble(&pk, &inputs, &broadcast, &completions)?;
//! assert!(Groth16::<Bn254>::verify(&vk, &inputs, &proof)?);
//! # Ok(())
//! # }
//! ```

mod assembly;
mod blinding;
mod coordinator;
mod keys;
mod messages;
mod party;
mod shares;
mod wire;

pub use assembly::assemble;
pub use blinding::Blinding;
pub use coordinator::{Coordinator, CoordinatorReport};
pub use keys::{joint_keys, key_shares, relin_round2, JointKeys};
pub use messages::{Broadcast, Completion, Contribution, KeyShares, RelinMessage};
pub use party::{Party, PartyReport, PartyState};
pub use shares::split_assignment;
