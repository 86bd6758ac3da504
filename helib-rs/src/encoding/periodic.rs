//! [`PeriodicEncoder`]: cheap encodings of slot vectors that repeat along the rows.

use std::fmt;
use std::ptr::{self, NonNull};

use ark_ff::PrimeField;
use helib_bindings as sys;

use crate::encoding::ptxt::engine_level;
use crate::error::{check, Error, Result};
use crate::field_limbs::check_field;
use crate::{BatchEncoder, Context, EncodedPtxt};

/// Encodes slot vectors whose two rows each repeat with a period `d` dividing `N/2`, the
/// layout of a length-`d` vector replicated across the slots.
///
/// Such a vector encodes to a sparse polynomial `m(X) = m'(X^(N/2d))` with `2d`
/// coefficients, so encoding runs a size-`2d` transform over `F` and per prime instead of
/// size `N`, and the [`EncodedPtxt`] stores `2d` words per prime. For small `d` this is the
/// difference between caching thousands of diagonals and not being able to.
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{BatchEncoder, Context, PeriodicEncoder, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).allow_insecure(true).build()?;
/// let full = BatchEncoder::<Fr>::for_context(&ctx)?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
///
/// let periodic = PeriodicEncoder::<Fr>::new(&ctx, 4, None)?;
/// let w = periodic.encode_replicated(&[1u64, 2, 3, 4].map(Fr::from))?;
/// let x = pk.encrypt_slots(&full, &vec![Fr::from(10u64); 2048])?;
/// let y = sk.decrypt_slots(&full, &(&x * &w)?)?;
/// assert_eq!(&y[..8], &[10u64, 20, 30, 40, 10, 20, 30, 40].map(Fr::from));
/// # Ok(())
/// # }
/// ```
pub struct PeriodicEncoder<F: PrimeField> {
    ctx: Context,
    period: usize,
    small: BatchEncoder<F>,
    raw: NonNull<sys::helib_sparse_encoder>,
}

// SAFETY: the engine's sparse-encoding tables are immutable after construction and hold no
// thread-affine state; every access through the handle is a read.
unsafe impl<F: PrimeField> Send for PeriodicEncoder<F> {}
// SAFETY: see Send.
unsafe impl<F: PrimeField> Sync for PeriodicEncoder<F> {}

impl<F: PrimeField> Drop for PeriodicEncoder<F> {
    fn drop(&mut self) {
        // SAFETY: the handle came from the engine, is owned here and freed once.
        unsafe { sys::helib_sparse_encoder_free(self.raw.as_ptr()) }
    }
}

impl<F: PrimeField> PeriodicEncoder<F> {
    /// An encoder for row period `period` (a power of two dividing `N/2`), producing
    /// encodings at `level` (`None` = the top level).
    pub fn new(ctx: &Context, period: usize, level: Option<u32>) -> Result<Self> {
        check_field::<F>(ctx)?;
        let half = ctx.ring_degree() / 2;
        if period == 0 || !period.is_power_of_two() || period > half {
            return Err(Error::InvalidArgument(format!(
                "a row period must be a power of two dividing N/2 = {half}, got {period}"
            )));
        }
        if !ctx.slots_available() {
            return Err(Error::NoSlots(
                "the context's p is not 1 mod 2N, so it has no slots".into(),
            ));
        }
        // Period 1 is stored as period 2: in the ring of degree 2 the rotation generator 3 is
        // -1 mod 4, which swaps that ring's two slots, so it cannot keep the rows apart.
        let stored = period.max(2);
        let small = BatchEncoder::new(2 * stored)?;
        let mut raw: *mut sys::helib_sparse_encoder = ptr::null_mut();
        // SAFETY: the context handle is live; `raw` is a valid out-pointer.
        check(unsafe {
            sys::helib_sparse_encoder_new(&mut raw, ctx.as_ptr(), 2 * stored, engine_level(level)?)
        })?;
        let raw = NonNull::new(raw).ok_or_else(|| {
            Error::Internal("the engine reported success but returned no encoder".into())
        })?;
        Ok(PeriodicEncoder {
            ctx: ctx.clone(),
            period,
            small,
            raw,
        })
    }

    /// The row period `d`.
    pub fn period(&self) -> usize {
        self.period
    }

    /// Encodes the slot vector whose row 0 repeats `row0` and row 1 repeats `row1` (each of
    /// exactly `d` values).
    pub fn encode(&self, row0: &[F], row1: &[F]) -> Result<EncodedPtxt> {
        let slots = self.small_slots(row0, row1)?;
        let limbs = self
            .small
            .encode_to_limbs(&slots, self.ctx.plaintext_limbs())?;
        self.encode_sparse(&limbs)
    }

    /// Encodes `values` (exactly `d` of them) repeated along both rows.
    pub fn encode_replicated(&self, values: &[F]) -> Result<EncodedPtxt> {
        self.encode(values, values)
    }

    /// The `N` coefficients of the plaintext polynomial [`encode`](Self::encode) converts,
    /// for [`PubKey::encrypt_poly`](crate::PubKey::encrypt_poly): encrypting a replicated
    /// vector without a size-`N` transform.
    pub fn encode_poly(&self, row0: &[F], row1: &[F]) -> Result<Vec<F>> {
        let coeffs = self.small.encode(&self.small_slots(row0, row1)?)?;
        let stride = self.ctx.ring_degree() / coeffs.len();
        let mut out = vec![F::zero(); self.ctx.ring_degree()];
        for (i, c) in coeffs.into_iter().enumerate() {
            out[i * stride] = c;
        }
        Ok(out)
    }

    /// The slots of `m'` in the small ring (`2d` of them, 4 for `d = 1`), whose coefficients
    /// are the nonzero ones of the full plaintext.
    fn small_slots(&self, row0: &[F], row1: &[F]) -> Result<Vec<F>> {
        let d = self.period;
        if row0.len() != d || row1.len() != d {
            return Err(Error::InvalidLength(format!(
                "a periodic encoding takes exactly {d} values per row, got {} and {}",
                row0.len(),
                row1.len()
            )));
        }
        let stored = self.small.row_size();
        let mut slots = Vec::with_capacity(2 * stored);
        for row in [row0, row1] {
            slots.extend(row.iter().cycle().take(stored));
        }
        Ok(slots)
    }

    /// Converts the small ring's coefficients, laid out as the engine takes them.
    fn encode_sparse(&self, limbs: &[u64]) -> Result<EncodedPtxt> {
        let mut raw: *mut sys::helib_ptxt = ptr::null_mut();
        // SAFETY: the encoder handle is live; `limbs` holds 2d values of plaintext_limbs
        // limbs each (the length the encoder was built for) and outlives the call.
        check(unsafe {
            sys::helib_ptxt_encode_sparse(&mut raw, self.raw.as_ptr(), limbs.as_ptr())
        })?;
        EncodedPtxt::from_raw(raw, &self.ctx)
    }
}

impl<F: PrimeField> fmt::Debug for PeriodicEncoder<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PeriodicEncoder")
            .field("period", &self.period)
            .finish()
    }
}
