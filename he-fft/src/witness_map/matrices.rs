//! The witness map's matrices: the points its slots stand for, and its three stage matrices
//! (an inverse FFT's two stages, then the evaluation of `A` and `B` at those points).

use ark_ff::{batch_inversion, FftField, Field, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{BatchEncoder, Context};

use crate::error::{Error, Result};
use crate::fft::matrices::powers_of;
use crate::Matrix;

/// The evaluation point of slot `t < n` of each slot row for polynomials in
/// `Y = X^(N / 2n)`: `zeta^(e N / 2n)` for the slot's exponent `e`.
pub(crate) fn slot_points<F: FftField + PrimeField>(
    ctx: &Context,
    n: usize,
) -> Result<[Vec<F>; 2]> {
    let ring = ctx.ring_degree();
    let encoder = BatchEncoder::<F>::new(ring)?;
    let exponents = encoder.slot_exponents();
    let psi = encoder.root_of_unity().pow([(ring / (2 * n)) as u64]);
    let modulus = 4 * n as u64;
    let row = |r: usize| -> Vec<F> {
        exponents[r * ring / 2..r * ring / 2 + n]
            .iter()
            .map(|&e| psi.pow([e % modulus]))
            .collect()
    };
    Ok([row(0), row(1)])
}

pub(crate) fn points_pow<F: Field>(points: &[Vec<F>; 2], e: usize) -> [Vec<F>; 2] {
    let e = [e as u64];
    [0, 1].map(|r| points[r].iter().map(|p| p.pow(e)).collect())
}

/// The three stage matrices on vectors of `dim = copies n` slots (`a`, then `b` if `copies`
/// is 2): stage 1 `dim x dim`, stages 2 and 3 `2 dim x 2 dim` with one block per slot row.
/// Slot `t` is the row, slot `s` the column; `n = n1 n2`; `p_t` is slot `t`'s point (`points`)
/// and `P_t = p_t^copies` the point `A` and `B` are evaluated at.
/// 1. For each copy, `t = s mod n1`: `w^(-(t / n1) s)` (a two-stage inverse FFT's strided
///    stage: slot `j1 + n1 i` then holds `w^(-j1 i) sum_j2 a[j1 + n1 j2] w^(-n1 j2 i)`),
///    written `shift` slots further on (and stage 2 reads it there).
/// 2. `t` and `s` in one block of `n1`: `(Q^n1 - 1) / (n (Q w^(-n2 j1) - 1))` with `Q` the
///    row's `P^n2` at `t mod n1` and `j1 = s mod n1`, which sums the inverse FFT's block stage
///    against the powers of `Q` (slot `k + n1 m` then holds `A_m(Q_k)`, and `B_(m - n2)(Q_k)`
///    from `m = n2` on).
/// 3. `t = s mod n1`, `m = s / n1`: `P_t^(m mod n2) p_t^(m / n2)`, halved when packed, which
///    makes `A(P_t)` (one copy) or `(A(P_t) + p_t B(P_t)) / 2` (two).
pub(crate) fn stage_matrices<F: FftField + PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    n1: usize,
    copies: usize,
    shift: usize,
    points: &[Vec<F>; 2],
    q: &[Vec<F>; 2],
) -> Result<[Matrix<F>; 3]> {
    let n = domain.size();
    let n2 = n / n1;
    let dim = copies * n;
    let w_inv = powers_of(domain.group_gen_inv(), F::one(), n);
    let stage1 = Matrix::from_fn(dim, move |t, s| {
        let t = (t + dim - shift) % dim;
        if t / n != s / n || t % n1 != s % n1 {
            return F::zero();
        }
        w_inv[((t % n / n1) * (s % n)) % n]
    })?;

    // inv[r][k n1 + j1] = 1 / (Q_rk w^(-n2 j1) - 1), scale[r][k] = (Q_rk^n1 - 1) / n.
    let w_n2_inv = powers_of(domain.group_gen_inv().pow([n2 as u64]), F::one(), n1);
    let mut inv: [Vec<F>; 2] = [0, 1].map(|r| {
        (0..n1 * n1)
            .map(|i| q[r][i / n1] * w_n2_inv[i % n1] - F::one())
            .collect()
    });
    for v in &mut inv {
        if v.iter().any(|x| x.is_zero()) {
            return Err(Error::Internal(
                "a slot point lies on the subgroup: the witness map's sums are undefined".into(),
            ));
        }
        batch_inversion(v);
    }
    let n_inv = domain.size_inv();
    let scale: [Vec<F>; 2] = [0, 1].map(|r| {
        (0..n1)
            .map(|k| (q[r][k].pow([n1 as u64]) - F::one()) * n_inv)
            .collect()
    });
    let stage2 = Matrix::from_fn(2 * dim, move |row, col| {
        let (r, t, s) = (row / dim, row % dim, (col + dim - shift) % dim);
        if col / dim != r || t / n1 != s / n1 {
            return F::zero();
        }
        let k = t % n1;
        scale[r][k] * inv[r][k * n1 + s % n1]
    })?
    .with_shift_period(n1);

    let half = if copies == 2 {
        F::from(2u64)
            .inverse()
            .ok_or_else(|| Error::Internal("2 is not invertible in the plaintext field".into()))?
    } else {
        F::one()
    };
    let powers = PointPowers::new(points, copies, n2, half);
    let stage3 = Matrix::from_fn(2 * dim, move |row, col| {
        let (r, t, s) = (row / dim, row % dim, col % dim);
        if col / dim != r || t % n1 != s % n1 {
            return F::zero();
        }
        let m = s / n1;
        powers.at(r, t, m % n2, m / n2)
    })?;
    Ok([stage1, stage2, stage3])
}

/// `half p_t^(copies i + h)` for every slot `t` of both rows, `i < n2` and `h < copies`, in
/// two or three field products: the diagonals encoded on demand evaluate every entry of stage
/// 3 once per witness map, and a power each (a dozen products) made that encoding as costly
/// as a fifth of the rotations. `P = p^copies`, and `P^i = low[i mod L] high[i / L]` with
/// `L` about `sqrt(n2)`: `2 sqrt(n2)` values per slot instead of `n2`.
struct PointPowers<F> {
    /// Per row: `p_t`.
    points: [Vec<F>; 2],
    /// Per row, `L` values per slot: `half P_t^j`, `j < L`.
    low: [Vec<F>; 2],
    /// Per row, `n2 / L` values per slot: `P_t^(L j)`.
    high: [Vec<F>; 2],
    span: usize,
    highs: usize,
}

impl<F: Field> PointPowers<F> {
    fn new(points: &[Vec<F>; 2], copies: usize, n2: usize, half: F) -> Self {
        let span = 1 << n2.ilog2().div_ceil(2);
        let highs = n2.div_ceil(span);
        let tables = |r: usize| -> (Vec<F>, Vec<F>) {
            let mut low = Vec::with_capacity(points[r].len() * span);
            let mut high = Vec::with_capacity(points[r].len() * highs);
            for p in &points[r] {
                let big_p = p.pow([copies as u64]);
                let mut x = half;
                for _ in 0..span {
                    low.push(x);
                    x *= big_p;
                }
                let step = big_p.pow([span as u64]);
                let mut y = F::one();
                for _ in 0..highs {
                    high.push(y);
                    y *= step;
                }
            }
            (low, high)
        };
        let [(l0, h0), (l1, h1)] = [0, 1].map(tables);
        PointPowers {
            points: points.clone(),
            low: [l0, l1],
            high: [h0, h1],
            span,
            highs,
        }
    }

    /// `half p_t^(copies i + h)` in row `r`.
    fn at(&self, r: usize, t: usize, i: usize, h: usize) -> F {
        let v = self.low[r][t * self.span + i % self.span]
            * self.high[r][t * self.highs + i / self.span];
        if h == 0 {
            v
        } else {
            v * self.points[r][t]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_points_are_roots_of_y_2n_plus_1() {
        let ctx = Context::builder()
            .ring_degree(2048)
            .plaintext_field::<ark_bn254::Fr>()
            .ciphertext_bits(600)
            .allow_insecure(true)
            .build()
            .unwrap();
        for n in [2usize, 8, 64, 1024] {
            let p = slot_points::<ark_bn254::Fr>(&ctx, n).unwrap();
            for row in &p {
                for x in row {
                    assert_eq!(x.pow([2 * n as u64]), -ark_bn254::Fr::from(1u64));
                }
            }
        }
    }
}
