//! Plaintexts: field elements to and from the plaintext ring, the slot layout
//! ([`BatchEncoder`](crate::BatchEncoder), [`PeriodicEncoder`](crate::PeriodicEncoder)), the
//! engine's encoded form ([`EncodedPtxt`](crate::EncodedPtxt)), and the field arithmetic and
//! NTTs over the plaintext prime they run on.

pub(crate) mod encoder;
pub(crate) mod field;
#[cfg(target_arch = "x86_64")]
pub(crate) mod mont_asm;
pub(crate) mod ntt_field;
pub(crate) mod ntt_mont;
#[cfg(target_arch = "x86_64")]
pub(crate) mod ntt_simd;
pub(crate) mod periodic;
pub(crate) mod ptxt;
pub(crate) mod slots;
