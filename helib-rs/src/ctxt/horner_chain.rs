//! Giant steps by Horner's rule with the accumulator kept over the key-switching basis:
//! [`HornerChain`].

use std::ptr::{self, NonNull};
use std::sync::Arc;

use helib_bindings as sys;

use crate::context::Context;
use crate::error::{check, Error, Result};
use crate::keys::galois_elements::{engine_missing_key, missing_step_message, rotation_element};
use crate::keys::PubKeyInner;
use crate::{Ctxt, GaloisKeys};

/// `sum_i rot(x_i, i * step)` by Horner's rule, `acc = rot(acc, step) + x`, from the last term
/// to the first: the giant steps of a baby-step giant-step matrix product.
///
/// Between steps the accumulator stays over the key-switching basis (the ciphertext primes and
/// the special primes). A step brings back only the accumulator's second part, which its key
/// switch needs, and carries the first part, with the key product added, to the next step, so
/// each step costs one polynomial's mod-down instead of a rotation's two; one mod-down of both
/// parts ends the chain (sometimes called double hoisting). The result decrypts to what rotating
/// and adding would give, with the same tracked noise bound.
///
/// The chain keeps the Galois keys it needs alive by itself. Every term must be at the first
/// term's level and carry its plaintext factor, as the inner products of one set of baby steps
/// do.
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, HornerChain, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).allow_insecure(true).build()?;
/// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(4))?;
/// let slots = |c: u64| -> Vec<Fr> { (0..2048u64).map(|j| Fr::from(c * j)).collect() };
/// let (x0, x1, x2) = (pk.encrypt_slots(&enc, &slots(1))?, pk.encrypt_slots(&enc, &slots(10))?,
///                     pk.encrypt_slots(&enc, &slots(100))?);
/// // x0 + rot(x1, 4) + rot(x2, 8)
/// let mut chain = HornerChain::new(&x2, 4, &gk)?;
/// chain.rotate_add(&x1)?;
/// chain.rotate_add(&x0)?;
/// let y = sk.decrypt_slots(&enc, &chain.result()?)?;
/// assert_eq!(y[3], Fr::from(3 + 10 * 7 + 100 * 11u64));
/// # Ok(())
/// # }
/// ```
pub struct HornerChain {
    raw: NonNull<sys::helib_horner_chain>,
    ctx: Context,
    pk: Arc<PubKeyInner>,
    level: u32,
}

// SAFETY: the engine's chain has no thread affinity and holds its own references to the context
// and the keys; it is changed only through `&mut self` and read through `&self` (the C API
// reads it only in `helib_horner_chain_result`).
unsafe impl Send for HornerChain {}
// SAFETY: as above.
unsafe impl Sync for HornerChain {}

impl Drop for HornerChain {
    fn drop(&mut self) {
        // SAFETY: `raw` is owned by this value and freed exactly once, here.
        unsafe { sys::helib_horner_chain_free(self.raw.as_ptr()) }
    }
}

impl HornerChain {
    /// A chain starting from `last`, the term rotated most, that rotates by `step` (nonzero
    /// modulo `N/2`).
    ///
    /// Fails with [`Error::MissingKey`] when `gk` has no key for `step`,
    /// [`Error::Mismatch`] for keys of another context or secret key,
    /// [`Error::InvalidArgument`] for a step of 0 modulo `N/2`, and [`Error::Level`] for a key
    /// made for lower levels than `last`'s.
    pub fn new(last: &Ctxt, step: i64, gk: &GaloisKeys) -> Result<Self> {
        last.ensure_galois_keys(gk)?;
        let g = rotation_element(last.context(), step);
        if g == 1 {
            return Err(Error::InvalidArgument(format!(
                "a Horner chain rotating by {step} (0 modulo N/2) would not rotate"
            )));
        }
        if !gk.has_element(g) {
            return Err(Error::MissingKey(missing_step_message(gk, step)));
        }
        let mut raw = ptr::null_mut();
        // SAFETY: both handles are live for the call and only read; `raw` is a valid
        // out-pointer. The engine's chain keeps its own reference to the keys.
        check(unsafe { sys::helib_horner_chain_new(&mut raw, last.as_ptr(), g, gk.as_ptr()) })
            .map_err(|e| engine_missing_key(e, || missing_step_message(gk, step)))?;
        let raw = NonNull::new(raw).ok_or_else(|| {
            Error::Internal("the engine reported success but returned no chain".into())
        })?;
        Ok(HornerChain {
            raw,
            ctx: last.context().clone(),
            pk: Arc::clone(last.pubkey()),
            level: last.level(),
        })
    }

    /// `acc = rot(acc, step) + x`.
    ///
    /// Fails, leaving the chain as it was, with [`Error::Mismatch`] for a ciphertext of
    /// another context or secret key and [`Error::InvalidArgument`] for one at another level or
    /// with another plaintext factor than the chain's.
    pub fn rotate_add(&mut self, x: &Ctxt) -> Result<()> {
        self.ctx
            .ensure_same(x.context(), "the Horner chain and its term")?;
        if x.pubkey().secret_id() != self.pk.secret_id() {
            return Err(Error::Mismatch(
                "a Horner chain's terms must be encrypted under one secret key".into(),
            ));
        }
        if x.level() != self.level {
            return Err(Error::InvalidArgument(format!(
                "a Horner step's ciphertext is at level {}, the chain's at {} (switch it first)",
                x.level(),
                self.level
            )));
        }
        // SAFETY: both handles are live; the chain is borrowed mutably, the term only read.
        check(unsafe { sys::helib_horner_chain_rotate_add(self.raw.as_ptr(), x.as_ptr()) })
    }

    /// The accumulator as a ciphertext: `sum_i rot(x_i, i * step)` over the terms so far. The
    /// chain stays usable.
    pub fn result(&self) -> Result<Ctxt> {
        let mut out = ptr::null_mut();
        // SAFETY: the chain is live and only read; `out` is a valid out-pointer.
        check(unsafe { sys::helib_horner_chain_result(self.raw.as_ptr(), &mut out) })?;
        Ctxt::from_raw(out, &self.pk)
    }
}
