// The C API's shared keys (helib_c.h, "shared keys"): key shares, joint keys, decryption shares.
#include <cstring>
#include <vector>

#include "capi/capi_support.h"
#include "scheme/master_keys.h"
#include "scheme/random.h"
#include "scheme/threshold.h"
#include "scheme/wipe.h"
#include "serialization/serialize.h"

struct helib_decryption_share {
    helib::DecryptionShare share;
};
struct helib_relin_share {
    helib::RelinShare share;
};
struct helib_relin_secret {
    helib::RelinSecret secret;
};

namespace {

using namespace helib_capi;

// The engine objects behind `count` handles, none NULL.
template <class Handle, class Object>
std::vector<const Object*> objects(const Handle* const* handles, size_t count, const char* name,
                                   const Object* (*get)(const Handle*)) {
    if (count > 0) require(handles, name);
    std::vector<const Object*> out;
    out.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        require(handles[i], name);
        out.push_back(get(handles[i]));
    }
    return out;
}

}  // namespace

extern "C" {

helib_status helib_os_random_seed(uint8_t* out) {
    return guard([&] {
        require(out, "out");
        helib::Seed seed = helib::os_seed();
        std::memcpy(out, seed.data(), seed.size());
        helib::secure_wipe(seed.data(), seed.size());
    });
}

helib_status helib_seckey_new_share(helib_seckey** out, const helib_context* ctx, const uint8_t* crs) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        require(crs, "crs");
        helib::Seed seed;
        std::memcpy(seed.data(), crs, seed.size());
        *out = new helib_seckey{std::make_shared<const helib::SecKey>(helib::SecKey::share(ctx->ctx, seed))};
    });
}

helib_status helib_seckey_party(const helib_seckey* sk, uint64_t* out) {
    return guard([&] {
        require(sk, "sk");
        require(out, "out");
        *out = sk->sk->is_share() ? sk->sk->party() : 0;
    });
}

helib_status helib_pubkey_deserialize_share(helib_pubkey** out, const helib_context* ctx, const uint8_t* data,
                                            size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        auto pk = deserialize_from(data, len, [&](helib::Reader& r) {
            return std::make_shared<const helib::PubKey>(helib::PubKey::load(r, ctx->ctx, /*share=*/true));
        });
        *out = new helib_pubkey{std::move(pk)};
    });
}

helib_status helib_galois_keys_deserialize_share(helib_galois_keys** out, const helib_context* ctx,
                                                 const uint8_t* data, size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        auto gk = deserialize_from(data, len, [&](helib::Reader& r) {
            return std::make_shared<const helib::GaloisKeys>(helib::GaloisKeys::load(r, ctx->ctx, /*share=*/true));
        });
        *out = new helib_galois_keys{std::move(gk)};
    });
}

helib_status helib_pubkey_combine(helib_pubkey** out, const helib_pubkey* const* shares, size_t count) {
    return guard([&] {
        require(out, "out");
        const auto parts = objects<helib_pubkey, helib::PubKey>(
            shares, count, "shares", [](const helib_pubkey* h) { return h->pk.get(); });
        *out = new helib_pubkey{std::make_shared<const helib::PubKey>(helib::PubKey::combine(parts))};
    });
}

helib_status helib_galois_keys_combine(helib_galois_keys** out, const helib_galois_keys* const* shares,
                                       size_t count) {
    return guard([&] {
        require(out, "out");
        const auto parts = objects<helib_galois_keys, helib::GaloisKeys>(
            shares, count, "shares", [](const helib_galois_keys* h) { return h->gk.get(); });
        *out = new helib_galois_keys{std::make_shared<const helib::GaloisKeys>(helib::GaloisKeys::combine(parts))};
    });
}

helib_status helib_master_keys_deserialize_share(helib_master_keys** out, const helib_context* ctx,
                                                 const uint8_t* data, size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        auto mk = deserialize_from(data, len, [&](helib::Reader& r) {
            return std::make_shared<const helib::MasterKeys>(helib::MasterKeys::load(r, ctx->ctx, /*share=*/true));
        });
        *out = new helib_master_keys{std::move(mk)};
    });
}

helib_status helib_master_keys_combine(helib_master_keys** out, const helib_master_keys* const* shares,
                                       size_t count) {
    return guard([&] {
        require(out, "out");
        const auto parts = objects<helib_master_keys, helib::MasterKeys>(
            shares, count, "shares", [](const helib_master_keys* h) { return h->mk.get(); });
        *out = new helib_master_keys{std::make_shared<const helib::MasterKeys>(helib::MasterKeys::combine(parts))};
    });
}

helib_status helib_decryption_share_new(helib_decryption_share** out, const helib_seckey* share,
                                        const helib_ctxt* c, int32_t masked, uint32_t smudge_bits,
                                        uint64_t* mask_out, size_t mask_len) {
    return guard([&] {
        require(out, "out");
        require(share, "share");
        require(c, "c");
        const helib::Context& ctx = *c->c.context();
        if (masked != 0) {
            require(mask_out, "mask_out");
            const size_t needed = ctx.n() * ctx.p_limbs();
            if (mask_len < needed)
                throw helib::BufferTooSmall("mask_out holds " + std::to_string(mask_len) + " limbs, " +
                                            std::to_string(needed) + " needed");
        }
        *out = new helib_decryption_share{
            helib::DecryptionShare(*share->sk, c->c, masked != 0, smudge_bits, masked != 0 ? mask_out : nullptr)};
    });
}

void helib_decryption_share_free(helib_decryption_share* d) { delete d; }

helib_status helib_decryption_share_info(const helib_decryption_share* d, uint64_t* party, int32_t* masked) {
    return guard([&] {
        require(d, "d");
        if (party) *party = d->share.party();
        if (masked) *masked = d->share.masked() ? 1 : 0;
    });
}

helib_status helib_decryption_share_serialize(const helib_decryption_share* d, uint8_t* out, size_t out_len,
                                              size_t* needed) {
    return guard([&] {
        require(d, "d");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { d->share.save(w); });
    });
}

helib_status helib_decryption_share_deserialize(helib_decryption_share** out, const helib_context* ctx,
                                                const uint8_t* data, size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        *out = new helib_decryption_share{
            deserialize_from(data, len, [&](helib::Reader& r) { return helib::DecryptionShare::load(r, ctx->ctx); })};
    });
}

helib_status helib_ctxt_combine_decryption(const helib_ctxt* c, const helib_decryption_share* const* shares,
                                           size_t count, uint64_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(c, "c");
        const helib::Context& ctx = *c->c.context();
        if (size_query(out, out_len, ctx.n() * ctx.p_limbs(), needed)) return;
        const auto parts = objects<helib_decryption_share, helib::DecryptionShare>(
            shares, count, "shares", [](const helib_decryption_share* h) { return &h->share; });
        helib::DecryptionShare::combine(c->c, parts, out);
    });
}

helib_status helib_relin_share_round1(helib_relin_share** out, helib_relin_secret** secret,
                                      const helib_seckey* share) {
    return guard([&] {
        require(out, "out");
        require(secret, "secret");
        require(share, "share");
        auto held = std::make_unique<helib_relin_secret>();
        auto msg =
            std::make_unique<helib_relin_share>(helib_relin_share{helib::RelinShare::round1(*share->sk, held->secret)});
        *out = msg.release();
        *secret = held.release();
    });
}

helib_status helib_relin_share_round2(helib_relin_share** out, const helib_seckey* share, helib_relin_secret* secret,
                                      const helib_relin_share* const* round1, size_t count) {
    return guard([&] {
        require(out, "out");
        require(share, "share");
        require(secret, "secret");
        const auto messages = objects<helib_relin_share, helib::RelinShare>(
            round1, count, "round1", [](const helib_relin_share* h) { return &h->share; });
        *out = new helib_relin_share{helib::RelinShare::round2(*share->sk, secret->secret, messages)};
    });
}

helib_status helib_relin_share_combine(helib_relin_share** out, const helib_relin_share* const* shares,
                                       size_t count) {
    return guard([&] {
        require(out, "out");
        const auto parts = objects<helib_relin_share, helib::RelinShare>(
            shares, count, "shares", [](const helib_relin_share* h) { return &h->share; });
        *out = new helib_relin_share{helib::RelinShare::combine(parts)};
    });
}

helib_status helib_relin_share_info(const helib_relin_share* r, uint64_t* party, uint32_t* round) {
    return guard([&] {
        require(r, "r");
        if (party) *party = r->share.party();
        if (round) *round = r->share.round();
    });
}

helib_status helib_relin_share_serialize(const helib_relin_share* r, uint8_t* out, size_t out_len,
                                         size_t* needed) {
    return guard([&] {
        require(r, "r");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { r->share.save(w); });
    });
}

helib_status helib_relin_share_deserialize(helib_relin_share** out, const helib_context* ctx,
                                           const uint8_t* data, size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        *out = new helib_relin_share{
            deserialize_from(data, len, [&](helib::Reader& r) { return helib::RelinShare::load(r, ctx->ctx); })};
    });
}

void helib_relin_share_free(helib_relin_share* r) { delete r; }
void helib_relin_secret_free(helib_relin_secret* s) { delete s; }

helib_status helib_pubkey_with_joint_relin(helib_pubkey** out, const helib_pubkey* joint,
                                           const helib_relin_share* round1_sum,
                                           const helib_relin_share* round2_sum) {
    return guard([&] {
        require(out, "out");
        require(joint, "joint");
        require(round1_sum, "round1_sum");
        require(round2_sum, "round2_sum");
        *out = new helib_pubkey{std::make_shared<const helib::PubKey>(
            helib::PubKey::with_joint_relin(*joint->pk, round1_sum->share, round2_sum->share))};
    });
}

}  // extern "C"
