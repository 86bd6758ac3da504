//! The encoder's inverse transform on AVX2 and FMA: [`MontNtt`](crate::encoding::ntt::mont::MontNtt)'s
//! inverse, four field elements per vector, each element as five 52-bit limbs.
//!
//! Why: one 4-limb Montgomery product with `mulx` costs about 45 cycles on Zen 3, and the
//! encoder's inverse transform is `N/2 log N` of them. Here a product is 49 partial products
//! of 52-bit limbs, each split exactly into high and low halves by two FMAs
//! (`h = a b + 2^104` rounds to a multiple of `2^52`; `a b - (h - 2^104)` is then exact),
//! accumulated as integers; four lanes run at once. At N = 65536 the whole transform takes
//! 0.72-0.78 of the scalar one's time (paired in one process, medians of 31, three runs). Tried
//! and dropped, as not faster: two products interleaved (the 16 vector registers spill; 1.3-1.4x
//! slower), butterflies in batches of eight one step at a time, and values kept below `3p` to
//! skip a reduction per product (0.77-0.82, within the noise).
//!
//! The product is Shoup's: for a twiddle `w` with `wq = floor(w 2^260 / p)`, the quotient
//! `q = floor(x wq / 2^260)` is within 2 of `floor(x w / p)`, so `x w - q p` (computed modulo
//! `2^260`) lies in `[0, 3p)`; one conditional subtraction of `2p` leaves it below `2p`. Values
//! stay below `2p` between stages as in the scalar transform; the last stage makes them
//! canonical.
//!
//! Layout: lane `l` of vector group `j` holds element `l N/4 + j`. A butterfly of span
//! `t <= N/8` then pairs groups `j` and `j + t` in the same lane, with a twiddle per lane; the
//! last two stages pair lanes, and run on 4 x 4 transposes of four groups. The per-lane
//! twiddles take `80 N` bytes (5 MiB at N = 65536), beside the scalar tables.

// Every `unsafe fn` here is an AVX2/FMA kernel reached only through `SimdInverse::run`, which
// `SimdInverse::new` makes reachable after detecting both features; their bodies are intrinsics
// on registers and loads/stores within `run`'s scratch buffer and its argument.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::limbs::Limbs;
use core::arch::x86_64::*;

const MASK: i64 = (1 << 52) - 1;
const TWO52: f64 = 4503599627370496.0;
/// `2^104`: `a b + 2^104` lies in `[2^104, 2^105)`, where doubles are spaced `2^52` apart.
const C104: f64 = 20282409603651670423947251286016.0;
/// `1.5 * 2^52`: a low half in `[-2^51, 2^51]` plus this is in `[2^52, 2^53]`, where the bit
/// pattern minus this one's is the integer.
const MAGIC: f64 = 6755399441055744.0;
const C104_BITS: i64 = 0x4670_0000_0000_0000;
const MAGIC_BITS: i64 = 0x4338_0000_0000_0000;
const TWO52_BITS: i64 = 0x4330_0000_0000_0000;
/// Added to every column before carrying, so the shifts see non-negative values; the carry's
/// extra `2^6` is taken back from the next column.
const BIAS: i64 = 1 << 58;

/// A multiplier in Shoup form: `w` and `floor(w 2^260 / p)`, as 52-bit limbs in doubles.
#[derive(Clone, Copy, Debug, Default)]
struct Shoup {
    w: [f64; 5],
    wq: [f64; 5],
}

impl Shoup {
    /// From canonical `w` and `y = w 2^260 mod p`: `w 2^260 = wq p + y`, so
    /// `wq = -y p^-1 mod 2^260` (and `wq < 2^260` because `w < p`).
    fn new(w: &Limbs, y: &Limbs, p_inv: &[u64; 5]) -> Self {
        let t = mul_low5(&[y[0], y[1], y[2], y[3], 0], p_inv);
        let neg = sub5(&[0; 5], &t);
        Shoup {
            w: to52(&[w[0], w[1], w[2], w[3], 0]).map(|v| v as f64),
            wq: to52(&neg).map(|v| v as f64),
        }
    }
}

/// The low 260 bits of `x` as five 52-bit limbs.
fn to52(x: &[u64; 5]) -> [i64; 5] {
    let m = MASK as u64;
    [
        x[0] & m,
        ((x[0] >> 52) | (x[1] << 12)) & m,
        ((x[1] >> 40) | (x[2] << 24)) & m,
        ((x[2] >> 28) | (x[3] << 36)) & m,
        ((x[3] >> 16) | (x[4] << 48)) & m,
    ]
    .map(|v| v as i64)
}

/// `a b mod 2^320`.
fn mul_low5(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    let mut out = [0u64; 5];
    for i in 0..5 {
        let mut carry = 0u128;
        for j in 0..5 - i {
            let t = u128::from(out[i + j]) + u128::from(a[i]) * u128::from(b[j]) + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
    }
    out
}

/// `a - b mod 2^320`.
fn sub5(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    let mut out = [0u64; 5];
    let mut borrow = false;
    for i in 0..5 {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        out[i] = d;
        borrow = b1 | b2;
    }
    out
}

/// `p^-1 mod 2^320` for odd `p` (Newton: each step doubles the correct bits).
fn inverse_mod_2_320(p: &Limbs) -> [u64; 5] {
    let p5 = [p[0], p[1], p[2], p[3], 0];
    let mut x = [1u64, 0, 0, 0, 0];
    for _ in 0..9 {
        let px = mul_low5(&p5, &x);
        x = mul_low5(&x, &sub5(&[2, 0, 0, 0, 0], &px));
    }
    x
}

/// The precomputed inverse transform for one ring degree (at least 16).
pub(crate) struct SimdInverse {
    n: usize,
    p: Limbs,
    /// Per-lane twiddles of the stages with span at most `N/8`: stage `m` (from `N/2` down to
    /// 4) owns entries `m/4 - 1 ..= m/2 - 2`; entry `m/4 - 1 + g` holds lane `l`'s twiddle
    /// `inv[m + l m/4 + g]` as `w` limbs (limb-major, 4 lanes each) then `wq` limbs.
    lanes: Vec<[f64; 40]>,
    /// The stage with two groups: `inv[2]` (lanes 0 and 1) and `inv[3]` (lanes 2 and 3).
    pair: [Shoup; 2],
    /// The last stage's factors for the sums and the differences, for plain inputs and for
    /// inputs in Montgomery form.
    last_plain: [Shoup; 2],
    last_mont: [Shoup; 2],
}

impl SimdInverse {
    /// Tables from the inverse twiddles `inv[i]` and the last stage's factors, each given as
    /// canonical `(w, w 2^260 mod p)`; `None` without AVX2 and FMA or for `N < 16`.
    pub(crate) fn new(
        p: &Limbs,
        inv: &[(Limbs, Limbs)],
        last_plain: [(Limbs, Limbs); 2],
        last_mont: [(Limbs, Limbs); 2],
    ) -> Option<Self> {
        let n = inv.len();
        if n < 16 || !simd_available() {
            return None;
        }
        let p_inv = inverse_mod_2_320(p);
        let shoup = |(w, y): &(Limbs, Limbs)| Shoup::new(w, y, &p_inv);
        let mut lanes = Vec::with_capacity(n / 4);
        let mut m = 4;
        while m < n {
            for g in 0..m / 4 {
                let mut entry = [0.0; 40];
                for l in 0..4 {
                    let s = shoup(&inv[m + l * (m / 4) + g]);
                    for i in 0..5 {
                        entry[4 * i + l] = s.w[i];
                        entry[20 + 4 * i + l] = s.wq[i];
                    }
                }
                lanes.push(entry);
            }
            m *= 2;
        }
        Some(SimdInverse {
            n,
            p: *p,
            lanes,
            pair: [shoup(&inv[2]), shoup(&inv[3])],
            last_plain: last_plain.map(|w| shoup(&w)),
            last_mont: last_mont.map(|w| shoup(&w)),
        })
    }

    /// The inverse transform of `a` (each below `2p`) to canonical coefficients, with the last
    /// stage's factors for Montgomery-form inputs when `montgomery`.
    pub(crate) fn inverse(&self, a: &mut [Limbs], montgomery: bool) {
        assert_eq!(a.len(), self.n, "inverse NTT: wrong length");
        let last = if montgomery {
            &self.last_mont
        } else {
            &self.last_plain
        };
        // SAFETY: `new` returned tables only after detecting AVX2 and FMA.
        unsafe { self.run(a, last) }
    }

    /// Two passes over `a`, each through a small scratch buffer that stays in cache:
    ///
    /// 1. blocks of `B` consecutive groups, through the stages of span below `B`;
    /// 2. sets of groups `c + k B + (0..4)` (all `k`, for `c` a multiple of 4), through the
    ///    stages of span `B` and more, then the two lane stages.
    ///
    /// Between the passes `a` holds 64-bit limbs again (values below `2p`), so no buffer of the
    /// whole transform's size is needed.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run(&self, a: &mut [Limbs], last: &[Shoup; 2]) {
        let groups = self.n / 4;
        let block = groups.min(BLOCK_GROUPS);
        let per_set = 4 * (groups / block);
        let c = Consts::new(&self.p);
        let mut scratch = vec![0i64; 20 * block.max(per_set)];
        let buf = scratch.as_mut_ptr();
        let a = a.as_mut_ptr().cast::<i64>();
        for b0 in (0..groups).step_by(block) {
            for j in (0..block).step_by(4) {
                store4(buf.add(20 * j), &transpose(&rows_from(a, groups, b0 + j)));
            }
            let mut t = 1;
            while t < block {
                let first = groups / (2 * t) - 1 + b0 / (2 * t);
                self.stage(buf, block, t, first, &c);
                t *= 2;
            }
            for j in (0..block).step_by(4) {
                rows_to(a, groups, b0 + j, &transpose(&load4(buf.add(20 * j))));
            }
        }
        let pair = self.pair.map(|s| broadcast(&s));
        let fin = last.map(|s| broadcast(&s));
        for col in (0..block).step_by(4) {
            for k in 0..groups / block {
                store4(
                    buf.add(80 * k),
                    &transpose(&rows_from(a, groups, col + k * block)),
                );
            }
            // Scratch group 4 k + i is group col + k B + i: span t is 4 t / B in the scratch.
            let mut t = block;
            while t < groups {
                self.stage(buf, per_set, 4 * t / block, groups / (2 * t) - 1, &c);
                t *= 2;
            }
            for k in 0..groups / block {
                // v[l][i]: limb i of elements l N/4 + j .. + 3, for j = col + k B.
                let mut v = transpose(&load4(buf.add(80 * k)));
                // Two groups: lanes (0, 1) with inv[2], (2, 3) with inv[3].
                for (h, tw) in pair.iter().enumerate() {
                    let (x, y) = (v[2 * h], v[2 * h + 1]);
                    v[2 * h] = add_mod(&x, &y, &c);
                    v[2 * h + 1] = mul(&sub_lazy(&x, &y, &c), &tw.0, &tw.1, &c);
                }
                // The last stage: lanes (0, 2) and (1, 3), canonical outputs.
                for h in 0..2 {
                    let (x, y) = (v[h], v[h + 2]);
                    let sum = add_lazy(&x, &y);
                    v[h] = cond_sub(&mul(&sum, &fin[0].0, &fin[0].1, &c), &c.sub_p);
                    v[h + 2] = cond_sub(
                        &mul(&sub_lazy(&x, &y, &c), &fin[1].0, &fin[1].1, &c),
                        &c.sub_p,
                    );
                }
                rows_to(a, groups, col + k * block, &v);
            }
        }
    }

    /// One stage of span `t` groups over the `len` groups at `buf`, whose butterfly blocks
    /// take the twiddle entries `first`, `first + 1`, ...
    #[inline(always)]
    unsafe fn stage(&self, buf: *mut i64, len: usize, t: usize, first: usize, c: &Consts) {
        for (g, tw) in self.lanes[first..first + len / (2 * t)].iter().enumerate() {
            let w = load_d(tw.as_ptr());
            let wq = load_d(tw.as_ptr().add(20));
            for j in 2 * t * g..2 * t * g + t {
                // j + t < len: both groups lie in the buffer.
                let px = buf.add(20 * j);
                let py = px.add(20 * t);
                let (x, y) = (load(px), load(py));
                store(px, &add_mod(&x, &y, c));
                store(py, &mul(&sub_lazy(&x, &y, c), &w, &wq, c));
            }
        }
    }
}

/// Groups per block of the first pass: 512 groups of 160 bytes fit the L2 cache with room for
/// the twiddles.
const BLOCK_GROUPS: usize = 512;

/// Elements `l N/4 + j .. + 3` for each `l` (`groups = N/4`), as rows: `v[l][i]` holds limb `i`
/// of the four. Values below `2^256`.
#[inline(always)]
unsafe fn rows_from(a: *const i64, groups: usize, j: usize) -> [V5i; 4] {
    let mut v = [[_mm256_setzero_si256(); 5]; 4];
    for (l, row) in v.iter_mut().enumerate() {
        let p = a.add(4 * (l * groups + j));
        let e: [__m256i; 4] = core::array::from_fn(|k| _mm256_loadu_si256(p.add(4 * k).cast()));
        // x[o] lane k: 64-bit limb o of element k.
        let x = transpose4(&e);
        let m = splat(MASK);
        *row = [
            _mm256_and_si256(x[0], m),
            _mm256_and_si256(
                _mm256_or_si256(_mm256_srli_epi64(x[0], 52), _mm256_slli_epi64(x[1], 12)),
                m,
            ),
            _mm256_and_si256(
                _mm256_or_si256(_mm256_srli_epi64(x[1], 40), _mm256_slli_epi64(x[2], 24)),
                m,
            ),
            _mm256_and_si256(
                _mm256_or_si256(_mm256_srli_epi64(x[2], 28), _mm256_slli_epi64(x[3], 36)),
                m,
            ),
            _mm256_srli_epi64(x[3], 16),
        ];
    }
    v
}

/// The inverse of [`rows_from`], for normalized limbs of values below `2^256`.
#[inline(always)]
unsafe fn rows_to(a: *mut i64, groups: usize, j: usize, v: &[V5i; 4]) {
    for (l, y) in v.iter().enumerate() {
        let x = [
            _mm256_or_si256(y[0], _mm256_slli_epi64(y[1], 52)),
            _mm256_or_si256(_mm256_srli_epi64(y[1], 12), _mm256_slli_epi64(y[2], 40)),
            _mm256_or_si256(_mm256_srli_epi64(y[2], 24), _mm256_slli_epi64(y[3], 28)),
            _mm256_or_si256(_mm256_srli_epi64(y[3], 36), _mm256_slli_epi64(y[4], 16)),
        ];
        let e = transpose4(&x);
        let p = a.add(4 * (l * groups + j));
        for (k, ek) in e.iter().enumerate() {
            _mm256_storeu_si256(p.add(4 * k).cast(), *ek);
        }
    }
}

/// The 4 x 4 transpose of 64-bit entries: out[o] lane k = x[k] lane o.
#[inline(always)]
unsafe fn transpose4(x: &[__m256i; 4]) -> [__m256i; 4] {
    let t0 = _mm256_unpacklo_epi64(x[0], x[1]);
    let t1 = _mm256_unpackhi_epi64(x[0], x[1]);
    let t2 = _mm256_unpacklo_epi64(x[2], x[3]);
    let t3 = _mm256_unpackhi_epi64(x[2], x[3]);
    [
        _mm256_permute2x128_si256(t0, t2, 0x20),
        _mm256_permute2x128_si256(t1, t3, 0x20),
        _mm256_permute2x128_si256(t0, t2, 0x31),
        _mm256_permute2x128_si256(t1, t3, 0x31),
    ]
}

/// Four consecutive groups of the scratch buffer.
#[inline(always)]
unsafe fn load4(p: *const i64) -> [V5i; 4] {
    core::array::from_fn(|k| load(p.add(20 * k)))
}

#[inline(always)]
unsafe fn store4(p: *mut i64, g: &[V5i; 4]) {
    for (k, gk) in g.iter().enumerate() {
        store(p.add(20 * k), gk);
    }
}

/// Whether the CPU has AVX2 and FMA, unless `HELIB_FORCE_SCALAR` is set (non-empty).
pub(crate) fn simd_available() -> bool {
    if std::env::var_os("HELIB_FORCE_SCALAR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}

type V5i = [__m256i; 5];
type V5d = [__m256d; 5];

/// Per-call vector constants.
struct Consts {
    p: V5d,
    /// `2^52 - m_k` (minus 1 above limb 0) for the conditional subtraction of `m = 2p` / `p`.
    sub_2p: V5i,
    sub_p: V5i,
    /// `(2p)_k + 2^52` (minus 1 above limb 0): `x - y + 2p` with every column non-negative.
    diff_2p: V5i,
    /// Phase B's column starts: bias, the bit-pattern offsets of its terms, and the `-2^4` at
    /// column 4 that keeps the truncated quotient from overshooting.
    b_init: [__m256i; 6],
}

impl Consts {
    #[inline(always)]
    unsafe fn new(p: &Limbs) -> Self {
        let p52 = to52(&[p[0], p[1], p[2], p[3], 0]);
        let two_p = to52(&[
            p[0] << 1,
            (p[1] << 1) | (p[0] >> 63),
            (p[2] << 1) | (p[1] >> 63),
            (p[3] << 1) | (p[2] >> 63),
            p[3] >> 63,
        ]);
        let above0 = |k: usize| i64::from(k > 0);
        let sub =
            |m: &[i64; 5]| -> V5i { core::array::from_fn(|k| splat((1 << 52) - m[k] - above0(k))) };
        let mut b_init = [_mm256_setzero_si256(); 6];
        for (idx, col) in (4..=9usize).enumerate() {
            let pairs = |k: usize| (0..5).filter(|&i| k >= i && k - i < 5).count() as i64;
            let n_lo = if col <= 8 { pairs(col) } else { 0 };
            let n_hi = pairs(col - 1);
            let start = if col == 4 { BIAS - 16 } else { BIAS - 64 };
            b_init[idx] = splat(
                start
                    .wrapping_sub(n_lo.wrapping_mul(MAGIC_BITS))
                    .wrapping_sub(n_hi.wrapping_mul(C104_BITS)),
            );
        }
        Consts {
            p: p52.map(|v| _mm256_set1_pd(v as f64)),
            sub_2p: sub(&two_p),
            sub_p: sub(&p52),
            diff_2p: core::array::from_fn(|k| splat(two_p[k] + (1 << 52) - above0(k))),
            b_init,
        }
    }
}

#[inline(always)]
unsafe fn splat(v: i64) -> __m256i {
    _mm256_set1_epi64x(v)
}

#[inline(always)]
unsafe fn broadcast(s: &Shoup) -> (V5d, V5d) {
    (
        s.w.map(|v| _mm256_set1_pd(v)),
        s.wq.map(|v| _mm256_set1_pd(v)),
    )
}

#[inline(always)]
unsafe fn load(p: *const i64) -> V5i {
    core::array::from_fn(|i| _mm256_loadu_si256(p.add(4 * i).cast()))
}

#[inline(always)]
unsafe fn load_d(p: *const f64) -> V5d {
    core::array::from_fn(|i| _mm256_loadu_pd(p.add(4 * i)))
}

#[inline(always)]
unsafe fn store(p: *mut i64, v: &V5i) {
    for (i, x) in v.iter().enumerate() {
        _mm256_storeu_si256(p.add(4 * i).cast(), *x);
    }
}

/// A limb in `[0, 2^52)` as a double.
#[inline(always)]
unsafe fn to_d(x: __m256i) -> __m256d {
    _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_or_si256(x, splat(TWO52_BITS))),
        _mm256_set1_pd(TWO52),
    )
}

/// `a b` for limbs `a, b < 2^52` as bit patterns: (high half + `C104_BITS`, low half + `MAGIC_BITS`).
#[inline(always)]
unsafe fn split(a: __m256d, b: __m256d) -> (__m256i, __m256i) {
    let c = _mm256_set1_pd(C104);
    let h = _mm256_fmadd_pd(a, b, c);
    let l = _mm256_fmsub_pd(a, b, _mm256_sub_pd(h, c));
    (
        _mm256_castpd_si256(h),
        _mm256_castpd_si256(_mm256_add_pd(l, _mm256_set1_pd(MAGIC))),
    )
}

/// The high half of `a b` only.
#[inline(always)]
unsafe fn high(a: __m256d, b: __m256d) -> __m256i {
    _mm256_castpd_si256(_mm256_fmadd_pd(a, b, _mm256_set1_pd(C104)))
}

/// Carries biased columns into normalized limbs.
#[inline(always)]
unsafe fn carry(cols: &mut V5i) {
    for k in 1..5 {
        cols[k] = _mm256_add_epi64(cols[k], _mm256_srli_epi64(cols[k - 1], 52));
        cols[k - 1] = _mm256_and_si256(cols[k - 1], splat(MASK));
    }
    cols[4] = _mm256_and_si256(cols[4], splat(MASK));
}

/// `a - m` if `a >= m`, else `a`, with `k` = [`Consts::sub_2p`] or [`Consts::sub_p`].
#[inline(always)]
unsafe fn cond_sub(a: &V5i, k: &V5i) -> V5i {
    let mut v = [_mm256_setzero_si256(); 5];
    for i in 0..5 {
        v[i] = _mm256_add_epi64(a[i], k[i]);
        if i > 0 {
            v[i] = _mm256_add_epi64(v[i], _mm256_srli_epi64(v[i - 1], 52));
        }
    }
    let below = _mm256_cmpgt_epi64(splat(1 << 52), v[4]);
    core::array::from_fn(|i| _mm256_blendv_epi8(_mm256_and_si256(v[i], splat(MASK)), a[i], below))
}

/// `x + y`, normalized (below `4p` for inputs below `2p`).
#[inline(always)]
unsafe fn add_lazy(x: &V5i, y: &V5i) -> V5i {
    let mut t: V5i = core::array::from_fn(|i| _mm256_add_epi64(x[i], y[i]));
    for k in 1..5 {
        t[k] = _mm256_add_epi64(t[k], _mm256_srli_epi64(t[k - 1], 52));
        t[k - 1] = _mm256_and_si256(t[k - 1], splat(MASK));
    }
    t
}

/// `x + y` below `2p`, for inputs below `2p`.
#[inline(always)]
unsafe fn add_mod(x: &V5i, y: &V5i, c: &Consts) -> V5i {
    cond_sub(&add_lazy(x, y), &c.sub_2p)
}

/// `x - y + 2p` (below `4p`), normalized.
#[inline(always)]
unsafe fn sub_lazy(x: &V5i, y: &V5i, c: &Consts) -> V5i {
    let mut t: V5i =
        core::array::from_fn(|i| _mm256_add_epi64(_mm256_sub_epi64(x[i], y[i]), c.diff_2p[i]));
    carry(&mut t);
    t
}

/// `x w mod p` below `2p`, for `x < 2^256` and `w` in Shoup form. Columns are summed one at a
/// time and carried as soon as they are complete, which keeps few vectors live.
#[inline(always)]
unsafe fn mul(x: &V5i, w: &V5d, wq: &V5d, c: &Consts) -> V5i {
    let m = splat(MASK);
    let xd: V5d = [to_d(x[0]), to_d(x[1]), to_d(x[2]), to_d(x[3]), to_d(x[4])];
    // q: columns 4..=9 of x wq. Pairs below column 3 are left out (less than 2^212 in all),
    // and their high halves at column 3 are counted: q is floor(x w / p) minus 0, 1 or 2.
    let mut lo = c.b_init[0];
    let mut hi = c.b_init[1];
    macro_rules! q_high { ($(($i:literal, $j:literal)),*) => { $( lo = _mm256_add_epi64(lo, high(xd[$i], wq[$j])); )* } }
    macro_rules! q_col { ($(($i:literal, $j:literal)),*) => { $( {
        let (h, l) = split(xd[$i], wq[$j]);
        lo = _mm256_add_epi64(lo, l);
        hi = _mm256_add_epi64(hi, h);
    } )* } }
    macro_rules! q_next {
        ($next:expr) => {{
            hi = _mm256_add_epi64(hi, _mm256_srli_epi64(lo, 52));
            let limb = to_d(_mm256_and_si256(lo, m));
            lo = hi;
            hi = $next;
            limb
        }};
    }
    q_high!((0, 3), (1, 2), (2, 1), (3, 0));
    q_col!((0, 4), (1, 3), (2, 2), (3, 1), (4, 0));
    let _ = q_next!(c.b_init[2]);
    q_col!((1, 4), (2, 3), (3, 2), (4, 1));
    let q0 = q_next!(c.b_init[3]);
    q_col!((2, 4), (3, 3), (4, 2));
    let q1 = q_next!(c.b_init[4]);
    q_col!((3, 4), (4, 3));
    let q2 = q_next!(c.b_init[5]);
    q_col!((4, 4));
    hi = _mm256_add_epi64(hi, _mm256_srli_epi64(lo, 52));
    let q3 = to_d(_mm256_and_si256(lo, m));
    let q4 = to_d(_mm256_and_si256(hi, m));
    let qd = [q0, q1, q2, q3, q4];
    // r = x w - q p mod 2^260, columns 0..=4: the bit-pattern offsets of the two products cancel.
    let mut lo = splat(BIAS);
    let mut hi = splat(BIAS - 64);
    macro_rules! r_col { ($(($i:literal, $j:literal)),*) => { $( {
        let (ha, la) = split(xd[$i], w[$j]);
        let (hc, lc) = split(qd[$i], c.p[$j]);
        lo = _mm256_add_epi64(lo, _mm256_sub_epi64(la, lc));
        hi = _mm256_add_epi64(hi, _mm256_sub_epi64(ha, hc));
    } )* } }
    macro_rules! r_top { ($(($i:literal, $j:literal)),*) => { $( {
        let (_, la) = split(xd[$i], w[$j]);
        let (_, lc) = split(qd[$i], c.p[$j]);
        lo = _mm256_add_epi64(lo, _mm256_sub_epi64(la, lc));
    } )* } }
    macro_rules! r_next {
        () => {{
            hi = _mm256_add_epi64(hi, _mm256_srli_epi64(lo, 52));
            let limb = _mm256_and_si256(lo, m);
            lo = hi;
            hi = splat(BIAS - 64);
            limb
        }};
    }
    r_col!((0, 0));
    let r0 = r_next!();
    r_col!((0, 1), (1, 0));
    let r1 = r_next!();
    r_col!((0, 2), (1, 1), (2, 0));
    let r2 = r_next!();
    r_col!((0, 3), (1, 2), (2, 1), (3, 0));
    let r3 = r_next!();
    r_top!((0, 4), (1, 3), (2, 2), (3, 1), (4, 0));
    let _ = hi;
    cond_sub(&[r0, r1, r2, r3, _mm256_and_si256(lo, m)], &c.sub_2p)
}

/// 4 x 4 transposes of each limb: out[l] lane k = g[k] lane l.
#[inline(always)]
unsafe fn transpose(g: &[V5i; 4]) -> [V5i; 4] {
    let mut out = [[_mm256_setzero_si256(); 5]; 4];
    for i in 0..5 {
        let t = transpose4(&[g[0][i], g[1][i], g[2][i], g[3][i]]);
        for (o, tv) in out.iter_mut().zip(t) {
            o[i] = tv;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rows_from` splits four elements of each quarter into 52-bit limbs as `to52` does, and
    /// `rows_to` puts them back.
    #[test]
    fn row_conversions_round_trip() {
        if !simd_available() {
            return;
        }
        let groups = 8;
        let a: Vec<Limbs> = (0..4 * groups as u64)
            .map(|i| {
                let x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                [x, !x, x.rotate_left(17), x >> 2]
            })
            .collect();
        let mut back = vec![[0u64; 4]; a.len()];
        for j in (0..groups).step_by(4) {
            // SAFETY: AVX2 is present; both buffers hold 4 groups' elements from index j.
            let rows = unsafe { rows_from(a.as_ptr().cast(), groups, j) };
            for (l, row) in rows.iter().enumerate() {
                let mut limbs = [[0i64; 4]; 5];
                for (i, v) in row.iter().enumerate() {
                    // SAFETY: an unaligned store of one vector into a 4-element array.
                    unsafe { _mm256_storeu_si256(limbs[i].as_mut_ptr().cast(), *v) };
                }
                for k in 0..4 {
                    let x = a[l * groups + j + k];
                    let expected = to52(&[x[0], x[1], x[2], x[3], 0]);
                    assert_eq!(core::array::from_fn(|i| limbs[i][k]), expected);
                }
            }
            // SAFETY: as above.
            unsafe { rows_to(back.as_mut_ptr().cast(), groups, j, &rows) };
        }
        assert_eq!(back, a);
    }

    #[test]
    fn inverse_mod_2_320_inverts() {
        let p: Limbs = [
            0x43e1f593f0000001,
            0x2833e84879b97091,
            0xb85045b68181585d,
            0x30644e72e131a029,
        ];
        let inv = inverse_mod_2_320(&p);
        assert_eq!(
            mul_low5(&[p[0], p[1], p[2], p[3], 0], &inv),
            [1, 0, 0, 0, 0]
        );
    }
}
