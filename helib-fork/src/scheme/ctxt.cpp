#include "scheme/ctxt.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "math/crt_mod_p.h"
#include "scheme/errors.h"
#include "scheme/key_switch.h"
#include "scheme/noise.h"
#include "math/rns_kernels.h"
#include "scheme/rotated_sum.h"
#include "serialization/serialize.h"
#include "scheme/wipe.h"

namespace helib {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double log2_abs(const NTL::ZZ& x) {
    if (NTL::IsZero(x)) return kNegInf;
    return NTL::log(NTL::abs(x)) / std::log(2.0);
}

// Noise bounds below 1 carry no meaning; clamp so budgets stay finite.
double clamp_noise(double x) { return std::max(x, 0.0); }

}  // namespace

NTL::ZZ centered_mod(const NTL::ZZ& x, const Context& ctx) {
    NTL::ZZ r = x % ctx.p();
    if (r > ctx.half_p()) r -= ctx.p();
    return r;
}

Ctxt::Ctxt(std::shared_ptr<const Context> ctx, uint64_t key_id, size_t level)
    : ctx_(std::move(ctx)), key_id_(key_id), level_(level), log2_noise_(0), factor_(1) {}

Ctxt Ctxt::encrypt(const PubKey& pk, const u64* coeffs, size_t num) {
    if (pk.is_share())
        throw InvalidArgument("a party's public key share encrypts nothing: combine the parties' shares");
    const Context& ctx = *pk.context();
    const size_t L = ctx.fresh_level(), n = ctx.n();
    const Basis chain = chain_basis(ctx, L);
    Prng prng = os_prng();
    std::vector<int32_t> u_small = sample_ternary(prng, n);
    const WipeOnExit<std::vector<int32_t>> wipe_u_small(u_small);
    RnsPoly u = small_to_ntt(ctx, u_small, chain);
    std::vector<int32_t> e0 = sample_error(prng, n), e1 = sample_error(prng, n);

    // c0 = b u + (p e0 + m), c1 = a u + p e1: the message joins e0 before the NTT, which
    // saves one transform per prime.
    Ctxt c(pk.context(), pk.id(), L);
    c.c0_ = plaintext_to_coeffs(ctx, coeffs, num, chain, nullptr);
    c.c1_ = RnsPoly(L, n);
    for (size_t r = 0; r < L; ++r) {
        const u64 q = ctx.prime(r), t = ctx.t_mod(r), tp = shoup_precompute(t, q);
        u64 *c0 = c.c0_.row(r), *c1 = c.c1_.row(r);
        for (size_t k = 0; k < n; ++k) {
            c0[k] = add_mod(c0[k], small_mul_mod(e0[k], t, tp, q), q);
            c1[k] = small_mul_mod(e1[k], t, tp, q);
        }
        ctx.ntt(r).forward(c0);
        ctx.ntt(r).forward(c1);
        const Barrett& br = ctx.ntt(r).barrett();
        row_mul_add(c0, pk.b().row(r), u.row(r), n, br, ctx.simd());
        row_mul_add(c1, pk.a().row(r), u.row(r), n, br, ctx.simd());
    }
    // The bound for any message (never this one's norm), so the bytes say nothing about it.
    c.log2_noise_ = ctx.log2_fresh_bound();
    // The encryption randomness would reveal the message: wipe it.
    secure_wipe(u.data);
    secure_wipe(e0);
    secure_wipe(e1);
    return c;
}

void Ctxt::encrypt_symmetric(Writer& w, const SecKey& sk, const u64* coeffs, size_t num) {
    sk.require_whole("secret-key encryption");
    const Context& ctx = *sk.context();
    const size_t L = ctx.fresh_level(), n = ctx.n();
    const Basis chain = chain_basis(ctx, L);
    const Seed a_seed = os_seed();
    Prng expand(a_seed, 0, kPublicRounds);
    Prng noise = os_prng();
    std::vector<int32_t> e = sample_error(noise, n);

    // c1 is never stored: each row of a is drawn into scratch (in row order, as
    // expand_public_a draws them again when the bytes are read), used for c0 and dropped.
    Ctxt c(sk.context(), sk.id(), L);
    c.c0_ = plaintext_to_coeffs(ctx, coeffs, num, chain, nullptr);
    std::vector<u64> a(n);
    for (size_t r = 0; r < L; ++r) {
        const u64 q = ctx.prime(r), t = ctx.t_mod(r), tp = shoup_precompute(t, q);
        u64* c0 = c.c0_.row(r);
        for (size_t k = 0; k < n; ++k) c0[k] = add_mod(c0[k], small_mul_mod(e[k], t, tp, q), q);
        ctx.ntt(r).forward(c0);
        expand.uniform_row(a.data(), n, q);
        row_switch_key_b(c0, nullptr, 0, a.data(), sk.s_ntt().row(r), n, ctx.ntt(r).barrett(), ctx.simd());
    }
    c.log2_noise_ = ctx.log2_fresh_bound_symmetric();
    c.save_fields(w, ObjectKind::seeded_ciphertext);
    w.words(c.c0_.data.data(), c.c0_.data.size());
    secure_wipe(e);
    w.bytes(a_seed.data(), a_seed.size());
}

void Ctxt::raw_phase(const SecKey& sk, RnsPoly& v, const u64* row_scale) const {
    const Context& ctx = *ctx_;
    if (sk.context() != ctx_) throw Mismatch("secret key and ciphertext belong to different contexts");
    if (sk.id() != key_id_) throw Mismatch("ciphertext was not encrypted under this secret key");
    sk.require_whole("decryption");
    v = RnsPoly::uninit(level_, ctx.n());
    for (size_t r = 0; r < level_; ++r) {
        row_mul_add_to(v.row(r), c1_.row(r), sk.s_ntt().row(r), c0_.row(r), ctx.n(), ctx.ntt(r).barrett(),
                       ctx.simd());
        if (row_scale)
            ctx.ntt(r).inverse_scaled(v.row(r), row_scale[r]);
        else
            ctx.ntt(r).inverse(v.row(r));
    }
}

void Ctxt::decrypt(const SecKey& sk, u64* out) const {
    const Context& ctx = *ctx_;
    if (noise_budget() <= 0) {
        const std::string bound = std::isinf(log2_noise_)
                                      ? std::string("unbounded (the budget ran out earlier)")
                                      : "2^" + std::to_string(std::llround(std::min(log2_noise_, 1e15)));
        throw NoiseBudgetExhausted("tracked noise bound " + bound +
                                   " against a modulus of 2^" +
                                   std::to_string(static_cast<int>(log2_modulus())) +
                                   "; decryption would not be reliable");
    }
    // The rows come out as y_i = [v_i (Q/q_i)^-1]_{q_i}, the form reconstruct_mod_p takes.
    // The phase is the plaintext plus p times the noise: as secret as the plaintext.
    RnsPoly v;
    const WipeOnExit<decltype(v.data)> wipe_phase(v.data);
    raw_phase(sk, v, ctx.crt(level_).punct_inv.data());
    const NTL::ZZ scale = NTL::IsOne(factor_) ? NTL::ZZ(1) : NTL::InvMod(factor_, ctx.p());
    // The phase must respect the tracked bound (twice it, for the bound's tail): a ciphertext whose
    // noise field was lowered after the fact is refused here even where its phase has not wrapped.
    // Double precision resolves ratios down to about 2^-45 of Q, below which nothing is checked.
    const double max_ratio = std::max(std::exp2(log2_noise_ + 1.0 - log2_modulus()), 0x1p-40);
    reconstruct_mod_p(ctx, level_, v, scale, out, max_ratio);
}

double Ctxt::measure_noise(const SecKey& sk) const {
    const Context& ctx = *ctx_;
    RnsPoly v;
    const WipeOnExit<decltype(v.data)> wipe_phase(v.data);
    raw_phase(sk, v);
    const size_t l = level_;
    const LevelCrt& crt = ctx.crt(l);
    std::vector<NTL::ZZ> punct(l);
    for (size_t i = 0; i < l; ++i) punct[i] = crt.q / ctx.prime(i);
    const NTL::ZZ half_q = crt.q / 2;
    NTL::ZZ acc, term, max_abs;
    for (size_t k = 0; k < ctx.n(); ++k) {
        acc = 0;
        for (size_t i = 0; i < l; ++i) {
            const u64 yi = mul_shoup(v.row(i)[k], crt.punct_inv[i], crt.punct_inv_shoup[i], ctx.prime(i));
            NTL::mul(term, punct[i], NTL::conv<NTL::ZZ>(yi));
            acc += term;
        }
        acc %= crt.q;
        if (acc > half_q) acc -= crt.q;
        NTL::abs(acc, acc);
        if (acc > max_abs) max_abs = acc;
    }
    return NTL::IsZero(max_abs) ? 0.0 : NTL::log(max_abs) / std::log(2.0);
}

void Ctxt::check_compatible(const Ctxt& other) const {
    if (other.ctx_ != ctx_) throw Mismatch("ciphertexts belong to different contexts");
    if (other.key_id_ != key_id_) throw Mismatch("ciphertexts were encrypted under different keys");
}

void Ctxt::check_key(const PubKey& pk) const {
    if (pk.context() != ctx_) throw Mismatch("key and ciphertext belong to different contexts");
    if (pk.id() != key_id_) throw Mismatch("key does not belong to the ciphertext's secret key");
    if (pk.is_share()) throw InvalidArgument("a party's public key share is no key to compute with: combine the shares");
}

void Ctxt::check_galois_keys(const GaloisKeys& keys) const {
    if (keys.context() != ctx_) throw Mismatch("Galois keys and ciphertext belong to different contexts");
    if (keys.id() != key_id_) throw Mismatch("Galois keys do not belong to the ciphertext's secret key");
    if (keys.is_share()) throw InvalidArgument("a party's Galois key share rotates nothing: combine the shares");
}

void Ctxt::apply_galois(uint64_t g, const GaloisKeys& keys) {
    check_galois_keys(keys);
    check_galois_element(*ctx_, g);
    if (g == 1) return;
    *this = galois_image(g, keys, nullptr);
}

Ctxt Ctxt::galois_image(uint64_t g, const GaloisKeys& keys, const Decomposition* d) const {
    const Context& ctx = *ctx_;
    // (sigma(c0 + k0), sigma(k1)) with (k0, k1) the key switch of c1 to sigma^-1(s) (galois.h),
    // built from its parts: no copy of this ciphertext first.
    Ctxt c(ctx_, key_id_, level_);
    c.factor_ = factor_;
    const Epilogue finish{&c0_, nullptr, &keys.permutation(g)};
    if (d == nullptr)
        key_switch(ctx, keys.key(g), c1_, level_, c.c0_, c.c1_, finish);
    else
        apply_switch_key(ctx, keys.key(g), *d, c.c0_, c.c1_, finish);
    const KeySwitchKey& key = keys.key(g);
    c.log2_noise_ = log2_add(log2_noise_, ctx.log2_keyswitch_noise(level_, ctx.switch_basis(key.derived), key.log2_error));
    return c;
}

GaloisBatch::GaloisBatch(const Ctxt& ct, const std::vector<uint64_t>& elements, const GaloisKeys& keys)
    : ct_(ct), keys_(keys), elements_(elements) {
    ct.check_galois_keys(keys);
    const Context& ctx = *ct.ctx_;
    std::vector<const KeySwitchKey*> switch_keys;
    for (uint64_t g : elements) {
        check_galois_element(ctx, g);
        if (g == 1) throw InvalidArgument("a Galois batch takes elements other than 1");
        check_key_level(ctx, keys.key(g), ct.level_);  // every key present and usable before any work
        switch_keys.push_back(&keys.key(g));
    }
    batch_ = std::make_unique<SwitchBatch>(ctx, std::move(switch_keys), ct.c1_, ct.level_);
}

GaloisBatch::~GaloisBatch() = default;

void GaloisBatch::lift_rows(size_t part, size_t parts) { batch_->lift_rows(part, parts); }

Ctxt GaloisBatch::image(size_t k) const {
    if (k >= elements_.size()) throw InvalidArgument("an image of a Galois batch out of range");
    const uint64_t g = elements_[k];
    const Context& ctx = *ct_.ctx_;
    // As galois_image: (sigma(c0 + k0), sigma(k1)), built from the key switch's parts.
    Ctxt c(ct_.ctx_, ct_.key_id_, ct_.level_);
    c.factor_ = ct_.factor_;
    batch_->finish(k, c.c0_, c.c1_, Epilogue{&ct_.c0_, nullptr, &keys_.permutation(g)});
    const KeySwitchKey& key = keys_.key(g);
    c.log2_noise_ =
        log2_add(ct_.log2_noise_, ctx.log2_keyswitch_noise(ct_.level_, ctx.switch_basis(key.derived), key.log2_error));
    return c;
}

std::vector<Ctxt> Ctxt::apply_galois_many(const std::vector<uint64_t>& elements, const GaloisKeys& keys) const {
    check_galois_keys(keys);
    const Context& ctx = *ctx_;
    for (uint64_t g : elements) {
        check_galois_element(ctx, g);
        if (g != 1) check_key_level(ctx, keys.key(g), level_);  // every key present and usable before any work
    }
    // One rotation streams its key switch row by row instead (2-5% faster than decomposing
    // first, and no digits held), which makes this the out-of-place rotation.
    const bool one = elements.size() == 1;
    const Decomposition d = one ? Decomposition{} : decompose(ctx, c1_, level_, keys.derived());
    std::vector<Ctxt> out;
    out.reserve(elements.size());
    // Not `g == 1 ? *this : galois_image(..)`: that conditional's type is const Ctxt, so every
    // image would be copied into the vector instead of moved.
    for (uint64_t g : elements) {
        if (g == 1)
            out.push_back(*this);
        else
            out.push_back(galois_image(g, keys, one ? nullptr : &d));
    }
    return out;
}

Ctxt Ctxt::rotated_inner_product(const std::vector<uint64_t>& elements, const std::vector<const EncodedPtxt*>& pts,
                                 const GaloisKeys& keys) const {
    if (elements.empty()) throw InvalidArgument("rotated inner product of zero terms");
    if (elements.size() != pts.size())
        throw InvalidArgument("rotated inner product needs one plaintext per Galois element (" +
                              std::to_string(elements.size()) + " vs " + std::to_string(pts.size()) + ")");
    check_galois_keys(keys);
    if (keys.derived())
        throw InvalidArgument("the rotated inner product takes ordinary Galois keys, not derived ones "
                              "(rotate with apply_galois_many and take the inner product instead)");
    const Context& ctx = *ctx_;
    const double switched_noise = log2_add(log2_noise_, ctx.log2_keyswitch_product_noise(level_));
    std::vector<RotatedTerm> terms(elements.size());
    double log2_noise = kNegInf;
    bool any_switch = false;
    // Every check before any work.
    for (size_t i = 0; i < elements.size(); ++i) {
        const uint64_t g = elements[i];
        const EncodedPtxt& pt = *pts[i];
        check_galois_element(ctx, g);
        if (pt.context() != ctx_) throw Mismatch("plaintext " + std::to_string(i) + " belongs to a different context");
        if (pt.level() < level_)
            throw InvalidArgument("plaintext " + std::to_string(i) + " is encoded below the ciphertext's level");
        terms[i].pt = &pt;
        double term_noise = log2_noise_;
        if (g != 1) {
            if (!pt.extended())
                throw InvalidArgument("plaintext " + std::to_string(i) +
                                      " lacks the special-prime rows a product before the mod-down needs "
                                      "(encode it extended)");
            terms[i].key = &keys.key(g);
            check_key_level(ctx, *terms[i].key, level_);
            terms[i].perm = &keys.permutation(g);
            term_noise = switched_noise;
            any_switch = true;
        }
        if (pt.log2_norm() != kNegInf) log2_noise = log2_add(log2_noise, term_noise + pt.log2_norm());
    }
    if (!any_switch) return inner_product(std::vector<const Ctxt*>(pts.size(), this), pts);
    Ctxt out(ctx_, key_id_, level_);
    out.factor_ = factor_;
    rotated_sum(ctx, decompose(ctx, c1_, level_), c0_, c1_, terms, out.c0_, out.c1_);
    out.log2_noise_ = clamp_noise(log2_add(log2_noise, ctx.log2_moddown_floor()));
    return out;
}

void Ctxt::rows_scalar(const NTL::ZZ& k) {
    const Context& ctx = *ctx_;
    std::vector<u64> s(level_);
    for (size_t i = 0; i < level_; ++i) s[i] = zz_mod_u64(k, ctx.prime(i));
    const Basis chain = chain_basis(ctx, level_);
    mul_scalar_inplace(ctx, chain, c0_, s);
    mul_scalar_inplace(ctx, chain, c1_, s);
}

void Ctxt::scale_by(const NTL::ZZ& r) {
    const NTL::ZZ k = centered_mod(r, *ctx_);
    rows_scalar(k);
    log2_noise_ = clamp_noise(log2_noise_ + std::max(0.0, log2_abs(k)));
}

void Ctxt::add_or_sub(const Ctxt& other_in, bool subtract) {
    check_compatible(other_in);
    // Work on a copy of the other operand only when it has to change (level or factor).
    std::optional<Ctxt> copy;
    const Ctxt* other = &other_in;
    if (other_in.level_ > level_) {
        copy.emplace(other_in);
        copy->mod_switch_to(level_);
        other = &*copy;
    } else if (level_ > other_in.level_) {
        mod_switch_to(other_in.level_);
    }
    if (other->factor_ != factor_) {
        // Bring both to one factor, scaling the operand with the smaller noise.
        const NTL::ZZ& p = ctx_->p();
        if (!copy) {
            copy.emplace(other_in);
            other = &*copy;
        }
        if (copy->log2_noise_ <= log2_noise_) {
            copy->scale_by(NTL::MulMod(factor_, NTL::InvMod(copy->factor_, p), p));
            copy->factor_ = factor_;
        } else {
            scale_by(NTL::MulMod(copy->factor_, NTL::InvMod(factor_, p), p));
            factor_ = copy->factor_;
        }
    }
    const Basis chain = chain_basis(*ctx_, level_);
    if (subtract) {
        sub_inplace(*ctx_, chain, c0_, other->c0_);
        sub_inplace(*ctx_, chain, c1_, other->c1_);
    } else {
        add_inplace(*ctx_, chain, c0_, other->c0_);
        add_inplace(*ctx_, chain, c1_, other->c1_);
    }
    log2_noise_ = log2_add(log2_noise_, other->log2_noise_);
}

void Ctxt::add(const Ctxt& other) { add_or_sub(other, false); }
void Ctxt::sub(const Ctxt& other) { add_or_sub(other, true); }

void Ctxt::negate() {
    const Basis chain = chain_basis(*ctx_, level_);
    negate_inplace(*ctx_, chain, c0_);
    negate_inplace(*ctx_, chain, c1_);
}

void Ctxt::add_const(const NTL::ZZ& k) {
    const Context& ctx = *ctx_;
    const NTL::ZZ v = centered_mod(k * factor_, ctx);
    for (size_t i = 0; i < level_; ++i) {
        const u64 q = ctx.prime(i), vi = zz_mod_u64(v, q);
        u64* row = c0_.row(i);
        for (size_t x = 0; x < ctx.n(); ++x) row[x] = add_mod(row[x], vi, q);
    }
    log2_noise_ = log2_add(log2_noise_, log2_abs(v));
}

void Ctxt::mul_const(const NTL::ZZ& k) {
    const NTL::ZZ kc = centered_mod(k, *ctx_);
    rows_scalar(kc);
    log2_noise_ = NTL::IsZero(kc) ? 0.0 : clamp_noise(log2_noise_ + log2_abs(kc));
}

void Ctxt::add_poly(const u64* coeffs, size_t num) {
    const Context& ctx = *ctx_;
    const Basis chain = chain_basis(ctx, level_);
    // The plaintext may be the owner's: its rows and centered form are wiped however this ends.
    std::vector<double> centered;
    RnsPoly m;
    const WipeOnExit<std::vector<double>> wipe_centered(centered);
    const WipeOnExit<decltype(m.data)> wipe_m(m.data);
    if (NTL::IsOne(factor_)) {
        m = plaintext_to_ntt(ctx, coeffs, num, chain, &centered);
    } else {
        // The plaintext must carry the ciphertext's factor.
        const size_t w = ctx.p_limbs();
        if (num > ctx.n()) throw InvalidArgument("polynomial has more coefficients than the ring degree N");
        std::vector<u64> scaled(num * w);
        const WipeOnExit<std::vector<u64>> wipe_scaled(scaled);
        for (size_t k = 0; k < num; ++k) {
            const NTL::ZZ c = zz_from_limbs(coeffs + k * w, w);
            if (c >= ctx.p()) throw InvalidArgument("plaintext coefficient " + std::to_string(k) + " is not below p");
            zz_to_limbs(NTL::MulMod(c, factor_, ctx.p()), scaled.data() + k * w, w);
        }
        m = plaintext_to_ntt(ctx, scaled.data(), num, chain, &centered);
    }
    add_inplace(ctx, chain, c0_, m);
    log2_noise_ = log2_add(log2_noise_, ctx.log2_canonical_norm(centered));
}

void Ctxt::mul_poly(const u64* coeffs, size_t num) {
    const Context& ctx = *ctx_;
    const Basis chain = chain_basis(ctx, level_);
    std::vector<double> centered;
    RnsPoly m = plaintext_to_ntt(ctx, coeffs, num, chain, &centered);
    mul_inplace(ctx, chain, c0_, m);
    mul_inplace(ctx, chain, c1_, m);
    const double norm = ctx.log2_canonical_norm(centered);
    log2_noise_ = norm == kNegInf ? 0.0 : clamp_noise(log2_noise_ + norm);
}

void Ctxt::check_ptxt(const EncodedPtxt& pt) {
    if (pt.context() != ctx_) throw Mismatch("plaintext and ciphertext belong to different contexts");
    if (pt.level() < level_) mod_switch_to(pt.level());
}

void Ctxt::mul_ptxt(const EncodedPtxt& pt) {
    check_ptxt(pt);
    const Context& ctx = *ctx_;
    RnsPoly expanded;
    const RnsPoly& rows = pt.log_repeat() == 0 ? pt.stored() : (expanded = pt.full());
    for (size_t r = 0; r < level_; ++r) {
        const Barrett& br = ctx.ntt(r).barrett();
        row_mul(c0_.row(r), c0_.row(r), rows.row(r), ctx.n(), br, ctx.simd());
        row_mul(c1_.row(r), c1_.row(r), rows.row(r), ctx.n(), br, ctx.simd());
    }
    log2_noise_ = pt.log2_norm() == kNegInf ? 0.0 : clamp_noise(log2_noise_ + pt.log2_norm());
}

void Ctxt::add_ptxt(const EncodedPtxt& pt, bool subtract) {
    // Switching down would change the plaintext factor, which the check below then refuses:
    // refuse first, so a failed call leaves the ciphertext as it was.
    if (pt.context() == ctx_ && pt.level() < level_)
        throw InvalidArgument("adding a pre-encoded plaintext needs it encoded at the ciphertext's level (" +
                              std::to_string(level_) + ") or above, not " + std::to_string(pt.level()));
    check_ptxt(pt);
    if (!NTL::IsOne(factor_))
        throw InvalidArgument(
            "adding a pre-encoded plaintext needs a ciphertext with plaintext factor 1; this one was "
            "modulus-switched or multiplied (use add_poly, which rescales the plaintext)");
    const Context& ctx = *ctx_;
    RnsPoly expanded;
    const RnsPoly& rows = pt.log_repeat() == 0 ? pt.stored() : (expanded = pt.full());
    for (size_t r = 0; r < level_; ++r) {
        const u64 q = ctx.prime(r);
        u64* x = c0_.row(r);
        const u64* y = rows.row(r);
        for (size_t k = 0; k < ctx.n(); ++k) x[k] = subtract ? sub_mod(x[k], y[k], q) : add_mod(x[k], y[k], q);
    }
    log2_noise_ = log2_add(log2_noise_, pt.log2_norm());
}

Ctxt Ctxt::inner_product(const std::vector<const Ctxt*>& cts, const std::vector<const EncodedPtxt*>& pts) {
    if (cts.empty()) throw InvalidArgument("inner product of zero terms");
    if (cts.size() != pts.size())
        throw InvalidArgument("inner product needs as many plaintexts as ciphertexts (" +
                              std::to_string(cts.size()) + " vs " + std::to_string(pts.size()) + ")");
    const Ctxt& first = *cts[0];
    const Context& ctx = *first.ctx_;
    double log2_noise = kNegInf;
    for (size_t i = 0; i < cts.size(); ++i) {
        const Ctxt& c = *cts[i];
        c.check_compatible(first);
        if (c.level_ != first.level_ || c.factor_ != first.factor_)
            throw InvalidArgument("inner product terms must share one level and plaintext factor (term " +
                                  std::to_string(i) + " differs)");
        if (pts[i]->context() != first.ctx_)
            throw Mismatch("plaintext " + std::to_string(i) + " belongs to a different context");
        if (pts[i]->level() < first.level_)
            throw InvalidArgument("plaintext " + std::to_string(i) + " is encoded below the ciphertexts' level");
        if (pts[i]->log2_norm() != kNegInf) log2_noise = log2_add(log2_noise, c.log2_noise_ + pts[i]->log2_norm());
    }
    Ctxt out(first.ctx_, first.key_id_, first.level_);
    out.factor_ = first.factor_;
    out.log2_noise_ = log2_noise == kNegInf ? 0.0 : clamp_noise(log2_noise);
    // Chunks small enough that both accumulators and the expanded plaintext stay in L1.
    constexpr size_t kChunk = 1024;
    if (ctx.simd() && ctx.n() % 16 == 0) {
        // Accumulators as signed doubles, reduced every fourth term (row_mul_acc2_avx2), the
        // plaintext read once for both products and expanded on the fly. Every output word is
        // written once at the end, so the outputs start uninitialized.
        out.c0_ = RnsPoly::uninit(out.level_, ctx.n());
        out.c1_ = RnsPoly::uninit(out.level_, ctx.n());
        std::vector<double> acc(2 * kChunk);
        for (size_t r = 0; r < out.level_; ++r) {
            const u64 q = ctx.prime(r);
            for (size_t begin = 0; begin < ctx.n(); begin += kChunk) {
                const size_t len = std::min(kChunk, ctx.n() - begin);
                double* acc0 = acc.data();
                double* acc1 = acc.data() + kChunk;
                std::fill(acc.begin(), acc.end(), 0.0);
                for (size_t i = 0; i < cts.size(); ++i) {
                    const EncodedPtxt& pt = *pts[i];
                    const u64* y = pt.stored().row(r) + (begin >> pt.log_repeat());
                    row_mul_acc2_simd(acc0, acc1, cts[i]->c0_.row(r) + begin, cts[i]->c1_.row(r) + begin, y, len,
                                      pt.log_repeat(), i % 4 == 3, q);
                }
                row_store_reduced_simd(out.c0_.row(r) + begin, acc0, len, q);
                row_store_reduced_simd(out.c1_.row(r) + begin, acc1, len, q);
            }
        }
        return out;
    }
    // The portable path accumulates in the outputs themselves, from zero.
    out.c0_ = RnsPoly(out.level_, ctx.n());
    out.c1_ = RnsPoly(out.level_, ctx.n());
    std::vector<u64> pt_buf(kChunk);
    for (size_t r = 0; r < out.level_; ++r) {
        const Barrett& br = ctx.ntt(r).barrett();
        for (size_t begin = 0; begin < ctx.n(); begin += kChunk) {
            const size_t len = std::min(kChunk, ctx.n() - begin);
            u64* acc0 = out.c0_.row(r) + begin;
            u64* acc1 = out.c1_.row(r) + begin;
            for (size_t i = 0; i < cts.size(); ++i) {
                const EncodedPtxt& pt = *pts[i];
                const u64* y = pt.stored().row(r) + begin;
                if (pt.log_repeat() != 0) {
                    pt.expand(r, begin, len, pt_buf.data());
                    y = pt_buf.data();
                }
                row_mul_add(acc0, cts[i]->c0_.row(r) + begin, y, len, br, ctx.simd());
                row_mul_add(acc1, cts[i]->c1_.row(r) + begin, y, len, br, ctx.simd());
            }
        }
    }
    return out;
}

size_t natural_level(const Context& ctx, size_t level, double log2_noise, double* noise_there) {
    size_t l = level;
    double noise = log2_noise;
    while (l > 1) {
        const double after = noise - std::log2(static_cast<double>(ctx.prime(l - 1)));
        if (after < ctx.log2_modswitch_floor() + 2.0) break;
        noise = log2_add(after, ctx.log2_modswitch_floor());
        --l;
    }
    if (noise_there != nullptr) *noise_there = noise;
    return l;
}

std::vector<size_t> stage_levels(const Context& ctx, const std::vector<double>& log2_growth) {
    std::vector<size_t> out;
    // The lower of the two fresh bounds (secret-key encryption's): a noisier input only
    // drops more primes, so the levels planned from the quieter one are never lower.
    double noise = ctx.log2_fresh_bound_symmetric();
    size_t level = ctx.fresh_level();
    for (double growth : log2_growth) {
        if (!(growth >= 0) || growth > 1e4) throw InvalidArgument("a stage's noise growth must be in [0, 10000] bits");
        level = natural_level(ctx, level, noise, &noise);
        out.push_back(level);
        noise = log2_add(noise, ctx.log2_keyswitch_noise(level)) + growth;
    }
    return out;
}

size_t Ctxt::natural_level() const { return helib::natural_level(*ctx_, level_, log2_noise_); }

void Ctxt::mul(const Ctxt& other_in, const PubKey& pk) {
    check_compatible(other_in);
    check_key(pk);
    if (!pk.has_relin_key())
        throw MissingKey("this public key came without its relinearization key (saved as an encryption key), "
                         "which multiplying two ciphertexts needs");
    const Context& ctx = *ctx_;
    const size_t target = std::max(natural_level(), other_in.natural_level());
    const size_t lvl = std::min({target, level_, other_in.level_});
    // Copy the other operand only when it has to be switched down (a square passes itself).
    std::optional<Ctxt> lowered;
    if (other_in.level_ > lvl) {
        lowered.emplace(other_in);
        lowered->mod_switch_to(lvl);
    }
    const Ctxt& other = lowered ? *lowered : other_in;
    if (level_ > lvl) mod_switch_to(lvl);

    const size_t n = ctx.n();
    RnsPoly d0(lvl, n), d1(lvl, n), d2(lvl, n);
    for (size_t r = 0; r < lvl; ++r) {
        const Barrett& br = ctx.ntt(r).barrett();
        const u64 *a0 = c0_.row(r), *a1 = c1_.row(r), *b0 = other.c0_.row(r), *b1 = other.c1_.row(r);
        row_mul(d0.row(r), a0, b0, n, br, ctx.simd());
        row_cross(d1.row(r), a0, b1, a1, b0, n, br, ctx.simd());
        row_mul(d2.row(r), a1, b1, n, br, ctx.simd());
    }
    RnsPoly k0, k1;
    key_switch(ctx, pk.relin_key(), d2, lvl, k0, k1, {&d0, &d1});
    const double other_noise = other.log2_noise_;
    const NTL::ZZ other_factor = other.factor_;
    c0_ = std::move(k0);
    c1_ = std::move(k1);
    // The key's own error bound: a joint relinearization key's is larger than a fresh key's.
    const KeySwitchKey& relin = pk.relin_key();
    log2_noise_ = log2_add(log2_noise_ + other_noise,
                           ctx.log2_keyswitch_noise(lvl, ctx.switch_basis(relin.derived), relin.log2_error));
    factor_ = NTL::MulMod(factor_, other_factor, ctx.p());
}

// mul reads the other operand's rows, noise and factor before overwriting *this (and copies
// it first if it must change level), so squaring needs no copy.
void Ctxt::square(const PubKey& pk) { mul(*this, pk); }

void Ctxt::mod_switch_down() {
    if (level_ <= 1) throw LevelError("ciphertext is at the lowest level: no prime left to drop");
    if (noise_budget() > 0 && lowest_safe_level() == level_)
        throw LevelError("dropping a prime at level " + std::to_string(level_) +
                         " would use up the noise budget, so the plaintext would be lost");
    drop_primes(1);
}

void Ctxt::account_dropped_prime() {
    const Context& ctx = *ctx_;
    const u64 q = ctx.prime(level_ - 1);
    const bool exhausted = noise_budget() <= 0;
    --level_;
    log2_noise_ = exhausted ? kInf
                            : log2_add(log2_noise_ - std::log2(static_cast<double>(q)),
                                       ctx.log2_modswitch_floor());
    factor_ = NTL::MulMod(factor_, NTL::InvMod(NTL::ZZ(q) % ctx.p(), ctx.p()), ctx.p());
}

NTL::ZZ linear_factor(const Context& ctx, size_t level) {
    const NTL::ZZ& p = ctx.p();
    NTL::ZZ dropped(1);
    for (size_t i = level; i < ctx.fresh_level(); ++i) dropped = NTL::MulMod(dropped, NTL::ZZ(ctx.prime(i)) % p, p);
    return NTL::InvMod(dropped, p);
}

void Ctxt::check_factor(FactorRule rule) const {
    const Context& ctx = *ctx_;
    const NTL::ZZ linear = linear_factor(ctx, level_);
    if (factor_ == linear) return;
    if (rule == FactorRule::one_product) {
        for (size_t m = level_; m <= ctx.fresh_level(); ++m)
            if (factor_ == NTL::MulMod(linear, linear_factor(ctx, m), ctx.p())) return;
    }
    throw Mismatch(std::string("the ciphertext's plaintext factor is not one that ") +
                   (rule == FactorRule::linear ? "a linear computation" : "a computation with at most one product") +
                   " gives at level " + std::to_string(level_) + ": its bytes were altered, or it is another computation's");
}

size_t Ctxt::lowest_safe_level() const {
    const Context& ctx = *ctx_;
    size_t l = level_;
    double noise = log2_noise_;
    while (l > 1) {
        const double after =
            log2_add(noise - std::log2(static_cast<double>(ctx.prime(l - 1))), ctx.log2_modswitch_floor());
        if (ctx.log2_q(l - 1) - 1.0 - after <= 0) break;
        noise = after;
        --l;
    }
    return l;
}

void Ctxt::mod_switch_to(size_t level) {
    if (level < 1 || level > level_)
        throw LevelError("cannot switch a ciphertext at level " + std::to_string(level_) +
                         " to level " + std::to_string(level) + " (levels go down to 1)");
    // Predict the noise first: a switch that would use up a healthy ciphertext's budget is
    // refused before any row changes (the modulus-switching floor grows relative to Q as primes go).
    if (noise_budget() > 0 && level < lowest_safe_level())
        throw LevelError("switching to level " + std::to_string(level) +
                         " would use up the noise budget, so the plaintext would be lost; the lowest level "
                         "that keeps it is " +
                         std::to_string(lowest_safe_level()));
    if (level_ > level) drop_primes(level_ - level);
}

}  // namespace helib
