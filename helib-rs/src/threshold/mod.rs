//! A secret key shared by `k` parties, `k`-of-`k`: nobody holds it, every party holds a
//! [`KeyShare`], and decryption takes all of them.
//!
//! 1. The parties agree on a [`CommonRandomString`] from one [`contribution`] each.
//! 2. Each makes its [`KeyShare`] on a context built with
//!    [`parties(k)`](crate::ContextBuilder::parties), and sends its public key share and
//!    Galois key shares (ordinary [`PubKey`](crate::PubKey) and
//!    [`GaloisKeys`](crate::GaloisKeys) bytes). Anyone adds them up:
//!    [`PubKey::combine`](crate::PubKey::combine),
//!    [`GaloisKeys::combine`](crate::GaloisKeys::combine). The joint keys work as one owner's
//!    do: encryption, rotations, every transform. On a derivable context, master keys go the
//!    same way ([`KeyShare::master_key_share`],
//!    [`MasterKeys::combine`](crate::MasterKeys::combine)).
//! 3. To decrypt, each party sends a [`DecryptionShare`]; [`Ctxt::combine_decryption`](crate::Ctxt::combine_decryption) adds
//!    them to the ciphertext. Unmasked, the result is the plaintext (for whoever may see it);
//!    masked ([`KeyShare::masked_decryption_share`]), every party keeps a random share of the
//!    plaintext and the combined result is what completes them, so the plaintext ends as
//!    additive shares that nobody sees whole.
//!
//! Each party's share hides the ciphertext's noise behind a smudging error of `smudge_bits`
//! of statistical security (40 to 128), which needs that much modulus left in the ciphertext
//! (about `smudge_bits + log2 N + log2 k` bits above its noise).
//!
//! The joint relinearization key, which multiplying two ciphertexts needs, takes two rounds
//! ([`KeyShare::relin_round1`], [`KeyShare::relin_round2`], [`RelinShare::combine`],
//! [`PubKey::with_joint_relinearization`](crate::PubKey::with_joint_relinearization)).
//!
//! ```
//! use ark_bn254::Fr;
//! use helib_rs::threshold::{contribution, CommonRandomString, KeyShare};
//! use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps, PubKey};
//!
//! # fn main() -> Result<(), helib_rs::Error> {
//! let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
//!     .ciphertext_bits(700).parties(3).allow_insecure(true).build()?; // toy ring
//! let crs = CommonRandomString::agree(&[contribution()?, contribution()?, contribution()?]);
//! let parties = (0..3).map(|_| KeyShare::generate(&ctx, &crs)).collect::<Result<Vec<_>, _>>()?;
//! let pk = PubKey::combine(&parties.iter().map(KeyShare::public_key_share).collect::<Result<Vec<_>, _>>()?)?;
//! let ct = pk.encrypt_poly(&[Fr::from(7u64), Fr::from(8u64)])?;
//! let shares = parties.iter().map(|p| p.decryption_share(&ct, 40)).collect::<Result<Vec<_>, _>>()?;
//! let m: Vec<Fr> = ct.combine_decryption(&shares)?;
//! assert_eq!(&m[..2], &[Fr::from(7u64), Fr::from(8u64)]);
//! # Ok(())
//! # }
//! ```

mod common_string;
mod decryption_share;
mod joint_keys;
mod key_share;
mod relin_share;

pub use common_string::{contribution, CommonRandomString};
pub use decryption_share::DecryptionShare;
pub use key_share::KeyShare;
pub use relin_share::{RelinSecret, RelinShare};

/// The least statistical security, in bits, of a decryption share's smudging, and the
/// default.
pub const MIN_SMUDGE_BITS: u32 = 40;
/// The most statistical security, in bits, a decryption share's smudging takes.
pub const MAX_SMUDGE_BITS: u32 = 128;

/// The modulus bits a ciphertext must keep above its noise bound so that `parties` parties
/// can decrypt it with `smudge_bits` of smudging (a decryption share refuses less): the
/// smudging error's `smudge_bits + log2 N` bits, `log2(parties)` for the parties' sum, and 6
/// bits of rounding and margin. Add it to a shared context's modulus, and keep it when
/// switching a result down ([`decryption_margin_bits`]).
///
/// ```
/// assert_eq!(helib_rs::threshold::smudging_room_bits(65536, 3, 40), 40 + 16 + 2 + 6);
/// ```
pub fn smudging_room_bits(ring_degree: usize, parties: u32, smudge_bits: u32) -> u32 {
    let log_n = ring_degree.max(2).ilog2();
    let log_k = parties.max(1).next_power_of_two().ilog2();
    smudge_bits
        .saturating_add(log_n)
        .saturating_add(log_k)
        .saturating_add(6)
}

/// The noise budget a result must keep for its decryption on `ctx`:
/// [`DECRYPTION_MARGIN_BITS`](crate::DECRYPTION_MARGIN_BITS) for one owner, and for a key
/// shared by several parties at least [`smudging_room_bits`] with `smudge_bits`. What
/// [`Ctxt::compact_for_decryption`](crate::Ctxt::compact_for_decryption) takes.
pub fn decryption_margin_bits(ctx: &crate::Context, smudge_bits: u32) -> f64 {
    let single = crate::DECRYPTION_MARGIN_BITS;
    if ctx.parties() < 2 {
        return single;
    }
    single.max(f64::from(smudging_room_bits(
        ctx.ring_degree(),
        ctx.parties(),
        smudge_bits,
    )))
}
