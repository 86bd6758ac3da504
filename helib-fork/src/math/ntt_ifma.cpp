// AVX-512 IFMA negacyclic NTT for primes below 2^50: the scalar Harvey transform's butterflies
// (same twiddles, same order, same output), eight at a time on 52-bit integer multiplies.
//
// Shoup multiplication with 52-bit words: for w < q and w' = floor(w 2^52 / q), and any
// y < 2^52, r = y w - floor(y w' / 2^52) q lies in [0, 2q), so it is the low 52 bits of
// y w + floor(y w' / 2^52) (2^52 - q): three IFMA instructions and a mask. Lazy values stay
// below 4q < 2^52 (forward) and 2q (inverse), as in the scalar code.
//
// Shape: stages with half-blocks of eight words or more run on whole vectors, two stages per
// pass over the data where they can (a 2^16-point row is 512 KiB: half of L2); the last three
// forward stages (first three inverse ones) run together on each group of 16 words, moved
// between lanes by two-source permutes; blocks that fit in L1 run all their remaining stages
// at once (depth-first), as the scalar and AVX2 transforms do; the inverse's 1/N scaling rides
// in its last stage. Against the AVX2 transform on a Zen 4 core: 1.3-1.45x faster.

#include "math/arch.h"

#if HELIB_X86_64

#include <immintrin.h>

#include <cstdlib>

#include "math/ntt.h"

#define HELIB_IFMA __attribute__((target("avx512f,avx512ifma")))

namespace helib {
namespace {

// Blocks of at most this many words (32 KiB, L1) run all their remaining stages at once.
constexpr size_t kChunk = 4096;

HELIB_IFMA inline __m512i broadcast(u64 v) { return _mm512_set1_epi64(static_cast<long long>(v)); }

struct Consts {
    __m512i q, two_q, neg_q, mask;
};

HELIB_IFMA inline Consts consts(u64 q) {
    const u64 two52 = u64(1) << 52;
    return {broadcast(q), broadcast(2 * q), broadcast(two52 - q), broadcast(two52 - 1)};
}

// x mod m for x < 2m.
HELIB_IFMA inline __m512i reduce_once(__m512i x, __m512i m) {
    return _mm512_mask_sub_epi64(x, _mm512_cmpge_epu64_mask(x, m), x, m);
}

// y w mod q in [0, 2q) for y < 2^52 (see the top of the file).
HELIB_IFMA inline __m512i mul_shoup(__m512i y, __m512i w, __m512i wp, const Consts& c) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i quot = _mm512_madd52hi_epu64(zero, y, wp);
    const __m512i r = _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(zero, y, w), quot, c.neg_q);
    return _mm512_and_si512(r, c.mask);
}

// Cooley-Tukey: (x, y) in [0, 4q) -> (x + w y, x - w y) in [0, 4q).
HELIB_IFMA inline void ct(__m512i& x, __m512i& y, __m512i w, __m512i wp, const Consts& c) {
    const __m512i u = reduce_once(x, c.two_q);
    const __m512i v = mul_shoup(y, w, wp, c);
    x = _mm512_add_epi64(u, v);
    y = _mm512_add_epi64(_mm512_sub_epi64(u, v), c.two_q);
}

// Gentleman-Sande: (x, y) in [0, 2q) -> (x + y, w (x - y)) in [0, 2q).
HELIB_IFMA inline void gs(__m512i& x, __m512i& y, __m512i w, __m512i wp, const Consts& c) {
    const __m512i u = x, v = y;
    x = reduce_once(_mm512_add_epi64(u, v), c.two_q);
    y = mul_shoup(_mm512_add_epi64(_mm512_sub_epi64(u, v), c.two_q), w, wp, c);
}

HELIB_IFMA inline __m512i load(const u64* p) { return _mm512_loadu_si512(p); }
HELIB_IFMA inline void store(u64* p, __m512i v) { _mm512_storeu_si512(p, v); }
HELIB_IFMA inline __m512i idx(long long a, long long b, long long c, long long d, long long e, long long f,
                              long long g, long long h) {
    return _mm512_set_epi64(h, g, f, e, d, c, b, a);
}
// Twiddles w[0..count) spread over the eight lanes, each repeated 8 / count times (count 2 or 4).
// (The maskz forms: gcc warns about the plain ones' undefined pass-through operand.)
HELIB_IFMA inline __m512i spread(const u64* w, int count) {
    const __m512i raw = _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << count) - 1), w);
    const __m512i lanes = count == 4 ? idx(0, 0, 1, 1, 2, 2, 3, 3) : idx(0, 0, 0, 0, 1, 1, 1, 1);
    return _mm512_maskz_permutexvar_epi64(0xff, lanes, raw);
}

// One block of 2t words (t a multiple of 8) with twiddle (w, wp): Cooley-Tukey butterflies
// when kForward, else Gentleman-Sande.
template <bool kForward>
HELIB_IFMA void block_pass(u64* x, size_t t, u64 w, u64 wp, const Consts& c) {
    const __m512i W = broadcast(w);
    const __m512i WP = broadcast(wp);
    u64* y = x + t;
    for (size_t j = 0; j < t; j += 8) {
        __m512i X = load(x + j), Y = load(y + j);
        if (kForward)
            ct(X, Y, W, WP, c);
        else
            gs(X, Y, W, WP, c);
        store(x + j, X);
        store(y + j, Y);
    }
}

// Two stages at once on a block of 2t words (t a multiple of 16), quarters x0..x3: (x0, x2)
// and (x1, x3) with twiddle w, then (x0, x1) with wa and (x2, x3) with wb. Each word is loaded
// and stored once for both stages.
// The three twiddles of a two-stage pass, broadcast: (W, WP) = entry iw of the tables, (WA,
// WAP) and (WB, WBP) entries iwa and iwa + 1.
struct Twiddles3 {
    __m512i W, WP, WA, WAP, WB, WBP;
};
HELIB_IFMA inline Twiddles3 twiddles3(const u64* w, const u64* wp, size_t iw, size_t iwa) {
    return {broadcast(w[iw]),   broadcast(wp[iw]),      broadcast(w[iwa]),
            broadcast(wp[iwa]), broadcast(w[iwa + 1]), broadcast(wp[iwa + 1])};
}

HELIB_IFMA void ct4_block(u64* x, size_t t, const u64* w, const u64* wp, size_t iw, size_t iwa,
                          const Consts& c) {
    const Twiddles3 tw = twiddles3(w, wp, iw, iwa);
    const size_t h = t / 2;
    for (size_t j = 0; j < h; j += 8) {
        __m512i x0 = load(x + j), x1 = load(x + j + h), x2 = load(x + j + t), x3 = load(x + j + t + h);
        ct(x0, x2, tw.W, tw.WP, c);
        ct(x1, x3, tw.W, tw.WP, c);
        ct(x0, x1, tw.WA, tw.WAP, c);
        ct(x2, x3, tw.WB, tw.WBP, c);
        store(x + j, x0);
        store(x + j + h, x1);
        store(x + j + t, x2);
        store(x + j + t + h, x3);
    }
}

// The inverse of ct4_block's two stages on a block of 4t words (t a multiple of 8): (x0, x1)
// with wa, (x2, x3) with wb, then (x0, x2) and (x1, x3) with w.
HELIB_IFMA void gs4_block(u64* x, size_t t, const u64* w, const u64* wp, size_t iwa, size_t iw,
                          const Consts& c) {
    const Twiddles3 tw = twiddles3(w, wp, iw, iwa);
    for (size_t j = 0; j < t; j += 8) {
        __m512i x0 = load(x + j), x1 = load(x + j + t), x2 = load(x + j + 2 * t), x3 = load(x + j + 3 * t);
        gs(x0, x1, tw.WA, tw.WAP, c);
        gs(x2, x3, tw.WB, tw.WBP, c);
        gs(x0, x2, tw.W, tw.WP, c);
        gs(x1, x3, tw.W, tw.WP, c);
        store(x + j, x0);
        store(x + j + t, x1);
        store(x + j + 2 * t, x2);
        store(x + j + 3 * t, x3);
    }
}

// The last inverse stage (one block, twiddle w) with the scaling: x + y and w (x - y), both
// times scale, into [0, q); ws = w scale mod q.
HELIB_IFMA void gs_last(u64* x, size_t t, u64 scale, u64 scale_p, u64 ws, u64 ws_p, const Consts& c) {
    const __m512i S = broadcast(scale);
    const __m512i SP = broadcast(scale_p);
    const __m512i WS = broadcast(ws);
    const __m512i WSP = broadcast(ws_p);
    u64* y = x + t;
    for (size_t j = 0; j < t; j += 8) {
        const __m512i u = load(x + j), v = load(y + j);
        const __m512i sum = mul_shoup(_mm512_add_epi64(u, v), S, SP, c);
        const __m512i diff = mul_shoup(_mm512_add_epi64(_mm512_sub_epi64(u, v), c.two_q), WS, WSP, c);
        store(x + j, reduce_once(sum, c.q));
        store(y + j, reduce_once(diff, c.q));
    }
}

// The lane moves of the last three stages on 16 words (v0 = words 0..7, v1 = 8..15). At
// half-block t, X takes the first t words of every block of 2t and Y the rest; each layout
// below is a permute of the one before.
struct TailPerms {
    __m512i x4, y4, x2, y2, x1, y1, out0, out1;
};
HELIB_IFMA inline TailPerms tail_perms() {
    return {idx(0, 1, 2, 3, 8, 9, 10, 11),  idx(4, 5, 6, 7, 12, 13, 14, 15),  // from (v0, v1)
            idx(0, 1, 8, 9, 4, 5, 12, 13),  idx(2, 3, 10, 11, 6, 7, 14, 15),  // from (X4, Y4)
            idx(0, 8, 2, 10, 4, 12, 6, 14), idx(1, 9, 3, 11, 5, 13, 7, 15),  // from (X2, Y2)
            idx(0, 8, 1, 9, 2, 10, 3, 11),  idx(4, 12, 5, 13, 6, 14, 7, 15)}; // from (X1, Y1)
}

// Inverse moves of tail_perms: from (X1, Y1) back to (X2, Y2), and so on.
struct TailInvPerms {
    __m512i x1, y1, x2, y2, x4, y4, out0, out1;
};
HELIB_IFMA inline TailInvPerms tail_inv_perms() {
    return {idx(0, 2, 4, 6, 8, 10, 12, 14),  idx(1, 3, 5, 7, 9, 11, 13, 15),   // (v0, v1) -> (X1, Y1)
            idx(0, 8, 2, 10, 4, 12, 6, 14),  idx(1, 9, 3, 11, 5, 13, 7, 15),   // (X1, Y1) -> (X2, Y2)
            idx(0, 1, 8, 9, 4, 5, 12, 13),   idx(2, 3, 10, 11, 6, 7, 14, 15),  // (X2, Y2) -> (X4, Y4)
            idx(0, 1, 2, 3, 8, 9, 10, 11),   idx(4, 5, 6, 7, 12, 13, 14, 15)}; // (X4, Y4) -> (v0, v1)
}

// The last three forward stages (t = 4, 2, 1) of a block of `len` words starting at word k0 of
// the row, then the final reduction into [0, q).
HELIB_IFMA void ct_tail(u64* a, size_t n, size_t k0, size_t len, const u64* w, const u64* wp, const Consts& c) {
    const TailPerms p = tail_perms();
    const size_t m4 = n / 8, m2 = n / 4, m1 = n / 2;
    for (size_t k = k0; k < k0 + len; k += 16) {
        const __m512i v0 = load(a + k), v1 = load(a + k + 8);
        __m512i X = _mm512_permutex2var_epi64(v0, p.x4, v1), Y = _mm512_permutex2var_epi64(v0, p.y4, v1);
        ct(X, Y, spread(w + m4 + k / 8, 2), spread(wp + m4 + k / 8, 2), c);
        __m512i X2 = _mm512_permutex2var_epi64(X, p.x2, Y), Y2 = _mm512_permutex2var_epi64(X, p.y2, Y);
        ct(X2, Y2, spread(w + m2 + k / 4, 4), spread(wp + m2 + k / 4, 4), c);
        __m512i X1 = _mm512_permutex2var_epi64(X2, p.x1, Y2), Y1 = _mm512_permutex2var_epi64(X2, p.y1, Y2);
        ct(X1, Y1, load(w + m1 + k / 2), load(wp + m1 + k / 2), c);
        __m512i o0 = _mm512_permutex2var_epi64(X1, p.out0, Y1), o1 = _mm512_permutex2var_epi64(X1, p.out1, Y1);
        store(a + k, reduce_once(reduce_once(o0, c.two_q), c.q));
        store(a + k + 8, reduce_once(reduce_once(o1, c.two_q), c.q));
    }
}

// The first three inverse stages (t = 1, 2, 4) of a block of `len` words at word k0.
HELIB_IFMA void gs_head(u64* a, size_t n, size_t k0, size_t len, const u64* w, const u64* wp, const Consts& c) {
    const TailInvPerms p = tail_inv_perms();
    const size_t m4 = n / 8, m2 = n / 4, m1 = n / 2;
    for (size_t k = k0; k < k0 + len; k += 16) {
        const __m512i v0 = load(a + k), v1 = load(a + k + 8);
        __m512i X1 = _mm512_permutex2var_epi64(v0, p.x1, v1), Y1 = _mm512_permutex2var_epi64(v0, p.y1, v1);
        gs(X1, Y1, load(w + m1 + k / 2), load(wp + m1 + k / 2), c);
        __m512i X2 = _mm512_permutex2var_epi64(X1, p.x2, Y1), Y2 = _mm512_permutex2var_epi64(X1, p.y2, Y1);
        gs(X2, Y2, spread(w + m2 + k / 4, 4), spread(wp + m2 + k / 4, 4), c);
        __m512i X4 = _mm512_permutex2var_epi64(X2, p.x4, Y2), Y4 = _mm512_permutex2var_epi64(X2, p.y4, Y2);
        gs(X4, Y4, spread(w + m4 + k / 8, 2), spread(wp + m4 + k / 8, 2), c);
        store(a + k, _mm512_permutex2var_epi64(X4, p.out0, Y4));
        store(a + k + 8, _mm512_permutex2var_epi64(X4, p.out1, Y4));
    }
}

struct Tables {
    u64* a;
    size_t n;
    const u64* w;
    const u64* wp;
    Consts c;
};

// Block i of the stage with m blocks of 2t words (twiddle index m + i), and all later stages
// of that block.
HELIB_IFMA void forward_block(const Tables& tb, size_t m, size_t i, size_t t) {
    u64* block = tb.a + 2 * i * t;
    if (2 * t <= kChunk) {
        // Stage (mm, tt): mm blocks of 2 tt words in the row, this block's part from index
        // mm + i sub; two stages at a time while both have half-blocks of 8 words or more.
        size_t mm = m, tt = t;
        while (tt >= 8) {
            const size_t sub = mm / m;
            if (tt >= 16) {
                for (size_t ii = 0; ii < sub; ++ii) {
                    const size_t b = i * sub + ii;
                    ct4_block(block + 2 * ii * tt, tt, tb.w, tb.wp, mm + b, 2 * (mm + b), tb.c);
                }
                mm <<= 2;
                tt >>= 2;
            } else {
                for (size_t ii = 0; ii < sub; ++ii) {
                    const size_t b = mm + i * sub + ii;
                    block_pass<true>(block + 2 * ii * tt, tt, tb.w[b], tb.wp[b], tb.c);
                }
                mm <<= 1;
                tt >>= 1;
            }
        }
        ct_tail(tb.a, tb.n, 2 * i * t, 2 * t, tb.w, tb.wp, tb.c);
        return;
    }
    // Two stages over the whole block (it is larger than a chunk, so t >= 4096), then its quarters.
    ct4_block(block, t, tb.w, tb.wp, m + i, 2 * (m + i), tb.c);
    for (size_t k = 0; k < 4; ++k) forward_block(tb, 4 * m, 4 * i + k, t / 4);
}

HELIB_IFMA void inverse_block(const Tables& tb, size_t m, size_t i, size_t t) {
    u64* block = tb.a + 2 * i * t;
    if (2 * t <= kChunk) {
        gs_head(tb.a, tb.n, 2 * i * t, 2 * t, tb.w, tb.wp, tb.c);
        size_t tt = 8, mm = m * t / 8;
        while (tt <= t) {
            const size_t sub = mm / m;
            if (2 * tt <= t) {
                // Stages (mm, tt) and (mm / 2, 2 tt): blocks of 4 tt words.
                for (size_t jj = 0; jj < sub / 2; ++jj) {
                    const size_t b = i * sub + 2 * jj;
                    gs4_block(block + 4 * jj * tt, tt, tb.w, tb.wp, mm + b, mm / 2 + b / 2, tb.c);
                }
                mm >>= 2;
                tt <<= 2;
            } else {
                for (size_t ii = 0; ii < sub; ++ii) {
                    const size_t b = mm + i * sub + ii;
                    block_pass<false>(block + 2 * ii * tt, tt, tb.w[b], tb.wp[b], tb.c);
                }
                mm >>= 1;
                tt <<= 1;
            }
        }
        return;
    }
    for (size_t k = 0; k < 4; ++k) inverse_block(tb, 4 * m, 4 * i + k, t / 4);
    gs4_block(block, t / 2, tb.w, tb.wp, 2 * (m + i), m + i, tb.c);
}

}  // namespace

HELIB_IFMA void ntt_forward_ifma(u64* a, size_t n, u64 q, const u64* root_pow, const u64* root_pow_shoup52) {
    forward_block({a, n, root_pow, root_pow_shoup52, consts(q)}, 1, 0, n / 2);
}

HELIB_IFMA void ntt_inverse_ifma(u64* a, size_t n, u64 q, const u64* inv_root_pow, const u64* inv_root_pow_shoup52,
                                 u64 scale, u64 scale_shoup52) {
    const Tables tb{a, n, inv_root_pow, inv_root_pow_shoup52, consts(q)};
    if (n >= 32) {
        // Both halves, then the last stage with the scaling in the same pass.
        inverse_block(tb, 2, 0, n / 4);
        inverse_block(tb, 2, 1, n / 4);
        const unsigned __int128 ws = static_cast<unsigned __int128>(inv_root_pow[1]) * scale % q;
        gs_last(a, n / 2, scale, scale_shoup52, static_cast<u64>(ws), shoup52(static_cast<u64>(ws), q), tb.c);
        return;
    }
    inverse_block(tb, 1, 0, n / 2);
    const __m512i S = broadcast(scale);
    const __m512i SP = broadcast(scale_shoup52);
    for (size_t i = 0; i < n; i += 8) store(a + i, reduce_once(mul_shoup(load(a + i), S, SP, tb.c), tb.c.q));
}

bool cpu_has_avx512_ifma() {
    return !scalar_forced() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
}

}  // namespace helib

#else  // not x86-64: the entry points, never selected (arch.h)

#include "math/ntt.h"

namespace helib {

void ntt_forward_ifma(u64*, size_t, u64, const u64*, const u64*) { kernel_not_built(); }
void ntt_inverse_ifma(u64*, size_t, u64, const u64*, const u64*, u64, u64) { kernel_not_built(); }
bool cpu_has_avx512_ifma() { return false; }

}  // namespace helib

#endif  // HELIB_X86_64
