//! Every homomorphic operation on random inputs, checked against plain arithmetic over F_p.

mod common;

use ark_ff::{Field, One, Zero};
use common::*;

fn n() -> usize {
    fixture().ctx.ring_degree()
}

#[test]
fn reference_negacyclic_mul_matches_schoolbook() {
    let mut rng = rng(1);
    for n in [1usize, 2, 8, 64] {
        let a = random_poly(&mut rng, n);
        let b = random_poly(&mut rng, n);
        assert_eq!(
            negacyclic_mul(&a, &b, n),
            negacyclic_mul_schoolbook(&a, &b, n),
            "n = {n}"
        );
    }
    // X^(n-1) * X = X^n = -1.
    let n = 8;
    let mut x_top = vec![F::zero(); n];
    x_top[n - 1] = F::one();
    let x = [F::zero(), F::one()];
    assert_eq!(negacyclic_mul(&x_top, &x, n), padded(&[-F::one()], n));
}

#[test]
fn context_reports_its_parameters() {
    let ctx = &fixture().ctx;
    assert_eq!(ctx.ring_degree(), N as usize);
    assert_eq!(ctx.m(), 2 * N);
    assert_eq!(ctx.plaintext_bits(), 254);
    assert_eq!(ctx.plaintext_limbs(), 4);
    assert!(ctx.slots_available(), "BN254's p is 1 mod 2^28");
    assert!(ctx.log2_q() >= f64::from(CIPHERTEXT_BITS) - 1.0);
    assert!(ctx.log2_qp() > ctx.log2_q());
    assert!(
        ctx.security_bits() < 128.0,
        "N = 2048 with ~1600 bits cannot be secure"
    );
    assert!(ctx.fresh_noise_budget() > 500.0);
    assert!(ctx.num_special_primes() >= 1);
    let primes = ctx.primes().expect("primes");
    assert_eq!(primes.len(), ctx.num_ctxt_primes() as usize);
    for q in primes {
        assert_eq!(
            q % (2 * N),
            1,
            "chain primes are NTT-friendly: q = 1 mod 2N"
        );
    }
}

#[test]
fn encrypt_decrypt_roundtrip() {
    let fx = fixture();
    let mut rng = rng(2);
    let full = random_poly(&mut rng, n());
    let ct = fx.pk.encrypt_poly(&full).expect("encrypt");
    assert_eq!(ct.level(), fx.ctx.num_ctxt_primes());
    assert_decrypts_to(&fx.sk, &ct, &full, "full polynomial");

    let short = random_poly(&mut rng, 5);
    let ct = fx.pk.encrypt_poly(&short).expect("encrypt");
    assert_decrypts_to(&fx.sk, &ct, &short, "short polynomial");

    let ct = fx.pk.encrypt_poly::<F>(&[]).expect("encrypt empty");
    assert_decrypts_to(&fx.sk, &ct, &[], "empty polynomial is zero");

    // The extremes of the coefficient range.
    let edge = [
        F::zero(),
        F::one(),
        -F::one(),
        F::from(2u64).inverse().expect("2 is invertible"),
    ];
    let ct = fx.pk.encrypt_poly(&edge).expect("encrypt");
    assert_decrypts_to(&fx.sk, &ct, &edge, "edge values");

    // The engine cuts each centered coefficient into balanced base-2^51 digits in
    // [-2^50, 2^50]: values at and around every digit's boundary, runs of carries, both signs,
    // and the largest centered magnitudes (p - 1)/2 and (p + 1)/2.
    let two = F::from(2u64);
    let mut digits = vec![two.inverse().expect("2 is invertible") - F::one()];
    for k in 0..5u64 {
        let base = two.pow([51 * k]);
        for v in [
            two.pow([50]),
            two.pow([50]) + F::one(),
            two.pow([50]) - F::one(),
            two.pow([51]) - F::one(),
        ] {
            digits.push(base * v);
            digits.push(-(base * v));
        }
        digits.push(two.pow([51 * (k + 1)]) - F::one());
    }
    let ct = fx.pk.encrypt_poly(&digits).expect("encrypt");
    assert_decrypts_to(&fx.sk, &ct, &digits, "digit boundaries");
    let mut times = fx.pk.encrypt_poly(&[F::one()]).expect("encrypt");
    times.mul_poly(&digits).expect("mul_poly");
    assert_decrypts_to(&fx.sk, &times, &digits, "digit boundaries as a multiplier");
}

#[test]
fn encrypt_const_and_decrypt_const() {
    let fx = fixture();
    let mut rng = rng(3);
    let k = random_elem(&mut rng);
    let ct = fx.pk.encrypt_const(k).expect("encrypt");
    assert_eq!(fx.sk.decrypt_const::<F>(&ct).expect("decrypt"), k);
    assert_decrypts_to(&fx.sk, &ct, &[k], "constant as polynomial");
}

#[test]
fn add_sub_neg() {
    let fx = fixture();
    let mut rng = rng(4);
    let a = random_poly(&mut rng, n());
    let b = random_poly(&mut rng, n());
    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");
    let cb = fx.pk.encrypt_poly(&b).expect("encrypt");

    let mut sum = ca.clone();
    sum.add_assign(&cb).expect("add");
    assert_decrypts_to(&fx.sk, &sum, &add(&a, &b), "add_assign");

    let mut diff = ca.clone();
    diff.sub_assign(&cb).expect("sub");
    assert_decrypts_to(&fx.sk, &diff, &sub(&a, &b), "sub_assign");

    let mut neg = ca.clone();
    neg.neg_assign().expect("neg");
    let minus_a: Vec<F> = a.iter().map(|x| -*x).collect();
    assert_decrypts_to(&fx.sk, &neg, &minus_a, "neg_assign");

    // a - a is zero.
    let zero = ca.checked_sub(&ca).expect("sub self");
    assert_decrypts_to(&fx.sk, &zero, &[], "a - a");
}

#[test]
fn constants() {
    let fx = fixture();
    let mut rng = rng(5);
    let a = random_poly(&mut rng, n());
    let k = random_elem(&mut rng);
    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");

    let mut plus = ca.clone();
    plus.add_const(k).expect("add_const");
    let mut expected = a.clone();
    expected[0] += k;
    assert_decrypts_to(&fx.sk, &plus, &expected, "add_const");

    let mut times = ca.clone();
    times.mul_const(k).expect("mul_const");
    assert_decrypts_to(&fx.sk, &times, &scale(&a, k), "mul_const");

    let mut by_zero = ca.clone();
    by_zero.mul_const(F::zero()).expect("mul_const 0");
    assert_decrypts_to(&fx.sk, &by_zero, &[], "mul_const by 0");

    let mut by_minus_one = ca.clone();
    by_minus_one.mul_const(-F::one()).expect("mul_const -1");
    assert_decrypts_to(
        &fx.sk,
        &by_minus_one,
        &scale(&a, -F::one()),
        "mul_const by -1",
    );
}

#[test]
fn plaintext_polynomials() {
    let fx = fixture();
    let mut rng = rng(6);
    let a = random_poly(&mut rng, n());
    let b = random_poly(&mut rng, n());
    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");

    let mut plus = ca.clone();
    plus.add_poly(&b).expect("add_poly");
    assert_decrypts_to(&fx.sk, &plus, &add(&a, &b), "add_poly");

    let mut times = ca.clone();
    times.mul_poly(&b).expect("mul_poly");
    assert_decrypts_to(&fx.sk, &times, &negacyclic_mul(&a, &b, n()), "mul_poly");

    // A short multiplier: X^3 shifts coefficients up and wraps them with a sign flip.
    let x3 = [F::zero(), F::zero(), F::zero(), F::one()];
    let mut shifted = ca.clone();
    shifted.mul_poly(&x3).expect("mul_poly by X^3");
    assert_decrypts_to(
        &fx.sk,
        &shifted,
        &negacyclic_mul(&a, &x3, n()),
        "mul_poly by X^3",
    );
}

#[test]
fn ciphertext_multiplication() {
    let fx = fixture();
    let mut rng = rng(7);
    let a = random_poly(&mut rng, n());
    let b = random_poly(&mut rng, n());
    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");
    let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
    let ab = negacyclic_mul(&a, &b, n());

    let mut prod = ca.clone();
    prod.mul_assign(&cb).expect("mul");
    assert_eq!(prod.info().parts, 2, "relinearized back to two parts");
    assert_decrypts_to(&fx.sk, &prod, &ab, "mul_assign");

    let mut sq = ca.clone();
    sq.square().expect("square");
    assert_decrypts_to(&fx.sk, &sq, &negacyclic_mul(&a, &a, n()), "square");

    // Depth 2: (a * b) * a.
    prod.mul_assign(&ca).expect("second mul");
    assert_decrypts_to(
        &fx.sk,
        &prod,
        &negacyclic_mul(&ab, &a, n()),
        "depth-2 product",
    );

    let c = fx.pk.encrypt_const(F::from(3u64)).expect("encrypt");
    let d = fx.pk.encrypt_const(F::from(5u64)).expect("encrypt");
    assert_eq!(
        fx.sk
            .decrypt_const::<F>(&c.checked_mul(&d).expect("mul"))
            .expect("decrypt"),
        F::from(15u64)
    );
}

#[test]
fn modulus_switching_keeps_the_plaintext() {
    let fx = fixture();
    let mut rng = rng(8);
    let a = random_poly(&mut rng, n());
    let mut ct = fx.pk.encrypt_poly(&a).expect("encrypt");
    let top = ct.level();
    let modulus = ct.log2_modulus();

    ct.mod_switch_down().expect("mod_switch_down");
    assert_eq!(ct.level(), top - 1);
    assert!(ct.log2_modulus() < modulus);
    assert_decrypts_to(&fx.sk, &ct, &a, "after mod_switch_down");

    ct.mod_switch_to(top - 3).expect("mod_switch_to");
    assert_eq!(ct.level(), top - 3);
    assert_decrypts_to(&fx.sk, &ct, &a, "after mod_switch_to");

    // Switching to the current level is a no-op.
    ct.mod_switch_to(top - 3).expect("mod_switch_to same level");
    assert_eq!(ct.level(), top - 3);

    // Operands at different levels: the higher one is brought down first.
    let b = random_poly(&mut rng, n());
    let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
    let sum = (&ct + &cb).expect("add across levels");
    assert_eq!(sum.level(), top - 3);
    assert_decrypts_to(&fx.sk, &sum, &add(&a, &b), "add across levels");
    let prod = (&cb * &ct).expect("mul across levels");
    assert_decrypts_to(
        &fx.sk,
        &prod,
        &negacyclic_mul(&a, &b, n()),
        "mul across levels",
    );
}

#[test]
fn switching_to_the_lowest_level_still_decrypts() {
    // Enough modulus that a fresh ciphertext survives at a low level.
    let fx = fixture();
    let mut rng = rng(9);
    let a = random_poly(&mut rng, n());
    let mut ct = fx.pk.encrypt_poly(&a).expect("encrypt");
    let mut lowest_ok = None;
    for level in (1..ct.level()).rev() {
        let before = ct.level();
        match ct.mod_switch_to(level) {
            Ok(()) => {
                assert!(
                    ct.noise_budget() > 0.0,
                    "a switch never leaves a spent ciphertext"
                );
                assert_decrypts_to(&fx.sk, &ct, &a, "low level");
                lowest_ok = Some(level);
            }
            // Below the floor the budget would run out: the switch is refused and the
            // ciphertext is left as it was, still decrypting.
            Err(e) => {
                assert!(matches!(e, helib_rs::Error::Level(_)), "{e:?}");
                assert_eq!(ct.level(), before, "a refused switch changes nothing");
                assert_decrypts_to(&fx.sk, &ct, &a, "after a refused switch");
                break;
            }
        }
    }
    assert!(
        lowest_ok.is_some(),
        "a fresh ciphertext decrypts at least one level down"
    );
}

#[test]
fn operators_and_checked_forms() {
    let fx = fixture();
    let mut rng = rng(10);
    let a = random_poly(&mut rng, n());
    let b = random_poly(&mut rng, n());
    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");
    let cb = fx.pk.encrypt_poly(&b).expect("encrypt");

    assert_decrypts_to(&fx.sk, &(&ca + &cb).expect("+"), &add(&a, &b), "&a + &b");
    assert_decrypts_to(&fx.sk, &(&ca - &cb).expect("-"), &sub(&a, &b), "&a - &b");
    let minus_a: Vec<F> = a.iter().map(|x| -*x).collect();
    assert_decrypts_to(&fx.sk, &(-&ca).expect("neg"), &minus_a, "-&a");
    let ab = negacyclic_mul(&a, &b, n());
    assert_decrypts_to(&fx.sk, &(&ca * &cb).expect("*"), &ab, "&a * &b");

    // Owned left operands are reused rather than copied.
    assert_decrypts_to(
        &fx.sk,
        &(ca.clone() + &cb).expect("+"),
        &add(&a, &b),
        "a + &b",
    );
    assert_decrypts_to(
        &fx.sk,
        &(ca.clone() - &cb).expect("-"),
        &sub(&a, &b),
        "a - &b",
    );
    assert_decrypts_to(&fx.sk, &(-ca.clone()).expect("neg"), &minus_a, "-a");
    assert_decrypts_to(&fx.sk, &(ca.clone() * &cb).expect("*"), &ab, "a * &b");

    assert_decrypts_to(
        &fx.sk,
        &ca.checked_add(&cb).expect("add"),
        &add(&a, &b),
        "checked_add",
    );
    assert_decrypts_to(
        &fx.sk,
        &ca.checked_sub(&cb).expect("sub"),
        &sub(&a, &b),
        "checked_sub",
    );
    assert_decrypts_to(
        &fx.sk,
        &ca.checked_neg().expect("neg"),
        &minus_a,
        "checked_neg",
    );
    assert_decrypts_to(
        &fx.sk,
        &ca.checked_mul(&cb).expect("mul"),
        &ab,
        "checked_mul",
    );
    let aa = negacyclic_mul(&a, &a, n());
    assert_decrypts_to(
        &fx.sk,
        &ca.checked_square().expect("square"),
        &aa,
        "checked_square",
    );

    // Operands are untouched by the reference forms.
    assert_decrypts_to(&fx.sk, &ca, &a, "left operand unchanged");
    assert_decrypts_to(&fx.sk, &cb, &b, "right operand unchanged");
}

#[test]
fn clones_are_independent() {
    let fx = fixture();
    let mut rng = rng(11);
    let a = random_poly(&mut rng, n());
    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");
    let mut copy = ca.try_clone().expect("try_clone");
    assert_eq!(copy.info(), ca.info());
    copy.add_const(F::one()).expect("add_const");
    assert_decrypts_to(&fx.sk, &ca, &a, "original after modifying the clone");
    let mut a1 = a.clone();
    a1[0] += F::one();
    assert_decrypts_to(&fx.sk, &copy, &a1, "modified clone");
}

#[test]
fn a_small_circuit() {
    // (a + k) * b - a * X^5, mixing every kind of operand.
    let fx = fixture();
    let mut rng = rng(12);
    let a = random_poly(&mut rng, n());
    let b = random_poly(&mut rng, n());
    let k = random_elem(&mut rng);
    let mut x5 = vec![F::zero(); 6];
    x5[5] = F::one();

    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");
    let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
    let mut left = ca.clone();
    left.add_const(k).expect("add_const");
    left.mul_assign(&cb).expect("mul");
    let mut right = ca.clone();
    right.mul_poly(&x5).expect("mul_poly");
    let result = (left - &right).expect("sub");

    let mut a_plus_k = a.clone();
    a_plus_k[0] += k;
    let expected = sub(
        &negacyclic_mul(&a_plus_k, &b, n()),
        &negacyclic_mul(&a, &x5, n()),
    );
    assert_decrypts_to(&fx.sk, &result, &expected, "circuit");
}
