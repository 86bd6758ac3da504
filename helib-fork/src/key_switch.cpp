#include "key_switch.h"

namespace helib {
namespace {

// Signed value v (given as its residue mod q, read as centered) reduced mod r, for primes with
// q / 2 < r (true for every pair of our primes).
inline u64 centered_to(u64 v, u64 q, u64 r) {
    return v > q / 2 ? r - (q - v) : v;
}

// Lifts one digit (chain primes [b, e) of c) to every prime of the extended basis, NTT form.
void lift_digit(const Context& ctx, const RnsPoly& c_ntt, const RnsPoly& c_coeff, size_t b, size_t e,
                const Basis& ext, RnsPoly& digit, RnsPoly& tmp) {
    const size_t n = ctx.n(), s = e - b;
    // (Q_S / q_i)^-1 mod q_i and (Q_S / q_i) mod every target prime.
    std::vector<u64> punct_inv(s);
    std::vector<std::vector<u64>> punct_mod(s, std::vector<u64>(ext.size()));
    for (size_t a = 0; a < s; ++a) {
        const u64 qi = ctx.prime(b + a);
        u64 prod = 1;
        for (size_t a2 = 0; a2 < s; ++a2)
            if (a2 != a) prod = mul_mod(prod, ctx.prime(b + a2) % qi, qi);
        punct_inv[a] = inv_mod(prod, qi);
        for (size_t r = 0; r < ext.size(); ++r) {
            const u64 qr = ctx.prime(ext[r]);
            u64 pr = 1;
            for (size_t a2 = 0; a2 < s; ++a2)
                if (a2 != a) pr = mul_mod(pr, ctx.prime(b + a2) % qr, qr);
            punct_mod[a][r] = pr;
        }
    }
    for (size_t a = 0; a < s; ++a) {
        const u64 qi = ctx.prime(b + a), w = punct_inv[a], wp = shoup_precompute(w, qi);
        const u64* src = c_coeff.row(b + a);
        u64* dst = tmp.row(a);
        for (size_t k = 0; k < n; ++k) dst[k] = mul_shoup(src[k], w, wp, qi);
    }
    for (size_t r = 0; r < ext.size(); ++r) {
        const size_t pi = ext[r];
        u64* out = digit.row(r);
        if (pi >= b && pi < e) {
            std::copy(c_ntt.row(pi), c_ntt.row(pi) + n, out);
            continue;
        }
        const u64 qr = ctx.prime(pi);
        const Barrett& br = ctx.ntt(pi).barrett();
        for (size_t k = 0; k < n; ++k) {
            u128 acc = 0;
            for (size_t a = 0; a < s; ++a) {
                const u64 qi = ctx.prime(b + a);
                acc += static_cast<u128>(centered_to(tmp.row(a)[k], qi, qr)) * punct_mod[a][r];
            }
            out[k] = br.reduce(acc);
        }
        ctx.ntt(pi).forward(out);
    }
}

// acc += x * y elementwise over the extended basis; y has rows in full-basis order.
void mul_acc(const Context& ctx, const Basis& ext, RnsPoly& acc, const RnsPoly& x, const RnsPoly& y) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < ext.size(); ++r) {
        const size_t pi = ext[r];
        const u64 q = ctx.prime(pi);
        const Barrett& br = ctx.ntt(pi).barrett();
        u64* a = acc.row(r);
        const u64 *xr = x.row(r), *yr = y.row(pi);
        for (size_t k = 0; k < n; ++k) a[k] = add_mod(a[k], br.mul(xr[k], yr[k]), q);
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
    std::vector<u64> x_row(n);
    for (size_t i = 0; i < level; ++i) {
        const u64 q = ctx.prime(i);
        const Barrett& br = ctx.ntt(i).barrett();
        for (size_t x = 0; x < n; ++x) {
            u128 sum = 0;
            for (size_t k = 0; k < K; ++k) {
                const u64 pk = ctx.prime(ctx.special_index(k));
                u64 z = acc.row(level + k)[x];
                // centered z mod q (|z| <= p_k / 2 < 2 q)
                u64 zm;
                if (z > pk / 2) {
                    u64 mag = pk - z;
                    if (mag >= q) mag -= q;
                    zm = neg_mod(mag, q);
                } else {
                    zm = z >= q ? z - q : z;
                }
                sum += static_cast<u128>(zm) * ctx.p_over_pk_mod_q(k, i);
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

    RnsPoly acc0(ext.size(), n), acc1(ext.size(), n), digit(ext.size(), n);
    size_t max_digit = 0;
    for (size_t j = 0; j < ctx.num_digits(); ++j)
        max_digit = std::max(max_digit, ctx.digit_end(j) - ctx.digit_begin(j));
    RnsPoly tmp(max_digit, n);
    for (size_t j = 0; j < ctx.num_digits(); ++j) {
        const size_t b = ctx.digit_begin(j), e = std::min(ctx.digit_end(j), level);
        if (b >= e) continue;
        lift_digit(ctx, c, c_coeff, b, e, ext, digit, tmp);
        mul_acc(ctx, ext, acc0, digit, key.b[j]);
        mul_acc(ctx, ext, acc1, digit, key.a[j]);
    }
    mod_down(ctx, acc0, level, out0);
    mod_down(ctx, acc1, level, out1);
}

}  // namespace helib
