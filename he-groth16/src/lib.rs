//! Groth16 proofs whose witness map runs on ciphertexts.
//!
//! A Groth16 prover spends its FFT work in the witness map, the quotient
//! `h = (A B - C) / Z_H` of its constraint polynomials. This crate hands that work to a server
//! that sees only BGV ciphertexts ([`he_fft::WitnessMap`]) and plugs it into ark-groth16:
//! - [`EncryptedReduction`] implements ark-groth16's `R1CSToQAP`, so
//!   `Groth16::<E, EncryptedReduction>::prove` proves as usual with the witness map
//!   outsourced, within an [`Outsourcing`] session entered on the proving thread;
//! - [`Outsourcing::witness_map`] is the same computation as a direct call, from the R1CS
//!   matrices and the full assignment;
//! - [`EncryptedCircomReduction`] and [`Outsourcing::circom_witness_map`] give the quotient in
//!   circom's form, for snarkjs's proving keys: [`circom`] reads circom circuits, witnesses
//!   and `.zkey` files and writes proofs that `snarkjs groth16 verify` accepts;
//! - [`parties`]: `k` parties holding shares of the witness prove together.
//!
//! The owner keeps the secret key, encrypts the evaluations `a` and `b` of `A` and `B` on the
//! domain, and checks the decrypted `h` in `O(n)` ([`he_fft::check::quotient`]) before the
//! prover uses it; the proof itself is a second check (a wrong `h` does not verify). The
//! server ([`WitnessServer`]; [`InProcessServer`] in this process) holds the public and Galois
//! keys only. [`CubicChain`] is a circuit of adjustable size to try it on.
//!
//! Two [`WitnessMapRoute`]s: server-only (the server interpolates `a` and `b` on ciphertexts; the owner
//! ships Galois keys) and client-assisted (the owner runs two inverse FFTs in the clear; the
//! server multiplies once, with no Galois keys). On the server-only route, domains up to half
//! the ring degree are served in one ciphertext ([`he_fft::WitnessMap`]: `n <= 32768` on the
//! `N = 65536` ring [`he_fft::witness_map_context`] picks for BN254), larger ones across
//! several ([`he_fft::FourStepWitnessMap`]: from `n = 65536` up to `2^24`, on the same ring;
//! the owner's encryption then also runs a size-`n/32768` inverse FFT down the columns). On
//! both, the owner's encryption applies the first of three interpolation stages, which leaves
//! the server three levels. The client-assisted route serves `n <= N/2`.

pub mod circom;
mod circuit;
mod error;
mod evaluations;
pub mod parties;
mod r1cs;
mod reduction;
mod server;
mod session;

pub use circom::{CircomReduction, EncryptedCircomReduction};
pub use circuit::CubicChain;
pub use error::Error;
pub use evaluations::Evaluations;
pub use r1cs::R1cs;
pub use reduction::EncryptedReduction;
pub use server::{InProcessServer, WitnessMapRoute, WitnessServer};
pub use session::{last_error, Ciphertexts, Outsourcing, Report, SessionGuard, Setup};
