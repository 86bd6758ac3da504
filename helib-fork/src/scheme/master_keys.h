// Master Galois keys: what a data owner ships instead of every Galois key a computation uses.
//
// The context must be derivable (ContextParams::derivable_keys): its chain has extra primes
// above the working top level (Context::derivation_level). The owner generates ordinary Galois
// keys for a few master elements h, over the whole chain, and one more key in derived form (see
// KeySwitchKey): the identity's, b + a s = P_w g_j s + p e, where P_w is the product of the
// extra primes. The server derives the key of any element the masters generate, one master at a
// time (compose): from the derived key of g, b + a sigma_g^-1(s) = P_w g_j s + p e, the key switch
// of sigma_g(a) with the master of h, taken at the top level and mapped back by sigma_g^-1, turns
// a's part into one under sigma_gh^-1(s), which is the derived key of g h. Each step adds one key
// switch's noise to the key's error (tracked in KeySwitchKey::log2_error), which the extra
// primes divide away when the derived key is used; derived keys serve ciphertexts up to the
// derivation level.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "scheme/galois.h"
#include "scheme/keys.h"

namespace helib {

class MasterKeys {
public:
    // Ordinary keys for `elements` (Galois elements other than 1) and the identity key in
    // derived form. Throws InvalidArgument for a context that is not derivable. From a
    // party's SecKey::share, the party's shares of joint master keys (every key is linear in
    // the secret, and its uniform part comes from the common string): they derive nothing
    // until combined.
    MasterKeys(const SecKey& sk, const std::vector<uint64_t>& elements);

    const std::shared_ptr<const Context>& context() const { return masters_.context(); }
    uint64_t id() const { return masters_.id(); }
    std::vector<uint64_t> elements() const { return masters_.elements(); }
    size_t size_bytes() const { return masters_.size_bytes() + identity_.size_bytes(); }
    // Whether these are one party's shares of joint master keys.
    bool is_share() const { return masters_.is_share(); }

    // The derived key of g h from `from`, the derived key of g (null: the identity, g = 1),
    // and the master of h (MissingKey if h is not a master). A key set holding it alone.
    // Shares refuse (InvalidArgument).
    GaloisKeys compose(const GaloisKeys* from, uint64_t g, uint64_t h) const;

    // Serialized (serialize.h): header, the secret key's id (u64), the masters as in
    // GaloisKeys::save after its header and id (count, then element and key each), then the
    // identity key.
    // A share is of kind master_key_share, which load() reads only when `share` says so, and
    // then nothing else.
    void save(Writer& w) const;
    static MasterKeys load(Reader& r, std::shared_ptr<const Context> ctx, bool share = false);

    // The joint master keys of a shared secret key: the sum of the parties' shares (for the
    // same elements, from one common string), one per party of the context (threshold.h).
    static MasterKeys combine(const std::vector<const MasterKeys*>& shares);

private:
    MasterKeys(GaloisKeys masters, KeySwitchKey identity)
        : masters_(std::move(masters)), identity_(std::move(identity)) {}

    GaloisKeys masters_;
    KeySwitchKey identity_;
};

}  // namespace helib
