// Online encryption's byte form (ObjectKind::coefficient_ciphertext). An encryption of zero made
// ahead of time is stored with c0's rows in coefficient form; adding a message to it then needs
// only the message's residues, no transform of any row, and the bytes are ready to send. Whoever
// reads them (Ctxt::load) transforms c0 back. The sum is an encryption of the message with the
// zero's fresh randomness: secure as long as every zero is used once (the caller's duty; the Rust
// pool enforces it by ownership).
#pragma once

#include <cstddef>
#include <cstdint>

#include "scheme/context.h"

namespace helib {

// Adds sum_i coeffs[i] X^i (num <= N coefficients of p_limbs() limbs, each below p) in place to
// the ciphertext in data[0 .. len), which must be in coefficient form, under key `key_id` in ctx,
// with plaintext factor 1 and at least a fresh encryption's noise bound. The bound is left as it
// is (it already allows for any message), so the bytes' public fields match a fresh encryption's
// whatever the message; returns the noise budget (bits). Bad coefficients are refused before the bytes change; bytes that turn out
// corrupt while the rows are summed (a residue not below its prime) are left half-summed and the
// call throws, so a caller must then discard them.
double add_poly_in_coefficient_form(const Context& ctx, uint64_t key_id, uint8_t* data, size_t len, const u64* coeffs,
                                    size_t num);

}  // namespace helib
