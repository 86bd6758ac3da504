//! Helpers shared by the `bigp-he` examples and benchmarks.
//!
//! Everything here is plain (unencrypted) reference arithmetic over a prime field, used to
//! check what the homomorphic operations of `helib-rs` compute, and the command line of the
//! example tours ([`demo`]).

/// The README's code blocks, compiled (and the quick ones run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub mod cli;
pub mod demo;
pub mod field_text;
pub mod groth16_files;
pub mod job;
pub mod mailbox;
pub mod outsource;

use std::time::{Duration, Instant};

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

/// The quotient polynomial `h` of a QAP prover from the evaluations `a`, `b`, `c` of `A`, `B`,
/// `C` on the subgroup `H` of size `n = a.len()`, computed step by step as ark-groth16's
/// `LibsnarkReduction::witness_map` does: `coset.ifft((a' b' - c') / Z_H(g))` with `a' =
/// coset.fft(H.ifft(a))` (and `b'`, `c'` alike) on the coset `g H`. The plain reference for the
/// witness maps. Returns `None` if the three lengths differ, `n` has no radix-2 domain,
/// or `g` lies in `H` (or is 0).
pub fn plain_quotient<F: FftField>(a: &[F], b: &[F], c: &[F], g: F) -> Option<Vec<F>> {
    let n = a.len();
    if b.len() != n || c.len() != n {
        return None;
    }
    let h = Radix2EvaluationDomain::<F>::new(n).filter(|d| d.size() == n)?;
    let coset = h.get_coset(g)?;
    let z_inv = h.evaluate_vanishing_polynomial(g).inverse()?;
    let [a, b, c] = [a, b, c].map(|v| coset.fft(&h.ifft(v)));
    let q: Vec<F> = (0..n).map(|i| (a[i] * b[i] - c[i]) * z_inv).collect();
    Some(coset.ifft(&q))
}

/// The result of `once` and the median time of repeated runs (at least 5, for about 0.2 s):
/// how the examples time the plain arkworks computation they compare with.
pub fn median_time<T>(once: impl Fn() -> T) -> (T, Duration) {
    let mut times = Vec::new();
    let start = Instant::now();
    let mut out = once();
    while times.len() < 5 || (start.elapsed() < Duration::from_millis(200) && times.len() < 1001) {
        let t = Instant::now();
        out = once();
        times.push(t.elapsed());
    }
    times.sort();
    (out, times[times.len() / 2])
}

pub use helib_rs::peak_rss_bytes;

/// Lets a write to a closed standard output end the process quietly, as it does a C tool's
/// (`fft | head -3`), instead of panicking in `println!`: Rust ignores `SIGPIPE`, so the
/// write fails and the print macros panic. Called first by the examples' `main`s.
pub fn end_quietly_on_closed_stdout() {
    #[cfg(unix)]
    // SAFETY: restores the default disposition of one signal before any thread starts; no
    // handler of ours is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Asks the allocator to keep freed buffers for reuse ([`helib_rs::retain_freed_memory`]), so
/// long computations and their timings skip the page faults of fresh memory. Best effort:
/// where the allocator has no such control (not glibc, or a sanitizer's allocator), it says so
/// on standard error and the program goes on.
pub fn reuse_freed_memory() {
    if let Err(e) = helib_rs::retain_freed_memory() {
        eprintln!("note: {e}; freed memory goes back to the OS, so timings include page faults");
    }
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

    /// Constraints that hold (c = a b on H) leave a quotient of degree at most n - 2, and
    /// h Z_H = A B - C at a point off H.
    #[test]
    fn quotient_divides_exactly() {
        use ark_ff::{Field, UniformRand};
        use ark_std::rand::{rngs::StdRng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(5);
        let n = 16;
        let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let g = Fr::from(5u64);
        let h = plain_quotient(&a, &b, &c, g).expect("quotient");
        assert_eq!(h[n - 1], Fr::from(0u64));
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let eval = |coeffs: &[Fr], x: Fr| {
            coeffs
                .iter()
                .rev()
                .fold(Fr::from(0u64), |acc, &k| acc * x + k)
        };
        let x = Fr::from(1234567u64);
        let [pa, pb, pc] = [&a, &b, &c].map(|v| domain.ifft(v));
        let z = x.pow([n as u64]) - Fr::from(1u64);
        assert_eq!(eval(&h, x) * z, eval(&pa, x) * eval(&pb, x) - eval(&pc, x));
        assert!(plain_quotient(&a, &b[1..], &c, g).is_none());
        assert!(
            plain_quotient(&a, &b, &c, domain.group_gen()).is_none(),
            "g in H"
        );
    }
}
