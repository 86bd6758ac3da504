// Randomness: a ChaCha20 stream keyed from the OS CSPRNG (getrandom), and the samplers BGV
// needs. Each sampling site owns its generator, so there is no shared mutable state.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "modarith.h"

namespace helib {

using Seed = std::array<uint8_t, 32>;

// 32 bytes from the OS CSPRNG; throws std::runtime_error if the OS cannot provide them.
Seed os_seed();

// ChaCha20 keystream used as a deterministic expander of a 256-bit seed.
class Prng {
public:
    explicit Prng(const Seed& seed, uint64_t stream = 0);

    uint64_t next_u64();
    uint32_t next_u32();
    // Uniform in [0, bound) by rejection sampling (no modulo bias).
    uint64_t uniform(uint64_t bound);
    // Uniform in {-1, 0, 1}.
    int ternary();
    // Centered binomial with 21 coin pairs: mean 0, variance 10.5 (sigma ~ 3.24), as the
    // error distribution (the HE Standard's sigma = 3.2).
    int centered_binomial();

private:
    void refill();
    std::array<uint32_t, 16> key_nonce_;
    std::array<uint32_t, 16> block_;
    size_t used_;  // words of block_ consumed
    uint64_t counter_;
    uint32_t spare_ = 0;  // unused bytes of the last word, for ternary()
    int spare_bytes_ = 0;
};

// Error distribution parameters used by the noise estimates.
constexpr double kErrorVariance = 10.5;
constexpr double kTernaryVariance = 2.0 / 3.0;

}  // namespace helib
