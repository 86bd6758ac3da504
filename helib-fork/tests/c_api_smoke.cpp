// A single-threaded smoke test of the engine through its C API, for platforms where the Rust
// test suite cannot run (aarch64 under qemu-user, where this machine's emulator hangs on thread
// creation): context, keys, encryption, a ciphertext product with relinearization, a Galois
// automorphism, modulus switching and serialization, each decrypted and compared with the
// plain result over BN254's scalar field. Exit status 0 when every check passes.

#include <cstdint>
#include <cstdio>
#include <vector>

#include "helib_c.h"

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
    std::printf("%-58s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) ++failures;
}

bool call(helib_status s, const char* what) {
    if (s != 0) {
        std::printf("%-58s FAILED: %s\n", what, helib_last_error());
        ++failures;
        return false;
    }
    return true;
}

}  // namespace

int main() {
    // BN254's scalar field r, little-endian limbs.
    const uint64_t p[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,
                           0x30644e72e131a029ULL};
    if (!call(helib_self_test(), "engine self test")) return 1;
    helib_context_params params{};
    params.m = 4096;  // N = 2048: a toy ring, insecure, for speed under emulation
    params.p_limbs = p;
    params.p_len = 4;
    params.ciphertext_bits = 700;
    params.ks_digits = 3;
    params.allow_insecure = 1;
    helib_context* ctx = nullptr;
    if (!call(helib_context_new(&ctx, &params), "context")) return 1;
    helib_context_info info{};
    call(helib_context_get_info(ctx, &info), "context info");
    const size_t n = info.ring_degree, limbs = info.plaintext_limbs;

    helib_seckey* sk = nullptr;
    helib_pubkey* pk = nullptr;
    if (!call(helib_seckey_new(&sk, ctx), "secret key") || !call(helib_pubkey_new(&pk, sk), "public key"))
        return 1;

    // a = 1 + 2X, b = 3 + 4X (small values: the limbs above the first are zero).
    auto poly = [&](std::vector<uint64_t> small) {
        std::vector<uint64_t> out(small.size() * limbs, 0);
        for (size_t i = 0; i < small.size(); ++i) out[i * limbs] = small[i];
        return out;
    };
    const std::vector<uint64_t> a = poly({1, 2}), b = poly({3, 4});
    helib_ctxt *ca = nullptr, *cb = nullptr;
    call(helib_ctxt_encrypt(&ca, pk, a.data(), 2), "encrypt a");
    call(helib_ctxt_encrypt(&cb, pk, b.data(), 2), "encrypt b");
    if (ca == nullptr || cb == nullptr) return 1;

    std::vector<uint64_t> out(n * limbs);
    size_t needed = 0;
    // Decrypts c and compares its first coefficients with `small` (all others zero).
    auto decrypts_to = [&](const helib_ctxt* c, std::vector<uint64_t> small, const char* what) {
        if (!call(helib_ctxt_decrypt(sk, c, out.data(), out.size(), &needed), what)) return;
        bool ok = true;
        for (size_t i = 0; i < n; ++i)
            for (size_t l = 0; l < limbs; ++l) {
                const uint64_t want = (l == 0 && i < small.size()) ? small[i] : 0;
                ok = ok && out[i * limbs + l] == want;
            }
        expect(ok, what);
    };

    decrypts_to(ca, {1, 2}, "decrypt(encrypt(1 + 2X))");
    call(helib_ctxt_mul(ca, cb, pk), "product");
    decrypts_to(ca, {3, 10, 8}, "(1 + 2X)(3 + 4X) = 3 + 10X + 8X^2 (relinearized)");

    // X -> X^3 (the Galois element 3): 3 + 10X^3 + 8X^6.
    const uint64_t g = 3;
    helib_galois_keys* gk = nullptr;
    call(helib_galois_keys_new(&gk, sk, &g, 1), "Galois key");
    call(helib_ctxt_apply_galois(ca, g, gk), "automorphism X -> X^3");
    decrypts_to(ca, {3, 0, 0, 10, 0, 0, 8}, "key-switched automorphism");

    // A Horner chain from b = 3 + 4X, then e = 5, then f = 1 + X:
    // sigma(sigma(b) + e) + f = 3 + 4X^9 + 5 + 1 + X. Its key set is freed after the chain is made:
    // the chain holds its own reference.
    helib_galois_keys* chain_keys = nullptr;
    call(helib_galois_keys_new(&chain_keys, sk, &g, 1), "the chain's Galois key");
    const std::vector<uint64_t> e = poly({5}), f = poly({1, 1});
    helib_ctxt *ce = nullptr, *cf = nullptr;
    call(helib_ctxt_encrypt(&ce, pk, e.data(), 1), "encrypt e");
    call(helib_ctxt_encrypt(&cf, pk, f.data(), 2), "encrypt f");
    helib_horner_chain* chain = nullptr;
    expect(helib_horner_chain_new(&chain, nullptr, g, chain_keys) != 0 && chain == nullptr,
           "a chain needs a ciphertext");
    expect(helib_horner_chain_new(&chain, cb, 1, chain_keys) != 0 && chain == nullptr, "a chain must rotate");
    call(helib_horner_chain_new(&chain, cb, g, chain_keys), "Horner chain");
    helib_galois_keys_free(chain_keys);
    call(helib_horner_chain_rotate_add(chain, ce), "Horner step");
    call(helib_horner_chain_rotate_add(chain, cf), "second Horner step");
    helib_ctxt* sum = nullptr;
    call(helib_horner_chain_result(chain, &sum), "Horner result");
    if (sum != nullptr) decrypts_to(sum, {9, 1, 0, 0, 0, 0, 0, 0, 0, 4}, "a two-step Horner chain");
    helib_ctxt_free(sum);
    helib_ctxt_free(ce);
    helib_ctxt_free(cf);
    helib_horner_chain_free(chain);

    call(helib_ctxt_mod_switch_down(ca), "modulus switch");
    decrypts_to(ca, {3, 0, 0, 10, 0, 0, 8}, "after modulus switching");

    // A key for the levels up to the ciphertext's only: X^3 -> X^9 there, refused one level up.
    helib_ctxt_info ca_info{};
    call(helib_ctxt_get_info(ca, &ca_info), "ciphertext info");
    helib_galois_keys* low = nullptr;
    call(helib_galois_keys_new_capped(&low, sk, &g, &ca_info.level, 1), "capped Galois key");
    uint32_t levels = 0;
    call(helib_galois_keys_levels(low, g, &levels), "its levels");
    expect(levels == ca_info.level, "the capped key serves the levels asked");
    expect(helib_ctxt_apply_galois(cb, g, low) == HELIB_ERR_LEVEL, "a capped key refuses a higher level");
    call(helib_ctxt_apply_galois(ca, g, low), "automorphism with the capped key");
    decrypts_to(ca, {3, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 8}, "capped-key automorphism");
    helib_galois_keys_free(low);

    // Bytes and back.
    size_t len = 0;
    call(helib_ctxt_serialize(ca, nullptr, 0, &len), "serialized size");
    std::vector<uint8_t> bytes(len);
    call(helib_ctxt_serialize(ca, bytes.data(), bytes.size(), &len), "serialize");
    helib_ctxt* back = nullptr;
    call(helib_ctxt_deserialize(&back, pk, bytes.data(), bytes.size()), "deserialize");
    if (back != nullptr)
        decrypts_to(back, {3, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 8},
                    "after a round trip through bytes");
    bytes.pop_back();
    helib_ctxt* bad = nullptr;
    expect(helib_ctxt_deserialize(&bad, pk, bytes.data(), bytes.size()) != 0 && bad == nullptr,
           "truncated bytes refused");

    // Online encryption: a zero with c0 in coefficient form, a message added in place, read back.
    helib_ctxt* zero = nullptr;
    call(helib_ctxt_encrypt(&zero, pk, nullptr, 0), "encryption of zero");
    call(helib_ctxt_serialize_coefficient_form(zero, nullptr, 0, &len), "coefficient-form size");
    std::vector<uint8_t> online(len);
    call(helib_ctxt_serialize_coefficient_form(zero, online.data(), online.size(), &len), "coefficient form");
    const std::vector<uint64_t> msg = poly({5, 6});
    double budget = 0;
    call(helib_coefficient_form_add_poly(pk, online.data(), online.size(), msg.data(), 2, &budget), "online add");
    expect(budget > 0, "an online encryption keeps a budget");
    helib_ctxt* got = nullptr;
    call(helib_ctxt_deserialize(&got, pk, online.data(), online.size()), "read an online encryption");
    if (got != nullptr) decrypts_to(got, {5, 6}, "online encryption");
    std::vector<uint8_t> full(len);
    call(helib_ctxt_serialize(zero, nullptr, 0, &len), "full size");
    full.resize(len);
    call(helib_ctxt_serialize(zero, full.data(), full.size(), &len), "full form");
    expect(helib_coefficient_form_add_poly(pk, full.data(), full.size(), msg.data(), 2, nullptr) != 0,
           "a ciphertext in NTT form is refused for online encryption");
    helib_ctxt_free(got);
    helib_ctxt_free(zero);

    helib_ctxt_free(back);
    helib_ctxt_free(ca);
    helib_ctxt_free(cb);
    helib_galois_keys_free(gk);
    helib_pubkey_free(pk);
    helib_seckey_free(sk);
    helib_context_free(ctx);
    std::printf("%s\n", failures == 0 ? "all checks passed" : "SOME CHECKS FAILED");
    return failures == 0 ? 0 : 1;
}
