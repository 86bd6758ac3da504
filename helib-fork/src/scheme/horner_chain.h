// sum_i sigma^i(x_i) for one Galois automorphism sigma, by Horner's rule from the last term
// (acc <- sigma(acc) + x), with the accumulator kept over the extended basis Q * P between the
// steps: the giant steps of a baby-step giant-step product, "doubly hoisted".
//
// A rotation key-switches c1 and mod-downs both of its outputs. Here a step mod-downs only the
// accumulator's c1 (its key switch needs it over Q), and carries c0, with the key product
// added, over Q * P to the next step, whose key products are over Q * P too. Each step thus
// saves the mod-down of one polynomial (basis conversion, inverse and forward NTTs), and one
// mod-down of both parts ends the chain. The results decrypt as rotating and adding would; the
// tracked noise is the same bound (each mod-down's rounding is counted once per step, where
// only c1's occurs).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "scheme/ctxt.h"
#include "scheme/galois.h"
#include "math/rns_poly.h"

namespace helib {

class HornerChain {
public:
    // acc = last (the term the chain starts from). g != 1, its key in `keys` and serving last's
    // level; the keys must outlive the chain.
    HornerChain(const Ctxt& last, uint64_t g, const GaloisKeys& keys);
    // acc = sigma_g(acc) + x, for x of the chain's context and secret key (else Mismatch),
    // level and plaintext factor (else InvalidArgument). A step that fails, for these or any
    // other reason, leaves the chain as it was.
    void rotate_add(const Ctxt& x);
    // The accumulator brought back to a ciphertext over Q (one mod-down of both parts). The
    // chain stays usable.
    Ctxt result() const;

private:
    Ctxt proto_;  // context, key id, level, factor and noise of acc; its rows are not used
    const KeySwitchKey* key_;
    const std::vector<uint32_t>* perm_;
    // Over the extended basis: the chain rows (which carry P^-1, as a key switch's products
    // do), then the special rows.
    RnsPoly acc0_, acc1_;
    bool raised_ = false;  // whether a step has run (before, the special rows are zero)
};

}  // namespace helib
