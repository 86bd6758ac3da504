// Negacyclic NTT modulo one prime q = 1 mod 2N: evaluation of a polynomial of Z_q[X]/(X^N + 1)
// at the odd powers of a primitive 2N-th root psi. Harvey butterflies with Shoup-precomputed
// twiddles and lazy reduction; the transform never allocates.
#pragma once

#include <cstddef>
#include <vector>

#include "math/modarith.h"

namespace helib {

// The AVX2 + FMA transform (ntt_avx2.cpp); exact for q < 2^50.
void ntt_forward_avx2(u64* a, size_t n, double q, const double* root_pow);
// w_n_inv = inv_root_pow[1] * n_inv mod q, the last stage's twiddle with the 1/n scaling folded in.
void ntt_inverse_avx2(u64* a, size_t n, double q, const double* inv_root_pow, double n_inv, double w_n_inv);
bool cpu_has_avx2_fma();
// Compares every vector transform this CPU has with the scalar one (sizes 16 to 4096, primes of
// 31 to 50 bits, random and edge inputs, forward, inverse and scaled inverse). Throws
// std::runtime_error on a mismatch.
void ntt_self_test();
// The AVX-512 IFMA transform (ntt_ifma.cpp); q < 2^50, n >= 16, Shoup factors of 52 bits
// (shoup52); the inverse ends with a *= scale mod q.
void ntt_forward_ifma(u64* a, size_t n, u64 q, const u64* root_pow, const u64* root_pow_shoup52);
void ntt_inverse_ifma(u64* a, size_t n, u64 q, const u64* inv_root_pow, const u64* inv_root_pow_shoup52,
                      u64 scale, u64 scale_shoup52);
bool cpu_has_avx512_ifma();
// floor(w 2^52 / q) for w < q < 2^52: the Shoup factor of the IFMA transform.
inline u64 shoup52(u64 w, u64 q) { return static_cast<u64>((static_cast<unsigned __int128>(w) << 52) / q); }

// Primes below this bound get a vector transform where the CPU has one: IFMA (sizes >= 16),
// else AVX2 (sizes >= 32).
constexpr u64 kSimdPrimeBound = u64(1) << 50;

// The implementations of the transform; all give the same output.
// The smallest primitive 2n-th root of unity mod q (q = 1 mod 2n): deterministic per (q, n), so
// that a context's tables, and its fingerprint, follow from its primes.
u64 primitive_root_2n(u64 q, size_t n);

enum class NttPath { scalar, avx2, ifma };
// The fastest path this CPU allows for (q, n).
NttPath best_ntt_path(u64 q, size_t n);
// Whether this CPU can run `path` for (q, n).
bool ntt_path_available(NttPath path, u64 q, size_t n);

class NttTable {
public:
    // Tables for the smallest primitive 2n-th root of unity mod q (deterministic per (q, n)).
    NttTable(u64 q, size_t n);
    // Tables for the given primitive 2n-th root psi (the caller checks its order); used for a
    // size-n transform that must agree with a larger one, psi = psi_big^(N/n).
    NttTable(u64 q, size_t n, u64 psi);
    // The same on a chosen path (ntt_path_available must hold): the self-test's comparisons.
    NttTable(u64 q, size_t n, u64 psi, NttPath path);

    u64 psi() const { return psi_; }
    u64 modulus() const { return q_; }
    size_t size() const { return n_; }
    const Barrett& barrett() const { return barrett_; }

    // In place, input in [0, q), output in [0, q), bit-reversed evaluation order: entry i holds
    // a(psi^(2*bitrev(i)+1)).
    void forward(u64* a) const;
    // Inverse of forward (including the 1/N scaling).
    void inverse(u64* a) const;
    // inverse, then a *= c mod q (c < q), at no extra cost: c joins the 1/N scaling.
    void inverse_scaled(u64* a, u64 c) const;

    // Exponent e (odd, mod 2N) of the evaluation point held at NTT index i.
    u64 eval_exponent(size_t i) const;

private:
    void forward_block(u64* a, size_t m, size_t i, size_t t) const;
    void inverse_block(u64* a, size_t m, size_t i, size_t t) const;

    u64 q_;
    u64 psi_;
    size_t n_;
    int log_n_;
    Barrett barrett_;
    std::vector<u64> root_pow_, root_pow_shoup_;          // psi^bitrev(i)
    std::vector<u64> inv_root_pow_, inv_root_pow_shoup_;  // psi^-(bitrev(i)) arranged for GS
    u64 inv_n_, inv_n_shoup_;
    u64 w_inv_n_;  // inv_root_pow_[1] * inv_n_
    NttPath path_;
    // The IFMA path's 52-bit Shoup factors, or the AVX2 path's double copies of the twiddles.
    std::vector<u64> root_pow_shoup52_, inv_root_pow_shoup52_;
    u64 inv_n_shoup52_ = 0;
    std::vector<double> root_pow_d_, inv_root_pow_d_;
};

// Reverses the low `bits` bits of x (1 <= bits <= 64): swaps of ever larger bit groups, then a
// byte swap, with no loop over the bits (Galois permutations call this for every index).
inline size_t bit_reverse(size_t x, int bits) {
    uint64_t v = x;
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return static_cast<size_t>(__builtin_bswap64(v) >> (64 - bits));
}

}  // namespace helib
