// ChaCha20, eight blocks at once in AVX2: lane j of vector i holds word i of block
// counter + j. The output is the scalar keystream's, word for word.
#include <immintrin.h>

#include "random.h"

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

HELIB_AVX2_ONLY inline void quarter_round(__m256i* s, int a, int b, int c, int d) {
    s[a] = _mm256_add_epi32(s[a], s[b]);
    s[d] = rotl<16>(_mm256_xor_si256(s[d], s[a]));
    s[c] = _mm256_add_epi32(s[c], s[d]);
    s[b] = rotl<12>(_mm256_xor_si256(s[b], s[c]));
    s[a] = _mm256_add_epi32(s[a], s[b]);
    s[d] = rotl<8>(_mm256_xor_si256(s[d], s[a]));
    s[c] = _mm256_add_epi32(s[c], s[d]);
    s[b] = rotl<7>(_mm256_xor_si256(s[b], s[c]));
}

}  // namespace

HELIB_AVX2_ONLY void chacha20_blocks8_avx2(const uint32_t* key_nonce, uint64_t counter, uint32_t* out) {
    __m256i init[16], s[16];
    for (int i = 0; i < 16; ++i) init[i] = _mm256_set1_epi32(static_cast<int>(key_nonce[i]));
    alignas(32) uint32_t lo[8], hi[8];
    for (int j = 0; j < 8; ++j) {
        const uint64_t c = counter + static_cast<uint64_t>(j);
        lo[j] = static_cast<uint32_t>(c);
        hi[j] = static_cast<uint32_t>(c >> 32);
    }
    init[12] = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
    init[13] = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
    for (int i = 0; i < 16; ++i) s[i] = init[i];
    for (int r = 0; r < 10; ++r) {
        quarter_round(s, 0, 4, 8, 12);
        quarter_round(s, 1, 5, 9, 13);
        quarter_round(s, 2, 6, 10, 14);
        quarter_round(s, 3, 7, 11, 15);
        quarter_round(s, 0, 5, 10, 15);
        quarter_round(s, 1, 6, 11, 12);
        quarter_round(s, 2, 7, 8, 13);
        quarter_round(s, 3, 4, 9, 14);
    }
    // Word-major to block-major through a small buffer (simple, and cheap next to the rounds).
    alignas(32) uint32_t words[16][8];
    for (int i = 0; i < 16; ++i)
        _mm256_store_si256(reinterpret_cast<__m256i*>(words[i]), _mm256_add_epi32(s[i], init[i]));
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 16; ++i) out[16 * j + i] = words[i][j];
}

bool cpu_has_avx2() { return __builtin_cpu_supports("avx2"); }

}  // namespace helib
