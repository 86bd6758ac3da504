#include "keys.h"

#include <cstring>

#include "rns_kernels.h"

namespace helib {

std::vector<int32_t> sample_ternary(Prng& prng, size_t n) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = prng.ternary();
    return v;
}

std::vector<int32_t> sample_error(Prng& prng, size_t n) {
    std::vector<int32_t> v(n);
    prng.centered_binomial_row(v.data(), n);
    return v;
}

size_t KeySwitchKey::size_bytes() const {
    size_t total = sizeof(*this);
    for (const auto& p : b) total += p.data.size() * sizeof(u64);
    for (const auto& p : a) total += p.data.size() * sizeof(u64);
    return total;
}

SecKey::SecKey(std::shared_ptr<const Context> ctx) : ctx_(std::move(ctx)) {
    Prng prng(os_seed());
    id_ = prng.next_u64() | 1;  // never 0
    s_ = sample_ternary(prng, ctx_->n());
    s_ntt_ = small_to_ntt(*ctx_, s_, extended_basis(*ctx_, ctx_->num_chain()));
}

KeySwitchKey SecKey::make_switch_key(const RnsPoly& target, const RnsPoly* under) const {
    const Context& ctx = *ctx_;
    const size_t n = ctx.n();
    const Basis full = extended_basis(ctx, ctx.num_chain());
    const RnsPoly& s = under ? *under : s_ntt_;
    KeySwitchKey key;
    key.seed = os_seed();
    Prng noise(os_seed());
    for (size_t j = 0; j < ctx.num_digits(); ++j) {
        Prng expand(key.seed, j);
        RnsPoly a = sample_uniform(ctx, expand, full);
        RnsPoly b = small_to_ntt(ctx, sample_error(noise, n), full);  // e, then b in place
        for (size_t r = 0; r < full.size(); ++r) {
            const size_t pi = full[r];
            const u64 q = ctx.prime(pi);
            const Barrett& br = ctx.ntt(pi).barrett();
            const bool in_digit = pi < ctx.num_chain() && pi >= ctx.digit_begin(j) && pi < ctx.digit_end(j);
            // b = t e + gain target - a s, as t e - (q - gain) target - a s in one pass.
            const u64 neg_gain = in_digit ? neg_mod(ctx.p_special_mod_q(pi), q) : 0;
            row_switch_key_b(b.row(r), ctx.t_mod(pi), target.row(r), neg_gain, a.row(r), s.row(r), n, br,
                             ctx.simd());
        }
        key.a.push_back(std::move(a));
        key.b.push_back(std::move(b));
    }
    return key;
}

PubKey::PubKey(const SecKey& sk) : ctx_(sk.context()), id_(sk.id()) {
    const Context& ctx = *ctx_;
    const size_t L = ctx.num_chain();
    const Basis chain = chain_basis(ctx, L);
    Prng prng(os_seed());
    a_ = sample_uniform(ctx, prng, chain);
    RnsPoly e = small_to_ntt(ctx, sample_error(prng, ctx.n()), chain);
    b_ = RnsPoly(L, ctx.n());
    for (size_t r = 0; r < L; ++r) {
        const u64 q = ctx.prime(r);
        const Barrett& br = ctx.ntt(r).barrett();
        const u64 t = ctx.t_mod(r);
        for (size_t k = 0; k < ctx.n(); ++k)
            b_.row(r)[k] = sub_mod(br.mul(t, e.row(r)[k]), br.mul(a_.row(r)[k], sk.s_ntt().row(r)[k]), q);
    }
    // Relinearization: switch from s^2 to s.
    const Basis full = extended_basis(ctx, L);
    RnsPoly s2 = sk.s_ntt();
    mul_inplace(ctx, full, s2, sk.s_ntt());
    relin_ = sk.make_switch_key(s2);
}

size_t PubKey::size_bytes() const {
    return sizeof(*this) + (b_.data.size() + a_.data.size()) * sizeof(u64) + relin_.size_bytes();
}

}  // namespace helib
