// Writing and validated reading of contexts, keys and ciphertexts (format in serialize.h).
#include "serialization/serialize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "scheme/ctxt.h"
#include "scheme/errors.h"
#include "scheme/galois.h"
#include "scheme/keys.h"
#include "scheme/master_keys.h"
#include "scheme/threshold.h"
#include "scheme/wipe.h"

namespace helib {
namespace {

constexpr uint8_t kMagic[4] = {'B', 'P', 'H', 'E'};
// p has at most 2048 bits (Context).
constexpr uint32_t kMaxPLimbs = 32;
constexpr uint32_t kOptionDerivableKeys = 1;
constexpr uint32_t kOptionParties = 2;

const char* kind_name(ObjectKind kind) {
    switch (kind) {
        case ObjectKind::context: return "a context";
        case ObjectKind::secret_key: return "a secret key";
        case ObjectKind::public_key: return "a public key";
        case ObjectKind::galois_keys: return "Galois keys";
        case ObjectKind::ciphertext: return "a ciphertext";
        case ObjectKind::seeded_ciphertext: return "a seeded ciphertext";
        case ObjectKind::master_keys: return "master Galois keys";
        case ObjectKind::encryption_key: return "a public key without relinearization key";
        case ObjectKind::coefficient_ciphertext: return "an online encryption (c0 in coefficient form)";
        case ObjectKind::key_share: return "a party's key share";
        case ObjectKind::decryption_share: return "a decryption share";
        case ObjectKind::joint_public_key: return "a joint public key with its relinearization key";
        case ObjectKind::relin_share: return "a relinearization key share";
        case ObjectKind::public_key_share: return "a party's public key share";
        case ObjectKind::galois_key_share: return "a party's Galois key shares";
        case ObjectKind::master_key_share: return "a party's master key shares";
    }
    return "an unknown object";
}

struct HeaderFields {
    ObjectKind kind;
    uint64_t fingerprint;
};

// Magic, version and kind (`kind` or `alternative`).
HeaderFields read_header_fields(Reader& r, std::initializer_list<ObjectKind> kinds) {
    uint8_t magic[4];
    r.bytes(magic, 4, "header");
    if (std::memcmp(magic, kMagic, 4) != 0) corrupt("not a bigp-he object (bad magic bytes)");
    const uint16_t version = r.u16("format version");
    if (version != kFormatVersion)
        corrupt("format version " + std::to_string(version) + " (this engine reads version " +
                std::to_string(kFormatVersion) + ")");
    const uint16_t got = r.u16("object kind");
    if (std::none_of(kinds.begin(), kinds.end(), [&](ObjectKind k) { return got == static_cast<uint16_t>(k); })) {
        const bool known = got >= 1 && got <= kLastObjectKind;
        corrupt(std::string("expected ") + kind_name(*kinds.begin()) + ", found " +
                (known ? kind_name(static_cast<ObjectKind>(got)) : "an unknown kind " + std::to_string(got)));
    }
    return {static_cast<ObjectKind>(got), r.u64("context fingerprint")};
}

// The header of a key object, then the id of its secret key (never 0).
uint64_t read_key_header(Reader& r, ObjectKind kind, const Context& ctx) {
    read_header(r, kind, ctx);
    const uint64_t id = r.u64("key id");
    if (id == 0) corrupt("key id 0");
    return id;
}

// Rows of `poly` (rows x n, allocated by the caller) for the primes of `basis`.
void read_rows(Reader& r, const Context& ctx, const Basis& basis, RnsPoly& poly, const char* what) {
    for (size_t i = 0; i < basis.size(); ++i) r.words_below(poly.row(i), ctx.n(), ctx.prime(basis[i]), what);
}

}  // namespace

void corrupt(const std::string& what) { throw InvalidArgument("corrupt data: " + what); }

void Reader::require(size_t len, const char* what) const {
    if (len > remaining())
        corrupt(std::string("truncated ") + what + " (" + std::to_string(len) + " bytes needed, " +
                std::to_string(remaining()) + " left)");
}

void Reader::bytes(void* out, size_t len, const char* what) {
    require(len, what);
    if (len > 0) std::memcpy(out, data_ + pos_, len);
    pos_ += len;
}

void Reader::words_below(uint64_t* out, size_t count, uint64_t bound, const char* what) {
    if (count > remaining() / sizeof(uint64_t)) corrupt(std::string("truncated ") + what);
    bytes(out, count * sizeof(uint64_t), what);
    uint64_t worst = 0;
    for (size_t i = 0; i < count; ++i) worst = out[i] > worst ? out[i] : worst;
    if (worst >= bound) corrupt(std::string(what) + ": a residue is not below its prime");
}

void Reader::expect_end() const {
    if (remaining() != 0) corrupt(std::to_string(remaining()) + " unexpected bytes after the object");
}

uint64_t context_fingerprint(const Context& ctx) { return ctx.fingerprint(); }

namespace {

// Seed, digit count and every digit's rows at the key's full height.
uint64_t switch_key_size(const Context& ctx, bool derived) {
    if (derived && ctx.derivation_level() == 0) return 0;
    return sizeof(Seed) + 4 +
           uint64_t(key_digits(ctx, derived)) * key_rows(ctx, derived).size() * ctx.n() * sizeof(u64);
}

}  // namespace

uint64_t max_serialized_size(const Context& ctx, ObjectKind kind, uint64_t count) {
    constexpr uint64_t header = 16, key_id = 8;
    const uint64_t row = ctx.n() * sizeof(u64);
    switch (kind) {
        case ObjectKind::context:
            return kMaxContextBytes;
        case ObjectKind::secret_key:
            return header + key_id + ctx.n();
        case ObjectKind::key_share:
            return header + key_id + 8 + sizeof(Seed) + ctx.n();
        case ObjectKind::decryption_share:
            return DecryptionShare::serialized_size(ctx, ctx.num_chain());
        case ObjectKind::encryption_key:
        case ObjectKind::public_key_share:
        case ObjectKind::public_key:
        case ObjectKind::joint_public_key: {
            const uint64_t b = header + key_id + sizeof(Seed) + ctx.fresh_level() * row;
            if (kind == ObjectKind::encryption_key || kind == ObjectKind::public_key_share) return b;
            // A shared key's relinearization key holds its a parts too: twice the rows.
            const uint64_t relin = switch_key_size(ctx, false);
            return ctx.parties() > 1 ? b + 2 * relin : b + relin;
        }
        case ObjectKind::relin_share:
            return RelinShare::serialized_size(ctx, 1);
        case ObjectKind::galois_keys:
        case ObjectKind::galois_key_share:
        case ObjectKind::master_keys:
        case ObjectKind::master_key_share: {
            if (count > ctx.n()) throw InvalidArgument("more Galois keys than the ring has elements");
            // Entries are full keys of the special basis (derived ones are never written); master
            // keys add the identity key in derived form.
            const uint64_t entries = header + key_id + 4 + count * (8 + switch_key_size(ctx, false));
            const bool masters = kind == ObjectKind::master_keys || kind == ObjectKind::master_key_share;
            return masters ? entries + switch_key_size(ctx, true) : entries;
        }
        case ObjectKind::ciphertext:
        case ObjectKind::seeded_ciphertext:
        case ObjectKind::coefficient_ciphertext:
            return Ctxt::serialized_size(ctx, ctx.num_chain());
    }
    throw InvalidArgument("unknown object kind");
}

void write_header(Writer& w, ObjectKind kind, const Context& ctx) {
    w.bytes(kMagic, 4);
    w.u16(kFormatVersion);
    w.u16(static_cast<uint16_t>(kind));
    w.u64(context_fingerprint(ctx));
}

void read_header(Reader& r, ObjectKind kind, const Context& ctx) {
    read_header_either(r, kind, kind, ctx);
}

ObjectKind read_header_either(Reader& r, ObjectKind kind, ObjectKind alternative, const Context& ctx) {
    return read_header_any(r, {kind, alternative}, ctx);
}

ObjectKind read_header_any(Reader& r, std::initializer_list<ObjectKind> kinds, const Context& ctx) {
    const HeaderFields h = read_header_fields(r, kinds);
    if (h.fingerprint != context_fingerprint(ctx))
        throw Mismatch(std::string("the data holds ") + kind_name(h.kind) +
                       " of another context (its parameters differ from this one's)");
    return h.kind;
}

// ---- context

void save_context(Writer& w, const Context& ctx) {
    write_header(w, ObjectKind::context, ctx);
    w.u64(ctx.m());
    w.u32(ctx.requested_ciphertext_bits());
    w.u32(static_cast<uint32_t>(ctx.requested_digits()));
    w.u32(static_cast<uint32_t>(ctx.p_limbs()));
    w.words(ctx.p_limb_vec().data(), ctx.p_limbs());
    // Options, written only when set (the bytes of a context without them stay as they were):
    // bit 0, derivable keys; bit 1, a key shared by parties, whose count (u32) follows.
    const uint32_t options = (ctx.derivation_level() > 0 ? kOptionDerivableKeys : 0) |
                             (ctx.parties() > 1 ? kOptionParties : 0);
    if (options != 0) w.u32(options);
    if (ctx.parties() > 1) w.u32(ctx.parties());
}

std::shared_ptr<const Context> load_context(Reader& r, bool allow_insecure) {
    const uint64_t fingerprint = read_header_fields(r, {ObjectKind::context}).fingerprint;
    ContextParams params;
    params.m = r.u64("m");
    params.ciphertext_bits = r.u32("ciphertext bits");
    params.ks_digits = r.u32("key-switching digits");
    params.allow_insecure = allow_insecure;
    const uint32_t limbs = r.u32("limb count of p");
    if (limbs == 0 || limbs > kMaxPLimbs) corrupt("p has " + std::to_string(limbs) + " limbs (1..32 allowed)");
    std::vector<u64> p(limbs);
    r.bytes(p.data(), limbs * sizeof(u64), "p");
    if (r.remaining() > 0) {
        const uint32_t options = r.u32("context options");
        if (options == 0 || (options & ~(kOptionDerivableKeys | kOptionParties)) != 0)
            corrupt("context options " + std::to_string(options));
        params.derivable_keys = (options & kOptionDerivableKeys) != 0;
        if ((options & kOptionParties) != 0) {
            params.parties = r.u32("parties");
            if (params.parties < 2 || params.parties > 64) corrupt("a key shared by " + std::to_string(params.parties) + " parties");
        }
    }
    r.expect_end();
    params.p = zz_from_limbs(p.data(), limbs);
    // 0 would switch the check off; no real context hashes to it.
    if (fingerprint == 0) corrupt("context fingerprint 0");
    params.expected_fingerprint = fingerprint;
    return std::make_shared<const Context>(params);
}

// ---- keys

void KeySwitchKey::save(Writer& w) const {
    w.bytes(seed.data(), seed.size());
    w.u32(static_cast<uint32_t>(b.size()));
    for (const RnsPoly& poly : b) w.words(poly.data.data(), poly.data.size());
}

KeySwitchKey KeySwitchKey::load(Reader& r, const Context& ctx, bool derived, size_t levels) {
    KeySwitchKey key;
    key.derived = derived;
    key.levels = levels == 0 ? ctx.switch_basis(derived).max_level : levels;
    key.log2_error = ctx.log2_error_norm();
    r.bytes(key.seed.data(), key.seed.size(), "key seed");
    const uint32_t digits = r.u32("digit count");
    const size_t expected = key_digits(ctx, derived, key.levels);
    if (digits != expected)
        corrupt("a key-switching key with " + std::to_string(digits) + " digits (the context's keys for " +
                std::to_string(key.levels) + " levels have " + std::to_string(expected) + ")");
    const Basis full = key_rows(ctx, derived, key.levels);
    r.require(digits * full.size() * ctx.n() * sizeof(u64), "key-switching key");
    for (uint32_t j = 0; j < digits; ++j) {
        RnsPoly b = RnsPoly::uninit(full.size(), ctx.n());
        read_rows(r, ctx, full, b, "key-switching key");
        key.b.push_back(std::move(b));
        key.a.push_back(expand_switch_key_a(ctx, key.seed, j, derived, key.levels));
    }
    return key;
}

void SecKey::save(Writer& w) const {
    write_header(w, share_ ? ObjectKind::key_share : ObjectKind::secret_key, *ctx_);
    w.u64(id_);
    if (share_) {
        w.u64(party_);
        w.bytes(crs_.data(), crs_.size());
    }
    // A byte at a time, without a temporary copy of the secret.
    for (int32_t c : s_) {
        const int8_t b = static_cast<int8_t>(c);
        w.bytes(&b, 1);
    }
}

SecKey SecKey::load(Reader& r, std::shared_ptr<const Context> ctx) {
    const bool share =
        read_header_either(r, ObjectKind::secret_key, ObjectKind::key_share, *ctx) == ObjectKind::key_share;
    const uint64_t id = r.u64("key id");
    if (id == 0) corrupt("key id 0");
    uint64_t party = 0;
    Seed crs{};
    if (share) {
        party = r.u64("party");
        r.bytes(crs.data(), crs.size(), "common random string");
        if (party == 0) corrupt("party 0");
        if (id != joint_id(crs)) corrupt("a key share whose id is not its common string's");
    }
    if (share != (ctx->parties() > 1))
        throw Mismatch(share ? "a key share, and this context is for one owner"
                             : "a whole secret key, and this context is for a key shared by parties");
    r.require(ctx->n(), "secret coefficients");
    std::vector<int32_t> s(ctx->n());
    try {
        for (int32_t& c : s) {
            int8_t b;
            r.bytes(&b, 1, "secret coefficients");
            if (b < -1 || b > 1) corrupt("a secret coefficient outside {-1, 0, 1}");
            c = b;
        }
        SecKey sk(std::move(ctx), id, std::move(s));
        sk.share_ = share;
        sk.party_ = party;
        sk.crs_ = crs;
        return sk;
    } catch (...) {
        secure_wipe(s);  // a partly read secret is still secret
        throw;
    }
}

void PubKey::save(Writer& w, bool with_relin) const {
    if (share_) with_relin = false;
    if (with_relin && !has_relin_key())
        throw MissingKey("this public key came without its relinearization key, so it cannot be saved with one");
    const bool joint = with_relin && relin_.explicit_a;
    write_header(w,
                 share_       ? ObjectKind::public_key_share
                 : joint      ? ObjectKind::joint_public_key
                 : with_relin ? ObjectKind::public_key
                              : ObjectKind::encryption_key,
                 *ctx_);
    w.u64(id_);
    w.bytes(a_seed_.data(), a_seed_.size());
    w.words(b_.data.data(), b_.data.size());
    if (share_) return;
    if (joint) {
        w.u32(static_cast<uint32_t>(relin_.b.size()));
        for (size_t j = 0; j < relin_.b.size(); ++j) {
            w.words(relin_.b[j].data.data(), relin_.b[j].data.size());
            w.words(relin_.a[j].data.data(), relin_.a[j].data.size());
        }
    } else if (with_relin) {
        relin_.save(w);
    }
}

PubKey PubKey::load(Reader& r, std::shared_ptr<const Context> ctx, bool share) {
    const Context& c = *ctx;
    PubKey pk;
    const ObjectKind kind =
        share ? read_header_any(r, {ObjectKind::public_key_share}, c)
              : read_header_any(r, {ObjectKind::public_key, ObjectKind::encryption_key, ObjectKind::joint_public_key}, c);
    pk.share_ = share;
    const bool with_relin = kind == ObjectKind::public_key;
    const bool joint = kind == ObjectKind::joint_public_key;
    if (joint && c.parties() < 2) corrupt("a joint public key on a context for one owner");
    pk.id_ = r.u64("key id");
    if (pk.id_ == 0) corrupt("key id 0");
    r.bytes(pk.a_seed_.data(), pk.a_seed_.size(), "public key seed");
    const Basis chain = chain_basis(c, c.fresh_level());
    r.require(chain.size() * c.n() * sizeof(u64), "public key");
    pk.b_ = RnsPoly::uninit(chain.size(), c.n());
    read_rows(r, c, chain, pk.b_, "public key");
    if (with_relin) pk.relin_ = KeySwitchKey::load(r, c);
    if (joint) {
        const uint32_t digits = r.u32("digit count");
        if (digits != key_digits(c, false))
            corrupt("a joint relinearization key of " + std::to_string(digits) + " digits (the context's keys have " +
                    std::to_string(key_digits(c, false)) + ")");
        const Basis full = key_rows(c, false);
        r.require(uint64_t(2) * digits * full.size() * c.n() * sizeof(u64), "joint relinearization key");
        KeySwitchKey& key = pk.relin_;
        key.levels = c.switch_basis(false).max_level;
        key.explicit_a = true;
        key.log2_error = relin_error_bound(c);
        for (uint32_t j = 0; j < digits; ++j) {
            for (auto* part : {&key.b, &key.a}) {
                RnsPoly p = RnsPoly::uninit(full.size(), c.n());
                read_rows(r, c, full, p, "joint relinearization key");
                part->push_back(std::move(p));
            }
        }
    }
    pk.a_ = expand_public_a(c, pk.a_seed_);
    pk.ctx_ = std::move(ctx);
    return pk;
}

void GaloisKeys::save(Writer& w) const {
    if (derived_)
        throw InvalidArgument("derived Galois keys are not serialized: ship the master keys and derive them again");
    write_header(w, share_ ? ObjectKind::galois_key_share : ObjectKind::galois_keys, *ctx_);
    w.u64(id_);
    save_entries(w);
}

void GaloisKeys::save_entries(Writer& w) const {
    w.u32(static_cast<uint32_t>(keys_.size()));
    const size_t top = ctx_->switch_basis(derived_).max_level;
    for (const auto& [g, entry] : keys_) {  // std::map: increasing g
        // A full key's word is g alone, so sets of full keys keep the bytes they always had.
        const uint64_t capped = entry->key.levels < top ? static_cast<uint64_t>(entry->key.levels) : 0;
        w.u64(g | capped << kLevelsShift);
        entry->key.save(w);
    }
}

GaloisKeys GaloisKeys::load(Reader& r, std::shared_ptr<const Context> ctx, bool share) {
    GaloisKeys keys;
    keys.id_ = read_key_header(r, share ? ObjectKind::galois_key_share : ObjectKind::galois_keys, *ctx);
    keys.share_ = share;
    keys.ctx_ = std::move(ctx);
    keys.load_entries(r, /*allow_capped=*/true);
    return keys;
}

void GaloisKeys::load_entries(Reader& r, bool allow_capped) {
    const Context& c = *ctx_;
    const uint32_t count = r.u32("key count");
    // Each key holds at least its element and one digit's rows over one chain prime and the
    // special primes.
    const size_t min_key = 8 + (1 + c.num_special()) * c.n() * sizeof(u64);
    if (count > c.n() || count * min_key > r.remaining())
        corrupt(std::to_string(count) + " Galois keys announced, but the data holds fewer");
    const size_t top = c.num_chain();
    uint64_t previous = 1;
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t word = r.u64("Galois element");
        const uint64_t g = word & ((uint64_t(1) << kLevelsShift) - 1);
        const uint64_t capped = word >> kLevelsShift;
        if (g <= previous || g % 2 == 0 || g >= 2 * static_cast<uint64_t>(c.n()))
            corrupt("Galois element " + std::to_string(g) +
                    " (elements must be odd, in (1, 2N), and in increasing order)");
        if (capped != 0 && (!allow_capped || capped >= top))
            corrupt("a Galois key for " + std::to_string(capped) + " levels" +
                    (allow_capped ? " (fewer than the context's " + std::to_string(top) + " expected)"
                                  : " among master keys, which serve every level"));
        previous = g;
        auto entry = std::make_shared<Entry>();
        entry->key = KeySwitchKey::load(r, c, /*derived=*/false, static_cast<size_t>(capped));
        entry->perm = galois_permutation(c.n(), g);
        keys_.emplace(g, std::move(entry));
    }
}

void MasterKeys::save(Writer& w) const {
    write_header(w, is_share() ? ObjectKind::master_key_share : ObjectKind::master_keys, *context());
    w.u64(id());
    masters_.save_entries(w);
    identity_.save(w);
}

MasterKeys MasterKeys::load(Reader& r, std::shared_ptr<const Context> ctx, bool share) {
    if (ctx->derivation_level() == 0)
        throw Mismatch("master keys belong to a derivable context, and this one is not");
    GaloisKeys masters;
    masters.id_ = read_key_header(r, share ? ObjectKind::master_key_share : ObjectKind::master_keys, *ctx);
    masters.share_ = share;
    masters.ctx_ = ctx;
    masters.load_entries(r, /*allow_capped=*/false);
    KeySwitchKey identity = KeySwitchKey::load(r, *ctx, /*derived=*/true);
    return MasterKeys(std::move(masters), std::move(identity));
}

// ---- ciphertexts

void Ctxt::save_fields(Writer& w, ObjectKind kind) const {
    const Context& ctx = *ctx_;
    write_header(w, kind, ctx);
    w.u64(key_id_);
    w.u32(static_cast<uint32_t>(level_));
    w.f64(log2_noise_);
    std::vector<u64> factor(ctx.p_limbs());
    zz_to_limbs(factor_, factor.data(), factor.size());
    w.words(factor.data(), factor.size());
}

void Ctxt::save(Writer& w) const {
    if (c0_.rows != level_ || c1_.rows != level_)
        throw std::logic_error("ciphertext rows do not match its level");
    save_fields(w, ObjectKind::ciphertext);
    w.words(c0_.data.data(), c0_.data.size());
    w.words(c1_.data.data(), c1_.data.size());
}

size_t Ctxt::serialized_size(const Context& ctx, size_t level) {
    // Header, key id, level, noise bound, factor, c0 and c1.
    return 16 + 8 + 4 + 8 + 8 * ctx.p_limbs() + 2 * 8 * level * ctx.n();
}

size_t Ctxt::seeded_size(const Context& ctx) {
    // Header, key id, level, noise bound, factor, c0 at the top level, seed.
    return 16 + 8 + 4 + 8 + 8 * ctx.p_limbs() + 8 * ctx.fresh_level() * ctx.n() + sizeof(Seed);
}

CtxtFields read_ctxt_fields(Reader& r, const Context& c, uint64_t key_id) {
    CtxtFields f;
    if (r.u64("key id") != key_id) throw Mismatch("the ciphertext is under another secret key than the given public key");
    f.level = r.u32("level");
    if (f.level < 1 || f.level > c.num_chain())
        corrupt("level " + std::to_string(f.level) + " (the context has levels 1.." + std::to_string(c.num_chain()) +
                ")");
    f.noise = r.f64("noise bound");
    if (!(f.noise >= 0)) corrupt("a noise bound out of range");  // NaN too
    // A bound beyond the modulus is an exhausted ciphertext, which is what +inf records.
    if (f.noise > c.log2_q(f.level)) f.noise = std::numeric_limits<double>::infinity();
    std::vector<u64> limbs(c.p_limbs());
    r.bytes(limbs.data(), limbs.size() * sizeof(u64), "plaintext factor");
    f.factor = zz_from_limbs(limbs.data(), limbs.size());
    if (NTL::IsZero(f.factor) || f.factor >= c.p()) corrupt("a plaintext factor outside [1, p)");
    return f;
}

Ctxt Ctxt::load(Reader& r, std::shared_ptr<const Context> ctx, uint64_t key_id) {
    const Context& c = *ctx;
    const ObjectKind kind = read_header_any(
        r, {ObjectKind::ciphertext, ObjectKind::seeded_ciphertext, ObjectKind::coefficient_ciphertext}, c);
    const bool seeded = kind == ObjectKind::seeded_ciphertext;
    const CtxtFields f = read_ctxt_fields(r, c, key_id);
    const uint32_t level = f.level;
    if (seeded && level != c.fresh_level()) corrupt("a seeded ciphertext at another level than fresh encryptions take");
    if (seeded && !NTL::IsOne(f.factor)) corrupt("a seeded ciphertext with a plaintext factor other than 1");
    const Basis chain = chain_basis(c, level);
    const size_t rows_bytes = chain.size() * c.n() * sizeof(u64);
    r.require(seeded ? rows_bytes + sizeof(Seed) : 2 * rows_bytes, "ciphertext");
    Ctxt out(std::move(ctx), key_id, level);
    out.log2_noise_ = f.noise;
    out.factor_ = f.factor;
    out.c0_ = RnsPoly::uninit(level, c.n());
    read_rows(r, c, chain, out.c0_, "ciphertext");
    if (kind == ObjectKind::coefficient_ciphertext)
        for (size_t i = 0; i < level; ++i) c.ntt(i).forward(out.c0_.row(i));
    if (seeded) {
        Seed seed;
        r.bytes(seed.data(), seed.size(), "seed");
        out.c1_ = expand_public_a(c, seed);
    } else {
        out.c1_ = RnsPoly::uninit(level, c.n());
        read_rows(r, c, chain, out.c1_, "ciphertext");
    }
    return out;
}

}  // namespace helib
