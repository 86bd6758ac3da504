//! Production-size parameters (N = 32768, 128-bit secure). Slow: run with
//! `cargo test --release -p helib-rs --test large_params -- --ignored`.

mod common;

use common::*;
use helib_rs::{Context, Error, PubKey, SecKey};

/// At N = 32768 the 128-bit gate allows log2(QP) <= 881. A 760-bit chain fits only when the
/// digits are small enough for the special primes (sized to the largest digit) to stay within
/// the remaining ~120 bits. The fresh budget (~490 bits) covers one random plaintext or
/// ciphertext multiplication with a 254-bit p; a random constant *and* a random polynomial in
/// a row (~525 bits) do not fit, so the chained case uses a small constant.
#[test]
#[ignore = "N = 32768: a few seconds in release mode, minutes in debug"]
fn secure_bn254_context_at_n_32768() {
    // No opt-out: the 128-bit gate must accept this.
    // The preset finds the smallest secure digit count by itself, and cannot make 1200 bits
    // secure.
    let preset = Context::bn254(32768, 760).expect("preset");
    assert!(preset.security_bits() >= 128.0, "{preset:?}");
    let digits = preset.ks_digits();
    let fewer = Context::builder()
        .m(65536)
        .plaintext_field::<F>()
        .ciphertext_bits(760)
        .ks_digits(digits - 1)
        .build();
    assert!(
        matches!(fewer, Err(Error::InsecureParameters(_))),
        "{fewer:?}"
    );
    let ctx = Context::builder()
        .m(65536)
        .plaintext_field::<F>()
        .ciphertext_bits(760)
        .ks_digits(digits)
        .build()
        .expect("128-bit secure context");
    let refused = Context::bn254(32768, 1200);
    assert!(
        matches!(refused, Err(Error::InsecureParameters(_))),
        "{refused:?}"
    );
    let n = ctx.ring_degree();
    assert_eq!(n, 32768);
    assert!(ctx.security_bits() >= 128.0, "{ctx:?}");
    assert!(
        ctx.log2_qp() <= 881.0,
        "HE Standard bound for N = 32768: {ctx:?}"
    );
    assert!(ctx.slots_available());

    let sk = SecKey::generate(&ctx).expect("secret key");
    let pk = PubKey::generate(&sk).expect("public key");
    let mut rng = rng(60);
    let a = random_poly(&mut rng, n);
    let b = random_poly(&mut rng, n);
    let k = random_elem(&mut rng);
    let ca = pk.encrypt_poly(&a).expect("encrypt");
    assert_decrypts_to(&sk, &ca, &a, "fresh");

    let mut by_const = ca.clone();
    by_const.mul_const(k).expect("mul_const");
    assert_noise_within_bound(&sk, &by_const, "mul_const");
    assert_decrypts_to(&sk, &by_const, &scale(&a, k), "mul_const");

    let mut by_poly = ca.clone();
    by_poly.mul_poly(&b).expect("mul_poly");
    assert_noise_within_bound(&sk, &by_poly, "mul_poly");
    assert_decrypts_to(&sk, &by_poly, &negacyclic_mul(&a, &b, n), "mul_poly");

    // A 32-bit constant leaves room for the random polynomial afterwards.
    let small = F::from(0xdead_beefu64);
    let mut chained = ca.clone();
    chained.mul_const(small).expect("mul_const");
    chained.mul_poly(&b).expect("mul_poly");
    assert!(chained.noise_budget() > 0.0, "{:?}", chained.info());
    assert_noise_within_bound(&sk, &chained, "mul_const then mul_poly");
    let expected = negacyclic_mul(&scale(&a, small), &b, n);
    assert_decrypts_to(&sk, &chained, &expected, "mul_const then mul_poly");

    // One ciphertext product of fresh operands.
    let cb = pk.encrypt_poly(&b).expect("encrypt");
    let prod = (&ca * &cb).expect("mul");
    assert_noise_within_bound(&sk, &prod, "ct x ct");
    assert_decrypts_to(&sk, &prod, &negacyclic_mul(&a, &b, n), "ct x ct");
}
