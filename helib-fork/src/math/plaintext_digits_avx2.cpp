// Four coefficients per step, one vector per limb (after a 4 x 4 transpose), so that the
// comparisons, the centring subtraction and the digit carries run on all four at once instead
// of as per-coefficient branches.

#include "math/arch.h"

#if HELIB_X86_64

#include <immintrin.h>

#include "math/avx2_modq.h"
#include "math/plaintext_digits.h"

namespace helib {
namespace {

// out[o] lane k = x[k] lane o.
HELIB_AVX2 inline void transpose4(const __m256i* x, __m256i* out) {
    const __m256i t0 = _mm256_unpacklo_epi64(x[0], x[1]);
    const __m256i t1 = _mm256_unpackhi_epi64(x[0], x[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(x[2], x[3]);
    const __m256i t3 = _mm256_unpackhi_epi64(x[2], x[3]);
    out[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    out[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    out[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    out[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

// Unsigned a < b per lane (all ones where true), from sign-flipped operands: AVX2 compares
// only signed 64-bit integers.
HELIB_AVX2 inline __m256i less_flipped(__m256i a_flipped, __m256i b_flipped) {
    return _mm256_cmpgt_epi64(b_flipped, a_flipped);
}

// Whether a < b for 4-limb integers, lanewise; operands sign-flipped.
HELIB_AVX2 inline __m256i less4(const __m256i* a, const __m256i* b) {
    __m256i lt = less_flipped(a[0], b[0]);
    for (int o = 1; o < 4; ++o)
        lt = _mm256_or_si256(less_flipped(a[o], b[o]), _mm256_and_si256(_mm256_cmpeq_epi64(a[o], b[o]), lt));
    return lt;
}

}  // namespace

HELIB_AVX2 size_t balanced_digits_4x5_avx2(const u64* coeffs, size_t count, const u64* p, const u64* half,
                                           double* digits, size_t stride, double* centered) {
    const __m256i flip = _mm256_set1_epi64x(static_cast<long long>(u64{1} << 63));
    __m256i pv[4], pf[4], hf[4];
    for (int o = 0; o < 4; ++o) {
        pv[o] = _mm256_set1_epi64x(static_cast<long long>(p[o]));
        pf[o] = _mm256_xor_si256(pv[o], flip);
        hf[o] = _mm256_xor_si256(_mm256_set1_epi64x(static_cast<long long>(half[o])), flip);
    }
    const __m256i mask = _mm256_set1_epi64x((1LL << kDigitBits) - 1);
    const __m256i digit_half = _mm256_set1_epi64x(1LL << (kDigitBits - 1));
    const __m256i minus_base = _mm256_set1_epi64x(-(1LL << kDigitBits));
    // |digit| <= 2^50: adding the bit pattern of 1.5 * 2^52 lands in the binade where the
    // pattern is linear, and subtracting 1.5 * 2^52 as a double leaves the digit.
    const __m256i magic_bits = _mm256_set1_epi64x(0x4338000000000000LL);
    const __m256d magic = _mm256_set1_pd(avx2::kRoundMagic);
    const __m256d base = _mm256_set1_pd(static_cast<double>(u64{1} << kDigitBits));

    for (size_t i = 0; i < count; i += 4) {
        __m256i e[4], x[4], xf[4];
        for (int k = 0; k < 4; ++k) e[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(coeffs + 4 * (i + k)));
        transpose4(e, x);
        for (int o = 0; o < 4; ++o) xf[o] = _mm256_xor_si256(x[o], flip);
        if (_mm256_movemask_pd(_mm256_castsi256_pd(less4(xf, pf))) != 0xF) return i;
        const __m256i negative = less4(hf, xf);

        // p - x with the borrow as a mask (all ones = borrow 1), kept where negative.
        __m256i mag[4], borrow = _mm256_setzero_si256();
        for (int o = 0; o < 4; ++o) {
            const __m256i d = _mm256_add_epi64(_mm256_sub_epi64(pv[o], x[o]), borrow);
            borrow = _mm256_or_si256(less_flipped(pf[o], xf[o]), _mm256_and_si256(_mm256_cmpeq_epi64(pv[o], x[o]), borrow));
            mag[o] = _mm256_blendv_epi8(x[o], d, negative);
        }

        // 51-bit pieces at bits 0, 51, 102, 153, 204 (the magnitude is below 2^254).
        __m256i piece[5];
        piece[0] = _mm256_and_si256(mag[0], mask);
        piece[1] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(mag[0], 51), _mm256_slli_epi64(mag[1], 13)), mask);
        piece[2] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(mag[1], 38), _mm256_slli_epi64(mag[2], 26)), mask);
        piece[3] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(mag[2], 25), _mm256_slli_epi64(mag[3], 39)), mask);
        piece[4] = _mm256_srli_epi64(mag[3], 12);

        // A piece above 2^50 becomes piece - 2^51 and carries one into the next (the carry
        // mask is all ones, so subtracting it adds one); then the sign, then doubles.
        __m256i carry = _mm256_setzero_si256();
        __m256d value = _mm256_setzero_pd();
        __m256d digit[5];
        for (int j = 0; j < 5; ++j) {
            const __m256i v = _mm256_sub_epi64(piece[j], carry);
            carry = _mm256_cmpgt_epi64(v, digit_half);
            __m256i d = _mm256_add_epi64(v, _mm256_and_si256(carry, minus_base));
            d = _mm256_sub_epi64(_mm256_xor_si256(d, negative), negative);
            digit[j] = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(d, magic_bits)), magic);
            _mm256_storeu_pd(digits + j * stride + i, digit[j]);
        }
        if (centered != nullptr) {
            // Most significant first; the products by 2^51 are exact.
            for (int j = 5; j-- > 0;) value = _mm256_add_pd(_mm256_mul_pd(value, base), digit[j]);
            _mm256_storeu_pd(centered + i, value);
        }
    }
    return count;
}

}  // namespace helib

#else  // not x86-64: the entry points, never selected (arch.h)

#include "math/plaintext_digits.h"

namespace helib {

size_t balanced_digits_4x5_avx2(const u64*, size_t, const u64*, const u64*, double*, size_t, double*) {
    kernel_not_built();
}

}  // namespace helib

#endif  // HELIB_X86_64
