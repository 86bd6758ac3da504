//! The modulus and context sizing of every route, in one noise model: the routes' own
//! `ciphertext_bits` and `secure_context` (associated functions beside each route) call these,
//! and [`witness_map_context`] sizes the route [`witness_map_for`](crate::witness_map_for) picks.

use crate::error::{Error, Result};
use ark_ff::PrimeField;
use helib_rs::Context;

/// The ring degree of one-level products
/// ([`OneProductFft::secure_context`](crate::OneProductFft::secure_context)): the smallest
/// power of two whose 128-bit security bound (881 bits of `log2 QP` at `N = 32768`) fits a
/// one-level transform over a 254-bit field with hybrid key switching.
pub const FFT_RING_DEGREE: usize = 32768;

/// Ciphertext-modulus bits for a one-level transform of size `n`: a fresh ciphertext's
/// noise (about `p * N`), times a plaintext diagonal (canonical norm about `p sqrt(N)`),
/// summed over up to `n` diagonals, plus key-switching noise and a safety margin.
pub(crate) fn one_level_bits(ring_degree: usize, p_bits: u32, n: usize) -> u32 {
    let log_n_ring = ring_degree.max(2).ilog2();
    let log_terms = n.max(2).ilog2();
    // Saturating, so an absurd p_bits gives a modulus no context accepts instead of wrapping.
    p_bits
        .saturating_mul(2)
        .saturating_add((3 * log_n_ring) / 2 + log_terms + 40)
}

/// A >= 128-bit secure context for transforms of size `n` over `F`: ring degree
/// [`FFT_RING_DEGREE`], the modulus from [`one_level_bits`], and the fewest
/// key-switching digits that keep `log2 QP` within the security bound.
pub(crate) fn one_level_context<F: PrimeField>(n: usize) -> Result<Context> {
    let bits = one_level_bits(FFT_RING_DEGREE, F::MODULUS_BIT_SIZE, n);
    Ok(Context::for_field::<F>(FFT_RING_DEGREE as u64, bits)?)
}

/// A >= 128-bit secure context for [`CosetChange`](crate::CosetChange) of size
/// `n`: ring degree `2n` (at least [`FFT_RING_DEGREE`], at most 65536) so that up to
/// `n = 32768` the vector is replicated and the circulant diagonals are constants per row,
/// and the modulus from [`one_level_bits`].
pub(crate) fn coset_change_context<F: PrimeField>(n: usize) -> Result<Context> {
    let ring = replicating_ring(n, "a coset change")?;
    let bits = one_level_bits(ring, F::MODULUS_BIT_SIZE, n);
    Ok(Context::for_field::<F>(ring as u64, bits)?)
}

/// Ciphertext-modulus bits for a [`TwoStageFft`](crate::TwoStageFft) of size `n`: the first
/// stage as a one-level transform ([`one_level_bits`]), then the second stage's
/// growth from the natural level the first one's output is switched down to: a plaintext of
/// canonical norm about `p sqrt(N)` summed over fewer than `n` terms, and 10 bits for key
/// switching and rounding (the fresh-encryption term does not recur).
pub(crate) fn two_stage_bits(ring_degree: usize, p_bits: u32, n: usize) -> u32 {
    let log_n_ring = ring_degree.max(2).ilog2();
    one_level_bits(ring_degree, p_bits, n)
        .saturating_add(p_bits)
        .saturating_add(log_n_ring.div_ceil(2) + n.max(2).ilog2() + 10)
}

/// Ciphertext-modulus bits over `F` for the server-only witness map of size `n` on the ring
/// `ring_degree`: [`WitnessMap::ciphertext_bits`](crate::WitnessMap::ciphertext_bits) up to
/// `n = N/2`. From `n = N` on, where [`witness_map_for`](crate::witness_map_for) picks the
/// [`FourStepWitnessMap`](crate::FourStepWitnessMap), this is
/// [`FourStepWitnessMap::ciphertext_bits`](crate::FourStepWitnessMap::ciphertext_bits).
pub fn witness_map_ciphertext_bits<F: PrimeField>(ring_degree: usize, n: usize) -> u32 {
    let p_bits = F::MODULUS_BIT_SIZE;
    if n > ring_degree / 2 {
        return four_step_witness_map_bits(ring_degree, p_bits, n);
    }
    one_ciphertext_witness_map_bits(ring_degree, p_bits, n)
}

/// The one-ciphertext map of size `n` as [`WitnessMap::new`](crate::WitnessMap::new) builds it:
/// two server stages (the owner applies the first) and the product.
pub(crate) fn one_ciphertext_witness_map_bits(ring_degree: usize, p_bits: u32, n: usize) -> u32 {
    row_map_bits(ring_degree, p_bits, n, 2)
}

/// Ciphertext-modulus bits for a witness map of size `n` whose server runs `stages`
/// plaintext-matrix stages (3, or 2 where the owner applies the first) and the product: the
/// first stage on fresh inputs as a one-level transform, then each later stage and the
/// product, whose operands are switched down to the floor first, as the second stage of
/// [`two_stage_bits`].
pub(crate) fn row_map_bits(ring_degree: usize, p_bits: u32, n: usize, stages: u32) -> u32 {
    let log_n_ring = ring_degree.max(2).ilog2();
    let stage = p_bits.saturating_add(log_n_ring.div_ceil(2) + n.max(2).ilog2() + 10);
    one_level_bits(ring_degree, p_bits, n).saturating_add(stage.saturating_mul(stages))
}

/// A >= 128-bit secure context for the server-only witness map of size `n`
/// ([`witness_map_for`](crate::witness_map_for)): the smallest ring from twice
/// [`FFT_RING_DEGREE`] up (at most 131072) whose security bound holds the modulus of
/// [`witness_map_ciphertext_bits`], and on which `n` spans at most
/// [`MAX_COMPONENTS`](crate::FourStepWitnessMap::MAX_COMPONENTS) rows of `N/2`. For BN254
/// that is `N = 65536` up to `2^24` (one ciphertext up to `n = 32768`, the four-step map
/// from `n = 65536`) and `N = 131072` at `2^25`; larger sizes are refused.
///
/// ```
/// assert_eq!(he_fft::witness_map_context::<ark_bn254::Fr>(32768)?.ring_degree(), 65536);
/// assert_eq!(he_fft::witness_map_context::<ark_bn254::Fr>(1 << 20)?.ring_degree(), 65536);
/// # Ok::<(), he_fft::Error>(())
/// ```
pub fn witness_map_context<F: PrimeField>(n: usize) -> Result<Context> {
    if n < 2 || !n.is_power_of_two() {
        return Err(Error::InvalidArgument(format!(
            "a witness map's domain size must be a power of two of at least 2, got {n}"
        )));
    }
    // Past half a ring the four-step route needs no more levels than one ciphertext does, so
    // the smallest ring serves every size up to MAX_COMPONENTS rows of N/2.
    let ring = n
        .saturating_mul(2)
        .div_ceil(MAX_COMPONENTS)
        .max(2 * FFT_RING_DEGREE);
    if ring > MAX_RING {
        return Err(Error::InvalidArgument(format!(
            "a witness map's domain size is at most {} (MAX_COMPONENTS rows of N/2 on the \
             largest ring), got {n}",
            MAX_COMPONENTS * MAX_RING / 2
        )));
    }
    smallest_secure_ring::<F>(ring, |ring| witness_map_ciphertext_bits::<F>(ring, n))
}

/// Ciphertext-modulus bits for a [`FourStepWitnessMap`](crate::FourStepWitnessMap) of size
/// `n`: the row map's at `R = N/2` (its last two stages and the product: the owner applies the
/// first), and the growth of the products' transforms across the `c = n / R` components: the
/// forward transforms' sums of `c` terms on both factors and the inverse transform's sum of
/// `2c` products, `3 log2(c) + 1` bits.
pub(crate) fn four_step_witness_map_bits(ring_degree: usize, p_bits: u32, n: usize) -> u32 {
    let row = (ring_degree / 2).max(2);
    let log_c = (n / row).max(2).ilog2();
    row_map_bits(ring_degree, p_bits, row, 2).saturating_add(3 * log_c + 1)
}

/// Ciphertext-modulus bits for a [`ClientAssistedWitnessMap`](crate::ClientAssistedWitnessMap):
/// one product of two fresh ciphertexts (each about `p sqrt(N)` after switching down to the
/// floor), key switching, and the margin.
pub(crate) fn client_assisted_bits(ring_degree: usize, p_bits: u32) -> u32 {
    let log_n_ring = ring_degree.max(2).ilog2();
    p_bits
        .saturating_mul(2)
        .saturating_add(2 * log_n_ring + 100)
}

/// A >= 128-bit secure context for a [`ClientAssistedWitnessMap`](crate::ClientAssistedWitnessMap)
/// of size `n`: the smallest ring of at least `2n` (and [`FFT_RING_DEGREE`]) whose security
/// bound holds [`client_assisted_bits`]. For BN254 that is `N = 32768` up to
/// `n = 16384`.
pub(crate) fn client_assisted_context<F: PrimeField>(n: usize) -> Result<Context> {
    if n < 2 || !n.is_power_of_two() {
        return Err(Error::InvalidArgument(format!(
            "a witness map's domain size must be a power of two of at least 2, got {n}"
        )));
    }
    smallest_secure_ring::<F>(n.saturating_mul(2).max(FFT_RING_DEGREE), |ring| {
        client_assisted_bits(ring, F::MODULUS_BIT_SIZE)
    })
}

/// A >= 128-bit secure context for a [`TwoStageFft`](crate::TwoStageFft) of size `n`: the
/// smallest ring of at least `2n` (and twice [`FFT_RING_DEGREE`]) whose security bound holds
/// the modulus of [`two_stage_bits`]. For BN254 that is `N = 65536` up to
/// `n = 32768`; the two stages need the vector in one slot row, so `n <= N/2`.
pub(crate) fn two_stage_context<F: PrimeField>(n: usize) -> Result<Context> {
    if n < 4 || !n.is_power_of_two() {
        return Err(Error::InvalidArgument(format!(
            "a two-stage FFT's size must be a power of two of at least 4, got {n}"
        )));
    }
    smallest_secure_ring::<F>(n.saturating_mul(2).max(2 * FFT_RING_DEGREE), |ring| {
        two_stage_bits(ring, F::MODULUS_BIT_SIZE, n)
    })
}

/// Ciphertext-modulus bits for a [`FourStepFft`](crate::FourStepFft) of size `n`: its first
/// step as a one-level transform of up to 128 terms (the most slot rows it spans), then its
/// row FFT's two stages, each from the natural level the previous step's output is switched
/// down to (as the second stage of [`two_stage_bits`], with rows of `N/2`).
pub(crate) fn four_step_bits(ring_degree: usize, p_bits: u32, n: usize) -> u32 {
    let log_n_ring = ring_degree.max(2).ilog2();
    let row = (ring_degree / 2).clamp(2, n.max(2));
    let stage = p_bits.saturating_add(log_n_ring.div_ceil(2) + row.ilog2() + 10);
    one_level_bits(ring_degree, p_bits, 2 * MAX_CIPHERTEXTS).saturating_add(stage.saturating_mul(2))
}

/// A >= 128-bit secure context for a [`FourStepFft`](crate::FourStepFft) of size `n`: the
/// smallest ring from twice [`FFT_RING_DEGREE`] up on which `n` spans at most 128 rows of
/// `N/2` (64 ciphertexts), with the modulus of [`four_step_bits`]. For BN254 that
/// is `N = 65536` (rows of 32768) from `n = 65536` to `n = 2^22`. Smaller `n` fit one row: an
/// error names [`two_stage_context`] instead.
pub(crate) fn four_step_context<F: PrimeField>(n: usize) -> Result<Context> {
    smallest_secure_ring::<F>(four_step_ring(n)?, |ring| {
        four_step_bits(ring, F::MODULUS_BIT_SIZE, n)
    })
}

/// The smallest ring a four-step FFT of size `n` may take: from twice [`FFT_RING_DEGREE`] up,
/// `n` spanning at most [`MAX_CIPHERTEXTS`] ciphertexts of two rows of `N/2`.
fn four_step_ring(n: usize) -> Result<usize> {
    let ring = (n / MAX_CIPHERTEXTS).max(2 * FFT_RING_DEGREE);
    if !n.is_power_of_two() || n < ring {
        return Err(Error::InvalidArgument(format!(
            "a four-step FFT's size must be a power of two of at least {ring} here, got {n} \
             (smaller sizes fit one slot row: see TwoStageFft::secure_context)"
        )));
    }
    Ok(ring)
}

/// Ciphertext-modulus bits for a [`FourStepFft`](crate::FourStepFft) of size `n` whose first
/// step the owner runs ([`FirstStep::Owner`](crate::FirstStep::Owner)): fresh ciphertexts
/// through the row FFT's two stages, as a [`TwoStageFft`](crate::TwoStageFft) of size `N/2`.
pub(crate) fn row_ffts_bits(ring_degree: usize, p_bits: u32, n: usize) -> u32 {
    two_stage_bits(ring_degree, p_bits, (ring_degree / 2).clamp(2, n.max(2)))
}

/// A >= 128-bit secure context for a four-step FFT whose first step the owner runs: the
/// rings of [`four_step_context`], with the modulus of [`row_ffts_bits`].
pub(crate) fn row_ffts_context<F: PrimeField>(n: usize) -> Result<Context> {
    smallest_secure_ring::<F>(four_step_ring(n)?, |ring| {
        row_ffts_bits(ring, F::MODULUS_BIT_SIZE, n)
    })
}

/// The ring `2n` (so that a size-`n` vector fills at most half the slots and is replicated),
/// kept between [`FFT_RING_DEGREE`] and twice that; an error naming `what` unless `n` is a
/// power of two.
fn replicating_ring(n: usize, what: &str) -> Result<usize> {
    if n == 0 || !n.is_power_of_two() {
        return Err(Error::InvalidArgument(format!(
            "{what}'s size must be a power of two, got {n}"
        )));
    }
    Ok(n.saturating_mul(2)
        .clamp(FFT_RING_DEGREE, 2 * FFT_RING_DEGREE))
}

/// The context on the smallest ring from `ring` up (doubling, at most [`MAX_RING`]) that
/// holds `bits(ring)` of modulus at 128-bit security.
fn smallest_secure_ring<F: PrimeField>(
    mut ring: usize,
    bits: impl Fn(usize) -> u32,
) -> Result<Context> {
    loop {
        match Context::for_field::<F>(ring as u64, bits(ring)) {
            Err(helib_rs::Error::InsecureParameters(_)) if ring < MAX_RING => ring *= 2,
            built => return Ok(built?),
        }
    }
}

/// The most ciphertexts one vector spans ([`Layout::MAX_CIPHERTEXTS`](crate::Layout::MAX_CIPHERTEXTS)):
/// the four-step routes' 128 slot rows, which their modulus is sized for.
pub(crate) const MAX_CIPHERTEXTS: usize = 64;

/// The most polyphase components of a [`FourStepWitnessMap`](crate::FourStepWitnessMap)
/// (`n = 2^24` at `N = 65536`), which [`four_step_witness_map_bits`] is sized for.
pub(crate) const MAX_COMPONENTS: usize = 512;

/// The largest ring the contexts above try (the security table's last row).
pub(crate) const MAX_RING: usize = 131072;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn witness_map_contexts_stop_where_the_components_run_out() {
        type Fr = ark_bn254::Fr;
        assert_eq!(
            witness_map_context::<Fr>(1 << 24).unwrap().ring_degree(),
            65536
        );
        assert_eq!(
            witness_map_context::<Fr>(1 << 25).unwrap().ring_degree(),
            131072
        );
        assert!(matches!(
            witness_map_context::<Fr>(1 << 26),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn an_absurd_field_size_saturates_instead_of_wrapping() {
        assert_eq!(one_level_bits(32768, u32::MAX, 2), u32::MAX);
        assert_eq!(two_stage_bits(32768, u32::MAX, 2), u32::MAX);
    }
}
