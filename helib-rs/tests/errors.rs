//! Bad inputs give a specific error with an explanation, never a crash or a wrong result.

mod common;

use ark_ff::PrimeField;
use common::*;
use helib_rs::{Context, ContextBuilder, Error, PubKey, SecKey};

/// BN254's base field: same size as the scalar field, different prime.
type OtherField = ark_bn254::Fq;

fn bn254_builder() -> ContextBuilder {
    Context::builder()
        .ring_degree(N)
        .plaintext_field::<F>()
        .ciphertext_bits(CIPHERTEXT_BITS)
        .allow_insecure(true)
}

#[track_caller]
fn expect_invalid_argument(result: Result<Context, Error>, what: &str) {
    match result {
        Err(e @ Error::InvalidArgument(_)) => assert!(!message(&e).is_empty(), "{what}"),
        other => panic!("{what}: expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn m_must_be_a_power_of_two() {
    expect_invalid_argument(bn254_builder().m(3000).build(), "m = 3000");
    expect_invalid_argument(bn254_builder().m(4096 + 2).build(), "m = 4098");
    expect_invalid_argument(bn254_builder().m(0).build(), "m = 0");
}

#[test]
fn m_must_not_be_too_small() {
    expect_invalid_argument(bn254_builder().m(1024).build(), "m = 1024");
    expect_invalid_argument(bn254_builder().ring_degree(16).build(), "N = 16");
    expect_invalid_argument(
        bn254_builder().ring_degree(u64::MAX).build(),
        "N = 2^64 - 1",
    );
}

#[test]
fn plaintext_modulus_must_be_an_odd_prime() {
    let even = bn254_builder().plaintext_modulus_limbs(&[1 << 20]).build();
    expect_invalid_argument(even, "p = 2^20");
    let two = bn254_builder().plaintext_modulus_limbs(&[2]).build();
    expect_invalid_argument(two, "p = 2");
    // 2^64 + 1 = 274177 * 67280421310721
    let composite = bn254_builder().plaintext_modulus_limbs(&[1, 1]).build();
    expect_invalid_argument(composite, "p = 2^64 + 1");
    // BN254's p times 3 is odd and composite.
    let p3: Vec<u64> = {
        let p = F::MODULUS.0;
        let mut out = vec![0u64; 5];
        let mut carry = 0u128;
        for i in 0..4 {
            let v = u128::from(p[i]) * 3 + carry;
            out[i] = v as u64;
            carry = v >> 64;
        }
        out[4] = carry as u64;
        out
    };
    expect_invalid_argument(bn254_builder().plaintext_modulus_limbs(&p3).build(), "3p");
    expect_invalid_argument(
        bn254_builder().plaintext_modulus_limbs(&[]).build(),
        "no limbs",
    );
    expect_invalid_argument(
        bn254_builder().plaintext_modulus_limbs(&[0, 0]).build(),
        "p = 0",
    );
}

#[test]
fn too_few_modulus_bits() {
    expect_invalid_argument(bn254_builder().ciphertext_bits(10).build(), "10 bits");
    expect_invalid_argument(bn254_builder().ciphertext_bits(0).build(), "0 bits");
    // 254-bit p: a fresh encryption alone needs ~280 bits.
    expect_invalid_argument(bn254_builder().ciphertext_bits(200).build(), "200 bits");
}

#[test]
fn insecure_parameters_need_an_explicit_opt_out() {
    let refused = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<F>()
        .ciphertext_bits(1000)
        .build();
    match refused {
        Err(e @ Error::InsecureParameters(_)) => assert!(!message(&e).is_empty()),
        other => panic!("expected InsecureParameters, got {other:?}"),
    }
    // allow_insecure(false) is the default and means the same.
    let refused = bn254_builder().allow_insecure(false).build();
    assert!(
        matches!(refused, Err(Error::InsecureParameters(_))),
        "{refused:?}"
    );
    // With the opt-out the same parameters are accepted and report their weakness.
    let ctx = bn254_builder().build().expect("opted out");
    assert!(ctx.security_bits() < 128.0);
}

#[test]
fn the_bn254_preset_never_opts_out() {
    // No digit count makes a 254-bit p secure at N = 2048.
    let refused = Context::bn254(N, 1000);
    match refused {
        Err(e @ Error::InsecureParameters(_)) => assert!(!message(&e).is_empty()),
        other => panic!("expected InsecureParameters, got {other:?}"),
    }
}

#[test]
fn ks_digits_must_be_positive() {
    expect_invalid_argument(bn254_builder().ks_digits(0).build(), "ks_digits = 0");
}

#[test]
fn builder_settings_are_required() {
    let no_ring = Context::builder()
        .plaintext_field::<F>()
        .ciphertext_bits(1000)
        .build();
    expect_invalid_argument(no_ring, "no ring size");
    let no_p = Context::builder()
        .ring_degree(N)
        .ciphertext_bits(1000)
        .build();
    expect_invalid_argument(no_p, "no plaintext modulus");
    let no_bits = Context::builder()
        .ring_degree(N)
        .plaintext_field::<F>()
        .build();
    expect_invalid_argument(no_bits, "no ciphertext bits");
}

#[test]
fn polynomials_longer_than_n_are_refused() {
    let fx = fixture();
    let too_long = vec![F::from(1u64); fx.ctx.ring_degree() + 1];
    let err = fx.pk.encrypt_poly(&too_long).expect_err("encrypt");
    assert!(matches!(err, Error::InvalidLength(_)), "{err:?}");
    assert!(!message(&err).is_empty());

    let mut ct = fx.pk.encrypt_const(F::from(1u64)).expect("encrypt");
    let before = ct.info();
    let err = ct.mul_poly(&too_long).expect_err("mul_poly");
    assert!(matches!(err, Error::InvalidLength(_)), "{err:?}");
    let err = ct.add_poly(&too_long).expect_err("add_poly");
    assert!(matches!(err, Error::InvalidLength(_)), "{err:?}");
    assert_eq!(
        ct.info(),
        before,
        "a refused operation leaves the ciphertext alone"
    );
    assert_eq!(
        fx.sk.decrypt_const::<F>(&ct).expect("decrypt"),
        F::from(1u64)
    );

    // Exactly N is fine.
    let exact = vec![F::from(1u64); fx.ctx.ring_degree()];
    fx.pk.encrypt_poly(&exact).expect("N coefficients");
}

#[test]
fn field_must_match_the_plaintext_modulus() {
    let fx = fixture();
    let x = OtherField::from(5u64);
    let err = fx
        .pk
        .encrypt_const(x)
        .expect_err("encrypt Fq in an Fr context");
    assert!(matches!(err, Error::FieldMismatch(_)), "{err:?}");
    assert!(!message(&err).is_empty());
    let err = fx.pk.encrypt_poly(&[x, x]).expect_err("encrypt_poly");
    assert!(matches!(err, Error::FieldMismatch(_)), "{err:?}");

    let mut ct = fx.pk.encrypt_const(F::from(5u64)).expect("encrypt");
    for result in [
        ct.add_const(x),
        ct.mul_const(x),
        ct.add_poly(&[x]),
        ct.mul_poly(&[x]),
    ] {
        assert!(matches!(result, Err(Error::FieldMismatch(_))), "{result:?}");
    }
    let err = fx
        .sk
        .decrypt_poly::<OtherField>(&ct)
        .expect_err("decrypt as Fq");
    assert!(matches!(err, Error::FieldMismatch(_)), "{err:?}");

    // A context over Fq refuses Fr.
    let fq_ctx = Context::builder()
        .ring_degree(N)
        .plaintext_field::<OtherField>()
        .ciphertext_bits(CIPHERTEXT_BITS)
        .allow_insecure(true)
        .build()
        .expect("Fq context");
    let fq_sk = SecKey::generate(&fq_ctx).expect("key");
    let fq_pk = PubKey::generate(&fq_sk).expect("key");
    let err = fq_pk
        .encrypt_const(F::from(1u64))
        .expect_err("Fr into Fq context");
    assert!(matches!(err, Error::FieldMismatch(_)), "{err:?}");
    let ok = fq_pk.encrypt_const(x).expect("Fq into Fq context");
    assert_eq!(fq_sk.decrypt_const::<OtherField>(&ok).expect("decrypt"), x);

    // Same field given as raw limbs: accepted.
    let raw_ctx = Context::builder()
        .ring_degree(N)
        .plaintext_modulus_limbs(F::MODULUS.as_ref())
        .ciphertext_bits(CIPHERTEXT_BITS)
        .allow_insecure(true)
        .build()
        .expect("raw-limb context");
    let raw_sk = SecKey::generate(&raw_ctx).expect("key");
    let raw_pk = PubKey::generate(&raw_sk).expect("key");
    let ct = raw_pk
        .encrypt_const(F::from(9u64))
        .expect("Fr into raw-limb context");
    assert_eq!(
        raw_sk.decrypt_const::<F>(&ct).expect("decrypt"),
        F::from(9u64)
    );
}

#[test]
fn objects_of_different_contexts_do_not_mix() {
    let a = fixture();
    // Same parameters, but a different context: still refused.
    let b = new_fixture(CIPHERTEXT_BITS);
    let mut ca = a.pk.encrypt_const(F::from(2u64)).expect("encrypt");
    let cb = b.pk.encrypt_const(F::from(3u64)).expect("encrypt");

    for (what, result) in [
        ("add", ca.add_assign(&cb)),
        ("sub", ca.sub_assign(&cb)),
        ("mul", ca.mul_assign(&cb)),
    ] {
        match result {
            Err(e @ Error::Mismatch(_)) => assert!(!message(&e).is_empty(), "{what}"),
            other => panic!("{what}: expected Mismatch, got {other:?}"),
        }
    }
    assert!(matches!(&ca + &cb, Err(Error::Mismatch(_))));
    assert!(matches!(&ca * &cb, Err(Error::Mismatch(_))));
    let err =
        b.sk.decrypt_poly::<F>(&ca)
            .expect_err("decrypt with the other context's key");
    assert!(matches!(err, Error::Mismatch(_)), "{err:?}");
    let err =
        b.sk.measure_noise(&ca)
            .expect_err("measure with the other context's key");
    assert!(matches!(err, Error::Mismatch(_)), "{err:?}");

    // The failed operations left `ca` intact.
    assert_eq!(
        a.sk.decrypt_const::<F>(&ca).expect("decrypt"),
        F::from(2u64)
    );
    assert!(!a.ctx.same_as(&b.ctx));
    assert!(a.ctx.same_as(&a.ctx.clone()));
}

#[test]
fn ciphertexts_under_different_keys_do_not_mix() {
    let fx = fixture();
    let sk2 = SecKey::generate(&fx.ctx).expect("second secret key");
    let pk2 = PubKey::generate(&sk2).expect("second public key");
    assert!(fx.pk.belongs_to(&fx.sk));
    assert!(!pk2.belongs_to(&fx.sk));

    let mut c1 = fx.pk.encrypt_const(F::from(2u64)).expect("encrypt");
    let c2 = pk2.encrypt_const(F::from(3u64)).expect("encrypt");
    for (what, result) in [
        ("add", c1.add_assign(&c2)),
        ("sub", c1.sub_assign(&c2)),
        ("mul", c1.mul_assign(&c2)),
    ] {
        match result {
            Err(e @ Error::Mismatch(_)) => assert!(!message(&e).is_empty(), "{what}"),
            other => panic!("{what}: expected Mismatch, got {other:?}"),
        }
    }
    let err = sk2
        .decrypt_poly::<F>(&c1)
        .expect_err("decrypt with the wrong key");
    assert!(matches!(err, Error::Mismatch(_)), "{err:?}");
    let err = fx
        .sk
        .measure_noise(&c2)
        .expect_err("measure with the wrong key");
    assert!(matches!(err, Error::Mismatch(_)), "{err:?}");

    // A second public key of the same secret is compatible.
    let pk1b = PubKey::generate(&fx.sk).expect("another public key");
    let c3 = pk1b.encrypt_const(F::from(4u64)).expect("encrypt");
    let sum = (&c1 + &c3).expect("same secret, different public keys");
    assert_eq!(
        fx.sk.decrypt_const::<F>(&sum).expect("decrypt"),
        F::from(6u64)
    );
}

#[test]
fn mod_switching_stops_at_level_one() {
    let fx = fixture();
    let mut ct = fx.pk.encrypt_const(F::from(7u64)).expect("encrypt");
    let top = ct.level();

    let err = ct.mod_switch_to(top + 1).expect_err("cannot switch up");
    assert!(matches!(err, Error::Level(_)), "{err:?}");
    assert!(!message(&err).is_empty());
    let err = ct.mod_switch_to(0).expect_err("there is no level 0");
    assert!(matches!(err, Error::Level(_)), "{err:?}");
    assert_eq!(ct.level(), top, "refused switches leave the level alone");

    // Level 1 exists, but one prime cannot hold a 254-bit plaintext: refused, not destroyed.
    let err = ct
        .mod_switch_to(1)
        .expect_err("the plaintext does not fit one prime");
    assert!(matches!(err, Error::Level(_)), "{err:?}");
    assert_eq!(ct.level(), top);
    // Dropping primes one at a time stops at the lowest level that keeps the plaintext.
    while ct.mod_switch_down().is_ok() {}
    let lowest = ct.level();
    assert!(1 < lowest && lowest < top, "{lowest}");
    let err = ct
        .mod_switch_down()
        .expect_err("the next prime holds the plaintext");
    assert!(matches!(err, Error::Level(_)), "{err:?}");
    assert!(!message(&err).is_empty());
    assert_eq!(ct.level(), lowest);
    assert_eq!(
        fx.sk.decrypt_const::<F>(&ct).expect("decrypts"),
        F::from(7u64)
    );
}

#[test]
fn decrypt_const_refuses_a_polynomial() {
    let fx = fixture();
    let ct = fx
        .pk
        .encrypt_poly(&[F::from(1u64), F::from(2u64)])
        .expect("encrypt");
    let err = fx.sk.decrypt_const::<F>(&ct).expect_err("not a constant");
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
}

#[test]
fn errors_display_their_message() {
    let err = bn254_builder().m(3000).build().expect_err("bad m");
    let text = err.to_string();
    assert!(text.starts_with("invalid argument: "), "{text}");
    assert!(text.len() > "invalid argument: ".len());
}
