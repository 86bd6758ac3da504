#include "scheme/ptxt.h"

#include <algorithm>
#include <string>

#include "scheme/errors.h"

namespace helib {
namespace {

void check_level(const Context& ctx, size_t level) {
    if (level < 1 || level > ctx.num_chain())
        throw InvalidArgument("encoding level must be in 1.." + std::to_string(ctx.num_chain()) +
                              " (got " + std::to_string(level) + ")");
}

}  // namespace

SparseTables::SparseTables(std::shared_ptr<const Context> ctx, size_t len, size_t level)
    : ctx_(std::move(ctx)), len_(len), level_(level) {
    const Context& c = *ctx_;
    check_level(c, level);
    if (len < 2 || len > c.n() || (len & (len - 1)) != 0)
        throw InvalidArgument("sparse encoding length must be a power of two in 2..N (got " +
                              std::to_string(len) + ")");
    const u64 stride = c.n() / len;
    ntt_.reserve(level);
    for (size_t r = 0; r < level; ++r) {
        const u64 q = c.prime(r);
        ntt_.emplace_back(q, len, pow_mod(c.ntt(r).psi(), stride, q));
    }
}

EncodedPtxt::EncodedPtxt(std::shared_ptr<const Context> ctx, const u64* coeffs, size_t num, size_t level,
                         bool extended)
    : ctx_(std::move(ctx)), level_(level), extended_(extended) {
    check_level(*ctx_, level);
    std::vector<double> centered;
    const Basis basis = extended ? extended_basis(*ctx_, level) : chain_basis(*ctx_, level);
    poly_ = plaintext_to_ntt(*ctx_, coeffs, num, basis, &centered);
    log2_norm_ = ctx_->log2_canonical_norm(centered);
}

EncodedPtxt::EncodedPtxt(const SparseTables& tables, const u64* coeffs)
    : ctx_(tables.context()), level_(tables.level()) {
    const size_t len = tables.len();
    while ((len << log_repeat_) < ctx_->n()) ++log_repeat_;
    std::vector<double> centered;
    poly_ = plaintext_rows(*ctx_, coeffs, len, len, chain_basis(*ctx_, level_), &centered);
    for (size_t r = 0; r < level_; ++r) tables.ntt(r).forward(poly_.row(r));
    // The roots of Y^len + 1 are the (N/len)-th powers of those of X^N + 1: same norm.
    log2_norm_ = ctx_->log2_canonical_norm(centered);
}

void EncodedPtxt::expand(size_t r, size_t begin, size_t count, u64* out) const {
    const u64* row = poly_.row(r);
    if (log_repeat_ == 0) {
        std::copy(row + begin, row + begin + count, out);
        return;
    }
    for (size_t k = 0; k < count; ++k) out[k] = row[(begin + k) >> log_repeat_];
}

RnsPoly EncodedPtxt::full() const {
    if (log_repeat_ == 0) return poly_;
    RnsPoly out(poly_.rows, ctx_->n());
    for (size_t r = 0; r < poly_.rows; ++r) expand(r, 0, ctx_->n(), out.row(r));
    return out;
}

}  // namespace helib
