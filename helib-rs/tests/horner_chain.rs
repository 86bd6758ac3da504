//! `HornerChain`: giant steps by Horner's rule with the accumulator kept over the key-switching
//! basis equal the plain sum of rotated terms and rotating-then-adding (with a tracked bound no
//! lower than the measured noise), work after a product at a lower level, and refuse bad terms
//! without changing the chain.

mod common;

use std::sync::OnceLock;

use common::*;
use helib_rs::{BatchEncoder, Ctxt, Error, GaloisKeys, GaloisSteps, HornerChain};

/// Slots per row at the test ring degree.
const HALF: i64 = N as i64 / 2;

fn keys() -> &'static GaloisKeys {
    static KEYS: OnceLock<GaloisKeys> = OnceLock::new();
    KEYS.get_or_init(|| {
        GaloisKeys::generate(&fixture().sk, &GaloisSteps::new().steps([3, -5]))
            .expect("Galois keys")
    })
}

/// Plain reference: `sum_i rot(x_i, i * step)` slotwise.
fn plain_horner(xs: &[Vec<F>], step: i64) -> Vec<F> {
    let mut out = vec![F::from(0u64); N as usize];
    for (i, x) in xs.iter().enumerate() {
        for (o, r) in out.iter_mut().zip(plain_rotate_rows(x, i as i64 * step)) {
            *o += r;
        }
    }
    out
}

/// The chain over `cts` (first term first), started from the last.
fn chain(cts: &[Ctxt], step: i64) -> HornerChain {
    let (last, rest) = cts.split_last().expect("terms");
    let mut h = HornerChain::new(last, step, keys()).expect("chain");
    for x in rest.iter().rev() {
        h.rotate_add(x).expect("step");
    }
    h
}

#[test]
fn a_chain_is_the_plain_sum_of_rotated_terms_and_equals_rotating_then_adding() {
    let plain: Vec<Vec<F>> = (0..6).map(|i| random_slots(100 + i)).collect();
    let cts: Vec<Ctxt> = plain.iter().map(|v| encrypt_fixture_slots(v)).collect();
    for step in [3, -5] {
        let lazy = chain(&cts, step).result().expect("result");
        assert_decrypts_to_slots(
            &fixture().sk,
            fixture_encoder(),
            &lazy,
            &plain_horner(&plain, step),
            "six terms",
        );
        assert_eq!(lazy.level(), cts[0].level());

        let mut eager = cts[5].try_clone().expect("clone");
        for x in cts[..5].iter().rev() {
            eager.rotate_rows(step, keys()).expect("rotate");
            eager.add_assign(x).expect("add");
        }
        assert_same_slots(&lazy, &eager);
        // The tracked bounds follow one formula; that the bound holds is checked against the
        // measured noise in assert_decrypts_to_slots above.
        assert!(
            lazy.log2_noise_bound() <= eager.log2_noise_bound() + 1e-9,
            "the chain tracks no more noise than rotating and adding: {:?} vs {:?}",
            lazy.info(),
            eager.info()
        );
    }
    // One term: the term itself; the result can be read between steps.
    let mut h = HornerChain::new(&cts[0], 3, keys()).expect("one term");
    assert_decrypts_to_slots(
        &fixture().sk,
        fixture_encoder(),
        &h.result().expect("result"),
        &plain[0],
        "one term",
    );
    h.rotate_add(&cts[1]).expect("step");
    let two = plain_horner(&[plain[1].clone(), plain[0].clone()], 3);
    assert_decrypts_to_slots(
        &fixture().sk,
        fixture_encoder(),
        &h.result().expect("result"),
        &two,
        "two terms",
    );
}

#[test]
fn it_works_after_a_product_below_the_top_level() {
    let (a, b, c) = (random_slots(1), random_slots(2), random_slots(3));
    let mut terms = Vec::new();
    for (x, y) in [(&a, &b), (&b, &c), (&c, &a)] {
        let mut p = (&encrypt_fixture_slots(x) * &encrypt_fixture_slots(y)).expect("mul");
        // One prime dropped: a lower level and a plaintext factor other than 1.
        p.mod_switch_down().expect("mod switch");
        terms.push(p);
    }
    assert!(terms[0].level() < fixture().ctx.num_ctxt_primes());
    let plain: Vec<Vec<F>> = [(&a, &b), (&b, &c), (&c, &a)]
        .iter()
        .map(|(x, y)| x.iter().zip(y.iter()).map(|(u, v)| *u * v).collect())
        .collect();
    let y = chain(&terms, -5).result().expect("result");
    assert_decrypts_to_slots(
        &fixture().sk,
        fixture_encoder(),
        &y,
        &plain_horner(&plain, -5),
        "after a product",
    );
}

#[test]
fn bad_terms_are_refused_and_leave_the_chain_as_it_was() {
    let (x, z) = (random_slots(7), random_slots(8));
    let ct = encrypt_fixture_slots(&x);
    let mut h = HornerChain::new(&ct, 3, keys()).expect("chain");

    assert!(matches!(
        HornerChain::new(&ct, HALF, keys()),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        HornerChain::new(&ct, 7, keys()),
        Err(Error::MissingKey(_))
    ));

    let mut low = encrypt_fixture_slots(&z);
    low.mod_switch_down().expect("mod switch");
    let err = h.rotate_add(&low).expect_err("another level");
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    assert!(message(&err).contains("level"), "{err}");

    // The same level, but another plaintext factor: a product of two switched-down
    // ciphertexts carries the square of their factor.
    let mut a = encrypt_fixture_slots(&z);
    a.mod_switch_down().expect("mod switch");
    let squared = (&a * &a).expect("square");
    let mut base = encrypt_fixture_slots(&x);
    base.mod_switch_to(squared.level()).expect("mod switch");
    let mut h_low = HornerChain::new(&base, 3, keys()).expect("chain at the lower level");
    let err = h_low.rotate_add(&squared).expect_err("another factor");
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    assert!(message(&err).contains("factor"), "{err}");
    // The engine refused it: the chain is still `base` alone.
    assert_decrypts_to_slots(
        &fixture().sk,
        fixture_encoder(),
        &h_low.result().expect("result"),
        &x,
        "after the engine's refusal",
    );

    let other = new_fixture(600);
    let foreign = other
        .pk
        .encrypt_slots(&BatchEncoder::for_context(&other.ctx).expect("encoder"), &z)
        .expect("encrypt");
    assert!(matches!(h.rotate_add(&foreign), Err(Error::Mismatch(_))));

    // Still the first term alone, and usable.
    assert_decrypts_to_slots(
        &fixture().sk,
        fixture_encoder(),
        &h.result().expect("result"),
        &x,
        "after refusals",
    );
    h.rotate_add(&encrypt_fixture_slots(&z)).expect("step");
    let want = plain_horner(&[z.clone(), x.clone()], 3);
    assert_decrypts_to_slots(
        &fixture().sk,
        fixture_encoder(),
        &h.result().expect("result"),
        &want,
        "a step after refusals",
    );
}

#[test]
fn a_chain_outlives_the_key_set_it_was_made_with() {
    let (x, y, z) = (random_slots(11), random_slots(12), random_slots(13));
    let own = GaloisKeys::generate(&fixture().sk, &GaloisSteps::new().step(3)).expect("keys");
    let mut h = HornerChain::new(&encrypt_fixture_slots(&z), 3, &own).expect("chain");
    drop(own);
    h.rotate_add(&encrypt_fixture_slots(&y)).expect("step");
    h.rotate_add(&encrypt_fixture_slots(&x)).expect("step");
    let want = plain_horner(&[x, y, z], 3);
    assert_decrypts_to_slots(
        &fixture().sk,
        fixture_encoder(),
        &h.result().expect("result"),
        &want,
        "keys dropped",
    );
}
