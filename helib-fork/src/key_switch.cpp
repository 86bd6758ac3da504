#include "key_switch.h"

namespace helib {
namespace {

// Lifts one digit (chain primes [b, e) of c) to every prime of the extended basis, NTT form.
// Fast basis extension with centered digits: x = sum_a [c_a (Q_S/q_a)^-1]_{q_a} (Q_S/q_a), where
// each bracket is read in (-q_a/2, q_a/2]. The centering is folded into a precomputed
// correction term so the inner loop is branch-free.
void lift_digit(const Context& ctx, const RnsPoly& c_ntt, const RnsPoly& c_coeff, size_t b, size_t e,
                const Basis& ext, u64* digit, RnsPoly& tmp) {
    const size_t n = ctx.n(), s = e - b;
    std::vector<u64> punct_inv(s), half(s);
    std::vector<u64> punct_mod(s * ext.size()), corr(s * ext.size());
    for (size_t a = 0; a < s; ++a) {
        const u64 qa = ctx.prime(b + a);
        u64 prod = 1;
        for (size_t a2 = 0; a2 < s; ++a2)
            if (a2 != a) prod = mul_mod(prod, ctx.prime(b + a2) % qa, qa);
        punct_inv[a] = inv_mod(prod, qa);
        half[a] = qa / 2;
        for (size_t r = 0; r < ext.size(); ++r) {
            const u64 qr = ctx.prime(ext[r]);
            u64 pr = 1;
            for (size_t a2 = 0; a2 < s; ++a2)
                if (a2 != a) pr = mul_mod(pr, ctx.prime(b + a2) % qr, qr);
            punct_mod[a * ext.size() + r] = pr;
            // -q_a * punct mod q_r, added when the digit is negative.
            corr[a * ext.size() + r] = mul_mod(qr - qa % qr, pr, qr);
        }
    }
    for (size_t a = 0; a < s; ++a) {
        const u64 qa = ctx.prime(b + a), w = punct_inv[a], wp = shoup_precompute(w, qa);
        const u64* src = c_coeff.row(b + a);
        u64* dst = tmp.row(a);
        for (size_t k = 0; k < n; ++k) dst[k] = mul_shoup(src[k], w, wp, qa);
    }
    for (size_t r = 0; r < ext.size(); ++r) {
        const size_t pi = ext[r];
        u64* out = digit + r * n;
        if (pi >= b && pi < e) {
            std::copy(c_ntt.row(pi), c_ntt.row(pi) + n, out);
            continue;
        }
        const Barrett& br = ctx.ntt(pi).barrett();
        const u64* w = punct_mod.data() + r;  // stride ext.size()
        const u64* cr = corr.data() + r;
        const size_t stride = ext.size();
        for (size_t k = 0; k < n; ++k) {
            // s terms < 2^122 each: the 128-bit sum cannot overflow.
            u128 acc = 0;
            for (size_t a = 0; a < s; ++a) {
                const u64 t = tmp.row(a)[k];
                acc += static_cast<u128>(t) * w[a * stride] + (t > half[a] ? cr[a * stride] : 0);
            }
            out[k] = br.reduce(acc);
        }
        ctx.ntt(pi).forward(out);
    }
}

}  // namespace

void mod_down(const Context& ctx, RnsPoly& acc, size_t level, RnsPoly& out) {
    const size_t n = ctx.n(), K = ctx.num_special();
    // z_k = [acc * p^-1 * (P/p_k)^-1]_{p_k}, centered; x = sum_k z_k (P/p_k) = acc p^-1 mod P.
    for (size_t k = 0; k < K; ++k) {
        const size_t si = ctx.special_index(k);
        const u64 pk = ctx.prime(si);
        u64* row = acc.row(level + k);
        ctx.ntt(si).inverse(row);
        const u64 w = ctx.moddown_z_const(k), wp = shoup_precompute(w, pk);
        for (size_t x = 0; x < n; ++x) row[x] = mul_shoup(row[x], w, wp, pk);
    }
    out = RnsPoly(level, n);
    std::vector<u64> x_row(n), half(K), w(K), corr(K);
    for (size_t i = 0; i < level; ++i) {
        const u64 q = ctx.prime(i);
        const Barrett& br = ctx.ntt(i).barrett();
        for (size_t k = 0; k < K; ++k) {
            const u64 pk = ctx.prime(ctx.special_index(k));
            half[k] = pk / 2;
            w[k] = ctx.p_over_pk_mod_q(k, i);
            corr[k] = mul_mod(q - pk % q, w[k], q);  // z > p_k/2 stands for z - p_k
        }
        for (size_t x = 0; x < n; ++x) {
            u128 sum = 0;
            for (size_t k = 0; k < K; ++k) {
                const u64 z = acc.row(level + k)[x];
                sum += static_cast<u128>(z) * w[k] + (z > half[k] ? corr[k] : 0);
            }
            x_row[x] = br.reduce(sum);
        }
        ctx.ntt(i).forward(x_row.data());
        const u64 pinv = ctx.p_inv_mod_q(i), pinv_s = shoup_precompute(pinv, q);
        const u64 tp = ctx.t_p_inv_mod_q(i), tp_s = shoup_precompute(tp, q);
        const u64* a = acc.row(i);
        u64* o = out.row(i);
        for (size_t x = 0; x < n; ++x)
            o[x] = sub_mod(mul_shoup(a[x], pinv, pinv_s, q), mul_shoup(x_row[x], tp, tp_s, q), q);
    }
}

void key_switch(const Context& ctx, const KeySwitchKey& key, const RnsPoly& c, size_t level,
                RnsPoly& out0, RnsPoly& out1) {
    const size_t n = ctx.n();
    const Basis chain = chain_basis(ctx, level);
    const Basis ext = extended_basis(ctx, level);
    RnsPoly c_coeff = c;
    c_coeff.truncate(level);
    ntt_inverse(ctx, chain, c_coeff);

    // Lift every non-empty digit first, then one lazy inner product per output row.
    std::vector<size_t> digits;
    size_t max_digit = 0;
    for (size_t j = 0; j < ctx.num_digits(); ++j) {
        if (ctx.digit_begin(j) < std::min(ctx.digit_end(j), level)) digits.push_back(j);
        max_digit = std::max(max_digit, ctx.digit_end(j) - ctx.digit_begin(j));
    }
    RnsPoly tmp(max_digit, n);
    std::vector<u64> lifted(digits.size() * ext.size() * n);
    for (size_t d = 0; d < digits.size(); ++d) {
        const size_t j = digits[d];
        lift_digit(ctx, c, c_coeff, ctx.digit_begin(j), std::min(ctx.digit_end(j), level), ext,
                   lifted.data() + d * ext.size() * n, tmp);
    }
    RnsPoly acc0(ext.size(), n), acc1(ext.size(), n);
    for (size_t r = 0; r < ext.size(); ++r) {
        const size_t pi = ext[r];
        const Barrett& br = ctx.ntt(pi).barrett();
        u64 *o0 = acc0.row(r), *o1 = acc1.row(r);
        for (size_t k = 0; k < n; ++k) {
            // dnum products < 2^122 each: no overflow for any practical digit count.
            u128 s0 = 0, s1 = 0;
            for (size_t d = 0; d < digits.size(); ++d) {
                const u64 x = lifted[(d * ext.size() + r) * n + k];
                s0 += static_cast<u128>(x) * key.b[digits[d]].row(pi)[k];
                s1 += static_cast<u128>(x) * key.a[digits[d]].row(pi)[k];
            }
            o0[k] = br.reduce(s0);
            o1[k] = br.reduce(s1);
        }
    }
    mod_down(ctx, acc0, level, out0);
    mod_down(ctx, acc1, level, out1);
}

}  // namespace helib
