//! Little-endian `u64` limbs, the form big integers take between Rust and the engine: shared by
//! the context, the field conversions (`field_limbs.rs`) and the plaintext NTTs, and importing
//! none of them.

use ark_ff::PrimeField;

/// Four little-endian 64-bit limbs: an element of a field of at most 256 bits.
pub(crate) type Limbs = [u64; 4];

/// `limbs` without its high zero limbs, so that moduli stored in differently sized integers
/// compare equal.
pub(crate) fn trim_high_zeros(limbs: &[u64]) -> &[u64] {
    let used = limbs.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1);
    &limbs[..used]
}

/// The modulus of `F` as little-endian limbs without high zero limbs.
pub(crate) fn modulus_limbs<F: PrimeField>() -> Vec<u64> {
    trim_high_zeros(F::MODULUS.as_ref()).to_vec()
}
