// ChaCha, eight blocks at once in AVX2: lane j of vector i holds word i of block
// counter + j. The output is the scalar keystream's, word for word.

#include "math/arch.h"

#if HELIB_X86_64

#include <immintrin.h>

#include "scheme/random.h"

namespace helib {
namespace {

#define HELIB_AVX2_ONLY __attribute__((target("avx2")))

template <int kBits>
HELIB_AVX2_ONLY inline __m256i rotl(__m256i x) {
    if (kBits == 16) {
        const __m256i m = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4,
                                           5, 10, 11, 8, 9, 14, 15, 12, 13);
        return _mm256_shuffle_epi8(x, m);
    }
    if (kBits == 8) {
        const __m256i m = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5,
                                           6, 11, 8, 9, 10, 15, 12, 13, 14);
        return _mm256_shuffle_epi8(x, m);
    }
    return _mm256_or_si256(_mm256_slli_epi32(x, kBits), _mm256_srli_epi32(x, 32 - kBits));
}

// One quarter round on four named state vectors (named, not an array, so the compiler keeps
// the state in registers instead of copying it through memory).
#define HELIB_CHACHA_QR(a, b, c, d)          \
    a = _mm256_add_epi32(a, b);              \
    d = rotl<16>(_mm256_xor_si256(d, a));    \
    c = _mm256_add_epi32(c, d);              \
    b = rotl<12>(_mm256_xor_si256(b, c));    \
    a = _mm256_add_epi32(a, b);              \
    d = rotl<8>(_mm256_xor_si256(d, a));     \
    c = _mm256_add_epi32(c, d);              \
    b = rotl<7>(_mm256_xor_si256(b, c))

// Rows r0..r7 (lane j of r_i = word i of block j) to block-major: out + 16 j receives lane j of
// each row, eight words.
HELIB_AVX2_ONLY inline void transpose_store(__m256i r0, __m256i r1, __m256i r2, __m256i r3, __m256i r4,
                                            __m256i r5, __m256i r6, __m256i r7, uint32_t* out) {
    const __m256i a0 = _mm256_unpacklo_epi32(r0, r1), a1 = _mm256_unpackhi_epi32(r0, r1);
    const __m256i a2 = _mm256_unpacklo_epi32(r2, r3), a3 = _mm256_unpackhi_epi32(r2, r3);
    const __m256i a4 = _mm256_unpacklo_epi32(r4, r5), a5 = _mm256_unpackhi_epi32(r4, r5);
    const __m256i a6 = _mm256_unpacklo_epi32(r6, r7), a7 = _mm256_unpackhi_epi32(r6, r7);
    const __m256i b0 = _mm256_unpacklo_epi64(a0, a2), b1 = _mm256_unpackhi_epi64(a0, a2);
    const __m256i b2 = _mm256_unpacklo_epi64(a1, a3), b3 = _mm256_unpackhi_epi64(a1, a3);
    const __m256i b4 = _mm256_unpacklo_epi64(a4, a6), b5 = _mm256_unpackhi_epi64(a4, a6);
    const __m256i b6 = _mm256_unpacklo_epi64(a5, a7), b7 = _mm256_unpackhi_epi64(a5, a7);
    // b0 holds blocks 0 and 4 (words 0-3 of the row group), b1 blocks 1 and 5, b2 2 and 6, b3 3 and 7.
    const __m256i rows[8] = {_mm256_permute2x128_si256(b0, b4, 0x20), _mm256_permute2x128_si256(b1, b5, 0x20),
                             _mm256_permute2x128_si256(b2, b6, 0x20), _mm256_permute2x128_si256(b3, b7, 0x20),
                             _mm256_permute2x128_si256(b0, b4, 0x31), _mm256_permute2x128_si256(b1, b5, 0x31),
                             _mm256_permute2x128_si256(b2, b6, 0x31), _mm256_permute2x128_si256(b3, b7, 0x31)};
    for (int j = 0; j < 8; ++j) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 16 * j), rows[j]);
}

HELIB_AVX2_ONLY inline __m256i word(const uint32_t* key_nonce, int i) {
    return _mm256_set1_epi32(static_cast<int>(key_nonce[i]));
}

}  // namespace

HELIB_AVX2_ONLY void chacha_blocks8_avx2(const uint32_t* key_nonce, uint64_t counter, int double_rounds,
                                         uint32_t* out) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // 64-bit counters counter + j: low words, and high words with the carry out of the low ones.
    const __m256i lo = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(counter))), lanes);
    const __m256i sign = _mm256_set1_epi32(INT32_MIN);
    const __m256i carry = _mm256_cmpgt_epi32(_mm256_xor_si256(lanes, sign), _mm256_xor_si256(lo, sign));
    const __m256i hi = _mm256_sub_epi32(_mm256_set1_epi32(static_cast<int>(counter >> 32)), carry);
    __m256i x0 = word(key_nonce, 0), x1 = word(key_nonce, 1), x2 = word(key_nonce, 2), x3 = word(key_nonce, 3), x4 = word(key_nonce, 4), x5 = word(key_nonce, 5), x6 = word(key_nonce, 6),
            x7 = word(key_nonce, 7), x8 = word(key_nonce, 8), x9 = word(key_nonce, 9), x10 = word(key_nonce, 10), x11 = word(key_nonce, 11), x12 = lo, x13 = hi,
            x14 = word(key_nonce, 14), x15 = word(key_nonce, 15);
    for (int r = 0; r < double_rounds; ++r) {
        HELIB_CHACHA_QR(x0, x4, x8, x12);
        HELIB_CHACHA_QR(x1, x5, x9, x13);
        HELIB_CHACHA_QR(x2, x6, x10, x14);
        HELIB_CHACHA_QR(x3, x7, x11, x15);
        HELIB_CHACHA_QR(x0, x5, x10, x15);
        HELIB_CHACHA_QR(x1, x6, x11, x12);
        HELIB_CHACHA_QR(x2, x7, x8, x13);
        HELIB_CHACHA_QR(x3, x4, x9, x14);
    }
    // Feed-forward, then word-major to block-major.
    transpose_store(_mm256_add_epi32(x0, word(key_nonce, 0)), _mm256_add_epi32(x1, word(key_nonce, 1)), _mm256_add_epi32(x2, word(key_nonce, 2)),
                    _mm256_add_epi32(x3, word(key_nonce, 3)), _mm256_add_epi32(x4, word(key_nonce, 4)), _mm256_add_epi32(x5, word(key_nonce, 5)),
                    _mm256_add_epi32(x6, word(key_nonce, 6)), _mm256_add_epi32(x7, word(key_nonce, 7)), out);
    transpose_store(_mm256_add_epi32(x8, word(key_nonce, 8)), _mm256_add_epi32(x9, word(key_nonce, 9)), _mm256_add_epi32(x10, word(key_nonce, 10)),
                    _mm256_add_epi32(x11, word(key_nonce, 11)), _mm256_add_epi32(x12, lo), _mm256_add_epi32(x13, hi),
                    _mm256_add_epi32(x14, word(key_nonce, 14)), _mm256_add_epi32(x15, word(key_nonce, 15)), out + 8);
}

#undef HELIB_CHACHA_QR

HELIB_AVX2_ONLY size_t accept48_avx2(const uint8_t* bytes, size_t count, uint64_t mask, uint64_t bound,
                                     uint64_t* out) {
    // Per 128-bit lane, two 6-byte candidates widened to 64 bits.
    const __m256i spread = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, -1, -1, 6, 7, 8, 9, 10, 11, -1, -1, 0, 1, 2, 3, 4, 5,
                                            -1, -1, 6, 7, 8, 9, 10, 11, -1, -1);
    const __m256i m = _mm256_set1_epi64x(static_cast<long long>(mask));
    const __m256i b = _mm256_set1_epi64x(static_cast<long long>(bound));
    size_t k = 0;
    for (size_t i = 0; i < count; i += 4) {
        const uint8_t* p = bytes + 6 * i;
        const __m256i raw = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + 12),
                                                reinterpret_cast<const __m128i*>(p));
        const __m256i x = _mm256_and_si256(_mm256_shuffle_epi8(raw, spread), m);
        // Candidates are below 2^48, so the signed compare is the unsigned one.
        const int below = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(b, x)));
        if (below == 0xF) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), x);
            k += 4;
            continue;
        }
        alignas(32) uint64_t lane[4];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lane), x);
        for (int j = 0; j < 4; ++j) {
            out[k] = lane[j];
            k += (below >> j) & 1;
        }
    }
    return k;
}

bool cpu_has_avx2() { return __builtin_cpu_supports("avx2"); }

}  // namespace helib

#else  // not x86-64: the entry points, never selected (arch.h)

#include "scheme/random.h"

namespace helib {

void chacha_blocks8_avx2(const uint32_t*, uint64_t, int, uint32_t*) { kernel_not_built(); }
bool cpu_has_avx2() { return false; }
size_t accept48_avx2(const uint8_t*, size_t, uint64_t, uint64_t, uint64_t*) { kernel_not_built(); }

}  // namespace helib

#endif  // HELIB_X86_64
