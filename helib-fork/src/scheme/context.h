// Context: the ring Z[X]/(X^N + 1), the plaintext modulus p (a big integer), the RNS chain of
// ciphertext primes q_0..q_{L-1}, the special primes p_0..p_{K-1} for hybrid key switching, the
// key-switching digits, and every constant the hot paths need. Immutable once built, so one
// Context is shared by any number of threads.
#pragma once

#include <NTL/ZZ.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "math/canonical.h"
#include "math/modarith.h"
#include "math/ntt.h"

namespace helib {

struct ContextParams {
    u64 m = 0;                // cyclotomic index, power of two
    NTL::ZZ p;                // plaintext modulus
    unsigned ciphertext_bits = 0;
    unsigned ks_digits = 3;
    bool allow_insecure = false;
    // Room for Galois keys that a server derives from a few master keys (MasterKeys,
    // master_keys.h): the chain gets extra primes above the working top level, which derived
    // keys use as their special modulus and which form one more key-switching digit.
    bool derivable_keys = false;
    // The number of parties whose key shares sum to the secret key (threshold.h); 1 for a key
    // of one owner. The joint secret and the joint keys' errors are sums of this many, which
    // the noise model counts.
    uint32_t parties = 1;
    // When non-zero, the fingerprint (serialize.h) that the parameters must give: checked once
    // the primes are chosen, before any table is built, so that forged or corrupted context
    // bytes cost a prime search, not the tables.
    uint64_t expected_fingerprint = 0;
};

// The modulus a key switch extends to and divides by: the context's special primes for keys the
// secret key generates, or the chain primes above the working top level for derived Galois keys
// (master_keys.h). Key switches with it run at levels up to max_level.
struct SwitchBasis {
    std::vector<size_t> special;           // prime indices
    size_t max_level = 0;
    std::vector<u64> z_const;              // t^-1 (P/p_k)^-1 mod p_k
    std::vector<std::vector<u64>> weight;  // [k][i]: t p_k^-1 mod q_i, i < max_level
    std::vector<u64> P_inv_mod_q;          // P^-1 mod q_i, i < max_level
    double log2_P = 0;
    double log2_floor = 0;                 // the mod-down's rounding, as Context::log2_moddown_floor
};

// Constants for CRT reconstruction at one level (primes q_0..q_{l-1}).
struct LevelCrt {
    double log2_q = 0;
    std::vector<u64> punct_inv;        // (Q_l / q_i)^{-1} mod q_i
    std::vector<u64> punct_inv_shoup;
    std::vector<double> inv_q;         // 1 / q_i
    std::vector<std::vector<u64>> punct_mod_p;  // (Q_l / q_i) mod p, plaintext_limbs limbs
    std::vector<u64> p_minus_q_mod_p;  // p - (Q_l mod p), plaintext_limbs limbs
    NTL::ZZ q;                         // Q_l
};

class Context {
public:
    explicit Context(const ContextParams& params);

    // Ring.
    u64 m() const { return m_; }
    size_t n() const { return n_; }

    // Plaintext modulus.
    const NTL::ZZ& p() const { return p_; }
    const NTL::ZZ& half_p() const { return half_p_; }
    size_t p_limbs() const { return p_limbs_; }
    const std::vector<u64>& p_limb_vec() const { return p_limb_vec_; }
    long p_bits() const { return NTL::NumBits(p_); }
    bool slots_available() const { return slots_available_; }

    // Primes: indices 0..L-1 are the ciphertext chain, L..L+K-1 the special primes.
    size_t num_chain() const { return num_chain_; }
    size_t num_special() const { return num_special_; }
    size_t num_primes() const { return primes_.size(); }
    u64 prime(size_t i) const { return primes_[i]; }
    const NttTable& ntt(size_t i) const { return ntt_[i]; }
    // Whether the AVX2 row kernels apply (every prime below 2^50 and the CPU has AVX2 + FMA).
    bool simd() const { return simd_; }
    size_t special_index(size_t k) const { return num_chain_ + k; }
    // A hash of m, p, every prime and its NTT root, and the key-switching digits: what every
    // serialized object records to name its context (FNV-1a, which tells parameter sets apart
    // and is not meant to resist forgery).
    uint64_t fingerprint() const { return fingerprint_; }

    // Key-switching digits: chain primes [digit_begin(j), digit_end(j)).
    size_t num_digits() const { return digit_begin_.size(); }
    size_t digit_begin(size_t j) const { return digit_begin_[j]; }
    size_t digit_end(size_t j) const { return digit_end_[j]; }

    // p mod prime_i and its inverse.
    u64 t_mod(size_t i) const { return t_mod_[i]; }
    u64 t_inv_mod(size_t i) const { return t_inv_mod_[i]; }

    // Mod-down by P (special primes).
    u64 moddown_z_const(size_t k) const { return special_basis_.z_const[k]; }        // t^-1 (P/p_k)^-1 mod p_k
    u64 moddown_weight(size_t k, size_t i) const { return special_basis_.weight[k][i]; }  // t p_k^-1 mod q_i
    u64 p_inv_mod_q(size_t i) const { return special_basis_.P_inv_mod_q[i]; }        // P^-1 mod q_i

    // Key-switching moduli: the special primes, and for derived keys (derivable contexts only,
    // else throws InvalidArgument) the chain primes above derivation_level().
    const SwitchBasis& switch_basis(bool derived) const;
    // The working top level of a derivable context (0 otherwise): derived keys serve levels up
    // to it, and the primes above it are their special modulus.
    size_t derivation_level() const { return derivation_level_; }
    // The level fresh encryptions (and public keys) are at: the derivation level of a derivable
    // context, whose extra primes only key derivation uses, else the top.
    size_t fresh_level() const { return derivation_level_ > 0 ? derivation_level_ : num_chain_; }

    const LevelCrt& crt(size_t level) const { return crt_[level - 1]; }
    // Canonical-embedding norms of plaintexts (degree N or a power-of-two divisor of it).
    double log2_canonical_norm(const std::vector<double>& a) const { return canonical_.log2_norm(a); }

    // The parties whose key shares make the secret key (1: one owner).
    uint32_t parties() const { return parties_; }

    // The parameters as requested (the chain and digits derive from them deterministically).
    unsigned requested_ciphertext_bits() const { return requested_bits_; }
    size_t requested_digits() const { return requested_digits_; }

    // Sizes and security.
    double log2_q(size_t level) const { return crt_[level - 1].log2_q; }
    double log2_p_special() const { return log2_P_; }
    double log2_qp() const { return log2_q(num_chain_) + log2_P_; }
    double security_bits() const { return security_bits_; }

    // Noise model (log2 of canonical-embedding bounds), see noise.h.
    double log2_secret_norm() const { return log2_s_; }
    double log2_error_norm() const { return log2_e_; }
    double log2_modswitch_floor() const { return log2_floor_q_; }
    // A key switch adds its key product's noise divided by P (the product part, which a
    // plaintext multiplied in before the mod-down scales) and the mod-down's rounding (the floor).
    double log2_keyswitch_noise(size_t level) const;
    double log2_keyswitch_product_noise(size_t level) const;
    // The same for a key of error norm 2^log2_key_error (p times it enters the key) and modulus
    // `basis`: a derived key's error grows with each key switch that made it.
    double log2_keyswitch_noise(size_t level, const SwitchBasis& basis, double log2_key_error) const;
    double log2_keyswitch_product_noise(size_t level, const SwitchBasis& basis, double log2_key_error) const;
    double log2_moddown_floor() const { return special_basis_.log2_floor; }
    double log2_fresh_noise(double log2_msg_norm) const;
    // The same for secret-key encryption, whose noise has no u or s factor.
    double log2_fresh_noise_symmetric(double log2_msg_norm) const;
    // The largest canonical norm a plaintext can have: N coefficients of at most (p - 1) / 2.
    // Fresh ciphertexts record their bound for this norm, whatever their message: a bound
    // computed from the message itself would tell anyone who reads the bytes how large it is.
    double log2_max_msg_norm() const;
    // The bounds every fresh public-key and secret-key encryption records.
    double log2_fresh_bound() const { return log2_fresh_noise(log2_max_msg_norm()); }
    double log2_fresh_bound_symmetric() const { return log2_fresh_noise_symmetric(log2_max_msg_norm()); }
    double fresh_noise_budget() const;

private:
    void choose_primes(unsigned ciphertext_bits, bool derivable_keys);
    uint64_t compute_fingerprint(const std::vector<u64>& roots) const;
    void precompute_constants();
    SwitchBasis make_switch_basis(std::vector<size_t> special, size_t max_level) const;

    u64 m_;
    size_t n_;
    NTL::ZZ p_, half_p_;
    size_t p_limbs_;
    std::vector<u64> p_limb_vec_;
    bool slots_available_;

    size_t num_chain_ = 0, num_special_ = 0;
    std::vector<u64> primes_;
    std::vector<NttTable> ntt_;
    uint64_t fingerprint_ = 0;
    bool simd_ = false;
    std::vector<size_t> digit_begin_, digit_end_;
    size_t requested_digits_;
    unsigned requested_bits_;
    uint32_t parties_ = 1;

    std::vector<u64> t_mod_, t_inv_mod_;
    SwitchBasis special_basis_, derived_basis_;
    size_t derivation_level_ = 0;
    std::vector<LevelCrt> crt_;
    CanonicalNorm canonical_;
    double log2_P_ = 0;
    double security_bits_ = 0;

    double log2_s_ = 0, log2_e_ = 0, log2_floor_q_ = 0;
};

// Little-endian u64 limbs <-> NTL::ZZ.
NTL::ZZ zz_from_limbs(const u64* limbs, size_t len);
void zz_to_limbs(const NTL::ZZ& x, u64* out, size_t len);  // x must fit in len limbs
u64 zz_mod_u64(const NTL::ZZ& x, u64 q);                      // x mod q for x >= 0 or < 0

}  // namespace helib
