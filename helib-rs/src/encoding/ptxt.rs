//! Pre-encoded plaintexts: [`EncodedPtxt`]. The ciphertext-plaintext operations on them are
//! in `ctxt/ptxt_ops.rs`.

use std::fmt;
use std::ptr::{self, NonNull};

use ark_ff::PrimeField;
use helib_bindings as sys;

use crate::error::{check, Error, Result};
use crate::field_limbs::{check_field, encode_poly};
use crate::{BatchEncoder, Context};

/// A plaintext polynomial converted once to the engine's RNS/NTT form at one level, so that
/// multiplying by it costs one pointwise product per prime (no conversion on each use).
///
/// Immutable: one encoding serves any number of operations on any number of threads. An
/// encoding at level `l` works with ciphertexts at level `l` or above (they are switched down
/// to `l`); encode at the top level (`None`) unless you know the ciphertext's level. An
/// extended encoding ([`from_slots_extended`](Self::from_slots_extended)) also carries the
/// key-switching special primes, which
/// [`Ctxt::rotated_inner_product`](crate::Ctxt::rotated_inner_product) needs.
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{BatchEncoder, Context, EncodedPtxt, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).allow_insecure(true).build()?;
/// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
///
/// let x = pk.encrypt_slots(&enc, &[Fr::from(3u64), Fr::from(4u64)])?;
/// let w = EncodedPtxt::from_slots(&ctx, &enc, &[Fr::from(10u64), Fr::from(20u64)], None)?;
/// let y = (&(&x * &w)? + &w)?; // slotwise x * w + w
/// assert_eq!(&sk.decrypt_slots(&enc, &y)?[..2], &[Fr::from(40u64), Fr::from(100u64)]);
/// # Ok(())
/// # }
/// ```
pub struct EncodedPtxt {
    raw: NonNull<sys::helib_ptxt>,
    ctx: Context,
    level: u32,
    extended: bool,
}

// SAFETY: the engine's EncodedPtxt is immutable after construction (its C++ methods are all
// const) and holds no thread-affine state, so it may move between and be read from threads.
unsafe impl Send for EncodedPtxt {}
// SAFETY: see Send; concurrent reads of an immutable object are safe.
unsafe impl Sync for EncodedPtxt {}

impl Drop for EncodedPtxt {
    fn drop(&mut self) {
        // SAFETY: the handle came from the engine, is owned by this value and freed once.
        unsafe { sys::helib_ptxt_free(self.raw.as_ptr()) }
    }
}

impl EncodedPtxt {
    /// Encodes the polynomial `sum_i coeffs[i] X^i` (at most `N` coefficients) at `level`
    /// (`None` = the top level).
    pub fn from_poly<F: PrimeField>(
        ctx: &Context,
        coeffs: &[F],
        level: Option<u32>,
    ) -> Result<Self> {
        Self::from_limbs(ctx, &encode_poly(ctx, coeffs)?, level, false)
    }

    /// Encodes slot values (at most `N`, zero-padded) with `encoder`, then converts them at
    /// `level` (`None` = the top level).
    pub fn from_slots<F: PrimeField>(
        ctx: &Context,
        encoder: &BatchEncoder<F>,
        values: &[F],
        level: Option<u32>,
    ) -> Result<Self> {
        Self::slots_to_limbs(ctx, encoder, values, level, false)
    }

    /// Like [`from_slots`](Self::from_slots), and also keeps the plaintext's residues modulo
    /// the key-switching special primes (about `special / level` more memory): what
    /// [`Ctxt::rotated_inner_product`](crate::Ctxt::rotated_inner_product) needs of a
    /// plaintext that multiplies a rotation, since it multiplies before the key switch's
    /// mod-down. It serves every other operation too.
    pub fn from_slots_extended<F: PrimeField>(
        ctx: &Context,
        encoder: &BatchEncoder<F>,
        values: &[F],
        level: Option<u32>,
    ) -> Result<Self> {
        Self::slots_to_limbs(ctx, encoder, values, level, true)
    }

    /// Like [`from_poly`](Self::from_poly), extended as
    /// [`from_slots_extended`](Self::from_slots_extended) explains.
    pub fn from_poly_extended<F: PrimeField>(
        ctx: &Context,
        coeffs: &[F],
        level: Option<u32>,
    ) -> Result<Self> {
        Self::from_limbs(ctx, &encode_poly(ctx, coeffs)?, level, true)
    }

    /// Encodes slot values with `encoder`, then converts them.
    fn slots_to_limbs<F: PrimeField>(
        ctx: &Context,
        encoder: &BatchEncoder<F>,
        values: &[F],
        level: Option<u32>,
        extended: bool,
    ) -> Result<Self> {
        check_encoder(ctx, encoder)?;
        let limbs = encoder.encode_to_limbs(values, ctx.plaintext_limbs())?;
        Self::from_limbs(ctx, &limbs, level, extended)
    }

    /// Converts coefficients laid out as the engine takes them (checked by the caller).
    fn from_limbs(
        ctx: &Context,
        limbs: &[u64],
        level: Option<u32>,
        extended: bool,
    ) -> Result<Self> {
        let num = limbs.len() / ctx.plaintext_limbs();
        let level = engine_level(level)?;
        let encode = if extended {
            sys::helib_ptxt_encode_extended
        } else {
            sys::helib_ptxt_encode
        };
        let mut raw: *mut sys::helib_ptxt = ptr::null_mut();
        // SAFETY: the context handle is live; `limbs` holds `num` values and outlives the
        // call; `raw` is a valid out-pointer.
        check(unsafe { encode(&mut raw, ctx.as_ptr(), limbs.as_ptr(), num, level) })?;
        let mut pt = Self::from_raw(raw, ctx)?;
        pt.extended = extended;
        Ok(pt)
    }

    /// Wraps a handle the engine just produced.
    pub(crate) fn from_raw(raw: *mut sys::helib_ptxt, ctx: &Context) -> Result<Self> {
        let raw = NonNull::new(raw).ok_or_else(|| {
            Error::Internal("the engine reported success but returned no plaintext".into())
        })?;
        let mut pt = EncodedPtxt {
            raw,
            ctx: ctx.clone(),
            level: 0,
            extended: false,
        };
        let mut level = 0u32;
        // SAFETY: the handle is live; `level` is a valid out-pointer.
        check(unsafe { sys::helib_ptxt_level(pt.raw.as_ptr(), &mut level) })?;
        pt.level = level;
        Ok(pt)
    }

    pub(crate) fn as_ptr(&self) -> *const sys::helib_ptxt {
        self.raw.as_ptr()
    }

    /// The context this plaintext was encoded for.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The level (number of chain primes) it was encoded at.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Whether it holds the special primes' residues too (see
    /// [`from_slots_extended`](Self::from_slots_extended)).
    pub fn is_extended(&self) -> bool {
        self.extended
    }

    /// Memory held by the encoding, in bytes.
    pub fn size_bytes(&self) -> u64 {
        let mut out = 0u64;
        // SAFETY: the handle is live; `out` is a valid out-pointer. The call cannot fail on
        // a live handle, and 0 is an honest answer if it ever did.
        let _ = unsafe { sys::helib_ptxt_size_bytes(self.raw.as_ptr(), &mut out) };
        out
    }

    /// Fails with [`Error::Mismatch`] unless `ctx`, the context of the ciphertext it is to
    /// meet, is this plaintext's.
    pub(crate) fn ensure_context(&self, ctx: &Context) -> Result<()> {
        self.ctx
            .ensure_same(ctx, "the plaintext and the ciphertext")
    }
}

impl fmt::Debug for EncodedPtxt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodedPtxt")
            .field("level", &self.level)
            .field("extended", &self.extended)
            .field("size_bytes", &self.size_bytes())
            .finish()
    }
}

/// The engine's level argument: 0 stands for the top level, so an explicit 0 is refused here.
pub(crate) fn engine_level(level: Option<u32>) -> Result<u32> {
    match level {
        None => Ok(0),
        Some(0) => Err(Error::InvalidArgument(
            "encoding level 0 does not exist (levels count chain primes, from 1)".into(),
        )),
        Some(l) => Ok(l),
    }
}

/// Fails unless `encoder` packs `ctx`'s ring.
pub(crate) fn check_encoder<F: PrimeField>(ctx: &Context, encoder: &BatchEncoder<F>) -> Result<()> {
    check_field::<F>(ctx)?;
    if encoder.ring_degree() != ctx.ring_degree() {
        return Err(Error::Mismatch(format!(
            "the encoder is for ring degree {} but the context's is {}",
            encoder.ring_degree(),
            ctx.ring_degree()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limbs::modulus_limbs;
    use ark_bn254::Fr;

    /// A coefficient that is not below `p` is refused with its index, whether it sits in a
    /// group of four the vector path converts or in the tail the scalar path takes.
    #[test]
    fn a_coefficient_not_below_p_is_named() {
        let ctx = Context::builder()
            .ring_degree(2048)
            .plaintext_field::<Fr>()
            .ciphertext_bits(400)
            .allow_insecure(true)
            .build()
            .expect("context");
        let p = modulus_limbs::<Fr>();
        assert_eq!(ctx.plaintext_limbs(), 4);
        let num = 11;
        for extended in [false, true] {
            for bad in [0, 5, 9] {
                let mut limbs = vec![7u64; 4 * num];
                limbs[4 * bad..4 * bad + 4].copy_from_slice(&p);
                match EncodedPtxt::from_limbs(&ctx, &limbs, None, extended) {
                    Err(Error::InvalidArgument(msg)) => assert!(
                        msg.contains(&format!("coefficient {bad} ")),
                        "coefficient {bad}: {msg}"
                    ),
                    other => panic!("coefficient {bad} equal to p: {other:?}"),
                }
            }
            let ok = vec![7u64; 4 * num];
            let pt = EncodedPtxt::from_limbs(&ctx, &ok, None, extended).expect("valid limbs");
            assert_eq!(pt.is_extended(), extended);
        }
    }
}
