// Secret key, public key and key-switching keys (HElib's SecKey / PubKey / KeySwitch).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "scheme/context.h"
#include "scheme/random.h"
#include "math/rns_poly.h"

namespace helib {

class Reader;  // serialize.h
class Writer;
class RelinShare;  // threshold.h

// Hybrid key-switching key from s' to s: for each digit j, over the full basis (all chain
// primes, then the special primes), b_j = -a_j s + p e_j + P g_j s' with g_j the CRT idempotent
// of digit j (1 mod the digit's primes, 0 mod the other chain primes). The rows of the chain
// primes are stored times P^-1 mod q_i (the stored a_j row is the uniform one expanded from the
// seed, so a_j itself is P times it there): the key-switching sum then comes out already divided
// by P on the chain rows, and the mod-down multiplies nothing there (key_switch.h).
//
// A derived key (master_keys.h) has the same form over the chain primes alone: the primes above
// the context's derivation level play P's part, and the rows below it carry that P^-1.
//
// A key may stop short of its basis's top level (a Galois key used only below it): it then has
// the rows of the chain primes below `levels` and of P alone, and the digits that start below
// `levels`, the rows and digits a key switch at those levels reads. It is the same key with the
// other rows left out, so key switches with it are unchanged; above `levels` it is a LevelError.
struct KeySwitchKey {
    Seed seed{};
    std::vector<RnsPoly> b, a;
    // Whether P is the chain primes above the derivation level (Context::switch_basis).
    bool derived = false;
    // The chain levels it serves (at most its switch basis's max_level, which a full key has).
    size_t levels = 0;
    // Whether a is not expanded from the seed but held (and serialized) as it is: a joint
    // relinearization key's (threshold.h).
    bool explicit_a = false;
    // log2 of a bound on the canonical norm of the key's error e (the key holds p e): a fresh
    // key's is Context::log2_error_norm(), a derived key's grows with its key switches.
    double log2_error = 0;
    size_t size_bytes() const;

    // Serialized (serialize.h): the seed (32 bytes), the digit count (u32), then each digit's b
    // rows over the key's rows (key_rows). load() expands a again from the seed. The levels are
    // not part of these bytes: the caller records them (GaloisKeys) and passes them to load()
    // (0: the basis's top level).
    void save(Writer& w) const;
    static KeySwitchKey load(Reader& r, const Context& ctx, bool derived = false, size_t levels = 0);
};

// The primes the rows of a key serving `levels` chain levels (0: all its basis's) are over, in
// row order: the chain primes below `levels`, then the special primes (a derived key: the chain
// primes above the derivation level).
Basis key_rows(const Context& ctx, bool derived, size_t levels = 0);
// The digits such a key has: those that start below `levels`.
size_t key_digits(const Context& ctx, bool derived, size_t levels = 0);
// The row of prime index pi (below key.levels, or one of its basis's special primes) in key.
inline size_t key_row(const Context& ctx, const KeySwitchKey& key, size_t pi) {
    return pi < key.levels ? pi : key.levels + (pi - ctx.switch_basis(key.derived).special.front());
}
// Throws LevelError unless a key switch with key may run at `level`.
void check_key_level(const Context& ctx, const KeySwitchKey& key, size_t level);

// a_j of a key-switching key: row r of its rows uniform mod its prime, drawn in row order
// from the ChaCha12 stream j of the key's seed.
RnsPoly expand_switch_key_a(const Context& ctx, const Seed& seed, size_t j, bool derived = false,
                            size_t levels = 0);
// The a of a public key or of a secret-key encryption (Ctxt::encrypt_symmetric): the chain
// rows, drawn in row order from the ChaCha12 stream 0 of its seed.
RnsPoly expand_public_a(const Context& ctx, const Seed& seed);

class SecKey {
public:
    // Samples a uniform ternary secret from the OS CSPRNG.
    explicit SecKey(std::shared_ptr<const Context> ctx);
    // INSECURE, for reproducible experiments only: the secret, and every key generated from
    // it (public, relinearization and Galois keys: their uniform parts and errors), derived
    // from `seed` alone. Encryption randomness still comes from the OS. A key read back with
    // load() has no seed and generates keys from the OS again.
    SecKey(std::shared_ptr<const Context> ctx, const Seed& seed);
    // One party's share of a secret key shared by the context's parties (threshold.h): a
    // uniform ternary share from the OS CSPRNG, the joint key's id (joint_id(crs)), and the
    // common random string from which every key generated from it draws its uniform parts, so
    // that the parties' key shares sum to the joint key's (their errors and this share stay
    // the party's own). A share never decrypts or encrypts alone.
    static SecKey share(std::shared_ptr<const Context> ctx, const Seed& crs);
    // The id every share made from `crs` carries, and the joint keys and ciphertexts with them.
    static uint64_t joint_id(const Seed& crs);
    // Both forms of s are zeroed before their memory is released.
    ~SecKey();
    SecKey(const SecKey&) = default;
    SecKey(SecKey&&) = default;
    SecKey& operator=(const SecKey&) = delete;
    SecKey& operator=(SecKey&&) = delete;

    const std::shared_ptr<const Context>& context() const { return ctx_; }
    uint64_t id() const { return id_; }
    const std::vector<int32_t>& coefficients() const { return s_; }
    // s in NTT form over the full basis (chain + special primes).
    const RnsPoly& s_ntt() const { return s_ntt_; }
    // Whether this is one party's share of a joint key (share()), its party's random tag, and
    // the common random string it was made with.
    bool is_share() const { return share_; }
    uint64_t party() const { return party_; }
    const Seed& crs() const { return crs_; }
    // Throws InvalidArgument for a share: what `what` needs is the whole secret key.
    void require_whole(const char* what) const;

    // Key-switching key from `target` to `under` (both NTT over the full basis; `under`
    // defaults to this secret): b + a under = P target + t e. `label` names the key among
    // those of this secret (its Galois element; kRelinLabel for relinearization), which
    // matters only for a seeded secret: each key's randomness is derived from the seed and
    // the label, whatever order the keys are generated in.
    // `derived`: in the form of a derived key (KeySwitchKey), as the identity key master key
    // sets start from (master_keys.h).
    // `levels`: the chain levels the key serves (0: all, see KeySwitchKey).
    KeySwitchKey make_switch_key(const RnsPoly& target, const RnsPoly* under, uint64_t label,
                                 bool derived = false, size_t levels = 0) const;

    // A fresh 32-byte seed for the randomness of key `label`'s part `part`: from the OS, or
    // derived from the secret's seed when it has one.
    Seed key_seed(uint64_t label, uint64_t part) const;

    // Labels of the keys that are not Galois keys (Galois elements are odd and at least 3).
    static constexpr uint64_t kRelinLabel = 0;
    static constexpr uint64_t kPublicLabel = 2;
    // Set in the label of a derived-form key (Galois elements stay below 2^40).
    static constexpr uint64_t kDerivedLabelBit = uint64_t(1) << 46;

    // Serialized (serialize.h): header, id (u64), then the N coefficients as bytes (-1 as 0xff);
    // a share (kind key_share): header, id, party (u64), the common random string (32 bytes),
    // then the coefficients. Sensitive: the secret key itself.
    void save(Writer& w) const;
    static SecKey load(Reader& r, std::shared_ptr<const Context> ctx);

private:
    SecKey(std::shared_ptr<const Context> ctx, uint64_t id, std::vector<int32_t> s);

    std::shared_ptr<const Context> ctx_;
    uint64_t id_;
    std::vector<int32_t> s_;
    RnsPoly s_ntt_;
    // Set only for the insecure seeded secret; wiped with the secret.
    bool seeded_ = false;
    Seed seed_{};
    // Set only for a party's share (public values: the string is common to the parties).
    bool share_ = false;
    uint64_t party_ = 0;
    Seed crs_{};
};

class PubKey {
public:
    // Public key (b = -a s + p e, a) at the top level, plus the relinearization key (s^2 -> s).
    explicit PubKey(const SecKey& sk);

    const std::shared_ptr<const Context>& context() const { return ctx_; }
    uint64_t id() const { return id_; }
    const RnsPoly& b() const { return b_; }
    const RnsPoly& a() const { return a_; }
    const KeySwitchKey& relin_key() const { return relin_; }
    size_t size_bytes() const;

    // Whether it holds its relinearization key (one read from bytes saved without it does not:
    // multiplying ciphertexts under it then fails with MissingKey).
    bool has_relin_key() const { return !relin_.b.empty(); }
    // Whether this is one party's share of a joint public key (made from a SecKey::share): it
    // only combines (combine()); encryption and computation refuse it.
    bool is_share() const { return share_; }

    // Serialized (serialize.h): header, id (u64), the seed of a (32 bytes), b's rows over the
    // chain of fresh encryptions (Context::fresh_level), then the relinearization key, or
    // without it (kind encryption_key) when with_relin is false. A share is of kind
    // public_key_share (without a relinearization key), which load() reads only when
    // `share` says so, and then nothing else.
    void save(Writer& w, bool with_relin = true) const;
    static PubKey load(Reader& r, std::shared_ptr<const Context> ctx, bool share = false);

    // The joint public key of a shared secret key: the sum of the parties' public key shares
    // (PubKey(share) of each party's SecKey::share, all from one common string), one per party
    // of the context, without a relinearization key (threshold.h).
    static PubKey combine(const std::vector<const PubKey*>& shares);
    // The joint public key `joint` with the joint relinearization key of the two rounds' sums
    // (RelinShare, threshold.h).
    static PubKey with_joint_relin(const PubKey& joint, const RelinShare& round1, const RelinShare& round2);

private:
    PubKey() = default;

    std::shared_ptr<const Context> ctx_;
    uint64_t id_ = 0;
    Seed a_seed_{};
    RnsPoly b_, a_;
    KeySwitchKey relin_;
    bool share_ = false;
};

// Fresh small polynomials.
std::vector<int32_t> sample_ternary(Prng& prng, size_t n);
std::vector<int32_t> sample_error(Prng& prng, size_t n);

}  // namespace helib
