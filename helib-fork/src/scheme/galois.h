// Galois automorphisms X -> X^g (g odd mod 2N) and their keys. In NTT form an automorphism is a
// permutation of the evaluation points, the same for every prime, so it costs one gather per row.
//
// The key for g switches s to sigma^-1(s) (sigma = the automorphism), not sigma(s) to s: a
// rotation key-switches c1 as it is, giving k0 + k1 sigma^-1(s) ~ c1 s, and then permutes only
// its outputs, sigma(c0 + k0) + sigma(k1) s ~ sigma(c0 + c1 s). A hoisted batch thus permutes two
// polynomials per rotation after the mod-down instead of every digit before the key product.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "scheme/context.h"
#include "scheme/keys.h"
#include "math/rns_poly.h"

namespace helib {

class Reader;  // serialize.h
class Writer;

// perm[i] = index j with e_j = e_i * g (mod 2N), where e_i = 2 bitrev(i) + 1 is the exponent
// held at NTT index i; then (sigma_g a)[i] = a[perm[i]].
std::vector<uint32_t> galois_permutation(size_t n, uint64_t g);

// out[i] = in[perm[i]] over one row of n = perm.size() words (out and in distinct). With simd
// (Context::simd()), four outputs at a time from one aligned group of four inputs: perm maps
// every aligned group of 2^b indices onto one (the high bits of i are the low bits of e_i's odd
// part, and e g mod 2^k depends only on e mod 2^k).
void permute_row(const std::vector<uint32_t>& perm, const u64* in, u64* out, bool simd);
// out = sigma^-1(a) for the permutation of sigma: out[perm[i]] = a[i] on every row.
void apply_inverse_permutation(const std::vector<uint32_t>& perm, const RnsPoly& a, RnsPoly& out);

// Galois keys for a chosen set of elements, generated only for those.
class GaloisKeys {
public:
    // levels[i] (when given, one per element) caps the levels element i's key serves (0: all,
    // see KeySwitchKey): a key used only below the top level is that much smaller.
    GaloisKeys(const SecKey& sk, const std::vector<uint64_t>& elements, const std::vector<size_t>& levels = {});
    // The union of several key sets of one secret key (throws Mismatch otherwise), sharing
    // their keys without copies: key sets generated in parallel become one. Where two sets
    // hold a key for one element, the one serving more levels is kept.
    explicit GaloisKeys(const std::vector<const GaloisKeys*>& parts);
    // A set holding the one derived key `key` for g (MasterKeys::compose).
    GaloisKeys(std::shared_ptr<const Context> ctx, uint64_t id, uint64_t g, KeySwitchKey key);

    const std::shared_ptr<const Context>& context() const { return ctx_; }
    uint64_t id() const { return id_; }
    bool has(uint64_t g) const { return keys_.count(g) != 0; }
    // Throws MissingKey naming g when absent.
    const KeySwitchKey& key(uint64_t g) const;
    const std::vector<uint32_t>& permutation(uint64_t g) const;
    std::vector<uint64_t> elements() const;
    size_t size_bytes() const;
    // Whether the keys are derived ones (MasterKeys): they then serve levels up to the
    // context's derivation level. A set never mixes the two kinds.
    bool derived() const { return derived_; }
    // Whether these are one party's shares of joint keys (made from a SecKey::share): they
    // only combine (combine()); rotations refuse them.
    bool is_share() const { return share_; }

    // The levels the key for g serves (throws MissingKey when absent).
    size_t levels(uint64_t g) const { return key(g).levels; }

    // Serialized (serialize.h): header, the secret key's id (u64), the number of keys (u32),
    // then per key in increasing order of g: g (u64; a key that serves fewer levels than the
    // top carries their count in bits 48-63) and its key-switching key.
    // A share is of kind galois_key_share, which load() reads only when `share` says so, and
    // then nothing else.
    void save(Writer& w) const;
    static GaloisKeys load(Reader& r, std::shared_ptr<const Context> ctx, bool share = false);

    // The joint Galois keys of a shared secret key: the sum of the parties' shares (GaloisKeys
    // of each party's SecKey::share, for the same elements and levels, from one common string),
    // one per party of the context (threshold.h).
    static GaloisKeys combine(const std::vector<const GaloisKeys*>& shares);

private:
    friend class MasterKeys;
    GaloisKeys() = default;
    // The part of save() and load() after the header and id (master_keys.h shares it).
    void save_entries(Writer& w) const;
    // allow_capped: whether keys for fewer levels than the top are accepted (not as masters).
    void load_entries(Reader& r, bool allow_capped);

    struct Entry {
        KeySwitchKey key;
        std::vector<uint32_t> perm;
    };
    std::shared_ptr<const Context> ctx_;
    uint64_t id_ = 0;
    bool derived_ = false;
    bool share_ = false;
    // Shared and immutable, so merged key sets hold the same keys.
    std::map<uint64_t, std::shared_ptr<const Entry>> keys_;
};

// Checks that g is a valid Galois element for the ring (odd, in [1, 2N)).
void check_galois_element(const Context& ctx, uint64_t g);

}  // namespace helib
