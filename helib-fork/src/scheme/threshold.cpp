#include "scheme/threshold.h"

#include <NTL/ZZ.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "math/crt_mod_p.h"
#include "math/rns_kernels.h"
#include "math/rns_poly.h"
#include "scheme/errors.h"
#include "scheme/galois.h"
#include "scheme/master_keys.h"
#include "scheme/noise.h"
#include "scheme/random.h"
#include "scheme/wipe.h"
#include "serialization/serialize.h"

namespace helib {
namespace {

double log2_of(const NTL::ZZ& x) { return NTL::log(x) / std::log(2.0); }

// The context every part shares, checked against the first's by fingerprint (parts read with
// separate loads of one context's bytes are interchangeable).
template <class Part>
const Context& common_context(const std::vector<const Part*>& parts, const char* what) {
    if (parts.empty() || parts.front() == nullptr) throw InvalidArgument(std::string("no ") + what + " to combine");
    const Context& ctx = *parts.front()->context();
    if (parts.size() != ctx.parties())
        throw InvalidArgument(std::string("a joint key of ") + std::to_string(ctx.parties()) + " parties takes " +
                              std::to_string(ctx.parties()) + " " + what + ", got " + std::to_string(parts.size()));
    for (size_t i = 0; i < parts.size(); ++i) {
        if (parts[i] == nullptr) throw InvalidArgument(std::string(what) + " " + std::to_string(i) + " is missing");
        if (parts[i]->context()->fingerprint() != ctx.fingerprint())
            throw Mismatch(std::string(what) + " " + std::to_string(i) + " belongs to another context");
    }
    return ctx;
}

// rows_out[r] += rows_in[r] mod the prime of basis[r].
void add_rows(const Context& ctx, const Basis& basis, RnsPoly& out, const RnsPoly& in) {
    for (size_t r = 0; r < basis.size(); ++r) {
        const u64 q = ctx.prime(basis[r]);
        u64* o = out.row(r);
        const u64* a = in.row(r);
        for (size_t k = 0; k < ctx.n(); ++k) o[k] = add_mod(o[k], a[k], q);
    }
}

bool same_rows(const RnsPoly& a, const RnsPoly& b) { return a.data == b.data; }

// x mod q for the little-endian words x[0..count).
u64 words_mod(const u64* x, size_t count, u64 q, u64 two64) {
    u64 acc = 0;
    for (size_t i = count; i-- > 0;) acc = add_mod(mul_mod(acc, two64, q), x[i] % q, q);
    return acc;
}

// Whether the little-endian limbs a (count of them) are below b.
bool limbs_below(const u64* a, const u64* b, size_t count) {
    for (size_t i = count; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i];
    return false;
}

}  // namespace

PubKey PubKey::combine(const std::vector<const PubKey*>& shares) {
    const Context& ctx = common_context(shares, "public key shares");
    const PubKey& first = *shares.front();
    for (size_t i = 0; i < shares.size(); ++i) {
        const PubKey& s = *shares[i];
        const std::string who = "public key share " + std::to_string(i);
        if (s.id_ != first.id_) throw Mismatch(who + " belongs to another joint key (another common string)");
        if (s.a_seed_ != first.a_seed_) throw Mismatch(who + " was drawn from another common string");
        if (!s.share_) throw InvalidArgument(who + " is not a party's share (PubKey of a key share)");
        if (s.has_relin_key()) throw InvalidArgument(who + " carries a relinearization key: it is a whole key's");
        for (size_t j = 0; j < i; ++j)
            if (same_rows(s.b_, shares[j]->b_)) throw InvalidArgument(who + " repeats share " + std::to_string(j));
    }
    PubKey pk;
    pk.ctx_ = first.ctx_;
    pk.id_ = first.id_;
    pk.a_seed_ = first.a_seed_;
    pk.a_ = first.a_;
    pk.b_ = first.b_;
    const Basis chain = chain_basis(ctx, ctx.fresh_level());
    for (size_t i = 1; i < shares.size(); ++i) add_rows(ctx, chain, pk.b_, shares[i]->b_);
    return pk;
}

GaloisKeys GaloisKeys::combine(const std::vector<const GaloisKeys*>& shares) {
    const Context& ctx = common_context(shares, "Galois key shares");
    const GaloisKeys& first = *shares.front();
    for (size_t i = 0; i < shares.size(); ++i) {
        const GaloisKeys& s = *shares[i];
        const std::string who = "Galois key share " + std::to_string(i);
        if (!s.share_) throw InvalidArgument(who + " is not a party's share (GaloisKeys of a key share)");
        if (s.id_ != first.id_) throw Mismatch(who + " belongs to another joint key (another common string)");
        if (s.derived_ || first.derived_) throw InvalidArgument("derived Galois keys are not shares of anything");
        if (s.elements() != first.elements()) throw Mismatch(who + " holds keys for other Galois elements");
    }
    GaloisKeys joint;
    joint.ctx_ = first.ctx_;
    joint.id_ = first.id_;
    for (const auto& [g, entry] : first.keys_) {
        Entry sum{entry->key, entry->perm};
        const KeySwitchKey& k0 = entry->key;
        const Basis rows = key_rows(ctx, k0.derived, k0.levels);
        for (size_t i = 1; i < shares.size(); ++i) {
            const KeySwitchKey& ki = shares[i]->keys_.at(g)->key;
            const std::string who = "Galois key share " + std::to_string(i) + "'s key for " + std::to_string(g);
            if (ki.seed != k0.seed) throw Mismatch(who + " was drawn from another common string");
            if (ki.levels != k0.levels || ki.b.size() != k0.b.size())
                throw Mismatch(who + " serves other levels");
            for (size_t j = 0; j < i; ++j)
                if (same_rows(ki.b.front(), shares[j]->keys_.at(g)->key.b.front()))
                    throw InvalidArgument(who + " repeats share " + std::to_string(j) + "'s");
            for (size_t d = 0; d < k0.b.size(); ++d) add_rows(ctx, rows, sum.key.b[d], ki.b[d]);
        }
        sum.key.log2_error = ctx.log2_error_norm();
        joint.keys_.emplace(g, std::make_shared<const Entry>(std::move(sum)));
    }
    return joint;
}

MasterKeys MasterKeys::combine(const std::vector<const MasterKeys*>& shares) {
    const Context& ctx = common_context(shares, "master key shares");
    std::vector<const GaloisKeys*> masters;
    for (const MasterKeys* s : shares) masters.push_back(&s->masters_);
    // The masters are Galois keys over the whole chain: their sum checks every share alike.
    GaloisKeys joint = GaloisKeys::combine(masters);
    KeySwitchKey identity = shares.front()->identity_;
    const Basis rows = key_rows(ctx, identity.derived, identity.levels);
    for (size_t i = 1; i < shares.size(); ++i) {
        const KeySwitchKey& ki = shares[i]->identity_;
        const std::string who = "master key share " + std::to_string(i) + "'s identity key";
        if (ki.seed != identity.seed) throw Mismatch(who + " was drawn from another common string");
        if (!ki.derived || ki.levels != identity.levels || ki.b.size() != identity.b.size())
            throw Mismatch(who + " has another form");
        // Checked here too: with no masters, the masters' sum checks nothing.
        for (size_t j = 0; j < i; ++j)
            if (same_rows(ki.b.front(), shares[j]->identity_.b.front()))
                throw InvalidArgument(who + " repeats share " + std::to_string(j) + "'s");
        for (size_t d = 0; d < identity.b.size(); ++d) add_rows(ctx, rows, identity.b[d], ki.b[d]);
    }
    identity.log2_error = ctx.log2_error_norm();
    return MasterKeys(std::move(joint), std::move(identity));
}

double relin_error_bound(const Context& ctx) {
    // s e0 + u e1 + e2: s and u sums of the parties' ternary secrets, the e sums of their errors.
    const double product = ctx.log2_secret_norm() + ctx.log2_error_norm();
    return log2_add(product + 1.0, ctx.log2_error_norm());
}

namespace {

// FNV-1a over a share's polynomials.
uint64_t rows_digest(const std::vector<RnsPoly>& a, const std::vector<RnsPoly>& b) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const auto* v : {&a, &b})
        for (const RnsPoly& p : *v)
            for (u64 w : p.data) {
                h ^= w;
                h *= 0x100000001b3ULL;
            }
    return h;
}

void require_share(const SecKey& share, const char* what) {
    if (!share.is_share()) throw InvalidArgument(std::string(what) + " is made with a party's key share");
}

}  // namespace

uint64_t RelinShare::digest() const { return rows_digest(h0_, h1_); }

RelinSecret::~RelinSecret() { secure_wipe(u); }

RelinShare RelinShare::round1(const SecKey& share, RelinSecret& secret) {
    require_share(share, "a relinearization key share");
    const Context& ctx = *share.context();
    const size_t n = ctx.n();
    const Basis full = key_rows(ctx, false);
    const SwitchBasis& basis = ctx.switch_basis(false);
    Prng prng = os_prng();
    secure_wipe(secret.u);
    secret.u = sample_ternary(prng, n);
    RnsPoly u = small_to_ntt(ctx, secret.u, full);
    const WipeOnExit<decltype(u.data)> wipe_u(u.data);
    // The a_j every party draws alike from the common string (SecKey::key_seed, part 0).
    const Seed seed = share.key_seed(SecKey::kRelinLabel, 0);
    RelinShare out;
    out.ctx_ = share.context();
    out.key_id_ = share.id();
    out.party_ = share.party();
    out.round_ = 1;
    for (size_t j = 0; j < key_digits(ctx, false); ++j) {
        const RnsPoly a = expand_switch_key_a(ctx, seed, j);
        std::vector<int32_t> e0 = sample_error(prng, n), e1 = sample_error(prng, n);
        const WipeOnExit<std::vector<int32_t>> wipe0(e0), wipe1(e1);
        const SmallRows te0(ctx, e0, SmallScale::plaintext_modulus), te1(ctx, e1, SmallScale::plaintext_modulus);
        RnsPoly h0 = RnsPoly::uninit(full.size(), n), h1 = RnsPoly::uninit(full.size(), n);
        for (size_t r = 0; r < full.size(); ++r) {
            const size_t pi = full[r];
            const u64 q = ctx.prime(pi);
            const Barrett& br = ctx.ntt(pi).barrett();
            const bool in_digit = pi < basis.max_level && pi >= ctx.digit_begin(j) && pi < ctx.digit_end(j);
            // -P on the digit's primes (P w_j is P there and 0 on the other chain primes; P is 0
            // mod the special primes).
            const u64 neg_p = in_digit ? q - inv_mod(basis.P_inv_mod_q[pi], q) : 0;
            te0.ntt_row(pi, h0.row(r));
            row_switch_key_b(h0.row(r), share.s_ntt().row(pi), neg_p, a.row(r), u.row(r), n, br, ctx.simd());
            te1.ntt_row(pi, h1.row(r));
            row_mul_add(h1.row(r), share.s_ntt().row(pi), a.row(r), n, br, ctx.simd());
        }
        out.h0_.push_back(std::move(h0));
        out.h1_.push_back(std::move(h1));
    }
    secret.sent = out.digest();
    return out;
}

RelinShare RelinShare::round2(const SecKey& share, RelinSecret& secret, const std::vector<const RelinShare*>& round1) {
    require_share(share, "a relinearization key share");
    const Context& ctx = *share.context();
    const size_t n = ctx.n();
    if (secret.u.size() != n)
        throw InvalidArgument("this round-1 secret was used already, or is not this context's");
    for (const RelinShare* m : round1)
        if (m != nullptr && m->round_ != 1) throw InvalidArgument("round 2 answers round-1 messages");
    // Summed here from every party's message, this party's own among them: answering a sum
    // someone else made up would give away this party's share (a sum with h1 = 0 and h0 = 1
    // gets back s_i + p e).
    const bool own = std::any_of(round1.begin(), round1.end(), [&](const RelinShare* m) {
        return m != nullptr && m->party_ == share.party() && m->digest() == secret.sent;
    });
    if (!own) throw InvalidArgument("this party's own round-1 message is not among the messages to answer");
    const RelinShare round1_sum = combine(round1);
    if (round1_sum.key_id_ != share.id()) throw Mismatch("the round-1 messages are for another joint key");
    const std::vector<int32_t>& u = secret.u;
    const Basis full = key_rows(ctx, false);
    // u - s, small (|.| <= 2): one product with h1 instead of two.
    std::vector<int32_t> diff(n);
    const WipeOnExit<std::vector<int32_t>> wipe_diff(diff);
    const std::vector<int32_t>& s = share.coefficients();
    for (size_t k = 0; k < n; ++k) diff[k] = u[k] - s[k];
    RnsPoly d = small_to_ntt(ctx, diff, full);
    const WipeOnExit<decltype(d.data)> wipe_d(d.data);
    Prng prng = os_prng();
    RelinShare out;
    out.ctx_ = share.context();
    out.key_id_ = share.id();
    out.party_ = share.party();
    out.round_ = 2;
    out.answers_ = round1_sum.digest();
    for (size_t j = 0; j < round1_sum.h0_.size(); ++j) {
        std::vector<int32_t> e = sample_error(prng, n);
        const WipeOnExit<std::vector<int32_t>> wipe_e(e);
        const SmallRows te(ctx, e, SmallScale::plaintext_modulus);
        RnsPoly m = RnsPoly::uninit(full.size(), n);
        for (size_t r = 0; r < full.size(); ++r) {
            const size_t pi = full[r];
            const Barrett& br = ctx.ntt(pi).barrett();
            te.ntt_row(pi, m.row(r));
            row_mul_add(m.row(r), share.s_ntt().row(pi), round1_sum.h0_[j].row(r), n, br, ctx.simd());
            row_mul_add(m.row(r), d.row(r), round1_sum.h1_[j].row(r), n, br, ctx.simd());
        }
        out.h0_.push_back(std::move(m));
    }
    secure_wipe(secret.u);
    secret.u.clear();
    return out;
}

RelinShare RelinShare::combine(const std::vector<const RelinShare*>& shares) {
    const Context& ctx = common_context(shares, "relinearization key shares");
    const RelinShare& first = *shares.front();
    for (size_t i = 0; i < shares.size(); ++i) {
        const RelinShare& s = *shares[i];
        const std::string who = "relinearization key share " + std::to_string(i);
        if (s.key_id_ != first.key_id_) throw Mismatch(who + " is for another joint key");
        if (s.party_ == 0) throw InvalidArgument(who + " is already a sum");
        if (s.round_ != first.round_) throw Mismatch(who + " is of another round");
        if (s.answers_ != first.answers_) throw Mismatch(who + " answers another round-1 sum");
        if (s.h0_.size() != first.h0_.size() || s.h1_.size() != first.h1_.size())
            throw Mismatch(who + " has another digit count");
        for (size_t j = 0; j < i; ++j)
            if (shares[j]->party_ == s.party_)
                throw InvalidArgument(who + " comes from the same party as share " + std::to_string(j));
    }
    RelinShare sum = first;
    sum.party_ = 0;
    const Basis full = key_rows(ctx, false);
    for (size_t i = 1; i < shares.size(); ++i) {
        for (size_t j = 0; j < sum.h0_.size(); ++j) add_rows(ctx, full, sum.h0_[j], shares[i]->h0_[j]);
        for (size_t j = 0; j < sum.h1_.size(); ++j) add_rows(ctx, full, sum.h1_[j], shares[i]->h1_[j]);
    }
    return sum;
}

PubKey PubKey::with_joint_relin(const PubKey& joint, const RelinShare& round1, const RelinShare& round2) {
    const Context& ctx = *joint.ctx_;
    for (const RelinShare* r : {&round1, &round2}) {
        if (r->ctx_->fingerprint() != ctx.fingerprint()) throw Mismatch("a relinearization sum of another context");
        if (r->key_id_ != joint.id_) throw Mismatch("a relinearization sum for another joint key");
        if (r->party_ != 0) throw InvalidArgument("the joint relinearization key takes the sums of both rounds");
    }
    if (round1.round_ != 1 || round2.round_ != 2) throw InvalidArgument("the sums of round 1 and round 2, in that order");
    if (round2.answers_ != round1.digest()) throw Mismatch("the round-2 sum answers another round-1 sum");
    if (round1.h1_.size() != key_digits(ctx, false) || round2.h0_.size() != round1.h1_.size())
        throw Mismatch("the relinearization sums have another digit count than the context's keys");
    const Basis full = key_rows(ctx, false);
    const SwitchBasis& basis = ctx.switch_basis(false);
    PubKey pk = joint;
    KeySwitchKey key;
    key.levels = basis.max_level;
    key.explicit_a = true;
    key.log2_error = relin_error_bound(ctx);
    for (size_t j = 0; j < round1.h1_.size(); ++j) {
        RnsPoly b = round2.h0_[j], a = round1.h1_[j];
        // The stored form: chain rows times P^-1 (KeySwitchKey).
        for (size_t r = 0; r < full.size(); ++r) {
            const size_t pi = full[r];
            if (pi >= basis.max_level) continue;
            const u64 q = ctx.prime(pi), w = basis.P_inv_mod_q[pi];
            for (size_t k = 0; k < ctx.n(); ++k) {
                b.row(r)[k] = mul_mod(b.row(r)[k], w, q);
                a.row(r)[k] = mul_mod(a.row(r)[k], w, q);
            }
        }
        key.b.push_back(std::move(b));
        key.a.push_back(std::move(a));
    }
    pk.relin_ = std::move(key);
    return pk;
}

uint64_t RelinShare::serialized_size(const Context& ctx, uint32_t round) {
    const uint64_t polys = round == 1 ? 2 : 1;
    return 16 + 8 + 8 + 4 + 8 + 4 +
           polys * key_digits(ctx, false) * key_rows(ctx, false).size() * uint64_t(ctx.n()) * sizeof(u64);
}

void RelinShare::save(Writer& w) const {
    write_header(w, ObjectKind::relin_share, *ctx_);
    w.u64(key_id_);
    w.u64(party_);
    w.u32(round_);
    w.u64(answers_);
    w.u32(static_cast<uint32_t>(h0_.size()));
    for (size_t j = 0; j < h0_.size(); ++j) {
        w.words(h0_[j].data.data(), h0_[j].data.size());
        if (round_ == 1) w.words(h1_[j].data.data(), h1_[j].data.size());
    }
}

RelinShare RelinShare::load(Reader& r, std::shared_ptr<const Context> ctx) {
    const Context& c = *ctx;
    read_header(r, ObjectKind::relin_share, c);
    RelinShare s;
    s.key_id_ = r.u64("key id");
    if (s.key_id_ == 0) corrupt("a relinearization key share of key 0");
    s.party_ = r.u64("party");
    s.round_ = r.u32("round");
    if (s.round_ != 1 && s.round_ != 2) corrupt("relinearization round " + std::to_string(s.round_));
    s.answers_ = r.u64("round-1 digest");
    const uint32_t digits = r.u32("digit count");
    if (digits != key_digits(c, false))
        corrupt("a relinearization key share of " + std::to_string(digits) + " digits (the context's keys have " +
                std::to_string(key_digits(c, false)) + ")");
    const Basis full = key_rows(c, false);
    const uint64_t polys = s.round_ == 1 ? 2 : 1;
    r.require(polys * digits * full.size() * c.n() * sizeof(u64), "relinearization key share");
    const auto read_poly = [&](std::vector<RnsPoly>& into) {
        RnsPoly p = RnsPoly::uninit(full.size(), c.n());
        for (size_t i = 0; i < full.size(); ++i)
            r.words_below(p.row(i), c.n(), c.prime(full[i]), "relinearization key share");
        into.push_back(std::move(p));
    };
    for (uint32_t j = 0; j < digits; ++j) {
        read_poly(s.h0_);
        if (s.round_ == 1) read_poly(s.h1_);
    }
    r.expect_end();
    s.ctx_ = std::move(ctx);
    return s;
}

uint64_t ciphertext_digest(const Context& ctx, size_t level, const RnsPoly& c0, const RnsPoly& c1) {
    uint64_t h = 0xcbf29ce484222325ULL;
    const auto add = [&h](uint64_t v) {
        h ^= v;
        h *= 0x100000001b3ULL;
    };
    add(ctx.fingerprint());
    add(level);
    for (const RnsPoly* p : {&c0, &c1})
        for (u64 w : p->data) add(w);
    return h;
}

DecryptionShare::DecryptionShare(const SecKey& share, const Ctxt& ct, bool masked, unsigned smudge_bits,
                                 u64* mask_out) {
    if (!share.is_share())
        throw InvalidArgument("a decryption share is made with a party's key share (this key decrypts alone)");
    const Context& ctx = *ct.ctx_;
    if (share.context()->fingerprint() != ctx.fingerprint())
        throw Mismatch("the key share and the ciphertext belong to different contexts");
    if (share.id() != ct.key_id_) throw Mismatch("the ciphertext is not under this key share's joint key");
    if (smudge_bits < kMinSmudgeBits || smudge_bits > kMaxSmudgeBits)
        throw InvalidArgument("smudging of " + std::to_string(smudge_bits) + " bits of statistical security (" +
                              std::to_string(kMinSmudgeBits) + " to " + std::to_string(kMaxSmudgeBits) +
                              " allowed)");
    if (masked && mask_out == nullptr) throw InvalidArgument("a masked decryption share needs room for its mask");
    if (!std::isfinite(ct.log2_noise_) || ct.noise_budget() <= 0)
        throw NoiseBudgetExhausted("the ciphertext's noise has outgrown its modulus; it cannot be decrypted");
    const size_t n = ctx.n(), level = ct.level_, limbs = ctx.p_limbs();
    const double log2_p = log2_of(ctx.p());
    // The noise bound a ciphertext carries is written by whoever computed it, and a party
    // does not take it on trust: the smudging is sized for the largest noise that leaves the
    // room it needs (threshold::smudging_room_bits: smudge_bits + log2 N + log2 k + 6 bits),
    // or for the ciphertext's claim if that is larger.
    const double room = smudge_bits + std::ceil(std::log2(static_cast<double>(n))) +
                        std::ceil(std::log2(static_cast<double>(ctx.parties()))) + 6.0;
    const double noise = std::max(ct.log2_noise_, ctx.log2_q(level) - room);
    // Per coefficient, the noise p E to hide is below that bound; the smudging error is
    // 2^smudge_bits times E's bound and N times more, so that the N coefficients together stay
    // within 2^-smudge_bits of statistical distance.
    const double log2_e = std::max(0.0, noise - log2_p) + 1.0;
    const unsigned beta = static_cast<unsigned>(std::ceil(log2_e)) + smudge_bits +
                          static_cast<unsigned>(std::ceil(std::log2(static_cast<double>(n))));
    // The room check below refuses anything this large long before; the cap bounds the words.
    if (beta + 1 > 4096) throw NoiseBudgetExhausted("the ciphertext's noise is too large to smudge");
    // p (2^beta + 1): the smudging error and a mask below p.
    log2_bound_ = log2_p + beta + std::log2(1.0 + std::exp2(-static_cast<double>(beta)));
    const double total = log2_add(noise, log2_bound_ + std::log2(static_cast<double>(ctx.parties())));
    if (total + 2.0 >= ctx.log2_q(level))
        throw NoiseBudgetExhausted("a decryption share with " + std::to_string(smudge_bits) +
                                   "-bit smudging needs about " + std::to_string(static_cast<int>(std::ceil(total + 2.0))) +
                                   " bits of modulus, and the ciphertext has " +
                                   std::to_string(static_cast<int>(ctx.log2_q(level))) +
                                   " left (keep more primes for the parties' decryption)");

    ctx_ = ct.ctx_;
    key_id_ = ct.key_id_;
    party_ = share.party();
    digest_ = ciphertext_digest(ctx, level, ct.c0_, ct.c1_);
    level_ = level;
    masked_ = masked;

    Prng prng = os_prng();
    // The smudging error, U - 2^beta with U uniform below 2^(beta + 1), in `words` words.
    const size_t words = (beta + 1 + 63) / 64;
    const unsigned top_bits = beta + 1 - 64 * static_cast<unsigned>(words - 1);
    std::vector<u64> e(n * words);
    const WipeOnExit<std::vector<u64>> wipe_e(e);
    for (size_t k = 0; k < n; ++k) {
        for (size_t w = 0; w < words; ++w) e[k * words + w] = prng.next_u64();
        if (top_bits < 64) e[k * words + words - 1] &= (u64(1) << top_bits) - 1;
    }
    // The mask, uniform below p, by rejection on p's bit length.
    std::vector<u64> mask(masked ? n * limbs : 0);
    const WipeOnExit<std::vector<u64>> wipe_mask(mask);
    if (masked) {
        const u64* p = ctx.p_limb_vec().data();
        const long bits = ctx.p_bits();
        const unsigned top = static_cast<unsigned>(bits - 64 * static_cast<long>(limbs - 1));
        for (size_t k = 0; k < n; ++k) {
            u64* m = &mask[k * limbs];
            do {
                for (size_t w = 0; w < limbs; ++w) m[w] = prng.next_u64();
                if (top < 64) m[limbs - 1] &= (u64(1) << top) - 1;
            } while (!limbs_below(m, p, limbs));
        }
    }

    rows_ = RnsPoly::uninit(level, n);
    for (size_t r = 0; r < level; ++r) {
        const u64 q = ctx.prime(r);
        const u64 two64 = static_cast<u64>((static_cast<unsigned __int128>(1) << 64) % q);
        const u64 two_beta = pow_mod(2 % q, beta, q);
        const u64 t = ctx.t_mod(r);
        u64* row = rows_.row(r);
        for (size_t k = 0; k < n; ++k) {
            const u64 err = sub_mod(words_mod(&e[k * words], words, q, two64), two_beta, q);
            u64 v = mul_mod(err, t, q);
            if (masked) v = sub_mod(v, words_mod(&mask[k * limbs], limbs, q, two64), q);
            row[k] = v;
        }
        ctx.ntt(r).forward(row);
        row_mul_add(row, ct.c1_.row(r), share.s_ntt().row(r), n, ctx.ntt(r).barrett(), ctx.simd());
    }

    if (masked) {
        // The phase holds factor * m: the mask M there is the party's share M / factor.
        if (NTL::IsOne(ct.factor_)) {
            std::copy(mask.begin(), mask.end(), mask_out);
        } else {
            const NTL::ZZ scale = NTL::InvMod(ct.factor_, ctx.p());
            NTL::ZZ x;
            for (size_t k = 0; k < n; ++k) {
                x = zz_from_limbs(&mask[k * limbs], limbs);
                NTL::MulMod(x, x, scale, ctx.p());
                zz_to_limbs(x, mask_out + k * limbs, limbs);
            }
            // Over the last mask's limbs in place (a value as wide), before they are freed.
            x = ctx.p() - 1;
        }
    }
}

void DecryptionShare::combine(const Ctxt& ct, const std::vector<const DecryptionShare*>& shares, u64* out) {
    const Context& ctx = *ct.ctx_;
    if (shares.size() != ctx.parties())
        throw InvalidArgument("a joint key of " + std::to_string(ctx.parties()) + " parties decrypts with " +
                              std::to_string(ctx.parties()) + " decryption shares, got " +
                              std::to_string(shares.size()));
    const uint64_t digest = ciphertext_digest(ctx, ct.level_, ct.c0_, ct.c1_);
    double log2_total = ct.log2_noise_;
    for (size_t i = 0; i < shares.size(); ++i) {
        const DecryptionShare* s = shares[i];
        const std::string who = "decryption share " + std::to_string(i);
        if (s == nullptr) throw InvalidArgument(who + " is missing");
        if (s->ctx_->fingerprint() != ctx.fingerprint()) throw Mismatch(who + " belongs to another context");
        if (s->key_id_ != ct.key_id_) throw Mismatch(who + " is for another joint key");
        if (s->digest_ != digest || s->level_ != ct.level_) throw Mismatch(who + " is for another ciphertext");
        for (size_t j = 0; j < i; ++j)
            if (shares[j]->party_ == s->party_)
                throw InvalidArgument(who + " comes from the same party as share " + std::to_string(j));
        log2_total = log2_add(log2_total, s->log2_bound_);
    }
    const size_t level = ct.level_, n = ctx.n();
    RnsPoly v = ct.c0_;
    const WipeOnExit<decltype(v.data)> wipe_v(v.data);
    const Basis chain = chain_basis(ctx, level);
    for (const DecryptionShare* s : shares) add_rows(ctx, chain, v, s->rows_);
    const LevelCrt& crt = ctx.crt(level);
    for (size_t r = 0; r < level; ++r) ctx.ntt(r).inverse_scaled(v.row(r), crt.punct_inv[r]);
    (void)n;
    const NTL::ZZ scale = NTL::IsOne(ct.factor_) ? NTL::ZZ(1) : NTL::InvMod(ct.factor_, ctx.p());
    const double max_ratio = std::min(std::max(std::exp2(log2_total + 1.0 - ct.log2_modulus()), 0x1p-40), 0.25);
    reconstruct_mod_p(ctx, level, v, scale, out, max_ratio);
}

uint64_t DecryptionShare::serialized_size(const Context& ctx, size_t level) {
    return 16 + 8 + 8 + 8 + 4 + 4 + 8 + uint64_t(level) * ctx.n() * sizeof(u64);
}

void DecryptionShare::save(Writer& w) const {
    write_header(w, ObjectKind::decryption_share, *ctx_);
    w.u64(key_id_);
    w.u64(party_);
    w.u64(digest_);
    w.u32(static_cast<uint32_t>(level_));
    w.u32(masked_ ? 1 : 0);
    w.f64(log2_bound_);
    w.words(rows_.data.data(), rows_.data.size());
}

DecryptionShare DecryptionShare::load(Reader& r, std::shared_ptr<const Context> ctx) {
    const Context& c = *ctx;
    read_header(r, ObjectKind::decryption_share, c);
    DecryptionShare s;
    s.key_id_ = r.u64("key id");
    s.party_ = r.u64("party");
    s.digest_ = r.u64("ciphertext digest");
    if (s.key_id_ == 0 || s.party_ == 0) corrupt("a decryption share of key or party 0");
    const uint32_t level = r.u32("level");
    if (level == 0 || level > c.num_chain()) corrupt("a decryption share at level " + std::to_string(level));
    const uint32_t masked = r.u32("masked");
    if (masked > 1) corrupt("a decryption share's mask flag " + std::to_string(masked));
    s.log2_bound_ = r.f64("noise bound");
    // Its bound is at least p's, and below the largest modulus.
    if (!(s.log2_bound_ >= 1.0 && s.log2_bound_ < c.log2_q(c.num_chain())))
        corrupt("a decryption share's noise bound");
    s.level_ = level;
    s.masked_ = masked == 1;
    r.require(uint64_t(level) * c.n() * sizeof(u64), "decryption share");
    s.rows_ = RnsPoly::uninit(level, c.n());
    for (size_t i = 0; i < level; ++i) r.words_below(s.rows_.row(i), c.n(), c.prime(i), "decryption share");
    r.expect_end();
    s.ctx_ = std::move(ctx);
    return s;
}

}  // namespace helib
