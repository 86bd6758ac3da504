// AVX2 + FMA negacyclic NTT for primes below 2^50, four lanes of doubles.
//
// Why doubles: AVX2 has no 64x64-bit multiply, but an FMA computes a*b exactly as hi + lo
// (hi = fl(a*b), lo = fma(a, b, -hi)) when a, b < 2^50, and the quotient estimate
// round(hi / q) is then off by at most one, so a*b mod q costs six vector operations for four
// lanes. Every value stays an exact integer in [0, q). The transform computes exactly what the
// scalar Harvey NTT computes (same twiddles, same output order).
#include <immintrin.h>

#include "ntt.h"

namespace helib {
namespace {

#define HELIB_AVX2 __attribute__((target("avx2,fma")))

// 1.5 * 2^52: adding and subtracting it rounds a double below 2^51 to the nearest integer.
constexpr double kRoundMagic = 6755399441055744.0;
// 2^52 as a double and as its bit pattern: u64 x < 2^52 <-> double by OR-ing the exponent.
constexpr double kTwo52 = 4503599627370496.0;
constexpr uint64_t kTwo52Bits = 0x4330000000000000ULL;

struct Consts {
    __m256d q, qinv, zero, magic;
};

HELIB_AVX2 inline Consts make_consts(double q) {
    return {_mm256_set1_pd(q), _mm256_set1_pd(1.0 / q), _mm256_setzero_pd(), _mm256_set1_pd(kRoundMagic)};
}

// a * b mod q in [0, q) for a, b in [0, q).
HELIB_AVX2 inline __m256d mulmod(__m256d a, __m256d b, const Consts& c) {
    const __m256d hi = _mm256_mul_pd(a, b);
    const __m256d lo = _mm256_fmsub_pd(a, b, hi);
    const __m256d quot = _mm256_sub_pd(_mm256_fmadd_pd(hi, c.qinv, c.magic), c.magic);
    __m256d r = _mm256_add_pd(_mm256_fnmadd_pd(quot, c.q, hi), lo);  // in (-q, q)
    return _mm256_add_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, c.zero, _CMP_LT_OQ), c.q));
}

HELIB_AVX2 inline __m256d reduce_once(__m256d s, const Consts& c) {  // [0, 2q) -> [0, q)
    return _mm256_sub_pd(s, _mm256_and_pd(_mm256_cmp_pd(s, c.q, _CMP_GE_OQ), c.q));
}

HELIB_AVX2 inline __m256d lift_neg(__m256d d, const Consts& c) {  // (-q, q) -> [0, q)
    return _mm256_add_pd(d, _mm256_and_pd(_mm256_cmp_pd(d, c.zero, _CMP_LT_OQ), c.q));
}

// Cooley-Tukey: (x, y) -> (x + w y, x - w y).
HELIB_AVX2 inline void ct(__m256d& x, __m256d& y, __m256d w, const Consts& c) {
    const __m256d t = mulmod(y, w, c);
    const __m256d s = reduce_once(_mm256_add_pd(x, t), c);
    y = lift_neg(_mm256_sub_pd(x, t), c);
    x = s;
}

// Gentleman-Sande: (x, y) -> (x + y, (x - y) w).
HELIB_AVX2 inline void gs(__m256d& x, __m256d& y, __m256d w, const Consts& c) {
    const __m256d s = reduce_once(_mm256_add_pd(x, y), c);
    y = mulmod(lift_neg(_mm256_sub_pd(x, y), c), w, c);
    x = s;
}

HELIB_AVX2 void to_double(u64* a, size_t n) {
    const __m256i bits = _mm256_set1_epi64x(static_cast<long long>(kTwo52Bits));
    const __m256d two52 = _mm256_set1_pd(kTwo52);
    for (size_t i = 0; i < n; i += 4) {
        __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
        __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, bits)), two52);
        _mm256_storeu_pd(reinterpret_cast<double*>(a + i), d);
    }
}

HELIB_AVX2 void to_u64(u64* a, size_t n) {
    const __m256i bits = _mm256_set1_epi64x(static_cast<long long>(kTwo52Bits));
    const __m256d two52 = _mm256_set1_pd(kTwo52);
    for (size_t i = 0; i < n; i += 4) {
        __m256d d = _mm256_loadu_pd(reinterpret_cast<const double*>(a + i));
        __m256i x = _mm256_xor_si256(_mm256_castpd_si256(_mm256_add_pd(d, two52)), bits);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + i), x);
    }
}

// Stages with half-block t >= 4: plain vectors over x[j..j+4), y[j..j+4).
template <bool kForward>
HELIB_AVX2 void stage_wide(double* a, size_t m, size_t t, const double* w, const Consts& c) {
    for (size_t i = 0; i < m; ++i) {
        const __m256d wv = _mm256_set1_pd(w[m + i]);
        double* x = a + 2 * i * t;
        double* y = x + t;
        for (size_t j = 0; j < t; j += 4) {
            __m256d xv = _mm256_loadu_pd(x + j), yv = _mm256_loadu_pd(y + j);
            if (kForward) ct(xv, yv, wv, c); else gs(xv, yv, wv, c);
            _mm256_storeu_pd(x + j, xv);
            _mm256_storeu_pd(y + j, yv);
        }
    }
}

// t = 2: blocks [x0 x1 y0 y1]; two blocks per step, lanes regrouped across 128-bit halves.
// t = 1: blocks [x y]; four blocks per step, regrouped with unpack.
template <bool kForward>
HELIB_AVX2 void tail_t2(double* a, size_t n, const double* w, const Consts& c) {
    const size_t m = n / 4;
    for (size_t i = 0; i < m; i += 2) {
        const __m256d A = _mm256_loadu_pd(a + 4 * i), B = _mm256_loadu_pd(a + 4 * i + 4);
        __m256d x = _mm256_permute2f128_pd(A, B, 0x20), y = _mm256_permute2f128_pd(A, B, 0x31);
        const __m256d wv = _mm256_set_pd(w[m + i + 1], w[m + i + 1], w[m + i], w[m + i]);
        if (kForward) ct(x, y, wv, c); else gs(x, y, wv, c);
        _mm256_storeu_pd(a + 4 * i, _mm256_permute2f128_pd(x, y, 0x20));
        _mm256_storeu_pd(a + 4 * i + 4, _mm256_permute2f128_pd(x, y, 0x31));
    }
}

template <bool kForward>
HELIB_AVX2 void tail_t1(double* a, size_t n, const double* w, const Consts& c) {
    const size_t m = n / 2;
    for (size_t i = 0; i < m; i += 4) {
        const __m256d A = _mm256_loadu_pd(a + 2 * i), B = _mm256_loadu_pd(a + 2 * i + 4);
        __m256d x = _mm256_unpacklo_pd(A, B), y = _mm256_unpackhi_pd(A, B);  // blocks 0 2 1 3
        const __m256d wv = _mm256_set_pd(w[m + i + 3], w[m + i + 1], w[m + i + 2], w[m + i]);
        if (kForward) ct(x, y, wv, c); else gs(x, y, wv, c);
        _mm256_storeu_pd(a + 2 * i, _mm256_unpacklo_pd(x, y));
        _mm256_storeu_pd(a + 2 * i + 4, _mm256_unpackhi_pd(x, y));
    }
}

}  // namespace

HELIB_AVX2 void ntt_forward_avx2(u64* data, size_t n, double q, const double* w) {
    const Consts c = make_consts(q);
    to_double(data, n);
    double* a = reinterpret_cast<double*>(data);
    size_t t = n;
    for (size_t m = 1; m < n / 4; m <<= 1) {
        t >>= 1;
        stage_wide<true>(a, m, t, w, c);
    }
    tail_t2<true>(a, n, w, c);
    tail_t1<true>(a, n, w, c);
    to_u64(data, n);
}

HELIB_AVX2 void ntt_inverse_avx2(u64* data, size_t n, double q, const double* w, double n_inv) {
    const Consts c = make_consts(q);
    to_double(data, n);
    double* a = reinterpret_cast<double*>(data);
    tail_t1<false>(a, n, w, c);
    tail_t2<false>(a, n, w, c);
    size_t t = 4;
    for (size_t m = n / 8; m >= 1; m >>= 1) {
        stage_wide<false>(a, m, t, w, c);
        t <<= 1;
    }
    const __m256d ninv = _mm256_set1_pd(n_inv);
    for (size_t i = 0; i < n; i += 4) _mm256_storeu_pd(a + i, mulmod(_mm256_loadu_pd(a + i), ninv, c));
    to_u64(data, n);
}

bool cpu_has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

}  // namespace helib
