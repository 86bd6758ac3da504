#include "random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace helib {
namespace {

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

void Prng::refill() {
    uint32_t s[16];
    key_nonce_[12] = static_cast<uint32_t>(counter_);
    key_nonce_[13] = static_cast<uint32_t>(counter_ >> 32);
    ++counter_;
    std::memcpy(s, key_nonce_.data(), sizeof s);
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
    for (int i = 0; i < 16; ++i) block_[i] = s[i] + key_nonce_[i];
    used_ = 0;
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
    int a = __builtin_popcountll(x & 0x1fffffULL);
    int b = __builtin_popcountll((x >> 21) & 0x1fffffULL);
    return a - b;
}

}  // namespace helib
