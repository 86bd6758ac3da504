#include "scheme/horner_chain.h"

#include <algorithm>

#include "math/modarith.h"
#include "scheme/errors.h"
#include "scheme/key_switch.h"
#include "scheme/noise.h"

namespace helib {
namespace {

// a += b mod q over one row of n words.
void add_row(u64 q, const u64* b, u64* a, size_t n) {
    for (size_t k = 0; k < n; ++k) a[k] = add_mod(a[k], b[k], q);
}

}  // namespace

HornerChain::HornerChain(const Ctxt& last, uint64_t g, const GaloisKeys& keys)
    : proto_(last.ctx_, last.key_id_, last.level_) {
    last.check_galois_keys(keys);
    const Context& ctx = *last.ctx_;
    check_galois_element(ctx, g);
    if (g == 1) throw InvalidArgument("a Horner chain rotates by an element other than 1");
    key_ = &keys.key(g);
    check_key_level(ctx, *key_, last.level_);
    perm_ = &keys.permutation(g);
    proto_.factor_ = last.factor_;
    proto_.log2_noise_ = last.log2_noise_;
    // Raised: P * last, whose chain rows (carrying P^-1) are last's and special rows zero.
    const size_t rows = last.level_ + ctx.switch_basis(key_->derived).special.size(), n = ctx.n();
    acc0_ = RnsPoly(rows, n);
    acc1_ = RnsPoly(rows, n);
    std::copy(last.c0_.data.begin(), last.c0_.data.begin() + last.level_ * n, acc0_.data.begin());
    std::copy(last.c1_.data.begin(), last.c1_.data.begin() + last.level_ * n, acc1_.data.begin());
}

void HornerChain::rotate_add(const Ctxt& x) {
    const Context& ctx = *proto_.ctx_;
    proto_.check_compatible(x);
    if (x.level_ != proto_.level_)
        throw InvalidArgument("a Horner step's ciphertext is at level " + std::to_string(x.level_) +
                              ", the chain's at " + std::to_string(proto_.level_));
    if (x.factor_ != proto_.factor_)
        throw InvalidArgument("a Horner step's ciphertext has another plaintext factor than the chain's");
    const size_t level = proto_.level_, n = ctx.n();
    const SwitchBasis& basis = ctx.switch_basis(key_->derived);
    // c1 over Q, for the key switch; c0 stays raised and joins the key product on every row.
    // Before the first step the special rows are zero and the chain rows are c1 itself.
    RnsPoly c1;
    if (raised_) {
        mod_down_one(ctx, basis, level, acc1_, c1);
    } else {
        c1 = RnsPoly::uninit(level, n);
        std::copy(acc1_.data.begin(), acc1_.data.begin() + level * n, c1.data.begin());
    }
    // The new accumulator is written apart and swapped in at the end, so a step that fails
    // (out of memory) leaves the chain as it was.
    StreamedKeyProducts products(ctx, *key_, c1, level);
    RnsPoly next0 = RnsPoly::uninit(acc0_.rows, n), next1 = RnsPoly::uninit(acc1_.rows, n);
    Words k0(n), k1(n);
    for (size_t r = 0; r < products.extended().size(); ++r) {
        products.row(r, k0.data(), k1.data(), acc0_.row(r));
        // (sigma(c0 + k0), sigma(k1)) as a rotation builds it (galois.h), over every row, and
        // the term added on the chain rows (a term over Q is raised with zero special rows).
        permute_row(*perm_, k0.data(), next0.row(r), ctx.simd());
        permute_row(*perm_, k1.data(), next1.row(r), ctx.simd());
        if (r < level) {
            add_row(ctx.prime(r), x.c0_.row(r), next0.row(r), n);
            add_row(ctx.prime(r), x.c1_.row(r), next1.row(r), n);
        }
    }
    std::swap(acc0_, next0);
    std::swap(acc1_, next1);
    raised_ = true;
    const double switched =
        log2_add(proto_.log2_noise_, ctx.log2_keyswitch_noise(level, basis, key_->log2_error));
    proto_.log2_noise_ = log2_add(switched, x.log2_noise_);
}

Ctxt HornerChain::result() const {
    const Context& ctx = *proto_.ctx_;
    Ctxt out(proto_.ctx_, proto_.key_id_, proto_.level_);
    out.factor_ = proto_.factor_;
    out.log2_noise_ = proto_.log2_noise_;
    const size_t n = ctx.n();
    mod_down(
        ctx, ctx.switch_basis(key_->derived), proto_.level_,
        [&](size_t r, u64* o0, u64* o1) {
            std::copy(acc0_.row(r), acc0_.row(r) + n, o0);
            std::copy(acc1_.row(r), acc1_.row(r) + n, o1);
        },
        out.c0_, out.c1_);
    return out;
}

}  // namespace helib
