//! Groth16 as circom and snarkjs make it: circom's circuits (`.r1cs`), witnesses (`.wtns`)
//! and snarkjs's proving keys (`.zkey`) read and checked against each other, the quotient in
//! circom's form in the clear ([`CircomReduction`]) and with the witness map on ciphertexts
//! ([`EncryptedCircomReduction`]), and proofs written as snarkjs reads them
//! ([`snarkjs`]).
//!
//! circom's proving keys hold an H query for the values of `A B - C` on the coset `w H` (`w`
//! a primitive `2n`-th root of unity), where ark-groth16's hold one for the coefficients of
//! `h = (A B - C) / Z_H`. The server's work is the same for both: the owner turns the checked
//! `h` into circom's values with one FFT of size `n` ([`he_fft::circom_quotient`]).
//!
//! The readers take whole files, check every count against the bytes that are there before
//! allocating for it, check every point on its curve, and name the file in every error
//! ([`Error::File`](crate::Error::File)).

mod binfile;
mod r1cs;
mod reduction;
pub mod snarkjs;
mod wtns;
mod zkey;

pub use r1cs::CircomR1cs;
pub use reduction::{CircomReduction, EncryptedCircomReduction};
pub use wtns::CircomWitness;
pub use zkey::Zkey;
