// A secret key shared by k parties (k-of-k): s = s_1 + ... + s_k, each s_i one party's
// SecKey::share. Every joint key is the sum of the parties' shares of it, all drawn with the
// same uniform parts (expanded from a common random string, SecKey::share): for a public key
// b_i = -a s_i + p e_i, so sum b_i = -a s + p sum e_i; for a Galois key of element g the same
// with P g_j s_i(X^g) added, which is linear in s_i too (PubKey::combine, GaloisKeys::combine).
// The relinearization key's target s^2 is not linear in the shares; it takes two rounds
// (RelinShare). In round 1 party i sends, for every digit j, h0_ij = -u_i a_j + P w_j s_i + p e
// and h1_ij = s_i a_j + p e' with a fresh ternary u_i of its own and a_j from the common
// string. In round 2, given the sums h0_j and h1_j, it sends s_i h0_j + (u_i - s_i) h1_j + p e''.
// The round-2 sum b_j and a'_j = h1_j form the key: b_j + a'_j s = P w_j s^2 + p (s e0 + u e1 +
// e2), whose error, a product of sums, is larger than a fresh key's (relin_error_bound); its a'
// is no longer uniform, so it travels in full.
//
// Decryption runs without anyone holding s: party i sends d_i = c1 s_i + p e_i - M_i, with e_i a
// smudging error large enough to hide the ciphertext's noise (2^lambda times it, per
// coefficient and over the N coefficients), and M_i uniform mod p when the plaintext is to end
// as additive shares (M_i is then party i's share, times the inverse of the ciphertext's
// plaintext factor). c0 + sum d_i = m - sum M_i + p (E + sum e_i): reduced mod p, the
// plaintext (no masks) or what the parties' masks leave of it, which together with the masks
// sums to the plaintext and alone says nothing about it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "scheme/context.h"
#include "scheme/ctxt.h"
#include "scheme/keys.h"
#include "math/rns_poly.h"

namespace helib {

class Reader;  // serialize.h
class Writer;

// Smudging below this many bits of statistical security is refused.
constexpr unsigned kMinSmudgeBits = 40;
constexpr unsigned kMaxSmudgeBits = 128;

class DecryptionShare {
public:
    // Party `share`'s part of decrypting `ct` (a ciphertext under the joint key), hiding the
    // ciphertext's noise with `smudge_bits` of statistical security. `masked`: the plaintext
    // ends as additive shares, and this party's (N coefficients of p's limb count, as
    // Ctxt::decrypt writes them) goes to mask_out; otherwise mask_out is not touched and the
    // parties' shares decrypt to the plaintext itself (send them only to whoever may see it).
    // Throws NoiseBudgetExhausted when the ciphertext's modulus has no room for the smudging.
    DecryptionShare(const SecKey& share, const Ctxt& ct, bool masked, unsigned smudge_bits, u64* mask_out);

    // c0 + the parties' d_i, reduced mod p and scaled as Ctxt::decrypt scales: one share per
    // party of the context, each for `ct` (Mismatch otherwise), N coefficients to `out`.
    static void combine(const Ctxt& ct, const std::vector<const DecryptionShare*>& shares, u64* out);

    uint64_t party() const { return party_; }
    bool masked() const { return masked_; }

    // Serialized (serialize.h): header, the joint key's id (u64), the party (u64), the
    // ciphertext's digest (u64), its level (u32), masked (u32: 0 or 1), log2 of a bound on
    // the coefficients this share adds to the phase (f64), then the rows (level x N words, NTT
    // form).
    void save(Writer& w) const;
    static DecryptionShare load(Reader& r, std::shared_ptr<const Context> ctx);
    static uint64_t serialized_size(const Context& ctx, size_t level);

private:
    DecryptionShare() = default;

    std::shared_ptr<const Context> ctx_;
    uint64_t key_id_ = 0, party_ = 0, digest_ = 0;
    size_t level_ = 0;
    bool masked_ = false;
    double log2_bound_ = 0;
    RnsPoly rows_;
};

// A party's state between the two rounds: its ephemeral ternary u and the digest of the
// round-1 message it sent. Wiped when destroyed; round 2 uses it up.
struct RelinSecret {
    std::vector<int32_t> u;
    uint64_t sent = 0;
    ~RelinSecret();
};

// One party's message in one round of the joint relinearization key, or the sum of every
// party's (party 0).
class RelinShare {
public:
    // Round 1 of party `share`; its state for round 2 goes to `secret`.
    static RelinShare round1(const SecKey& share, RelinSecret& secret);
    // Round 2 of party `share`: from every party's round-1 message (its own among them, as
    // `secret` recorded it: a sum made up by whoever relays the messages is refused) and its
    // state, which it uses up. The answer names the sum of the messages it answers.
    static RelinShare round2(const SecKey& share, RelinSecret& secret, const std::vector<const RelinShare*>& round1);
    // The sum of one share per party of the context, all of one round (and, in round 2, of
    // one round-1 sum).
    static RelinShare combine(const std::vector<const RelinShare*>& shares);

    const std::shared_ptr<const Context>& context() const { return ctx_; }
    uint64_t key_id() const { return key_id_; }
    uint64_t party() const { return party_; }
    uint32_t round() const { return round_; }
    // A digest of the rows: what a round-2 share names as the round-1 sum it answers.
    uint64_t digest() const;

    // Serialized (serialize.h): header, the joint key's id (u64), the party (u64, 0 for a sum),
    // the round (u32), the digest of the round-1 sum it answers (u64, round 2; else 0), the
    // digit count (u32), then per digit the rows over the full basis of h0 (round 1: and of h1).
    void save(Writer& w) const;
    static RelinShare load(Reader& r, std::shared_ptr<const Context> ctx);
    static uint64_t serialized_size(const Context& ctx, uint32_t round);

private:
    friend class PubKey;
    RelinShare() = default;

    std::shared_ptr<const Context> ctx_;
    uint64_t key_id_ = 0, party_ = 0, answers_ = 0;
    uint32_t round_ = 0;
    std::vector<RnsPoly> h0_, h1_;
};

// log2 of a bound on the joint relinearization key's error s e0 + u e1 + e2.
double relin_error_bound(const Context& ctx);

// A digest of a ciphertext's rows and level (FNV-1a): which ciphertext a decryption share is
// for. It tells ciphertexts apart; it does not authenticate them.
uint64_t ciphertext_digest(const Context& ctx, size_t level, const RnsPoly& c0, const RnsPoly& c1);

}  // namespace helib
