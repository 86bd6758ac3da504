// libFuzzer target for the C API's deserializers: the bytes a server receives from a data owner
// (keys, ciphertexts, parameters) and the bytes the owner gets back are untrusted input. Every
// input must either be refused with a status (never a crash, hang, leak or sanitizer finding)
// or load into an object that then works: a loaded ciphertext decrypts and rotates, a loaded
// key encrypts or rotates.
//
// The first byte picks the object kind, the rest is its serialized form. Run it with
// `make fuzz` (which builds it with clang, address and undefined-behaviour sanitizers, seeds the
// corpus with valid objects of every kind, and fuzzes for FUZZ_SECONDS).
//
// Environment: HELIB_FUZZ_KEY=file keeps the fixture's secret key across runs (read from file,
// or written there on the first run), so that keys and ciphertexts in a corpus stay under the
// fixture's key and loaded objects get used, not refused as another key's. HELIB_FUZZ_SEEDS=dir
// writes one valid input of each kind into dir (the corpus seeds) before fuzzing starts.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "helib_c.h"

namespace {

// A small insecure ring keeps every iteration fast; the parsers do not depend on the size.
constexpr uint64_t kM = 4096;
constexpr uint32_t kBits = 400;
// The levels of the fixture's capped Galois key (its chain has 8 primes).
constexpr uint32_t kCappedLevels = 7;
// BN254's scalar field prime, little-endian limbs.
constexpr uint64_t kP[4] = {0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029};
constexpr uint64_t kRotateLeft1 = 3;  // g = 3 rotates both slot rows by one

enum Kind : uint8_t {
    kContext, kSecKey, kPubKey, kGaloisKeys, kCtxt, kSeededCtxt, kMasterKeys, kEncryptionKey, kCoeffCtxt,
    kKeyShare, kDecryptionShare, kRelinShare, kPubKeyShare, kGaloisKeyShare, kMasterKeyShare, kKinds
};

void must(helib_status s, const char* what) {
    if (s != HELIB_OK) {
        std::fprintf(stderr, "fuzz fixture: %s failed: %s\n", what, helib_last_error());
        std::abort();
    }
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        std::abort();
    }
}

template <typename T>
std::vector<uint8_t> bytes_of(helib_status (*ser)(const T*, uint8_t*, size_t, size_t*), const T* obj) {
    size_t needed = 0;
    must(ser(obj, nullptr, 0, &needed), "size query");
    std::vector<uint8_t> out(needed);
    must(ser(obj, out.data(), out.size(), &needed), "serialize");
    return out;
}

// Valid objects of one key set, built once, and the data a fuzz input is checked against.
struct Fixture {
    helib_context* ctx = nullptr;
    helib_seckey* sk = nullptr;
    helib_pubkey* pk = nullptr;
    helib_galois_keys* gk = nullptr;
    helib_ctxt* ct = nullptr;
    // A derivable context of the same ring, its key and a fresh ciphertext, for master keys.
    helib_context* dctx = nullptr;
    helib_seckey* dsk = nullptr;
    helib_pubkey* dpk = nullptr;
    helib_master_keys* mk = nullptr;
    helib_ctxt* dct = nullptr;
    // A key shared by two parties: the context, both shares, a ciphertext under the joint key
    // and the second party's decryption share of it.
    helib_context* tctx = nullptr;
    helib_seckey* share[2] = {nullptr, nullptr};
    helib_pubkey* tpk = nullptr;
    helib_ctxt* tct = nullptr;
    helib_decryption_share* second = nullptr;
    // The second party's public and Galois key shares, which a loaded first party's combine with.
    helib_pubkey* pk_share1 = nullptr;
    helib_galois_keys* gk_share1 = nullptr;
    // A derivable context for two parties, the second party's master key shares, and a
    // ciphertext under the joint key.
    helib_context* dtctx = nullptr;
    helib_master_keys* mk_share1 = nullptr;
    helib_ctxt* dtct = nullptr;
    size_t coeffs_len = 0;  // N * plaintext limbs
    std::vector<std::vector<uint8_t>> seeds;

    void load_or_make_secret_key() {
        const char* path = std::getenv("HELIB_FUZZ_KEY");
        if (path != nullptr) {
            std::ifstream in(path, std::ios::binary);
            if (in) {
                const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
                must(helib_seckey_deserialize(&sk, ctx, bytes.data(), bytes.size()), "reading HELIB_FUZZ_KEY");
                return;
            }
        }
        must(helib_seckey_new(&sk, ctx), "secret key");
        if (path != nullptr) write_file(path, bytes_of(helib_seckey_serialize, sk));
    }

    Fixture() {
        const helib_context_params params{kM, kP, 4, kBits, 2, 1};
        must(helib_context_new(&ctx, &params), "context");
        helib_context_info info{};
        must(helib_context_get_info(ctx, &info), "context info");
        coeffs_len = info.ring_degree * info.plaintext_limbs;
        load_or_make_secret_key();
        must(helib_pubkey_new(&pk, sk), "public key");
        const uint64_t elements[2] = {kRotateLeft1, kM - 1};
        // The row swap's key for the levels below the top only, so the seeds hold both forms.
        const uint32_t levels[2] = {0, kCappedLevels};
        must(helib_galois_keys_new_capped(&gk, sk, elements, levels, 2), "Galois keys");
        std::vector<uint64_t> coeffs(coeffs_len);
        for (size_t i = 0; i < coeffs.size(); i += info.plaintext_limbs) coeffs[i] = i + 1;
        must(helib_ctxt_encrypt(&ct, pk, coeffs.data(), info.ring_degree), "encrypt");

        const helib_context_params dparams{kM, kP, 4, kBits, 2, 1, 1};
        must(helib_context_new(&dctx, &dparams), "derivable context");
        must(helib_seckey_new(&dsk, dctx), "derivable secret key");
        must(helib_pubkey_new(&dpk, dsk), "derivable public key");
        must(helib_master_keys_new(&mk, dsk, elements, 2), "master keys");
        must(helib_ctxt_encrypt(&dct, dpk, coeffs.data(), info.ring_degree), "derivable encrypt");

        helib_context_params tparams{kM, kP, 4, kBits, 2, 1, 0, 2};
        must(helib_context_new(&tctx, &tparams), "shared-key context");
        const uint8_t crs[32] = {7};
        helib_pubkey* pk_share[2] = {nullptr, nullptr};
        for (int i = 0; i < 2; ++i) {
            must(helib_seckey_new_share(&share[i], tctx, crs), "key share");
            must(helib_pubkey_new(&pk_share[i], share[i]), "public key share");
        }
        must(helib_pubkey_combine(&tpk, pk_share, 2), "joint public key");
        must(helib_ctxt_encrypt(&tct, tpk, coeffs.data(), info.ring_degree), "joint encrypt");
        seeds.resize(kKinds);
        seeds[kPubKeyShare] = bytes_of(helib_pubkey_serialize, pk_share[0]);
        must(helib_pubkey_new(&pk_share1, share[1]), "public key share");
        helib_galois_keys* gk_share0 = nullptr;
        must(helib_galois_keys_new(&gk_share0, share[0], elements, 1), "Galois key share");
        must(helib_galois_keys_new(&gk_share1, share[1], elements, 1), "Galois key share");
        seeds[kGaloisKeyShare] = bytes_of(helib_galois_keys_serialize, gk_share0);
        helib_galois_keys_free(gk_share0);

        helib_context_params dtparams{kM, kP, 4, kBits, 2, 1, 1, 2};
        must(helib_context_new(&dtctx, &dtparams), "derivable shared-key context");
        helib_seckey* dshare[2] = {nullptr, nullptr};
        helib_pubkey* dpk_share[2] = {nullptr, nullptr};
        helib_master_keys* dmk_share0 = nullptr;
        for (int i = 0; i < 2; ++i) {
            must(helib_seckey_new_share(&dshare[i], dtctx, crs), "derivable key share");
            must(helib_pubkey_new(&dpk_share[i], dshare[i]), "derivable public key share");
        }
        must(helib_master_keys_new(&dmk_share0, dshare[0], elements, 2), "master key share");
        must(helib_master_keys_new(&mk_share1, dshare[1], elements, 2), "master key share");
        seeds[kMasterKeyShare] = bytes_of(helib_master_keys_serialize, dmk_share0);
        helib_pubkey* dtpk = nullptr;
        must(helib_pubkey_combine(&dtpk, dpk_share, 2), "derivable joint public key");
        must(helib_ctxt_encrypt(&dtct, dtpk, coeffs.data(), info.ring_degree), "derivable joint encrypt");
        helib_pubkey_free(dtpk);
        helib_master_keys_free(dmk_share0);
        for (int i = 0; i < 2; ++i) {
            helib_pubkey_free(dpk_share[i]);
            helib_seckey_free(dshare[i]);
        }
        helib_decryption_share* first = nullptr;
        must(helib_decryption_share_new(&first, share[0], tct, 0, 40, nullptr, 0), "decryption share");
        must(helib_decryption_share_new(&second, share[1], tct, 0, 40, nullptr, 0), "decryption share");
        for (helib_pubkey* p : pk_share) helib_pubkey_free(p);

        seeds[kKeyShare] = bytes_of(helib_seckey_serialize, share[0]);
        seeds[kDecryptionShare] = bytes_of(helib_decryption_share_serialize, first);
        helib_decryption_share_free(first);
        helib_relin_share* round1 = nullptr;
        helib_relin_secret* secret = nullptr;
        must(helib_relin_share_round1(&round1, &secret, share[0]), "relinearization round 1");
        seeds[kRelinShare] = bytes_of(helib_relin_share_serialize, round1);
        helib_relin_share_free(round1);
        helib_relin_secret_free(secret);
        seeds[kContext] = bytes_of(helib_context_serialize, ctx);
        seeds[kSecKey] = bytes_of(helib_seckey_serialize, sk);
        seeds[kPubKey] = bytes_of(helib_pubkey_serialize, pk);
        seeds[kGaloisKeys] = bytes_of(helib_galois_keys_serialize, gk);
        seeds[kCtxt] = bytes_of(helib_ctxt_serialize, ct);
        seeds[kMasterKeys] = bytes_of(helib_master_keys_serialize, mk);
        seeds[kEncryptionKey] = bytes_of(helib_pubkey_serialize_encryption_key, pk);
        seeds[kCoeffCtxt] = bytes_of(helib_ctxt_serialize_coefficient_form, ct);
        size_t needed = 0;
        must(helib_seckey_encrypt_serialized(sk, coeffs.data(), info.ring_degree, nullptr, 0, &needed),
             "seeded size");
        seeds[kSeededCtxt].resize(needed);
        must(helib_seckey_encrypt_serialized(sk, coeffs.data(), info.ring_degree, seeds[kSeededCtxt].data(),
                                             needed, &needed),
             "seeded encryption");
    }
};

const Fixture& fixture() {
    static const Fixture f;
    return f;
}

void write_seeds(const char* dir) {
    const Fixture& f = fixture();
    for (size_t k = 0; k < f.seeds.size(); ++k) {
        std::vector<uint8_t> input{static_cast<uint8_t>(k)};
        input.insert(input.end(), f.seeds[k].begin(), f.seeds[k].end());
        write_file(std::string(dir) + "/seed-" + std::to_string(k), input);
    }
}

// A little-endian field of `bytes` bytes.
uint64_t read_le(const uint8_t* p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// A status the deserializers may give for bad data; anything else is a finding.
void expect_refusal(helib_status s, const char* what) {
    if (s == HELIB_ERR_INVALID_ARGUMENT || s == HELIB_ERR_MISMATCH || s == HELIB_ERR_INSECURE_PARAMETERS ||
        s == HELIB_ERR_OUT_OF_MEMORY)
        return;
    std::fprintf(stderr, "%s: unexpected status %d: %s\n", what, s, helib_last_error());
    std::abort();
}

// Statuses a loaded object may give when used: its (valid) fields may say its noise is spent,
// or name another key (a key id is any non-zero number).
void expect_usable(helib_status s, const char* what) {
    if (s == HELIB_OK || s == HELIB_ERR_NOISE_BUDGET_EXHAUSTED || s == HELIB_ERR_MISMATCH) return;
    std::fprintf(stderr, "%s: unexpected status %d on a loaded object: %s\n", what, s, helib_last_error());
    std::abort();
}

// Decrypts c and rotates it by one with gk.
void use_ctxt(const Fixture& f, const helib_seckey* sk, const helib_galois_keys* gk, const helib_ctxt* c) {
    std::vector<uint64_t> out(f.coeffs_len);
    expect_usable(helib_ctxt_decrypt(sk, c, out.data(), out.size(), nullptr), "decrypt");
    helib_ctxt* copy = nullptr;
    must(helib_ctxt_clone(&copy, c), "clone");
    expect_usable(helib_ctxt_apply_galois(copy, kRotateLeft1, gk), "rotate");
    helib_ctxt_free(copy);
}

// One fuzz input: the kind byte, then the bytes to deserialize.
void run_one(const uint8_t* input, size_t size) {
    if (size == 0) return;
    const Fixture& f = fixture();
    const uint8_t* data = input + 1;
    const size_t len = size - 1;
    switch (input[0] % kKinds) {
        case kContext: {
            // Loading builds the context the data describes, up to the engine's largest ring
            // and modulus (seconds and GiBs): skip sizes beyond the fixture's, as a server that
            // takes parameters from others would bound them. m and the modulus bits follow the
            // 16-byte header.
            if (len >= 28 && (read_le(data + 16, 8) > kM || read_le(data + 24, 4) > kBits)) return;
            helib_context* ctx = nullptr;
            const helib_status s = helib_context_deserialize(&ctx, data, len, 1);
            if (s != HELIB_OK) {
                expect_refusal(s, "context");
                break;
            }
            helib_context_info info{};
            must(helib_context_get_info(ctx, &info), "loaded context info");
            helib_context_free(ctx);
            break;
        }
        case kSecKey: {
            helib_seckey* sk = nullptr;
            const helib_status s = helib_seckey_deserialize(&sk, f.ctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "secret key");
                break;
            }
            std::vector<uint64_t> out(f.coeffs_len);
            expect_usable(helib_ctxt_decrypt(sk, f.ct, out.data(), out.size(), nullptr), "decrypt with loaded key");
            helib_seckey_free(sk);
            break;
        }
        case kPubKey: {
            helib_pubkey* pk = nullptr;
            const helib_status s = helib_pubkey_deserialize(&pk, f.ctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "public key");
                break;
            }
            const uint64_t one[4] = {1, 0, 0, 0};  // the constant 1, in p's four limbs
            helib_ctxt* c = nullptr;
            must(helib_ctxt_encrypt(&c, pk, one, 1), "encrypt with loaded key");
            helib_ctxt* sq = nullptr;
            must(helib_ctxt_clone(&sq, f.ct), "clone");
            // Relinearization reads the loaded key's other half, if it came with one.
            const helib_status sqs = helib_ctxt_square(sq, pk);
            if (sqs != HELIB_ERR_MISSING_KEY) expect_usable(sqs, "square with loaded key");
            helib_ctxt_free(sq);
            helib_ctxt_free(c);
            helib_pubkey_free(pk);
            break;
        }
        case kGaloisKeys: {
            helib_galois_keys* gk = nullptr;
            const helib_status s = helib_galois_keys_deserialize(&gk, f.ctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "Galois keys");
                break;
            }
            size_t count = 0;
            must(helib_galois_keys_elements(gk, nullptr, 0, &count), "elements");
            std::vector<uint64_t> elements(count);
            must(helib_galois_keys_elements(gk, elements.data(), count, &count), "elements");
            for (uint64_t g : elements) {
                helib_ctxt* c = nullptr;
                must(helib_ctxt_clone(&c, f.ct), "clone");
                // A key for the lower levels only rotates there: switch down to it first (a
                // level too low for the ciphertext's budget is refused, and then skipped).
                uint32_t levels = 0;
                must(helib_galois_keys_levels(gk, g, &levels), "levels");
                if (helib_ctxt_mod_switch_to(c, levels) == HELIB_OK)
                    expect_usable(helib_ctxt_apply_galois(c, g, gk), "rotate with loaded keys");
                helib_ctxt_free(c);
            }
            helib_galois_keys_free(gk);
            break;
        }
        case kEncryptionKey: {
            helib_pubkey* pk = nullptr;
            const helib_status s = helib_pubkey_deserialize(&pk, f.ctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "encryption key");
                break;
            }
            const uint64_t one[4] = {1, 0, 0, 0};
            helib_ctxt* c = nullptr;
            must(helib_ctxt_encrypt(&c, pk, one, 1), "encrypt with loaded encryption key");
            helib_ctxt_free(c);
            helib_pubkey_free(pk);
            break;
        }
        case kMasterKeys: {
            helib_master_keys* mk = nullptr;
            const helib_status s = helib_master_keys_deserialize(&mk, f.dctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "master keys");
                break;
            }
            size_t count = 0;
            must(helib_master_keys_elements(mk, nullptr, 0, &count), "master elements");
            std::vector<uint64_t> elements(count);
            must(helib_master_keys_elements(mk, elements.data(), count, &count), "master elements");
            // Each master's derived key (from the loaded identity key), used on a ciphertext.
            for (uint64_t g : elements) {
                helib_galois_keys* gk = nullptr;
                must(helib_master_keys_compose(&gk, mk, nullptr, 1, g), "derive from loaded masters");
                helib_ctxt* c = nullptr;
                must(helib_ctxt_clone(&c, f.dct), "clone");
                expect_usable(helib_ctxt_apply_galois(c, g, gk), "rotate with a derived key");
                helib_ctxt_free(c);
                helib_galois_keys_free(gk);
            }
            helib_master_keys_free(mk);
            break;
        }
        case kKeyShare: {
            helib_seckey* sk = nullptr;
            const helib_status s = helib_seckey_deserialize(&sk, f.tctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "key share");
                break;
            }
            helib_decryption_share* d = nullptr;
            const helib_status ds = helib_decryption_share_new(&d, sk, f.tct, 0, 40, nullptr, 0);
            if (ds == HELIB_OK) helib_decryption_share_free(d);
            else expect_usable(ds, "decryption share with a loaded key share");
            helib_seckey_free(sk);
            break;
        }
        case kDecryptionShare: {
            helib_decryption_share* d = nullptr;
            const helib_status s = helib_decryption_share_deserialize(&d, f.tctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "decryption share");
                break;
            }
            // Combined with the other party's: the plaintext, or a share of another ciphertext,
            // or the other party's own share again (refused as such).
            const helib_decryption_share* both[2] = {d, f.second};
            std::vector<uint64_t> out(f.coeffs_len);
            const helib_status cs = helib_ctxt_combine_decryption(f.tct, both, 2, out.data(), out.size(), nullptr);
            if (cs != HELIB_ERR_INVALID_ARGUMENT) expect_usable(cs, "combine a loaded decryption share");
            helib_decryption_share_free(d);
            break;
        }
        case kRelinShare: {
            helib_relin_share* r = nullptr;
            const helib_status s = helib_relin_share_deserialize(&r, f.tctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "relinearization share");
                break;
            }
            // What loads writes back the same bytes, and a loaded sum of round 1 is answered.
            const std::vector<uint8_t> again = bytes_of(helib_relin_share_serialize, r);
            if (again.size() != len || !std::equal(again.begin(), again.end(), data)) {
                std::fprintf(stderr, "a relinearization share did not write back its bytes\n");
                std::abort();
            }
            uint64_t party = 0;
            uint32_t round = 0;
            must(helib_relin_share_info(r, &party, &round), "relinearization share info");
            if (round == 1) {
                // Answered beside the other party's own message: a loaded message of another
                // party is answered (or refused as another key's), a sum or the party's own
                // tag refused.
                helib_relin_share* r2 = nullptr;
                helib_relin_share* r1 = nullptr;
                helib_relin_secret* u = nullptr;
                must(helib_relin_share_round1(&r1, &u, f.share[1]), "round 1");
                const helib_relin_share* both[2] = {r, r1};
                const helib_status s2 = helib_relin_share_round2(&r2, f.share[1], u, both, 2);
                if (s2 != HELIB_ERR_INVALID_ARGUMENT) expect_usable(s2, "round 2 on a loaded message");
                helib_relin_share_free(r2);
                helib_relin_share_free(r1);
                helib_relin_secret_free(u);
            }
            helib_relin_share_free(r);
            break;
        }
        case kPubKeyShare: {
            // A party's public key share combines with the other party's, or is refused.
            helib_pubkey* p = nullptr;
            const helib_status s = helib_pubkey_deserialize_share(&p, f.tctx, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "public key share");
                break;
            }
            helib_pubkey* joint = nullptr;
            const helib_pubkey* both[2] = {p, f.pk_share1};
            const helib_status cs = helib_pubkey_combine(&joint, both, 2);
            if (cs == HELIB_OK) {
                const uint64_t one[4] = {1, 0, 0, 0};
                helib_ctxt* c = nullptr;
                expect_usable(helib_ctxt_encrypt(&c, joint, one, 1), "encrypt with a combined key");
                helib_ctxt_free(c);
            } else if (cs != HELIB_ERR_INVALID_ARGUMENT) {
                expect_usable(cs, "combine a loaded public key share");
            }
            helib_pubkey_free(joint);
            helib_pubkey_free(p);
            break;
        }
        case kGaloisKeyShare:
        case kMasterKeyShare: {
            // Shares of Galois or master keys combine with the other party's into keys that
            // rotate a ciphertext under the joint key, or are refused.
            const bool master = input[0] % kKinds == kMasterKeyShare;
            helib_galois_keys* gk = nullptr;
            helib_galois_keys* combined = nullptr;
            helib_master_keys* mk = nullptr;
            helib_master_keys* joint_mk = nullptr;
            helib_status s;
            if (master) {
                s = helib_master_keys_deserialize_share(&mk, f.dtctx, data, len);
            } else {
                s = helib_galois_keys_deserialize_share(&gk, f.tctx, data, len);
            }
            if (s != HELIB_OK) {
                expect_refusal(s, master ? "master key share" : "Galois key share");
                break;
            }
            helib_status cs;
            if (master) {
                const helib_master_keys* both[2] = {mk, f.mk_share1};
                cs = helib_master_keys_combine(&joint_mk, both, 2);
                if (cs == HELIB_OK) cs = helib_master_keys_compose(&combined, joint_mk, nullptr, 1, kRotateLeft1);
            } else {
                const helib_galois_keys* both[2] = {gk, f.gk_share1};
                cs = helib_galois_keys_combine(&combined, both, 2);
            }
            if (cs == HELIB_OK) {
                helib_ctxt* c = nullptr;
                must(helib_ctxt_clone(&c, master ? f.dtct : f.tct), "clone");
                expect_usable(helib_ctxt_apply_galois(c, kRotateLeft1, combined), "rotate with combined keys");
                helib_ctxt_free(c);
            } else if (cs != HELIB_ERR_INVALID_ARGUMENT && cs != HELIB_ERR_MISSING_KEY) {
                expect_usable(cs, "combine loaded key shares");
            }
            helib_galois_keys_free(combined);
            helib_master_keys_free(joint_mk);
            helib_master_keys_free(mk);
            helib_galois_keys_free(gk);
            break;
        }
        case kCtxt:
        case kSeededCtxt: {
            helib_ctxt* c = nullptr;
            const helib_status s = helib_ctxt_deserialize(&c, f.pk, data, len);
            if (s != HELIB_OK) {
                expect_refusal(s, "ciphertext");
                break;
            }
            use_ctxt(f, f.sk, f.gk, c);
            helib_ctxt_free(c);
            break;
        }
        case kCoeffCtxt: {
            // An online encryption: the message is added in place to bytes the engine must check
            // first; whatever it accepts must then load and work.
            std::vector<uint8_t> bytes(data, data + len);
            const uint64_t one[4] = {1, 0, 0, 0};
            const helib_status s = helib_coefficient_form_add_poly(f.pk, bytes.data(), bytes.size(), one, 1, nullptr);
            if (s != HELIB_OK) {
                expect_refusal(s, "online encryption");
                break;
            }
            helib_ctxt* c = nullptr;
            const helib_status r = helib_ctxt_deserialize(&c, f.pk, bytes.data(), bytes.size());
            if (r != HELIB_OK) {
                expect_refusal(r, "online encryption read back");
                break;
            }
            use_ctxt(f, f.sk, f.gk, c);
            helib_ctxt_free(c);
            break;
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fixture();
    if (const char* dir = std::getenv("HELIB_FUZZ_SEEDS")) write_seeds(dir);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* input, size_t size) {
    // The C API catches everything itself; an exception here is the harness's own (or a
    // finding), and is reported as a crash rather than left to std::terminate.
    try {
        run_one(input, size);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "uncaught exception: %s\n", e.what());
        std::abort();
    } catch (...) {
        std::fprintf(stderr, "uncaught exception of unknown type\n");
        std::abort();
    }
    return 0;
}
