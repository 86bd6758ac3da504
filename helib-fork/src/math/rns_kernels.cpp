#include "math/rns_kernels.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "math/ntt.h"

namespace helib {
namespace {
// The AVX2 and AVX-512 kernels take 16 words per step.
bool use_simd(bool simd, size_t n) { return simd && n % 16 == 0; }
// Asked once: the answer cannot change while the process runs.
bool use_avx512() {
    static const bool yes = cpu_has_avx512_dq();
    return yes;
}
}  // namespace

void row_mul(u64* out, const u64* a, const u64* b, size_t n, const Barrett& br, bool simd) {
    if (use_simd(simd, n)) return row_mul_avx2(out, a, b, n, br.q);
    for (size_t k = 0; k < n; ++k) out[k] = br.mul(a[k], b[k]);
}

void row_mul_add_to(u64* out, const u64* a, const u64* b, const u64* c, size_t n, const Barrett& br, bool simd) {
    if (use_simd(simd, n)) return row_mul_add_to_avx2(out, a, b, c, n, br.q);
    for (size_t k = 0; k < n; ++k) out[k] = add_mod(c[k], br.mul(a[k], b[k]), br.q);
}

void row_cross(u64* out, const u64* a0, const u64* b1, const u64* a1, const u64* b0, size_t n,
               const Barrett& br, bool simd) {
    if (use_simd(simd, n)) return row_cross_avx2(out, a0, b1, a1, b0, n, br.q);
    for (size_t k = 0; k < n; ++k)
        out[k] = br.reduce(static_cast<u128>(a0[k]) * b1[k] + static_cast<u128>(a1[k]) * b0[k]);
}

void row_sub_add(u64* out, const u64* a, const u64* b, const u64* plus, size_t n, const Barrett& br, bool simd) {
    if (use_simd(simd, n)) return row_sub_add_avx2(out, a, b, plus, n, br.q);
    for (size_t k = 0; k < n; ++k) {
        const u64 v = sub_mod(a[k], b[k], br.q);
        out[k] = plus != nullptr ? add_mod(v, plus[k], br.q) : v;
    }
}

void row_switch_key_b(u64* b, const u64* x, u64 g, const u64* a, const u64* s, size_t n, const Barrett& br,
                      bool simd) {
    if (use_simd(simd, n)) return row_switch_key_b_avx2(b, x, g, a, s, n, br.q);
    const u64 q = br.q, gp = shoup_precompute(g, q);
    for (size_t k = 0; k < n; ++k) {
        const u64 v = g == 0 ? b[k] : sub_mod(b[k], mul_shoup(x[k], g, gp, q), q);
        b[k] = sub_mod(v, br.mul(a[k], s[k]), q);
    }
}

void row_dot2(u64* o0, u64* o1, const u64* const* x, const u64* const* k0, const u64* const* k1, size_t terms,
              size_t n, const Barrett& br, bool simd, const u64* plus0) {
    if (use_simd(simd, n) && use_avx512()) return row_dot2_avx512(o0, o1, x, k0, k1, terms, n, br.q, plus0);
    if (use_simd(simd, n)) return row_dot2_avx2(o0, o1, x, k0, k1, terms, n, br.q, plus0);
    // 128-bit sums: products are below 2^124 for primes below 2^62, so 16 fit before a reduction.
    for (size_t k = 0; k < n; ++k) {
        u128 s0 = plus0 != nullptr ? plus0[k] : 0, s1 = 0;
        for (size_t d = 0; d < terms; ++d) {
            s0 += static_cast<u128>(x[d][k]) * k0[d][k];
            s1 += static_cast<u128>(x[d][k]) * k1[d][k];
            if (d % 16 == 15) {
                s0 = br.reduce(s0);
                s1 = br.reduce(s1);
            }
        }
        o0[k] = br.reduce(s0);
        o1[k] = br.reduce(s1);
    }
}

void row_dot_signed(u64* out, const double* const* in, const u64* w, size_t terms, size_t n, const Barrett& br,
                    bool simd) {
    if (use_simd(simd, n) && use_avx512()) return row_dot_signed_avx512(out, in, w, terms, n, br.q);
    if (use_simd(simd, n)) return row_dot_signed_avx2(out, in, w, terms, n, br.q);
    // Scalar: positive and negative terms in separate 128-bit sums (each product < 2^112).
    for (size_t k = 0; k < n; ++k) {
        u128 pos = 0, neg = 0;
        for (size_t a = 0; a < terms; ++a) {
            const double x = in[a][k];
            const u128 t = static_cast<u128>(static_cast<u64>(x < 0 ? -x : x)) * w[a];
            if (x < 0)
                neg += t;
            else
                pos += t;
        }
        out[k] = sub_mod(br.reduce(pos), br.reduce(neg), br.q);
    }
}

void row_from_small(u64* out, const int32_t* in, u64 w, size_t n, const Barrett& br, bool simd) {
    if (use_simd(simd, n)) return row_from_small_avx2(out, in, w, n, br.q);
    const u64 q = br.q, wp = shoup_precompute(w, q);
    for (size_t k = 0; k < n; ++k) out[k] = small_mul_mod(in[k], w, wp, q);
}

void row_mul_const_centered(double* out, const u64* a, u64 w, size_t n, const Barrett& br, bool simd) {
    if (use_simd(simd, n)) return row_mul_const_centered_avx2(out, a, w, n, br.q);
    const u64 q = br.q, wp = shoup_precompute(w, q), half = q / 2;
    for (size_t k = 0; k < n; ++k) {
        const u64 v = mul_shoup(a[k], w, wp, q);
        out[k] = v > half ? -static_cast<double>(q - v) : static_cast<double>(v);
    }
}

size_t signed_dot_terms_per_pass(u64 q) {
    const double per_term = 0.75 * static_cast<double>(q) + 70368744177664.0;  // 2^46
    const double room = 4503599627370496.0 - static_cast<double>(q);            // 2^52 - q
    return std::max<size_t>(1, static_cast<size_t>(room / per_term));
}

void row_mul_acc2_simd(double* acc0, double* acc1, const u64* a0, const u64* a1, const u64* y, size_t n,
                       size_t log_repeat, bool reduce_after, u64 q) {
    if (use_avx512()) return row_mul_acc2_avx512(acc0, acc1, a0, a1, y, n, log_repeat, reduce_after, q);
    row_mul_acc2_avx2(acc0, acc1, a0, a1, y, n, log_repeat, reduce_after, q);
}

void row_store_reduced_simd(u64* out, const double* acc, size_t n, u64 q) {
    if (use_avx512()) return row_store_reduced_avx512(out, acc, n, q);
    row_store_reduced_avx2(out, acc, n, q);
}

void kernels_self_test() {
    if (!cpu_has_avx2_fma()) return;
    const u64 q = (u64(1) << 50) - 27;  // the largest prime below 2^50
    const Barrett br(q);
    // 2^50 = 27 mod q, so with w_a = (2q/5) / 27 - a every product 2^50 w_a is about 2q/5 mod q,
    // a residue whose signed form the kernel does not flip: 32 such terms sum to about 12.8q >
    // 2^53, which one pass without reductions would no longer hold exactly.
    const u64 two_fifths_over_27 = mul_mod(2 * (q / 5), inv_mod(27, q), q);
    constexpr size_t n = 16;
    const double edge = static_cast<double>(u64(1) << 50);
    for (size_t terms : {1, 3, 4, 9, 33, 40}) {
        // Words 0-7: +-2^50 in every term (the sign by parity); words 8-15: near it, other residues.
        std::vector<std::vector<double>> rows(terms, std::vector<double>(n));
        std::vector<const double*> in(terms);
        std::vector<u64> w(terms);
        for (size_t a = 0; a < terms; ++a) {
            for (size_t k = 0; k < n; ++k) {
                const double magnitude = k < 8 ? edge : edge - static_cast<double>(a * n + k);
                rows[a][k] = k % 2 == 0 ? magnitude : -magnitude;
            }
            in[a] = rows[a].data();
            w[a] = two_fifths_over_27 - a;
        }
        std::vector<u64> vec(n), scalar(n);
        row_dot_signed(scalar.data(), in.data(), w.data(), terms, n, br, false);
        row_dot_signed_avx2(vec.data(), in.data(), w.data(), terms, n, q);
        if (vec != scalar)
            throw std::runtime_error("kernel self-test: the AVX2 basis conversion differs from the scalar one (" +
                                     std::to_string(terms) + " terms)");
        if (!use_avx512()) continue;
        std::fill(vec.begin(), vec.end(), u64(0));
        row_dot_signed_avx512(vec.data(), in.data(), w.data(), terms, n, q);
        if (vec != scalar)
            throw std::runtime_error("kernel self-test: the AVX-512 basis conversion differs from the scalar one (" +
                                     std::to_string(terms) + " terms)");
    }
    if (!use_avx512()) return;
    // The key inner product at q - 1 in every word (the largest products), with and without the
    // addend, for term counts around the reductions every fourth term.
    std::vector<u64> top(n, q - 1);
    for (size_t terms : {1, 4, 5, 12}) {
        std::vector<const u64*> rows(terms, top.data());
        for (const u64* plus : {static_cast<const u64*>(nullptr), static_cast<const u64*>(top.data())}) {
            std::vector<u64> v0(n), v1(n), s0(n), s1(n);
            row_dot2(s0.data(), s1.data(), rows.data(), rows.data(), rows.data(), terms, n, br, false, plus);
            row_dot2_avx512(v0.data(), v1.data(), rows.data(), rows.data(), rows.data(), terms, n, q, plus);
            if (v0 != s0 || v1 != s1)
                throw std::runtime_error("kernel self-test: the AVX-512 key inner product differs from the scalar one (" +
                                         std::to_string(terms) + " terms)");
        }
    }
    // The ciphertext-plaintext accumulation against the AVX2 one, for every way the plaintext
    // row is stored (each value repeated 1 to 16 times), over four terms and their reduction.
    constexpr size_t m = 64;
    std::vector<u64> a0(m), a1(m), y(m);
    for (size_t k = 0; k < m; ++k) {
        a0[k] = q - 1 - k;
        a1[k] = (q / 3 + 7919 * k) % q;
        y[k] = (q / 2 + 104729 * k) % q;
    }
    for (size_t log_repeat = 0; log_repeat <= 4; ++log_repeat) {
        std::vector<double> w0(2 * m, 0.0), w1(2 * m, 0.0);
        for (size_t term = 0; term < 4; ++term) {
            row_mul_acc2_avx2(w0.data(), w0.data() + m, a0.data(), a1.data(), y.data(), m, log_repeat, term == 3, q);
            row_mul_acc2_avx512(w1.data(), w1.data() + m, a0.data(), a1.data(), y.data(), m, log_repeat, term == 3, q);
        }
        std::vector<u64> r0(2 * m), r1(2 * m);
        row_store_reduced_avx2(r0.data(), w0.data(), 2 * m, q);
        row_store_reduced_avx512(r1.data(), w1.data(), 2 * m, q);
        if (r0 != r1)
            throw std::runtime_error("kernel self-test: the AVX-512 plaintext product differs from the AVX2 one "
                                     "(each value repeated " + std::to_string(1u << log_repeat) + " times)");
    }
}

}  // namespace helib
