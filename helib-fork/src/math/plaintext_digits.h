// Plaintext coefficients (integers mod p) to the inputs of the plaintext conversion: their
// centred lifts in (-p/2, p/2] cut into balanced base-2^51 digits in [-2^50, 2^50], held as
// doubles, the input form of row_dot_signed (rns_kernels.h). Digits rather than unsigned
// 50-bit pieces because five of them cover a 254-bit p where unsigned pieces would need six.
#pragma once

#include <cstddef>

#include "math/words.h"

namespace helib {

constexpr size_t kDigitBits = 51;

// The AVX2 form for p of four limbs and five digits (bits(p) in 205..255: BN254, BLS12-381):
// coefficients 0 .. count (count a multiple of 4, four limbs each at coeffs) write their digit
// j at digits[j * stride + i] and, when `centered` is not null, their centred values (rounded)
// at centered[i]. `half` is floor(p / 2): values above it are negative. Stops at the first
// group of four holding a coefficient not below p and returns how many it converted, so that
// the caller's scalar path reports that coefficient. Needs AVX2 (Context::simd()).
size_t balanced_digits_4x5_avx2(const u64* coeffs, size_t count, const u64* p, const u64* half, double* digits,
                                size_t stride, double* centered);

}  // namespace helib
