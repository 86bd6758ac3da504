//! A negacyclic number-theoretic transform over an arkworks prime field, the arithmetic core
//! of [`BatchEncoder`](crate::BatchEncoder).
//!
//! For `N` a power of two and `zeta` a primitive `2N`-th root of unity in `F`, the forward
//! transform evaluates `m(X) = sum_i a_i X^i` (a polynomial of `F[X] / (X^N + 1)`) at the `N`
//! roots of `X^N + 1`, the odd powers `zeta^(2k+1)`:
//!
//! ```text
//! m(zeta^(2k+1)) = sum_i (a_i zeta^i) omega^(ik),   omega = zeta^2 (a primitive N-th root)
//! ```
//!
//! so it is a twist by `zeta^i` followed by a cyclic radix-2 NTT with `omega`. The cyclic part
//! runs in place: decimation in frequency (Gentleman-Sande) forward, natural order in and
//! bit-reversed order out; decimation in time (Cooley-Tukey) backward, bit-reversed in and
//! natural out. Nobody needs the natural order of the evaluations (the encoder permutes them
//! into slot order anyway), so no bit-reversal pass runs at all.
//!
//! Everything that depends only on `N` — twist factors, twiddles per stage — is computed once
//! in [`NegacyclicNtt::new`]; a transform allocates nothing.

use ark_ff::{FftField, Field};

/// Precomputed tables for the negacyclic NTT of one ring degree `N` over `F`.
#[derive(Clone)]
pub(crate) struct NegacyclicNtt<F: FftField> {
    n: usize,
    /// `zeta^i`, `i < N`: the forward twist.
    twist: Vec<F>,
    /// `zeta^(-i) / N`, `i < N`: the backward untwist with the `1/N` of the inverse folded in.
    untwist: Vec<F>,
    /// Per-stage forward twiddles: entry `h + j` (for `h` a power of two below `N`, `j < h`)
    /// is `w_(2h)^j`, `w_(2h) = omega^(N / 2h)` the primitive `2h`-th root of unity. Each stage
    /// reads one contiguous run; entry 0 is unused.
    twiddles: Vec<F>,
    /// The same for `omega^(-1)`.
    inv_twiddles: Vec<F>,
}

impl<F: FftField> NegacyclicNtt<F> {
    /// Tables for ring degree `n` (a power of two, at least 2) given `zeta`, a primitive
    /// `2n`-th root of unity. The caller checks both.
    pub(crate) fn new(n: usize, zeta: F) -> Self {
        debug_assert!(n >= 2 && n.is_power_of_two());
        debug_assert_eq!(zeta.pow([n as u64]), -F::one(), "zeta^N must be -1");
        let zeta_inv = zeta.inverse().expect("a root of unity is nonzero");
        let n_inv = F::from(n as u64)
            .inverse()
            .expect("N is a power of two and the field is odd, so N is invertible");

        let twist = powers(F::one(), zeta, n);
        let untwist = powers(n_inv, zeta_inv, n);
        let omega = zeta.square();
        let twiddles = stage_twiddles(n, omega);
        let inv_twiddles = stage_twiddles(n, omega.inverse().expect("nonzero"));
        NegacyclicNtt {
            n,
            twist,
            untwist,
            twiddles,
            inv_twiddles,
        }
    }

    /// The ring degree `N`.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// Replaces the `N` coefficients `a` of `m` by its evaluations: afterwards
    /// `a[bitrev(k)] = m(zeta^(2k+1))`, `bitrev` reversing `log2(N)` bits.
    pub(crate) fn forward_bitrev(&self, a: &mut [F]) {
        assert_eq!(a.len(), self.n, "forward NTT: wrong length");
        for (x, t) in a.iter_mut().zip(&self.twist) {
            *x *= t;
        }
        // Gentleman-Sande: (u, v) -> (u + v, (u - v) w), stages h = N/2, N/4, ..., 1.
        let mut h = self.n / 2;
        while h >= 1 {
            let tw = &self.twiddles[h..2 * h];
            for block in a.chunks_exact_mut(2 * h) {
                let (lo, hi) = block.split_at_mut(h);
                for ((u, v), w) in lo.iter_mut().zip(hi.iter_mut()).zip(tw) {
                    let diff = *u - *v;
                    *u += *v;
                    *v = diff * w;
                }
            }
            h /= 2;
        }
    }

    /// The inverse of [`forward_bitrev`](Self::forward_bitrev): from `a[bitrev(k)] =
    /// m(zeta^(2k+1))` back to the `N` coefficients of `m`.
    pub(crate) fn inverse_from_bitrev(&self, a: &mut [F]) {
        assert_eq!(a.len(), self.n, "inverse NTT: wrong length");
        // Cooley-Tukey: (u, v) -> (u + v w, u - v w), stages h = 1, 2, ..., N/2.
        let mut h = 1;
        while h < self.n {
            let tw = &self.inv_twiddles[h..2 * h];
            for block in a.chunks_exact_mut(2 * h) {
                let (lo, hi) = block.split_at_mut(h);
                for ((u, v), w) in lo.iter_mut().zip(hi.iter_mut()).zip(tw) {
                    let t = *v * w;
                    *v = *u - t;
                    *u += t;
                }
            }
            h *= 2;
        }
        for (x, t) in a.iter_mut().zip(&self.untwist) {
            *x *= t;
        }
    }
}

/// `start * step^i` for `i < len`.
fn powers<F: Field>(start: F, step: F, len: usize) -> Vec<F> {
    let mut out = Vec::with_capacity(len);
    let mut x = start;
    for _ in 0..len {
        out.push(x);
        x *= step;
    }
    out
}

/// The per-stage twiddle layout described at [`NegacyclicNtt::twiddles`], for a primitive
/// `n`-th root of unity `omega`.
fn stage_twiddles<F: Field>(n: usize, omega: F) -> Vec<F> {
    let mut tw = vec![F::zero(); n];
    // The last (largest) stage, h = N/2, uses omega itself ...
    let half = n / 2;
    tw[half..].copy_from_slice(&powers(F::one(), omega, half));
    // ... and each smaller stage every other power of the one above: w_(2h)^j = w_(4h)^(2j).
    let mut h = half / 2;
    while h >= 1 {
        for j in 0..h {
            tw[h + j] = tw[2 * h + 2 * j];
        }
        h /= 2;
    }
    tw
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::UniformRand;

    fn zeta(n: usize) -> Fr {
        let log = (2 * n).trailing_zeros();
        Fr::TWO_ADIC_ROOT_OF_UNITY.pow([1u64 << (Fr::TWO_ADICITY - log)])
    }

    fn bitrev(k: usize, bits: u32) -> usize {
        k.reverse_bits() >> (usize::BITS - bits)
    }

    #[test]
    fn forward_is_evaluation_at_odd_powers_and_inverse_undoes_it() {
        let mut rng = ark_std::test_rng();
        for log_n in 1..=7u32 {
            let n = 1usize << log_n;
            let z = zeta(n);
            let ntt = NegacyclicNtt::new(n, z);
            assert_eq!(ntt.len(), n);
            let coeffs: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let mut a = coeffs.clone();
            ntt.forward_bitrev(&mut a);
            for k in 0..n {
                let x = z.pow([(2 * k + 1) as u64]);
                let naive = coeffs
                    .iter()
                    .rev()
                    .fold(Fr::from(0u64), |acc, c| acc * x + c);
                assert_eq!(a[bitrev(k, log_n)], naive, "n = {n}, k = {k}");
            }
            ntt.inverse_from_bitrev(&mut a);
            assert_eq!(a, coeffs, "n = {n}");
        }
    }
}
