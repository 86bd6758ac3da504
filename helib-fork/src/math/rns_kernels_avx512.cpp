// AVX-512 versions of the row kernels that dominate key switching and the plaintext-matrix
// products: the basis conversion (row_dot_signed), the key inner product (row_dot2) and the
// ciphertext-plaintext accumulation (row_mul_acc2). The same arithmetic and bounds as their
// AVX2 twins (rns_kernels_avx2.cpp) on vectors of eight lanes; each step handles 16 words.

#include "math/arch.h"

#if HELIB_X86_64

#include <algorithm>

#include "math/avx512_modq.h"

#include "math/rns_kernels.h"

namespace helib {

using namespace avx512;

namespace {

// As in the AVX2 kernel: each term's quotient comes from y * (w/q), so the high part stays
// below 3q/4 and the low part below 2^46, and a call takes at most signed_dot_terms_per_pass(q)
// terms so that the two sums stay exact until the end.
constexpr size_t kDotChunk = 32;

template <int V>
HELIB_AVX512 __attribute__((always_inline)) inline void dot_sums(__m512d* hi_sum, __m512d* lo_sum, const u64* start,
                                                                  const double* const* in, const double* wd,
                                                                  const double* wq, size_t terms, size_t k,
                                                                  const Consts& c) {
    for (int v = 0; v < V; ++v) {
        hi_sum[v] = start != nullptr ? load_u64(start + k + 8 * v) : c.zero;
        lo_sum[v] = c.zero;
    }
    for (size_t a = 0; a < terms; ++a) {
        const __m512d wv = _mm512_set1_pd(wd[a]), wqv = _mm512_set1_pd(wq[a]);
        __m512d y[V], hi[V], lo[V], quot[V];
        for (int v = 0; v < V; ++v) y[v] = _mm512_loadu_pd(in[a] + k + 8 * v);
        for (int v = 0; v < V; ++v) hi[v] = _mm512_mul_pd(y[v], wv);
        for (int v = 0; v < V; ++v) quot[v] = _mm512_fmadd_pd(y[v], wqv, c.magic);
        for (int v = 0; v < V; ++v) lo[v] = _mm512_fmsub_pd(y[v], wv, hi[v]);
        for (int v = 0; v < V; ++v) quot[v] = _mm512_sub_pd(quot[v], c.magic);
        for (int v = 0; v < V; ++v) hi[v] = _mm512_fnmadd_pd(quot[v], c.q, hi[v]);
        for (int v = 0; v < V; ++v) lo_sum[v] = _mm512_add_pd(lo_sum[v], lo[v]);
        for (int v = 0; v < V; ++v) hi_sum[v] = _mm512_add_pd(hi_sum[v], hi[v]);
    }
}

template <int V>
HELIB_AVX512 __attribute__((always_inline)) inline void dot_finish(u64* out, __m512d* hi_sum, const __m512d* lo_sum,
                                                                    const Consts& c) {
    for (int v = 0; v < V; ++v) hi_sum[v] = _mm512_add_pd(hi_sum[v], lo_sum[v]);
    reduce<V>(hi_sum, c);
    for (int v = 0; v < V; ++v) store_u64(out + 8 * v, hi_sum[v], c);
}

// Software-pipelined as the AVX2 kernel: the sums of step k + 1 are issued before step k is
// reduced and stored.
HELIB_AVX512 void dot_signed_chunk(u64* out, const double* const* in, const u64* w, size_t terms, size_t n, u64 q,
                                   bool accumulate) {
    constexpr int V = 2;
    const Consts c = make_consts(static_cast<double>(q));
    alignas(64) double wd[kDotChunk], wq[kDotChunk];
    for (size_t a = 0; a < terms; ++a) {
        wd[a] = static_cast<double>(w[a]);
        wq[a] = wd[a] * (1.0 / static_cast<double>(q));
    }
    const u64* start = accumulate ? out : nullptr;
    __m512d hi_sum[V], lo_sum[V];
    dot_sums<V>(hi_sum, lo_sum, start, in, wd, wq, terms, 0, c);
    size_t k = 0;
    for (; k + 8 * V < n; k += 8 * V) {
        __m512d next_hi[V], next_lo[V];
        dot_sums<V>(next_hi, next_lo, start, in, wd, wq, terms, k + 8 * V, c);
        dot_finish<V>(out + k, hi_sum, lo_sum, c);
        for (int v = 0; v < V; ++v) {
            hi_sum[v] = next_hi[v];
            lo_sum[v] = next_lo[v];
        }
    }
    dot_finish<V>(out + k, hi_sum, lo_sum, c);
}

// Four terms between reductions, as the AVX2 kernel: each |term| <= 3q/4 on a reduced start.
template <bool kPlus>
HELIB_AVX512 void dot2(u64* o0, u64* o1, const u64* const* x, const u64* const* k0, const u64* const* k1,
                       size_t terms, size_t n, u64 q, const u64* plus0) {
    constexpr int V = 2;
    const Consts c = make_consts(static_cast<double>(q));
    for (size_t k = 0; k < n; k += 8 * V) {
        __m512d acc[2 * V];
        for (int v = 0; v < V; ++v) acc[v] = kPlus ? load_u64(plus0 + k + 8 * v) : c.zero;
        for (int v = V; v < 2 * V; ++v) acc[v] = c.zero;
        for (size_t d = 0; d < terms; ++d) {
            __m512d xs[2 * V], ks[2 * V], r[2 * V];
            for (int v = 0; v < V; ++v) {
                xs[v] = xs[V + v] = load_u64(x[d] + k + 8 * v);
                ks[v] = load_u64(k0[d] + k + 8 * v);
                ks[V + v] = load_u64(k1[d] + k + 8 * v);
            }
            mulmod<2 * V>(r, xs, ks, c);
            for (int v = 0; v < 2 * V; ++v) acc[v] = _mm512_add_pd(acc[v], r[v]);
            if (d % 4 == 3) reduce<2 * V>(acc, c);
        }
        reduce<2 * V>(acc, c);
        for (int v = 0; v < V; ++v) {
            store_u64(o0 + k + 8 * v, acc[v], c);
            store_u64(o1 + k + 8 * v, acc[V + v], c);
        }
    }
}

// How the eight words from an aligned word k of a row stored with each value repeated
// 2^log_repeat times take their values: only the words the lanes need are loaded (a full load
// could run past the row's end), then spread by a lane permutation.
struct RepeatedRow {
    const u64* y;
    size_t log_repeat;
    __mmask8 need;  // the stored words the eight lanes read
    __m512i lanes;  // lane i reads stored word i >> min(log_repeat, 3) of those

    HELIB_AVX512 RepeatedRow(const u64* y_, size_t log_repeat_) : y(y_), log_repeat(log_repeat_) {
        const size_t shift = std::min<size_t>(log_repeat, 3);
        need = static_cast<__mmask8>((1u << (8 >> shift)) - 1);
        alignas(64) int64_t idx[8];
        for (int i = 0; i < 8; ++i) idx[i] = i >> shift;
        lanes = _mm512_load_si512(idx);
    }

    HELIB_AVX512 __m512d at(size_t k) const {
        if (log_repeat == 0) return load_u64(y + k);
        const __m512i words = _mm512_maskz_loadu_epi64(need, y + (k >> log_repeat));
        // The zero-masked form of the permutation, with every lane kept: the same instruction,
        // without the undefined source that makes GCC 12 warn (-Wmaybe-uninitialized).
        return _mm512_cvtepu64_pd(_mm512_maskz_permutexvar_epi64(0xFF, lanes, words));
    }
};

}  // namespace

HELIB_AVX512 void row_dot_signed_avx512(u64* out, const double* const* in, const u64* w, size_t terms, size_t n,
                                        u64 q) {
    const size_t per_call = std::min(kDotChunk, signed_dot_terms_per_pass(q));
    size_t a = 0;
    do {
        const size_t count = std::min(per_call, terms - a);
        dot_signed_chunk(out, in + a, w + a, count, n, q, a > 0);
        a += count;
    } while (a < terms);
}

HELIB_AVX512 void row_dot2_avx512(u64* o0, u64* o1, const u64* const* x, const u64* const* k0,
                                  const u64* const* k1, size_t terms, size_t n, u64 q, const u64* plus0) {
    if (plus0 != nullptr) return dot2<true>(o0, o1, x, k0, k1, terms, n, q, plus0);
    dot2<false>(o0, o1, x, k0, k1, terms, n, q, nullptr);
}

HELIB_AVX512 void row_mul_acc2_avx512(double* acc0, double* acc1, const u64* a0, const u64* a1, const u64* y,
                                      size_t n, size_t log_repeat, bool reduce_after, u64 q) {
    constexpr int V = 2;
    const Consts c = make_consts(static_cast<double>(q));
    const RepeatedRow row(y, log_repeat);
    for (size_t k = 0; k < n; k += 8 * V) {
        __m512d x[2 * V], w[2 * V], r[2 * V];
        for (int v = 0; v < V; ++v) {
            x[v] = load_u64(a0 + k + 8 * v);
            x[V + v] = load_u64(a1 + k + 8 * v);
            w[v] = w[V + v] = row.at(k + 8 * v);
        }
        mulmod<2 * V>(r, x, w, c);
        for (int v = 0; v < V; ++v) {
            r[v] = _mm512_add_pd(r[v], _mm512_loadu_pd(acc0 + k + 8 * v));
            r[V + v] = _mm512_add_pd(r[V + v], _mm512_loadu_pd(acc1 + k + 8 * v));
        }
        if (reduce_after) reduce<2 * V>(r, c);
        for (int v = 0; v < V; ++v) {
            _mm512_storeu_pd(acc0 + k + 8 * v, r[v]);
            _mm512_storeu_pd(acc1 + k + 8 * v, r[V + v]);
        }
    }
}

HELIB_AVX512 void row_store_reduced_avx512(u64* out, const double* acc, size_t n, u64 q) {
    constexpr int V = 2;
    const Consts c = make_consts(static_cast<double>(q));
    for (size_t k = 0; k < n; k += 8 * V) {
        __m512d r[V];
        for (int v = 0; v < V; ++v) r[v] = _mm512_loadu_pd(acc + k + 8 * v);
        reduce<V>(r, c);
        for (int v = 0; v < V; ++v) store_u64(out + k + 8 * v, r[v], c);
    }
}

bool cpu_has_avx512_dq() {
    return !scalar_forced() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}

}  // namespace helib

#else  // not x86-64: the entry points, never selected (arch.h)

#include "math/rns_kernels.h"

namespace helib {

void row_dot_signed_avx512(u64*, const double* const*, const u64*, size_t, size_t, u64) { kernel_not_built(); }
void row_dot2_avx512(u64*, u64*, const u64* const*, const u64* const*, const u64* const*, size_t, size_t, u64,
                     const u64*) {
    kernel_not_built();
}
void row_mul_acc2_avx512(double*, double*, const u64*, const u64*, const u64*, size_t, size_t, bool, u64) {
    kernel_not_built();
}
void row_store_reduced_avx512(u64*, const double*, size_t, u64) { kernel_not_built(); }
bool cpu_has_avx512_dq() { return false; }

}  // namespace helib

#endif  // HELIB_X86_64
