#include "rns_kernels.h"

#include <vector>

namespace helib {

void row_mul(u64* out, const u64* a, const u64* b, size_t n, const Barrett& br, bool simd) {
    if (simd) return row_mul_avx2(out, a, b, n, br.q);
    for (size_t k = 0; k < n; ++k) out[k] = br.mul(a[k], b[k]);
}

void row_mul_add(u64* out, const u64* a, const u64* b, size_t n, const Barrett& br, bool simd) {
    if (simd) return row_mul_add_avx2(out, a, b, n, br.q);
    for (size_t k = 0; k < n; ++k) out[k] = add_mod(out[k], br.mul(a[k], b[k]), br.q);
}

void row_cross(u64* out, const u64* a0, const u64* b1, const u64* a1, const u64* b0, size_t n,
               const Barrett& br, bool simd) {
    if (simd) return row_cross_avx2(out, a0, b1, a1, b0, n, br.q);
    for (size_t k = 0; k < n; ++k)
        out[k] = br.reduce(static_cast<u128>(a0[k]) * b1[k] + static_cast<u128>(a1[k]) * b0[k]);
}

void row_convert_centered(u64* out, const u64* const* in, const u64* q_in, const u64* w, size_t s,
                          size_t n, const Barrett& br, bool simd) {
    if (simd) return row_convert_centered_avx2(out, in, q_in, w, s, n, br.q);
    // Scalar: 128-bit sums (s products < 2^101 each); a negative input -q_in + x is handled by
    // adding the precomputed -q_in * w mod q, selected without a branch.
    const u64 q = br.q;
    std::vector<u64> half(s), corr(s);
    for (size_t a = 0; a < s; ++a) {
        half[a] = q_in[a] / 2;
        corr[a] = mul_mod(q - q_in[a] % q, w[a], q);
    }
    for (size_t k = 0; k < n; ++k) {
        u128 acc = 0;
        for (size_t a = 0; a < s; ++a) {
            const u64 t = in[a][k];
            acc += static_cast<u128>(t) * w[a] + (corr[a] & (0 - static_cast<u64>(t > half[a])));
        }
        out[k] = br.reduce(acc);
    }
}

}  // namespace helib
