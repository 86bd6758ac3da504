#include "scheme/keys.h"

#include <cstring>

#include "math/rns_kernels.h"
#include "scheme/errors.h"
#include "scheme/wipe.h"

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

namespace {

// The levels a key of `derived` kind serving `levels` (0: all) has, checked.
size_t key_levels(const Context& ctx, bool derived, size_t levels) {
    const size_t top = ctx.switch_basis(derived).max_level;
    if (levels == 0) return top;
    if (levels > top)
        throw InvalidArgument("a key-switching key for " + std::to_string(levels) + " levels (this basis has " +
                              std::to_string(top) + ")");
    return levels;
}

}  // namespace

Basis key_rows(const Context& ctx, bool derived, size_t levels) {
    return extended_basis(key_levels(ctx, derived, levels), ctx.switch_basis(derived).special);
}

size_t key_digits(const Context& ctx, bool derived, size_t levels) {
    const size_t top = key_levels(ctx, derived, levels);
    size_t count = 0;
    while (count < ctx.num_digits() && ctx.digit_begin(count) < top) ++count;
    return count;
}

void check_key_level(const Context& ctx, const KeySwitchKey& key, size_t level) {
    if (level <= key.levels) return;
    if (key.derived && key.levels == ctx.derivation_level())
        throw LevelError("a derived Galois key serves levels up to " + std::to_string(key.levels) +
                         ", and the ciphertext is at level " + std::to_string(level) + " (switch it down first)");
    throw LevelError("this key was made for levels up to " + std::to_string(key.levels) +
                     ", and the ciphertext is at level " + std::to_string(level) +
                     " (switch it down first, or generate the key for more levels)");
}

RnsPoly expand_switch_key_a(const Context& ctx, const Seed& seed, size_t j, bool derived, size_t levels) {
    Prng expand(seed, j, kPublicRounds);
    return sample_uniform(ctx, expand, key_rows(ctx, derived, levels));
}

RnsPoly expand_public_a(const Context& ctx, const Seed& seed) {
    Prng expand(seed, 0, kPublicRounds);
    return sample_uniform(ctx, expand, chain_basis(ctx, ctx.fresh_level()));
}

SecKey::SecKey(std::shared_ptr<const Context> ctx) : ctx_(std::move(ctx)) {
    if (ctx_->parties() > 1)
        throw InvalidArgument("this context is for a key shared by " + std::to_string(ctx_->parties()) +
                              " parties: each makes a key share (SecKey::share)");
    Prng prng = os_prng();
    id_ = prng.next_u64() | 1;  // never 0
    s_ = sample_ternary(prng, ctx_->n());
    s_ntt_ = small_to_ntt(*ctx_, s_, extended_basis(*ctx_, ctx_->num_chain()));
}

SecKey::SecKey(std::shared_ptr<const Context> ctx, const Seed& seed)
    : ctx_(std::move(ctx)), seeded_(true), seed_(seed) {
    if (ctx_->parties() > 1)
        throw InvalidArgument("this context is for a key shared by " + std::to_string(ctx_->parties()) +
                              " parties: each makes a key share (SecKey::share)");
    Prng prng(key_seed(kRelinLabel, 0xffff));
    id_ = prng.next_u64() | 1;
    s_ = sample_ternary(prng, ctx_->n());
    s_ntt_ = small_to_ntt(*ctx_, s_, extended_basis(*ctx_, ctx_->num_chain()));
}

SecKey SecKey::share(std::shared_ptr<const Context> ctx, const Seed& crs) {
    if (ctx->parties() < 2)
        throw InvalidArgument("a key share needs a context for 2 or more parties (this one is for one owner)");
    Prng prng = os_prng();
    const uint64_t party = prng.next_u64() | 1;
    SecKey sk(ctx, joint_id(crs), sample_ternary(prng, ctx->n()));
    sk.share_ = true;
    sk.party_ = party;
    sk.crs_ = crs;
    return sk;
}

uint64_t SecKey::joint_id(const Seed& crs) {
    // A stream of its own, apart from every key's (key_seed: label << 16 | part < 2^62).
    Prng derive(crs, uint64_t(1) << 63, kPublicRounds);
    return derive.next_u64() | 1;
}

void SecKey::require_whole(const char* what) const {
    if (share_)
        throw InvalidArgument(std::string(what) +
                              " needs the whole secret key, and this is one party's share of it "
                              "(the parties decrypt together: decryption shares)");
}

Seed SecKey::key_seed(uint64_t label, uint64_t part) const {
    if (share_) {
        // Part 0 seeds a key's uniform part: common to the parties, from the common string.
        // Every other part (errors) is the party's own.
        if (part != 0) return os_seed();
        Prng derive(crs_, label << 16, kPublicRounds);
        Seed out;
        for (size_t i = 0; i < out.size(); i += 4) {
            const uint32_t w = derive.next_u32();
            std::memcpy(out.data() + i, &w, 4);
        }
        return out;
    }
    if (!seeded_) return os_seed();
    // One ChaCha20 stream per (label, part): labels are Galois elements (< 2^40 for any ring
    // here) and parts below 2^16, so the stream numbers never collide.
    Prng derive(seed_, (label << 16) | part);
    Seed out;
    for (size_t i = 0; i < out.size(); i += 4) {
        const uint32_t w = derive.next_u32();
        std::memcpy(out.data() + i, &w, 4);
    }
    return out;
}

SecKey::SecKey(std::shared_ptr<const Context> ctx, uint64_t id, std::vector<int32_t> s)
    : ctx_(std::move(ctx)), id_(id), s_(std::move(s)) {
    s_ntt_ = small_to_ntt(*ctx_, s_, extended_basis(*ctx_, ctx_->num_chain()));
}

SecKey::~SecKey() {
    secure_wipe(s_);
    secure_wipe(s_ntt_.data);
    secure_wipe(seed_.data(), seed_.size());
}

KeySwitchKey SecKey::make_switch_key(const RnsPoly& target, const RnsPoly* under, uint64_t label,
                                     bool derived, size_t levels) const {
    const Context& ctx = *ctx_;
    const size_t n = ctx.n();
    const SwitchBasis& basis = ctx.switch_basis(derived);
    // Rows below `top` carry P^-1 and the digits' gains; the rest are P's.
    const size_t top = basis.max_level;
    const Basis full = key_rows(ctx, derived, levels);
    // target and s have a row for every prime, in prime order.
    const RnsPoly& s = under ? *under : s_ntt_;
    KeySwitchKey key;
    key.derived = derived;
    key.levels = levels == 0 ? top : levels;
    key.log2_error = ctx.log2_error_norm();
    // A derived-form key draws its randomness apart from the ordinary key of the same label.
    const uint64_t stream = derived ? label | kDerivedLabelBit : label;
    key.seed = key_seed(stream, 0);
    Prng noise(key_seed(stream, 1));
    // Row by row, so each row's a, e and b are combined while still in cache; a is drawn as
    // expand_switch_key_a draws it (the same stream, row by row), which reading a key relies on.
    for (size_t j = 0; j < key_digits(ctx, derived, levels); ++j) {
        Prng expand(key.seed, j, kPublicRounds);
        std::vector<int32_t> e = sample_error(noise, n);
        const SmallRows te(ctx, e, SmallScale::plaintext_modulus);
        RnsPoly a = RnsPoly::uninit(full.size(), n), b = RnsPoly::uninit(full.size(), n);
        for (size_t r = 0; r < full.size(); ++r) {
            const size_t pi = full[r];
            const u64 q = ctx.prime(pi);
            const bool chain = pi < top;
            expand.uniform_row(a.row(r), n, q);
            te.ntt_row(pi, b.row(r), chain ? basis.P_inv_mod_q[pi] : 1);
            // b = t e + gain target - a s, as t e - (q - gain) target - a s in one pass; the gain
            // is 0 outside the digit's own primes and P P^-1 = 1 on them (chain rows times P^-1).
            const bool in_digit = chain && pi >= ctx.digit_begin(j) && pi < ctx.digit_end(j);
            const u64 neg_gain = in_digit ? q - 1 : 0;
            row_switch_key_b(b.row(r), target.row(pi), neg_gain, a.row(r), s.row(pi), n, ctx.ntt(pi).barrett(),
                             ctx.simd());
        }
        key.a.push_back(std::move(a));
        key.b.push_back(std::move(b));
        secure_wipe(e);
    }
    return key;
}

PubKey::PubKey(const SecKey& sk) : ctx_(sk.context()), id_(sk.id()), share_(sk.is_share()) {
    const Context& ctx = *ctx_;
    const size_t L = ctx.fresh_level();
    const Basis chain = chain_basis(ctx, L);
    a_seed_ = sk.key_seed(SecKey::kPublicLabel, 0);
    Prng prng(sk.key_seed(SecKey::kPublicLabel, 1));
    a_ = expand_public_a(ctx, a_seed_);
    // e with b and a gives s: its coefficients are wiped once they are in b.
    std::vector<int32_t> e = sample_error(prng, ctx.n());
    const WipeOnExit<std::vector<int32_t>> wipe_e(e);
    b_ = small_to_ntt(ctx, e, chain, SmallScale::plaintext_modulus);
    for (size_t r = 0; r < L; ++r)
        row_switch_key_b(b_.row(r), nullptr, 0, a_.row(r), sk.s_ntt().row(r), ctx.n(), ctx.ntt(r).barrett(),
                         ctx.simd());
    // A share's s^2 is no share of the joint s^2: the joint relinearization key takes a
    // protocol of its own (threshold.h).
    if (sk.is_share()) return;
    // Relinearization: switch from s^2 to s (over every prime: products run up to the top).
    const Basis full = extended_basis(ctx, ctx.num_chain());
    RnsPoly s2 = sk.s_ntt();
    mul_inplace(ctx, full, s2, sk.s_ntt());
    relin_ = sk.make_switch_key(s2, nullptr, SecKey::kRelinLabel);
    secure_wipe(s2.data);
}

size_t PubKey::size_bytes() const {
    return sizeof(*this) + (b_.data.size() + a_.data.size()) * sizeof(u64) + relin_.size_bytes();
}

}  // namespace helib
