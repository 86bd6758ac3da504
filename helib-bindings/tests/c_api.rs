//! The C API contract of `helib_c.h`, exercised directly: status codes, the thread-local last
//! error, the size-query protocol, and the engine's own argument and mismatch checks (the
//! safe crate checks some of these before calling C, so they are only reachable from here).

use std::ffi::CStr;
use std::ptr;

use helib_bindings::*;

/// BN254's scalar field prime, little-endian limbs.
const BN254_P: [u64; 4] = [
    0x43e1f593f0000001,
    0x2833e84879b97091,
    0xb85045b68181585d,
    0x30644e72e131a029,
];
const N: usize = 2048;
const LIMBS: usize = 4;

fn last_error() -> String {
    // SAFETY: returns NULL or a NUL-terminated thread-local string, copied out at once.
    unsafe {
        let p = helib_last_error();
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

#[track_caller]
fn assert_status(status: helib_status, expected: helib_status) {
    assert_eq!(status, expected, "last error: {:?}", last_error());
    if expected != HELIB_OK {
        assert!(!last_error().is_empty(), "a failure must leave a message");
    }
}

struct Objects {
    ctx: *mut helib_context,
    sk: *mut helib_seckey,
    pk: *mut helib_pubkey,
}

impl Objects {
    fn new() -> Self {
        let params = helib_context_params {
            m: 2 * N as u64,
            p_limbs: BN254_P.as_ptr(),
            p_len: BN254_P.len(),
            ciphertext_bits: 1000,
            ks_digits: 3,
            allow_insecure: 1,
            derivable_keys: 0,
            parties: 0,
        };
        let mut o = Objects {
            ctx: ptr::null_mut(),
            sk: ptr::null_mut(),
            pk: ptr::null_mut(),
        };
        // SAFETY: valid params and out-pointers; handles are freed in Drop.
        unsafe {
            assert_status(helib_context_new(&mut o.ctx, &params), HELIB_OK);
            assert_status(helib_seckey_new(&mut o.sk, o.ctx), HELIB_OK);
            assert_status(helib_pubkey_new(&mut o.pk, o.sk), HELIB_OK);
        }
        o
    }

    fn encrypt(&self, coeffs: &[u64]) -> *mut helib_ctxt {
        let mut c = ptr::null_mut();
        // SAFETY: coeffs holds whole values of LIMBS limbs; c is a valid out-pointer.
        unsafe {
            assert_status(
                helib_ctxt_encrypt(&mut c, self.pk, coeffs.as_ptr(), coeffs.len() / LIMBS),
                HELIB_OK,
            );
        }
        c
    }
}

impl Drop for Objects {
    fn drop(&mut self) {
        // SAFETY: each handle came from its _new and is freed once.
        unsafe {
            helib_pubkey_free(self.pk);
            helib_seckey_free(self.sk);
            helib_context_free(self.ctx);
        }
    }
}

fn constant(v: u64) -> Vec<u64> {
    let mut limbs = vec![0u64; LIMBS];
    limbs[0] = v;
    limbs
}

#[test]
fn free_functions_accept_null() {
    // SAFETY: documented to accept NULL.
    unsafe {
        helib_ctxt_free(ptr::null_mut());
        helib_pubkey_free(ptr::null_mut());
        helib_seckey_free(ptr::null_mut());
        helib_context_free(ptr::null_mut());
    }
}

#[test]
fn null_arguments_are_invalid_and_outputs_untouched() {
    let mut ctx: *mut helib_context = ptr::null_mut();
    // SAFETY: NULL params is the case under test; the out-pointer is valid.
    let status = unsafe { helib_context_new(&mut ctx, ptr::null()) };
    assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
    assert!(ctx.is_null());

    let mut info = std::mem::MaybeUninit::<helib_context_info>::uninit();
    // SAFETY: NULL context under test.
    let status = unsafe { helib_context_get_info(ptr::null(), info.as_mut_ptr()) };
    assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
}

#[test]
fn last_error_is_per_thread() {
    let mut ctx: *mut helib_context = ptr::null_mut();
    // SAFETY: NULL params is the failure under test.
    let status = unsafe { helib_context_new(&mut ctx, ptr::null()) };
    assert_eq!(status, HELIB_ERR_INVALID_ARGUMENT);
    assert!(!last_error().is_empty());
    let other = std::thread::spawn(last_error).join().expect("thread");
    assert_eq!(other, "", "a thread that never failed has no message");
}

#[test]
fn context_info_and_size_queries() {
    let o = Objects::new();
    let mut info = std::mem::MaybeUninit::<helib_context_info>::uninit();
    // SAFETY: live context, valid out-pointer.
    let info = unsafe {
        assert_status(helib_context_get_info(o.ctx, info.as_mut_ptr()), HELIB_OK);
        info.assume_init()
    };
    assert_eq!(info.m, 2 * N as u64);
    assert_eq!(info.ring_degree, N as u64);
    assert_eq!(info.plaintext_bits, 254);
    assert_eq!(info.plaintext_limbs, LIMBS as u32);
    assert_eq!(info.ks_digits, 3);
    assert_eq!(info.slots_available, 1);
    assert!(info.log2_q >= 1000.0 && info.log2_qp > info.log2_q);

    let l = info.num_ctxt_primes as usize;
    let mut needed = 0usize;
    // SAFETY: size query with out = NULL, then a too-small and a right-sized buffer.
    unsafe {
        assert_status(
            helib_context_primes(o.ctx, ptr::null_mut(), 0, &mut needed),
            HELIB_OK,
        );
        assert_eq!(needed, l);
        let mut small = vec![0u64; l - 1];
        needed = 0;
        let status = helib_context_primes(o.ctx, small.as_mut_ptr(), small.len(), &mut needed);
        assert_status(status, HELIB_ERR_BUFFER_TOO_SMALL);
        assert_eq!(needed, l, "a too-small buffer still reports the size");
        let mut primes = vec![0u64; l];
        let status = helib_context_primes(o.ctx, primes.as_mut_ptr(), l, &mut needed);
        assert_status(status, HELIB_OK);
        assert!(primes
            .iter()
            .all(|&q| q % (2 * N as u64) == 1 && q > 1 << 40));

        assert_status(
            helib_seckey_coefficients(o.sk, ptr::null_mut(), 0, &mut needed),
            HELIB_OK,
        );
        assert_eq!(needed, N);
        let mut size = 0u64;
        assert_status(helib_pubkey_size_bytes(o.pk, &mut size), HELIB_OK);
        assert!(size > 0);
    }
}

#[test]
fn size_bounds_match_the_bytes_and_refuse_unknown_kinds() {
    let o = Objects::new();
    let c = o.encrypt(&constant(7));
    let mut written = 0usize;
    let mut bound = 0u64;
    // SAFETY: live handles; size queries and bounds write only to valid out-pointers.
    unsafe {
        assert_status(
            helib_ctxt_serialize(c, ptr::null_mut(), 0, &mut written),
            HELIB_OK,
        );
        let kind = HELIB_OBJECT_CIPHERTEXT as u32;
        assert_status(
            helib_max_serialized_size(o.ctx, kind, 0, &mut bound),
            HELIB_OK,
        );
        assert_eq!(
            written as u64, bound,
            "a fresh ciphertext sits at the top level"
        );
        assert_status(
            helib_context_serialize(o.ctx, ptr::null_mut(), 0, &mut written),
            HELIB_OK,
        );
        let kind = HELIB_OBJECT_CONTEXT as u32;
        assert_status(
            helib_max_serialized_size(o.ctx, kind, 0, &mut bound),
            HELIB_OK,
        );
        assert!(written as u64 <= bound && bound == HELIB_MAX_CONTEXT_BYTES as u64);
        for kind in [0u32, 6, 9, u32::MAX] {
            bound = 17;
            let status = helib_max_serialized_size(o.ctx, kind, 0, &mut bound);
            assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
            assert_eq!(bound, 17, "kind {kind}: output untouched");
        }
        let keys = HELIB_OBJECT_GALOIS_KEYS as u32;
        let status = helib_max_serialized_size(o.ctx, keys, N as u64 + 1, &mut bound);
        assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
        let status = helib_max_serialized_size(o.ctx, keys, 1, ptr::null_mut());
        assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
        helib_ctxt_free(c);
    }
}

#[test]
fn encryption_rejects_malformed_plaintexts() {
    let o = Objects::new();
    let mut c: *mut helib_ctxt = ptr::null_mut();
    // SAFETY: every buffer is valid for the length passed; the values are what is under test.
    unsafe {
        // A coefficient equal to p is not reduced.
        let status = helib_ctxt_encrypt(&mut c, o.pk, BN254_P.as_ptr(), 1);
        assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
        assert!(c.is_null(), "no handle on failure");
        // More than N coefficients.
        let too_many = vec![0u64; (N + 1) * LIMBS];
        let status = helib_ctxt_encrypt(&mut c, o.pk, too_many.as_ptr(), N + 1);
        assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
        assert!(c.is_null());
    }

    let ct = o.encrypt(&constant(3));
    // SAFETY: as above.
    unsafe {
        // Constants: 1..=LIMBS limbs, below p.
        assert_status(
            helib_ctxt_add_const(ct, constant(1).as_ptr(), 0),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        let five = [0u64; LIMBS + 1];
        assert_status(
            helib_ctxt_mul_const(ct, five.as_ptr(), five.len()),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        assert_status(
            helib_ctxt_mul_const(ct, BN254_P.as_ptr(), LIMBS),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        // A short constant (one limb) is fine.
        assert_status(helib_ctxt_mul_const(ct, [7u64].as_ptr(), 1), HELIB_OK);
        helib_ctxt_free(ct);
    }
}

#[test]
fn decryption_size_query_and_result() {
    let o = Objects::new();
    let ct = o.encrypt(&[constant(11), constant(12)].concat());
    let mut needed = 0usize;
    // SAFETY: live handles; buffers valid for their lengths.
    unsafe {
        assert_status(
            helib_ctxt_decrypt(o.sk, ct, ptr::null_mut(), 0, &mut needed),
            HELIB_OK,
        );
        assert_eq!(needed, N * LIMBS);
        let mut small = vec![0u64; N * LIMBS - 1];
        let status = helib_ctxt_decrypt(o.sk, ct, small.as_mut_ptr(), small.len(), &mut needed);
        assert_status(status, HELIB_ERR_BUFFER_TOO_SMALL);
        let mut out = vec![0u64; N * LIMBS];
        assert_status(
            helib_ctxt_decrypt(o.sk, ct, out.as_mut_ptr(), out.len(), &mut needed),
            HELIB_OK,
        );
        assert_eq!(
            &out[..2 * LIMBS],
            &[constant(11), constant(12)].concat()[..]
        );
        assert!(out[2 * LIMBS..].iter().all(|&l| l == 0));

        let mut info = std::mem::MaybeUninit::<helib_ctxt_info>::uninit();
        assert_status(helib_ctxt_get_info(ct, info.as_mut_ptr()), HELIB_OK);
        let info = info.assume_init();
        assert_eq!(info.parts, 2);
        assert!(info.noise_budget > 0.0 && info.level >= 1);
        helib_ctxt_free(ct);
    }
}

#[test]
fn the_engine_refuses_mixed_contexts_and_keys() {
    let a = Objects::new();
    let b = Objects::new();
    let ca = a.encrypt(&constant(1));
    let cb = b.encrypt(&constant(2));
    // SAFETY: live handles of two different contexts: the mismatch is under test.
    unsafe {
        assert_status(helib_ctxt_add(ca, cb), HELIB_ERR_MISMATCH);
        assert_status(helib_ctxt_sub(ca, cb), HELIB_ERR_MISMATCH);
        assert_status(helib_ctxt_mul(ca, cb, a.pk), HELIB_ERR_MISMATCH);
        assert_status(helib_ctxt_square(ca, b.pk), HELIB_ERR_MISMATCH);
        let mut out = vec![0u64; N * LIMBS];
        let mut needed = 0usize;
        let status = helib_ctxt_decrypt(b.sk, ca, out.as_mut_ptr(), out.len(), &mut needed);
        assert_status(status, HELIB_ERR_MISMATCH);
        let mut noise = 0.0;
        assert_status(
            helib_ctxt_measure_noise(b.sk, ca, &mut noise),
            HELIB_ERR_MISMATCH,
        );

        // A second key pair in the same context.
        let mut sk2 = ptr::null_mut();
        let mut pk2 = ptr::null_mut();
        assert_status(helib_seckey_new(&mut sk2, a.ctx), HELIB_OK);
        assert_status(helib_pubkey_new(&mut pk2, sk2), HELIB_OK);
        let mut c2 = ptr::null_mut();
        let one = constant(1);
        assert_status(helib_ctxt_encrypt(&mut c2, pk2, one.as_ptr(), 1), HELIB_OK);
        assert_status(helib_ctxt_add(ca, c2), HELIB_ERR_MISMATCH);
        assert_status(helib_ctxt_mul(ca, c2, a.pk), HELIB_ERR_MISMATCH);
        assert_status(helib_ctxt_square(ca, pk2), HELIB_ERR_MISMATCH);
        let status = helib_ctxt_decrypt(sk2, ca, out.as_mut_ptr(), out.len(), &mut needed);
        assert_status(status, HELIB_ERR_MISMATCH);

        // After all the refusals `ca` still decrypts to 1.
        assert_status(
            helib_ctxt_decrypt(a.sk, ca, out.as_mut_ptr(), out.len(), &mut needed),
            HELIB_OK,
        );
        assert_eq!(&out[..LIMBS], &constant(1)[..]);

        helib_ctxt_free(c2);
        helib_pubkey_free(pk2);
        helib_seckey_free(sk2);
        helib_ctxt_free(ca);
        helib_ctxt_free(cb);
    }
}

#[test]
fn clone_is_deep() {
    let o = Objects::new();
    let ct = o.encrypt(&constant(5));
    let mut copy = ptr::null_mut();
    let mut out = vec![0u64; N * LIMBS];
    let mut needed = 0usize;
    // SAFETY: live handles; buffers valid for their lengths.
    unsafe {
        assert_status(helib_ctxt_clone(&mut copy, ct), HELIB_OK);
        assert_status(
            helib_ctxt_add_const(copy, constant(1).as_ptr(), LIMBS),
            HELIB_OK,
        );
        assert_status(
            helib_ctxt_decrypt(o.sk, ct, out.as_mut_ptr(), out.len(), &mut needed),
            HELIB_OK,
        );
        assert_eq!(out[0], 5, "the original is unaffected");
        assert_status(
            helib_ctxt_decrypt(o.sk, copy, out.as_mut_ptr(), out.len(), &mut needed),
            HELIB_OK,
        );
        assert_eq!(out[0], 6);
        helib_ctxt_free(copy);
        helib_ctxt_free(ct);
    }
}

#[test]
fn rotated_inner_product_checks_its_arguments() {
    let o = Objects::new();
    let two = constant(2);
    let five = constant(5);
    // SAFETY: live handles and valid out-pointers, except the NULLs and bad values under test;
    // every handle is freed once at the end.
    unsafe {
        let ct = o.encrypt(&two);
        let (mut pt, mut ext) = (ptr::null_mut(), ptr::null_mut());
        assert_status(
            helib_ptxt_encode(&mut pt, o.ctx, five.as_ptr(), 1, 0),
            HELIB_OK,
        );
        assert_status(
            helib_ptxt_encode_extended(&mut ext, o.ctx, five.as_ptr(), 1, 0),
            HELIB_OK,
        );
        let mut gk = ptr::null_mut();
        let three = 3u64;
        assert_status(helib_galois_keys_new(&mut gk, o.sk, &three, 1), HELIB_OK);

        let mut out: *mut helib_ctxt = ptr::null_mut();
        let g = [3u64];
        let with_ext = [ext as *const helib_ptxt];
        let with_plain = [pt as *const helib_ptxt];
        let null_out = helib_ctxt_rotated_inner_product(
            ptr::null_mut(),
            ct,
            g.as_ptr(),
            with_ext.as_ptr(),
            1,
            gk,
        );
        assert_status(null_out, HELIB_ERR_INVALID_ARGUMENT);
        let cases = [
            helib_ctxt_rotated_inner_product(
                &mut out,
                ptr::null(),
                g.as_ptr(),
                with_ext.as_ptr(),
                1,
                gk,
            ),
            helib_ctxt_rotated_inner_product(
                &mut out,
                ct,
                g.as_ptr(),
                with_ext.as_ptr(),
                1,
                ptr::null(),
            ),
            helib_ctxt_rotated_inner_product(&mut out, ct, ptr::null(), with_ext.as_ptr(), 1, gk),
            helib_ctxt_rotated_inner_product(
                &mut out,
                ct,
                g.as_ptr(),
                [ptr::null()].as_ptr(),
                1,
                gk,
            ),
            // No terms, and a rotated term whose plaintext lacks the special rows.
            helib_ctxt_rotated_inner_product(&mut out, ct, g.as_ptr(), with_ext.as_ptr(), 0, gk),
            helib_ctxt_rotated_inner_product(&mut out, ct, g.as_ptr(), with_plain.as_ptr(), 1, gk),
            // An even element is no automorphism.
            helib_ctxt_rotated_inner_product(
                &mut out,
                ct,
                [4u64].as_ptr(),
                with_ext.as_ptr(),
                1,
                gk,
            ),
        ];
        for status in cases {
            assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
            assert!(out.is_null(), "no handle on failure");
        }
        let missing = helib_ctxt_rotated_inner_product(
            &mut out,
            ct,
            [5u64].as_ptr(),
            with_ext.as_ptr(),
            1,
            gk,
        );
        assert_status(missing, HELIB_ERR_MISSING_KEY);
        assert!(out.is_null());

        // sigma_3 fixes the constant 2, so 5 * sigma_3(2) + 5 * 2 = 20.
        let terms = [ext as *const helib_ptxt, pt as *const helib_ptxt];
        let status = helib_ctxt_rotated_inner_product(
            &mut out,
            ct,
            [3u64, 1].as_ptr(),
            terms.as_ptr(),
            2,
            gk,
        );
        assert_status(status, HELIB_OK);
        let mut plain = vec![0u64; N * LIMBS];
        let mut needed = 0usize;
        assert_status(
            helib_ctxt_decrypt(o.sk, out, plain.as_mut_ptr(), plain.len(), &mut needed),
            HELIB_OK,
        );
        assert_eq!(&plain[..LIMBS], &constant(20)[..]);
        assert!(plain[LIMBS..].iter().all(|&w| w == 0));

        helib_ctxt_free(out);
        helib_galois_keys_free(gk);
        helib_ptxt_free(ext);
        helib_ptxt_free(pt);
        helib_ctxt_free(ct);
    }
}

#[test]
fn secret_key_encryption_to_bytes_follows_the_size_query() {
    let o = Objects::new();
    let seven = constant(7);
    // SAFETY: every pointer is valid for the length passed with it, or deliberately NULL.
    unsafe {
        // The size query encrypts nothing and needs no coefficients to be valid.
        let mut needed = 0usize;
        let status = helib_seckey_encrypt_serialized(
            o.sk,
            seven.as_ptr(),
            1,
            ptr::null_mut(),
            0,
            &mut needed,
        );
        assert_status(status, HELIB_OK);
        assert!(needed > 0);

        // Refusals: no key, neither output, too many coefficients (at the size query
        // already), a buffer one byte short.
        let mut buf = vec![0u8; needed];
        let too_many = vec![0u64; (N + 1) * LIMBS];
        let cases = [
            helib_seckey_encrypt_serialized(
                ptr::null(),
                seven.as_ptr(),
                1,
                ptr::null_mut(),
                0,
                &mut needed,
            ),
            helib_seckey_encrypt_serialized(
                o.sk,
                seven.as_ptr(),
                1,
                ptr::null_mut(),
                0,
                ptr::null_mut(),
            ),
            helib_seckey_encrypt_serialized(
                o.sk,
                too_many.as_ptr(),
                N + 1,
                ptr::null_mut(),
                0,
                &mut needed,
            ),
            helib_seckey_encrypt_serialized(
                o.sk,
                ptr::null(),
                1,
                buf.as_mut_ptr(),
                buf.len(),
                &mut needed,
            ),
        ];
        for status in cases {
            assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
        }
        let short = helib_seckey_encrypt_serialized(
            o.sk,
            seven.as_ptr(),
            1,
            buf.as_mut_ptr(),
            buf.len() - 1,
            &mut needed,
        );
        assert_status(short, HELIB_ERR_BUFFER_TOO_SMALL);
        assert!(buf.iter().all(|&b| b == 0), "nothing written on failure");

        // The write fills exactly the announced size, and the bytes read back decrypt to 7.
        let mut written = 0usize;
        let status = helib_seckey_encrypt_serialized(
            o.sk,
            seven.as_ptr(),
            1,
            buf.as_mut_ptr(),
            buf.len(),
            &mut written,
        );
        assert_status(status, HELIB_OK);
        assert_eq!(written, buf.len());
        let mut ct = ptr::null_mut();
        assert_status(
            helib_ctxt_deserialize(&mut ct, o.pk, buf.as_ptr(), buf.len()),
            HELIB_OK,
        );
        let mut plain = vec![0u64; N * LIMBS];
        assert_status(
            helib_ctxt_decrypt(o.sk, ct, plain.as_mut_ptr(), plain.len(), &mut needed),
            HELIB_OK,
        );
        assert_eq!(&plain[..LIMBS], &seven[..]);
        assert!(plain[LIMBS..].iter().all(|&w| w == 0));
        helib_ctxt_free(ct);
    }
}

/// The seeded (insecure) key generation is not in the engine unless its feature asks for it:
/// no code path, not even an unused exported symbol, can derive a key from a guessable seed.
#[test]
#[cfg(not(feature = "insecure-deterministic-keys"))]
fn the_insecure_key_entry_point_is_not_compiled_without_its_feature() {
    let archive = std::fs::read(env!("HELIB_FORK_ARCHIVE")).expect("the engine's archive");
    let name = b"helib_seckey_new_insecure_deterministic";
    assert!(!archive.windows(name.len()).any(|w| w == name));
    // The check can see a symbol: the secure one is there.
    let secure = b"helib_seckey_new";
    assert!(archive.windows(secure.len()).any(|w| w == secure));
}

/// A toy context for a key shared by two parties (`derivable_keys`: 1 for master keys).
fn two_parties(derivable_keys: i32) -> helib_context_params {
    helib_context_params {
        m: 2 * N as u64,
        p_limbs: BN254_P.as_ptr(),
        p_len: BN254_P.len(),
        ciphertext_bits: 700,
        ks_digits: 3,
        allow_insecure: 1,
        derivable_keys,
        parties: 2,
    }
}

/// The shared-key entry points refuse what they must, with the status the header names, and
/// their size bounds hold their objects.
#[test]
fn shared_key_entry_points_check_their_arguments() {
    let params = two_parties(0);
    let crs = [5u8; 32];
    // SAFETY: live handles throughout; every out-pointer is valid; every handle made here is
    // freed at the end.
    unsafe {
        helib_decryption_share_free(ptr::null_mut());
        helib_relin_share_free(ptr::null_mut());
        helib_relin_secret_free(ptr::null_mut());
        let mut ctx: *mut helib_context = ptr::null_mut();
        assert_status(helib_context_new(&mut ctx, &params), HELIB_OK);
        let mut info = std::mem::zeroed::<helib_context_info>();
        assert_status(helib_context_get_info(ctx, &mut info), HELIB_OK);
        assert_eq!(info.parties, 2);
        let mut whole: *mut helib_seckey = ptr::null_mut();
        assert_status(
            helib_seckey_new(&mut whole, ctx),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        assert!(last_error().contains("2 parties"), "{}", last_error());
        let mut a: *mut helib_seckey = ptr::null_mut();
        assert_status(
            helib_seckey_new_share(&mut a, ctx, ptr::null()),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        assert_status(helib_seckey_new_share(&mut a, ctx, crs.as_ptr()), HELIB_OK);
        let mut b: *mut helib_seckey = ptr::null_mut();
        assert_status(helib_seckey_new_share(&mut b, ctx, crs.as_ptr()), HELIB_OK);
        let mut party = 0u64;
        assert_status(helib_seckey_party(a, &mut party), HELIB_OK);
        assert_ne!(party, 0);

        let (mut pa, mut pb): (*mut helib_pubkey, *mut helib_pubkey) =
            (ptr::null_mut(), ptr::null_mut());
        assert_status(helib_pubkey_new(&mut pa, a), HELIB_OK);
        assert_status(helib_pubkey_new(&mut pb, b), HELIB_OK);
        let mut pk: *mut helib_pubkey = ptr::null_mut();
        let one = [pa.cast_const()];
        assert_status(
            helib_pubkey_combine(&mut pk, one.as_ptr(), 1),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        let both = [pa.cast_const(), pb.cast_const()];
        assert_status(helib_pubkey_combine(&mut pk, both.as_ptr(), 2), HELIB_OK);

        let m = constant(9);
        let mut c: *mut helib_ctxt = ptr::null_mut();
        assert_status(helib_ctxt_encrypt(&mut c, pk, m.as_ptr(), 1), HELIB_OK);
        let mut out = vec![0u64; N * LIMBS];
        assert_status(
            helib_ctxt_decrypt(a, c, out.as_mut_ptr(), out.len(), ptr::null_mut()),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        let mut da: *mut helib_decryption_share = ptr::null_mut();
        let status = helib_decryption_share_new(&mut da, a, c, 0, 20, ptr::null_mut(), 0);
        assert_status(status, HELIB_ERR_INVALID_ARGUMENT);
        let mut mask = vec![0u64; N * LIMBS - 1];
        let status =
            helib_decryption_share_new(&mut da, a, c, 1, 40, mask.as_mut_ptr(), mask.len());
        assert_status(status, HELIB_ERR_BUFFER_TOO_SMALL);
        assert!(da.is_null());
        assert_status(
            helib_decryption_share_new(&mut da, a, c, 0, 40, ptr::null_mut(), 0),
            HELIB_OK,
        );
        let mut db: *mut helib_decryption_share = ptr::null_mut();
        assert_status(
            helib_decryption_share_new(&mut db, b, c, 0, 40, ptr::null_mut(), 0),
            HELIB_OK,
        );
        let shares = [da.cast_const(), db.cast_const()];
        assert_status(
            helib_ctxt_combine_decryption(
                c,
                shares.as_ptr(),
                1,
                out.as_mut_ptr(),
                out.len(),
                ptr::null_mut(),
            ),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        assert_status(
            helib_ctxt_combine_decryption(
                c,
                shares.as_ptr(),
                2,
                out.as_mut_ptr(),
                out.len(),
                ptr::null_mut(),
            ),
            HELIB_OK,
        );
        assert_eq!(&out[..LIMBS], &m[..LIMBS]);

        // Size bounds hold the objects.
        let mut written = 0usize;
        let mut bound = 0u64;
        assert_status(
            helib_decryption_share_serialize(da, ptr::null_mut(), 0, &mut written),
            HELIB_OK,
        );
        let kind = HELIB_OBJECT_DECRYPTION_SHARE as u32;
        assert_status(
            helib_max_serialized_size(ctx, kind, 0, &mut bound),
            HELIB_OK,
        );
        assert!(written as u64 <= bound, "{written} > {bound}");
        assert_status(
            helib_seckey_serialize(a, ptr::null_mut(), 0, &mut written),
            HELIB_OK,
        );
        let kind = HELIB_OBJECT_KEY_SHARE as u32;
        assert_status(
            helib_max_serialized_size(ctx, kind, 0, &mut bound),
            HELIB_OK,
        );
        assert_eq!(written as u64, bound);

        // Round 2 answers every party's round-1 message: one party's alone is refused.
        let mut r1: *mut helib_relin_share = ptr::null_mut();
        let mut secret: *mut helib_relin_secret = ptr::null_mut();
        assert_status(helib_relin_share_round1(&mut r1, &mut secret, a), HELIB_OK);
        assert_status(
            helib_relin_share_serialize(r1, ptr::null_mut(), 0, &mut written),
            HELIB_OK,
        );
        let kind = HELIB_OBJECT_RELIN_SHARE as u32;
        assert_status(
            helib_max_serialized_size(ctx, kind, 0, &mut bound),
            HELIB_OK,
        );
        assert_eq!(written as u64, bound);
        let mut r2: *mut helib_relin_share = ptr::null_mut();
        let alone = [r1.cast_const()];
        assert_status(
            helib_relin_share_round2(&mut r2, a, secret, alone.as_ptr(), 1),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        assert!(r2.is_null());

        helib_relin_share_free(r1);
        helib_relin_secret_free(secret);
        helib_decryption_share_free(da);
        helib_decryption_share_free(db);
        helib_ctxt_free(c);
        for p in [pa, pb, pk] {
            helib_pubkey_free(p);
        }
        helib_seckey_free(a);
        helib_seckey_free(b);
        helib_context_free(ctx);
    }
}

/// Master key shares on a derivable context for two parties: they combine into master keys
/// that derive, derive nothing themselves, and read back only as shares.
#[test]
fn master_key_shares_combine_and_only_then_derive() {
    let params = two_parties(1);
    let crs = [6u8; 32];
    let g = 3u64; // a rotation's element
                  // SAFETY: live handles throughout; every out-pointer is valid; every handle made here is
                  // freed at the end.
    unsafe {
        let mut ctx: *mut helib_context = ptr::null_mut();
        assert_status(helib_context_new(&mut ctx, &params), HELIB_OK);
        let (mut a, mut b): (*mut helib_seckey, *mut helib_seckey) =
            (ptr::null_mut(), ptr::null_mut());
        assert_status(helib_seckey_new_share(&mut a, ctx, crs.as_ptr()), HELIB_OK);
        assert_status(helib_seckey_new_share(&mut b, ctx, crs.as_ptr()), HELIB_OK);
        let (mut ma, mut mb): (*mut helib_master_keys, *mut helib_master_keys) =
            (ptr::null_mut(), ptr::null_mut());
        assert_status(helib_master_keys_new(&mut ma, a, &g, 1), HELIB_OK);
        assert_status(helib_master_keys_new(&mut mb, b, &g, 1), HELIB_OK);
        let mut derived: *mut helib_galois_keys = ptr::null_mut();
        assert_status(
            helib_master_keys_compose(&mut derived, ma, ptr::null(), 1, g),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        assert!(last_error().contains("combine"), "{}", last_error());
        let mut joint: *mut helib_master_keys = ptr::null_mut();
        let one = [ma.cast_const()];
        assert_status(
            helib_master_keys_combine(&mut joint, one.as_ptr(), 1),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        let twice = [ma.cast_const(), ma.cast_const()];
        assert_status(
            helib_master_keys_combine(&mut joint, twice.as_ptr(), 2),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        // With no masters, the identity keys alone still catch a share given twice.
        let mut none: *mut helib_master_keys = ptr::null_mut();
        assert_status(
            helib_master_keys_new(&mut none, a, ptr::null(), 0),
            HELIB_OK,
        );
        let twice = [none.cast_const(), none.cast_const()];
        assert_status(
            helib_master_keys_combine(&mut joint, twice.as_ptr(), 2),
            HELIB_ERR_INVALID_ARGUMENT,
        );
        helib_master_keys_free(none);
        let both = [ma.cast_const(), mb.cast_const()];
        assert_status(
            helib_master_keys_combine(&mut joint, both.as_ptr(), 2),
            HELIB_OK,
        );
        assert_status(
            helib_master_keys_compose(&mut derived, joint, ptr::null(), 1, g),
            HELIB_OK,
        );

        // A share's bytes read back only as a share; the joint keys' only as master keys.
        let bytes = |mk: *const helib_master_keys| {
            let mut needed = 0usize;
            assert_status(
                helib_master_keys_serialize(mk, ptr::null_mut(), 0, &mut needed),
                HELIB_OK,
            );
            let mut out = vec![0u8; needed];
            assert_status(
                helib_master_keys_serialize(mk, out.as_mut_ptr(), out.len(), &mut needed),
                HELIB_OK,
            );
            out
        };
        let (share_bytes, joint_bytes) = (bytes(ma), bytes(joint));
        let mut back: *mut helib_master_keys = ptr::null_mut();
        assert_ne!(
            helib_master_keys_deserialize(&mut back, ctx, share_bytes.as_ptr(), share_bytes.len()),
            HELIB_OK
        );
        assert_ne!(
            helib_master_keys_deserialize_share(
                &mut back,
                ctx,
                joint_bytes.as_ptr(),
                joint_bytes.len()
            ),
            HELIB_OK
        );
        assert_status(
            helib_master_keys_deserialize_share(
                &mut back,
                ctx,
                share_bytes.as_ptr(),
                share_bytes.len(),
            ),
            HELIB_OK,
        );
        helib_master_keys_free(back);
        helib_galois_keys_free(derived);
        helib_master_keys_free(joint);
        helib_master_keys_free(ma);
        helib_master_keys_free(mb);
        helib_seckey_free(a);
        helib_seckey_free(b);
        helib_context_free(ctx);
    }
}
