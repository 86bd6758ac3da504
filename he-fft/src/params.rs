//! Parameter selection for encrypted FFTs.

use ark_ff::PrimeField;
use helib_rs::{Context, Result};

/// The ring degree of [`fft_context`]: the smallest power of two whose 128-bit security
/// bound (881 bits of `log2 QP` at `N = 32768`) fits a one-level transform over a 254-bit
/// field with hybrid key switching.
pub const FFT_RING_DEGREE: usize = 32768;

/// Ciphertext-modulus bits for a one-level transform of size `n`: a fresh ciphertext's
/// noise (about `p * N`), times a plaintext diagonal (canonical norm about `p sqrt(N)`),
/// summed over up to `n` diagonals, plus key-switching noise and a safety margin.
pub fn required_ciphertext_bits(ring_degree: usize, p_bits: u32, n: usize) -> u32 {
    let log_n_ring = ring_degree.max(2).ilog2();
    let log_terms = n.max(2).ilog2();
    // Saturating, so an absurd p_bits gives a modulus no context accepts instead of wrapping.
    p_bits
        .saturating_mul(2)
        .saturating_add((3 * log_n_ring) / 2 + log_terms + 40)
}

/// A >= 128-bit secure context for transforms of size `n` over `F`: ring degree
/// [`FFT_RING_DEGREE`], the modulus from [`required_ciphertext_bits`], and the fewest
/// key-switching digits that keep `log2 QP` within the security bound.
pub fn fft_context<F: PrimeField>(n: usize) -> Result<Context> {
    let bits = required_ciphertext_bits(FFT_RING_DEGREE, F::MODULUS_BIT_SIZE, n);
    Context::for_field::<F>(FFT_RING_DEGREE as u64, bits)
}

/// A >= 128-bit secure context for [`Fft::coset_change`](crate::Fft::coset_change) of size
/// `n`: ring degree `2n` (at least [`FFT_RING_DEGREE`], at most 65536) so that up to
/// `n = 32768` the vector is replicated and the circulant diagonals are constants per row,
/// and the modulus from [`required_ciphertext_bits`].
///
/// ```
/// assert_eq!(he_fft::coset_change_context::<ark_bn254::Fr>(32768)?.ring_degree(), 65536);
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub fn coset_change_context<F: PrimeField>(n: usize) -> Result<Context> {
    if n == 0 || !n.is_power_of_two() {
        return Err(helib_rs::Error::InvalidArgument(format!(
            "a coset change's size must be a power of two, got {n}"
        )));
    }
    let ring = n
        .saturating_mul(2)
        .clamp(FFT_RING_DEGREE, 2 * FFT_RING_DEGREE);
    let bits = required_ciphertext_bits(ring, F::MODULUS_BIT_SIZE, n);
    Context::for_field::<F>(ring as u64, bits)
}

/// Ciphertext-modulus bits for a [`Quotient`](crate::Quotient) of size `n`: two transforms'
/// growth (see [`required_ciphertext_bits`]) around one ciphertext product, whose operands
/// are first switched down to the modulus-switching floor (about `p sqrt(N)`), plus the
/// margin once.
pub fn quotient_ciphertext_bits(ring_degree: usize, p_bits: u32, n: usize) -> u32 {
    let one_level = required_ciphertext_bits(ring_degree, p_bits, n).saturating_sub(40);
    one_level.saturating_mul(2).saturating_add(40)
}

/// A >= 128-bit secure context for a [`Quotient`](crate::Quotient) of size `n`: the smallest
/// ring of at least `2n` (and [`FFT_RING_DEGREE`]) whose security bound holds the modulus of
/// [`quotient_ciphertext_bits`]. For BN254 that is `N = 65536` up to `n = 32768` (three
/// levels do not fit `N = 32768`); larger `n` run on it too, by the general route.
///
/// ```
/// assert_eq!(he_fft::quotient_context::<ark_bn254::Fr>(1024)?.ring_degree(), 65536);
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub fn quotient_context<F: PrimeField>(n: usize) -> Result<Context> {
    if n == 0 || !n.is_power_of_two() {
        return Err(helib_rs::Error::InvalidArgument(format!(
            "a quotient's size must be a power of two, got {n}"
        )));
    }
    let mut ring = n
        .saturating_mul(2)
        .clamp(FFT_RING_DEGREE, 2 * FFT_RING_DEGREE);
    loop {
        let bits = quotient_ciphertext_bits(ring, F::MODULUS_BIT_SIZE, n);
        match Context::for_field::<F>(ring as u64, bits) {
            Err(helib_rs::Error::InsecureParameters(_)) if ring < MAX_QUOTIENT_RING => ring *= 2,
            built => return built,
        }
    }
}

/// The largest ring [`quotient_context`] tries (the security table's last row).
const MAX_QUOTIENT_RING: usize = 131072;
