#include "scheme/random.h"
#include "scheme/wipe.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace helib {
namespace {

// Bit count without the libgcc call that __builtin_popcountll becomes on baseline x86-64.
inline int popcount(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
}

inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

inline void quarter_round(uint32_t* s, int a, int b, int c, int d) {
    s[a] += s[b]; s[d] ^= s[a]; s[d] = rotl(s[d], 16);
    s[c] += s[d]; s[b] ^= s[c]; s[b] = rotl(s[b], 12);
    s[a] += s[b]; s[d] ^= s[a]; s[d] = rotl(s[d], 8);
    s[c] += s[d]; s[b] ^= s[c]; s[b] = rotl(s[b], 7);
}

}  // namespace

Seed os_seed() {
    Seed seed{};
    size_t got = 0;
    while (got < seed.size()) {
        ssize_t r = getrandom(seed.data() + got, seed.size() - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(std::string("OS random source failed: ") + std::strerror(errno));
        }
        got += static_cast<size_t>(r);
    }
    return seed;
}

Prng os_prng() {
    Seed seed = os_seed();
    Prng prng(seed);
    secure_wipe(seed.data(), seed.size());
    return prng;
}

Prng::Prng(const Seed& seed, uint64_t stream, int rounds) : double_rounds_(rounds / 2), used_(16), counter_(0) {
    static const uint32_t sigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 4; ++i) key_nonce_[i] = sigma[i];
    for (int i = 0; i < 8; ++i) {
        uint32_t w;
        std::memcpy(&w, seed.data() + 4 * i, 4);
        key_nonce_[4 + i] = w;
    }
    key_nonce_[12] = 0;
    key_nonce_[13] = 0;
    key_nonce_[14] = static_cast<uint32_t>(stream);
    key_nonce_[15] = static_cast<uint32_t>(stream >> 32);
}

Prng::~Prng() {
    secure_wipe(key_nonce_.data(), sizeof key_nonce_);
    secure_wipe(block_.data(), sizeof block_);
    secure_wipe(&spare_, sizeof spare_);
}

void chacha_block(const uint32_t* key_nonce, uint64_t counter, int double_rounds, uint32_t* out) {
    uint32_t init[16], s[16];
    std::memcpy(init, key_nonce, sizeof init);
    init[12] = static_cast<uint32_t>(counter);
    init[13] = static_cast<uint32_t>(counter >> 32);
    std::memcpy(s, init, sizeof s);
    for (int i = 0; i < double_rounds; ++i) {
        quarter_round(s, 0, 4, 8, 12);
        quarter_round(s, 1, 5, 9, 13);
        quarter_round(s, 2, 6, 10, 14);
        quarter_round(s, 3, 7, 11, 15);
        quarter_round(s, 0, 5, 10, 15);
        quarter_round(s, 1, 6, 11, 12);
        quarter_round(s, 2, 7, 8, 13);
        quarter_round(s, 3, 4, 9, 14);
    }
    for (int i = 0; i < 16; ++i) out[i] = s[i] + init[i];
}

void Prng::block(uint64_t counter, uint32_t* out) const {
    chacha_block(key_nonce_.data(), counter, double_rounds_, out);
}

void random_self_test() {
    // RFC 8439, section 2.3.2: key 00 01 .. 1f, nonce 00 00 00 09 00 00 00 4a 00 00 00 00,
    // block counter 1. Its 32-bit counter and 96-bit nonce are our 64-bit counter (words 12,
    // 13) and 64-bit stream (words 14, 15).
    static const uint32_t expected[16] = {0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033,
                                          0x9aaa2204, 0x4e6cd4c3, 0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
                                          0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
    Seed key{};
    for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(i);
    const uint64_t counter = 1 | static_cast<uint64_t>(0x09000000) << 32;
    uint32_t out[16];
    Prng(key, 0x4a000000).block(counter, out);
    if (std::memcmp(out, expected, sizeof out) != 0)
        throw std::runtime_error("ChaCha20 self-test: the RFC 8439 block does not match");
    // Known answer of the public expansion (ChaCha12 and rejection sampling): serialized keys
    // carry only the seeds of their uniform halves, so this output must not change without a
    // new format version (serialize.h).
    static const uint64_t expanded[4] = {0x1e604685f0c7bULL, 0x5e277d70760dULL, 0x150ce82c78783ULL,
                                         0x1b3efc55817eaULL};
    uint64_t got[4];
    Prng(key, 5, kPublicRounds).uniform_row(got, 4, (1ULL << 49) + 12345);
    if (std::memcmp(got, expanded, sizeof got) != 0)
        throw std::runtime_error("seed expansion self-test: the uniform rows differ from the format's");
    // The eight-block AVX2 kernel gives the scalar keystream, for both round counts, here with
    // counters whose low word wraps inside the batch.
    if (!cpu_has_avx2()) return;
    const uint64_t wrapping = 0x1fffffffdULL;
    for (int rounds : {kSecretRounds, kPublicRounds}) {
        const Prng prng(key, 7, rounds);
        uint32_t wide[128], one[16];
        chacha_blocks8_avx2(prng.key_nonce_.data(), wrapping, rounds / 2, wide);
        for (uint64_t j = 0; j < 8; ++j) {
            prng.block(wrapping + j, one);
            if (std::memcmp(one, wide + 16 * j, sizeof one) != 0)
                throw std::runtime_error("ChaCha self-test: the AVX2 keystream differs from the scalar one");
        }
    }
    // The vector rejection sampler keeps the scalar one's candidates, in order; a bound of
    // 2^47 under a 48-bit mask rejects about half of them.
    // Both paths of uniform_row, on the same seed: a bound just above 2^47 under the 48-bit mask
    // rejects about half of the candidates.
    const uint64_t bound = (1ULL << 47) + 1;
    uint64_t wide[1000], narrow[1000];
    Prng(key, 9).uniform_row_with(wide, 1000, bound, true);
    Prng(key, 9).uniform_row_with(narrow, 1000, bound, false);
    if (std::memcmp(wide, narrow, sizeof wide) != 0)
        throw std::runtime_error("sampler self-test: the AVX2 rejection sampler differs from the scalar one");
}

void Prng::refill() {
    block(counter_++, block_.data());
    used_ = 0;
}

void Prng::fill(uint32_t* out, size_t count) {
    while (count > 0 && used_ < 16) {
        *out++ = block_[used_++];
        --count;
    }
    static const bool simd = cpu_has_avx2();
    if (simd) {
        for (; count >= 128; count -= 128, out += 128, counter_ += 8)
            chacha_blocks8_avx2(key_nonce_.data(), counter_, double_rounds_, out);
    }
    for (; count >= 16; count -= 16, out += 16) block(counter_++, out);
    if (count > 0) {
        refill();
        std::memcpy(out, block_.data(), count * sizeof(uint32_t));
        used_ = count;
    }
}

void Prng::uniform_row(uint64_t* out, size_t n, uint64_t bound) {
    static const bool simd = cpu_has_avx2();
    uniform_row_with(out, n, bound, simd);
}

void Prng::uniform_row_with(uint64_t* out, size_t n, uint64_t bound, bool simd) {
    if (bound <= 1) {
        std::fill(out, out + n, 0);
        return;
    }
    const int bits = 64 - __builtin_clzll(bound - 1);
    const uint64_t mask = bits == 64 ? ~0ULL : ((1ULL << bits) - 1);
    constexpr size_t kBatch = 512;
    uint32_t words[2 * kBatch];
    size_t k = 0;
    // Rejection sampling on `bits`-bit candidates. Up to 48 bits, three keystream words make two
    // candidates (the chain primes have 48 bits or fewer, so a quarter of the ChaCha work goes);
    // wider bounds take two words per candidate.
    const bool packed = bits <= 48;
    while (k < n) {
        // At most n - k candidates per batch, so the branch-free store below stays in bounds.
        const size_t want = std::min(kBatch, n - k);
        if (packed) {
            // Words 3j..3j+2 hold candidates 2j (low 48 bits) and 2j + 1 (high 48 bits).
            const size_t candidates = 2 * ((want + 1) / 2);
            fill(words, candidates / 2 * 3);
            size_t i = 0;
            if (simd) {
                // Four at a time while four more cannot overshoot n; the same candidates in the
                // same order as below (x86 is little-endian, so candidate i is bytes 6i..6i+5),
                // and the row does not depend on the CPU.
                i = std::min(candidates, n - k) / 4 * 4;
                k += accept48_avx2(reinterpret_cast<const uint8_t*>(words), i, mask, bound, out + k);
            }
            for (; i < candidates && k < n; ++i) {
                const uint32_t* w = words + 3 * (i / 2);
                const uint64_t x = (i % 2 == 0 ? w[0] | static_cast<uint64_t>(w[1]) << 32
                                                : w[1] >> 16 | static_cast<uint64_t>(w[2]) << 16) &
                                   mask;
                out[k] = x;
                k += x < bound;
            }
        } else {
            fill(words, 2 * want);
            for (size_t i = 0; i < want; ++i) {
                const uint64_t x = (words[2 * i] | static_cast<uint64_t>(words[2 * i + 1]) << 32) & mask;
                out[k] = x;
                k += x < bound;
            }
        }
    }
}

void Prng::centered_binomial_row(int32_t* out, size_t n) {
    constexpr size_t kBatch = 512;
    uint32_t words[2 * kBatch];
    for (size_t k = 0; k < n; k += kBatch) {
        const size_t len = std::min(kBatch, n - k);
        fill(words, 2 * len);
        for (size_t i = 0; i < len; ++i) {
            const uint64_t x = words[2 * i] | static_cast<uint64_t>(words[2 * i + 1]) << 32;
            out[k + i] = popcount(x & 0x1fffffULL) - popcount((x >> 21) & 0x1fffffULL);
        }
    }
    // The keystream the errors were drawn from gives the errors back.
    secure_wipe(words, sizeof words);
}

uint32_t Prng::next_u32() {
    if (used_ == 16) refill();
    return block_[used_++];
}

uint64_t Prng::next_u64() {
    uint64_t lo = next_u32();
    return lo | (static_cast<uint64_t>(next_u32()) << 32);
}

uint64_t Prng::uniform(uint64_t bound) {
    if (bound <= 1) return 0;
    int bits = 64 - __builtin_clzll(bound - 1);
    uint64_t mask = bits == 64 ? ~0ULL : ((1ULL << bits) - 1);
    for (;;) {
        uint64_t x = next_u64() & mask;
        if (x < bound) return x;
    }
}

int Prng::ternary() {
    // One byte per draw; 255 is rejected so that the three values are equally likely.
    for (;;) {
        if (spare_bytes_ == 0) {
            spare_ = next_u32();
            spare_bytes_ = 4;
        }
        const uint32_t x = spare_ & 0xff;
        spare_ >>= 8;
        --spare_bytes_;
        if (x < 255) return static_cast<int>(x % 3) - 1;
    }
}

int Prng::centered_binomial() {
    uint64_t x = next_u64();
    return popcount(x & 0x1fffffULL) - popcount((x >> 21) & 0x1fffffULL);
}

}  // namespace helib
