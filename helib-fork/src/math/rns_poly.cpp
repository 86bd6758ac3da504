#include "math/rns_poly.h"

#include <algorithm>

#include "scheme/errors.h"
#include "math/limbs.h"
#include "math/plaintext_digits.h"
#include "math/rns_kernels.h"

namespace helib {

Basis chain_basis(const Context& ctx, size_t level) {
    (void)ctx;
    Basis b(level);
    for (size_t i = 0; i < level; ++i) b[i] = i;
    return b;
}

Basis extended_basis(const Context& ctx, size_t level) {
    Basis b = chain_basis(ctx, level);
    for (size_t k = 0; k < ctx.num_special(); ++k) b.push_back(ctx.special_index(k));
    return b;
}

Basis extended_basis(size_t level, const std::vector<size_t>& special) {
    Basis b(level);
    for (size_t i = 0; i < level; ++i) b[i] = i;
    b.insert(b.end(), special.begin(), special.end());
    return b;
}

void ntt_forward(const Context& ctx, const Basis& basis, RnsPoly& a) {
    for (size_t r = 0; r < basis.size(); ++r) ctx.ntt(basis[r]).forward(a.row(r));
}

SmallRows::SmallRows(const Context& ctx, const std::vector<int32_t>& coeffs, SmallScale scale)
    : ctx_(ctx), coeffs_(coeffs), scale_(scale) {}

void SmallRows::ntt_row(size_t pi, u64* out, u64 factor) const {
    const u64 q = ctx_.prime(pi);
    const u64 w = mul_mod(scale_ == SmallScale::plaintext_modulus ? ctx_.t_mod(pi) : 1 % q, factor, q);
    row_from_small(out, coeffs_.data(), w, ctx_.n(), ctx_.ntt(pi).barrett(), ctx_.simd());
    ctx_.ntt(pi).forward(out);
}

RnsPoly small_to_ntt(const Context& ctx, const std::vector<int32_t>& coeffs, const Basis& basis,
                     SmallScale scale) {
    RnsPoly out = RnsPoly::uninit(basis.size(), ctx.n());
    const SmallRows rows(ctx, coeffs, scale);
    for (size_t r = 0; r < basis.size(); ++r) rows.ntt_row(basis[r], out.row(r));
    return out;
}

RnsPoly sample_uniform(const Context& ctx, Prng& prng, const Basis& basis) {
    const size_t n = ctx.n();
    RnsPoly out = RnsPoly::uninit(basis.size(), n);
    for (size_t r = 0; r < basis.size(); ++r) prng.uniform_row(out.row(r), n, ctx.prime(basis[r]));
    return out;
}

RnsPoly plaintext_to_ntt(const Context& ctx, const u64* coeffs, size_t num, const Basis& basis,
                         std::vector<double>* centered) {
    RnsPoly out = plaintext_to_coeffs(ctx, coeffs, num, basis, centered);
    ntt_forward(ctx, basis, out);
    return out;
}

RnsPoly plaintext_to_coeffs(const Context& ctx, const u64* coeffs, size_t num, const Basis& basis,
                            std::vector<double>* centered) {
    return plaintext_rows(ctx, coeffs, num, ctx.n(), basis, centered);
}

namespace {

constexpr double kChunkScale = static_cast<double>(u64{1} << kDigitBits);
// Coefficients converted per block: the pieces of one block (a few tens of KiB) stay in L1/L2
// while every prime's row is written.
constexpr size_t kBlock = 1024;

// Cuts the little-endian magnitude `mag` (w limbs) into balanced base-2^51 digits, negated when
// `negative`, at out[j * stride]. A digit above 2^50 becomes digit - 2^51 and carries one into
// the next; num_chunks * 51 >= bits(mag) + 1 leaves room for the last carry.
inline void cut_into_chunks(const u64* mag, size_t w, bool negative, size_t num_chunks, double* out,
                            size_t stride) {
    constexpr u64 kHalf = u64{1} << (kDigitBits - 1);
    u64 carry = 0;
    for (size_t j = 0; j < num_chunks; ++j) {
        const size_t bit = j * kDigitBits, i = bit / 64, shift = bit % 64;
        u64 v = i < w ? mag[i] >> shift : 0;
        if (shift > 64 - kDigitBits && i + 1 < w) v |= mag[i + 1] << (64 - shift);
        v = (v & ((u64{1} << kDigitBits) - 1)) + carry;
        carry = v > kHalf ? 1 : 0;
        const double d = static_cast<double>(static_cast<int64_t>(v) - static_cast<int64_t>(carry << kDigitBits));
        out[j * stride] = negative ? -d : d;
    }
}

// Centres and cuts coefficients b0 + i0 .. b0 + block (zeros from `num` on) into `chunks` (row
// j of the block at j * block), and records their centred values. `W` and `C` fix the limb and
// chunk counts when nonzero, so that the common case (a 4-limb p, 5 chunks) unrolls into
// straight code; `mag` holds w limbs of scratch.
template <size_t W, size_t C>
void cut_block(const u64* coeffs, size_t b0, size_t i0, size_t block, size_t num, size_t w_rt, size_t chunks_rt,
               const u64* p, const u64* half, u64* mag, double* chunks, std::vector<double>* centered) {
    const size_t w = W ? W : w_rt, num_chunks = C ? C : chunks_rt;
    for (size_t i = i0; i < block; ++i) {
        const size_t k = b0 + i;
        if (k >= num) {
            for (size_t j = 0; j < num_chunks; ++j) chunks[j * block + i] = 0.0;
            continue;
        }
        const u64* c = coeffs + k * w;
        if (!limbs_less(c, p, w))
            throw InvalidArgument("plaintext coefficient " + std::to_string(k) + " is not below p");
        const bool negative = limbs_less(half, c, w);
        if (negative)
            limbs_sub(mag, p, c, w);
        else
            std::copy(c, c + w, mag);
        cut_into_chunks(mag, w, negative, num_chunks, chunks + i, block);
        if (centered) {
            double v = 0;
            for (size_t j = num_chunks; j-- > 0;) v = v * kChunkScale + chunks[j * block + i];
            (*centered)[k] = v;
        }
    }
}

}  // namespace

void check_plaintext_length(size_t num, size_t n) {
    if (num > n) throw InvalidArgument("polynomial has more coefficients than the ring degree N");
}

RnsPoly plaintext_rows(const Context& ctx, const u64* coeffs, size_t num, size_t n, const Basis& basis,
                       std::vector<double>* centered) {
    const size_t w = ctx.p_limbs();
    check_plaintext_length(num, n);
    const u64* p = ctx.p_limb_vec().data();
    std::vector<u64> half(w), mag(w);
    zz_to_limbs(ctx.half_p(), half.data(), w);

    // Centered magnitudes are at most p/2, below 2^(bits(p) - 1); one more bit for the carry.
    const size_t num_chunks = (static_cast<size_t>(ctx.p_bits()) + kDigitBits - 1) / kDigitBits;
    std::vector<u64> radix(basis.size() * num_chunks);
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        const u64 step = pow_mod(2, kDigitBits, q);
        radix[r * num_chunks] = 1;
        for (size_t j = 1; j < num_chunks; ++j)
            radix[r * num_chunks + j] = mul_mod(radix[r * num_chunks + j - 1], step, q);
    }
    if (centered) centered->assign(n, 0.0);

    const size_t block = std::min(n, kBlock);  // both powers of two, so blocks tile the row
    std::vector<double> chunks(num_chunks * block);
    std::vector<const double*> chunk_rows(num_chunks);
    for (size_t j = 0; j < num_chunks; ++j) chunk_rows[j] = chunks.data() + j * block;
    const bool four_limbs_five_chunks = w == 4 && num_chunks == 5;  // BN254, BLS12-381
    RnsPoly out = RnsPoly::uninit(basis.size(), n);
    for (size_t b0 = 0; b0 < n; b0 += block) {
        // The vector path takes the whole groups of four below `num`; the scalar one the rest,
        // and any group the vector path stopped at, so that it names the bad coefficient.
        size_t done = 0;
        if (four_limbs_five_chunks && ctx.simd()) {
            const size_t whole = num > b0 ? std::min(block, num - b0) & ~size_t{3} : 0;
            done = balanced_digits_4x5_avx2(coeffs + b0 * w, whole, p, half.data(), chunks.data(), block,
                                            centered ? centered->data() + b0 : nullptr);
        }
        if (four_limbs_five_chunks)
            cut_block<4, 5>(coeffs, b0, done, block, num, w, num_chunks, p, half.data(), mag.data(), chunks.data(),
                            centered);
        else
            cut_block<0, 0>(coeffs, b0, done, block, num, w, num_chunks, p, half.data(), mag.data(), chunks.data(),
                            centered);
        for (size_t r = 0; r < basis.size(); ++r)
            row_dot_signed(out.row(r) + b0, chunk_rows.data(), radix.data() + r * num_chunks, num_chunks, block,
                           ctx.ntt(basis[r]).barrett(), ctx.simd());
    }
    return out;
}

void add_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        u64* x = a.row(r);
        const u64* y = b.row(r);
        for (size_t k = 0; k < n; ++k) x[k] = add_mod(x[k], y[k], q);
    }
}

void sub_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        u64* x = a.row(r);
        const u64* y = b.row(r);
        for (size_t k = 0; k < n; ++k) x[k] = sub_mod(x[k], y[k], q);
    }
}

void negate_inplace(const Context& ctx, const Basis& basis, RnsPoly& a) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        u64* x = a.row(r);
        for (size_t k = 0; k < n; ++k) x[k] = neg_mod(x[k], q);
    }
}

void mul_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const RnsPoly& b) {
    for (size_t r = 0; r < basis.size(); ++r)
        row_mul(a.row(r), a.row(r), b.row(r), ctx.n(), ctx.ntt(basis[r]).barrett(), ctx.simd());
}

void mul_scalar_inplace(const Context& ctx, const Basis& basis, RnsPoly& a, const std::vector<u64>& s) {
    const size_t n = ctx.n();
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        const u64 w = s[r], wp = shoup_precompute(w, q);
        u64* x = a.row(r);
        for (size_t k = 0; k < n; ++k) x[k] = mul_shoup(x[k], w, wp, q);
    }
}

}  // namespace helib
