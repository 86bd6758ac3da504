// EncodedPtxt: a plaintext polynomial already reduced modulo the chain primes of one level and
// transformed to NTT form, with its canonical-embedding norm (for the noise bound) measured
// once. Multiplying a ciphertext by it is a pointwise product per row; it is immutable, so one
// encoding serves any number of multiplications on any number of threads.
//
// An extended encoding also holds the residues modulo the special primes (rows level.. after the
// chain rows): what a plaintext product taken before a key switch's mod-down needs
// (Ctxt::rotated_inner_product).
//
// A sparse plaintext m(X) = m'(X^(N/len)) (what a slot vector that repeats with period
// len/2 in both rows encodes to) is stored compactly: its NTT form is the size-len NTT of m'
// with every value repeated N/len times, so only len values per prime are kept.
#pragma once

#include <memory>
#include <vector>

#include "scheme/context.h"
#include "math/ntt.h"
#include "math/rns_poly.h"

namespace helib {

// Size-len NTT tables whose roots agree with the context's (psi_len = psi^(N/len) per prime),
// for encoding sparse plaintexts at one level. Build once, encode many.
class SparseTables {
public:
    SparseTables(std::shared_ptr<const Context> ctx, size_t len, size_t level);

    const std::shared_ptr<const Context>& context() const { return ctx_; }
    size_t len() const { return len_; }
    size_t level() const { return level_; }
    const NttTable& ntt(size_t r) const { return ntt_[r]; }

private:
    std::shared_ptr<const Context> ctx_;
    size_t len_, level_;
    std::vector<NttTable> ntt_;
};

class EncodedPtxt {
public:
    // coeffs: num <= N values of p_limbs() limbs, each < p; level in 1..L.
    EncodedPtxt(std::shared_ptr<const Context> ctx, const u64* coeffs, size_t num, size_t level,
                bool extended = false);
    // The sparse polynomial sum_i coeffs[i] X^(i N / len), i < len = tables.len().
    EncodedPtxt(const SparseTables& tables, const u64* coeffs);

    const std::shared_ptr<const Context>& context() const { return ctx_; }
    size_t level() const { return level_; }
    bool extended() const { return extended_; }
    // Row r of the extended basis of a ciphertext at `at_level` <= level() (chain rows, then the
    // special rows, which an extended encoding keeps after its own chain rows).
    const u64* extended_row(size_t r, size_t at_level) const {
        return poly_.row(r < at_level ? r : level_ + (r - at_level));
    }
    double log2_norm() const { return log2_norm_; }
    size_t size_bytes() const { return sizeof(*this) + poly_.data.size() * sizeof(u64); }

    // Full NTT value k of row r is stored at index k >> log_repeat().
    size_t log_repeat() const { return log_repeat_; }
    const RnsPoly& stored() const { return poly_; }
    // Entries [begin, begin + count) of row r in full NTT form.
    void expand(size_t r, size_t begin, size_t count, u64* out) const;
    // All rows in full NTT form (a copy when the storage is compact).
    RnsPoly full() const;

private:
    std::shared_ptr<const Context> ctx_;
    size_t level_;
    bool extended_ = false;
    size_t log_repeat_ = 0;
    RnsPoly poly_;
    double log2_norm_;
};

}  // namespace helib
