// Modular arithmetic on four lanes of doubles (AVX2 + FMA) for primes q < 2^50, shared by the
// AVX2 NTT and row kernels. Include only from translation units built for AVX2 dispatch.
//
// Why doubles: AVX2 has no 64x64-bit multiply, but an FMA computes y*w exactly as hi + lo
// (hi = fl(y*w), lo = fma(y, w, -hi)), and with quot = round(hi / q) the remainder
// r = (hi - quot q) + lo is an exact integer. Values are exact integers held signed.
//
// Bounds (q < 2^50, so q * 2^-52 < 1/4): for |y| < 2^51 and w in [0, q),
// |y * w mod q| as computed is <= q/2 + |y|/4; reduce() returns [-q/2, q/2] for |v| < 2^52.
//
// The K-way forms apply one instruction kind to K independent vectors before the next: one
// modular product is a ~17-cycle dependency chain, and only interleaving several in program
// order keeps both FMA pipes busy.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "math/modarith.h"

#define HELIB_AVX2 __attribute__((target("avx2,fma")))

namespace helib {
namespace avx2 {

// 1.5 * 2^52: adding and subtracting it rounds a double below 2^51 to the nearest integer.
constexpr double kRoundMagic = 6755399441055744.0;
// 2^52 as a double and as its bit pattern: u64 x < 2^52 <-> double by OR-ing the exponent.
constexpr double kTwo52 = 4503599627370496.0;
constexpr long long kTwo52Bits = 0x4330000000000000LL;

struct Consts {
    __m256d q, qinv, zero, magic, two52;
    __m256i bits;
};

HELIB_AVX2 inline Consts make_consts(double q) {
    return {_mm256_set1_pd(q),           _mm256_set1_pd(1.0 / q), _mm256_setzero_pd(),
            _mm256_set1_pd(kRoundMagic), _mm256_set1_pd(kTwo52),  _mm256_set1_epi64x(kTwo52Bits)};
}

// Four u64 words below 2^52 as doubles.
HELIB_AVX2 inline __m256d load_u64(const void* p, const Consts& c) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, c.bits)), c.two52);
}

// Stores a signed value in (-q, q) as its residue in [0, q).
HELIB_AVX2 inline void store_u64(void* p, __m256d v, const Consts& c) {
    v = _mm256_add_pd(v, _mm256_and_pd(_mm256_cmp_pd(v, c.zero, _CMP_LT_OQ), c.q));
    const __m256i x = _mm256_xor_si256(_mm256_castpd_si256(_mm256_add_pd(v, c.two52)), c.bits);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x);
}

// r[k] = y[k] * w[k] mod q, signed, |r| <= q/2 + |y|/4 (|y| < 2^51, w in [0, q)).
template <int K>
HELIB_AVX2 inline void mulmod(__m256d* r, const __m256d* y, const __m256d* w, const Consts& c) {
    __m256d hi[K], lo[K], quot[K];
    for (int k = 0; k < K; ++k) hi[k] = _mm256_mul_pd(y[k], w[k]);
    for (int k = 0; k < K; ++k) quot[k] = _mm256_fmadd_pd(hi[k], c.qinv, c.magic);
    for (int k = 0; k < K; ++k) lo[k] = _mm256_fmsub_pd(y[k], w[k], hi[k]);
    for (int k = 0; k < K; ++k) quot[k] = _mm256_sub_pd(quot[k], c.magic);
    for (int k = 0; k < K; ++k) r[k] = _mm256_fnmadd_pd(quot[k], c.q, hi[k]);
    for (int k = 0; k < K; ++k) r[k] = _mm256_add_pd(r[k], lo[k]);
}

// As mulmod, with one factor w shared by all K vectors.
template <int K>
HELIB_AVX2 inline void mulmod_by(__m256d* r, const __m256d* y, __m256d w, const Consts& c) {
    __m256d ws[K];
    for (int k = 0; k < K; ++k) ws[k] = w;
    mulmod<K>(r, y, ws, c);
}

// v[k] - round(v[k] / q) q, in [-q/2, q/2].
template <int K>
HELIB_AVX2 inline void reduce(__m256d* v, const Consts& c) {
    __m256d quot[K];
    for (int k = 0; k < K; ++k) quot[k] = _mm256_fmadd_pd(v[k], c.qinv, c.magic);
    for (int k = 0; k < K; ++k) quot[k] = _mm256_sub_pd(quot[k], c.magic);
    for (int k = 0; k < K; ++k) v[k] = _mm256_fnmadd_pd(quot[k], c.q, v[k]);
}

}  // namespace avx2
}  // namespace helib
