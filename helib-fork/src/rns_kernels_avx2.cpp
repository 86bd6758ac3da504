// AVX2 + FMA versions of the row kernels; the arithmetic is the exact double-precision
// reduction explained in ntt_avx2.cpp.
#include <immintrin.h>

#include <vector>

#include "rns_kernels.h"

namespace helib {
namespace {

#define HELIB_AVX2 __attribute__((target("avx2,fma")))

constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52
constexpr double kTwo52 = 4503599627370496.0;
constexpr long long kTwo52Bits = 0x4330000000000000LL;

struct V {
    __m256d q, qinv, zero, magic, two52;
    __m256i bits;
};

HELIB_AVX2 inline V consts(u64 q) {
    const double qd = static_cast<double>(q);
    return {_mm256_set1_pd(qd),        _mm256_set1_pd(1.0 / qd), _mm256_setzero_pd(),
            _mm256_set1_pd(kRoundMagic), _mm256_set1_pd(kTwo52),  _mm256_set1_epi64x(kTwo52Bits)};
}

HELIB_AVX2 inline __m256d load(const u64* p, const V& c) {  // u64 < 2^52 -> double
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, c.bits)), c.two52);
}

HELIB_AVX2 inline void store(u64* p, __m256d d, const V& c) {  // double in [0, 2^52) -> u64
    const __m256i x = _mm256_xor_si256(_mm256_castpd_si256(_mm256_add_pd(d, c.two52)), c.bits);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x);
}

// a * b mod q in (-q, q) for |a|, |b| < 2^50 (signed a allowed).
HELIB_AVX2 inline __m256d mulmod_signed(__m256d a, __m256d b, const V& c) {
    const __m256d hi = _mm256_mul_pd(a, b);
    const __m256d lo = _mm256_fmsub_pd(a, b, hi);
    const __m256d quot = _mm256_sub_pd(_mm256_fmadd_pd(hi, c.qinv, c.magic), c.magic);
    return _mm256_add_pd(_mm256_fnmadd_pd(quot, c.q, hi), lo);
}

HELIB_AVX2 inline __m256d lift_neg(__m256d d, const V& c) {  // (-q, q) -> [0, q)
    return _mm256_add_pd(d, _mm256_and_pd(_mm256_cmp_pd(d, c.zero, _CMP_LT_OQ), c.q));
}

HELIB_AVX2 inline __m256d reduce_once(__m256d s, const V& c) {  // [0, 2q) -> [0, q)
    return _mm256_sub_pd(s, _mm256_and_pd(_mm256_cmp_pd(s, c.q, _CMP_GE_OQ), c.q));
}

HELIB_AVX2 inline __m256d mulmod(__m256d a, __m256d b, const V& c) {
    return lift_neg(mulmod_signed(a, b, c), c);
}

}  // namespace

HELIB_AVX2 void row_mul_avx2(u64* out, const u64* a, const u64* b, size_t n, u64 q) {
    const V c = consts(q);
    for (size_t k = 0; k < n; k += 4) store(out + k, mulmod(load(a + k, c), load(b + k, c), c), c);
}

HELIB_AVX2 void row_mul_add_avx2(u64* out, const u64* a, const u64* b, size_t n, u64 q) {
    const V c = consts(q);
    for (size_t k = 0; k < n; k += 4) {
        const __m256d prod = mulmod(load(a + k, c), load(b + k, c), c);
        store(out + k, reduce_once(_mm256_add_pd(load(out + k, c), prod), c), c);
    }
}

HELIB_AVX2 void row_cross_avx2(u64* out, const u64* a0, const u64* b1, const u64* a1, const u64* b0,
                               size_t n, u64 q) {
    const V c = consts(q);
    for (size_t k = 0; k < n; k += 4) {
        const __m256d x = mulmod(load(a0 + k, c), load(b1 + k, c), c);
        const __m256d y = mulmod(load(a1 + k, c), load(b0 + k, c), c);
        store(out + k, reduce_once(_mm256_add_pd(x, y), c), c);
    }
}

HELIB_AVX2 void row_convert_centered_avx2(u64* out, const u64* const* in, const u64* q_in, const u64* w,
                                          size_t s, size_t n, u64 q) {
    const V c = consts(q);
    // Per-input constants as doubles, broadcast from memory in the loop.
    std::vector<double> qa(s), half(s), wd(s);
    for (size_t a = 0; a < s; ++a) {
        qa[a] = static_cast<double>(q_in[a]);
        half[a] = static_cast<double>(q_in[a] / 2);
        wd[a] = static_cast<double>(w[a]);
    }
    for (size_t k = 0; k < n; k += 4) {
        __m256d acc = c.zero;
        for (size_t a = 0; a < s; ++a) {
            __m256d t = load(in[a] + k, c);
            const __m256d neg = _mm256_cmp_pd(t, _mm256_broadcast_sd(&half[a]), _CMP_GT_OQ);
            t = _mm256_sub_pd(t, _mm256_and_pd(neg, _mm256_broadcast_sd(&qa[a])));  // centered
            const __m256d prod = mulmod_signed(t, _mm256_broadcast_sd(&wd[a]), c);
            acc = reduce_once(_mm256_add_pd(acc, lift_neg(prod, c)), c);
        }
        store(out + k, acc, c);
    }
}

}  // namespace helib
