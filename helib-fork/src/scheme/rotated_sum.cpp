#include "scheme/rotated_sum.h"

#include <algorithm>

#include "scheme/galois.h"
#include "math/rns_kernels.h"

namespace helib {
namespace {

// The vector path permutes and multiplies in chunks of this many words, so the permuted words
// go from L1 straight into the products instead of through a row-sized buffer.
constexpr size_t kChunk = 1024;

// Scratch for one extended row of the sum, allocated once per call.
struct RowScratch {
    Words k0, k1;             // a term's key product (+ c0)
    Words s0, s1;             // ... permuted: a chunk (vector path) or the row (portable path)
    Words y;                  // a compact plaintext row expanded (portable path)
    std::vector<double> acc;  // signed-double accumulators of both parts (vector path)
    std::vector<const u64*> x, kb, ka;
};

}  // namespace

void rotated_sum(const Context& ctx, const Decomposition& d, const RnsPoly& c0, const RnsPoly& c1,
                 const std::vector<RotatedTerm>& terms, RnsPoly& out0, RnsPoly& out1) {
    const size_t n = ctx.n(), level = d.level, digits = d.digits.size();
    const bool simd = ctx.simd() && n % 16 == 0;
    const size_t chunk = std::min(n, kChunk);  // powers of two: chunks tile the row
    const size_t permuted = simd ? chunk : n;
    const Basis ext = extended_basis(ctx, level);
    RowScratch s{Words(n), Words(n), Words(permuted), Words(permuted), Words(simd ? 0 : n),
                 std::vector<double>(simd ? 2 * n : 0), {}, {}, {}};
    s.x.resize(digits);
    s.kb.resize(digits);
    s.ka.resize(digits);

    // Row r of both accumulators: sum over the terms of pt * sigma(key product + c0), where the
    // key's chain rows carry P^-1 (keys.h), so c0 and c1 of an identity term enter the chain rows
    // as they are and nothing enters the special rows, as in a key switch's epilogue.
    auto sum_row = [&](size_t r, u64* o0, u64* o1) {
        const size_t pi = ext[r];
        const bool chain = r < level;
        const u64 q = ctx.prime(pi);
        const Barrett& br = ctx.ntt(pi).barrett();
        for (size_t i = 0; i < digits; ++i) s.x[i] = d.digits[i].row(r);
        double* acc0 = s.acc.data();
        double* acc1 = s.acc.data() + n;
        if (simd) {
            std::fill(s.acc.begin(), s.acc.end(), 0.0);
        } else {
            std::fill(o0, o0 + n, 0);
            std::fill(o1, o1 + n, 0);
        }
        size_t added = 0;
        for (const RotatedTerm& t : terms) {
            if (t.key == nullptr && !chain) continue;
            if (t.key != nullptr) {
                const size_t row = key_row(ctx, *t.key, pi);
                for (size_t i = 0; i < digits; ++i) {
                    s.kb[i] = t.key->b[d.digit_of[i]].row(row);
                    s.ka[i] = t.key->a[d.digit_of[i]].row(row);
                }
                row_dot2(s.k0.data(), s.k1.data(), s.x.data(), s.kb.data(), s.ka.data(), digits, n, br, ctx.simd(),
                         chain ? c0.row(r) : nullptr);
            }
            const EncodedPtxt& pt = *t.pt;
            const u64* y = pt.extended_row(r, level);
            if (simd) {
                // Each product adds below 3q/4 to accumulators that must stay below 2^52:
                // reduce after every fourth term.
                const bool reduce = added % 4 == 3;
                for (size_t b = 0; b < n; b += chunk) {
                    // An identity term is on a chain row here (c0, c1 have no special rows).
                    const u64 *a0 = s.s0.data(), *a1 = s.s1.data();
                    if (t.key != nullptr) {
                        permute_row_avx2(t.perm->data() + b, s.k0.data(), s.s0.data(), chunk);
                        permute_row_avx2(t.perm->data() + b, s.k1.data(), s.s1.data(), chunk);
                    } else {
                        a0 = c0.row(r) + b;
                        a1 = c1.row(r) + b;
                    }
                    row_mul_acc2_simd(acc0 + b, acc1 + b, a0, a1, y + (b >> pt.log_repeat()), chunk,
                                      pt.log_repeat(), reduce, q);
                }
            } else {
                const u64 *a0 = s.s0.data(), *a1 = s.s1.data();
                if (t.key != nullptr) {
                    permute_row(*t.perm, s.k0.data(), s.s0.data(), false);
                    permute_row(*t.perm, s.k1.data(), s.s1.data(), false);
                } else {
                    a0 = c0.row(r);
                    a1 = c1.row(r);
                }
                if (pt.log_repeat() != 0) {
                    pt.expand(r, 0, n, s.y.data());
                    y = s.y.data();
                }
                row_mul_add(o0, a0, y, n, br, false);
                row_mul_add(o1, a1, y, n, br, false);
            }
            ++added;
        }
        if (simd) {
            row_store_reduced_simd(o0, acc0, n, q);
            row_store_reduced_simd(o1, acc1, n, q);
        }
    };
    mod_down(ctx, ctx.switch_basis(false), level, sum_row, out0, out1);
}

}  // namespace helib
