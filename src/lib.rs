//! Helpers shared by the `bigp-he` examples and benchmarks.
//!
//! Everything here is plain (unencrypted) reference arithmetic over a prime field, used to
//! check what the homomorphic operations of `helib-rs` compute.

use ark_ff::Field;

/// The product of two polynomials in `F[X] / (X^n + 1)`, both given by their `n` coefficients
/// (lowest degree first); shorter inputs are zero-padded to `n`. Schoolbook, O(n^2): meant
/// for checking results, not for speed.
///
/// Wrapping past degree `n` flips the sign because `X^n = -1` in this ring.
pub fn negacyclic_mul<F: Field>(a: &[F], b: &[F], n: usize) -> Vec<F> {
    let mut out = vec![F::zero(); n];
    for (i, &ai) in a.iter().enumerate().take(n) {
        if ai.is_zero() {
            continue;
        }
        for (j, &bj) in b.iter().enumerate().take(n) {
            let k = i + j;
            if k < n {
                out[k] += ai * bj;
            } else {
                out[k - n] -= ai * bj;
            }
        }
    }
    out
}
