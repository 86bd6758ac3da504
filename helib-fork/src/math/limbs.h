// Little-endian integers of a few 64-bit limbs: the comparison and subtraction the plaintext
// paths (centring a coefficient, reducing a reconstructed one mod p) make per coefficient.
// Inline, so that callers with a fixed limb count unroll them.
#pragma once

#include <cstddef>

#include "math/words.h"

namespace helib {

// Whether a < b (w limbs each).
inline bool limbs_less(const u64* a, const u64* b, size_t w) {
    for (size_t j = w; j-- > 0;)
        if (a[j] != b[j]) return a[j] < b[j];
    return false;
}

// out = a - b mod 2^(64 w); returns the borrow out (1 when a < b). out may be a.
inline u64 limbs_sub(u64* out, const u64* a, const u64* b, size_t w) {
    u64 borrow = 0;
    for (size_t j = 0; j < w; ++j) {
        const u64 bj = b[j] + borrow;
        borrow = (bj < borrow) | (a[j] < bj);
        out[j] = a[j] - bj;
    }
    return borrow;
}

}  // namespace helib
