//! `Ctxt::rotated_inner_product`: hoisted rotations weighted by plaintexts and summed under one
//! mod-down equal the plain sum of weighted row rotations, match rotating and then taking the
//! inner product (with no more noise), work below the top level, and refuse bad input with
//! errors in user terms.

mod common;

use std::sync::OnceLock;

use common::*;
use helib_rs::{BatchEncoder, Ctxt, EncodedPtxt, Error, GaloisKeys, GaloisSteps, PeriodicEncoder};

/// Slots per row at the test ring degree.
const HALF: i64 = N as i64 / 2;

/// Steps with keys in the shared key set (`-1` and `HALF - 1` share one key).
const KEYED_STEPS: [i64; 5] = [1, 2, 5, -1, -7];

fn keys() -> &'static GaloisKeys {
    static KEYS: OnceLock<GaloisKeys> = OnceLock::new();
    KEYS.get_or_init(|| {
        GaloisKeys::generate(&fixture().sk, &GaloisSteps::new().steps(KEYED_STEPS))
            .expect("Galois keys")
    })
}

fn extended(v: &[F]) -> EncodedPtxt {
    EncodedPtxt::from_slots_extended(&fixture().ctx, fixture_encoder(), v, None)
        .expect("extended encoding")
}

/// Plain reference: `sum_i w[i] * rot(x, steps[i])` slotwise.
fn plain_rotated_sum(x: &[F], steps: &[i64], w: &[Vec<F>]) -> Vec<F> {
    let mut out = vec![F::from(0u64); x.len()];
    for (&k, wi) in steps.iter().zip(w) {
        for ((o, r), c) in out.iter_mut().zip(plain_rotate_rows(x, k)).zip(wi) {
            *o += r * c;
        }
    }
    out
}

fn assert_slots(ct: &Ctxt, expected: &[F], what: &str) {
    assert_decrypts_to_slots(&fixture().sk, fixture_encoder(), ct, expected, what);
}

#[test]
fn a_rotated_inner_product_is_the_plain_sum_of_weighted_rotations() {
    let x = random_slots(1);
    // 0 (no key), both directions, a step equal to -1 modulo the row, and one repeated step.
    let steps = [0, 1, -1, 5, HALF - 1, -7, 2, 1];
    let w: Vec<Vec<F>> = (0..steps.len() as u64)
        .map(|i| random_slots(10 + i))
        .collect();
    let pts: Vec<EncodedPtxt> = w.iter().map(|v| extended(v)).collect();
    let refs: Vec<&EncodedPtxt> = pts.iter().collect();
    let ct = encrypt_fixture_slots(&x);
    let y = ct
        .rotated_inner_product(&steps, &refs, keys())
        .expect("rotated inner product");
    assert_slots(&y, &plain_rotated_sum(&x, &steps, &w), "8 terms");
    assert_eq!(y.level(), ct.level());

    // One term alone is a rotation times a plaintext.
    let one = ct
        .rotated_inner_product(&[5], &[&pts[3]], keys())
        .expect("one term");
    assert_slots(&one, &plain_rotated_sum(&x, &[5], &w[3..4]), "one term");
}

#[test]
fn it_matches_rotating_then_taking_the_inner_product_with_no_more_noise() {
    let x = random_slots(2);
    let steps = [1, 2, 5, -7];
    let w: Vec<Vec<F>> = (0..4).map(|i| random_slots(20 + i)).collect();
    let pts: Vec<EncodedPtxt> = w.iter().map(|v| extended(v)).collect();
    let refs: Vec<&EncodedPtxt> = pts.iter().collect();
    let ct = encrypt_fixture_slots(&x);

    let lazy = ct
        .rotated_inner_product(&steps, &refs, keys())
        .expect("rotated inner product");
    let rotated = ct.rotate_rows_many(&steps, keys()).expect("hoisted");
    let eager = Ctxt::inner_product(&rotated.iter().collect::<Vec<_>>(), &refs).expect("inner");
    assert_same_slots(&lazy, &eager);
    let sk = &fixture().sk;
    assert!(
        lazy.log2_noise_bound() <= eager.log2_noise_bound(),
        "one mod-down should not track more noise: {:?} vs {:?}",
        lazy.info(),
        eager.info()
    );
    assert_noise_within_bound(sk, &lazy, "four terms");
}

#[test]
fn it_works_below_the_top_level_and_after_a_product() {
    let (a, b) = (random_slots(3), random_slots(4));
    let mut product = (&encrypt_fixture_slots(&a) * &encrypt_fixture_slots(&b)).expect("mul");
    // One prime dropped: a lower level, and a plaintext factor other than 1.
    product.mod_switch_down().expect("mod switch");
    let plain: Vec<F> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    assert!(product.level() < fixture().ctx.num_ctxt_primes());
    let steps = [-1, 0, 2];
    let w: Vec<Vec<F>> = (0..3).map(|i| random_slots(30 + i)).collect();
    // Encoded at the top level, used on the product's lower level: the special rows sit after
    // the plaintext's own chain rows.
    let pts: Vec<EncodedPtxt> = w.iter().map(|v| extended(v)).collect();
    let refs: Vec<&EncodedPtxt> = pts.iter().collect();
    let y = product
        .rotated_inner_product(&steps, &refs, keys())
        .expect("after a product");
    assert_slots(
        &y,
        &plain_rotated_sum(&plain, &steps, &w),
        "after a product",
    );

    // Encoded exactly at a low level.
    let ctx = &fixture().ctx;
    let level = ctx.num_ctxt_primes() / 2;
    let mut low = encrypt_fixture_slots(&a);
    low.mod_switch_to(level).expect("mod switch");
    let low_pts: Vec<EncodedPtxt> = w
        .iter()
        .map(|v| {
            EncodedPtxt::from_slots_extended(ctx, fixture_encoder(), v, Some(level))
                .expect("encode")
        })
        .collect();
    let low_refs: Vec<&EncodedPtxt> = low_pts.iter().collect();
    let y = low
        .rotated_inner_product(&steps, &low_refs, keys())
        .expect("at a low level");
    assert_eq!(y.level(), level);
    assert_slots(&y, &plain_rotated_sum(&a, &steps, &w), "at a low level");
}

#[test]
fn unrotated_terms_take_any_encoding() {
    let x = random_slots(5);
    let w0 = random_slots(50);
    let w1 = random_slots(51);
    let ctx = &fixture().ctx;
    let plain_pt = EncodedPtxt::from_slots(ctx, fixture_encoder(), &w0, None).expect("encode");
    let ext = extended(&w1);
    // A compact (periodic) encoding: 16 values repeated along both rows.
    let periodic = PeriodicEncoder::<F>::new(ctx, 16, None).expect("periodic encoder");
    let period: Vec<F> = random_poly(&mut rng(52), 16);
    let compact = periodic.encode_replicated(&period).expect("compact");
    let w2: Vec<F> = (0..N as usize).map(|j| period[j % 16]).collect();

    let ct = encrypt_fixture_slots(&x);
    let y = ct
        .rotated_inner_product(&[0, 0], &[&plain_pt, &compact], keys())
        .expect("step 0 only");
    assert_slots(
        &y,
        &plain_rotated_sum(&x, &[0, 0], &[w0.clone(), w2.clone()]),
        "step 0 only",
    );
    let y = ct
        .rotated_inner_product(&[0, 2, 0], &[&plain_pt, &ext, &compact], keys())
        .expect("mixed");
    assert_slots(
        &y,
        &plain_rotated_sum(&x, &[0, 2, 0], &[w0, w1, w2]),
        "mixed",
    );
}

#[test]
fn an_extended_encoding_serves_the_other_plaintext_operations() {
    let x = random_slots(6);
    let w = random_slots(60);
    let ctx = &fixture().ctx;
    let plain_pt = EncodedPtxt::from_slots(ctx, fixture_encoder(), &w, None).expect("encode");
    let ext = extended(&w);
    assert!(ext.is_extended() && !plain_pt.is_extended());
    assert!(ext.size_bytes() > plain_pt.size_bytes());
    let ct = encrypt_fixture_slots(&x);
    let sk = &fixture().sk;
    let dec = |c: &Ctxt| sk.decrypt_slots(fixture_encoder(), c).expect("decrypt");
    assert_eq!(
        dec(&(&ct * &ext).expect("mul")),
        dec(&(&ct * &plain_pt).expect("mul"))
    );
    assert_eq!(
        dec(&(&ct + &ext).expect("add")),
        dec(&(&ct + &plain_pt).expect("add"))
    );
    assert_eq!(
        dec(&Ctxt::inner_product(&[&ct], &[&ext]).expect("inner")),
        dec(&Ctxt::inner_product(&[&ct], &[&plain_pt]).expect("inner"))
    );
    let coeffs: Vec<F> = random_poly(&mut rng(61), 5);
    let poly_pt = EncodedPtxt::from_poly_extended(ctx, &coeffs, None).expect("poly");
    assert!(poly_pt.is_extended());
    let product =
        (&fixture().pk.encrypt_const(F::from(3u64)).expect("encrypt") * &poly_pt).expect("mul");
    let got = sk.decrypt_poly::<F>(&product).expect("decrypt");
    let expected: Vec<F> = coeffs.iter().map(|c| *c * F::from(3u64)).collect();
    assert_eq!(&got[..5], &expected[..]);
}

#[test]
fn bad_input_is_refused_with_clear_errors() {
    let ct = encrypt_fixture_slots(&random_slots(7));
    let ctx = &fixture().ctx;
    let w = random_slots(70);
    let ext = extended(&w);
    let plain_pt = EncodedPtxt::from_slots(ctx, fixture_encoder(), &w, None).expect("encode");

    let err = ct.rotated_inner_product(&[], &[], keys()).unwrap_err();
    assert!(matches!(err, Error::InvalidLength(_)), "{err}");
    let err = ct
        .rotated_inner_product(&[1, 2], &[&ext], keys())
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidLength(ref m) if m.contains("2 steps, 1 plaintexts")),
        "{err}"
    );

    let err = ct
        .rotated_inner_product(&[1, 3], &[&ext, &ext], keys())
        .unwrap_err();
    assert!(
        matches!(err, Error::MissingKey(ref m) if m.contains("rotation by 3")),
        "{err}"
    );

    let err = ct
        .rotated_inner_product(&[0, 2], &[&ext, &plain_pt], keys())
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument(ref m) if m.contains("plaintext 1") && m.contains("from_slots_extended")),
        "{err}"
    );

    // A plaintext below the ciphertext's level.
    let low = EncodedPtxt::from_slots_extended(ctx, fixture_encoder(), &w, Some(2))
        .expect("low encoding");
    let err = ct.rotated_inner_product(&[1], &[&low], keys()).unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument(ref m) if m.contains("below")),
        "{err}"
    );

    // Plaintexts and keys of another context or secret key.
    let other = new_fixture(CIPHERTEXT_BITS);
    let other_enc = BatchEncoder::<F>::for_context(&other.ctx).expect("encoder");
    let foreign_pt =
        EncodedPtxt::from_slots_extended(&other.ctx, &other_enc, &w, None).expect("encode");
    let err = ct
        .rotated_inner_product(&[1], &[&foreign_pt], keys())
        .unwrap_err();
    assert!(matches!(err, Error::Mismatch(_)), "{err}");
    let foreign_keys = GaloisKeys::generate(&other.sk, &GaloisSteps::new().step(1)).expect("keys");
    let err = ct
        .rotated_inner_product(&[1], &[&ext], &foreign_keys)
        .unwrap_err();
    assert!(matches!(err, Error::Mismatch(_)), "{err}");
}
