//! Helpers shared by the `bigp-he` examples and benchmarks.
//!
//! Everything here is plain (unencrypted) reference arithmetic over a prime field, used to
//! check what the homomorphic operations of `helib-rs` compute, and the command line of the
//! example tours ([`demo`]).

pub mod demo;

use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};

/// The product of two polynomials in `F[X] / (X^n + 1)` (coefficients lowest degree first;
/// shorter inputs are zero-padded to `n`, `n` a power of two).
///
/// Computed with an arkworks FFT of size `2n` and folded with `X^n = -1`, so it is an
/// implementation independent of the encrypted engine. Returns `None` if `F` has no
/// `2n`-point FFT domain or an input is longer than `n`.
pub fn negacyclic_mul<F: FftField>(a: &[F], b: &[F], n: usize) -> Option<Vec<F>> {
    if a.len() > n || b.len() > n {
        return None;
    }
    let domain = Radix2EvaluationDomain::<F>::new(2 * n)?;
    if domain.size() != 2 * n {
        return None;
    }
    let mut fa = a.to_vec();
    fa.resize(2 * n, F::zero());
    let mut fb = b.to_vec();
    fb.resize(2 * n, F::zero());
    domain.fft_in_place(&mut fa);
    domain.fft_in_place(&mut fb);
    for (x, y) in fa.iter_mut().zip(&fb) {
        *x *= y;
    }
    domain.ifft_in_place(&mut fa);
    Some((0..n).map(|i| fa[i] - fa[i + n]).collect())
}

/// Coefficient-wise `a + b` (the shorter input zero-padded).
pub fn poly_add<F: FftField>(a: &[F], b: &[F]) -> Vec<F> {
    let mut out = vec![F::zero(); a.len().max(b.len())];
    for (i, x) in out.iter_mut().enumerate() {
        *x = a.get(i).copied().unwrap_or_default() + b.get(i).copied().unwrap_or_default();
    }
    out
}

/// The slot vector `v` (two rows of `v.len() / 2`, as `helib_rs::BatchEncoder` lays them out)
/// with both rows rotated left by `k` (right by `|k|` for a negative `k`): slot `j` of a row
/// takes the value of slot `j + k` of the same row, cyclically. The plain reference for
/// `Ctxt::rotate_rows`. `v.len()` must be even and non-zero.
pub fn rotate_slot_rows<T: Copy>(v: &[T], k: i64) -> Vec<T> {
    let half = v.len() / 2;
    let shift = i128::from(k).rem_euclid(half as i128) as usize;
    v.chunks(half)
        .flat_map(|row| row[shift..].iter().chain(&row[..shift]).copied())
        .collect()
}

/// The slot vector `v` with its two rows exchanged: the plain reference for
/// `Ctxt::swap_rows`.
pub fn swap_slot_rows<T: Copy>(v: &[T]) -> Vec<T> {
    let half = v.len() / 2;
    v[half..].iter().chain(&v[..half]).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn wraps_with_a_sign_flip() {
        // X^3 * X^2 = X^5 = -X in F[X]/(X^4 + 1).
        let x3 = [
            Fr::from(0u64),
            Fr::from(0u64),
            Fr::from(0u64),
            Fr::from(1u64),
        ];
        let x2 = [Fr::from(0u64), Fr::from(0u64), Fr::from(1u64)];
        let got = negacyclic_mul(&x3, &x2, 4).expect("domain exists");
        assert_eq!(
            got,
            vec![
                Fr::from(0u64),
                -Fr::from(1u64),
                Fr::from(0u64),
                Fr::from(0u64)
            ]
        );
        // (1 + 2X)(3 + 4X) = 3 + 10X + 8X^2
        let a = [Fr::from(1u64), Fr::from(2u64)];
        let b = [Fr::from(3u64), Fr::from(4u64)];
        let got = negacyclic_mul(&a, &b, 4).expect("domain exists");
        assert_eq!(
            got,
            vec![
                Fr::from(3u64),
                Fr::from(10u64),
                Fr::from(8u64),
                Fr::from(0u64)
            ]
        );
        assert!(negacyclic_mul(&a, &b, 1).is_none(), "inputs longer than n");
    }

    #[test]
    fn slot_rows_rotate_and_swap() {
        let v = [0, 1, 2, 3, 10, 11, 12, 13];
        assert_eq!(rotate_slot_rows(&v, 1), [1, 2, 3, 0, 11, 12, 13, 10]);
        assert_eq!(rotate_slot_rows(&v, -1), [3, 0, 1, 2, 13, 10, 11, 12]);
        assert_eq!(rotate_slot_rows(&v, 6), rotate_slot_rows(&v, 2));
        assert_eq!(rotate_slot_rows(&v, 0), v);
        assert_eq!(rotate_slot_rows(&v, i64::MIN), v);
        assert_eq!(swap_slot_rows(&v), [10, 11, 12, 13, 0, 1, 2, 3]);
    }
}
