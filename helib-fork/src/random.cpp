#include "random.h"

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

Prng::Prng(const Seed& seed, uint64_t stream) : used_(16), counter_(0) {
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

void Prng::block(uint64_t counter, uint32_t* out) const {
    uint32_t init[16], s[16];
    std::memcpy(init, key_nonce_.data(), sizeof init);
    init[12] = static_cast<uint32_t>(counter);
    init[13] = static_cast<uint32_t>(counter >> 32);
    std::memcpy(s, init, sizeof s);
    for (int i = 0; i < 10; ++i) {
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
            chacha20_blocks8_avx2(key_nonce_.data(), counter_, out);
    }
    for (; count >= 16; count -= 16, out += 16) block(counter_++, out);
    if (count > 0) {
        refill();
        std::memcpy(out, block_.data(), count * sizeof(uint32_t));
        used_ = count;
    }
}

void Prng::uniform_row(uint64_t* out, size_t n, uint64_t bound) {
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
            const size_t pairs = (want + 1) / 2;
            fill(words, 3 * pairs);
            for (size_t i = 0; i < pairs; ++i) {
                const uint32_t* w = words + 3 * i;
                const uint64_t x = (w[0] | static_cast<uint64_t>(w[1]) << 32) & mask;
                const uint64_t y = (w[1] >> 16 | static_cast<uint64_t>(w[2]) << 16) & mask;
                out[k] = x;
                k += x < bound;
                if (k == n) break;
                out[k] = y;
                k += y < bound;
                if (k == n) break;
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
