//! Plaintexts: field elements to and from the plaintext ring, the slot layout
//! ([`BatchEncoder`](crate::BatchEncoder), [`PeriodicEncoder`](crate::PeriodicEncoder)), the
//! engine's encoded form ([`EncodedPtxt`](crate::EncodedPtxt)), and the field arithmetic and
//! NTTs over the plaintext prime they run on.

pub(crate) mod encoder;
pub(crate) mod field;
pub(crate) mod ntt;
pub(crate) mod periodic;
pub(crate) mod ptxt;
pub(crate) mod slots;
