/*
 * helib_c.h - pure C interface to the helib-fork BGV engine (big plaintext modulus).
 *
 * Conventions
 *  - Every object is a typed opaque handle with one _new (or producing call) and one _free.
 *    _free accepts NULL.
 *  - Every fallible function returns a helib_status. On failure the calling thread's last
 *    error message (helib_last_error) says why; output handles are left untouched.
 *  - Big integers (the plaintext modulus, constants, polynomial coefficients) travel as
 *    little-endian arrays of uint64_t limbs. A plaintext polynomial is `num_coeffs` values of
 *    exactly `plaintext_limbs` limbs each (helib_context_info), every value in [0, p).
 *  - Output arrays use a size query: pass out = NULL to learn the needed length in *needed.
 *  - No C++ exception ever crosses this boundary.
 *  - Const handles may be used from several threads at once; a non-const handle must not be
 *    shared between threads while it is being modified.
 */
#ifndef HELIB_C_H
#define HELIB_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t helib_status;

#define HELIB_OK 0
/* An argument is malformed: NULL pointer, wrong length, value out of range. */
#define HELIB_ERR_INVALID_ARGUMENT 1
/* The parameters give less than 128-bit security and the caller did not opt out. */
#define HELIB_ERR_INSECURE_PARAMETERS 2
/* Objects from different contexts or different keys were combined. */
#define HELIB_ERR_MISMATCH 3
/* The ciphertext's noise budget is used up: the operation or decryption cannot be trusted. */
#define HELIB_ERR_NOISE_BUDGET_EXHAUSTED 4
/* A key the operation needs is missing (e.g. a Galois key). */
#define HELIB_ERR_MISSING_KEY 5
/* The ciphertext is at the lowest level: no prime left to drop. */
#define HELIB_ERR_LEVEL 6
/* The output buffer is too small; *needed holds the required length. */
#define HELIB_ERR_BUFFER_TOO_SMALL 7
/* Memory allocation failed. */
#define HELIB_ERR_OUT_OF_MEMORY 8
/* Anything else (a bug in the engine). */
#define HELIB_ERR_INTERNAL 99

typedef struct helib_context helib_context;
typedef struct helib_seckey helib_seckey;
typedef struct helib_pubkey helib_pubkey;
typedef struct helib_ctxt helib_ctxt;
typedef struct helib_galois_keys helib_galois_keys;
typedef struct helib_master_keys helib_master_keys;
typedef struct helib_ptxt helib_ptxt;
typedef struct helib_sparse_encoder helib_sparse_encoder;
typedef struct helib_galois_batch helib_galois_batch;
typedef struct helib_horner_chain helib_horner_chain;

/* The calling thread's message for its last failed call ("" if none). Valid until the next
 * failing call on the same thread. */
const char *helib_last_error(void);

/* Process-wide, opt-in: asks the C allocator (glibc) to keep freed memory for reuse instead of
 * returning large blocks to the OS. Key switching and the FFT allocate tens of MiB per
 * operation, and on first touch a fresh page costs ~0.6 ms per MiB on the VMs we measured (a
 * Galois key at N = 65536 is 75 MiB). The cost: the process's resident memory stays at its
 * peak. Fails (HELIB_ERR_INVALID_ARGUMENT) where the C library offers no such control. */
helib_status helib_retain_freed_memory(void);

/* Known-answer self-test of the random generator: the ChaCha20 block of RFC 8439 (2.3.2), the
 * expansion of key seeds (which serialized keys depend on), and,
 * where the CPU has AVX2, the vector keystream and rejection sampler against the scalar ones and
 * the vector basis-conversion kernel against the scalar one at its bounds.
 * HELIB_ERR_INTERNAL on a mismatch. */
helib_status helib_self_test(void);

/* ---------------------------------------------------------------- context */

typedef struct helib_context_params {
    /* Cyclotomic index: a power of two >= 2048. The ring is Z[X]/(X^N + 1), N = m / 2. */
    uint64_t m;
    /* The plaintext modulus p, an odd prime, as little-endian limbs. */
    const uint64_t *p_limbs;
    size_t p_len;
    /* Requested size of the ciphertext modulus Q in bits (the chain is at least this large). */
    uint32_t ciphertext_bits;
    /* Number of key-switching digits (dnum) for hybrid key switching, >= 1. */
    uint32_t ks_digits;
    /* Non-zero: accept parameters estimated below 128-bit security. */
    int32_t allow_insecure;
    /* Non-zero: room for Galois keys a server derives from master keys (helib_master_keys_new):
     * extra chain primes above the working top level (helib_context_info.derivation_level),
     * which derived keys divide by. Costs modulus bits, which the security check counts. */
    int32_t derivable_keys;
    /* The parties whose key shares sum to the secret key (helib_seckey_new_share); 0 or 1 for a
     * key of one owner. The noise model counts the joint secret and errors as sums of this
     * many; serialized with the context. */
    uint32_t parties;
} helib_context_params;

typedef struct helib_context_info {
    uint64_t m;
    uint64_t ring_degree;        /* N = m / 2 */
    uint32_t plaintext_bits;     /* bit length of p */
    uint32_t plaintext_limbs;    /* uint64 limbs per plaintext coefficient */
    uint32_t num_ctxt_primes;    /* L: primes in the ciphertext chain = the top level */
    uint32_t num_special_primes; /* K: special primes for key switching */
    uint32_t ks_digits;          /* dnum */
    int32_t slots_available;     /* 1 if p = 1 mod m (full SIMD packing possible) */
    double log2_q;               /* log2 of the full ciphertext modulus Q */
    double log2_qp;              /* log2 of Q * P, the figure security is judged on */
    double security_bits;        /* estimated classical security level */
    double fresh_noise_budget;   /* noise budget in bits of a fresh encryption */
    uint32_t derivation_level;   /* derivable contexts: the level derived keys serve up to; else 0 */
    uint32_t parties;            /* parties sharing the secret key (1: one owner) */
} helib_context_info;

helib_status helib_context_new(helib_context **out, const helib_context_params *params);
void helib_context_free(helib_context *ctx);
helib_status helib_context_get_info(const helib_context *ctx, helib_context_info *out);
/* The ciphertext-chain primes q_0..q_{L-1} (out_len >= L) followed by nothing else. */
helib_status helib_context_primes(const helib_context *ctx, uint64_t *out, size_t out_len,
                                  size_t *needed);
/* For planning Galois keys that serve the lower levels only: out[s] (s < stages) is the level
 * stage s of a computation runs at when its input is a fresh (secret-key) encryption of random
 * values, each stage first switches to the natural level (helib_ctxt_mod_switch_to_natural) and
 * then grows the noise by log2_growth[s] bits (each in [0, 10000]) beyond one key switch. More
 * noise drops more primes: growths above the true ones give levels at or below the true ones. */
helib_status helib_context_stage_levels(const helib_context *ctx, const double *log2_growth, size_t stages,
                                        uint32_t *out);

/* ---------------------------------------------------------------- keys */

/* Samples a uniform ternary secret key from the OS CSPRNG. */
helib_status helib_seckey_new(helib_seckey **out, const helib_context *ctx);
#ifdef HELIB_INSECURE_DETERMINISTIC_KEYS
/* INSECURE, for reproducible experiments only: the secret key, and every key generated from
 * it, derived from the 32 bytes at `seed` alone (encryption randomness still comes from the
 * OS). Never for data that matters. Compiled only with HELIB_INSECURE_DETERMINISTIC_KEYS
 * defined (helib-bindings' feature insecure-deterministic-keys). */
helib_status helib_seckey_new_insecure_deterministic(helib_seckey **out, const helib_context *ctx,
                                                     const uint8_t *seed);
#endif
void helib_seckey_free(helib_seckey *sk);
/* The secret's coefficients in {-1, 0, 1} (N of them). Sensitive: for tests and export. */
helib_status helib_seckey_coefficients(const helib_seckey *sk, int8_t *out, size_t out_len,
                                       size_t *needed);

/* Public encryption key plus the relinearization key, derived from sk. */
helib_status helib_pubkey_new(helib_pubkey **out, const helib_seckey *sk);
void helib_pubkey_free(helib_pubkey *pk);
/* Bytes of memory held by the key material. */
helib_status helib_pubkey_size_bytes(const helib_pubkey *pk, uint64_t *out);

/* Galois (rotation) keys for the given elements g (odd, < 2N; duplicates ignored). Only these
 * keys are generated. With the BatchEncoder slot layout, g = 3^k mod 2N rotates both slot rows
 * left by k and g = 2N - 1 swaps the rows. */
helib_status helib_galois_keys_new(helib_galois_keys **out, const helib_seckey *sk,
                                   const uint64_t *elements, size_t count);
/* As helib_galois_keys_new, with levels[i] the chain levels element i's key serves (1 to the
 * number of chain primes; 0 or levels == NULL: all). Such a key carries only the rows of the
 * primes below its levels and of the special primes; rotating a ciphertext above them is
 * HELIB_ERR_LEVEL. A duplicate element gets the most levels asked of it. */
helib_status helib_galois_keys_new_capped(helib_galois_keys **out, const helib_seckey *sk,
                                          const uint64_t *elements, const uint32_t *levels, size_t count);
/* One key set holding the keys of all `parts` (count >= 1), which must come from one secret key
 * (HELIB_ERR_MISMATCH otherwise). The keys are shared, not copied, and the parts stay valid:
 * free them as usual. For generating key sets in parallel, one per thread. Where two parts hold
 * a key for one element, the one serving more levels is kept. */
helib_status helib_galois_keys_merge(helib_galois_keys **out, const helib_galois_keys *const *parts,
                                     size_t count);
void helib_galois_keys_free(helib_galois_keys *gk);
helib_status helib_galois_keys_size_bytes(const helib_galois_keys *gk, uint64_t *out);
/* *out = 1 if the key for g is present, else 0. */
helib_status helib_galois_keys_has(const helib_galois_keys *gk, uint64_t g, int32_t *out);
/* *out = 1 for derived keys (helib_master_keys_compose), which serve ciphertexts up to the
 * context's derivation level, else 0. */
helib_status helib_galois_keys_derived(const helib_galois_keys *gk, int32_t *out);
/* *out = the levels the key for g serves (HELIB_ERR_MISSING_KEY when absent). */
helib_status helib_galois_keys_levels(const helib_galois_keys *gk, uint64_t g, uint32_t *out);

/* Master Galois keys (derivable contexts only, else HELIB_ERR_INVALID_ARGUMENT): ordinary keys
 * for the given elements (odd, in (1, 2N)) and the identity key in derived form. A server
 * derives the key of any product of master elements from them, one master at a time. */
helib_status helib_master_keys_new(helib_master_keys **out, const helib_seckey *sk, const uint64_t *elements,
                                   size_t count);
void helib_master_keys_free(helib_master_keys *mk);
helib_status helib_master_keys_size_bytes(const helib_master_keys *mk, uint64_t *out);
helib_status helib_master_keys_id(const helib_master_keys *mk, uint64_t *out);
/* The master elements, in increasing order. */
helib_status helib_master_keys_elements(const helib_master_keys *mk, uint64_t *out, size_t out_len,
                                        size_t *needed);
/* The derived key of g * h mod 2N, as a key set of its own: from `from`, a derived key set
 * holding g's key (NULL: the identity, g = 1), and the master of h (HELIB_ERR_MISSING_KEY if
 * h is not a master). Merge the keys a computation needs with helib_galois_keys_merge. */
helib_status helib_master_keys_compose(helib_galois_keys **out, const helib_master_keys *mk,
                                       const helib_galois_keys *from, uint64_t g, uint64_t h);
helib_status helib_master_keys_serialize(const helib_master_keys *mk, uint8_t *out, size_t out_len,
                                         size_t *needed);
helib_status helib_master_keys_deserialize(helib_master_keys **out, const helib_context *ctx,
                                           const uint8_t *data, size_t len);

/* ---------------------------------------------------------------- encoded plaintexts */

/* A plaintext polynomial (as in helib_ctxt_encrypt) converted once to the engine's RNS/NTT form
 * at `level` (1..L; 0 means the top level L). Immutable: reuse it across any number of
 * multiplications and threads. */
helib_status helib_ptxt_encode(helib_ptxt **out, const helib_context *ctx, const uint64_t *coeffs,
                               size_t num_coeffs, uint32_t level);
/* As helib_ptxt_encode, also keeping the residues modulo the special primes (about
 * special/level more memory): what helib_ctxt_rotated_inner_product needs of a plaintext that
 * multiplies a rotation. */
helib_status helib_ptxt_encode_extended(helib_ptxt **out, const helib_context *ctx, const uint64_t *coeffs,
                                        size_t num_coeffs, uint32_t level);
void helib_ptxt_free(helib_ptxt *pt);

/* Tables for encoding sparse plaintexts sum_i c_i X^(i N / len) (len a power of two in 2..N) at
 * `level` (0 = top). A slot vector that repeats with period len/2 in both rows encodes to such a
 * polynomial; its encoding costs a size-len transform per prime instead of size N, and it is
 * stored in len words per prime. Immutable; share across threads. */
helib_status helib_sparse_encoder_new(helib_sparse_encoder **out, const helib_context *ctx, size_t len,
                                      uint32_t level);
void helib_sparse_encoder_free(helib_sparse_encoder *enc);
/* coeffs: len values of plaintext_limbs limbs each (helib_context_info), all below p. */
helib_status helib_ptxt_encode_sparse(helib_ptxt **out, const helib_sparse_encoder *enc,
                                      const uint64_t *coeffs);
helib_status helib_ptxt_level(const helib_ptxt *pt, uint32_t *out);
helib_status helib_ptxt_size_bytes(const helib_ptxt *pt, uint64_t *out);

/* ---------------------------------------------------------------- ciphertexts */

typedef struct helib_ctxt_info {
    uint32_t level;          /* primes in use, 1..L */
    uint32_t parts;          /* 2 normally; 3 only transiently */
    double log2_modulus;     /* log2 of the current modulus */
    double log2_noise_bound; /* tracked (heuristic, high-probability) bound on the noise */
    double noise_budget;     /* log2(modulus / 2) - log2_noise_bound; <= 0 means undecryptable */
} helib_ctxt_info;

/* Public-key encryption of the polynomial sum_i coeffs[i] X^i (num_coeffs <= N; missing
 * coefficients are zero; a constant is num_coeffs = 1). Fresh randomness per call. */
helib_status helib_ctxt_encrypt(helib_ctxt **out, const helib_pubkey *pk, const uint64_t *coeffs,
                                size_t num_coeffs);
/* Decrypts into N coefficients (N * plaintext_limbs limbs). Refuses with
 * HELIB_ERR_NOISE_BUDGET_EXHAUSTED when the tracked budget is <= 0 or the measured noise is
 * above a quarter of the modulus. */
helib_status helib_ctxt_decrypt(const helib_seckey *sk, const helib_ctxt *c, uint64_t *out,
                                size_t out_len, size_t *needed);
helib_status helib_ctxt_clone(helib_ctxt **out, const helib_ctxt *c);
void helib_ctxt_free(helib_ctxt *c);
helib_status helib_ctxt_get_info(const helib_ctxt *c, helib_ctxt_info *out);
/* Whether c's plaintext factor is one a result computed from fresh encryptions can have at its
 * level: rule HELIB_FACTOR_LINEAR, prod q_i^-1 over the primes dropped since the fresh level
 * (additions, plaintext products, rotations and modulus switching only); HELIB_FACTOR_ONE_PRODUCT,
 * that or that times the same for a level m at or above c's (one ciphertext product at level m).
 * HELIB_OK when it is, HELIB_ERR_MISMATCH when not (the factor field was altered, or the
 * ciphertext is another computation's), HELIB_ERR_INVALID_ARGUMENT for an unknown rule.
 * Decrypting such a ciphertext would return its plaintext scaled by a wrong constant. */
#define HELIB_FACTOR_LINEAR 1
#define HELIB_FACTOR_ONE_PRODUCT 2
helib_status helib_ctxt_check_factor(const helib_ctxt *c, uint32_t rule);
/* log2 of the infinity norm of the exact noise term [c0 + c1 s]_q (tests and diagnostics). */
helib_status helib_ctxt_measure_noise(const helib_seckey *sk, const helib_ctxt *c,
                                      double *log2_noise);

/* In place: a <- a op b. Levels are matched by switching the higher one down. */
helib_status helib_ctxt_add(helib_ctxt *a, const helib_ctxt *b);
helib_status helib_ctxt_sub(helib_ctxt *a, const helib_ctxt *b);
helib_status helib_ctxt_negate(helib_ctxt *a);
/* a <- a + k, a <- a * k for a constant k in [0, p) given as limbs (len <= plaintext_limbs). */
helib_status helib_ctxt_add_const(helib_ctxt *a, const uint64_t *k, size_t len);
helib_status helib_ctxt_mul_const(helib_ctxt *a, const uint64_t *k, size_t len);
/* a <- a + poly, a <- a * poly (mod X^N + 1, mod p); poly as in helib_ctxt_encrypt. */
helib_status helib_ctxt_add_poly(helib_ctxt *a, const uint64_t *coeffs, size_t num_coeffs);
helib_status helib_ctxt_mul_poly(helib_ctxt *a, const uint64_t *coeffs, size_t num_coeffs);
/* a <- a * pt, a + pt, a - pt for an encoded plaintext. An encoding above the ciphertext's level
 * is used on its lower rows. Multiplying switches a ciphertext above the encoding's level down
 * to it; adding refuses that case, and needs a ciphertext whose plaintext factor is 1 (fresh, or
 * only added to / multiplied by plaintexts). A refused call leaves `a` unchanged. */
helib_status helib_ctxt_mul_ptxt(helib_ctxt *a, const helib_ptxt *pt);
helib_status helib_ctxt_add_ptxt(helib_ctxt *a, const helib_ptxt *pt);
helib_status helib_ctxt_sub_ptxt(helib_ctxt *a, const helib_ptxt *pt);
/* a <- a * b, relinearized with pk's relinearization key. Operands are first switched down
 * to the level where their noise is near the modulus-switching floor (HElib's rule). */
helib_status helib_ctxt_mul(helib_ctxt *a, const helib_ctxt *b, const helib_pubkey *pk);
helib_status helib_ctxt_square(helib_ctxt *a, const helib_pubkey *pk);
/* BGV modulus switching: drop the top prime (or down to `level` primes). The decrypted
 * plaintext is unchanged. */
helib_status helib_ctxt_mod_switch_down(helib_ctxt *a);
helib_status helib_ctxt_mod_switch_to(helib_ctxt *a, uint32_t level);
/* Down to the lowest level at which the noise stays just above the modulus-switching floor:
 * the noise budget is kept (to within a bit) and later operations cost fewer primes. */
helib_status helib_ctxt_mod_switch_to_natural(helib_ctxt *a);

/* *out = sum_i cts[i] * pts[i] (count >= 1). The ciphertexts share one context, key, level and
 * plaintext factor (as rotations of one ciphertext do); each plaintext is at that level or above. */
helib_status helib_ctxt_inner_product(helib_ctxt **out, const helib_ctxt *const *cts,
                                      const helib_ptxt *const *pts, size_t count);

/* a <- sigma_g(a), key-switched back to the secret key (g = 1: unchanged). A missing key is
 * HELIB_ERR_MISSING_KEY naming g. */
helib_status helib_ctxt_apply_galois(helib_ctxt *a, uint64_t g, const helib_galois_keys *gk);
/* Hoisted: out[i] = sigma_{elements[i]}(a) for i < count, sharing one digit decomposition.
 * Either every out[i] is set (free each) or, on failure, none is. */
helib_status helib_ctxt_apply_galois_many(const helib_ctxt *a, const uint64_t *elements, size_t count,
                                          const helib_galois_keys *gk, helib_ctxt **out);

/* Galois images of a in phases that threads share: new lifts a's digits (elements != 1, each key
 * present, count >= 1); then helib_galois_batch_lift_rows for every part < parts (calls on
 * distinct parts may run at once); then helib_galois_batch_image for each k < count (at once on
 * distinct k). Each image equals helib_ctxt_apply_galois's. a and gk must outlive the batch. */
helib_status helib_galois_batch_new(helib_galois_batch **out, const helib_ctxt *a, const uint64_t *elements,
                                    size_t count, const helib_galois_keys *gk);
helib_status helib_galois_batch_lift_rows(helib_galois_batch *b, size_t part, size_t parts);
helib_status helib_galois_batch_image(const helib_galois_batch *b, size_t k, helib_ctxt **out);
void helib_galois_batch_free(helib_galois_batch *b);

/* sum_i sigma^i(x_i) for the automorphism sigma of `element` (not 1, its key in gk), by Horner's
 * rule from the last term: helib_horner_chain_new starts the accumulator at `last`, each
 * helib_horner_chain_rotate_add sets it to sigma(acc) + x (x at the chain's level and plaintext
 * factor), and helib_horner_chain_result returns it as a ciphertext (the chain stays usable).
 * Between steps the accumulator stays over the key-switching basis, so a step costs one
 * polynomial's mod-down instead of two; the results decrypt as rotating and adding would. The
 * chain holds its own reference to the keys. */
helib_status helib_horner_chain_new(helib_horner_chain **out, const helib_ctxt *last, uint64_t element,
                                    const helib_galois_keys *gk);
helib_status helib_horner_chain_rotate_add(helib_horner_chain *h, const helib_ctxt *x);
helib_status helib_horner_chain_result(const helib_horner_chain *h, helib_ctxt **out);
void helib_horner_chain_free(helib_horner_chain *h);

/* *out = sum_i pts[i] * sigma_{elements[i]}(a) (count >= 1), sharing one digit decomposition and
 * one mod-down for the whole sum. Each plaintext is at a's level or above, and extended
 * (helib_ptxt_encode_extended) where its element is not 1. */
helib_status helib_ctxt_rotated_inner_product(helib_ctxt **out, const helib_ctxt *a, const uint64_t *elements,
                                              const helib_ptxt *const *pts, size_t count,
                                              const helib_galois_keys *gk);

/* ---------------------------------------------------------------- serialization */

/* Byte strings for storing objects or sending them between processes (the format is in
 * helib-fork/src/serialization/serialize.h). Every object starts with a header naming its kind and its
 * context's fingerprint; the uniform halves of keys travel as 32-byte seeds.
 *
 * _serialize follows the size query (out = NULL: *needed is the length in bytes); after a
 * successful write, *needed (when not NULL) is the number of bytes written.
 * _deserialize validates everything before use: malformed, truncated or over-long data is
 * HELIB_ERR_INVALID_ARGUMENT ("corrupt data: ..."); well-formed data of another context, or a
 * ciphertext under another secret key than the given public key's, is HELIB_ERR_MISMATCH.
 * Nothing authenticates the data (the fingerprint and key ids catch mistakes, not forgeries):
 * check its origin as for any input. Keys and ciphertexts are allocated only once the data is
 * long enough to fill them; a context is built as its parameters say (GiBs of tables at the
 * largest ring), so a server with fixed parameters builds its own context instead. */

/* The parameters (m, p, requested ciphertext bits and digits). Deserializing rebuilds the
 * context, with the 128-bit gate unless allow_insecure is non-zero (the data cannot opt out),
 * and checks that the rebuilt primes match the writer's. */
helib_status helib_context_serialize(const helib_context *ctx, uint8_t *out, size_t out_len, size_t *needed);
helib_status helib_context_deserialize(helib_context **out, const uint8_t *data, size_t len,
                                       int32_t allow_insecure);
/* The most bytes a valid serialized object of `kind` can take under ctx (kinds below; count is
 * the number of keys for HELIB_OBJECT_GALOIS_KEYS and HELIB_OBJECT_MASTER_KEYS, at most N, and
 * ignored otherwise; ciphertexts are counted at the top level). Compare a file's or a message's
 * length with it before reading it whole; HELIB_OBJECT_CONTEXT gives the bound for any
 * context's bytes, HELIB_MAX_CONTEXT_BYTES. */
#define HELIB_OBJECT_CONTEXT 1
#define HELIB_OBJECT_SECRET_KEY 2
#define HELIB_OBJECT_PUBLIC_KEY 3
#define HELIB_OBJECT_GALOIS_KEYS 4
#define HELIB_OBJECT_CIPHERTEXT 5
#define HELIB_OBJECT_MASTER_KEYS 7
#define HELIB_OBJECT_ENCRYPTION_KEY 8
#define HELIB_OBJECT_KEY_SHARE 10
#define HELIB_OBJECT_DECRYPTION_SHARE 11
#define HELIB_OBJECT_RELIN_SHARE 13
#define HELIB_MAX_CONTEXT_BYTES 300
helib_status helib_max_serialized_size(const helib_context *ctx, uint32_t kind, uint64_t count, uint64_t *out);
/* The plaintext modulus p as little-endian limbs (plaintext_limbs of them). */
helib_status helib_context_plaintext_modulus(const helib_context *ctx, uint64_t *out, size_t out_len,
                                             size_t *needed);

/* The secret key. Sensitive: whoever holds these bytes can decrypt. */
helib_status helib_seckey_serialize(const helib_seckey *sk, uint8_t *out, size_t out_len, size_t *needed);
helib_status helib_seckey_deserialize(helib_seckey **out, const helib_context *ctx, const uint8_t *data,
                                      size_t len);
/* The public key with its relinearization key. */
helib_status helib_pubkey_serialize(const helib_pubkey *pk, uint8_t *out, size_t out_len, size_t *needed);
/* The public key without its relinearization key: enough to encrypt, and for a server that
 * multiplies no two ciphertexts (rotations and plaintext products only), at a fraction of the
 * size. helib_pubkey_deserialize reads it; multiplying ciphertexts under the key read back
 * fails with HELIB_ERR_MISSING_KEY. */
helib_status helib_pubkey_serialize_encryption_key(const helib_pubkey *pk, uint8_t *out, size_t out_len,
                                                   size_t *needed);
helib_status helib_pubkey_deserialize(helib_pubkey **out, const helib_context *ctx, const uint8_t *data,
                                      size_t len);
helib_status helib_galois_keys_serialize(const helib_galois_keys *gk, uint8_t *out, size_t out_len,
                                         size_t *needed);
helib_status helib_galois_keys_deserialize(helib_galois_keys **out, const helib_context *ctx,
                                           const uint8_t *data, size_t len);
/* The Galois elements that have a key, in increasing order. */
helib_status helib_galois_keys_elements(const helib_galois_keys *gk, uint64_t *out, size_t out_len,
                                        size_t *needed);
/* A ciphertext, with its level, noise bound and plaintext factor. Deserializing attaches it to
 * pk (whose relinearization key multiplication uses), which must belong to the same secret key;
 * it reads helib_ctxt_serialize's, helib_seckey_encrypt_serialized's and
 * helib_ctxt_serialize_coefficient_form's bytes. */
helib_status helib_ctxt_serialize(const helib_ctxt *c, uint8_t *out, size_t out_len, size_t *needed);
helib_status helib_ctxt_deserialize(helib_ctxt **out, const helib_pubkey *pk, const uint8_t *data, size_t len);
/* Online encryption. helib_ctxt_serialize_coefficient_form writes a ciphertext with c0's rows in
 * coefficient form (NTT form everywhere else); helib_ctxt_deserialize reads it, transforming c0
 * back. helib_coefficient_form_add_poly adds a polynomial (coeffs as in helib_ctxt_encrypt) to
 * such bytes in place, with no transform, and reports the noise budget in bits (may be NULL).
 * The bytes must hold a ciphertext under pk's secret key with plaintext factor 1 and a fresh
 * encryption's noise bound, which is left unchanged: it already allows for any message. Meant
 * for encryptions of zero made ahead of time, each used for exactly one message: adding two
 * messages to one zero, or one zero to two messages, gives ciphertexts whose difference is in
 * the clear. Bad coefficients leave the bytes as they were; a corrupt residue found while
 * summing is an error with the bytes half-summed (discard them). */
helib_status helib_ctxt_serialize_coefficient_form(const helib_ctxt *c, uint8_t *out, size_t out_len,
                                                   size_t *needed);
helib_status helib_coefficient_form_add_poly(const helib_pubkey *pk, uint8_t *data, size_t len,
                                             const uint64_t *coeffs, size_t num_coeffs, double *noise_budget);
/* Secret-key encryption of a polynomial (coeffs as in helib_ctxt_encrypt), written straight out
 * as bytes that helib_ctxt_deserialize reads: c1 is uniform and travels as its 32-byte seed, so
 * the bytes are about half of a serialized public-key encryption, and the fresh noise is lower
 * (no u or s factor). The size query (out = NULL) encrypts nothing; otherwise every call
 * encrypts afresh. */
helib_status helib_seckey_encrypt_serialized(const helib_seckey *sk, const uint64_t *coeffs, size_t num_coeffs,
                                             uint8_t *out, size_t out_len, size_t *needed);

/* The identity of the secret key behind a key or key set (random, non-zero, kept by
 * serialization): equal ids mean objects that work together. */
helib_status helib_seckey_id(const helib_seckey *sk, uint64_t *out);
helib_status helib_pubkey_id(const helib_pubkey *pk, uint64_t *out);
helib_status helib_galois_keys_id(const helib_galois_keys *gk, uint64_t *out);

/* ---------------------------------------------------------------- shared keys
 *
 * A secret key shared by the context's k parties (helib_context_params.parties), k-of-k: each
 * party makes a key share from a common random string of 32 bytes (crs) the parties agreed
 * on; the secret key is the sum of the shares and nobody holds it. A party's public key share
 * (helib_pubkey_new on its share: no relinearization key) and Galois key shares
 * (helib_galois_keys_new on its share, the same elements for every party) are combined into
 * the joint keys by adding them (helib_pubkey_combine, helib_galois_keys_combine: one share
 * per party). A share never decrypts or encrypts alone (HELIB_ERR_INVALID_ARGUMENT): the
 * parties decrypt together, each sending a decryption share. */

/* 32 fresh bytes from the OS CSPRNG (as every secret here is drawn): a party's contribution
 * to the common random string. */
helib_status helib_os_random_seed(uint8_t *out);
/* A fresh key share (OS CSPRNG) for the context's parties, from the 32 bytes at crs; its id
 * (helib_seckey_id) is the joint key's, the same for every share from crs. */
helib_status helib_seckey_new_share(helib_seckey **out, const helib_context *ctx, const uint8_t *crs);
/* The party's random tag of a key share (non-zero); 0 for a whole secret key. */
helib_status helib_seckey_party(const helib_seckey *sk, uint64_t *out);
/* A party's public key share or Galois key shares serialize with helib_pubkey_serialize and
 * helib_galois_keys_serialize, as kinds of their own: helib_pubkey_deserialize and
 * helib_galois_keys_deserialize refuse them, these read them (and nothing else). A share
 * encrypts and rotates nothing (HELIB_ERR_INVALID_ARGUMENT); it only combines. */
helib_status helib_pubkey_deserialize_share(helib_pubkey **out, const helib_context *ctx, const uint8_t *data,
                                            size_t len);
helib_status helib_galois_keys_deserialize_share(helib_galois_keys **out, const helib_context *ctx,
                                                 const uint8_t *data, size_t len);
/* The joint keys from one share per party (count = the context's parties). Mismatched shares
 * (another context, another common string, other elements or levels) are HELIB_ERR_MISMATCH;
 * a share given twice or a share with a relinearization key, HELIB_ERR_INVALID_ARGUMENT. */
helib_status helib_pubkey_combine(helib_pubkey **out, const helib_pubkey *const *shares, size_t count);
helib_status helib_galois_keys_combine(helib_galois_keys **out, const helib_galois_keys *const *shares,
                                       size_t count);
/* On a derivable context, a party's master key shares (helib_master_keys_new on its share, the
 * same elements for every party) combine the same way into the joint master keys, from which
 * a server derives Galois keys as from one owner's; a share derives nothing
 * (HELIB_ERR_INVALID_ARGUMENT). Shares serialize with helib_master_keys_serialize as a kind of
 * their own, which only helib_master_keys_deserialize_share reads. */
helib_status helib_master_keys_deserialize_share(helib_master_keys **out, const helib_context *ctx,
                                                 const uint8_t *data, size_t len);
helib_status helib_master_keys_combine(helib_master_keys **out, const helib_master_keys *const *shares,
                                       size_t count);

typedef struct helib_decryption_share helib_decryption_share;
/* Party share's part of decrypting c (a ciphertext under the joint key), with smudging noise of
 * smudge_bits (40 to 128) of statistical security. masked != 0: the plaintext ends as additive
 * shares, and this party's share of its coefficients (N coefficients of plaintext_limbs limbs,
 * as helib_ctxt_decrypt writes them; secret) goes to mask_out (mask_len >= N * limbs);
 * otherwise mask_out may be NULL, and the shares decrypt to the plaintext itself (send them only
 * to whoever may see it). HELIB_ERR_NOISE_BUDGET_EXHAUSTED when c's modulus has no room for the
 * smudging. */
helib_status helib_decryption_share_new(helib_decryption_share **out, const helib_seckey *share,
                                        const helib_ctxt *c, int32_t masked, uint32_t smudge_bits,
                                        uint64_t *mask_out, size_t mask_len);
void helib_decryption_share_free(helib_decryption_share *d);
/* The party's tag (helib_seckey_party) and whether the share is masked. */
helib_status helib_decryption_share_info(const helib_decryption_share *d, uint64_t *party, int32_t *masked);
helib_status helib_decryption_share_serialize(const helib_decryption_share *d, uint8_t *out, size_t out_len,
                                              size_t *needed);
helib_status helib_decryption_share_deserialize(helib_decryption_share **out, const helib_context *ctx,
                                                const uint8_t *data, size_t len);
/* c0 + the parties' shares, reduced mod p (N coefficients as helib_ctxt_decrypt writes them):
 * the plaintext when no share is masked; otherwise the plaintext minus the masked parties'
 * shares, which only added to them gives anything. One share per party, each for c
 * (HELIB_ERR_MISMATCH otherwise), from distinct parties. */
helib_status helib_ctxt_combine_decryption(const helib_ctxt *c, const helib_decryption_share *const *shares,
                                           size_t count, uint64_t *out, size_t out_len, size_t *needed);

/* The joint relinearization key, in two rounds. Round 1: each party's message and its
 * ephemeral secret (keep it, in memory, for round 2; freed with helib_relin_secret_free, which
 * wipes it). Round 2: each party answers every party's round-1 message. Both rounds' messages
 * are summed (helib_relin_share_combine, one per party), and helib_pubkey_with_joint_relin
 * puts the key together with the joint public key. The result serializes as a public key
 * (helib_pubkey_serialize), its relinearization key in full (about twice a single owner's). */
typedef struct helib_relin_share helib_relin_share;
typedef struct helib_relin_secret helib_relin_secret;
helib_status helib_relin_share_round1(helib_relin_share **out, helib_relin_secret **secret,
                                      const helib_seckey *share);
/* Round 2 answers every party's round-1 message (count of them, this party's own among them:
 * HELIB_ERR_INVALID_ARGUMENT otherwise) and uses the secret up (a second use is refused). */
helib_status helib_relin_share_round2(helib_relin_share **out, const helib_seckey *share, helib_relin_secret *secret,
                                      const helib_relin_share *const *round1, size_t count);
helib_status helib_relin_share_combine(helib_relin_share **out, const helib_relin_share *const *shares,
                                       size_t count);
/* The party (0 for a sum) and the round (1 or 2). */
helib_status helib_relin_share_info(const helib_relin_share *r, uint64_t *party, uint32_t *round);
helib_status helib_relin_share_serialize(const helib_relin_share *r, uint8_t *out, size_t out_len,
                                         size_t *needed);
helib_status helib_relin_share_deserialize(helib_relin_share **out, const helib_context *ctx,
                                           const uint8_t *data, size_t len);
void helib_relin_share_free(helib_relin_share *r);
void helib_relin_secret_free(helib_relin_secret *s);
helib_status helib_pubkey_with_joint_relin(helib_pubkey **out, const helib_pubkey *joint,
                                           const helib_relin_share *round1_sum,
                                           const helib_relin_share *round2_sum);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_H */
