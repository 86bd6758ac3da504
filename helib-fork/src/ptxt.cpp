#include "ptxt.h"

#include <string>

#include "canonical.h"
#include "errors.h"

namespace helib {

EncodedPtxt::EncodedPtxt(std::shared_ptr<const Context> ctx, const u64* coeffs, size_t num, size_t level)
    : ctx_(std::move(ctx)), level_(level) {
    if (level < 1 || level > ctx_->num_chain())
        throw InvalidArgument("encoding level must be in 1.." + std::to_string(ctx_->num_chain()) +
                              " (got " + std::to_string(level) + ")");
    std::vector<double> centered;
    poly_ = plaintext_to_ntt(*ctx_, coeffs, num, chain_basis(*ctx_, level), &centered);
    log2_norm_ = log2_canonical_norm(centered);
}

}  // namespace helib
