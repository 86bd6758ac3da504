// AVX2 + FMA versions of the row kernels (arithmetic and bounds in avx2_modq.h). Each step
// handles 16 words as four interleaved vectors; rows are multiples of 16 words (N >= 1024).

#include "math/arch.h"

#if HELIB_X86_64

#include <algorithm>

#include "math/avx2_modq.h"

#include "math/rns_kernels.h"

namespace helib {

using namespace avx2;

namespace {
constexpr int kV = 4;  // vectors per step
}  // namespace

HELIB_AVX2 void row_mul_avx2(u64* out, const u64* a, const u64* b, size_t n, u64 q) {
    const Consts c = make_consts(static_cast<double>(q));
    for (size_t k = 0; k < n; k += 4 * kV) {
        __m256d x[kV], y[kV], r[kV];
        for (int v = 0; v < kV; ++v) {
            x[v] = load_u64(a + k + 4 * v, c);
            y[v] = load_u64(b + k + 4 * v, c);
        }
        mulmod<kV>(r, x, y, c);
        for (int v = 0; v < kV; ++v) store_u64(out + k + 4 * v, r[v], c);
    }
}

HELIB_AVX2 void row_mul_add_to_avx2(u64* out, const u64* a, const u64* b, const u64* c_in, size_t n, u64 q) {
    const Consts c = make_consts(static_cast<double>(q));
    for (size_t k = 0; k < n; k += 4 * kV) {
        __m256d x[kV], y[kV], r[kV];
        for (int v = 0; v < kV; ++v) {
            x[v] = load_u64(a + k + 4 * v, c);
            y[v] = load_u64(b + k + 4 * v, c);
        }
        mulmod<kV>(r, x, y, c);
        for (int v = 0; v < kV; ++v) r[v] = _mm256_add_pd(r[v], load_u64(c_in + k + 4 * v, c));
        reduce<kV>(r, c);
        for (int v = 0; v < kV; ++v) store_u64(out + k + 4 * v, r[v], c);
    }
}

HELIB_AVX2 void row_cross_avx2(u64* out, const u64* a0, const u64* b1, const u64* a1, const u64* b0,
                               size_t n, u64 q) {
    const Consts c = make_consts(static_cast<double>(q));
    for (size_t k = 0; k < n; k += 4 * kV) {
        __m256d x[2 * kV], y[2 * kV], r[2 * kV];
        for (int v = 0; v < kV; ++v) {
            x[v] = load_u64(a0 + k + 4 * v, c);
            y[v] = load_u64(b1 + k + 4 * v, c);
            x[kV + v] = load_u64(a1 + k + 4 * v, c);
            y[kV + v] = load_u64(b0 + k + 4 * v, c);
        }
        mulmod<2 * kV>(r, x, y, c);
        for (int v = 0; v < kV; ++v) r[v] = _mm256_add_pd(r[v], r[kV + v]);
        reduce<kV>(r, c);
        for (int v = 0; v < kV; ++v) store_u64(out + k + 4 * v, r[v], c);
    }
}

// Integer lanes (residues below 2^50, so signed 64-bit compares are exact): a - b, plus q when
// negative, then plus the addend, minus q when at least q.
HELIB_AVX2 void row_sub_add_avx2(u64* out, const u64* a, const u64* b, const u64* plus, size_t n, u64 q) {
    const __m256i qv = _mm256_set1_epi64x(static_cast<long long>(q)), zero = _mm256_setzero_si256();
    const __m256i q_minus_1 = _mm256_set1_epi64x(static_cast<long long>(q - 1));
    for (size_t k = 0; k < n; k += 4) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + k));
        const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + k));
        __m256i d = _mm256_sub_epi64(x, y);
        d = _mm256_add_epi64(d, _mm256_and_si256(_mm256_cmpgt_epi64(zero, d), qv));
        if (plus != nullptr) {
            d = _mm256_add_epi64(d, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(plus + k)));
            d = _mm256_sub_epi64(d, _mm256_and_si256(_mm256_cmpgt_epi64(d, q_minus_1), qv));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), d);
    }
}

// Three products of at most 3q/4 each: the combination stays below 9q/4 < 2^52 before reducing.
namespace {
// b = b - x g - a s; with_x false drops the x g term (g = 0 outside a key's own digit).
template <bool with_x>
HELIB_AVX2 void switch_key_b(u64* b, const u64* x, u64 g, const u64* a, const u64* s, size_t n, u64 q) {
    constexpr int M = with_x ? 2 : 1;  // products per output vector
    const Consts c = make_consts(static_cast<double>(q));
    const __m256d gv = _mm256_set1_pd(static_cast<double>(g));
    for (size_t k = 0; k < n; k += 4 * kV) {
        __m256d y[M * kV], w[M * kV], r[M * kV];
        for (int v = 0; v < kV; ++v) {
            y[v] = load_u64(a + k + 4 * v, c);
            w[v] = load_u64(s + k + 4 * v, c);
            if (with_x) {
                y[kV + v] = load_u64(x + k + 4 * v, c);
                w[kV + v] = gv;
            }
        }
        mulmod<M * kV>(r, y, w, c);
        for (int v = 0; v < kV; ++v) {
            r[v] = _mm256_sub_pd(load_u64(b + k + 4 * v, c), r[v]);
            if (with_x) r[v] = _mm256_sub_pd(r[v], r[kV + v]);
        }
        reduce<kV>(r, c);
        for (int v = 0; v < kV; ++v) store_u64(b + k + 4 * v, r[v], c);
    }
}
}  // namespace

HELIB_AVX2 void row_switch_key_b_avx2(u64* b, const u64* x, u64 g, const u64* a, const u64* s, size_t n, u64 q) {
    if (g == 0) return switch_key_b<false>(b, x, g, a, s, n, q);
    switch_key_b<true>(b, x, g, a, s, n, q);
}

namespace {

// Sums of products stay exact for four terms between reductions: each |term| <= 3q/4 and the
// running sum starts reduced (from zero or plus0), so it stays below 4q < 2^52. kPlus is a
// template argument so that the loop without plus0 carries no test for it.
template <bool kPlus>
HELIB_AVX2 void dot2(u64* o0, u64* o1, const u64* const* x, const u64* const* k0, const u64* const* k1,
                     size_t terms, size_t n, u64 q, const u64* plus0) {
    constexpr int V = 2;  // vectors per output per step
    const Consts c = make_consts(static_cast<double>(q));
    for (size_t k = 0; k < n; k += 4 * V) {
        __m256d acc[2 * V];
        for (int v = 0; v < V; ++v) acc[v] = kPlus ? load_u64(plus0 + k + 4 * v, c) : c.zero;
        for (int v = V; v < 2 * V; ++v) acc[v] = c.zero;
        for (size_t d = 0; d < terms; ++d) {
            __m256d xs[2 * V], ks[2 * V], r[2 * V];
            for (int v = 0; v < V; ++v) {
                xs[v] = xs[V + v] = load_u64(x[d] + k + 4 * v, c);
                ks[v] = load_u64(k0[d] + k + 4 * v, c);
                ks[V + v] = load_u64(k1[d] + k + 4 * v, c);
            }
            mulmod<2 * V>(r, xs, ks, c);
            for (int v = 0; v < 2 * V; ++v) acc[v] = _mm256_add_pd(acc[v], r[v]);
            if (d % 4 == 3) reduce<2 * V>(acc, c);
        }
        reduce<2 * V>(acc, c);
        for (int v = 0; v < V; ++v) {
            store_u64(o0 + k + 4 * v, acc[v], c);
            store_u64(o1 + k + 4 * v, acc[V + v], c);
        }
    }
}

}  // namespace

HELIB_AVX2 void row_dot2_avx2(u64* o0, u64* o1, const u64* const* x, const u64* const* k0, const u64* const* k1,
                              size_t terms, size_t n, u64 q, const u64* plus0) {
    if (plus0 != nullptr) return dot2<true>(o0, o1, x, k0, k1, terms, n, q, plus0);
    dot2<false>(o0, o1, x, k0, k1, terms, n, q, nullptr);
}

namespace {

// Each term's quotient comes from y * (w/q) with w/q = w * fl(1/q) (relative error <= 2^-52), not
// from the rounded product: it is off from y w / q by at most 2^50 * 2^-52 = 1/4, so the term's
// high part hi - quot q is at most 3q/4 (exact: below q + 2^47 < 2^53 for |y w| < 2^100) and its
// low part lo at most 2^46. The two parts go to separate sums, which keeps each step's chain of
// dependent additions short, and a call takes at most signed_dot_terms_per_pass(q) terms so the
// sums need no reduction until the end. The constants are converted once per call, out of the
// loop (an unsigned conversion is a sequence of instructions); with `accumulate` the call adds to
// out (residues in [0, q)) instead of overwriting it.
constexpr size_t kDotChunk = 32;


// The two sums (hi parts, lo parts) of `terms` products for the V vectors at word k, the first
// starting from the residues at start + k when start is not null.
template <int V>
HELIB_AVX2 __attribute__((always_inline)) inline void dot_sums(__m256d* hi_sum, __m256d* lo_sum, const u64* start,
                                                                const double* const* in, const double* wd,
                                                                const double* wq, size_t terms, size_t k,
                                                                const Consts& c) {
    for (int v = 0; v < V; ++v) {
        hi_sum[v] = start != nullptr ? load_u64(start + k + 4 * v, c) : c.zero;
        lo_sum[v] = c.zero;
    }
    for (size_t a = 0; a < terms; ++a) {
        const __m256d wv = _mm256_broadcast_sd(wd + a), wqv = _mm256_broadcast_sd(wq + a);
        __m256d y[V], hi[V], lo[V], quot[V];
        for (int v = 0; v < V; ++v) y[v] = _mm256_loadu_pd(in[a] + k + 4 * v);
        for (int v = 0; v < V; ++v) hi[v] = _mm256_mul_pd(y[v], wv);
        for (int v = 0; v < V; ++v) quot[v] = _mm256_fmadd_pd(y[v], wqv, c.magic);
        for (int v = 0; v < V; ++v) lo[v] = _mm256_fmsub_pd(y[v], wv, hi[v]);
        for (int v = 0; v < V; ++v) quot[v] = _mm256_sub_pd(quot[v], c.magic);
        for (int v = 0; v < V; ++v) hi[v] = _mm256_fnmadd_pd(quot[v], c.q, hi[v]);
        for (int v = 0; v < V; ++v) lo_sum[v] = _mm256_add_pd(lo_sum[v], lo[v]);
        for (int v = 0; v < V; ++v) hi_sum[v] = _mm256_add_pd(hi_sum[v], hi[v]);
    }
}

// The residues of hi_sum + lo_sum (below 2^52 in magnitude) into out.
template <int V>
HELIB_AVX2 __attribute__((always_inline)) inline void dot_finish(u64* out, __m256d* hi_sum, const __m256d* lo_sum,
                                                                  const Consts& c) {
    for (int v = 0; v < V; ++v) hi_sum[v] = _mm256_add_pd(hi_sum[v], lo_sum[v]);
    reduce<V>(hi_sum, c);
    for (int v = 0; v < V; ++v) store_u64(out + 4 * v, hi_sum[v], c);
}

// Software-pipelined over the row: the sums for step k + 1 are issued before step k is reduced
// and stored, so the reduction's dependency chain overlaps independent work. Against reducing
// every four terms and each step as soon as its sums are done: 16% faster on a 6 -> 18 row
// conversion in isolation, 6% inside rotations (where the rows stream from L3).
HELIB_AVX2 void dot_signed_chunk(u64* out, const double* const* in, const u64* w, size_t terms, size_t n, u64 q,
                                 bool accumulate) {
    constexpr int V = 2;  // vectors per step: every value stays in a register
    const Consts c = make_consts(static_cast<double>(q));
    alignas(32) double wd[kDotChunk], wq[kDotChunk];
    for (size_t a = 0; a < terms; ++a) {
        wd[a] = static_cast<double>(w[a]);
        wq[a] = wd[a] * (1.0 / static_cast<double>(q));
    }
    const u64* start = accumulate ? out : nullptr;
    __m256d hi_sum[V], lo_sum[V];
    dot_sums<V>(hi_sum, lo_sum, start, in, wd, wq, terms, 0, c);
    size_t k = 0;
    for (; k + 4 * V < n; k += 4 * V) {
        __m256d next_hi[V], next_lo[V];
        dot_sums<V>(next_hi, next_lo, start, in, wd, wq, terms, k + 4 * V, c);
        dot_finish<V>(out + k, hi_sum, lo_sum, c);
        for (int v = 0; v < V; ++v) {
            hi_sum[v] = next_hi[v];
            lo_sum[v] = next_lo[v];
        }
    }
    dot_finish<V>(out + k, hi_sum, lo_sum, c);
}

}  // namespace

HELIB_AVX2 void row_dot_signed_avx2(u64* out, const double* const* in, const u64* w, size_t terms, size_t n,
                                    u64 q) {
    const size_t per_call = std::min(kDotChunk, signed_dot_terms_per_pass(q));
    size_t a = 0;
    do {
        const size_t count = std::min(per_call, terms - a);
        dot_signed_chunk(out, in + a, w + a, count, n, q, a > 0);
        a += count;
    } while (a < terms);
}

// |in| < 2^31, so each product is at most q/2 + 2^29 before the reduction.
HELIB_AVX2 void row_from_small_avx2(u64* out, const int32_t* in, u64 w, size_t n, u64 q) {
    const Consts c = make_consts(static_cast<double>(q));
    const __m256d wv = _mm256_set1_pd(static_cast<double>(w));
    for (size_t k = 0; k < n; k += 4 * kV) {
        __m256d x[kV], r[kV];
        for (int v = 0; v < kV; ++v)
            x[v] = _mm256_cvtepi32_pd(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k + 4 * v)));
        mulmod_by<kV>(r, x, wv, c);
        reduce<kV>(r, c);
        for (int v = 0; v < kV; ++v) store_u64(out + k + 4 * v, r[v], c);
    }
}

HELIB_AVX2 void row_mul_const_centered_avx2(double* out, const u64* a, u64 w, size_t n, u64 q) {
    const Consts c = make_consts(static_cast<double>(q));
    const __m256d wv = _mm256_set1_pd(static_cast<double>(w));
    for (size_t k = 0; k < n; k += 4 * kV) {
        __m256d x[kV], r[kV];
        for (int v = 0; v < kV; ++v) x[v] = load_u64(a + k + 4 * v, c);
        mulmod_by<kV>(r, x, wv, c);
        reduce<kV>(r, c);
        for (int v = 0; v < kV; ++v) _mm256_storeu_pd(out + k + 4 * v, r[v]);
    }
}

namespace {

// The plaintext factor of four consecutive words starting at word k of a row stored with each
// value repeated 2^log_repeat times (value j at index j >> log_repeat), as doubles.
template <int kRepeat>  // 0, 1, or 2 for any log_repeat >= 2
HELIB_AVX2 inline __m256d load_repeated(const u64* y, size_t k, size_t log_repeat, const Consts& c) {
    if (kRepeat == 0) return load_u64(y + k, c);
    if (kRepeat == 1) {
        // Words k .. k + 3 hold values k/2, k/2, k/2 + 1, k/2 + 1.
        const __m128i two = _mm_loadu_si128(reinterpret_cast<const __m128i*>(y + (k >> 1)));
        const __m256i x = _mm256_permute4x64_epi64(_mm256_castsi128_si256(two), 0x50);
        return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, c.bits)), c.two52);
    }
    // Residues are below 2^63: the signed conversion is one instruction, the unsigned one a sequence.
    return _mm256_set1_pd(static_cast<double>(static_cast<int64_t>(y[k >> log_repeat])));
}

// Two vectors per part and step (eight products): with four, the products' temporaries no longer
// fit in the 16 vector registers and spill, which measured about 8% slower (64 terms at N =
// 32768). The other kernels measured no faster with two, in context.
template <int kRepeat>
HELIB_AVX2 void mul_acc2_avx2(double* acc0, double* acc1, const u64* a0, const u64* a1, const u64* y, size_t n,
                              size_t log_repeat, bool reduce_after, u64 q) {
    constexpr int V = 2;
    const Consts c = make_consts(static_cast<double>(q));
    for (size_t k = 0; k < n; k += 4 * V) {
        __m256d x[2 * V], w[2 * V], r[2 * V];
        for (int v = 0; v < V; ++v) {
            x[v] = load_u64(a0 + k + 4 * v, c);
            x[V + v] = load_u64(a1 + k + 4 * v, c);
            w[v] = w[V + v] = load_repeated<kRepeat>(y, k + 4 * v, log_repeat, c);
        }
        mulmod<2 * V>(r, x, w, c);
        for (int v = 0; v < V; ++v) {
            r[v] = _mm256_add_pd(r[v], _mm256_loadu_pd(acc0 + k + 4 * v));
            r[V + v] = _mm256_add_pd(r[V + v], _mm256_loadu_pd(acc1 + k + 4 * v));
        }
        if (reduce_after) reduce<2 * V>(r, c);
        for (int v = 0; v < V; ++v) {
            _mm256_storeu_pd(acc0 + k + 4 * v, r[v]);
            _mm256_storeu_pd(acc1 + k + 4 * v, r[V + v]);
        }
    }
}

}  // namespace

HELIB_AVX2 void row_mul_acc2_avx2(double* acc0, double* acc1, const u64* a0, const u64* a1, const u64* y, size_t n,
                                  size_t log_repeat, bool reduce_after, u64 q) {
    if (log_repeat == 0) return mul_acc2_avx2<0>(acc0, acc1, a0, a1, y, n, log_repeat, reduce_after, q);
    if (log_repeat == 1) return mul_acc2_avx2<1>(acc0, acc1, a0, a1, y, n, log_repeat, reduce_after, q);
    mul_acc2_avx2<2>(acc0, acc1, a0, a1, y, n, log_repeat, reduce_after, q);
}

HELIB_AVX2 void row_store_reduced_avx2(u64* out, const double* acc, size_t n, u64 q) {
    const Consts c = make_consts(static_cast<double>(q));
    for (size_t k = 0; k < n; k += 4 * kV) {
        __m256d r[kV];
        for (int v = 0; v < kV; ++v) r[v] = _mm256_loadu_pd(acc + k + 4 * v);
        reduce<kV>(r, c);
        for (int v = 0; v < kV; ++v) store_u64(out + k + 4 * v, r[v], c);
    }
}

HELIB_AVX2 void permute_row_avx2(const uint32_t* perm, const u64* in, u64* out, size_t n) {
    const __m128i three = _mm_set1_epi32(3);
    const __m256i one = _mm256_set1_epi64x(1);
    for (size_t i = 0; i < n; i += 4) {
        const __m128i p = _mm_loadu_si128(reinterpret_cast<const __m128i*>(perm + i));
        const uint32_t group = static_cast<uint32_t>(_mm_cvtsi128_si32(p)) & ~3u;
        // Output lane k takes 32-bit words 2 j and 2 j + 1 of the group, j = perm[i + k] mod 4.
        const __m256i twice = _mm256_slli_epi64(_mm256_cvtepu32_epi64(_mm_and_si128(p, three)), 1);
        const __m256i words = _mm256_or_si256(twice, _mm256_slli_epi64(_mm256_add_epi64(twice, one), 32));
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + group));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_permutevar8x32_epi32(x, words));
    }
}

}  // namespace helib

#else  // not x86-64: the entry points, never selected (arch.h)

#include "math/rns_kernels.h"

namespace helib {

void row_mul_avx2(u64*, const u64*, const u64*, size_t, u64) { kernel_not_built(); }
void row_mul_add_to_avx2(u64*, const u64*, const u64*, const u64*, size_t, u64) { kernel_not_built(); }
void row_cross_avx2(u64*, const u64*, const u64*, const u64*, const u64*, size_t, u64) { kernel_not_built(); }
void row_sub_add_avx2(u64*, const u64*, const u64*, const u64*, size_t, u64) { kernel_not_built(); }
void row_switch_key_b_avx2(u64*, const u64*, u64, const u64*, const u64*, size_t, u64) { kernel_not_built(); }
void row_dot2_avx2(u64*, u64*, const u64* const*, const u64* const*, const u64* const*, size_t, size_t, u64,
                   const u64*) {
    kernel_not_built();
}
void row_dot_signed_avx2(u64*, const double* const*, const u64*, size_t, size_t, u64) { kernel_not_built(); }
void row_mul_const_centered_avx2(double*, const u64*, u64, size_t, u64) { kernel_not_built(); }
void row_from_small_avx2(u64*, const int32_t*, u64, size_t, u64) { kernel_not_built(); }
void row_mul_acc2_avx2(double*, double*, const u64*, const u64*, const u64*, size_t, size_t, bool, u64) {
    kernel_not_built();
}
void row_store_reduced_avx2(u64*, const double*, size_t, u64) { kernel_not_built(); }
void permute_row_avx2(const uint32_t*, const u64*, u64*, size_t) { kernel_not_built(); }

}  // namespace helib

#endif  // HELIB_X86_64
