// Canonical-embedding norm of a polynomial of Z[X]/(X^n + 1): max over the primitive 2n-th
// roots of unity z of |a(z)|. The noise analysis works in this norm (as HElib does); computing it
// exactly for plaintexts keeps the tracked bounds tight and safe for structured inputs.
#pragma once

#include <cstddef>
#include <vector>

namespace helib {

// The complex roots one context needs for the norm of any power-of-two degree n <= N, computed
// once: every plaintext encoding and encryption evaluates a norm, so no sin/cos runs per call.
class CanonicalNorm {
public:
    CanonicalNorm() = default;
    explicit CanonicalNorm(size_t max_n);

    // log2 of max_j |sum_k a_k z_j^k| for the n = a.size() real coefficients a (a power of two
    // up to max_n). Returns -inf for the zero polynomial.
    double log2_norm(const std::vector<double>& a) const;

private:
    size_t max_n_ = 0;
    // Whether the FFT runs in its AVX2 + FMA build.
    bool avx2_ = false;
    // Entry h + j (h a power of two up to max_n, j < h) is e^(i pi j / h): the twiddles of the
    // DFT stage of half-length h, and for h = n the twist of degree n, each a contiguous run.
    std::vector<double> re_, im_;
};

}  // namespace helib
