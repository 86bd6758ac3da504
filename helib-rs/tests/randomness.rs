//! Secrets and encryptions must be fresh every time: keys and encryption randomness come from
//! the OS CSPRNG, never from a fixed or reused seed.

mod common;

use common::*;
use helib_rs::{PubKey, SecKey};

/// Also checks the vector basis-conversion kernel against the scalar one at its bounds (the
/// engine's self-test covers both).
#[test]
fn the_keystream_matches_rfc_8439_and_the_vector_kernels_the_scalar_ones() {
    helib_rs::self_test().expect("engine self-test");
}

#[test]
fn secret_keys_are_ternary_and_balanced() {
    let fx = fixture();
    let s = fx.sk.coefficients().expect("coefficients");
    assert_eq!(s.len(), fx.ctx.ring_degree());
    assert!(s.iter().all(|&c| (-1..=1).contains(&c)), "uniform ternary");
    // Uniform over {-1, 0, 1}: each value about N/3 times (N = 2048: 683 +- ~21).
    for v in [-1i8, 0, 1] {
        let count = s.iter().filter(|&&c| c == v).count();
        assert!(
            (500..=870).contains(&count),
            "value {v} appears {count} times in {}",
            s.len()
        );
    }
}

#[test]
fn two_key_generations_differ() {
    let fx = fixture();
    let s1 = fx.sk.coefficients().expect("coefficients");
    let s2 = SecKey::generate(&fx.ctx)
        .expect("second key")
        .coefficients()
        .expect("coefficients");
    let same = s1.iter().zip(s2.iter()).filter(|(a, b)| a == b).count();
    // Independent uniform ternary keys agree on about a third of the coefficients.
    assert!(
        same < s1.len() / 2,
        "{same} of {} coefficients equal",
        s1.len()
    );
}

#[test]
fn two_public_keys_of_one_secret_both_work() {
    let fx = fixture();
    let pk2 = PubKey::generate(&fx.sk).expect("second public key");
    assert!(pk2.size_bytes() > 0);
    assert_eq!(pk2.size_bytes(), fx.pk.size_bytes());
    let ct = pk2.encrypt_const(F::from(11u64)).expect("encrypt");
    assert_eq!(
        fx.sk.decrypt_const::<F>(&ct).expect("decrypt"),
        F::from(11u64)
    );
}

#[test]
fn encrypting_the_same_message_twice_uses_fresh_randomness() {
    let fx = fixture();
    let mut rng = rng(30);
    let m = random_poly(&mut rng, fx.ctx.ring_degree());
    let c1 = fx.pk.encrypt_poly(&m).expect("encrypt");
    let c2 = fx.pk.encrypt_poly(&m).expect("encrypt");
    let diff = (&c1 - &c2).expect("sub");
    assert_decrypts_to(&fx.sk, &diff, &[], "difference of two encryptions of m");
    // Reused randomness would make the difference the exact zero ciphertext (noise 0).
    // Fresh randomness leaves p times a non-zero error: well above log2(p).
    let noise = fx.sk.measure_noise(&diff).expect("measure");
    assert!(
        noise > f64::from(fx.ctx.plaintext_bits()),
        "difference noise 2^{noise}: were both encryptions made with the same randomness?"
    );
}
