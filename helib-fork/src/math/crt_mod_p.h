// The last step of decryption: from the phase v = c0 + c1 s (RNS rows in coefficient form) to
// the plaintext coefficients [v]_Q mod p, as big integers of p's limb count.
#pragma once

#include <NTL/ZZ.h>

#include <cstddef>

#include "scheme/context.h"
#include "math/rns_poly.h"

namespace helib {

// Writes ([v_k]_Q * scale) mod p for every coefficient k of v (level `level`), each as
// ctx.p_limbs() limbs, given the rows y_i = [v_i (Q/q_i)^-1]_{q_i} (ctx.crt(level).punct_inv;
// NttTable::inverse_scaled applies it for free). `scale` is reduced mod p (decryption passes the inverse
// of the ciphertext's plaintext factor). Throws NoiseBudgetExhausted when some |[v_k]_Q| / Q
// reaches `max_ratio` (at most 1/4, where the reconstruction could no longer be trusted; the
// caller passes less to hold the phase to its tracked noise bound).
void reconstruct_mod_p(const Context& ctx, size_t level, const RnsPoly& y, const NTL::ZZ& scale, u64* out,
                       double max_ratio = 0.25);

}  // namespace helib
