// A sum of plaintext multiples of rotations of one ciphertext with a single mod-down ("lazy"
// hoisting): each term's key product is permuted and multiplied by its plaintext while still over
// the extended basis Q * P, and only the sum is brought back to Q. Per term this costs the key
// product, two row permutations and two plaintext products; the digit decomposition and the
// mod-down (most of a rotation's cost) are paid once for the whole sum.
#pragma once

#include <cstdint>
#include <vector>

#include "scheme/context.h"
#include "scheme/key_switch.h"
#include "scheme/keys.h"
#include "scheme/ptxt.h"
#include "math/rns_poly.h"

namespace helib {

// One term: pt * sigma(c) for the automorphism whose key (to sigma^-1(s), galois.h) and NTT
// permutation are given, or pt * c when key is null. A term with a key needs an extended pt.
struct RotatedTerm {
    const KeySwitchKey* key = nullptr;
    const std::vector<uint32_t>* perm = nullptr;
    const EncodedPtxt* pt = nullptr;
};

// (out0, out1) over the chain basis of d.level rows with out0 + out1 s = sum_t pt_t sigma_t(c0 +
// c1 s) + p * (small), where d is c1's decomposition; at least one term has a key.
void rotated_sum(const Context& ctx, const Decomposition& d, const RnsPoly& c0, const RnsPoly& c1,
                 const std::vector<RotatedTerm>& terms, RnsPoly& out0, RnsPoly& out1);

}  // namespace helib
