// Modulus switching, by one prime or several at once. Dropping the top k chain primes, whose product
// is D, maps each part c of a ciphertext to (c - p delta) / D, where delta = c p^-1 mod D,
// centered: the result is the same plaintext times D^-1 mod p (the factor records it) under
// the modulus Q / D, and its noise shrinks by D up to the rounding term p (delta / D)(1, s).
// One prime at a time costs an NTT per remaining prime per dropped prime; at once, the k
// dropped rows are inverted once, delta / D is formed on them, and each remaining row takes
// one base conversion and one NTT. For 5 of 29 primes that is 29 transforms per part instead
// of 135.
//
// delta is formed exactly, not only up to a multiple of D: from the centered residues
// z_j = [c p^-1 (D/d_j)^-1]_{d_j}, delta = sum_j z_j D/d_j - v D with v = round(sum_j z_j / d_j),
// so |delta / D| <= 1/2 and the rounding term is what one prime's drop leaves (the noise
// bound, which drop_primes records as if the primes went one at a time, covers it).

#include <cmath>
#include <stdexcept>
#include <vector>

#include "math/rns_kernels.h"
#include "scheme/ctxt.h"

namespace helib {

void Ctxt::drop_primes(size_t count) {
    const Context& ctx = *ctx_;
    const size_t keep = level_ - count, n = ctx.n();
    if (count < 1 || keep < 1) throw std::logic_error("drop_primes takes at least one prime and keeps one");

    // Constants: z_const[j] = p^-1 (D/d_j)^-1 mod d_j; for each kept prime q_i, the weights
    // p d_j^-1 mod q_i, then p mod q_i for the correction row -v, and D^-1 mod q_i.
    std::vector<u64> z_const(count);
    std::vector<double> inv_d(count);
    for (size_t j = 0; j < count; ++j) {
        const u64 d = ctx.prime(keep + j);
        u64 others = 1;
        for (size_t l = 0; l < count; ++l)
            if (l != j) others = mul_mod(others, ctx.prime(keep + l) % d, d);
        z_const[j] = mul_mod(ctx.t_inv_mod(keep + j), inv_mod(others, d), d);
        inv_d[j] = 1.0 / static_cast<double>(d);
    }
    std::vector<std::vector<u64>> weights(keep, std::vector<u64>(count + 1));
    std::vector<u64> d_inv(keep), d_inv_shoup(keep);
    for (size_t i = 0; i < keep; ++i) {
        const u64 q = ctx.prime(i);
        u64 D = 1;
        for (size_t j = 0; j < count; ++j) {
            const u64 d = ctx.prime(keep + j) % q;
            D = mul_mod(D, d, q);
            weights[i][j] = mul_mod(ctx.t_mod(i), inv_mod(d, q), q);
        }
        weights[i][count] = ctx.t_mod(i);
        d_inv[i] = inv_mod(D, q);
        d_inv_shoup[i] = shoup_precompute(d_inv[i], q);
    }

    // Rows: the centered z_j, then -v; x is p delta / D mod q_i, one kept row at a time.
    std::vector<double> z((count + 1) * n);
    std::vector<const double*> rows(count + 1);
    for (size_t j = 0; j <= count; ++j) rows[j] = z.data() + j * n;
    std::vector<u64> scratch(n), x(n);
    for (RnsPoly* part : {&c0_, &c1_}) {
        for (size_t j = 0; j < count; ++j) {
            const size_t pi = keep + j;
            std::copy(part->row(pi), part->row(pi) + n, scratch.begin());
            ctx.ntt(pi).inverse(scratch.data());
            row_mul_const_centered(z.data() + j * n, scratch.data(), z_const[j], n, ctx.ntt(pi).barrett(),
                                   ctx.simd());
        }
        double* minus_v = z.data() + count * n;
        for (size_t k = 0; k < n; ++k) {
            double s = 0;
            for (size_t j = 0; j < count; ++j) s += z[j * n + k] * inv_d[j];
            minus_v[k] = -std::nearbyint(s);
        }
        for (size_t i = 0; i < keep; ++i) {
            const u64 q = ctx.prime(i);
            row_dot_signed(x.data(), rows.data(), weights[i].data(), count + 1, n, ctx.ntt(i).barrett(),
                           ctx.simd());
            ctx.ntt(i).forward(x.data());
            u64* row = part->row(i);
            for (size_t k = 0; k < n; ++k)
                row[k] = sub_mod(mul_shoup(row[k], d_inv[i], d_inv_shoup[i], q), x[k], q);
        }
        part->truncate(keep);
    }
    for (size_t j = 0; j < count; ++j) account_dropped_prime();
}

}  // namespace helib
