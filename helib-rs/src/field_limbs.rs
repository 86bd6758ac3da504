//! Conversions between arkworks prime-field elements and the engine's limb arrays, checked
//! against a context. Outside `encoding/` so that ciphertexts, encoders and byte forms share
//! it without importing one another.
//!
//! The engine takes every plaintext value as exactly `plaintext_limbs` little-endian `u64`
//! limbs in `[0, p)`. Whole slices are converted at once so that one operation is one FFI
//! call, whatever the number of coefficients.

use ark_ff::PrimeField;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::limbs::modulus_limbs;

/// Fails with [`Error::FieldMismatch`] unless `F`'s modulus is the context's plaintext modulus.
pub(crate) fn check_field<F: PrimeField>(ctx: &Context) -> Result<()> {
    let field = modulus_limbs::<F>();
    if field.as_slice() == ctx.plaintext_modulus_limbs() {
        Ok(())
    } else {
        Err(Error::FieldMismatch(format!(
            "the field's modulus has {} bits but the context's plaintext modulus has {} bits{}",
            F::MODULUS_BIT_SIZE,
            ctx.plaintext_bits(),
            if F::MODULUS_BIT_SIZE == ctx.plaintext_bits() {
                " and a different value"
            } else {
                ""
            }
        )))
    }
}

/// Fails unless a polynomial of `len` coefficients fits the ring (at most `N` coefficients).
pub(crate) fn check_poly_len(ctx: &Context, len: usize) -> Result<()> {
    if len > ctx.ring_degree() {
        Err(Error::InvalidLength(format!(
            "polynomial has {len} coefficients but the ring degree N is {}",
            ctx.ring_degree()
        )))
    } else {
        Ok(())
    }
}

/// Writes each value as `limbs_per_value` limbs (canonical representative, zero-padded).
///
/// Callers check the field first, so every value is below `p` and fits in
/// `limbs_per_value` limbs; copying only that many limbs drops nothing but zeros.
pub(crate) fn to_limbs<F: PrimeField>(values: &[F], limbs_per_value: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(values.len() * limbs_per_value);
    for value in values {
        let big = value.into_bigint();
        // Element by element, not copy_from_slice: a copy of a few limbs whose count is not
        // known at compile time became a memmove call per value, a tenth of an online
        // encryption's time.
        let src = big.as_ref().iter().copied().chain(std::iter::repeat(0));
        out.extend(src.take(limbs_per_value));
    }
    out
}

/// Reads values of `limbs_per_value` limbs each back into field elements.
pub(crate) fn from_limbs<F: PrimeField>(limbs: &[u64], limbs_per_value: usize) -> Result<Vec<F>> {
    if limbs_per_value == 0 {
        return Err(Error::Internal(
            "context reports zero limbs per plaintext value".into(),
        ));
    }
    limbs
        .chunks_exact(limbs_per_value)
        .map(|chunk| {
            let mut big = F::BigInt::default();
            let dst = big.as_mut();
            let n = dst.len().min(chunk.len());
            dst[..n].copy_from_slice(&chunk[..n]);
            if chunk[n..].iter().any(|&l| l != 0) {
                return Err(Error::Internal(
                    "engine returned a plaintext value wider than the field".into(),
                ));
            }
            F::from_bigint(big).ok_or_else(|| {
                Error::Internal("engine returned a plaintext value that is not below p".into())
            })
        })
        .collect()
}

/// Checks `F` and the length, then lays out a polynomial for the engine. An empty slice is
/// the zero polynomial, sent as one zero coefficient so the engine never sees an empty array.
pub(crate) fn encode_poly<F: PrimeField>(ctx: &Context, coeffs: &[F]) -> Result<Vec<u64>> {
    check_field::<F>(ctx)?;
    check_poly_len(ctx, coeffs.len())?;
    if coeffs.is_empty() {
        return Ok(vec![0u64; ctx.plaintext_limbs()]);
    }
    Ok(to_limbs(coeffs, ctx.plaintext_limbs()))
}

/// Checks `F`, then lays out one constant for the engine.
pub(crate) fn encode_const<F: PrimeField>(ctx: &Context, value: F) -> Result<Vec<u64>> {
    check_field::<F>(ctx)?;
    Ok(to_limbs(&[value], ctx.plaintext_limbs()))
}
