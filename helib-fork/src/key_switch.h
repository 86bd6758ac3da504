// Hybrid key switching (Han-Ki / HElib "KeySwitch" with special primes): digit decomposition
// of c, fast basis extension of each digit to Q_l * P, inner product with the key, then mod-down
// by P with the BGV correction (delta = p * [x * p^-1]_P) so the plaintext is unchanged.
#pragma once

#include "context.h"
#include "keys.h"
#include "rns_poly.h"

namespace helib {

// c in NTT form over the chain basis of `level` rows. Produces (out0, out1) over the same basis
// with out0 + out1 * s = c * s' + p * (small), where the key switches s' -> s.
void key_switch(const Context& ctx, const KeySwitchKey& key, const RnsPoly& c, size_t level,
                RnsPoly& out0, RnsPoly& out1);

// (acc - p * [acc * p^-1]_P) / P: acc over the extended basis (level chain rows in NTT form,
// then the special rows in NTT form); result over the chain basis in NTT form.
void mod_down(const Context& ctx, RnsPoly& acc, size_t level, RnsPoly& out);

}  // namespace helib
