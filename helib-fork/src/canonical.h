// Canonical-embedding norm of a polynomial of Z[X]/(X^N + 1): max over the primitive 2N-th
// roots of unity z of |a(z)|. The noise analysis works in this norm (as HElib does); computing it
// exactly for plaintexts keeps the tracked bounds tight and safe for structured inputs.
#pragma once

#include <cstddef>
#include <vector>

namespace helib {

// log2 of max_j |sum_k a_k z_j^k| for the real coefficients a (length N, a power of two).
// Returns -inf for the zero polynomial.
double log2_canonical_norm(const std::vector<double>& a);

}  // namespace helib
