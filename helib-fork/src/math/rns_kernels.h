// Elementwise kernels over one RNS row (n words, values in [0, q)), in two implementations:
// AVX2 + FMA on doubles (exact for primes below 2^50, see ntt_avx2.cpp) and portable scalar.
// `simd` selects the first (for rows of a multiple of 16 words); Context::simd() says whether
// every prime and the CPU allow it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/modarith.h"

namespace helib {

// out = a * b mod q
void row_mul(u64* out, const u64* a, const u64* b, size_t n, const Barrett& br, bool simd);
// out = c + a * b mod q (c may be out)
void row_mul_add_to(u64* out, const u64* a, const u64* b, const u64* c, size_t n, const Barrett& br, bool simd);
// out = out + a * b mod q
inline void row_mul_add(u64* out, const u64* a, const u64* b, size_t n, const Barrett& br, bool simd) {
    row_mul_add_to(out, a, b, out, n, br, simd);
}
// out = a0 * b1 + a1 * b0 mod q
void row_cross(u64* out, const u64* a0, const u64* b1, const u64* a1, const u64* b0, size_t n,
               const Barrett& br, bool simd);
// out = a - b (+ plus, when not null) mod q
void row_sub_add(u64* out, const u64* a, const u64* b, const u64* plus, size_t n, const Barrett& br, bool simd);
// b = b - x * g - a * s mod q for a constant g < q: one row of a key-switching key's (or the
// public key's) b part, with b holding t e on entry. x is not read when g is 0.
void row_switch_key_b(u64* b, const u64* x, u64 g, const u64* a, const u64* s, size_t n, const Barrett& br,
                      bool simd);
// o0 = sum_d x[d] * k0[d] (+ plus0), o1 = sum_d x[d] * k1[d] mod q over `terms` rows: the
// key-switching inner product, one pass for both outputs; plus0 (residues in [0, q)) is added
// when not null.
void row_dot2(u64* o0, u64* o1, const u64* const* x, const u64* const* k0, const u64* const* k1, size_t terms,
              size_t n, const Barrett& br, bool simd, const u64* plus0 = nullptr);
// out = sum_a in[a] * w[a] mod q over `terms` rows of signed integers held as doubles,
// |in| <= 2^50, and constants w[a] < q: basis conversion from centered residues (key switching)
// and big integers from balanced 51-bit digits (plaintext conversion).
void row_dot_signed(u64* out, const double* const* in, const u64* w, size_t terms, size_t n, const Barrett& br,
                    bool simd);
// out = in * w mod q for small signed integers (|in| < 2^31; secrets, errors) and a constant
// w < q, with no data-dependent branch or memory access (the inputs may be secret).
void row_from_small(u64* out, const int32_t* in, u64 w, size_t n, const Barrett& br, bool simd);
// out = [a * w mod q] centered in [-q/2, q/2], as doubles: the input form of row_dot_signed.
void row_mul_const_centered(double* out, const u64* a, u64 w, size_t n, const Barrett& br, bool simd);

// Where the CPU has AVX2 + FMA, checks the vector basis-conversion kernel (row_dot_signed)
// against the scalar one at the edge of its contract: inputs of magnitude 2^50, of one sign
// across the terms, products near q/2 under the largest prime below 2^50, and term counts from
// one up to more than the vector kernel takes per pass. Throws std::runtime_error on a mismatch.
void kernels_self_test();

// The most terms the vector basis conversions sum exactly in one pass on top of a start below
// q: each term adds at most 3q/4 + 2^46 (avx2_modq.h), and q + T (3q/4 + 2^46) must stay below
// 2^52, where their reduction is exact. At least 1.
size_t signed_dot_terms_per_pass(u64 q);

// The AVX2 implementations (rns_kernels_avx2.cpp).
void row_mul_avx2(u64* out, const u64* a, const u64* b, size_t n, u64 q);
void row_mul_add_to_avx2(u64* out, const u64* a, const u64* b, const u64* c, size_t n, u64 q);
void row_cross_avx2(u64* out, const u64* a0, const u64* b1, const u64* a1, const u64* b0, size_t n, u64 q);
void row_sub_add_avx2(u64* out, const u64* a, const u64* b, const u64* plus, size_t n, u64 q);
void row_switch_key_b_avx2(u64* b, const u64* x, u64 g, const u64* a, const u64* s, size_t n, u64 q);
void row_dot2_avx2(u64* o0, u64* o1, const u64* const* x, const u64* const* k0, const u64* const* k1,
                   size_t terms, size_t n, u64 q, const u64* plus0);
void row_dot_signed_avx2(u64* out, const double* const* in, const u64* w, size_t terms, size_t n, u64 q);
void row_mul_const_centered_avx2(double* out, const u64* a, u64 w, size_t n, u64 q);
void row_from_small_avx2(u64* out, const int32_t* in, u64 w, size_t n, u64 q);

// The AVX-512 (F + DQ) implementations of the hottest kernels (rns_kernels_avx512.cpp), which the
// dispatching functions above prefer where the CPU has them; same contracts as the AVX2 ones.
void row_dot2_avx512(u64* o0, u64* o1, const u64* const* x, const u64* const* k0, const u64* const* k1,
                     size_t terms, size_t n, u64 q, const u64* plus0);
void row_dot_signed_avx512(u64* out, const double* const* in, const u64* w, size_t terms, size_t n, u64 q);
void row_mul_acc2_avx512(double* acc0, double* acc1, const u64* a0, const u64* a1, const u64* y, size_t n,
                         size_t log_repeat, bool reduce_after, u64 q);
void row_store_reduced_avx512(u64* out, const double* acc, size_t n, u64 q);
// Whether the CPU has AVX-512 F and DQ (false where HELIB_FORCE_SCALAR is set, or off x86-64).
bool cpu_has_avx512_dq();

// AVX2 only, with no portable twin (the caller keeps its own scalar path; Context::simd(), n a
// multiple of 16): the ciphertext-plaintext inner product's kernels, and a row permutation.
// acc0 += a0 * y, acc1 += a1 * y mod q on accumulators of signed integers held as doubles, for
// the plaintext row y stored with each value repeated 2^log_repeat times (word k is
// y[k >> log_repeat]). Accumulators must stay below 2^52: each call adds at most 3q/4, so with
// q < 2^50 a caller reduces (reduce_after, into [-q/2, q/2]) at least every fourth call.
void row_mul_acc2_avx2(double* acc0, double* acc1, const u64* a0, const u64* a1, const u64* y, size_t n,
                       size_t log_repeat, bool reduce_after, u64 q);
// out = acc mod q in [0, q), for |acc| < 2^52.
void row_store_reduced_avx2(u64* out, const double* acc, size_t n, u64 q);
// The two above on the widest vectors the CPU has: AVX-512 where it has AVX-512 F and DQ,
// else AVX2. Same contract (Context::simd(), n a multiple of 16).
void row_mul_acc2_simd(double* acc0, double* acc1, const u64* a0, const u64* a1, const u64* y, size_t n,
                       size_t log_repeat, bool reduce_after, u64 q);
void row_store_reduced_simd(u64* out, const double* acc, size_t n, u64 q);
// out[i] = in[perm[i]] for i < n (a multiple of 4), where perm maps every aligned group of four
// indices onto one (Galois permutations, galois.h): one load and one lane permutation per four.
void permute_row_avx2(const uint32_t* perm, const u64* in, u64* out, size_t n);

}  // namespace helib
