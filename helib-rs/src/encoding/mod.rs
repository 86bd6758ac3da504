//! Plaintexts: the slot layout ([`BatchEncoder`](crate::BatchEncoder),
//! [`PeriodicEncoder`](crate::PeriodicEncoder)), the engine's encoded form
//! ([`EncodedPtxt`](crate::EncodedPtxt)), and the field arithmetic and NTTs over the plaintext
//! prime they run on.
//!
//! Nothing here knows ciphertexts: what combines a ciphertext with a plaintext lives in
//! `ctxt/`, which builds on this module.

pub(crate) mod encoder;
pub(crate) mod ntt;
pub(crate) mod periodic;
pub(crate) mod ptxt;
