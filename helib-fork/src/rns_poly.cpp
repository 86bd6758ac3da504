#include "rns_poly.h"

#include <gmp.h>

#include <algorithm>

#include "errors.h"
#include "rns_kernels.h"

namespace helib {

Basis chain_basis(const Context& ctx, size_t level) {
    (void)ctx;
    Basis b(level);
    for (size_t i = 0; i < level; ++i) b[i] = i;
    return b;
}

Basis extended_basis(const Context& ctx, size_t level) {
    Basis b = chain_basis(ctx, level);
    for (size_t k = 0; k < ctx.num_special(); ++k) b.push_back(ctx.special_index(k));
    return b;
}

void ntt_forward(const Context& ctx, const Basis& basis, RnsPoly& a) {
    for (size_t r = 0; r < basis.size(); ++r) ctx.ntt(basis[r]).forward(a.row(r));
}

void ntt_inverse(const Context& ctx, const Basis& basis, RnsPoly& a) {
    for (size_t r = 0; r < basis.size(); ++r) ctx.ntt(basis[r]).inverse(a.row(r));
}

RnsPoly small_to_ntt(const Context& ctx, const std::vector<int32_t>& coeffs, const Basis& basis) {
    const size_t n = ctx.n();
    RnsPoly out = RnsPoly::uninit(basis.size(), n);
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        u64* row = out.row(r);
        for (size_t k = 0; k < n; ++k) {
            const int64_t v = coeffs[k];
            row[k] = select(v < 0, q - static_cast<u64>(-v), static_cast<u64>(v));
        }
    }
    ntt_forward(ctx, basis, out);
    return out;
}

RnsPoly sample_uniform(const Context& ctx, Prng& prng, const Basis& basis) {
    const size_t n = ctx.n();
    RnsPoly out = RnsPoly::uninit(basis.size(), n);
    for (size_t r = 0; r < basis.size(); ++r) prng.uniform_row(out.row(r), n, ctx.prime(basis[r]));
    return out;
}

RnsPoly plaintext_to_ntt(const Context& ctx, const u64* coeffs, size_t num, const Basis& basis,
                         std::vector<double>* centered) {
    RnsPoly out = plaintext_to_coeffs(ctx, coeffs, num, basis, centered);
    ntt_forward(ctx, basis, out);
    return out;
}

RnsPoly plaintext_to_coeffs(const Context& ctx, const u64* coeffs, size_t num, const Basis& basis,
                            std::vector<double>* centered) {
    return plaintext_rows(ctx, coeffs, num, ctx.n(), basis, centered);
}

RnsPoly plaintext_rows(const Context& ctx, const u64* coeffs, size_t num, size_t n, const Basis& basis,
                       std::vector<double>* centered) {
    const size_t w = ctx.p_limbs();
    if (num > n) throw InvalidArgument("polynomial has more coefficients than the ring degree N");
    const std::vector<u64>& p = ctx.p_limb_vec();
    std::vector<u64> half(w);
    zz_to_limbs(ctx.half_p(), half.data(), w);

    // Reduce each coefficient's magnitude once; remember its sign.
    std::vector<u64> mag(num * w);
    std::vector<uint8_t> negative(num, 0);
    const mp_limb_t* pl = reinterpret_cast<const mp_limb_t*>(p.data());
    const mp_limb_t* hl = reinterpret_cast<const mp_limb_t*>(half.data());
    for (size_t k = 0; k < num; ++k) {
        const mp_limb_t* c = reinterpret_cast<const mp_limb_t*>(coeffs + k * w);
        mp_limb_t* dst = reinterpret_cast<mp_limb_t*>(mag.data() + k * w);
        if (mpn_cmp(c, pl, static_cast<mp_size_t>(w)) >= 0)
            throw InvalidArgument("plaintext coefficient " + std::to_string(k) + " is not below p");
        if (mpn_cmp(c, hl, static_cast<mp_size_t>(w)) > 0) {
            mpn_sub_n(dst, pl, c, static_cast<mp_size_t>(w));
            negative[k] = 1;
        } else {
            for (size_t j = 0; j < w; ++j) dst[j] = c[j];
        }
    }
    if (centered) {
        centered->assign(n, 0.0);
        for (size_t k = 0; k < num; ++k) {
            double v = 0;
            for (size_t j = w; j-- > 0;) v = v * 18446744073709551616.0 + double(mag[k * w + j]);
            (*centered)[k] = negative[k] ? -v : v;
        }
    }

    RnsPoly out(basis.size(), n);
    for (size_t r = 0; r < basis.size(); ++r) {
        const size_t pi = basis[r];
        const u64 q = ctx.prime(pi);
        const Barrett& br = ctx.ntt(pi).barrett();
        // radix[j] = 2^(64 j) mod q; each limb product is < 2^124, so 15 of them fit in 128 bits.
        std::vector<u64> radix(w);
        const u64 two64 = static_cast<u64>((static_cast<u128>(1) << 64) % q);
        radix[0] = 1;
        for (size_t j = 1; j < w; ++j) radix[j] = br.mul(radix[j - 1], two64);
        u64* row = out.row(r);
        for (size_t k = 0; k < num; ++k) {
            const u64* c = mag.data() + k * w;
            u64 acc = 0;
            for (size_t j0 = 0; j0 < w; j0 += 15) {
                u128 sum = acc;
                const size_t j1 = std::min(w, j0 + 15);
                for (size_t j = j0; j < j1; ++j) sum += static_cast<u128>(c[j]) * radix[j];
                acc = br.reduce(sum);
            }
            // Signs are random: select without a branch.
            row[k] = select(negative[k], neg_mod_branchless(acc, q), acc);
        }
    }
    return out;
}

void add_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        u64* x = a.row(r);
        const u64* y = b.row(r);
        for (size_t k = 0; k < n; ++k) x[k] = add_mod(x[k], y[k], q);
    }
}

void sub_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        u64* x = a.row(r);
        const u64* y = b.row(r);
        for (size_t k = 0; k < n; ++k) x[k] = sub_mod(x[k], y[k], q);
    }
}

void negate_inplace(const Context& ctx, const Basis& basis, RnsPoly& a) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        u64* x = a.row(r);
        for (size_t k = 0; k < n; ++k) x[k] = neg_mod(x[k], q);
    }
}

void mul_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b) {
    for (size_t r = 0; r < basis.size(); ++r)
        row_mul(a.row(r), a.row(r), b.row(r), ctx.n(), ctx.ntt(basis[r]).barrett(), ctx.simd());
}

void mul_scalar_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const std::vector<u64>& s) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        const u64 w = s[r], wp = shoup_precompute(w, q);
        u64* x = a.row(r);
        for (size_t k = 0; k < n; ++k) x[k] = mul_shoup(x[k], w, wp, q);
    }
}

}  // namespace helib
