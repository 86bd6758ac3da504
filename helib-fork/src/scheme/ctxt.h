// Ctxt: a BGV ciphertext (c0, c1) in NTT form over the chain primes q_0..q_{level-1}, with
// c0 + c1 s = factor * m + p e (mod Q_level).
//
// Noise is tracked as a high-probability bound on the canonical-embedding norm of
// [c0 + c1 s]_Q (noise.h); the budget is log2(Q / 2) minus that bound, in bits.
//
// Modulus management (HElib's approach):
//  - Modulus switching divides by the dropped prime q and multiplies the plaintext by q^-1 mod p;
//    the ciphertext records that `factor` and decryption removes it, so the decrypted plaintext
//    is unchanged.
//  - add/sub: the operand at the higher level is switched down to the lower level; if the two
//    factors differ, one operand is multiplied by their ratio (costs up to log2 p bits).
//  - ct x ct: each operand is first switched down while its noise stays well above the
//    modulus-switching floor (which lowers the product's noise and cost at no budget loss),
//    then both meet at the same level.
//  - Plaintext and constant operations never switch modulus implicitly.
//  - A ciphertext whose budget ran out stays marked exhausted even if switched down.
#pragma once

#include <NTL/ZZ.h>

#include <memory>
#include <vector>

#include "scheme/context.h"
#include "scheme/galois.h"
#include "scheme/ptxt.h"
#include "scheme/keys.h"
#include "math/rns_poly.h"

namespace helib {

struct Decomposition;  // key_switch.h
class SwitchBatch;     // key_switch.h
class Reader;          // serialize.h
class Writer;
enum class ObjectKind : uint16_t;

// The level a ciphertext at `level` with noise 2^log2_noise switches down to while its noise
// stays at least 2 bits above the modulus-switching floor (Ctxt::natural_level), and (when not
// null) its noise there.
size_t natural_level(const Context& ctx, size_t level, double log2_noise, double* noise_there = nullptr);

// The levels the stages of a computation run at when its input is a fresh (secret-key)
// encryption of random values, each stage switches its input to the natural level first, and
// its key switches and plaintext products then grow the noise by log2_growth[s] bits on top of
// one key switch's noise at that level. More noise drops more primes: growths above the true
// ones give levels at or below the true ones.
std::vector<size_t> stage_levels(const Context& ctx, const std::vector<double>& log2_growth);

// The plaintext factors an owner can expect of a result it asked for. Modulus switching
// multiplies the factor by q^-1 for each prime q dropped, and a product multiplies the factors,
// so a result computed from fresh encryptions at level l has:
//   linear:      prod_{l <= i < fresh} q_i^-1 (additions, plaintext products, rotations only);
//   one_product: that, or that times the same for some level m >= l (one ciphertext product
//                made at level m, linear operations before and after).
enum class FactorRule : uint32_t { linear = 1, one_product = 2 };

// prod_{level <= i < fresh level} q_i^-1 mod p: a linear result's factor at `level`.
NTL::ZZ linear_factor(const Context& ctx, size_t level);

class Ctxt {
public:
    // Public-key encryption of sum_i coeffs[i] X^i (num <= N coefficients of p_limbs() limbs).
    static Ctxt encrypt(const PubKey& pk, const u64* coeffs, size_t num);
    // Secret-key encryption of the same, written straight out in seeded form (kind
    // seeded_ciphertext, see save()): c1 = a is uniform, expanded from a fresh seed that the
    // bytes hold instead of a's rows, so they are half a ciphertext's; c0 = -a s + p e + m, whose
    // noise has no u or s factor (a bound log2(2 ||s|| + 1) bits lower than public-key
    // encryption's: 9 bits at N = 2048, 11 at N >= 32768). Writes
    // seeded_size() bytes. The ciphertext itself never exists outside this call, so no seed can
    // be paired with a c1 it does not describe.
    static void encrypt_symmetric(Writer& w, const SecKey& sk, const u64* coeffs, size_t num);
    static size_t seeded_size(const Context& ctx);
    // The bytes of save() for a ciphertext at `level`.
    static size_t serialized_size(const Context& ctx, size_t level);

    // Writes N * p_limbs() limbs. Throws NoiseBudgetExhausted when the tracked budget is <= 0
    // or the measured noise exceeds Q / 4.
    void decrypt(const SecKey& sk, u64* out) const;
    // log2 of the infinity norm of [c0 + c1 s]_Q.
    double measure_noise(const SecKey& sk) const;

    const std::shared_ptr<const Context>& context() const { return ctx_; }
    uint64_t key_id() const { return key_id_; }
    size_t level() const { return level_; }
    // Throws Mismatch unless the plaintext factor is one that `rule` allows at this level (see
    // FactorRule): a factor field altered in the bytes would otherwise scale the decryption.
    void check_factor(FactorRule rule) const;
    double log2_modulus() const { return ctx_->log2_q(level_); }
    double log2_noise() const { return log2_noise_; }
    double noise_budget() const { return log2_modulus() - 1.0 - log2_noise_; }

    void add(const Ctxt& other);
    void sub(const Ctxt& other);
    void negate();
    void add_const(const NTL::ZZ& k);
    void mul_const(const NTL::ZZ& k);
    void add_poly(const u64* coeffs, size_t num);
    void mul_poly(const u64* coeffs, size_t num);
    // With a pre-encoded plaintext; one encoded at a higher level is used on its lower rows,
    // which are the same residues. mul_ptxt switches a ciphertext above the encoding's level
    // down to it; add_ptxt refuses that case (the switch would change the plaintext factor).
    void add_ptxt(const EncodedPtxt& pt, bool subtract);
    void mul_ptxt(const EncodedPtxt& pt);
    // sum_i cts[i] * pts[i]: one pass per prime with the products accumulated in place. All
    // ciphertexts share one level and plaintext factor; each plaintext is at that level or above.
    static Ctxt inner_product(const std::vector<const Ctxt*>& cts, const std::vector<const EncodedPtxt*>& pts);
    void mul(const Ctxt& other, const PubKey& pk);
    void square(const PubKey& pk);
    // Throws LevelError at level 1, or where dropping the prime would use up the budget.
    void mod_switch_down();
    // Throws LevelError, leaving the ciphertext as it was, if the switch would use up the budget.
    void mod_switch_to(size_t level);
    // The lowest level this ciphertext can be switched to with some budget left.
    size_t lowest_safe_level() const;
    // Down to the lowest level whose noise stays 2 bits above the modulus-switching floor:
    // the budget is kept (up to the floor's share) and later operations run on fewer primes.
    void mod_switch_to_natural() { mod_switch_to(natural_level()); }

    // The automorphism X -> X^g followed by a key switch back to s (g = 1 is the identity).
    // With the slot layout of the Rust BatchEncoder, g = 3^k rotates both rows by k and
    // g = 2N - 1 swaps them.
    void apply_galois(uint64_t g, const GaloisKeys& keys);
    // Hoisted: one digit decomposition of c1 shared by every element; the results equal
    // apply_galois for each element. A single element is apply_galois out of place.
    std::vector<Ctxt> apply_galois_many(const std::vector<uint64_t>& elements, const GaloisKeys& keys) const;
    // sum_i pts[i] * sigma_{elements[i]}(this), hoisted and with one mod-down for the whole sum
    // (rotated_sum.h). Each plaintext is at this level or above, and extended where its element
    // is not 1. Less noise than rotating, multiplying and summing: the mod-down's rounding is
    // added once and not multiplied by the plaintexts.
    Ctxt rotated_inner_product(const std::vector<uint64_t>& elements, const std::vector<const EncodedPtxt*>& pts,
                               const GaloisKeys& keys) const;

    // Serialized (serialize.h): header, the secret key's id (u64), the level (u32), the noise
    // bound (f64, +inf once exhausted), the plaintext factor (p_limbs() limbs), then c0's and
    // c1's rows over the chain primes of the level. load() refuses a key id other than key_id.
    // It also reads the seeded form of encrypt_symmetric: the same fields at the top level with
    // factor 1, and c1's rows replaced by a's 32-byte seed, expanded again as the public key's a
    // is (keys.h).
    void save(Writer& w) const;
    static Ctxt load(Reader& r, std::shared_ptr<const Context> ctx, uint64_t key_id);
    // The same fields with c0's rows in coefficient form (kind coefficient_ciphertext), the form
    // an online encryption adds its message to without a transform (coefficient_form.h). load()
    // reads it back, transforming c0 again.
    void save_coefficient_form(Writer& w) const;

private:
    friend class GaloisBatch;
    friend class HornerChain;
    friend class DecryptionShare;
    // Drops the top `count` >= 1 chain primes without mod_switch_to's checks (callers have made
    // them), at once (mod_switch.cpp): one division by their product, with the noise bound, level
    // and factor that dropping them one at a time records (its bound covers this rounding too).
    void drop_primes(size_t count);
    // The bookkeeping of dropping the top chain prime: level, noise bound, plaintext factor.
    void account_dropped_prime();
    Ctxt(std::shared_ptr<const Context> ctx, uint64_t key_id, size_t level);
    // The fields save() writes before the rows (c0 alone suffices for a seeded ciphertext).
    void save_fields(Writer& w, ObjectKind kind) const;
    void check_compatible(const Ctxt& other) const;
    void check_key(const PubKey& pk) const;
    void check_galois_keys(const GaloisKeys& keys) const;
    void check_ptxt(const EncodedPtxt& pt);
    // sigma_g(this) switched back to s (g != 1, its key present): streamed when d is null,
    // else from the shared decomposition d of c1.
    Ctxt galois_image(uint64_t g, const GaloisKeys& keys, const Decomposition* d) const;
    // Switches down while the noise stays at least 2 bits above the modulus-switching floor.
    size_t natural_level() const;
    void scale_by(const NTL::ZZ& r);  // multiply by r without touching `factor`
    void add_or_sub(const Ctxt& other, bool subtract);
    void rows_scalar(const NTL::ZZ& centered_k);
    // [c0 + c1 s] in coefficient form; row i multiplied by row_scale[i] when given.
    void raw_phase(const SecKey& sk, RnsPoly& v, const u64* row_scale = nullptr) const;

    std::shared_ptr<const Context> ctx_;
    uint64_t key_id_;
    size_t level_;
    RnsPoly c0_, c1_;
    double log2_noise_;
    NTL::ZZ factor_;  // decrypts to factor * m (mod p)
};

// Galois images of one ciphertext (elements other than 1, their keys present), computed in
// phases the caller's threads share (SwitchBatch, key_switch.h): lift_rows for every part of
// `parts`, at once on distinct parts, then image(k) for each element, at once on distinct k.
// Each image equals apply_galois's. The ciphertext and the keys must outlive the batch.
class GaloisBatch {
public:
    GaloisBatch(const Ctxt& ct, const std::vector<uint64_t>& elements, const GaloisKeys& keys);
    ~GaloisBatch();
    GaloisBatch(const GaloisBatch&) = delete;
    GaloisBatch& operator=(const GaloisBatch&) = delete;
    size_t size() const { return elements_.size(); }
    void lift_rows(size_t part, size_t parts);
    Ctxt image(size_t k) const;

private:
    const Ctxt& ct_;
    const GaloisKeys& keys_;
    std::vector<uint64_t> elements_;
    std::unique_ptr<SwitchBatch> batch_;
};

// Centered representative of x mod p in (-p/2, p/2].
NTL::ZZ centered_mod(const NTL::ZZ& x, const Context& ctx);

}  // namespace helib
