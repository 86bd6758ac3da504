// The C API shim: every entry point runs its body through `guard`, the one catch ladder that maps
// engine exceptions to status codes and records the message for helib_last_error().
#if defined(__GLIBC__) || __has_include(<malloc.h>)
#include <malloc.h>
#endif

#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <vector>
#include <string>

#include "capi/capi_support.h"
#include "math/rns_kernels.h"
#include "scheme/wipe.h"

namespace {

using namespace helib_capi;

NTL::ZZ constant_from(const helib::Context& ctx, const uint64_t* k, size_t len) {
    require(k, "constant");
    if (len == 0 || len > ctx.p_limbs())
        throw helib::InvalidArgument("constant must have 1.." + std::to_string(ctx.p_limbs()) + " limbs");
    NTL::ZZ v = helib::zz_from_limbs(k, len);
    if (v >= ctx.p()) throw helib::InvalidArgument("constant is not below the plaintext modulus p");
    return v;
}

void check_poly(const uint64_t* coeffs, size_t num) {
    if (num > 0) require(coeffs, "coeffs");
}

helib_status encode_ptxt(helib_ptxt** out, const helib_context* ctx, const uint64_t* coeffs, size_t num_coeffs,
                         uint32_t level, bool extended) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        check_poly(coeffs, num_coeffs);
        const size_t lvl = level == 0 ? ctx->ctx->num_chain() : level;
        *out = new helib_ptxt{std::make_shared<const helib::EncodedPtxt>(ctx->ctx, coeffs, num_coeffs, lvl, extended)};
    });
}

}  // namespace

extern "C" {

const char* helib_last_error(void) { return t_last_error.c_str(); }

helib_status helib_self_test(void) {
    return guard([&] {
        helib::random_self_test();
        helib::kernels_self_test();
        helib::ntt_self_test();
    });
}

helib_status helib_retain_freed_memory(void) {
    return guard([&] {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
        // Blocks up to 32 MiB (glibc's ceiling) come from the heap, and the heap is not
        // trimmed below 2 GiB of free space, so freed buffers are reused without page faults.
        // The top pad matters to threads other than the main one: their arenas are 64 MiB
        // heaps, and glibc unmaps a heap that falls empty unless the pad exceeds a heap's size.
        // Without it, rayon's workers fault their buffers in afresh after every large free.
        if (mallopt(M_MMAP_THRESHOLD, 32 << 20) != 1 || mallopt(M_TRIM_THRESHOLD, INT_MAX) != 1 ||
            mallopt(M_TOP_PAD, 256 << 20) != 1)
            throw helib::InvalidArgument("the C allocator refused the settings (mallopt)");
#else
        throw helib::InvalidArgument("retaining freed memory needs glibc's mallopt");
#endif
    });
}

helib_status helib_context_new(helib_context** out, const helib_context_params* params) {
    return guard([&] {
        require(out, "out");
        require(params, "params");
        require(params->p_limbs, "params->p_limbs");
        if (params->p_len == 0) throw helib::InvalidArgument("p must have at least one limb");
        helib::ContextParams cp;
        cp.m = params->m;
        cp.p = helib::zz_from_limbs(params->p_limbs, params->p_len);
        cp.ciphertext_bits = params->ciphertext_bits;
        cp.ks_digits = params->ks_digits;
        cp.allow_insecure = params->allow_insecure != 0;
        cp.derivable_keys = params->derivable_keys != 0;
        cp.parties = params->parties == 0 ? 1 : params->parties;
        auto ctx = std::make_shared<const helib::Context>(cp);
        *out = new helib_context{std::move(ctx)};
    });
}

void helib_context_free(helib_context* ctx) { delete ctx; }

helib_status helib_context_get_info(const helib_context* ctx, helib_context_info* out) {
    return guard([&] {
        require(ctx, "ctx");
        require(out, "out");
        const helib::Context& c = *ctx->ctx;
        out->m = c.m();
        out->ring_degree = c.n();
        out->plaintext_bits = static_cast<uint32_t>(c.p_bits());
        out->plaintext_limbs = static_cast<uint32_t>(c.p_limbs());
        out->num_ctxt_primes = static_cast<uint32_t>(c.num_chain());
        out->num_special_primes = static_cast<uint32_t>(c.num_special());
        out->ks_digits = static_cast<uint32_t>(c.num_digits());
        out->slots_available = c.slots_available() ? 1 : 0;
        out->log2_q = c.log2_q(c.num_chain());
        out->log2_qp = c.log2_qp();
        out->security_bits = c.security_bits();
        out->fresh_noise_budget = c.fresh_noise_budget();
        out->derivation_level = static_cast<uint32_t>(c.derivation_level());
        out->parties = c.parties();
    });
}

helib_status helib_context_primes(const helib_context* ctx, uint64_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(ctx, "ctx");
        const helib::Context& c = *ctx->ctx;
        if (size_query(out, out_len, c.num_chain(), needed)) return;
        for (size_t i = 0; i < c.num_chain(); ++i) out[i] = c.prime(i);
    });
}

helib_status helib_context_stage_levels(const helib_context* ctx, const double* log2_growth, size_t stages,
                                        uint32_t* out) {
    return guard([&] {
        require(ctx, "ctx");
        if (stages == 0) return;
        require(log2_growth, "log2_growth");
        require(out, "out");
        const std::vector<size_t> levels =
            helib::stage_levels(*ctx->ctx, std::vector<double>(log2_growth, log2_growth + stages));
        for (size_t s = 0; s < stages; ++s) out[s] = static_cast<uint32_t>(levels[s]);
    });
}

helib_status helib_seckey_new(helib_seckey** out, const helib_context* ctx) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        *out = new helib_seckey{std::make_shared<const helib::SecKey>(ctx->ctx)};
    });
}

#ifdef HELIB_INSECURE_DETERMINISTIC_KEYS
helib_status helib_seckey_new_insecure_deterministic(helib_seckey** out, const helib_context* ctx,
                                                     const uint8_t* seed) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        require(seed, "seed");
        helib::Seed s;
        std::memcpy(s.data(), seed, s.size());
        *out = new helib_seckey{std::make_shared<const helib::SecKey>(ctx->ctx, s)};
        helib::secure_wipe(s.data(), s.size());
    });
}
#endif

void helib_seckey_free(helib_seckey* sk) { delete sk; }

helib_status helib_seckey_coefficients(const helib_seckey* sk, int8_t* out, size_t out_len, size_t* needed) {
    return guard([&] {
        require(sk, "sk");
        const auto& s = sk->sk->coefficients();
        if (size_query(out, out_len, s.size(), needed)) return;
        for (size_t i = 0; i < s.size(); ++i) out[i] = static_cast<int8_t>(s[i]);
    });
}

helib_status helib_pubkey_new(helib_pubkey** out, const helib_seckey* sk) {
    return guard([&] {
        require(out, "out");
        require(sk, "sk");
        *out = new helib_pubkey{std::make_shared<const helib::PubKey>(*sk->sk)};
    });
}

void helib_pubkey_free(helib_pubkey* pk) { delete pk; }

helib_status helib_pubkey_size_bytes(const helib_pubkey* pk, uint64_t* out) {
    return guard([&] {
        require(pk, "pk");
        require(out, "out");
        *out = pk->pk->size_bytes();
    });
}

helib_status helib_ctxt_encrypt(helib_ctxt** out, const helib_pubkey* pk, const uint64_t* coeffs, size_t num_coeffs) {
    return guard([&] {
        require(out, "out");
        require(pk, "pk");
        check_poly(coeffs, num_coeffs);
        *out = new helib_ctxt{helib::Ctxt::encrypt(*pk->pk, coeffs, num_coeffs)};
    });
}

helib_status helib_ctxt_decrypt(const helib_seckey* sk, const helib_ctxt* c, uint64_t* out, size_t out_len,
                                size_t* needed) {
    return guard([&] {
        require(sk, "sk");
        require(c, "c");
        const helib::Context& ctx = *c->c.context();
        if (size_query(out, out_len, ctx.n() * ctx.p_limbs(), needed)) return;
        c->c.decrypt(*sk->sk, out);
    });
}

helib_status helib_ctxt_clone(helib_ctxt** out, const helib_ctxt* c) {
    return guard([&] {
        require(out, "out");
        require(c, "c");
        *out = new helib_ctxt{c->c};
    });
}

void helib_ctxt_free(helib_ctxt* c) { delete c; }

helib_status helib_ctxt_get_info(const helib_ctxt* c, helib_ctxt_info* out) {
    return guard([&] {
        require(c, "c");
        require(out, "out");
        out->level = static_cast<uint32_t>(c->c.level());
        out->parts = 2;
        out->log2_modulus = c->c.log2_modulus();
        out->log2_noise_bound = c->c.log2_noise();
        out->noise_budget = c->c.noise_budget();
    });
}

helib_status helib_ctxt_check_factor(const helib_ctxt* c, uint32_t rule) {
    return guard([&] {
        require(c, "c");
        if (rule != HELIB_FACTOR_LINEAR && rule != HELIB_FACTOR_ONE_PRODUCT)
            throw helib::InvalidArgument("unknown factor rule " + std::to_string(rule));
        c->c.check_factor(static_cast<helib::FactorRule>(rule));
    });
}

helib_status helib_ctxt_measure_noise(const helib_seckey* sk, const helib_ctxt* c, double* log2_noise) {
    return guard([&] {
        require(sk, "sk");
        require(c, "c");
        require(log2_noise, "log2_noise");
        *log2_noise = c->c.measure_noise(*sk->sk);
    });
}

helib_status helib_ctxt_add(helib_ctxt* a, const helib_ctxt* b) {
    return guard([&] {
        require(a, "a");
        require(b, "b");
        a->c.add(b->c);
    });
}

helib_status helib_ctxt_sub(helib_ctxt* a, const helib_ctxt* b) {
    return guard([&] {
        require(a, "a");
        require(b, "b");
        a->c.sub(b->c);
    });
}

helib_status helib_ctxt_negate(helib_ctxt* a) {
    return guard([&] {
        require(a, "a");
        a->c.negate();
    });
}

helib_status helib_ctxt_add_const(helib_ctxt* a, const uint64_t* k, size_t len) {
    return guard([&] {
        require(a, "a");
        a->c.add_const(constant_from(*a->c.context(), k, len));
    });
}

helib_status helib_ctxt_mul_const(helib_ctxt* a, const uint64_t* k, size_t len) {
    return guard([&] {
        require(a, "a");
        a->c.mul_const(constant_from(*a->c.context(), k, len));
    });
}

helib_status helib_ctxt_add_poly(helib_ctxt* a, const uint64_t* coeffs, size_t num_coeffs) {
    return guard([&] {
        require(a, "a");
        check_poly(coeffs, num_coeffs);
        a->c.add_poly(coeffs, num_coeffs);
    });
}

helib_status helib_ctxt_mul_poly(helib_ctxt* a, const uint64_t* coeffs, size_t num_coeffs) {
    return guard([&] {
        require(a, "a");
        check_poly(coeffs, num_coeffs);
        a->c.mul_poly(coeffs, num_coeffs);
    });
}

helib_status helib_ctxt_mul(helib_ctxt* a, const helib_ctxt* b, const helib_pubkey* pk) {
    return guard([&] {
        require(a, "a");
        require(b, "b");
        require(pk, "pk");
        a->c.mul(b->c, *pk->pk);
    });
}

helib_status helib_ctxt_square(helib_ctxt* a, const helib_pubkey* pk) {
    return guard([&] {
        require(a, "a");
        require(pk, "pk");
        a->c.square(*pk->pk);
    });
}

helib_status helib_ctxt_mod_switch_down(helib_ctxt* a) {
    return guard([&] {
        require(a, "a");
        a->c.mod_switch_down();
    });
}

helib_status helib_ctxt_mod_switch_to(helib_ctxt* a, uint32_t level) {
    return guard([&] {
        require(a, "a");
        a->c.mod_switch_to(level);
    });
}

helib_status helib_ctxt_mod_switch_to_natural(helib_ctxt* a) {
    return guard([&] {
        require(a, "a");
        a->c.mod_switch_to_natural();
    });
}

helib_status helib_galois_keys_new(helib_galois_keys** out, const helib_seckey* sk, const uint64_t* elements,
                                   size_t count) {
    return guard([&] {
        require(out, "out");
        require(sk, "sk");
        if (count > 0) require(elements, "elements");
        std::vector<uint64_t> gs(elements, elements + count);
        *out = new helib_galois_keys{std::make_shared<const helib::GaloisKeys>(*sk->sk, gs)};
    });
}

helib_status helib_galois_keys_new_capped(helib_galois_keys** out, const helib_seckey* sk, const uint64_t* elements,
                                          const uint32_t* levels, size_t count) {
    return guard([&] {
        require(out, "out");
        require(sk, "sk");
        if (count > 0) require(elements, "elements");
        std::vector<uint64_t> gs(elements, elements + count);
        std::vector<size_t> lv;
        if (levels != nullptr) lv.assign(levels, levels + count);
        *out = new helib_galois_keys{std::make_shared<const helib::GaloisKeys>(*sk->sk, gs, lv)};
    });
}

helib_status helib_galois_keys_merge(helib_galois_keys** out, const helib_galois_keys* const* parts,
                                     size_t count) {
    return guard([&] {
        require(out, "out");
        require(parts, "parts");
        std::vector<const helib::GaloisKeys*> sets;
        for (size_t i = 0; i < count; ++i) {
            require(parts[i], "parts[i]");
            sets.push_back(parts[i]->gk.get());
        }
        *out = new helib_galois_keys{std::make_shared<const helib::GaloisKeys>(sets)};
    });
}

void helib_galois_keys_free(helib_galois_keys* gk) { delete gk; }

helib_status helib_galois_keys_derived(const helib_galois_keys* gk, int32_t* out) {
    return guard([&] {
        require(gk, "gk");
        require(out, "out");
        *out = gk->gk->derived() ? 1 : 0;
    });
}

helib_status helib_galois_keys_levels(const helib_galois_keys* gk, uint64_t g, uint32_t* out) {
    return guard([&] {
        require(gk, "gk");
        require(out, "out");
        *out = static_cast<uint32_t>(gk->gk->levels(g));
    });
}

helib_status helib_master_keys_new(helib_master_keys** out, const helib_seckey* sk, const uint64_t* elements,
                                   size_t count) {
    return guard([&] {
        require(out, "out");
        require(sk, "sk");
        if (count > 0) require(elements, "elements");
        std::vector<uint64_t> gs(elements, elements + count);
        for (uint64_t g : gs)
            if (g == 1) throw helib::InvalidArgument("the identity is not a master element (it needs no key)");
        *out = new helib_master_keys{std::make_shared<const helib::MasterKeys>(*sk->sk, gs)};
    });
}

void helib_master_keys_free(helib_master_keys* mk) { delete mk; }

helib_status helib_master_keys_size_bytes(const helib_master_keys* mk, uint64_t* out) {
    return guard([&] {
        require(mk, "mk");
        require(out, "out");
        *out = mk->mk->size_bytes();
    });
}

helib_status helib_master_keys_id(const helib_master_keys* mk, uint64_t* out) {
    return guard([&] {
        require(mk, "mk");
        require(out, "out");
        *out = mk->mk->id();
    });
}

helib_status helib_master_keys_elements(const helib_master_keys* mk, uint64_t* out, size_t out_len,
                                        size_t* needed) {
    return guard([&] {
        require(mk, "mk");
        const std::vector<uint64_t> elements = mk->mk->elements();
        if (size_query(out, out_len, elements.size(), needed)) return;
        std::copy(elements.begin(), elements.end(), out);
    });
}

helib_status helib_master_keys_compose(helib_galois_keys** out, const helib_master_keys* mk,
                                       const helib_galois_keys* from, uint64_t g, uint64_t h) {
    return guard([&] {
        require(out, "out");
        require(mk, "mk");
        auto gk = std::make_shared<const helib::GaloisKeys>(mk->mk->compose(from ? from->gk.get() : nullptr, g, h));
        *out = new helib_galois_keys{std::move(gk)};
    });
}

helib_status helib_galois_keys_size_bytes(const helib_galois_keys* gk, uint64_t* out) {
    return guard([&] {
        require(gk, "gk");
        require(out, "out");
        *out = gk->gk->size_bytes();
    });
}

helib_status helib_galois_keys_has(const helib_galois_keys* gk, uint64_t g, int32_t* out) {
    return guard([&] {
        require(gk, "gk");
        require(out, "out");
        *out = gk->gk->has(g) ? 1 : 0;
    });
}

helib_status helib_ctxt_apply_galois(helib_ctxt* a, uint64_t g, const helib_galois_keys* gk) {
    return guard([&] {
        require(a, "a");
        require(gk, "gk");
        a->c.apply_galois(g, *gk->gk);
    });
}

helib_status helib_ctxt_apply_galois_many(const helib_ctxt* a, const uint64_t* elements, size_t count,
                                          const helib_galois_keys* gk, helib_ctxt** out) {
    return guard([&] {
        require(a, "a");
        require(gk, "gk");
        require(out, "out");
        if (count > 0) require(elements, "elements");
        std::vector<uint64_t> gs(elements, elements + count);
        std::vector<helib::Ctxt> results = a->c.apply_galois_many(gs, *gk->gk);
        // Wrap every result before publishing any, so a failure leaves out untouched.
        std::vector<std::unique_ptr<helib_ctxt>> handles;
        handles.reserve(count);
        for (auto& r : results) handles.push_back(std::unique_ptr<helib_ctxt>(new helib_ctxt{std::move(r)}));
        for (size_t i = 0; i < count; ++i) out[i] = handles[i].release();
    });
}

helib_status helib_galois_batch_new(helib_galois_batch** out, const helib_ctxt* a, const uint64_t* elements,
                                    size_t count, const helib_galois_keys* gk) {
    return guard([&] {
        require(out, "out");
        require(a, "a");
        require(gk, "gk");
        require(elements, "elements");
        if (count == 0) throw helib::InvalidArgument("a Galois batch needs at least one element");
        std::vector<uint64_t> gs(elements, elements + count);
        *out = new helib_galois_batch{helib::GaloisBatch(a->c, gs, *gk->gk)};
    });
}

helib_status helib_galois_batch_lift_rows(helib_galois_batch* b, size_t part, size_t parts) {
    return guard([&] {
        require(b, "b");
        b->batch.lift_rows(part, parts);
    });
}

helib_status helib_galois_batch_image(const helib_galois_batch* b, size_t k, helib_ctxt** out) {
    return guard([&] {
        require(b, "b");
        require(out, "out");
        *out = new helib_ctxt{b->batch.image(k)};
    });
}

void helib_galois_batch_free(helib_galois_batch* b) { delete b; }

helib_status helib_horner_chain_new(helib_horner_chain** out, const helib_ctxt* last, uint64_t element,
                                    const helib_galois_keys* gk) {
    return guard([&] {
        require(out, "out");
        require(last, "last");
        require(gk, "gk");
        *out = new helib_horner_chain{gk->gk, helib::HornerChain(last->c, element, *gk->gk)};
    });
}

helib_status helib_horner_chain_rotate_add(helib_horner_chain* h, const helib_ctxt* x) {
    return guard([&] {
        require(h, "h");
        require(x, "x");
        h->chain.rotate_add(x->c);
    });
}

helib_status helib_horner_chain_result(const helib_horner_chain* h, helib_ctxt** out) {
    return guard([&] {
        require(h, "h");
        require(out, "out");
        *out = new helib_ctxt{h->chain.result()};
    });
}

void helib_horner_chain_free(helib_horner_chain* h) { delete h; }

helib_status helib_ptxt_encode(helib_ptxt** out, const helib_context* ctx, const uint64_t* coeffs,
                               size_t num_coeffs, uint32_t level) {
    return encode_ptxt(out, ctx, coeffs, num_coeffs, level, /*extended=*/false);
}

helib_status helib_ptxt_encode_extended(helib_ptxt** out, const helib_context* ctx, const uint64_t* coeffs,
                                        size_t num_coeffs, uint32_t level) {
    return encode_ptxt(out, ctx, coeffs, num_coeffs, level, /*extended=*/true);
}

helib_status helib_sparse_encoder_new(helib_sparse_encoder** out, const helib_context* ctx, size_t len,
                                      uint32_t level) {
    return guard([&] {
        require(out, "out");
        require(ctx, "ctx");
        const size_t lvl = level == 0 ? ctx->ctx->num_chain() : level;
        *out = new helib_sparse_encoder{std::make_shared<const helib::SparseTables>(ctx->ctx, len, lvl)};
    });
}

void helib_sparse_encoder_free(helib_sparse_encoder* enc) { delete enc; }

helib_status helib_ptxt_encode_sparse(helib_ptxt** out, const helib_sparse_encoder* enc, const uint64_t* coeffs) {
    return guard([&] {
        require(out, "out");
        require(enc, "enc");
        require(coeffs, "coeffs");
        *out = new helib_ptxt{std::make_shared<const helib::EncodedPtxt>(*enc->tables, coeffs)};
    });
}

void helib_ptxt_free(helib_ptxt* pt) { delete pt; }

helib_status helib_ptxt_level(const helib_ptxt* pt, uint32_t* out) {
    return guard([&] {
        require(pt, "pt");
        require(out, "out");
        *out = static_cast<uint32_t>(pt->pt->level());
    });
}

helib_status helib_ptxt_size_bytes(const helib_ptxt* pt, uint64_t* out) {
    return guard([&] {
        require(pt, "pt");
        require(out, "out");
        *out = pt->pt->size_bytes();
    });
}

helib_status helib_ctxt_mul_ptxt(helib_ctxt* a, const helib_ptxt* pt) {
    return guard([&] {
        require(a, "a");
        require(pt, "pt");
        a->c.mul_ptxt(*pt->pt);
    });
}

helib_status helib_ctxt_add_ptxt(helib_ctxt* a, const helib_ptxt* pt) {
    return guard([&] {
        require(a, "a");
        require(pt, "pt");
        a->c.add_ptxt(*pt->pt, false);
    });
}

helib_status helib_ctxt_sub_ptxt(helib_ctxt* a, const helib_ptxt* pt) {
    return guard([&] {
        require(a, "a");
        require(pt, "pt");
        a->c.add_ptxt(*pt->pt, true);
    });
}

helib_status helib_ctxt_inner_product(helib_ctxt** out, const helib_ctxt* const* cts,
                                      const helib_ptxt* const* pts, size_t count) {
    return guard([&] {
        require(out, "out");
        if (count > 0) {
            require(cts, "cts");
            require(pts, "pts");
        }
        std::vector<const helib::Ctxt*> c(count);
        std::vector<const helib::EncodedPtxt*> p(count);
        for (size_t i = 0; i < count; ++i) {
            require(cts[i], "cts[i]");
            require(pts[i], "pts[i]");
            c[i] = &cts[i]->c;
            p[i] = pts[i]->pt.get();
        }
        *out = new helib_ctxt{helib::Ctxt::inner_product(c, p)};
    });
}

helib_status helib_ctxt_rotated_inner_product(helib_ctxt** out, const helib_ctxt* a, const uint64_t* elements,
                                              const helib_ptxt* const* pts, size_t count,
                                              const helib_galois_keys* gk) {
    return guard([&] {
        require(out, "out");
        require(a, "a");
        require(gk, "gk");
        if (count > 0) {
            require(elements, "elements");
            require(pts, "pts");
        }
        std::vector<const helib::EncodedPtxt*> p(count);
        for (size_t i = 0; i < count; ++i) {
            require(pts[i], "pts[i]");
            p[i] = pts[i]->pt.get();
        }
        std::vector<uint64_t> gs(elements, elements + count);
        *out = new helib_ctxt{a->c.rotated_inner_product(gs, p, *gk->gk)};
    });
}

}  // extern "C"
