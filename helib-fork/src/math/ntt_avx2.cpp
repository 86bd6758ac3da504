// AVX2 + FMA negacyclic NTT for primes below 2^50 (arithmetic in avx2_modq.h). The output
// equals the scalar Harvey NTT's (same twiddles, same order).
//
// Why this shape: a 2^16-point row is 512 KiB, as large as L2, and a lone butterfly is a long
// dependency chain. Stages go two at a time (radix-4 passes), several butterflies are
// interleaved per step, the u64 <-> double conversions and the 1/N scaling ride along in the
// first and last passes, and once a block fits in L1 it finishes all its remaining stages.
//
// Lazy reduction (bounds from avx2_modq.h): values are signed, |v| <= q/2 after reduce().
// Forward: the first stage of each pair leaves |x +- r| <= 9q/8 (<= 7q/4 from [0, q) input),
// the second <= 2.7q and then reduces. Inverse: every sum is reduced and products stay below
// q. All intermediate magnitudes stay below 3q < 2^52, where doubles are exact.

#include "math/arch.h"

#if HELIB_X86_64

#include "math/avx2_modq.h"

#include <algorithm>
#include <cstdlib>

#include "math/ntt.h"

namespace helib {
namespace {

using namespace avx2;

// Blocks of at most this many words (32 KiB, L1) run all their remaining stages at once.
constexpr size_t kChunk = 4096;

// Four words that hold u64 (kU64) or doubles.
template <bool kU64>
HELIB_AVX2 inline __m256d load(const double* p, const Consts& c) {
    return kU64 ? load_u64(p, c) : _mm256_loadu_pd(p);
}

// Eight consecutive words: a, then b.
HELIB_AVX2 inline void store8(double* p, __m256d a, __m256d b) {
    _mm256_storeu_pd(p, a);
    _mm256_storeu_pd(p + 4, b);
}

// Cooley-Tukey (x, y) -> (x + w y, x - w y), optionally reduced.
template <int K, bool kReduce>
HELIB_AVX2 inline void ct(__m256d* x, __m256d* y, const __m256d* w, const Consts& c) {
    __m256d t[K];
    mulmod<K>(t, y, w, c);
    for (int k = 0; k < K; ++k) {
        y[k] = _mm256_sub_pd(x[k], t[k]);
        x[k] = _mm256_add_pd(x[k], t[k]);
    }
    if (kReduce) {
        reduce<K>(x, c);
        reduce<K>(y, c);
    }
}

// Gentleman-Sande (x, y) -> (x + y reduced, (x - y) w).
template <int K>
HELIB_AVX2 inline void gs(__m256d* x, __m256d* y, const __m256d* w, const Consts& c) {
    __m256d d[K];
    for (int k = 0; k < K; ++k) {
        d[k] = _mm256_sub_pd(x[k], y[k]);
        x[k] = _mm256_add_pd(x[k], y[k]);
    }
    reduce<K>(x, c);
    mulmod<K>(y, d, w, c);
}

// ---- forward ----

// One stage (m blocks of half-size t >= 8), blocks [i0, i1), reduced.
template <bool kInU64>
HELIB_AVX2 void fwd_radix2(double* a, size_t m, size_t t, const double* w, size_t i0, size_t i1, const Consts& c) {
    for (size_t i = i0; i < i1; ++i) {
        const __m256d wv = _mm256_set1_pd(w[m + i]);
        const __m256d ws[2] = {wv, wv};
        double* x = a + 2 * i * t;
        double* y = x + t;
        for (size_t j = 0; j < t; j += 8) {
            __m256d xv[2] = {load<kInU64>(x + j, c), load<kInU64>(x + j + 4, c)};
            __m256d yv[2] = {load<kInU64>(y + j, c), load<kInU64>(y + j + 4, c)};
            ct<2, true>(xv, yv, ws, c);
            for (int k = 0; k < 2; ++k) {
                _mm256_storeu_pd(x + j + 4 * k, xv[k]);
                _mm256_storeu_pd(y + j + 4 * k, yv[k]);
            }
        }
    }
}

// Two stages: m blocks of half-size t, then 2m of half-size t/2 (t/2 >= 8), blocks [i0, i1).
// Each step takes 8 words from each quarter of the block.
template <bool kInU64>
HELIB_AVX2 void fwd_radix4(double* a, size_t m, size_t t, const double* w, size_t i0, size_t i1, const Consts& c) {
    const size_t h = t / 2;
    for (size_t i = i0; i < i1; ++i) {
        const __m256d w1 = _mm256_set1_pd(w[m + i]);
        const __m256d w2a = _mm256_set1_pd(w[2 * m + 2 * i]), w2b = _mm256_set1_pd(w[2 * m + 2 * i + 1]);
        const __m256d wa[4] = {w1, w1, w1, w1}, wb[4] = {w2a, w2a, w2b, w2b};
        double* p[4] = {a + 2 * i * t, a + 2 * i * t + h, a + 2 * i * t + t, a + 2 * i * t + t + h};
        for (size_t j = 0; j < h; j += 8) {
            // Quarter q, half e of the step: v[q][e]. Stage 1 pairs quarters (0, 2) and (1, 3).
            __m256d x[4] = {load<kInU64>(p[0] + j, c), load<kInU64>(p[0] + j + 4, c), load<kInU64>(p[1] + j, c),
                            load<kInU64>(p[1] + j + 4, c)};
            __m256d y[4] = {load<kInU64>(p[2] + j, c), load<kInU64>(p[2] + j + 4, c), load<kInU64>(p[3] + j, c),
                            load<kInU64>(p[3] + j + 4, c)};
            ct<4, false>(x, y, wa, c);
            // Stage 2 pairs quarters (0, 1) with w2a and (2, 3) with w2b.
            __m256d u[4] = {x[0], x[1], y[0], y[1]}, v[4] = {x[2], x[3], y[2], y[3]};
            ct<4, true>(u, v, wb, c);
            store8(p[0] + j, u[0], u[1]);
            store8(p[1] + j, v[0], v[1]);
            store8(p[2] + j, u[2], u[3]);
            store8(p[3] + j, v[2], v[3]);
        }
    }
}

// Groups of 8 words interleaved per step in the three-stage tails.
constexpr int kTailGroups = 4;

// The last three stages (half-sizes 4, 2, 1) on groups of 8 words [g0, g1) (a multiple of
// kTailGroups), in registers, written back as canonical u64. n is the transform size.
template <bool kInU64>
HELIB_AVX2 void fwd_tail(double* a, size_t n, const double* w, size_t g0, size_t g1, const Consts& c) {
    constexpr int G = kTailGroups;
    const double* w4 = w + n / 8;
    const double* w2 = w + n / 4;
    const double* w1 = w + n / 2;
    for (size_t g = g0; g < g1; g += G) {
        __m256d x[G], y[G], u[G], v[G], tw[G];
        for (int k = 0; k < G; ++k) {
            x[k] = load<kInU64>(a + 8 * (g + k), c);
            y[k] = load<kInU64>(a + 8 * (g + k) + 4, c);
            tw[k] = _mm256_set1_pd(w4[g + k]);
        }
        ct<G, false>(x, y, tw, c);
        // Half-size 2: [e0 e1 e4 e5] against [e2 e3 e6 e7].
        for (int k = 0; k < G; ++k) {
            u[k] = _mm256_permute2f128_pd(x[k], y[k], 0x20);
            v[k] = _mm256_permute2f128_pd(x[k], y[k], 0x31);
            const __m256d pair = _mm256_castpd128_pd256(_mm_loadu_pd(w2 + 2 * (g + k)));
            tw[k] = _mm256_permute4x64_pd(pair, 0x50);
        }
        ct<G, true>(u, v, tw, c);
        // Half-size 1: [e0 e2 e4 e6] against [e1 e3 e5 e7].
        for (int k = 0; k < G; ++k) {
            x[k] = _mm256_unpacklo_pd(u[k], v[k]);
            y[k] = _mm256_unpackhi_pd(u[k], v[k]);
            tw[k] = _mm256_loadu_pd(w1 + 4 * (g + k));
        }
        ct<G, true>(x, y, tw, c);
        for (int k = 0; k < G; ++k) {
            u[k] = _mm256_unpacklo_pd(x[k], y[k]);  // e0 e1 e4 e5
            v[k] = _mm256_unpackhi_pd(x[k], y[k]);  // e2 e3 e6 e7
            store_u64(a + 8 * (g + k), _mm256_permute2f128_pd(u[k], v[k], 0x20), c);
            store_u64(a + 8 * (g + k) + 4, _mm256_permute2f128_pd(u[k], v[k], 0x31), c);
        }
    }
}

// Stages with half-size t >= 8 and then the tail, on the chunk of `len` words at `base`
// (len a power of two; the chunk is one block of the stage with half-size len/2 or smaller).
HELIB_AVX2 void fwd_chunk(double* a, size_t n, size_t m, size_t t, const double* w, size_t base, size_t len,
                          bool in_u64, const Consts& c) {
    while (t >= 8) {
        const size_t i0 = base / (2 * t), i1 = (base + len) / (2 * t);
        if (t >= 16) {
            if (in_u64) fwd_radix4<true>(a, m, t, w, i0, i1, c); else fwd_radix4<false>(a, m, t, w, i0, i1, c);
            m *= 4;
            t /= 4;
        } else {
            if (in_u64) fwd_radix2<true>(a, m, t, w, i0, i1, c); else fwd_radix2<false>(a, m, t, w, i0, i1, c);
            m *= 2;
            t /= 2;
        }
        in_u64 = false;
    }
    if (in_u64) fwd_tail<true>(a, n, w, base / 8, (base + len) / 8, c);
    else fwd_tail<false>(a, n, w, base / 8, (base + len) / 8, c);
}

// ---- inverse ----

// The first three stages (half-sizes 1, 2, 4) on groups of 8 words [g0, g1), reading u64.
HELIB_AVX2 void inv_tail(double* a, size_t n, const double* w, size_t g0, size_t g1, const Consts& c) {
    constexpr int G = kTailGroups;
    const double* w4 = w + n / 8;
    const double* w2 = w + n / 4;
    const double* w1 = w + n / 2;
    for (size_t g = g0; g < g1; g += G) {
        __m256d x[G], y[G], u[G], v[G], tw[G];
        // Half-size 1: [e0 e2 e4 e6] against [e1 e3 e5 e7].
        for (int k = 0; k < G; ++k) {
            const __m256d lo = load<true>(a + 8 * (g + k), c), hi = load<true>(a + 8 * (g + k) + 4, c);
            u[k] = _mm256_permute2f128_pd(lo, hi, 0x20);  // e0 e1 e4 e5
            v[k] = _mm256_permute2f128_pd(lo, hi, 0x31);  // e2 e3 e6 e7
            x[k] = _mm256_unpacklo_pd(u[k], v[k]);
            y[k] = _mm256_unpackhi_pd(u[k], v[k]);
            tw[k] = _mm256_loadu_pd(w1 + 4 * (g + k));
        }
        gs<G>(x, y, tw, c);
        // Half-size 2: [e0 e1 e4 e5] against [e2 e3 e6 e7].
        for (int k = 0; k < G; ++k) {
            u[k] = _mm256_unpacklo_pd(x[k], y[k]);
            v[k] = _mm256_unpackhi_pd(x[k], y[k]);
            const __m256d pair = _mm256_castpd128_pd256(_mm_loadu_pd(w2 + 2 * (g + k)));
            tw[k] = _mm256_permute4x64_pd(pair, 0x50);
        }
        gs<G>(u, v, tw, c);
        // Half-size 4: [e0 e1 e2 e3] against [e4 e5 e6 e7].
        for (int k = 0; k < G; ++k) {
            x[k] = _mm256_permute2f128_pd(u[k], v[k], 0x20);
            y[k] = _mm256_permute2f128_pd(u[k], v[k], 0x31);
            tw[k] = _mm256_set1_pd(w4[g + k]);
        }
        gs<G>(x, y, tw, c);
        for (int k = 0; k < G; ++k) {
            _mm256_storeu_pd(a + 8 * (g + k), x[k]);
            _mm256_storeu_pd(a + 8 * (g + k) + 4, y[k]);
        }
    }
}

// Final-stage factors: the 1/N scaling folded into the last butterfly.
struct LastStage {
    __m256d n_inv, w_n_inv;
};

// Last butterflies, (x, y) -> ((x + y) / N, (x - y) w / N), stored as canonical u64.
template <int K>
HELIB_AVX2 inline void gs_last(double* const* px, double* const* py, __m256d* x, const __m256d* y,
                               const LastStage& ls, const Consts& c) {
    __m256d d[K], f[K], r[K];
    for (int k = 0; k < K; ++k) {
        d[k] = _mm256_sub_pd(x[k], y[k]);
        x[k] = _mm256_add_pd(x[k], y[k]);
        f[k] = ls.n_inv;
    }
    reduce<K>(x, c);
    mulmod<K>(r, x, f, c);
    for (int k = 0; k < K; ++k) store_u64(px[k], r[k], c);
    for (int k = 0; k < K; ++k) f[k] = ls.w_n_inv;
    mulmod<K>(r, d, f, c);
    for (int k = 0; k < K; ++k) store_u64(py[k], r[k], c);
}

// One stage (m blocks of half-size t >= 8), blocks [i0, i1); kLast is the stage m = 1.
template <bool kLast>
HELIB_AVX2 void inv_radix2(double* a, size_t m, size_t t, const double* w, size_t i0, size_t i1,
                           const LastStage& ls, const Consts& c) {
    for (size_t i = i0; i < i1; ++i) {
        const __m256d wv = _mm256_set1_pd(w[m + i]);
        const __m256d ws[2] = {wv, wv};
        double* x = a + 2 * i * t;
        double* y = x + t;
        for (size_t j = 0; j < t; j += 8) {
            __m256d xv[2] = {_mm256_loadu_pd(x + j), _mm256_loadu_pd(x + j + 4)};
            __m256d yv[2] = {_mm256_loadu_pd(y + j), _mm256_loadu_pd(y + j + 4)};
            if (kLast) {
                double* const px[2] = {x + j, x + j + 4};
                double* const py[2] = {y + j, y + j + 4};
                gs_last<2>(px, py, xv, yv, ls, c);
            } else {
                gs<2>(xv, yv, ws, c);
                for (int k = 0; k < 2; ++k) {
                    _mm256_storeu_pd(x + j + 4 * k, xv[k]);
                    _mm256_storeu_pd(y + j + 4 * k, yv[k]);
                }
            }
        }
    }
}

// Two stages: m blocks of half-size t (t >= 8), then m/2 of half-size 2t; blocks of the second
// stage [i0, i1). kLast: the second stage is the last one (m = 2).
template <bool kLast>
HELIB_AVX2 void inv_radix4(double* a, size_t m, size_t t, const double* w, size_t i0, size_t i1,
                           const LastStage& ls, const Consts& c) {
    for (size_t i = i0; i < i1; ++i) {
        const __m256d wa = _mm256_set1_pd(w[m + 2 * i]), wb = _mm256_set1_pd(w[m + 2 * i + 1]);
        const __m256d w2 = _mm256_set1_pd(w[m / 2 + i]);
        const __m256d w1s[4] = {wa, wa, wb, wb}, w2s[4] = {w2, w2, w2, w2};
        double* p[4] = {a + 4 * i * t, a + 4 * i * t + t, a + 4 * i * t + 2 * t, a + 4 * i * t + 3 * t};
        for (size_t j = 0; j < t; j += 8) {
            // Stage 1 pairs quarters (0, 1) with wa and (2, 3) with wb.
            __m256d x[4] = {_mm256_loadu_pd(p[0] + j), _mm256_loadu_pd(p[0] + j + 4), _mm256_loadu_pd(p[2] + j),
                            _mm256_loadu_pd(p[2] + j + 4)};
            __m256d y[4] = {_mm256_loadu_pd(p[1] + j), _mm256_loadu_pd(p[1] + j + 4), _mm256_loadu_pd(p[3] + j),
                            _mm256_loadu_pd(p[3] + j + 4)};
            gs<4>(x, y, w1s, c);
            // Stage 2 pairs quarters (0, 2) and (1, 3).
            __m256d u[4] = {x[0], x[1], y[0], y[1]}, v[4] = {x[2], x[3], y[2], y[3]};
            if (kLast) {
                double* const pu[4] = {p[0] + j, p[0] + j + 4, p[1] + j, p[1] + j + 4};
                double* const pv[4] = {p[2] + j, p[2] + j + 4, p[3] + j, p[3] + j + 4};
                gs_last<4>(pu, pv, u, v, ls, c);
            } else {
                gs<4>(u, v, w2s, c);
                store8(p[0] + j, u[0], u[1]);
                store8(p[1] + j, u[2], u[3]);
                store8(p[2] + j, v[0], v[1]);
                store8(p[3] + j, v[2], v[3]);
            }
        }
    }
}

// Stages from half-size t while the stage's blocks fit in the chunk [base, base + len) (at
// most `limit` words); returns the half-size of the first stage not done. Runs the last
// stage too if it fits.
HELIB_AVX2 size_t inv_stages(double* a, size_t n, size_t t, size_t limit, const double* w, size_t base,
                             size_t len, const LastStage& ls, const Consts& c) {
    while (t < n && 2 * t <= limit) {
        const size_t m = n / (2 * t);
        if (4 * t <= limit && 4 * t <= n) {
            const size_t i0 = base / (4 * t), i1 = (base + len) / (4 * t);
            if (m == 2) inv_radix4<true>(a, m, t, w, i0, i1, ls, c);
            else inv_radix4<false>(a, m, t, w, i0, i1, ls, c);
            t *= 4;
        } else {
            const size_t i0 = base / (2 * t), i1 = (base + len) / (2 * t);
            if (m == 1) inv_radix2<true>(a, m, t, w, i0, i1, ls, c);
            else inv_radix2<false>(a, m, t, w, i0, i1, ls, c);
            t *= 2;
        }
    }
    return t;
}

}  // namespace

HELIB_AVX2 void ntt_forward_avx2(u64* data, size_t n, double q, const double* w) {
    const Consts c = make_consts(q);
    double* a = reinterpret_cast<double*>(data);
    size_t m = 1, t = n / 2;
    bool in_u64 = true;
    // Whole-row passes while blocks exceed a chunk; an odd count of them starts with one stage.
    int wide = 0;
    for (size_t tt = t; 2 * tt > kChunk && tt >= 8; tt /= 2) ++wide;
    if (wide % 2 == 1) {
        fwd_radix2<true>(a, m, t, w, 0, m, c);
        m *= 2;
        t /= 2;
        in_u64 = false;
    }
    for (; 2 * t > kChunk && t >= 16; m *= 4, t /= 4) {
        if (in_u64) fwd_radix4<true>(a, m, t, w, 0, m, c); else fwd_radix4<false>(a, m, t, w, 0, m, c);
        in_u64 = false;
    }
    const size_t len = std::min(n, 2 * t);
    for (size_t base = 0; base < n; base += len) fwd_chunk(a, n, m, t, w, base, len, in_u64, c);
}

HELIB_AVX2 void ntt_inverse_avx2(u64* data, size_t n, double q, const double* w, double n_inv, double w_n_inv) {
    const Consts c = make_consts(q);
    const LastStage ls{_mm256_set1_pd(n_inv), _mm256_set1_pd(w_n_inv)};
    double* a = reinterpret_cast<double*>(data);
    const size_t len = std::min(n, kChunk);
    size_t t = 8;
    for (size_t base = 0; base < n; base += len) {
        inv_tail(a, n, w, base / 8, (base + len) / 8, c);
        t = inv_stages(a, n, 8, len, w, base, len, ls, c);
    }
    inv_stages(a, n, t, n, w, 0, n, ls, c);
}

bool cpu_has_avx2_fma() {
    return !scalar_forced() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

}  // namespace helib

#else  // not x86-64: the entry points, never selected (arch.h)

#include "math/ntt.h"

namespace helib {

void ntt_forward_avx2(u64*, size_t, double, const double*) { kernel_not_built(); }
void ntt_inverse_avx2(u64*, size_t, double, const double*, double, double) { kernel_not_built(); }
bool cpu_has_avx2_fma() { return false; }

}  // namespace helib

#endif  // HELIB_X86_64
