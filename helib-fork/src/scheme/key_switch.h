// Hybrid key switching (Han-Ki / HElib "KeySwitch" with special primes): digit decomposition
// of c, fast basis extension of each digit to Q_l * P, inner product with the key, then mod-down
// by P with the BGV correction (delta = p * [x * p^-1]_P) so the plaintext is unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "scheme/context.h"
#include "scheme/keys.h"
#include "math/rns_poly.h"

namespace helib {

// What mod-down's last pass folds into the results of a key switch: (out0, out1) += (plus0, plus1)
// where a pointer is not null, and then every row permuted by `perm` (an automorphism in NTT
// form, galois.h) when it is not null. Each one folded in saves a pass over each output.
struct Epilogue {
    const RnsPoly* plus0 = nullptr;
    const RnsPoly* plus1 = nullptr;
    const std::vector<uint32_t>* perm = nullptr;
};

// c in NTT form over the chain basis of `level` rows (at most the key's switch basis's max_level,
// else LevelError). Produces (out0, out1) over the same basis
// with out0 + out1 * s = c * s' + p * (small) (then the epilogue), where the key switches s' -> s.
void key_switch(const Context& ctx, const KeySwitchKey& key, const RnsPoly& c, size_t level,
                RnsPoly& out0, RnsPoly& out1, Epilogue finish = {});

// The digit decomposition of c (NTT form over `level` chain rows), each digit lifted to the
// extended basis in NTT form: the expensive half of key switching, shared by hoisted rotations.
struct Decomposition {
    size_t level = 0;
    bool derived = false;  // for derived keys (their switch basis), or the context's own
    std::vector<size_t> digit_of;  // context digit index of each entry of `digits`
    std::vector<RnsPoly> digits;
};
Decomposition decompose(const Context& ctx, const RnsPoly& c, size_t level, bool derived = false);

// Inner product of a decomposition with a key, then mod-down (and the epilogue).
void apply_switch_key(const Context& ctx, const KeySwitchKey& key, const Decomposition& d, RnsPoly& out0,
                      RnsPoly& out1, Epilogue finish = {});

// The key products of one polynomial c (NTT form over `level` chain rows, a level the key
// serves, else LevelError) an extended row at a time, each digit lifted to a few rows' primes
// just before their products: nothing of the decomposition is held. row(r, ..) writes row r of
// the extended basis of (sum_d digit_d * key.b_d (+ plus0), sum_d digit_d * key.a_d); the key's
// chain rows carry P^-1 (keys.h), so these are the accumulators mod_down takes. Any order of
// rows is correct; in increasing order (within the special rows, then within the chain rows,
// as mod_down asks for them) each lift serves the next rows too. One row at a time, from one
// thread; c and the key must outlive it.
class StreamedKeyProducts {
public:
    StreamedKeyProducts(const Context& ctx, const KeySwitchKey& key, const RnsPoly& c, size_t level);
    ~StreamedKeyProducts();
    StreamedKeyProducts(const StreamedKeyProducts&) = delete;
    StreamedKeyProducts& operator=(const StreamedKeyProducts&) = delete;
    // The chain rows of the level, then the special rows of the key's switch basis.
    const Basis& extended() const;
    const SwitchBasis& basis() const;
    void row(size_t r, u64* o0, u64* o1, const u64* plus0 = nullptr);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Key switches of one polynomial c with several keys (all of one kind, derived or not), in
// phases the caller's threads share. The constructor takes c's digits to coefficient form.
// lift_rows(part, parts) lifts them to its share of the extended basis's rows, once for every
// key, and takes each key's product there: calls for distinct parts write distinct rows and may
// run at once. finish(k, ...) then mod-downs key k's products (after every part has run, and for
// distinct k at once). Same results as key_switch with each key; the lifting is shared, and no
// decomposition is held (the products are: two rows of the extended basis per key).
class SwitchBatch {
public:
    SwitchBatch(const Context& ctx, std::vector<const KeySwitchKey*> keys, const RnsPoly& c, size_t level);
    ~SwitchBatch();
    SwitchBatch(const SwitchBatch&) = delete;
    SwitchBatch& operator=(const SwitchBatch&) = delete;
    size_t size() const;
    void lift_rows(size_t part, size_t parts);
    void finish(size_t k, RnsPoly& out0, RnsPoly& out1, Epilogue epilogue = {}) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Writes row r of the extended basis (extended_basis: the chain rows, then the special rows) of
// both key-switching accumulators, in NTT form, into o0, o1.
using AccumulatorRows = std::function<void(size_t r, u64* o0, u64* o1)>;

// The mod-down of both accumulators of a key switch, P the special primes of `basis`: (acc - p * [acc * p^-1]_P) / P (+ plus,
// when not null), with every row permuted by perm when it is not null, into out0, out1 over the
// chain basis of `level` rows in NTT form. The accumulators come a row at a time from `rows`:
// the special rows first, then each chain row just before it is finished, so they are never
// written out whole and read back.
void mod_down(const Context& ctx, const SwitchBasis& basis, size_t level, const AccumulatorRows& rows,
              RnsPoly& out0, RnsPoly& out1, Epilogue finish = {});

// mod_down of one accumulator `acc` held whole over the extended basis (the chain rows of
// `level`, then the special rows of `basis`), into out over the chain rows, in NTT form.
void mod_down_one(const Context& ctx, const SwitchBasis& basis, size_t level, const RnsPoly& acc, RnsPoly& out);

}  // namespace helib
