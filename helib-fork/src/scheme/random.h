// Randomness: a ChaCha stream keyed from the OS CSPRNG (getrandom), and the samplers BGV
// needs. Each sampling site owns its generator, so there is no shared mutable state.
//
// Secrets, errors and encryption randomness use ChaCha20. The public uniform polynomials (the
// "a" parts of keys) are expanded from their seed with ChaCha12, as Rust's rand crate does for
// its StdRng: twelve rounds keep a wide margin over the best known attack (seven rounds), and
// the "a" parts need only look uniform, while they are about a quarter of the time of key
// generation with twenty.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "math/modarith.h"

namespace helib {

using Seed = std::array<uint8_t, 32>;

// 32 bytes from the OS CSPRNG; throws std::runtime_error if the OS cannot provide them.
Seed os_seed();
class Prng;
// A generator keyed from the OS, for secrets (keys, encryption randomness): the seed is wiped
// once it is in the key, so no copy of it outlives the generator.
Prng os_prng();

// Rounds of the two ChaCha variants.
constexpr int kSecretRounds = 20;
constexpr int kPublicRounds = 12;

// ChaCha keystream used as a deterministic expander of a 256-bit seed.
class Prng {
public:
    explicit Prng(const Seed& seed, uint64_t stream = 0, int rounds = kSecretRounds);
    // The key and the buffered keystream are wiped: a secret's generator must not outlive it.
    ~Prng();
    Prng(const Prng&) = default;
    Prng& operator=(const Prng&) = default;

    uint64_t next_u64();
    uint32_t next_u32();
    // The next `count` keystream words, the same words `count` calls of next_u32() return;
    // whole blocks are generated eight at a time with AVX2 where the CPU has it.
    void fill(uint32_t* out, size_t count);
    // n values uniform in [0, bound), each as uniform(bound) would draw it.
    void uniform_row(uint64_t* out, size_t n, uint64_t bound);
    // n centered binomial values, each as centered_binomial() would draw it.
    void centered_binomial_row(int32_t* out, size_t n);
    // Uniform in [0, bound) by rejection sampling (no modulo bias).
    uint64_t uniform(uint64_t bound);
    // Uniform in {-1, 0, 1}.
    int ternary();
    // Centered binomial with 21 coin pairs: mean 0, variance 10.5 (sigma ~ 3.24), as the
    // error distribution (the HE Standard's sigma = 3.2).
    int centered_binomial();

private:
    friend void random_self_test();
    // uniform_row with the AVX2 rejection sampler or without (same output).
    void uniform_row_with(uint64_t* out, size_t n, uint64_t bound, bool simd);
    void refill();
    // Keystream block number `counter` into out.
    void block(uint64_t counter, uint32_t* out) const;
    std::array<uint32_t, 16> key_nonce_;
    std::array<uint32_t, 16> block_;
    int double_rounds_;
    size_t used_;  // words of block_ consumed
    uint64_t counter_;
    uint32_t spare_ = 0;  // unused bytes of the last word, for ternary()
    int spare_bytes_ = 0;
};

// Eight consecutive ChaCha blocks (counters counter..counter+7) of the state `key_nonce`
// (words 12, 13 ignored), 128 words in block order (random_avx2.cpp).
void chacha_blocks8_avx2(const uint32_t* key_nonce, uint64_t counter, int double_rounds, uint32_t* out);
bool cpu_has_avx2();
// Rejection sampling on 48-bit candidates, four at a time: candidate i (i < count, count a
// multiple of 4) is bytes [6i, 6i + 6) of `bytes` little-endian, masked by `mask`; those below
// `bound` go to out in order. Returns how many. Reads up to 4 bytes past the last candidate.
size_t accept48_avx2(const uint8_t* bytes, size_t count, uint64_t mask, uint64_t bound, uint64_t* out);

// Known-answer test of the keystream (RFC 8439's ChaCha20 block), and of the AVX2 keystream
// and rejection sampler against the scalar ones; throws std::runtime_error on a mismatch.
void random_self_test();

// Error distribution parameters used by the noise estimates.
constexpr double kErrorVariance = 10.5;
constexpr double kTernaryVariance = 2.0 / 3.0;

}  // namespace helib
