// The C API's serialization entry points and key identities (helib_c.h, "serialization").
#include <vector>

#include "capi/capi_support.h"
#include "math/rns_poly.h"
#include "scheme/coefficient_form.h"
#include "serialization/serialize.h"

using namespace helib_capi;

extern "C" {

helib_status helib_context_serialize(const helib_context* ctx, uint8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(ctx, "ctx");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { helib::save_context(w, *ctx->ctx); });
    });
}

helib_status helib_context_deserialize(helib_context** out, const uint8_t* data, size_t len, int32_t allow_insecure) {
    return guard([&] {
        require(out, "out");
        auto ctx = deserialize_from(data, len, [&](helib::Reader& r) { return helib::load_context(r, allow_insecure != 0); });
        *out = new helib_context{std::move(ctx)};
    });
}

helib_status helib_max_serialized_size(const helib_context* ctx, uint32_t kind, uint64_t count, uint64_t* out) {
    static_assert(HELIB_MAX_CONTEXT_BYTES == helib::kMaxContextBytes, "the header's bound is the engine's");
    return guard([&] {
        require(ctx, "ctx");
        require(out, "out");
        switch (kind) {
            case HELIB_OBJECT_CONTEXT:
            case HELIB_OBJECT_SECRET_KEY:
            case HELIB_OBJECT_PUBLIC_KEY:
            case HELIB_OBJECT_GALOIS_KEYS:
            case HELIB_OBJECT_CIPHERTEXT:
            case HELIB_OBJECT_MASTER_KEYS:
            case HELIB_OBJECT_ENCRYPTION_KEY:
            case HELIB_OBJECT_KEY_SHARE:
            case HELIB_OBJECT_DECRYPTION_SHARE:
            case HELIB_OBJECT_RELIN_SHARE:
                break;
            default:
                throw helib::InvalidArgument("unknown object kind " + std::to_string(kind));
        }
        *out = helib::max_serialized_size(*ctx->ctx, static_cast<helib::ObjectKind>(kind), count);
    });
}

helib_status helib_context_plaintext_modulus(const helib_context* ctx, uint64_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(ctx, "ctx");
        const auto& limbs = ctx->ctx->p_limb_vec();
        if (size_query(out, out_len, limbs.size(), needed)) return;
        std::copy(limbs.begin(), limbs.end(), out);
    });
}

helib_status helib_seckey_serialize(const helib_seckey* sk, uint8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(sk, "sk");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { sk->sk->save(w); });
    });
}

helib_status helib_seckey_deserialize(helib_seckey** out, const helib_context* ctx, const uint8_t* data, size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        auto sk = deserialize_from(data, len, [&](helib::Reader& r) {
            return std::make_shared<const helib::SecKey>(helib::SecKey::load(r, ctx->ctx));
        });
        *out = new helib_seckey{std::move(sk)};
    });
}

helib_status helib_pubkey_serialize(const helib_pubkey* pk, uint8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(pk, "pk");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { pk->pk->save(w); });
    });
}

helib_status helib_pubkey_serialize_encryption_key(const helib_pubkey* pk, uint8_t* out, size_t out_len,
                                                   size_t* needed) {
    return guard([&] {
        require(pk, "pk");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { pk->pk->save(w, /*with_relin=*/false); });
    });
}

helib_status helib_pubkey_deserialize(helib_pubkey** out, const helib_context* ctx, const uint8_t* data, size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        auto pk = deserialize_from(data, len, [&](helib::Reader& r) {
            return std::make_shared<const helib::PubKey>(helib::PubKey::load(r, ctx->ctx));
        });
        *out = new helib_pubkey{std::move(pk)};
    });
}

helib_status helib_galois_keys_serialize(const helib_galois_keys* gk, uint8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(gk, "gk");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { gk->gk->save(w); });
    });
}

helib_status helib_galois_keys_deserialize(helib_galois_keys** out, const helib_context* ctx, const uint8_t* data,
                                           size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        auto gk = deserialize_from(data, len, [&](helib::Reader& r) {
            return std::make_shared<const helib::GaloisKeys>(helib::GaloisKeys::load(r, ctx->ctx));
        });
        *out = new helib_galois_keys{std::move(gk)};
    });
}

helib_status helib_master_keys_serialize(const helib_master_keys* mk, uint8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(mk, "mk");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { mk->mk->save(w); });
    });
}

helib_status helib_master_keys_deserialize(helib_master_keys** out, const helib_context* ctx, const uint8_t* data,
                                           size_t len) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        auto mk = deserialize_from(data, len, [&](helib::Reader& r) {
            return std::make_shared<const helib::MasterKeys>(helib::MasterKeys::load(r, ctx->ctx));
        });
        *out = new helib_master_keys{std::move(mk)};
    });
}

helib_status helib_galois_keys_elements(const helib_galois_keys* gk, uint64_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(gk, "gk");
        const std::vector<uint64_t> elements = gk->gk->elements();
        if (size_query(out, out_len, elements.size(), needed)) return;
        std::copy(elements.begin(), elements.end(), out);
    });
}

helib_status helib_ctxt_serialize(const helib_ctxt* c, uint8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(c, "c");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { c->c.save(w); });
    });
}

helib_status helib_ctxt_serialize_coefficient_form(const helib_ctxt* c, uint8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(c, "c");
        serialize_into(out, out_len, needed, [&](helib::Writer& w) { c->c.save_coefficient_form(w); });
    });
}

helib_status helib_coefficient_form_add_poly(const helib_pubkey* pk, uint8_t* data, size_t len, const uint64_t* coeffs,
                                             size_t num_coeffs, double* noise_budget) {
    return guard([&] {
        require(pk, "pk");
        require(data, "data");
        if (num_coeffs > 0) require(coeffs, "coeffs");
        const double budget =
            helib::add_poly_in_coefficient_form(*pk->pk->context(), pk->pk->id(), data, len, coeffs, num_coeffs);
        if (noise_budget) *noise_budget = budget;
    });
}

helib_status helib_ctxt_deserialize(helib_ctxt** out, const helib_pubkey* pk, const uint8_t* data, size_t len) {
    return guard([&] {
        require(out, "out");
        require(pk, "pk");
        auto c = deserialize_from(data, len, [&](helib::Reader& r) {
            return helib::Ctxt::load(r, pk->pk->context(), pk->pk->id());
        });
        *out = new helib_ctxt{std::move(c)};
    });
}

helib_status helib_seckey_encrypt_serialized(const helib_seckey* sk, const uint64_t* coeffs, size_t num_coeffs,
                                             uint8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(sk, "sk");
        if (num_coeffs > 0) require(coeffs, "coeffs");
        const helib::Context& ctx = *sk->sk->context();
        helib::check_plaintext_length(num_coeffs, ctx.n());  // at the size query already
        const size_t size = helib::Ctxt::seeded_size(ctx);
        if (size_query(out, out_len, size, needed)) return;
        helib::Writer writer(out, out_len);
        helib::Ctxt::encrypt_symmetric(writer, *sk->sk, coeffs, num_coeffs);
        if (writer.size() != size) throw std::logic_error("seeded encryption wrote other than it announced");
        if (needed) *needed = size;
    });
}

helib_status helib_seckey_id(const helib_seckey* sk, uint64_t* out) {
    return guard([&] {
        require(sk, "sk");
        require(out, "out");
        *out = sk->sk->id();
    });
}

helib_status helib_pubkey_id(const helib_pubkey* pk, uint64_t* out) {
    return guard([&] {
        require(pk, "pk");
        require(out, "out");
        *out = pk->pk->id();
    });
}

helib_status helib_galois_keys_id(const helib_galois_keys* gk, uint64_t* out) {
    return guard([&] {
        require(gk, "gk");
        require(out, "out");
        *out = gk->gk->id();
    });
}

}  // extern "C"
