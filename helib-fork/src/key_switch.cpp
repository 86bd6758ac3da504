#include "key_switch.h"

namespace helib {
namespace {

// All ones if x > h, else 0. The comparison is data-dependent and unpredictable (uniform
// residues), so it must not become a branch.
inline u64 mask_if_greater(u64 x, u64 h) { return 0 - static_cast<u64>(x > h); }

// Fast basis extension of one digit (chain primes [b, e)) to other primes, with the digit's
// residues read centered in (-q_a/2, q_a/2]: x = sum_a [c_a (Q_S/q_a)^-1]_{q_a} (Q_S/q_a).
// The centering is folded into a precomputed correction so the inner loop is branch-free.
struct DigitLift {
    size_t b = 0, e = 0;
    std::vector<u64> half;       // q_a / 2
    std::vector<u64> punct_mod;  // (Q_S/q_a) mod target, [a * targets + r]
    std::vector<u64> corr;       // -q_a (Q_S/q_a) mod target, added for negative digits
    size_t targets = 0;

    DigitLift(const Context& ctx, size_t b_, size_t e_, const Basis& ext) : b(b_), e(e_), targets(ext.size()) {
        const size_t s = e - b;
        half.resize(s);
        punct_mod.resize(s * targets);
        corr.resize(s * targets);
        for (size_t a = 0; a < s; ++a) {
            const u64 qa = ctx.prime(b + a);
            half[a] = qa / 2;
            for (size_t r = 0; r < targets; ++r) {
                const u64 qr = ctx.prime(ext[r]);
                u64 pr = 1;
                for (size_t a2 = 0; a2 < s; ++a2)
                    if (a2 != a) pr = mul_mod(pr, ctx.prime(b + a2) % qr, qr);
                punct_mod[a * targets + r] = pr;
                corr[a * targets + r] = mul_mod(qr - qa % qr, pr, qr);
            }
        }
    }

    // Scales the digit's coefficient rows in place by (Q_S/q_a)^-1 mod q_a.
    void prepare(const Context& ctx, RnsPoly& c_coeff) const {
        const size_t s = e - b;
        for (size_t a = 0; a < s; ++a) {
            const u64 qa = ctx.prime(b + a);
            u64 prod = 1;
            for (size_t a2 = 0; a2 < s; ++a2)
                if (a2 != a) prod = mul_mod(prod, ctx.prime(b + a2) % qa, qa);
            const u64 w = inv_mod(prod, qa), wp = shoup_precompute(w, qa);
            u64* row = c_coeff.row(b + a);
            for (size_t k = 0; k < ctx.n(); ++k) row[k] = mul_shoup(row[k], w, wp, qa);
        }
    }

    // The digit modulo target prime ext[r], coefficient form, into out.
    void extend(const Context& ctx, const RnsPoly& scaled, size_t r, size_t prime_index, u64* out) const {
        const size_t s = e - b, n = ctx.n();
        const Barrett& br = ctx.ntt(prime_index).barrett();
        std::vector<const u64*> rows(s);
        std::vector<u64> w(s), cr(s);
        for (size_t a = 0; a < s; ++a) {
            rows[a] = scaled.row(b + a);
            w[a] = punct_mod[a * targets + r];
            cr[a] = corr[a * targets + r];
        }
        for (size_t k = 0; k < n; ++k) {
            // s <= 72 terms < 2^101 each: the 128-bit sum cannot overflow.
            u128 acc = 0;
            for (size_t a = 0; a < s; ++a) {
                const u64 t = rows[a][k];
                acc += static_cast<u128>(t) * w[a] + (cr[a] & mask_if_greater(t, half[a]));
            }
            out[k] = br.reduce(acc);
        }
    }
};

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
                sum += static_cast<u128>(z) * w[k] + (corr[k] & mask_if_greater(z, half[k]));
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
    RnsPoly scaled = c;
    scaled.truncate(level);
    ntt_inverse(ctx, chain, scaled);

    std::vector<DigitLift> lifts;
    std::vector<size_t> digit_of;
    for (size_t j = 0; j < ctx.num_digits(); ++j) {
        const size_t b = ctx.digit_begin(j), e = std::min(ctx.digit_end(j), level);
        if (b >= e) continue;
        lifts.emplace_back(ctx, b, e, ext);
        lifts.back().prepare(ctx, scaled);
        digit_of.push_back(j);
    }

    // Row by row over the extended basis: lift each digit to this prime, NTT, and accumulate
    // its products with the key in 128 bits (dnum products < 2^100 each); one reduction per
    // element. The working set stays a few rows instead of every lifted digit.
    RnsPoly acc0(ext.size(), n), acc1(ext.size(), n);
    std::vector<u64> lifted(n);
    std::vector<u128> sum0(n), sum1(n);
    for (size_t r = 0; r < ext.size(); ++r) {
        const size_t pi = ext[r];
        std::fill(sum0.begin(), sum0.end(), 0);
        std::fill(sum1.begin(), sum1.end(), 0);
        for (size_t d = 0; d < lifts.size(); ++d) {
            const u64* x;
            if (pi >= lifts[d].b && pi < lifts[d].e) {
                x = c.row(pi);  // the digit's own primes: c's residue as it is
            } else {
                lifts[d].extend(ctx, scaled, r, pi, lifted.data());
                ctx.ntt(pi).forward(lifted.data());
                x = lifted.data();
            }
            const u64* kb = key.b[digit_of[d]].row(pi);
            const u64* ka = key.a[digit_of[d]].row(pi);
            for (size_t k = 0; k < n; ++k) {
                sum0[k] += static_cast<u128>(x[k]) * kb[k];
                sum1[k] += static_cast<u128>(x[k]) * ka[k];
            }
        }
        const Barrett& br = ctx.ntt(pi).barrett();
        u64 *o0 = acc0.row(r), *o1 = acc1.row(r);
        for (size_t k = 0; k < n; ++k) {
            o0[k] = br.reduce(sum0[k]);
            o1[k] = br.reduce(sum1[k]);
        }
    }
    mod_down(ctx, acc0, level, out0);
    mod_down(ctx, acc1, level, out1);
}

}  // namespace helib
