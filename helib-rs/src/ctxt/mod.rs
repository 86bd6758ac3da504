//! Ciphertexts: the [`Ctxt`] type, encryption, decryption and noise inspection.
//!
//! Arithmetic on ciphertexts lives in `ops.rs`, with encoded plaintexts in `ptxt_ops.rs`.

use std::fmt;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use ark_ff::PrimeField;
use helib_bindings as sys;

use crate::context::Context;
use crate::error::{check, Error, Result};
use crate::field_limbs::{check_field, encode_const, encode_poly, from_limbs};
use crate::keys::{PubKey, PubKeyInner, SecKey};
use zeroize::Zeroizing;

mod computation;
mod horner_chain;
mod ops;
mod parallel_rotation;
mod ptxt_ops;
mod rotate;
mod rotated_sum;
mod slots;

pub use computation::Computation;
pub use horner_chain::HornerChain;

/// A snapshot of a ciphertext's level and noise figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CtxtInfo {
    /// Number of ciphertext primes in use, from the context's
    /// [`num_ctxt_primes`](Context::num_ctxt_primes) (fresh) down to 1.
    pub level: u32,
    /// Number of polynomial parts: 2 (3 exists only inside a multiplication).
    pub parts: u32,
    /// `log2` of the current ciphertext modulus.
    pub log2_modulus: f64,
    /// `log2` of the tracked, high-probability bound on the noise.
    pub log2_noise_bound: f64,
    /// `log2(modulus / 2) - log2_noise_bound`: bits of noise growth left. At or below zero
    /// the ciphertext can no longer be decrypted.
    pub noise_budget: f64,
}

impl CtxtInfo {
    fn from_sys(info: &sys::helib_ctxt_info) -> Self {
        CtxtInfo {
            level: info.level,
            parts: info.parts,
            log2_modulus: info.log2_modulus,
            log2_noise_bound: info.log2_noise_bound,
            noise_budget: info.noise_budget,
        }
    }
}

/// A BGV ciphertext encrypting a polynomial in `F_p[X] / (X^N + 1)`.
///
/// Holds its [`Context`] and the [`PubKey`] that encrypted it; multiplication relinearizes
/// with that key. Combining ciphertexts of different contexts or different secret keys is
/// refused with [`Error::Mismatch`].
///
/// Every operation returns a `Result`: operations fail rather than produce a ciphertext that
/// would decrypt wrongly. The level and noise figures ([`level`](Self::level),
/// [`noise_budget`](Self::noise_budget), ...) are read from the engine after every change and
/// cached, so the accessors cannot fail.
///
/// `Clone` copies the ciphertext in the engine. Use [`try_clone`](Self::try_clone) to get an
/// error instead; `clone` aborts the process if the engine cannot allocate, just like
/// cloning a `Vec` does.
pub struct Ctxt {
    raw: NonNull<sys::helib_ctxt>,
    ctx: Context,
    pk: Arc<PubKeyInner>,
    info: CtxtInfo,
    layout_tag: u64,
}

// SAFETY: the engine ciphertext has no thread affinity; it is only modified through `&mut
// self` (which Rust makes exclusive) and only read through `&self`, for which the C API
// promises that const handles may be used from several threads at once. The context and key
// it refers to are kept alive by `ctx` and `pk`.
unsafe impl Send for Ctxt {}
// SAFETY: as above — `&Ctxt` only reaches const C functions.
unsafe impl Sync for Ctxt {}

impl Drop for Ctxt {
    fn drop(&mut self) {
        // SAFETY: `raw` is owned by this value and freed exactly once, here, while the context
        // and key it refers to are still alive (fields are dropped after this runs).
        unsafe { sys::helib_ctxt_free(self.raw.as_ptr()) }
    }
}

impl Ctxt {
    /// Wraps a handle the engine just produced; frees it again if reading its info fails.
    pub(crate) fn from_raw(raw: *mut sys::helib_ctxt, pk: &Arc<PubKeyInner>) -> Result<Ctxt> {
        let raw = NonNull::new(raw).ok_or_else(|| {
            Error::Internal("the engine reported success but returned no ciphertext".into())
        })?;
        let mut ct = Ctxt {
            raw,
            ctx: pk.context().clone(),
            pk: Arc::clone(pk),
            info: CtxtInfo {
                level: 0,
                parts: 0,
                log2_modulus: 0.0,
                log2_noise_bound: 0.0,
                noise_budget: 0.0,
            },
            layout_tag: 0,
        };
        ct.refresh_info()?;
        Ok(ct)
    }

    fn refresh_info(&mut self) -> Result<()> {
        let mut info = sys::helib_ctxt_info {
            level: 0,
            parts: 0,
            log2_modulus: 0.0,
            log2_noise_bound: 0.0,
            noise_budget: 0.0,
        };
        // SAFETY: the handle is live; `info` is a valid out-pointer.
        check(unsafe { sys::helib_ctxt_get_info(self.raw.as_ptr(), &mut info) })?;
        self.info = CtxtInfo::from_sys(&info);
        Ok(())
    }

    /// Runs one in-place engine operation on this ciphertext, then re-reads its info.
    ///
    /// The info is re-read even when the operation fails, because a failing multiplication
    /// may already have switched the operand down a level.
    pub(crate) fn modify(
        &mut self,
        op: impl FnOnce(*mut sys::helib_ctxt) -> sys::helib_status,
    ) -> Result<()> {
        let result = check(op(self.raw.as_ptr()));
        let refreshed = self.refresh_info();
        result.and(refreshed)
    }

    pub(crate) fn as_ptr(&self) -> *const sys::helib_ctxt {
        self.raw.as_ptr()
    }

    pub(crate) fn pubkey(&self) -> &Arc<PubKeyInner> {
        &self.pk
    }

    /// Fails with [`Error::Mismatch`] unless `other` has this context and this secret key.
    pub(crate) fn ensure_compatible(&self, other: &Ctxt) -> Result<()> {
        self.ctx.ensure_same(&other.ctx, "the two ciphertexts")?;
        if self.pk.secret_id() != other.pk.secret_id() {
            return Err(Error::Mismatch(
                "the two ciphertexts are encrypted under different secret keys".into(),
            ));
        }
        Ok(())
    }

    /// The context this ciphertext belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The public key that encrypted this ciphertext (its relinearization key is used by
    /// multiplication).
    pub fn public_key(&self) -> PubKey {
        PubKey {
            inner: Arc::clone(&self.pk),
        }
    }

    /// Level, modulus and noise figures, as of the last operation.
    pub fn info(&self) -> CtxtInfo {
        self.info
    }

    /// Number of ciphertext primes in use: [`Context::num_ctxt_primes`] when fresh, down to 1.
    pub fn level(&self) -> u32 {
        self.info.level
    }

    /// Bits of noise growth left; at or below zero decryption is refused.
    pub fn noise_budget(&self) -> f64 {
        self.info.noise_budget
    }

    /// `log2` of the tracked (heuristic, high-probability) bound on the noise.
    pub fn log2_noise_bound(&self) -> f64 {
        self.info.log2_noise_bound
    }

    /// `log2` of the current ciphertext modulus.
    pub fn log2_modulus(&self) -> f64 {
        self.info.log2_modulus
    }

    /// Copies the ciphertext, reporting allocation failure as an error.
    pub fn try_clone(&self) -> Result<Ctxt> {
        let mut raw: *mut sys::helib_ctxt = ptr::null_mut();
        // SAFETY: the handle is live and only read; `raw` is a valid out-pointer.
        check(unsafe { sys::helib_ctxt_clone(&mut raw, self.raw.as_ptr()) })?;
        let mut ct = Ctxt::from_raw(raw, &self.pk)?;
        ct.layout_tag = self.layout_tag;
        Ok(ct)
    }

    /// An application's mark of how values sit in this ciphertext's slots (0: unknown).
    ///
    /// The engine neither reads it nor serializes it: a copy keeps it, operations in place keep
    /// it, and new ciphertexts (encrypted, read from bytes, rotated into a new value) start at
    /// 0. `he-fft` marks what its transforms write and refuses marked inputs laid out for
    /// another transform, so that chaining transforms wrongly is an error, not a wrong value.
    pub fn layout_tag(&self) -> u64 {
        self.layout_tag
    }

    /// Sets the [`layout_tag`](Self::layout_tag).
    pub fn set_layout_tag(&mut self, tag: u64) {
        self.layout_tag = tag;
    }
}

impl Clone for Ctxt {
    /// Copies the ciphertext. Cloning a valid ciphertext can only fail when memory runs out,
    /// and then this aborts the process, as Rust's own collections do; use
    /// [`Ctxt::try_clone`] to handle that case.
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(ct) => ct,
            Err(e) => {
                eprintln!("helib-rs: cloning a ciphertext failed: {e}");
                std::process::abort()
            }
        }
    }
}

impl fmt::Debug for Ctxt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctxt")
            .field("level", &self.info.level)
            .field("log2_modulus", &self.info.log2_modulus)
            .field("log2_noise_bound", &self.info.log2_noise_bound)
            .field("noise_budget", &self.info.noise_budget)
            .finish_non_exhaustive()
    }
}

impl PubKey {
    /// Encrypts the polynomial `sum_i coeffs[i] X^i` (at most `N` coefficients; missing ones
    /// are zero, so an empty slice encrypts zero). Fresh randomness on every call.
    ///
    /// `F`'s modulus must be the context's plaintext modulus, else [`Error::FieldMismatch`].
    pub fn encrypt_poly<F: PrimeField>(&self, coeffs: &[F]) -> Result<Ctxt> {
        let limbs = encode_poly(self.context(), coeffs)?;
        self.encrypt_limbs(&limbs)
    }

    /// Encrypts the constant polynomial `value`.
    pub fn encrypt_const<F: PrimeField>(&self, value: F) -> Result<Ctxt> {
        let limbs = encode_const(self.context(), value)?;
        self.encrypt_limbs(&limbs)
    }

    /// Encrypts coefficients laid out as the engine takes them (checked by the caller).
    pub(crate) fn encrypt_limbs(&self, limbs: &[u64]) -> Result<Ctxt> {
        let num_coeffs = limbs.len() / self.context().plaintext_limbs();
        let mut raw: *mut sys::helib_ctxt = ptr::null_mut();
        // SAFETY: the key handle is live; `limbs` holds `num_coeffs * plaintext_limbs` values
        // and outlives the call; `raw` is a valid out-pointer set on success.
        check(unsafe {
            sys::helib_ctxt_encrypt(&mut raw, self.inner.as_ptr(), limbs.as_ptr(), num_coeffs)
        })?;
        Ctxt::from_raw(raw, &self.inner)
    }
}

impl SecKey {
    fn ensure_owns(&self, ct: &Ctxt) -> Result<()> {
        self.context()
            .ensure_same(ct.context(), "the secret key and the ciphertext")?;
        if ct.pubkey().secret_id() != self.id() {
            return Err(Error::Mismatch(
                "the ciphertext was encrypted under a different secret key".into(),
            ));
        }
        Ok(())
    }

    /// Decrypts all `N` coefficients of the plaintext polynomial.
    ///
    /// Fails with [`Error::NoiseBudgetExhausted`] instead of returning a wrong value when the
    /// noise has grown too large, and with [`Error::Mismatch`] for a ciphertext of another
    /// key or context.
    ///
    /// What it guarantees: for a ciphertext computed honestly, the right plaintext or an
    /// error. For bytes from someone else it returns what the rows encrypt, scaled by the
    /// inverse of the plaintext factor the bytes claim: a factor field altered in transit
    /// scales every value by a wrong constant, silently. Decrypt a result whose computation
    /// you know with [`decrypt_poly_expecting`](Self::decrypt_poly_expecting), and check
    /// its values (`he_fft::check`) when the server is not trusted.
    pub fn decrypt_poly<F: PrimeField>(&self, ct: &Ctxt) -> Result<Vec<F>> {
        self.ensure_owns(ct)?;
        check_field::<F>(self.context())?;
        let per = self.context().plaintext_limbs();
        // The plaintext's limbs are as secret as the values returned: wiped when dropped.
        let mut out = Zeroizing::new(vec![0u64; self.context().ring_degree() * per]);
        let mut needed = 0usize;
        // SAFETY: both handles are live; `out` is writable for `out.len()` limbs and `needed`
        // is a valid out-pointer.
        check(unsafe {
            sys::helib_ctxt_decrypt(
                self.as_ptr(),
                ct.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                &mut needed,
            )
        })?;
        if needed != out.len() {
            return Err(Error::Internal(format!(
                "decryption produced {needed} limbs, expected {}",
                out.len()
            )));
        }
        from_limbs(&out, per)
    }

    /// [`decrypt_poly`](Self::decrypt_poly) of a result computed as `computation` says:
    /// refused with [`Error::Mismatch`] when its plaintext factor is not one that
    /// computation gives at its level, so an altered factor field is an error, never values
    /// scaled by a wrong constant.
    pub fn decrypt_poly_expecting<F: PrimeField>(
        &self,
        ct: &Ctxt,
        computation: Computation,
    ) -> Result<Vec<F>> {
        self.ensure_owns(ct)?;
        ct.check_factor(computation)?;
        self.decrypt_poly(ct)
    }

    /// Decrypts a ciphertext that encrypts a constant and returns that constant.
    ///
    /// Fails with [`Error::InvalidArgument`] if the plaintext has a non-zero coefficient
    /// beyond the constant term, so a polynomial is never silently cut down to one value.
    pub fn decrypt_const<F: PrimeField>(&self, ct: &Ctxt) -> Result<F> {
        let coeffs = self.decrypt_poly::<F>(ct)?;
        match coeffs.split_first() {
            Some((&constant, rest)) if rest.iter().all(|c| c.is_zero()) => Ok(constant),
            Some(_) => Err(Error::InvalidArgument(
                "the ciphertext encrypts a non-constant polynomial; use decrypt_poly".into(),
            )),
            None => Err(Error::Internal(
                "decryption returned no coefficients".into(),
            )),
        }
    }

    /// `log2` of the exact noise of `ct`: the infinity norm of `[c0 + c1 s]_q` (in BGV, the
    /// message plus `p` times the error), measured with this secret key. For tests and
    /// diagnostics: it should stay below [`Ctxt::log2_noise_bound`].
    pub fn measure_noise(&self, ct: &Ctxt) -> Result<f64> {
        self.ensure_owns(ct)?;
        let mut log2_noise = 0.0f64;
        // SAFETY: both handles are live and only read; the out-pointer is valid.
        check(unsafe {
            sys::helib_ctxt_measure_noise(self.as_ptr(), ct.as_ptr(), &mut log2_noise)
        })?;
        Ok(log2_noise)
    }
}
