//! Noise tracking: the tracked bound covers the measured noise, the budget shrinks as it
//! should, and an exhausted ciphertext is refused rather than decrypted wrongly.

mod common;

use common::*;
use helib_rs::Error;

fn n() -> usize {
    fixture().ctx.ring_degree()
}

#[test]
fn fresh_ciphertext_noise() {
    let fx = fixture();
    let mut rng = rng(20);
    let ct = fx
        .pk
        .encrypt_poly(&random_poly(&mut rng, n()))
        .expect("encrypt");
    assert_noise_within_bound(&fx.sk, &ct, "fresh");
    let measured = fx.sk.measure_noise(&ct).expect("measure");
    // A fresh BGV ciphertext carries the message plus p times a small error: above p.
    assert!(
        measured > f64::from(fx.ctx.plaintext_bits()) - 1.0,
        "measured 2^{measured}"
    );
    assert!(
        (ct.noise_budget() - fx.ctx.fresh_noise_budget()).abs() < 2.0,
        "fresh budget {} vs the context's {}",
        ct.noise_budget(),
        fx.ctx.fresh_noise_budget()
    );
    // budget = log2(modulus / 2) - log2(bound)
    let expected = ct.log2_modulus() - 1.0 - ct.log2_noise_bound();
    assert!((ct.noise_budget() - expected).abs() < 1e-6);
}

/// A named homomorphic operation plus the same operation on the plain expected value.
type Step<'a> = (
    &'static str,
    Box<dyn Fn(&mut helib_rs::Ctxt, &mut Vec<F>) + 'a>,
);

#[test]
fn measured_noise_stays_within_the_bound_through_every_operation() {
    let fx = fixture();
    let mut rng = rng(21);
    let a = random_poly(&mut rng, n());
    let b = random_poly(&mut rng, n());
    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");
    let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
    let k = random_elem(&mut rng);

    let mut ct = ca.clone();
    let mut expected = a.clone();
    let steps: Vec<Step> = vec![
        (
            "add",
            Box::new(|c, e| {
                c.add_assign(&cb).expect("add");
                *e = add(e, &b);
            }),
        ),
        (
            "add_const",
            Box::new(|c, e| {
                c.add_const(k).expect("add_const");
                e[0] += k;
            }),
        ),
        (
            "mul_const",
            Box::new(|c, e| {
                c.mul_const(k).expect("mul_const");
                *e = scale(e, k);
            }),
        ),
        (
            "mod_switch_down",
            Box::new(|c, _| c.mod_switch_down().expect("mod_switch_down")),
        ),
        (
            "mul",
            Box::new(|c, e| {
                c.mul_assign(&cb).expect("mul");
                *e = negacyclic_mul(e, &b, n());
            }),
        ),
        (
            "sub",
            Box::new(|c, e| {
                c.sub_assign(&ca).expect("sub");
                *e = sub(e, &a);
            }),
        ),
        (
            "neg",
            Box::new(|c, e| {
                c.neg_assign().expect("neg");
                *e = e.iter().map(|x| -*x).collect();
            }),
        ),
        (
            "mul_poly",
            Box::new(|c, e| {
                c.mul_poly(&a).expect("mul_poly");
                *e = negacyclic_mul(e, &a, n());
            }),
        ),
    ];
    assert_noise_within_bound(&fx.sk, &ct, "fresh");
    for (name, step) in &steps {
        step(&mut ct, &mut expected);
        assert_noise_within_bound(&fx.sk, &ct, name);
        assert!(
            ct.noise_budget() > 0.0,
            "{name}: budget should remain, {:?}",
            ct.info()
        );
        assert_decrypts_to(&fx.sk, &ct, &expected, name);
    }

    let mut sq = ca.clone();
    sq.square().expect("square");
    assert_noise_within_bound(&fx.sk, &sq, "square");
}

#[test]
fn budget_decreases_with_multiplications() {
    let fx = fixture();
    let mut rng = rng(22);
    let ca = fx
        .pk
        .encrypt_poly(&random_poly(&mut rng, n()))
        .expect("encrypt");
    let cb = fx
        .pk
        .encrypt_poly(&random_poly(&mut rng, n()))
        .expect("encrypt");
    let fresh = ca.noise_budget();

    let mut prod = ca.clone();
    prod.mul_assign(&cb).expect("mul");
    // With a 254-bit p a product costs well over 200 bits.
    assert!(
        prod.noise_budget() < fresh - 200.0,
        "ct x ct: budget {fresh} -> {}",
        prod.noise_budget()
    );

    let mut by_const = ca.clone();
    by_const
        .mul_const(random_elem(&mut rng))
        .expect("mul_const");
    assert!(
        by_const.noise_budget() < fresh - 200.0,
        "mul_const: budget {fresh} -> {}",
        by_const.noise_budget()
    );

    let mut by_poly = ca.clone();
    by_poly
        .mul_poly(&random_poly(&mut rng, n()))
        .expect("mul_poly");
    assert!(
        by_poly.noise_budget() < by_const.noise_budget(),
        "a random polynomial costs more than a random constant"
    );

    // Additions cost at most a bit.
    let sum = (&ca + &cb).expect("add");
    assert!(sum.noise_budget() > fresh - 1.5 && sum.noise_budget() <= fresh + 1e-9);
}

#[test]
fn mod_switching_costs_little_budget_above_the_floor() {
    let fx = fixture();
    let mut rng = rng(23);
    let mut ct = fx
        .pk
        .encrypt_poly(&random_poly(&mut rng, n()))
        .expect("encrypt");
    ct.mul_assign(
        &fx.pk
            .encrypt_poly(&random_poly(&mut rng, n()))
            .expect("encrypt"),
    )
    .expect("mul");
    // Noise now far above the modulus-switching floor: dropping a prime scales the noise
    // down with the modulus, so the budget is almost unchanged.
    let before = ct.info();
    ct.mod_switch_down().expect("mod_switch_down");
    let after = ct.info();
    assert_eq!(after.level, before.level - 1);
    assert!(after.log2_modulus < before.log2_modulus - 30.0);
    assert!(after.log2_noise_bound < before.log2_noise_bound - 30.0);
    assert!(
        (after.noise_budget - before.noise_budget).abs() < 3.0,
        "budget {} -> {}",
        before.noise_budget,
        after.noise_budget
    );
    assert_noise_within_bound(&fx.sk, &ct, "after switching a product down");
}

#[test]
fn switching_several_primes_at_once_matches_one_at_a_time() {
    // mod_switch_to drops several primes with one division by their product; its result
    // decrypts to what dropping them one by one gives, with the same level, factor and bound,
    // and measured noise within that bound: from a fresh ciphertext (noise at the floor after
    // the switch) and from a product (noise far above it).
    let fx = fixture();
    let mut rng = rng(24);
    let m = random_poly(&mut rng, n());
    let fresh = fx.pk.encrypt_poly(&m).expect("encrypt");
    let w = random_poly(&mut rng, n());
    let mut product = fresh.clone();
    product
        .mul_assign(&fx.pk.encrypt_poly(&w).expect("encrypt"))
        .expect("mul");
    for (name, ct) in [("fresh", &fresh), ("product", &product)] {
        let mut tried = 0;
        for drop in 2..ct.level().min(7) {
            let target = ct.level() - drop;
            let mut at_once = ct.clone();
            if at_once.mod_switch_to(target).is_err() {
                break; // below the lowest level that keeps the plaintext
            }
            tried += 1;
            let mut one_by_one = ct.clone();
            for _ in 0..drop {
                one_by_one.mod_switch_down().expect("switch one prime");
            }
            assert_eq!(at_once.level(), target);
            assert_eq!(at_once.log2_noise_bound(), one_by_one.log2_noise_bound());
            assert_eq!(
                fx.sk.decrypt_poly::<F>(&at_once).expect("decrypt"),
                fx.sk.decrypt_poly::<F>(&one_by_one).expect("decrypt"),
                "{name}, {drop} primes"
            );
            assert_noise_within_bound(&fx.sk, &at_once, name);
        }
        assert!(
            tried >= 2,
            "{name}: only {tried} multi-prime switches possible"
        );
    }
}

/// Keeps multiplying until the engine gives up; decryption must never return a wrong value.
#[test]
fn multiplying_until_exhausted_never_decrypts_wrongly() {
    let fx = fixture();
    let mut rng = rng(24);
    let a = random_poly(&mut rng, n());
    let b = random_poly(&mut rng, n());
    let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
    let mut ct = fx.pk.encrypt_poly(&a).expect("encrypt");
    let mut plain = a.clone();

    let mut good_decryptions = 0;
    let mut refused = false;
    for round in 0..12 {
        // Alternate squaring and multiplying by a fresh operand.
        let step = if round % 2 == 0 {
            plain = negacyclic_mul(&plain, &plain, n());
            ct.square()
        } else {
            plain = negacyclic_mul(&plain, &b, n());
            ct.mul_assign(&cb)
        };
        if let Err(e) = step {
            assert!(
                matches!(e, Error::NoiseBudgetExhausted(_)),
                "round {round}: {e:?}"
            );
            assert!(!message(&e).is_empty());
            refused = true;
            break;
        }
        if ct.noise_budget() > 0.0 {
            assert_decrypts_to(&fx.sk, &ct, &plain, &format!("round {round}"));
            assert_noise_within_bound(&fx.sk, &ct, &format!("round {round}"));
            good_decryptions += 1;
        } else {
            let err = fx
                .sk
                .decrypt_poly::<F>(&ct)
                .expect_err("exhausted budget must refuse");
            assert!(
                matches!(err, Error::NoiseBudgetExhausted(_)),
                "round {round}: {err:?}"
            );
            assert!(!message(&err).is_empty());
            refused = true;
            // Further operations on an exhausted ciphertext must not revive it.
            if ct.square().is_ok() {
                let err = fx.sk.decrypt_poly::<F>(&ct).expect_err("still exhausted");
                assert!(matches!(err, Error::NoiseBudgetExhausted(_)), "{err:?}");
            }
            break;
        }
    }
    assert!(
        good_decryptions >= 2,
        "parameters allow at least two products"
    );
    assert!(refused, "the budget ran out within 12 products");
}

#[test]
fn constant_multiplications_until_exhausted() {
    let fx = fixture();
    let mut rng = rng(25);
    let mut plain = random_elem(&mut rng);
    let mut ct = fx.pk.encrypt_const(plain).expect("encrypt");
    for round in 0..12 {
        let k = random_elem(&mut rng);
        if let Err(e) = ct.mul_const(k) {
            assert!(
                matches!(e, Error::NoiseBudgetExhausted(_)),
                "round {round}: {e:?}"
            );
            return;
        }
        plain *= k;
        match fx.sk.decrypt_const::<F>(&ct) {
            Ok(v) => {
                assert!(ct.noise_budget() > 0.0, "decrypted with no budget left");
                assert_eq!(v, plain, "round {round}");
            }
            Err(e) => {
                assert!(
                    matches!(e, Error::NoiseBudgetExhausted(_)),
                    "round {round}: {e:?}"
                );
                assert!(round >= 2, "~1000 bits allow a few constant products");
                return;
            }
        }
    }
    panic!("12 random constant multiplications should exhaust ~1000 bits of budget");
}

/// The centered integer of a field element, as a float.
fn centered_f64(x: &F) -> f64 {
    use ark_ff::PrimeField;
    let (negative, magnitude) = if x.into_bigint() > F::MODULUS_MINUS_ONE_DIV_TWO {
        (true, (-*x).into_bigint())
    } else {
        (false, x.into_bigint())
    };
    let v = magnitude
        .0
        .iter()
        .rev()
        .fold(0.0, |acc, &w| acc * 2f64.powi(64) + w as f64);
    if negative {
        -v
    } else {
        v
    }
}

/// log2 of max |m(zeta^e)| over all odd e < 2N (zeta = e^(i pi / N)), evaluated directly.
fn naive_log2_canonical_norm(m: &[F], n: usize) -> f64 {
    let a: Vec<f64> = m.iter().map(centered_f64).collect();
    let mut max2: f64 = 0.0;
    for e in (1..2 * n).step_by(2) {
        let (mut re, mut im) = (0.0, 0.0);
        for (k, ak) in a.iter().enumerate() {
            let angle = std::f64::consts::PI * ((e * k) % (2 * n)) as f64 / n as f64;
            re += ak * angle.cos();
            im += ak * angle.sin();
        }
        max2 = max2.max(re * re + im * im);
    }
    0.5 * max2.log2()
}

/// Multiplying by an encoded plaintext adds exactly log2 of its canonical norm to the tracked
/// bound, so the bound exposes the engine's norm: check it on polynomials with known norms and
/// on random ones against a direct evaluation at every root of X^N + 1. Two ring degrees, so
/// that the norm's FFT (two stages per pass) meets both an even and an odd stage count.
#[test]
fn plaintext_norm_is_the_exact_canonical_norm() {
    check_canonical_norms(fixture());
    check_canonical_norms(&new_fixture_with_degree(2 * N, 600));
}

fn check_canonical_norms(fx: &Fixture) {
    use helib_rs::EncodedPtxt;
    let n = fx.ctx.ring_degree();
    let mut rng = rng(23);
    let ct = fx
        .pk
        .encrypt_poly(&random_poly(&mut rng, n))
        .expect("encrypt");
    let norm_through_bound = |m: &[F]| {
        let pt = EncodedPtxt::from_poly(&fx.ctx, m, None).expect("encode");
        let mut c = ct.clone();
        c.mul_ptxt(&pt).expect("mul");
        c.log2_noise_bound() - ct.log2_noise_bound()
    };
    let f = |v: i64| {
        if v < 0 {
            -F::from(v.unsigned_abs())
        } else {
            F::from(v as u64)
        }
    };
    let mut x_half = vec![f(0); n / 2 + 1];
    x_half[0] = f(3);
    x_half[n / 2] = f(-2);
    let mut monomial = vec![f(0); 8];
    monomial[7] = f(1);
    // Known norms: a constant; a monomial (|zeta^7e| = 1); 3 - 2 X^(N/2) = 3 -+ 2i at every root.
    for (m, want) in [
        (vec![f(1000)], 1000f64.log2()),
        (monomial, 0.0),
        (x_half, 13f64.sqrt().log2()),
    ] {
        let got = norm_through_bound(&m);
        assert!(
            (got - want).abs() < 1e-9,
            "N = {n}: norm 2^{got}, expected 2^{want}"
        );
    }
    for len in [2, 3, 64, n] {
        let m = random_poly(&mut rng, len);
        let (got, want) = (norm_through_bound(&m), naive_log2_canonical_norm(&m, n));
        assert!(
            (got - want).abs() < 1e-6,
            "N = {n}, {len} coefficients: 2^{got} vs 2^{want}"
        );
    }
}

/// An exhausted ciphertext stays exhausted through switching down and additions: its budget
/// is -inf, never NaN (which would compare as neither spent nor left), and decryption refuses.
#[test]
fn exhausted_stays_exhausted() {
    let fx = fixture();
    let mut rng = rng(26);
    let mut ct = fx.pk.encrypt_const(random_elem(&mut rng)).expect("encrypt");
    while ct.noise_budget() > 0.0 {
        if ct.mul_const(random_elem(&mut rng)).is_err() {
            panic!("the engine refused a constant product instead of letting the budget run out");
        }
    }
    ct.mod_switch_to_natural_level().expect("switch");
    let copy = ct.try_clone().expect("clone");
    ct.add_assign(&copy).expect("add");
    let budget = ct.noise_budget();
    assert!(
        budget == f64::NEG_INFINITY || budget <= 0.0,
        "budget {budget}"
    );
    assert!(!budget.is_nan());
    let err = fx.sk.decrypt_const::<F>(&ct).expect_err("exhausted");
    assert!(matches!(err, Error::NoiseBudgetExhausted(_)), "{err:?}");
}

/// Switching to the natural level keeps the budget (to within the floor's share), lowers the
/// level of a ciphertext whose noise grew, leaves a fresh one alone, and keeps the plaintext.
#[test]
fn natural_level_keeps_the_budget() {
    let fx = fixture();
    let mut rng = rng(27);
    let v = random_elem(&mut rng);
    let mut fresh = fx.pk.encrypt_const(v).expect("encrypt");
    let top = fresh.level();
    fresh.mod_switch_to_natural_level().expect("switch");
    assert_eq!(fresh.level(), top, "a fresh ciphertext has nothing to drop");

    let k = random_elem(&mut rng);
    let mut ct = fx.pk.encrypt_const(v).expect("encrypt");
    ct.mul_const(k).expect("multiply");
    let (level, budget) = (ct.level(), ct.noise_budget());
    ct.mod_switch_to_natural_level().expect("switch");
    assert!(ct.level() < level, "level {} -> {}", level, ct.level());
    assert!(
        ct.noise_budget() > budget - 2.0,
        "budget {budget} -> {}",
        ct.noise_budget()
    );
    assert_noise_within_bound(&fx.sk, &ct, "after the natural-level switch");
    assert_eq!(fx.sk.decrypt_const::<F>(&ct).expect("decrypt"), v * k);
}
