#include "math/crt_mod_p.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "scheme/errors.h"
#include "scheme/wipe.h"
#include "math/limbs.h"

namespace helib {
namespace {

// -x^-1 mod 2^64 for odd x (Newton iteration, doubling the correct bits each step).
u64 neg_inverse_mod_2_64(u64 x) {
    u64 inv = 1;
    for (int i = 0; i < 6; ++i) inv *= 2 - x * inv;
    return 0 - inv;
}

// acc += y * x, x of w limbs (w = W when W > 0, fixed at compile time); acc has room for the
// carries.
template <size_t W = 0>
inline void mul_acc(u64* acc, u64 y, const u64* x, size_t w_any) {
    const size_t w = W ? W : w_any;
    u64 carry = 0;
    for (size_t j = 0; j < w; ++j) {
        const u128 t = static_cast<u128>(y) * x[j] + acc[j] + carry;
        acc[j] = static_cast<u64>(t);
        carry = static_cast<u64>(t >> 64);
    }
    for (size_t j = w; carry != 0; ++j) {
        acc[j] += carry;
        carry = acc[j] < carry;
    }
}

// acc (2w + 2 limbs, zeroed) = sum_i y[i] * x_i over `terms` constants x_i of w limbs each.
// Column sums: the w limb positions accumulate independently (128 bits, plus an overflow word
// when `terms` products could exceed 128 bits), which keeps the multiplier busy instead of
// waiting on one carry chain.
template <size_t W, bool kMayOverflow>
inline void dot_limbs(u64* acc, const u64* y, const u64* x, size_t terms) {
    u128 col[W] = {};
    u64 over[W] = {};
    for (size_t i = 0; i < terms; ++i) {
        for (size_t j = 0; j < W; ++j) {
            const u128 prod = static_cast<u128>(y[i]) * x[i * W + j];
            col[j] += prod;
            if constexpr (kMayOverflow) over[j] += col[j] < prod;
        }
    }
    u128 carry = 0;
    for (size_t j = 0; j < W; ++j) {
        const u128 s = carry + static_cast<u64>(col[j]);
        acc[j] = static_cast<u64>(s);
        carry = (s >> 64) + (col[j] >> 64) + (static_cast<u128>(over[j]) << 64);
    }
    acc[W] = static_cast<u64>(carry);
    acc[W + 1] = static_cast<u64>(carry >> 64);
}

}  // namespace

// The per-coefficient part of reconstruct_mod_p, for p of W limbs (W = 0: any, given as w).
template <size_t W>
void reconstruct_coeffs(const Context& ctx, const RnsPoly& v, size_t l, size_t w_any, const u64* consts,
                        u64 p_neg_inv, u64* out, double max_ratio) {
    const size_t w = W ? W : w_any;
    const double log2_q = ctx.log2_q(l);
    // Each column term is below 2^64 max(q_i) (alpha <= l is smaller still).
    u64 max_q = 0;
    for (size_t i = 0; i < l; ++i) max_q = std::max(max_q, ctx.prime(i));
    const bool may_overflow = static_cast<u128>(max_q) * (l + 1) >> 64 != 0;
    const u64* pl = ctx.p_limb_vec().data();
    // Rows are 8N bytes apart, so reading one word of each row per coefficient would hit the
    // same cache sets over and over: transpose a block of coefficients first.
    constexpr size_t kBlock = 64;
    const std::vector<double>& inv_q = ctx.crt(l).inv_q;
    std::vector<u64> acc(2 * w + 2), block(kBlock * (l + 1));
    std::vector<double> frac(kBlock);
    // At decryption these hold the phase and the plaintext: wiped however the loop ends.
    const WipeOnExit<std::vector<u64>> wipe_acc(acc), wipe_block(block);
    const WipeOnExit<std::vector<double>> wipe_frac(frac);
    for (size_t k = 0; k < ctx.n(); ++k) {
        const size_t kk = k % kBlock;
        if (kk == 0) {
            const size_t len = std::min(kBlock, ctx.n() - k);
            std::fill(frac.begin(), frac.end(), 0.0);
            for (size_t i = 0; i < l; ++i) {
                const u64* row = v.row(i) + k;
                for (size_t b = 0; b < len; ++b) {
                    block[b * (l + 1) + i] = row[b];
                    frac[b] += static_cast<double>(row[b]) * inv_q[i];
                }
            }
        }
        const double alpha = std::nearbyint(frac[kk]);
        const double ratio = std::fabs(frac[kk] - alpha);
        if (ratio >= max_ratio)
            throw NoiseBudgetExhausted(
                ratio >= 0.25 ? std::string("measured noise exceeds a quarter of the modulus: decryption would "
                                            "not be reliable")
                              : "measured noise 2^" + std::to_string(std::lround(std::log2(ratio) + log2_q)) +
                                    " exceeds the ciphertext's tracked bound: its noise field does not match its "
                                    "contents (corrupted or forged), so the result would not be reliable");
        u64* y = block.data() + kk * (l + 1);
        y[l] = static_cast<u64>(alpha);
        std::fill(acc.begin(), acc.end(), 0);
        if constexpr (W > 0) {
            if (may_overflow)
                dot_limbs<W, true>(acc.data(), y, consts, l + 1);
            else
                dot_limbs<W, false>(acc.data(), y, consts, l + 1);
        } else {
            for (size_t i = 0; i <= l; ++i) mul_acc(acc.data(), y[i], consts + i * w, w);
        }
        // Montgomery reduction: add multiples of p clearing one low limb at a time.
        for (size_t j = 0; j < w; ++j) mul_acc<W>(acc.data() + j, acc[j] * p_neg_inv, pl, w);
        // acc / R, below p (1 + (l + 1) max(q_i) / R): once p for BN254-sized p, a few times
        // for a one-limb p.
        u64* t = acc.data() + w;
        // t has w + 1 limbs, p has w.
        while (t[w] != 0 || !limbs_less(t, pl, w)) t[w] -= limbs_sub(t, t, pl, w);
        std::copy(t, t + w, out + k * w);
    }
}

// [v]_Q = sum_i y_i (Q/q_i) - alpha Q with y_i = [v_i (Q/q_i)^-1]_{q_i} and alpha the rounded
// fractional sum sum_i y_i / q_i, whose distance to alpha also says how close v is to Q/2.
// Modulo p that is sum_i y_i c_i + alpha d with c_i = (Q/q_i) mod p and d = -Q mod p. The sum is
// below (l + 1) max(q_i) p, so one Montgomery reduction (R = 2^(64 w)) brings it near [0, p)
// without a division, provided the constants carry the factor R (and the caller's scale).
void reconstruct_mod_p(const Context& ctx, size_t level, const RnsPoly& y, const NTL::ZZ& scale, u64* out,
                       double max_ratio) {
    max_ratio = std::min(max_ratio, 0.25);
    const size_t w = ctx.p_limbs(), l = level;
    const LevelCrt& crt = ctx.crt(l);
    const NTL::ZZ& p = ctx.p();

    const NTL::ZZ factor = NTL::MulMod(NTL::PowerMod(NTL::ZZ(2), static_cast<long>(64 * w), p), scale, p);
    std::vector<u64> consts((l + 1) * w);
    for (size_t i = 0; i < l; ++i)
        zz_to_limbs(NTL::MulMod(zz_from_limbs(crt.punct_mod_p[i].data(), w), factor, p), consts.data() + i * w, w);
    zz_to_limbs(NTL::MulMod(zz_from_limbs(crt.p_minus_q_mod_p.data(), w) % p, factor, p), consts.data() + l * w, w);
    const u64 p_neg_inv = neg_inverse_mod_2_64(ctx.p_limb_vec()[0]);

    switch (w) {
        case 1: return reconstruct_coeffs<1>(ctx, y, l, w, consts.data(), p_neg_inv, out, max_ratio);
        case 2: return reconstruct_coeffs<2>(ctx, y, l, w, consts.data(), p_neg_inv, out, max_ratio);
        case 3: return reconstruct_coeffs<3>(ctx, y, l, w, consts.data(), p_neg_inv, out, max_ratio);
        case 4: return reconstruct_coeffs<4>(ctx, y, l, w, consts.data(), p_neg_inv, out, max_ratio);
        case 5: return reconstruct_coeffs<5>(ctx, y, l, w, consts.data(), p_neg_inv, out, max_ratio);
        case 6: return reconstruct_coeffs<6>(ctx, y, l, w, consts.data(), p_neg_inv, out, max_ratio);
        default: return reconstruct_coeffs<0>(ctx, y, l, w, consts.data(), p_neg_inv, out, max_ratio);
    }
}

}  // namespace helib
