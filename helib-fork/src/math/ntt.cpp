#include "math/ntt.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace helib {

u64 primitive_root_2n(u64 q, size_t n) {
    const u64 order = 2 * static_cast<u64>(n);
    if ((q - 1) % order != 0) throw std::invalid_argument("NTT prime is not 1 mod 2N");
    const u64 cofactor = (q - 1) / order;
    u64 best = 0;
    for (u64 x = 2; x < q && best == 0; ++x) {
        u64 psi = pow_mod(x, cofactor, q);
        if (pow_mod(psi, n, q) == q - 1) best = psi;  // order exactly 2n
    }
    if (best == 0) throw std::invalid_argument("no primitive 2N-th root mod q");
    // The smallest generator of the cyclic group of 2n-th roots, among psi^odd.
    u64 smallest = best, p = best;
    const u64 psi2 = mul_mod(best, best, q);
    for (u64 k = 1; k < order; k += 2) {
        if (p < smallest) smallest = p;
        p = mul_mod(p, psi2, q);
    }
    return smallest;
}

bool ntt_path_available(NttPath path, u64 q, size_t n) {
    switch (path) {
        case NttPath::ifma:
            return q < kSimdPrimeBound && n >= 16 && cpu_has_avx512_ifma();
        case NttPath::avx2:
            return q < kSimdPrimeBound && n >= 32 && cpu_has_avx2_fma();
        case NttPath::scalar:
            return true;
    }
    return false;
}

NttPath best_ntt_path(u64 q, size_t n) {
    for (NttPath path : {NttPath::ifma, NttPath::avx2})
        if (ntt_path_available(path, q, n)) return path;
    return NttPath::scalar;
}

NttTable::NttTable(u64 q, size_t n) : NttTable(q, n, primitive_root_2n(q, n)) {}

NttTable::NttTable(u64 q, size_t n, u64 psi) : NttTable(q, n, psi, best_ntt_path(q, n)) {}

NttTable::NttTable(u64 q, size_t n, u64 psi, NttPath path)
    : q_(q), psi_(psi), n_(n), log_n_(0), barrett_(q), path_(path) {
    if (q >= (1ULL << 62)) throw std::invalid_argument("NTT prime must be below 2^62");
    if (!ntt_path_available(path, q, n)) throw std::invalid_argument("NTT path not available for this CPU or prime");
    while ((size_t(1) << log_n_) < n) ++log_n_;
    if ((size_t(1) << log_n_) != n) throw std::invalid_argument("NTT size must be a power of two");
    const u64 psi_inv = inv_mod(psi, q);
    root_pow_.resize(n);
    root_pow_shoup_.resize(n);
    inv_root_pow_.resize(n);
    inv_root_pow_shoup_.resize(n);
    u64 pw = 1, ipw = 1;
    for (size_t i = 0; i < n; ++i) {
        const size_t r = bit_reverse(i, log_n_);
        root_pow_[r] = pw;
        inv_root_pow_[r] = ipw;
        pw = mul_mod(pw, psi, q);
        ipw = mul_mod(ipw, psi_inv, q);
    }
    for (size_t i = 0; i < n; ++i) {
        root_pow_shoup_[i] = shoup_precompute(root_pow_[i], q);
        inv_root_pow_shoup_[i] = shoup_precompute(inv_root_pow_[i], q);
    }
    inv_n_ = inv_mod(static_cast<u64>(n) % q, q);
    inv_n_shoup_ = shoup_precompute(inv_n_, q);

    w_inv_n_ = mul_mod(inv_root_pow_[1 % n], inv_n_, q);
    if (path_ == NttPath::ifma) {
        inv_n_shoup52_ = shoup52(inv_n_, q);
        root_pow_shoup52_.resize(n);
        inv_root_pow_shoup52_.resize(n);
        for (size_t i = 0; i < n; ++i) {
            root_pow_shoup52_[i] = shoup52(root_pow_[i], q);
            inv_root_pow_shoup52_[i] = shoup52(inv_root_pow_[i], q);
        }
    }
    if (path_ == NttPath::avx2) {
        root_pow_d_.assign(root_pow_.begin(), root_pow_.end());
        inv_root_pow_d_.assign(inv_root_pow_.begin(), inv_root_pow_.end());
    }
}

u64 NttTable::eval_exponent(size_t i) const {
    return (2 * static_cast<u64>(bit_reverse(i, log_n_)) + 1) % (2 * static_cast<u64>(n_));
}

namespace {

// Blocks of at most this many words (32 KiB) finish all their remaining stages while they sit
// in L1; larger blocks split depth-first. The arithmetic is the breadth-first transform's,
// only the order of independent butterflies changes.
constexpr size_t kCacheBlock = 4096;

// Cooley-Tukey butterflies on one block of 2t words with twiddle w (Harvey, values in [0, 4q)).
inline void ct_butterflies(u64* x, size_t t, u64 w, u64 wp, u64 q) {
    const u64 two_q = 2 * q;
    u64* y = x + t;
    for (size_t j = 0; j < t; ++j) {
        u64 u = x[j];
        if (u >= two_q) u -= two_q;
        const u64 v = mul_shoup_lazy(y[j], w, wp, q);
        x[j] = u + v;
        y[j] = u - v + two_q;
    }
}

// Gentleman-Sande butterflies on one block of 2t words with twiddle w (values in [0, 2q)).
inline void gs_butterflies(u64* x, size_t t, u64 w, u64 wp, u64 q) {
    const u64 two_q = 2 * q;
    u64* y = x + t;
    for (size_t j = 0; j < t; ++j) {
        const u64 u = x[j], v = y[j];
        u64 s = u + v;
        if (s >= two_q) s -= two_q;
        x[j] = s;
        y[j] = mul_shoup_lazy(u - v + two_q, w, wp, q);
    }
}

}  // namespace

// Block i of the stage with m blocks of 2t words each (twiddle index m + i).
void NttTable::forward_block(u64* a, size_t m, size_t i, size_t t) const {
    if (2 * t <= kCacheBlock) {
        for (size_t mm = m, tt = t; tt >= 1; mm <<= 1, tt >>= 1) {
            const size_t sub = mm / m;
            for (size_t ii = 0; ii < sub; ++ii) {
                const size_t w = mm + i * sub + ii;
                ct_butterflies(a + 2 * ii * tt, tt, root_pow_[w], root_pow_shoup_[w], q_);
            }
        }
        return;
    }
    ct_butterflies(a, t, root_pow_[m + i], root_pow_shoup_[m + i], q_);
    forward_block(a, 2 * m, 2 * i, t / 2);
    forward_block(a + t, 2 * m, 2 * i + 1, t / 2);
}

void NttTable::inverse_block(u64* a, size_t m, size_t i, size_t t) const {
    if (2 * t <= kCacheBlock) {
        for (size_t tt = 1, mm = m * t; tt <= t; tt <<= 1, mm >>= 1) {
            const size_t sub = mm / m;
            for (size_t ii = 0; ii < sub; ++ii) {
                const size_t w = mm + i * sub + ii;
                gs_butterflies(a + 2 * ii * tt, tt, inv_root_pow_[w], inv_root_pow_shoup_[w], q_);
            }
        }
        return;
    }
    inverse_block(a, 2 * m, 2 * i, t / 2);
    inverse_block(a + t, 2 * m, 2 * i + 1, t / 2);
    gs_butterflies(a, t, inv_root_pow_[m + i], inv_root_pow_shoup_[m + i], q_);
}

void NttTable::forward(u64* a) const {
    if (path_ == NttPath::ifma) {
        ntt_forward_ifma(a, n_, q_, root_pow_.data(), root_pow_shoup52_.data());
        return;
    }
    if (path_ == NttPath::avx2) {
        ntt_forward_avx2(a, n_, static_cast<double>(q_), root_pow_d_.data());
        return;
    }
    const u64 q = q_, two_q = 2 * q_;
    forward_block(a, 1, 0, n_ / 2);
    for (size_t i = 0; i < n_; ++i) {
        u64 v = a[i];
        if (v >= two_q) v -= two_q;
        if (v >= q) v -= q;
        a[i] = v;
    }
}

void NttTable::inverse(u64* a) const {
    if (path_ == NttPath::ifma) {
        ntt_inverse_ifma(a, n_, q_, inv_root_pow_.data(), inv_root_pow_shoup52_.data(), inv_n_, inv_n_shoup52_);
        return;
    }
    if (path_ == NttPath::avx2) {
        ntt_inverse_avx2(a, n_, static_cast<double>(q_), inv_root_pow_d_.data(), static_cast<double>(inv_n_),
                         static_cast<double>(w_inv_n_));
        return;
    }
    inverse_block(a, 1, 0, n_ / 2);
    for (size_t i = 0; i < n_; ++i) a[i] = mul_shoup(a[i], inv_n_, inv_n_shoup_, q_);
}

void NttTable::inverse_scaled(u64* a, u64 c) const {
    const u64 scale = barrett_.mul(inv_n_, c);
    if (path_ == NttPath::ifma) {
        ntt_inverse_ifma(a, n_, q_, inv_root_pow_.data(), inv_root_pow_shoup52_.data(), scale, shoup52(scale, q_));
        return;
    }
    if (path_ == NttPath::avx2) {
        ntt_inverse_avx2(a, n_, static_cast<double>(q_), inv_root_pow_d_.data(), static_cast<double>(scale),
                         static_cast<double>(barrett_.mul(w_inv_n_, c)));
        return;
    }
    inverse_block(a, 1, 0, n_ / 2);
    const u64 scale_shoup = shoup_precompute(scale, q_);
    for (size_t i = 0; i < n_; ++i) a[i] = mul_shoup(a[i], scale, scale_shoup, q_);
}

void ntt_self_test() {
    // The largest primes below 2^50, 2^41 and 2^31 that are 1 mod 2^14 (every size below).
    for (u64 q : {u64(0x3ffffffffc001), u64(0x1ffffff0001), u64(0x7ffe0001)}) {
        for (size_t n : {16, 32, 4096}) {
            const NttTable scalar(q, n, primitive_root_2n(q, n), NttPath::scalar);
            std::vector<std::vector<u64>> inputs{std::vector<u64>(n, q - 1), std::vector<u64>(n, 0),
                                                 std::vector<u64>(n)};
            u64 x = 0x9e3779b97f4a7c15ULL ^ q;  // xorshift: inputs only, not randomness
            for (u64& v : inputs.back()) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                v = x % q;
            }
            for (NttPath path : {NttPath::ifma, NttPath::avx2}) {
                if (!ntt_path_available(path, q, n)) continue;
                const NttTable vec(q, n, scalar.psi(), path);
                for (const std::vector<u64>& in : inputs) {
                    std::vector<u64> a = in, b = in;
                    scalar.forward(a.data());
                    vec.forward(b.data());
                    bool same = a == b;
                    scalar.inverse(a.data());
                    vec.inverse(b.data());
                    same = same && a == b;
                    scalar.inverse_scaled(a.data(), q - 2);
                    vec.inverse_scaled(b.data(), q - 2);
                    if (!same || a != b)
                        throw std::runtime_error(std::string("NTT self-test: the ") +
                                                 (path == NttPath::ifma ? "IFMA" : "AVX2") +
                                                 " transform differs from the scalar one (n = " + std::to_string(n) +
                                                 ", q = " + std::to_string(q) + ")");
                }
            }
        }
    }
}

}  // namespace helib
