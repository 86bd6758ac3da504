//! Safe Rust API for BGV homomorphic encryption with a **big-integer plaintext modulus**.
//!
//! Mainstream HE libraries cap the plaintext modulus near 60 bits. Here `p` may be any odd
//! prime — in particular the 254-bit scalar field of BN254 — so elements of an arkworks
//! [`PrimeField`](ark_ff::PrimeField) are encrypted and computed on exactly. The engine is
//! the C++ `helib-fork` (following HElib's published design), reached through
//! `helib-bindings`.
//!
//! Plaintexts are polynomials in `F_p[X] / (X^N + 1)`, given as slices of up to `N` field
//! elements (constants are the special case of one coefficient).
//!
//! # Types
//!
//! - [`Context`] (built with [`ContextBuilder`]): ring, plaintext modulus, modulus chain.
//!   Parameters below 128-bit security are refused unless the caller opts out.
//! - [`SecKey`], [`PubKey`]: keys; the public key carries the relinearization key.
//! - [`Ctxt`]: a ciphertext. It tracks a bound on its noise; when the budget is used up,
//!   decryption returns [`Error::NoiseBudgetExhausted`] instead of a wrong value.
//! - [`BatchEncoder`]: SIMD packing. When `p = 1 mod 2N` a plaintext polynomial holds `N`
//!   field elements ("slots", two rows of `N/2`) on which additions and multiplications act
//!   slotwise; Galois automorphisms rotate the rows.
//! - [`GaloisKeys`] (for the rotations listed in a [`GaloisSteps`]): rotate the slot rows of
//!   a ciphertext ([`Ctxt::rotate_rows`], hoisted [`Ctxt::rotate_rows_many`]) or swap them
//!   ([`Ctxt::swap_rows`]). Only the requested keys are generated; a missing one is
//!   [`Error::MissingKey`], naming the step.
//!
//! - [`EncodedPtxt`]: a plaintext converted once to the engine's form, for fast
//!   ciphertext-plaintext products ([`Ctxt::mul_ptxt`], [`Ctxt::inner_product`]); packed
//!   vectors go in and out with [`PubKey::encrypt_slots`] and [`SecKey::decrypt_slots`].
//!   [`Ctxt::rotated_inner_product`] sums plaintext multiples of many rotations of one
//!   ciphertext under a single mod-down (with plaintexts from
//!   [`EncodedPtxt::from_slots_extended`]): each rotation after the first costs about a fifth
//!   of a separate one. [`HornerChain`] sums rotations by multiples of one step by Horner's
//!   rule (the giant steps of a baby-step giant-step product), each step a little cheaper
//!   than a rotation.
//! - [`PeriodicEncoder`]: cheap encodings of slot vectors that repeat along the rows.
//! - [`Aggregation`] and [`EncryptedSum`]: many users encrypt vectors under one public key,
//!   a server sums their uploads from files on all threads, the key owner decrypts the sum.
//!   [`EncryptionPool`] makes encryption on a device cheap online: fresh encryptions of zero
//!   made while idle, each used once.
//!
//! Every object keeps its context alive, all of them are `Send + Sync`, and objects of
//! different contexts or keys are never combined silently ([`Error::Mismatch`]).
//!
//! Contexts, keys and ciphertexts convert to and from bytes ([`Ctxt::to_bytes`],
//! [`Ctxt::from_bytes`], and the same on [`Context`], [`SecKey`], [`PubKey`] and
//! [`GaloisKeys`]), validated on reading: a data owner and a server can be different
//! machines; [`Ctxt::to_bytes`] shows the whole exchange.
//!
//! # Example
//!
//! ```
//! use ark_bn254::Fr;
//! use helib_rs::{Context, PubKey, SecKey};
//!
//! # fn main() -> Result<(), helib_rs::Error> {
//! // N = 2048 is far too small for 128-bit security with a 254-bit p: a toy, so opt out.
//! let ctx = Context::builder()
//!     .ring_degree(2048)
//!     .plaintext_field::<Fr>()
//!     .ciphertext_bits(1000)
//!     .allow_insecure(true)
//!     .build()?;
//! let sk = SecKey::generate(&ctx)?;
//! let pk = PubKey::generate(&sk)?;
//!
//! // (2 + 3X) * (5 + 7X) = 10 + 29X + 21X^2
//! let a = pk.encrypt_poly(&[Fr::from(2u64), Fr::from(3u64)])?;
//! let b = pk.encrypt_poly(&[Fr::from(5u64), Fr::from(7u64)])?;
//! let product = (&a * &b)?;
//! let mut sum = (&a + &b)?;
//! sum.mul_const(Fr::from(10u64))?;
//!
//! let p = sk.decrypt_poly::<Fr>(&product)?;
//! assert_eq!(&p[..3], &[Fr::from(10u64), Fr::from(29u64), Fr::from(21u64)]);
//! let s = sk.decrypt_poly::<Fr>(&sum)?;
//! assert_eq!(&s[..2], &[Fr::from(70u64), Fr::from(100u64)]);
//! assert!(product.noise_budget() > 0.0);
//! # Ok(())
//! # }
//! ```

mod aggregation;
mod context;
mod ctxt;
mod encoding;
mod error;
mod field_limbs;
mod keys;
mod limbs;
mod memory;
mod pools;
mod self_test;
mod serialization;
pub mod threshold;

pub use aggregation::{Aggregation, EncryptedSum, MAX_USERS};
pub use context::{Context, ContextBuilder, DEFAULT_KS_DIGITS};
pub use ctxt::{Computation, Ctxt, CtxtInfo, HornerChain};
#[cfg(feature = "ark-serialize")]
pub use serialization::ark::DeserializeInContext;

/// The noise budget a result keeps when it is switched down for the download
/// ([`Ctxt::compact_for_decryption`]): far above the tracked bound's own slack, so a
/// compacted result decrypts as surely as the original.
pub const DECRYPTION_MARGIN_BITS: f64 = 16.0;
pub use encoding::encoder::BatchEncoder;
pub use encoding::periodic::PeriodicEncoder;
pub use encoding::ptxt::EncodedPtxt;
pub use error::{Error, Result};
pub use keys::{write_private_file, write_public_file};
pub use keys::{GaloisKeys, GaloisSteps, MasterKeys, MASTER_STEP_BASE};
pub use keys::{PubKey, SecKey};
pub use memory::{peak_rss_bytes, retain_freed_memory};
pub use pools::{EncryptionPool, PoolFile, MAX_POOL_SIZE};
pub use self_test::self_test;
pub use serialization::size_limits::{
    read_at_most, read_file_at_most, ObjectKind, MAX_CONTEXT_BYTES,
};
/// Re-exported: the wrapper that zeroes secret buffers ([`SecKey::to_bytes`]) when dropped.
pub use zeroize::Zeroizing;
