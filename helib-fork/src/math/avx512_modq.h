// Modular arithmetic on eight lanes of doubles (AVX-512 F + DQ) for primes q < 2^50: the same
// method and bounds as avx2_modq.h (an FMA splits y*w exactly into hi + lo, and a rounded
// quotient takes hi below q), on vectors twice as wide. Include only from translation units
// built for AVX-512 dispatch.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "math/modarith.h"

#define HELIB_AVX512 __attribute__((target("avx512f,avx512dq")))

namespace helib {
namespace avx512 {

// 1.5 * 2^52: adding and subtracting it rounds a double below 2^51 to the nearest integer.
constexpr double kRoundMagic = 6755399441055744.0;

struct Consts {
    __m512d q, qinv, zero, magic;
};

HELIB_AVX512 inline Consts make_consts(double q) {
    return {_mm512_set1_pd(q), _mm512_set1_pd(1.0 / q), _mm512_setzero_pd(), _mm512_set1_pd(kRoundMagic)};
}

// Eight words below 2^52 as doubles (exact).
HELIB_AVX512 inline __m512d load_u64(const u64* p) {
    return _mm512_cvtepu64_pd(_mm512_loadu_si512(reinterpret_cast<const void*>(p)));
}

// Stores a signed integer value in (-q, q) as its residue in [0, q).
HELIB_AVX512 inline void store_u64(u64* p, __m512d v, const Consts& c) {
    v = _mm512_mask_add_pd(v, _mm512_cmp_pd_mask(v, c.zero, _CMP_LT_OQ), v, c.q);
    _mm512_storeu_si512(reinterpret_cast<void*>(p), _mm512_cvtpd_epu64(v));
}

// r[k] = y[k] * w[k] mod q, signed, |r| <= q/2 + |y|/4 (|y| < 2^51, w in [0, q)).
template <int K>
HELIB_AVX512 inline void mulmod(__m512d* r, const __m512d* y, const __m512d* w, const Consts& c) {
    __m512d hi[K], lo[K], quot[K];
    for (int k = 0; k < K; ++k) hi[k] = _mm512_mul_pd(y[k], w[k]);
    for (int k = 0; k < K; ++k) quot[k] = _mm512_fmadd_pd(hi[k], c.qinv, c.magic);
    for (int k = 0; k < K; ++k) lo[k] = _mm512_fmsub_pd(y[k], w[k], hi[k]);
    for (int k = 0; k < K; ++k) quot[k] = _mm512_sub_pd(quot[k], c.magic);
    for (int k = 0; k < K; ++k) r[k] = _mm512_fnmadd_pd(quot[k], c.q, hi[k]);
    for (int k = 0; k < K; ++k) r[k] = _mm512_add_pd(r[k], lo[k]);
}

// v[k] - round(v[k] / q) q, in [-q/2, q/2], for |v| < 2^52.
template <int K>
HELIB_AVX512 inline void reduce(__m512d* v, const Consts& c) {
    __m512d quot[K];
    for (int k = 0; k < K; ++k) quot[k] = _mm512_fmadd_pd(v[k], c.qinv, c.magic);
    for (int k = 0; k < K; ++k) quot[k] = _mm512_sub_pd(quot[k], c.magic);
    for (int k = 0; k < K; ++k) v[k] = _mm512_fnmadd_pd(quot[k], c.q, v[k]);
}

}  // namespace avx512
}  // namespace helib
