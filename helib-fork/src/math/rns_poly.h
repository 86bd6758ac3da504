// RnsPoly: a polynomial of Z[X]/(X^N + 1) as residues modulo the primes of a basis (a list of
// prime indices of the Context), one row of N words per prime. HElib calls this a DoubleCRT when
// the rows are in NTT form, which is how ciphertexts and keys are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheme/context.h"
#include "scheme/random.h"
#include "math/words.h"

namespace helib {

using Basis = std::vector<size_t>;

// Chain primes 0..level-1.
Basis chain_basis(const Context& ctx, size_t level);
// Chain primes 0..level-1 followed by all special primes (the key-switching basis).
Basis extended_basis(const Context& ctx, size_t level);
// Chain primes 0..level-1 followed by the special primes of `special` (a key's switch basis).
Basis extended_basis(size_t level, const std::vector<size_t>& special);

struct RnsPoly {
    Words data;
    size_t n = 0;
    size_t rows = 0;

    RnsPoly() = default;
    // Zero polynomial.
    RnsPoly(size_t rows_, size_t n_) : data(rows_ * n_, 0), n(n_), rows(rows_) {}
    // Rows with unspecified contents, for results that overwrite every word.
    static RnsPoly uninit(size_t rows_, size_t n_) {
        RnsPoly p;
        p.data.resize(rows_ * n_);
        p.n = n_;
        p.rows = rows_;
        return p;
    }
    u64* row(size_t i) { return data.data() + i * n; }
    const u64* row(size_t i) const { return data.data() + i * n; }
    // Drops rows beyond `keep` (the top primes of a chain basis).
    void truncate(size_t keep) {
        rows = keep;
        data.resize(rows * n);
    }
};

void ntt_forward(const Context& ctx, const Basis& basis, RnsPoly& a);

// What small_to_ntt multiplies the coefficients by: 1, or the plaintext modulus t (the t e of
// BGV key material, folded in here because a product by a small integer is cheap).
enum class SmallScale { one, plaintext_modulus };

// Small signed coefficients (secret, errors), times `scale`, into the basis, NTT form.
RnsPoly small_to_ntt(const Context& ctx, const std::vector<int32_t>& coeffs, const Basis& basis,
                     SmallScale scale = SmallScale::one);

// small_to_ntt one row at a time, for callers that finish each row while it is still in cache.
class SmallRows {
public:
    // Keeps a reference to coeffs (ctx.n() values).
    SmallRows(const Context& ctx, const std::vector<int32_t>& coeffs, SmallScale scale);
    // The row of prime index pi into out (n words), NTT form, times `factor` (below the prime).
    void ntt_row(size_t pi, u64* out, u64 factor = 1) const;

private:
    const Context& ctx_;
    const std::vector<int32_t>& coeffs_;
    SmallScale scale_;
};

// Uniform residues per prime; uniform in NTT form directly.
RnsPoly sample_uniform(const Context& ctx, Prng& prng, const Basis& basis);

// Plaintext coefficients (num <= N values of ctx.p_limbs() limbs, each < p) into the basis in
// NTT form, using the centered representative in (-p/2, p/2]. If `centered` is non-null it
// receives the centered coefficients as doubles (for canonical-norm bounds).
RnsPoly plaintext_to_ntt(const Context& ctx, const u64* coeffs, size_t num, const Basis& basis,
                         std::vector<double>* centered);

// As plaintext_to_ntt, but leaves the rows in coefficient form.
RnsPoly plaintext_to_coeffs(const Context& ctx, const u64* coeffs, size_t num, const Basis& basis,
                            std::vector<double>* centered);

// Throws InvalidArgument unless a polynomial of num coefficients fits rows of n words.
void check_plaintext_length(size_t num, size_t n);
// As plaintext_to_coeffs with rows of n <= N words (n >= num), for a polynomial of degree < n.
RnsPoly plaintext_rows(const Context& ctx, const u64* coeffs, size_t num, size_t n, const Basis& basis,
                       std::vector<double>* centered);

// Elementwise a += b, a -= b, a = -a, a *= b, a += b * c over the basis (NTT form).
void add_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b);
void sub_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b);
void negate_inplace(const Context& ctx, const Basis& basis, RnsPoly& a);
void mul_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b);
// Multiplies row i by the scalar s[i].
void mul_scalar_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const std::vector<u64>& s);

}  // namespace helib
