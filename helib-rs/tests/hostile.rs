//! What a hostile server or a careless caller can hand the engine: ciphertexts with patched
//! fields, truncated and forged bytes of every object kind, levels that would destroy the
//! plaintext, forged contexts that would cost gigabytes, and secrets left readable. Each gives
//! a clear error (or, for secrets, is wiped and kept private), never a crash or a wrong value
//! the engine could have caught.

mod common;

use common::*;
use helib_rs::{Context, Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, SecKey};

/// Byte offset of a ciphertext's noise bound (an f64 after the 16-byte header, the key id
/// and the level), as `helib-fork/src/serialization/serialize.cpp` writes it.
const NOISE_FIELD: usize = 28;

fn patch_noise(bytes: &mut [u8], log2_bound: f64) {
    bytes[NOISE_FIELD..NOISE_FIELD + 8].copy_from_slice(&log2_bound.to_le_bytes());
}

/// `(p + 1) / 2`: each product by it adds about 253 bits of noise.
fn half() -> F {
    use ark_ff::Field;
    F::from(2u64).inverse().expect("2 is invertible")
}

#[test]
fn a_switch_that_would_destroy_the_plaintext_is_refused() {
    let fx = new_fixture(600);
    let a = random_poly(&mut rng(1), 16);
    let mut ct = fx.pk.encrypt_poly(&a).expect("encrypt");
    let (level, budget) = (ct.level(), ct.noise_budget());
    let err = ct
        .mod_switch_to(1)
        .expect_err("level 1 cannot hold a 254-bit plaintext here");
    assert!(matches!(err, Error::Level(_)), "{err:?}");
    assert!(
        message(&err).contains("lowest level that keeps it"),
        "{err}"
    );
    assert_eq!(
        (ct.level(), ct.noise_budget()),
        (level, budget),
        "unchanged"
    );
    assert_decrypts_to(&fx.sk, &ct, &a, "after the refused switch");
}

#[test]
fn a_lowered_noise_field_is_caught_at_decryption() {
    let a = random_poly(&mut rng(2), 8);
    // Healthy but noisy: after one product by (p + 1) / 2 on this chain the phase is a share of
    // Q that double precision resolves.
    let fx2 = new_fixture(550);
    let mut ct = fx2.pk.encrypt_poly(&a).expect("encrypt");
    ct.mul_const(half()).expect("product by a constant");
    assert!(
        ct.noise_budget() > 0.0 && ct.noise_budget() < 40.0,
        "{}",
        ct.noise_budget()
    );
    let mut bytes = ct.to_bytes().expect("bytes");
    patch_noise(&mut bytes, 0.0);
    let forged = Ctxt::from_bytes(&fx2.pk, &bytes).expect("well-formed bytes load");
    let err = fx2
        .sk
        .decrypt_poly::<F>(&forged)
        .expect_err("the phase exceeds the claimed bound");
    assert!(matches!(err, Error::NoiseBudgetExhausted(_)), "{err:?}");
    assert!(message(&err).contains("tracked bound"), "{err}");
    // The unpatched ciphertext still decrypts.
    let mut expected = a.clone();
    expected.iter_mut().for_each(|x| *x *= half());
    assert_decrypts_to(&fx2.sk, &ct, &expected, "honest");
}

#[test]
fn an_exhausted_ciphertext_with_a_patched_bound_is_refused() {
    let fx = new_fixture(700);
    let a = random_poly(&mut rng(3), 8);
    let mut ct = fx.pk.encrypt_poly(&a).expect("encrypt");
    while ct.noise_budget() > 0.0 {
        ct.mul_const(half()).expect("product by a constant");
    }
    let mut bytes = ct.to_bytes().expect("bytes");
    for bound in [0.0, 10.0, 200.0] {
        patch_noise(&mut bytes, bound);
        let forged = Ctxt::from_bytes(&fx.pk, &bytes).expect("well-formed bytes load");
        let err = fx
            .sk
            .decrypt_poly::<F>(&forged)
            .expect_err("an exhausted phase never decrypts");
        assert!(
            matches!(err, Error::NoiseBudgetExhausted(_)),
            "bound {bound}: {err:?}"
        );
    }
}

#[test]
fn messages_do_not_repeat_their_kind() {
    let fx = new_fixture(700);
    let mut ct = fx.pk.encrypt_const(F::from(1u64)).expect("encrypt");
    while ct.noise_budget() > 0.0 {
        ct.mul_const(half()).expect("product by a constant");
    }
    let err = fx.sk.decrypt_const::<F>(&ct).expect_err("exhausted");
    let text = err.to_string();
    assert_eq!(text.matches("noise budget exhausted").count(), 1, "{text}");
    let err = Context::builder()
        .ring_degree(3000)
        .plaintext_field::<F>()
        .ciphertext_bits(100)
        .build()
        .expect_err("not a power of two");
    assert!(err.to_string().contains("ring degree N"), "{err}");
    assert!(!err.to_string().contains(" m "), "speaks of N: {err}");
}

#[test]
fn the_security_estimate_stays_inside_its_table() {
    // A small modulus on a large ring: past the 256-bit column (929 bits at N = 65536),
    // reported as 256.
    let ctx = Context::builder()
        .ring_degree(65536)
        .plaintext_field::<F>()
        .ciphertext_bits(500)
        .allow_insecure(true)
        .build()
        .expect("context");
    assert_eq!(ctx.security_bits(), 256.0);
    assert_eq!(ctx.security_label(), ">= 256 bits");
    // A ring past the table is refused unless the caller opts out, then claims nothing.
    let builder = || {
        Context::builder()
            .ring_degree(262144)
            .plaintext_field::<F>()
            .ciphertext_bits(300)
    };
    let err = builder().build().expect_err("outside the table");
    assert!(matches!(err, Error::InsecureParameters(_)), "{err:?}");
    assert!(err.to_string().contains("1024 to 131072"), "{err}");
    assert!(matches!(
        Context::bn254(262144, 300),
        Err(Error::InsecureParameters(_))
    ));
    let _ = builder;
}

#[test]
fn a_forged_context_is_refused_before_it_is_built() {
    let ctx = small_context(400);
    let mut bytes = ctx.to_bytes().expect("bytes");
    // m (u64 at 16) to 2^20 and the ciphertext bits (u32 at 24) to 3600: gigabytes of tables.
    bytes[16..24].copy_from_slice(&(1u64 << 20).to_le_bytes());
    bytes[24..28].copy_from_slice(&3600u32.to_le_bytes());
    let start = std::time::Instant::now();
    let err = Context::from_bytes(&bytes).expect_err("insecure and forged");
    assert!(matches!(err, Error::InsecureParameters(_)), "{err:?}");
    assert!(
        start.elapsed().as_secs_f64() < 1.0,
        "refused before building"
    );
    // With the opt-out a forged fingerprint is named as such (a small forged ring, to stay fast).
    let mut bytes = ctx.to_bytes().expect("bytes");
    bytes[24..28].copy_from_slice(&500u32.to_le_bytes());
    let err = Context::from_bytes_allow_insecure(&bytes).expect_err("fingerprint differs");
    assert!(err.to_string().contains("corrupted or forged"), "{err}");
}

#[test]
fn every_truncation_of_every_object_is_an_error() {
    let fx = new_fixture(500);
    let gk = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().step(1)).expect("keys");
    let ct = fx.pk.encrypt_const(F::from(5u64)).expect("encrypt");
    let seeded = fx
        .sk
        .encrypt_poly_to_bytes(&[F::from(5u64)])
        .expect("seeded");
    let objects: Vec<(&str, Vec<u8>)> = vec![
        ("context", fx.ctx.to_bytes().unwrap()),
        ("secret key", fx.sk.to_bytes().unwrap().to_vec()),
        ("public key", fx.pk.to_bytes().unwrap()),
        ("Galois keys", gk.to_bytes().unwrap()),
        ("ciphertext", ct.to_bytes().unwrap()),
        ("seeded ciphertext", seeded),
    ];
    for (what, bytes) in &objects {
        // Every cut in the headers, then a spread of cuts through the bodies.
        let cuts =
            (0..64.min(bytes.len())).chain((64..bytes.len()).step_by((bytes.len() / 97).max(1)));
        for cut in cuts {
            let part = &bytes[..cut];
            let refused = match *what {
                "context" => Context::from_bytes_allow_insecure(part).is_err(),
                "secret key" => SecKey::from_bytes(&fx.ctx, part).is_err(),
                "public key" => PubKey::from_bytes(&fx.ctx, part).is_err(),
                "Galois keys" => GaloisKeys::from_bytes(&fx.ctx, part).is_err(),
                _ => Ctxt::from_bytes(&fx.pk, part).is_err(),
            };
            assert!(refused, "{what} cut at {cut} of {} bytes", bytes.len());
        }
    }
}

#[test]
fn secrets_are_written_private_and_returned_wiped() {
    let fx = fixture();
    let dir = std::env::temp_dir().join(format!("helib-rs-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("secret.bin");
    // A world-readable file already there keeps no say over the new secret's mode.
    std::fs::write(&path, b"old").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let bytes: helib_rs::Zeroizing<Vec<u8>> = fx.sk.to_bytes().unwrap();
    helib_rs::write_private_file(&path, &bytes).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    assert_eq!(std::fs::read(&path).unwrap(), *bytes);
    let back = SecKey::from_bytes(&fx.ctx, &std::fs::read(&path).unwrap()).unwrap();
    let coefficients: helib_rs::Zeroizing<Vec<i8>> = back.coefficients().unwrap();
    assert_eq!(*coefficients, *fx.sk.coefficients().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}
