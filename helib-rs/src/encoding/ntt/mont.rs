//! The encoder's fast path: the negacyclic NTT of [`ntt_field`](crate::encoding::ntt_field) for fields
//! whose modulus fits four 64-bit limbs with two bits to spare (`p < 2^254`, BN254's scalar
//! field among them), on plain little-endian integers instead of arkworks field elements.
//!
//! Why plain integers: every twiddle is stored in Montgomery form `w R mod p` (`R = 2^256`),
//! and a Montgomery product of a plain `x` with it is the plain `x w mod p`. So the data never
//! enters Montgomery form: the engine's limbs go in and come out without a conversion per
//! element, and the transform allocates nothing.
//!
//! Why faster than arkworks' arithmetic: values stay lazily reduced in `[0, 2p)` (the spare
//! bits make room for the sums), the twist by `zeta^i` is merged into the twiddles (the
//! negacyclic transform of Longa and Naehrig) and the `1/N` of the inverse into its last stage,
//! and stages run cache-blocked: once a butterfly span fits [`BLOCK`] elements, a block finishes
//! all its remaining stages while it sits in L2.
//!
//! The output order and values are those of
//! [`NegacyclicNtt`](crate::encoding::ntt::field::NegacyclicNtt): after `forward_bitrev`,
//! `a[bitrev(k)] = m(zeta^(2k+1))`.

use ark_ff::{FftField, Field, PrimeField};

pub(crate) use crate::limbs::Limbs;

/// Elements per cache block: 8192 x 32 bytes = 256 KiB, half of this machine class's L2.
const BLOCK: usize = 8192;

/// Precomputed tables for one ring degree `N`.
#[derive(Clone)]
pub(crate) struct MontNtt {
    n: usize,
    p: Limbs,
    two_p: Limbs,
    /// `-p^(-1) mod 2^64`.
    p_neg_inv: u64,
    /// `zeta^bitrev(i) R mod p` for `0 < i < N` (entry 0 unused): the forward twiddles.
    fwd: Vec<Limbs>,
    /// `zeta^(-bitrev(i)) R mod p`: the inverse twiddles.
    inv: Vec<Limbs>,
    /// `N^(-1) R mod p` and `zeta^(-bitrev(1)) N^(-1) R mod p`: the inverse's last stage.
    n_inv: Limbs,
    last_inv: Limbs,
    /// The same without the factor `R`, for inputs in Montgomery form: the last stage then
    /// divides their `R` out for free.
    #[cfg_attr(not(feature = "bn254"), allow(dead_code))]
    n_inv_plain: Limbs,
    #[cfg_attr(not(feature = "bn254"), allow(dead_code))]
    last_inv_plain: Limbs,
    /// Whether the Montgomery products run as BMI2/ADX assembly (see [`mont_asm`](crate::encoding::mont_asm)).
    adx: bool,
    /// The inverse transform on AVX2 and FMA (see [`ntt_simd`](crate::encoding::ntt_simd)), when the CPU
    /// has both and `N >= 16`.
    #[cfg(target_arch = "x86_64")]
    simd: Option<std::sync::Arc<crate::encoding::ntt::simd::SimdInverse>>,
}

impl MontNtt {
    /// Tables for ring degree `n` (a power of two, at least 2) and `zeta` a primitive `2n`-th
    /// root of unity, or `None` when `F`'s modulus does not fit the fast path.
    pub(crate) fn new<F: PrimeField + FftField>(n: usize, zeta: F) -> Option<Self> {
        let p = limbs_of::<F>(&F::MODULUS)?;
        if p[3] >> 62 != 0 {
            return None;
        }
        let two_p = add(&p, &p).0;
        let r = F::from(2u64).pow([256u64]);
        // Every conversion below succeeds once the modulus has four limbs; the `?`s keep this
        // total anyway (as do the inverses, which exist: zeta is a root of unity and N is a unit in an odd field).
        // A `fn` over references, not a by-value closure: rustc 1.95 merges identical by-value
        // closure arguments and miscompiled such a closure here (rust-lang/rust#155241).
        let mont = |x: &F| to_montgomery(x, &r);
        let zeta_inv = zeta.inverse()?;
        let n_inv = F::from(n as u64).inverse()?;

        let bits = n.trailing_zeros();
        let bitrev = |i: usize| i.reverse_bits() >> (usize::BITS - bits);
        let fwd_f = powers(zeta, n);
        let inv_f = powers(zeta_inv, n);
        let fwd = (0..n)
            .map(|i| mont(&fwd_f[bitrev(i)]))
            .collect::<Option<_>>()?;
        let inv = (0..n)
            .map(|i| mont(&inv_f[bitrev(i)]))
            .collect::<Option<_>>()?;
        let last_inv_f = inv_f[bitrev(1)] * n_inv;
        #[cfg(target_arch = "x86_64")]
        let simd = if n < 16 || !crate::encoding::ntt::simd::simd_available() {
            // Skips the tables' set-up where they would go unused.
            None
        } else {
            // Each multiplier with w 2^260 mod p, from which the SIMD path derives its quotient.
            let two_260 = F::from(2u64).pow([260u64]);
            let shoup = |x: &F| shoup_pair(x, &two_260);
            let inv_plain = (0..n)
                .map(|i| shoup(&inv_f[bitrev(i)]))
                .collect::<Option<Vec<_>>>()?;
            let r_inv = r.inverse()?;
            crate::encoding::ntt::simd::SimdInverse::new(
                &p,
                &inv_plain,
                [shoup(&n_inv)?, shoup(&last_inv_f)?],
                [shoup(&(n_inv * r_inv))?, shoup(&(last_inv_f * r_inv))?],
            )
            .map(std::sync::Arc::new)
        };
        Some(MontNtt {
            n,
            p,
            two_p,
            p_neg_inv: neg_inverse_mod_2_64(p[0]),
            fwd,
            inv,
            n_inv: mont(&n_inv)?,
            last_inv: mont(&last_inv_f)?,
            n_inv_plain: limbs_of::<F>(&n_inv.into_bigint())?,
            last_inv_plain: limbs_of::<F>(&last_inv_f.into_bigint())?,
            adx: adx_available(),
            #[cfg(target_arch = "x86_64")]
            simd,
        })
    }

    /// The ring degree `N`.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// From coefficients (each below `2p`) to evaluations in bit-reversed order (each below
    /// `2p`), as [`NegacyclicNtt::forward_bitrev`](crate::encoding::ntt::field::NegacyclicNtt).
    pub(crate) fn forward_bitrev(&self, a: &mut [Limbs]) {
        assert_eq!(a.len(), self.n, "forward NTT: wrong length");
        if self.adx {
            self.forward_with::<true>(a)
        } else {
            self.forward_with::<false>(a)
        }
    }

    fn forward_with<const ADX: bool>(&self, a: &mut [Limbs]) {
        // Cooley-Tukey: (x, y) -> (x + y w, x - y w); stage m has m groups of span 2t, t = N/2m.
        let block = BLOCK.min(self.n);
        let mut m = 1;
        while m < self.n && self.n / m > block {
            self.forward_stage::<ADX>(a, m, 0, self.n);
            m *= 2;
        }
        for start in (0..self.n).step_by(block) {
            let mut mb = m;
            while mb < self.n {
                self.forward_stage::<ADX>(a, mb, start, block);
                mb *= 2;
            }
        }
    }

    /// The inverse of [`forward_bitrev`](Self::forward_bitrev): from evaluations in
    /// bit-reversed order (each below `2p`) to canonical coefficients (each below `p`).
    pub(crate) fn inverse_from_bitrev(&self, a: &mut [Limbs]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = &self.simd {
            return simd.inverse(a, false);
        }
        self.inverse_scaled(a, &self.n_inv, &self.last_inv)
    }

    /// [`inverse_from_bitrev`](Self::inverse_from_bitrev) for inputs in Montgomery form
    /// (`x R mod p`, each below `2p`, as arkworks stores field elements): the outputs are the
    /// same plain coefficients, so the caller skips converting every input out of that form.
    #[cfg_attr(not(feature = "bn254"), allow(dead_code))]
    pub(crate) fn inverse_from_bitrev_montgomery(&self, a: &mut [Limbs]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = &self.simd {
            return simd.inverse(a, true);
        }
        self.inverse_scaled(a, &self.n_inv_plain, &self.last_inv_plain)
    }

    /// The inverse transform with last-stage factors `first` (for the sums) and `second` (for
    /// the differences), both in Montgomery form for plain inputs.
    fn inverse_scaled(&self, a: &mut [Limbs], first: &Limbs, second: &Limbs) {
        assert_eq!(a.len(), self.n, "inverse NTT: wrong length");
        if self.adx {
            self.inverse_with::<true>(a, first, second)
        } else {
            self.inverse_with::<false>(a, first, second)
        }
    }

    fn inverse_with<const ADX: bool>(&self, a: &mut [Limbs], first: &Limbs, second: &Limbs) {
        // Gentleman-Sande: (x, y) -> (x + y, (x - y) w); stage m (m = N/2t groups of span 2t)
        // from t = 1 up. The last stage (m = 1) also multiplies by 1/N.
        let mut m = self.n / 2;
        let block = BLOCK.min(self.n);
        for start in (0..self.n).step_by(block) {
            let mut mb = m;
            while mb > 1 && self.n / mb <= block {
                self.inverse_stage::<ADX>(a, mb, start, block);
                mb /= 2;
            }
        }
        while m > 1 && self.n / m <= block {
            m /= 2;
        }
        while m > 1 {
            self.inverse_stage::<ADX>(a, m, 0, self.n);
            m /= 2;
        }
        let t = self.n / 2;
        let (lo, hi) = a.split_at_mut(t);
        // Canonical outputs here save every caller a separate pass over the array.
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let s = self.add_reduce(x, y);
            let d = self.sub_reduce(x, y);
            *x = cond_sub(&self.mul::<ADX>(&s, first), &self.p);
            *y = cond_sub(&self.mul::<ADX>(&d, second), &self.p);
        }
    }

    /// Replaces `x` (below `2p`) by its canonical residue in `[0, p)`.
    pub(crate) fn canonical(&self, x: &mut Limbs) {
        *x = cond_sub(x, &self.p);
    }

    /// The forward stage with `m` groups, restricted to `a[start..start + len]` (whole groups).
    fn forward_stage<const ADX: bool>(&self, a: &mut [Limbs], m: usize, start: usize, len: usize) {
        let t = self.n / (2 * m);
        let first_group = start / (2 * t);
        for (g, group) in a[start..start + len].chunks_exact_mut(2 * t).enumerate() {
            let w = &self.fwd[m + first_group + g];
            let (lo, hi) = group.split_at_mut(t);
            for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                let v = self.mul::<ADX>(y, w);
                *y = self.sub_reduce(x, &v);
                *x = self.add_reduce(x, &v);
            }
        }
    }

    /// The inverse stage with `m` groups, restricted to `a[start..start + len]`.
    fn inverse_stage<const ADX: bool>(&self, a: &mut [Limbs], m: usize, start: usize, len: usize) {
        let t = self.n / (2 * m);
        let first_group = start / (2 * t);
        for (g, group) in a[start..start + len].chunks_exact_mut(2 * t).enumerate() {
            let w = &self.inv[m + first_group + g];
            let (lo, hi) = group.split_at_mut(t);
            for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                let d = self.sub_reduce(x, y);
                *x = self.add_reduce(x, y);
                *y = self.mul::<ADX>(&d, w);
            }
        }
    }

    /// `x + y` reduced to `[0, 2p)`, for `x, y < 2p`.
    #[inline(always)]
    fn add_reduce(&self, x: &Limbs, y: &Limbs) -> Limbs {
        cond_sub(&add(x, y).0, &self.two_p)
    }

    /// `x - y` reduced to `[0, 2p)`, for `x, y < 2p`: `x + (2p - y)`, below `4p < 2^256`.
    #[inline(always)]
    fn sub_reduce(&self, x: &Limbs, y: &Limbs) -> Limbs {
        cond_sub(&add(x, &sub(&self.two_p, y).0).0, &self.two_p)
    }

    /// [`mont_mul`](Self::mont_mul), as assembly when `ADX` (which the caller sets only when
    /// [`adx`](Self::adx) says the CPU has the instructions).
    #[inline(always)]
    fn mul<const ADX: bool>(&self, x: &Limbs, y: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        if ADX {
            // SAFETY: ADX is only true on a path chosen because `adx_available()` held.
            return unsafe {
                crate::encoding::ntt::mont_asm::mont_mul(x, y, &self.p, self.p_neg_inv)
            };
        }
        self.mont_mul(x, y)
    }

    /// `x y R^(-1) mod p`, below `2p`, for `x < 2p` and `y < p` (CIOS Montgomery product).
    ///
    /// With `p < 2^254` every partial sum stays below `x + p < 3p < 2^256`, so the running
    /// value fits four limbs and the top carry needs no fifth (the "no-carry" variant), and the
    /// result `x y / R + p` is below `2p`.
    #[inline(always)]
    fn mont_mul(&self, x: &Limbs, y: &Limbs) -> Limbs {
        let p = &self.p;
        let mut t = [0u64; 4];
        for &yi in y {
            let (t0, mut carry_xy) = mac(t[0], x[0], yi, 0);
            let m = t0.wrapping_mul(self.p_neg_inv);
            let (_, mut carry_mp) = mac(t0, m, p[0], 0);
            for j in 1..4 {
                let (tj, c) = mac(t[j], x[j], yi, carry_xy);
                carry_xy = c;
                let (tj, c) = mac(tj, m, p[j], carry_mp);
                carry_mp = c;
                t[j - 1] = tj;
            }
            t[3] = carry_mp.wrapping_add(carry_xy);
        }
        t
    }
}

/// Whether the Montgomery products can run as BMI2/ADX assembly: an x86-64 CPU with both
/// extensions, unless `HELIB_FORCE_SCALAR` is set (non-empty), which tests use to run the
/// portable code on any machine (the engine honours it too).
fn adx_available() -> bool {
    if std::env::var_os("HELIB_FORCE_SCALAR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `a + b c + carry` as (low word, high word); never overflows 128 bits.
#[inline(always)]
fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    let t = u128::from(a) + u128::from(b) * u128::from(c) + u128::from(carry);
    (t as u64, (t >> 64) as u64)
}

/// `x + y` and the carry out.
#[inline(always)]
fn add(x: &Limbs, y: &Limbs) -> (Limbs, bool) {
    let mut out = [0u64; 4];
    let mut carry = false;
    for i in 0..4 {
        let (s, c1) = x[i].overflowing_add(y[i]);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        out[i] = s;
        carry = c1 | c2;
    }
    (out, carry)
}

/// `x - y` and the borrow out.
#[inline(always)]
fn sub(x: &Limbs, y: &Limbs) -> (Limbs, bool) {
    let mut out = [0u64; 4];
    let mut borrow = false;
    for i in 0..4 {
        let (d, b1) = x[i].overflowing_sub(y[i]);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        out[i] = d;
        borrow = b1 | b2;
    }
    (out, borrow)
}

/// `x - m` if `x >= m`, else `x`, without a branch on the data.
#[inline(always)]
fn cond_sub(x: &Limbs, m: &Limbs) -> Limbs {
    let (d, borrow) = sub(x, m);
    let keep = 0u64.wrapping_sub(u64::from(borrow)); // all ones when x < m
    let mut out = [0u64; 4];
    for i in 0..4 {
        out[i] = (x[i] & keep) | (d[i] & !keep);
    }
    out
}

/// `-x^(-1) mod 2^64` for odd `x` (Newton iteration, each step doubling the correct bits).
fn neg_inverse_mod_2_64(x: u64) -> u64 {
    let mut inv = 1u64;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(x.wrapping_mul(inv)));
    }
    inv.wrapping_neg()
}

/// `x`'s limbs, or `None` unless it has exactly four.
pub(crate) fn limbs_of<F: PrimeField>(x: &F::BigInt) -> Option<Limbs> {
    x.as_ref().try_into().ok()
}

/// `x R mod p` (with `r = R = 2^256 mod p`) as limbs: `x` in Montgomery form.
fn to_montgomery<F: PrimeField>(x: &F, r: &F) -> Option<Limbs> {
    limbs_of::<F>(&(*x * r).into_bigint())
}

/// `x` and `x 2^260 mod p` as limbs (with `two_260 = 2^260 mod p`): a multiplier for
/// [`ntt_simd`](crate::encoding::ntt_simd), which derives its Shoup quotient from the pair.
#[cfg(target_arch = "x86_64")]
fn shoup_pair<F: PrimeField>(x: &F, two_260: &F) -> Option<(Limbs, Limbs)> {
    Some((
        limbs_of::<F>(&x.into_bigint())?,
        limbs_of::<F>(&(*x * two_260).into_bigint())?,
    ))
}

/// `x^i` for `i < len`.
fn powers<F: Field>(x: F, len: usize) -> Vec<F> {
    std::iter::successors(Some(F::one()), |y| Some(*y * x))
        .take(len)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::ntt::field::NegacyclicNtt;
    use ark_bn254::Fr;
    use ark_ff::UniformRand;

    fn zeta(n: usize) -> Fr {
        let log = (2 * n).trailing_zeros();
        Fr::TWO_ADIC_ROOT_OF_UNITY.pow([1u64 << (Fr::TWO_ADICITY - log)])
    }

    fn to_field(ntt: &MontNtt, a: &[Limbs]) -> Vec<Fr> {
        a.iter()
            .map(|x| {
                let mut y = *x;
                ntt.canonical(&mut y);
                Fr::from_bigint(ark_ff::BigInt(y)).expect("canonical")
            })
            .collect()
    }

    /// Sizes on both sides of the cache block, so blocked and unblocked stages both run.
    #[test]
    fn matches_the_generic_transform_both_ways() {
        let mut rng = ark_std::test_rng();
        for log_n in [1u32, 2, 3, 5, 8, 13, 14, 15] {
            let n = 1usize << log_n;
            let z = zeta(n);
            let fast = MontNtt::new(n, z).expect("BN254 fits the fast path");
            let portable = MontNtt {
                adx: false,
                #[cfg(target_arch = "x86_64")]
                simd: None,
                ..fast.clone()
            };
            let generic = NegacyclicNtt::new(n, z);
            let coeffs: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            // Inputs anywhere in [0, 2p): add p to every other one.
            let mut a: Vec<Limbs> = coeffs
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let x = c.into_bigint().0;
                    if i % 2 == 1 {
                        add(&x, &fast.p).0
                    } else {
                        x
                    }
                })
                .collect();
            let mut expect = coeffs.clone();
            generic.forward_bitrev(&mut expect);
            let mut b = a.clone();
            portable.forward_bitrev(&mut b);
            fast.forward_bitrev(&mut a);
            assert_eq!(a, b, "assembly and portable products, n = {n}");
            assert_eq!(to_field(&fast, &a), expect, "forward, n = {n}");
            assert!(
                a.iter().all(|x| sub(x, &fast.two_p).1),
                "lazy bound, n = {n}"
            );
            fast.inverse_from_bitrev(&mut a);
            assert!(a.iter().all(|x| sub(x, &fast.p).1), "canonical, n = {n}");
            assert_eq!(to_field(&fast, &a), coeffs, "inverse, n = {n}");
        }
    }

    /// The last stage's factors, checked against the field: their products are easy to get
    /// wrong silently (a miscompiled constructor once scaled them by `2^516`, see `new`).
    #[test]
    fn last_stage_factors_are_the_field_values() {
        let r = Fr::from(2u64).pow([256u64]);
        for n in [2usize, 16, 1024] {
            let ntt = MontNtt::new(n, zeta(n)).expect("fast path");
            let n_inv = Fr::from(n as u64).inverse().expect("unit");
            // The inverse twiddle at bit-reversed index 1: zeta^(-N/2).
            let last = zeta(n).pow([n as u64 / 2]).inverse().expect("unit") * n_inv;
            assert_eq!(ntt.n_inv, (n_inv * r).into_bigint().0, "n = {n}");
            assert_eq!(ntt.last_inv, (last * r).into_bigint().0, "n = {n}");
            assert_eq!(ntt.n_inv_plain, n_inv.into_bigint().0, "n = {n}");
            assert_eq!(ntt.last_inv_plain, last.into_bigint().0, "n = {n}");
        }
    }

    /// The AVX2 inverse against the scalar one, for plain and Montgomery-form inputs anywhere
    /// in `[0, 2p)` (including `0`, `p - 1`, `p` and `2p - 1`), on both sides of `N = 16` and of
    /// one block of the first pass (`N = 2048`).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simd_inverse_matches_the_scalar_one() {
        let mut rng = ark_std::test_rng();
        for log_n in [3u32, 4, 5, 6, 9, 11, 12, 13, 15] {
            let n = 1usize << log_n;
            let fast = MontNtt::new(n, zeta(n)).expect("BN254 fits the fast path");
            if fast.simd.is_none() {
                assert!(
                    n < 16 || !crate::encoding::ntt::simd::simd_available(),
                    "no SIMD tables at n = {n}"
                );
                continue;
            }
            let scalar = MontNtt {
                simd: None,
                ..fast.clone()
            };
            let p_minus_1 = sub(&fast.p, &[1, 0, 0, 0]).0;
            let two_p_minus_1 = sub(&fast.two_p, &[1, 0, 0, 0]).0;
            let mixed: Vec<Limbs> = (0..n)
                .map(|i| match i % 8 {
                    0 => [0; 4],
                    1 => p_minus_1,
                    2 => fast.p,
                    3 => two_p_minus_1,
                    k => {
                        let x = Fr::rand(&mut rng).into_bigint().0;
                        if k % 2 == 1 {
                            add(&x, &fast.p).0
                        } else {
                            x
                        }
                    }
                })
                .collect();
            // Every limb full: the longest carry chains.
            let largest = vec![two_p_minus_1; n];
            for (name, input) in [("mixed", mixed), ("all 2p - 1", largest)] {
                let (mut a, mut b) = (input.clone(), input.clone());
                fast.inverse_from_bitrev(&mut a);
                scalar.inverse_from_bitrev(&mut b);
                assert_eq!(a, b, "plain {name} inputs, n = {n}");
                let (mut a, mut b) = (input.clone(), input);
                fast.inverse_from_bitrev_montgomery(&mut a);
                scalar.inverse_from_bitrev_montgomery(&mut b);
                assert_eq!(a, b, "Montgomery-form {name} inputs, n = {n}");
            }
        }
    }

    #[test]
    fn montgomery_product_is_the_field_product() {
        let mut rng = ark_std::test_rng();
        let ntt = MontNtt::new(4, zeta(4)).expect("fast path");
        let r = Fr::from(2u64).pow([256u64]);
        for _ in 0..1000 {
            let (x, y) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
            // x lazily reduced as x + p, y in Montgomery form.
            let xl = add(&x.into_bigint().0, &ntt.p).0;
            let yl = (y * r).into_bigint().0;
            let prod = ntt.mont_mul(&xl, &yl);
            if ntt.adx {
                assert_eq!(ntt.mul::<true>(&xl, &yl), prod, "assembly differs");
            }
            assert!(sub(&prod, &ntt.two_p).1, "below 2p");
            assert_eq!(to_field(&ntt, &[prod])[0], x * y);
        }
    }
}
