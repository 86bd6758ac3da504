// EncodedPtxt: a plaintext polynomial already reduced modulo the chain primes of one level and
// transformed to NTT form, with its canonical-embedding norm (for the noise bound) measured
// once. Multiplying a ciphertext by it is a pointwise product per row; it is immutable, so one
// encoding serves any number of multiplications on any number of threads.
#pragma once

#include <memory>

#include "context.h"
#include "rns_poly.h"

namespace helib {

class EncodedPtxt {
public:
    // coeffs: num <= N values of p_limbs() limbs, each < p; level in 1..L.
    EncodedPtxt(std::shared_ptr<const Context> ctx, const u64* coeffs, size_t num, size_t level);

    const std::shared_ptr<const Context>& context() const { return ctx_; }
    size_t level() const { return level_; }
    const RnsPoly& ntt() const { return poly_; }
    double log2_norm() const { return log2_norm_; }
    size_t size_bytes() const { return sizeof(*this) + poly_.data.size() * sizeof(u64); }

private:
    std::shared_ptr<const Context> ctx_;
    size_t level_;
    RnsPoly poly_;
    double log2_norm_;
};

}  // namespace helib
