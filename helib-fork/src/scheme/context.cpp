#include "scheme/context.h"

#include <NTL/ZZ.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "scheme/errors.h"
#include "scheme/noise.h"
#include "scheme/security.h"

namespace helib {

NTL::ZZ zz_from_limbs(const u64* limbs, size_t len) {
    NTL::ZZ x;
    NTL::ZZFromBytes(x, reinterpret_cast<const unsigned char*>(limbs), static_cast<long>(len * 8));
    return x;
}

void zz_to_limbs(const NTL::ZZ& x, u64* out, size_t len) {
    NTL::BytesFromZZ(reinterpret_cast<unsigned char*>(out), x, static_cast<long>(len * 8));
}

u64 zz_mod_u64(const NTL::ZZ& x, u64 q) { return static_cast<u64>(NTL::rem(x, static_cast<long>(q))); }

namespace {

double log2_zz(const NTL::ZZ& x) { return NTL::log(x) / std::log(2.0); }

constexpr u64 kMaxM = u64(1) << 20;
// The most parties a shared key may have.
constexpr uint32_t kMaxParties = 64;
// Primes stay below 2^50: the AVX2 NTT is exact there (ntt_avx2.cpp), and the lazy 128-bit
// sums in key switching have ample headroom (products < 2^100).
constexpr unsigned kMaxPrimeBits = 50;
constexpr unsigned kMinPrimeBits = 30;
// How far a derived key's special modulus exceeds the largest working digit (choose_primes).
constexpr double kDerivationMarginBits = 40;

// Largest prime below 2^bits of the form k * 2n + 1 that is not p and not already used.
u64 ntt_prime_below(unsigned bits, u64 two_n, const NTL::ZZ& p, const std::vector<u64>& used) {
    const u64 top = u64(1) << bits;
    for (u64 c = ((top - 1) / two_n) * two_n + 1; c > two_n && c > (top >> 1); c -= two_n) {
        if (std::find(used.begin(), used.end(), c) != used.end()) continue;
        if (NTL::ProbPrime(static_cast<long>(c), 20) && NTL::ZZ(c) != p) return c;
    }
    throw InvalidArgument("ran out of " + std::to_string(bits) +
                          "-bit NTT-friendly primes for this ring degree");
}

}  // namespace

Context::Context(const ContextParams& params)
    : m_(params.m), n_(params.m / 2), p_(params.p), requested_digits_(params.ks_digits),
      requested_bits_(params.ciphertext_bits), parties_(params.parties) {
    if (params.parties == 0 || params.parties > kMaxParties)
        throw InvalidArgument("parties must be in 1.." + std::to_string(kMaxParties) + " (got " +
                              std::to_string(params.parties) + ")");
    if (m_ < 2048 || m_ > kMaxM || (m_ & (m_ - 1)) != 0)
        throw InvalidArgument("m must be a power of two in [2048, 2^20] (got " +
                              std::to_string(m_) + ")");
    if (p_ < 3 || NTL::IsOdd(p_) == 0)
        throw InvalidArgument("the plaintext modulus p must be an odd prime (got an even number or < 3)");
    if (NTL::NumBits(p_) > 2048)
        throw InvalidArgument("the plaintext modulus p must have at most 2048 bits");
    if (!NTL::ProbPrime(p_, 40))
        throw InvalidArgument("the plaintext modulus p must be prime (got a composite number)");
    if (params.ks_digits == 0 || params.ks_digits > 32)
        throw InvalidArgument("ks_digits must be in 1..32 (got " + std::to_string(params.ks_digits) + ")");
    if (params.ciphertext_bits == 0 || params.ciphertext_bits > 3600)
        throw InvalidArgument("ciphertext_bits must be in 1..3600 (got " +
                              std::to_string(params.ciphertext_bits) + ")");

    // Q alone has at least the requested bits, so a request above the 128-bit limit is refused
    // here, before the primes and their tables (up to gigabytes) are built.
    if (!params.allow_insecure && params.ciphertext_bits > max_log2_qp_for_128_bits(n_))
        throw InsecureParameters(
            std::to_string(params.ciphertext_bits) + " ciphertext bits at N = " + std::to_string(n_) +
            (max_log2_qp_for_128_bits(n_) > 0
                 ? " exceed the " + std::to_string(static_cast<int>(max_log2_qp_for_128_bits(n_))) +
                       " bits of log2(QP) allowed for 128-bit security"
                 : std::string(": the security table covers ring degrees 1024 to 131072 only")) +
            "; use a larger ring or fewer modulus bits, or opt out explicitly");
    half_p_ = p_ / 2;
    p_limbs_ = static_cast<size_t>((NTL::NumBits(p_) + 63) / 64);
    p_limb_vec_.resize(p_limbs_);
    zz_to_limbs(p_, p_limb_vec_.data(), p_limbs_);
    slots_available_ = (p_ % static_cast<long>(m_)) == 1;

    choose_primes(params.ciphertext_bits, params.derivable_keys);
    // The roots and the fingerprint before the tables (up to GiBs at the largest ring).
    std::vector<u64> roots(primes_.size());
    for (size_t i = 0; i < primes_.size(); ++i) roots[i] = primitive_root_2n(primes_[i], n_);
    fingerprint_ = compute_fingerprint(roots);
    if (params.expected_fingerprint != 0 && params.expected_fingerprint != fingerprint_)
        throw Mismatch("the context data is inconsistent: its parameters give other primes here than the "
                       "fingerprint it records (corrupted or forged data, or an engine of another version)");
    ntt_.reserve(primes_.size());
    for (size_t i = 0; i < primes_.size(); ++i) ntt_.emplace_back(primes_[i], n_, roots[i]);
    simd_ = cpu_has_avx2_fma() &&
            std::all_of(primes_.begin(), primes_.end(), [](u64 q) { return q < kSimdPrimeBound; });
    precompute_constants();
    canonical_ = CanonicalNorm(n_);

    // Security gate on log2(QP).
    security_bits_ = estimate_security_bits(n_, log2_qp());
    const double limit = max_log2_qp_for_128_bits(n_);
    if (!params.allow_insecure && log2_qp() > limit) {
        throw InsecureParameters(
            "parameters give about " + std::to_string(static_cast<int>(security_bits_)) +
            "-bit security (log2(QP) = " + std::to_string(static_cast<int>(std::ceil(log2_qp()))) +
            " > " + std::to_string(static_cast<int>(limit)) + " allowed for 128 bits at N = " +
            std::to_string(n_) + "); use a larger m or fewer modulus bits, or opt out explicitly");
    }
    if (fresh_noise_budget() <= 0) {
        const double need = log2_fresh_bound() + 2;
        throw InvalidArgument("ciphertext modulus too small: a fresh encryption with a " +
                              std::to_string(p_bits()) + "-bit p needs more than " +
                              std::to_string(static_cast<int>(std::ceil(need))) +
                              " bits (got " + std::to_string(params.ciphertext_bits) + ")");
    }
}

void Context::choose_primes(unsigned ciphertext_bits, bool derivable_keys) {
    const u64 two_n = 2 * static_cast<u64>(n_);
    // Chain: L primes of one bit size, just enough for the requested modulus (all chain primes
    // share a size so that q_top / 2 < q_i holds in modulus switching).
    // Primes sit just below 2^chain_bits, so one spare bit keeps Q >= 2^ciphertext_bits.
    const unsigned target = ciphertext_bits + 1;
    num_chain_ = (target + kMaxPrimeBits - 1) / kMaxPrimeBits;
    const unsigned chain_bits =
        std::max(kMinPrimeBits, static_cast<unsigned>((target + num_chain_ - 1) / num_chain_));
    for (size_t i = 0; i < num_chain_; ++i) primes_.push_back(ntt_prime_below(chain_bits, two_n, p_, primes_));

    // Digits: dnum contiguous groups of chain primes, sizes differing by at most one.
    const size_t dnum = std::min(requested_digits_, num_chain_);
    size_t begin = 0;
    double max_digit_bits = 0;
    for (size_t j = 0; j < dnum; ++j) {
        const size_t size = num_chain_ / dnum + (j < num_chain_ % dnum ? 1 : 0);
        digit_begin_.push_back(begin);
        digit_end_.push_back(begin + size);
        double bits = 0;
        for (size_t i = begin; i < begin + size; ++i) bits += std::log2(static_cast<double>(primes_[i]));
        max_digit_bits = std::max(max_digit_bits, bits);
        begin += size;
    }
    if (derivable_keys) {
        // Derived keys divide by the product of these extra primes, which must exceed the
        // largest digit by the growth of a derived key's error (compositions of key switches,
        // about 2^20 times a fresh key's) so that rotating with one adds no more than the
        // mod-down's rounding; the primes are one more digit for the master keys.
        derivation_level_ = num_chain_;
        const size_t extra = static_cast<size_t>(std::ceil((max_digit_bits + kDerivationMarginBits) / chain_bits));
        double bits = 0;
        for (size_t k = 0; k < extra; ++k) {
            primes_.push_back(ntt_prime_below(chain_bits, two_n, p_, primes_));
            bits += std::log2(static_cast<double>(primes_.back()));
        }
        digit_begin_.push_back(num_chain_);
        digit_end_.push_back(num_chain_ + extra);
        num_chain_ += extra;
        max_digit_bits = std::max(max_digit_bits, bits);
    }

    // Special primes: the fewest primes whose product P just exceeds the largest digit, so that
    // key switching adds little noise without spending modulus bits (security is judged on QP).
    num_special_ = static_cast<size_t>(std::ceil((max_digit_bits + 1) / kMaxPrimeBits));
    const unsigned special_bits = std::min(
        kMaxPrimeBits, static_cast<unsigned>(std::ceil(max_digit_bits / double(num_special_))) + 1);
    for (size_t k = 0; k < num_special_; ++k)
        primes_.push_back(ntt_prime_below(special_bits, two_n, p_, primes_));
}

uint64_t Context::compute_fingerprint(const std::vector<u64>& roots) const {
    // FNV-1a over 64-bit words, a byte at a time.
    uint64_t h = 0xcbf29ce484222325ULL;
    const auto add = [&h](uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xff;
            h *= 0x100000001b3ULL;
        }
    };
    add(m_);
    add(p_limbs_);
    for (u64 limb : p_limb_vec_) add(limb);
    add(num_chain_);
    add(num_special_);
    for (size_t i = 0; i < primes_.size(); ++i) {
        add(primes_[i]);
        add(roots[i]);  // the NTT form of every row depends on it
    }
    add(digit_begin_.size());
    for (size_t j = 0; j < digit_begin_.size(); ++j) {
        add(digit_begin_[j]);
        add(digit_end_[j]);
    }
    // Only when shared, so one owner's contexts keep the fingerprints they always had.
    if (parties_ > 1) add(0x7061727469657300ULL | parties_);
    return h;
}

void Context::precompute_constants() {
    const size_t total = primes_.size();
    t_mod_.resize(total);
    t_inv_mod_.resize(total);
    for (size_t i = 0; i < total; ++i) {
        t_mod_[i] = zz_mod_u64(p_, primes_[i]);
        t_inv_mod_[i] = inv_mod(t_mod_[i], primes_[i]);
    }

    // Special-prime (mod-down) constants, and those of derived keys.
    std::vector<size_t> special;
    for (size_t k = 0; k < num_special_; ++k) special.push_back(special_index(k));
    special_basis_ = make_switch_basis(std::move(special), num_chain_);
    log2_P_ = special_basis_.log2_P;
    if (derivation_level_ > 0) {
        std::vector<size_t> upper;
        for (size_t i = derivation_level_; i < num_chain_; ++i) upper.push_back(i);
        derived_basis_ = make_switch_basis(std::move(upper), derivation_level_);
    }

    // CRT reconstruction constants per level.
    crt_.resize(num_chain_);
    for (size_t l = 1; l <= num_chain_; ++l) {
        LevelCrt& c = crt_[l - 1];
        c.q = NTL::ZZ(1);
        for (size_t i = 0; i < l; ++i) c.q *= primes_[i];
        c.log2_q = log2_zz(c.q);
        c.punct_inv.resize(l);
        c.punct_inv_shoup.resize(l);
        c.inv_q.resize(l);
        c.punct_mod_p.assign(l, std::vector<u64>(p_limbs_));
        for (size_t i = 0; i < l; ++i) {
            const u64 q = primes_[i];
            const NTL::ZZ punct = c.q / q;
            c.punct_inv[i] = inv_mod(zz_mod_u64(punct, q), q);
            c.punct_inv_shoup[i] = shoup_precompute(c.punct_inv[i], q);
            c.inv_q[i] = 1.0 / static_cast<double>(q);
            zz_to_limbs(punct % p_, c.punct_mod_p[i].data(), p_limbs_);
        }
        c.p_minus_q_mod_p.resize(p_limbs_);
        zz_to_limbs(p_ - (c.q % p_), c.p_minus_q_mod_p.data(), p_limbs_);
    }

    // Noise model constants (noise.h).
    const double n = static_cast<double>(n_);
    // A joint secret is the sum of the parties' ternary shares, and a joint key's error the sum
    // of theirs: variances k times one owner's.
    const double k = static_cast<double>(parties_);
    log2_s_ = std::log2(kTailFactor * std::sqrt(n * k * 2.0 / 3.0));
    log2_e_ = std::log2(kTailFactor * std::sqrt(n * k * 10.5));
    const double log2_p = log2_zz(p_);
    const double log2_one_plus_s = std::log2(1.0 + std::exp2(log2_s_));
    log2_floor_q_ = log2_p + std::log2(kTailFactor * std::sqrt(n / 12.0)) + log2_one_plus_s;
    for (SwitchBasis* b : {&special_basis_, &derived_basis_})
        b->log2_floor = log2_p + std::log2(kTailFactor * std::sqrt(n * double(b->special.size()) / 12.0)) +
                        log2_one_plus_s;
}

SwitchBasis Context::make_switch_basis(std::vector<size_t> special, size_t max_level) const {
    SwitchBasis b;
    b.special = std::move(special);
    b.max_level = max_level;
    NTL::ZZ P(1);
    for (size_t pi : b.special) P *= primes_[pi];
    b.log2_P = log2_zz(P);
    b.P_inv_mod_q.resize(max_level);
    for (size_t i = 0; i < max_level; ++i) b.P_inv_mod_q[i] = inv_mod(zz_mod_u64(P, primes_[i]), primes_[i]);
    b.z_const.resize(b.special.size());
    b.weight.assign(b.special.size(), std::vector<u64>(max_level));
    for (size_t k = 0; k < b.special.size(); ++k) {
        const size_t si = b.special[k];
        const u64 pk = primes_[si];
        const NTL::ZZ punct = P / pk;
        const u64 punct_inv = inv_mod(zz_mod_u64(punct, pk), pk);
        b.z_const[k] = mul_mod(t_inv_mod_[si], punct_inv, pk);
        // t (P/p_k) P^-1 = t p_k^-1 mod q_i: the correction's factor t P^-1 rides in the weights.
        for (size_t i = 0; i < max_level; ++i)
            b.weight[k][i] = mul_mod(t_mod_[i], inv_mod(pk % primes_[i], primes_[i]), primes_[i]);
    }
    return b;
}

const SwitchBasis& Context::switch_basis(bool derived) const {
    if (!derived) return special_basis_;
    if (derivation_level_ == 0)
        throw InvalidArgument("this context has no room for derived Galois keys (build it with derivable keys)");
    return derived_basis_;
}

double Context::log2_keyswitch_noise(size_t level) const {
    return log2_keyswitch_noise(level, special_basis_, log2_e_);
}

double Context::log2_keyswitch_product_noise(size_t level) const {
    return log2_keyswitch_product_noise(level, special_basis_, log2_e_);
}

double Context::log2_keyswitch_noise(size_t level, const SwitchBasis& basis, double log2_key_error) const {
    return log2_add(log2_keyswitch_product_noise(level, basis, log2_key_error), basis.log2_floor);
}

double Context::log2_keyswitch_product_noise(size_t level, const SwitchBasis& basis, double log2_key_error) const {
    // p * sum_j ||X_j|| ||e_j|| / P, with X_j the digit lifted to QP (centered, |S_j| terms).
    const double n = static_cast<double>(n_);
    const double log2_p = log2_zz(p_);
    double acc = kNegInf;
    for (size_t j = 0; j < num_digits(); ++j) {
        const size_t b = digit_begin_[j], e = std::min(digit_end_[j], level);
        if (b >= e) continue;
        double log2_qs = 0;
        for (size_t i = b; i < e; ++i) log2_qs += std::log2(static_cast<double>(primes_[i]));
        const double log2_x = std::log2(kTailFactor * std::sqrt(n * double(e - b) / 12.0)) + log2_qs;
        acc = log2_add(acc, log2_x + log2_key_error);
    }
    return log2_p + acc - basis.log2_P;
}

double Context::log2_fresh_noise(double log2_msg_norm) const {
    // v = m + p (e u + e0 + e1 s): ||.|| <= ||m|| + p ||e|| (||u|| + ||s|| + 1).
    const double log2_p = log2_zz(p_);
    const double err = log2_e_ + std::log2(2.0 * std::exp2(log2_s_) + 1.0);
    return log2_add(log2_msg_norm, log2_p + err);
}

double Context::log2_fresh_noise_symmetric(double log2_msg_norm) const {
    // v = m + p e.
    return log2_add(log2_msg_norm, log2_zz(p_) + log2_e_);
}

double Context::log2_max_msg_norm() const {
    // ||m||_can <= ||m||_1 <= N (p - 1) / 2; log2(p) - 1 is above log2((p - 1) / 2).
    return log2_zz(p_) - 1.0 + std::log2(static_cast<double>(n_));
}

double Context::fresh_noise_budget() const { return log2_q(fresh_level()) - 1.0 - log2_fresh_bound(); }

}  // namespace helib
