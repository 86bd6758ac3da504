//! The witness map through the plaintext ring's product, against ark-groth16's
//! `LibsnarkReduction` and the plain quotient, at N = 2048: every size from 2 to N/2.

use ark_bn254::Fr;
use ark_ff::{FftField, Field, Zero};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::Error;
use he_fft::{
    witness_map_ciphertext_bits, witness_map_context, EncryptedTransform, FftOptions, PlanOptions,
    WitnessMap,
};
use helib_rs::{Ctxt, GaloisKeys, GaloisSteps, PubKey, SecKey};
use std::sync::OnceLock;

mod common;
use common::{evaluations, keys, random_r1cs, random_vector, toy_keys, Keys, N};

/// Keys sized exactly for the witness map `new` builds at the largest size, so that an
/// undersized modulus shows as an exhausted budget.
fn map_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| toy_keys(witness_map_ciphertext_bits::<Fr>(N, N / 2)))
}

/// Keys with room for the packed map's four levels at the largest size it takes.
fn packed_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| toy_keys(WitnessMap::<Fr>::packed_ciphertext_bits(N, N / 4)))
}

/// ark-groth16's witness map for satisfied constraints (`c = a b` on H), step by step.
fn plain_quotient(a: &[Fr], b: &[Fr], c: &[Fr]) -> Vec<Fr> {
    let h = Radix2EvaluationDomain::<Fr>::new(a.len()).unwrap();
    let coset = h.get_coset(Fr::GENERATOR).unwrap();
    let [a, b, c] = [a, b, c].map(|v| coset.fft(&h.ifft(v)));
    let z_inv = h
        .evaluate_vanishing_polynomial(Fr::GENERATOR)
        .inverse()
        .unwrap();
    let q: Vec<Fr> = (0..a.len()).map(|i| (a[i] * b[i] - c[i]) * z_inv).collect();
    coset.ifft(&q)
}

fn run(k: &Keys, map: &WitnessMap<Fr>, a: &[Fr], b: &[Fr]) -> (Vec<Fr>, f64) {
    let gk = GaloisKeys::generate(&k.sk, &map.galois_steps()).expect("galois keys");
    let mut x = map.encrypt(&k.pk, a).expect("encrypt");
    x.extend(map.encrypt(&k.pk, b).expect("encrypt"));
    let h = map.apply(&gk, &x).expect("witness map");
    let budget = h[0].noise_budget();
    (map.decrypt(&k.sk, &h).expect("decrypt"), budget)
}

#[test]
fn every_size_equals_the_plain_quotient() {
    let k = map_keys();
    let mut n = 2;
    while n <= N / 2 {
        let a = random_vector(n, n as u64);
        let b = random_vector(n, 7 * n as u64);
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let map = WitnessMap::new(&k.ctx, n, &FftOptions::default()).unwrap();
        let (h, budget) = run(k, &map, &a, &b);
        assert_eq!(h, plain_quotient(&a, &b, &c), "n = {n}");
        assert!(h[n - 1].is_zero());
        assert!(budget > 0.0, "n = {n}: {budget}");
        println!("n = {n}: {budget:.1} bits left");
        n *= 2;
    }
}

/// Up to N/4, `a` and `b` can share one ciphertext through the stages: the same `h` as each
/// in its own, whose owner applies the first stage.
#[test]
fn packed_and_unpacked_agree() {
    let k = packed_keys();
    let options = FftOptions::default();
    let mut n = 2;
    while n <= N / 4 {
        let packed = WitnessMap::packed(&k.ctx, n, &options).unwrap();
        assert!(!WitnessMap::<Fr>::new(&k.ctx, n, &options)
            .unwrap()
            .is_packed());
        let unpacked = WitnessMap::unpacked(&k.ctx, n, &options).unwrap();
        assert!(packed.is_packed() && !unpacked.is_packed(), "n = {n}");
        // Packed, the server runs all three stages once; unpacked, the owner applies the
        // first and the server runs the other two on each input.
        assert!(!packed.owner_applies_first_stage() && unpacked.owner_applies_first_stage());
        assert_eq!((packed.info().levels, unpacked.info().levels), (4, 3));
        assert_eq!((packed.stages().len(), unpacked.stages().len()), (3, 2));
        let (a, b) = (
            random_vector(n, 3 * n as u64),
            random_vector(n, 5 * n as u64),
        );
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let expected = plain_quotient(&a, &b, &c);
        let (h, packed_budget) = run(k, &packed, &a, &b);
        assert_eq!(h, expected, "packed, n = {n}");
        let (h, unpacked_budget) = run(k, &unpacked, &a, &b);
        assert_eq!(h, expected, "unpacked, n = {n}");
        println!("n = {n}: {packed_budget:.1} bits left packed, {unpacked_budget:.1} unpacked");
        n *= 2;
    }
    assert!(!WitnessMap::<Fr>::new(&k.ctx, N / 2, &options)
        .unwrap()
        .is_packed());
    let e = WitnessMap::<Fr>::packed(&k.ctx, N / 2, &options).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
}

/// The baby steps' shape, packed or not, with the same `h`: one key per baby step (hoisted)
/// against one key in all (rounds), the same rotations; and bounded baby steps.
#[test]
fn baby_step_shapes_agree() {
    let k = packed_keys();
    let n = 128;
    let (a, b) = (random_vector(n, 11), random_vector(n, 12));
    let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
    let with = |plan: PlanOptions| FftOptions::default().with_plan(plan);
    let hoisted = with(PlanOptions::default().with_baby_step_keys(usize::MAX));
    let one_key = with(PlanOptions::default().with_baby_step_keys(1));
    let lean = with(PlanOptions::default().with_baby_steps(2));
    let key_count = |m: &WitnessMap<Fr>| {
        let steps = m.galois_steps();
        let mut ks = steps.requested_steps().to_vec();
        ks.sort_unstable();
        ks.dedup();
        ks.len()
    };
    for packed in [true, false] {
        let build = |o: &FftOptions| {
            if packed {
                WitnessMap::packed(&k.ctx, n, o)
            } else {
                WitnessMap::unpacked(&k.ctx, n, o)
            }
            .unwrap()
        };
        let (all, one) = (build(&hoisted), build(&one_key));
        assert!(one.stages().iter().all(|(p, _)| p.baby_step_keys() <= 1));
        assert!(all.stages().iter().any(|(p, _)| p.baby_step_keys() > 1));
        assert!(
            key_count(&one) < key_count(&all),
            "packed {packed}: {} keys in rounds, {} hoisted",
            key_count(&one),
            key_count(&all)
        );
        assert_eq!(one.num_rotations(), all.num_rotations());
        for map in [&all, &one] {
            assert_eq!(run(k, map, &a, &b).0, plain_quotient(&a, &b, &c));
        }
        let (default, small) = (build(&FftOptions::default()), build(&lean));
        assert!(small.stages().iter().all(|(p, _)| p.baby_steps() <= 2));
        assert!(small.num_rotations() > default.num_rotations());
        assert_eq!(run(k, &small, &a, &b).0, plain_quotient(&a, &b, &c));
    }
}

#[test]
fn equals_groth16_witness_map() {
    let k = map_keys();
    for (constraints, inputs, seed) in [(5, 2, 1), (100, 3, 2), (1000, 24, 3)] {
        let (m, z) = random_r1cs(constraints, inputs, seed);
        let expected =
            LibsnarkReduction::witness_map_from_matrices::<Fr, Radix2EvaluationDomain<Fr>>(
                &m,
                inputs,
                constraints,
                &z,
            )
            .expect("witness map");
        let n = expected.len();
        let [a, b, _] = evaluations(&m, &z, inputs, n);
        let map = WitnessMap::new(&k.ctx, n, &FftOptions::default()).unwrap();
        assert_eq!(run(k, &map, &a, &b).0, expected, "n = {n}");
    }
}

/// The owner's upload encrypted with the secret key (seeded, half size) works the same.
#[test]
fn secret_key_upload() {
    let k = map_keys();
    let n = 64;
    let map = WitnessMap::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
    let gk = GaloisKeys::generate(&k.sk, &map.galois_steps()).unwrap();
    let (a, b) = (random_vector(n, 1), random_vector(n, 2));
    let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
    let x: Vec<Ctxt> = [&a, &b]
        .iter()
        .flat_map(|v| map.encrypt_to_bytes(&k.sk, v).unwrap())
        .map(|bytes| Ctxt::from_bytes(&k.pk, &bytes).unwrap())
        .collect();
    let h = map.decrypt(&k.sk, &map.apply(&gk, &x).unwrap()).unwrap();
    assert_eq!(h, plain_quotient(&a, &b, &c));
    he_fft::check::quotient(&Radix2EvaluationDomain::new(n).unwrap(), &a, &b, &c, &h)
        .expect("the owner's check");
}

#[test]
fn errors() {
    let k = map_keys();
    for bad in [0, 1, 3, 12, N] {
        let e = WitnessMap::<Fr>::new(&k.ctx, bad, &FftOptions::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "n = {bad}: {e}");
    }
    let n = 16;
    let map = WitnessMap::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
    let e = map.encrypt(&k.pk, &random_vector(n - 1, 3)).unwrap_err();
    assert!(matches!(e, Error::WrongLength { .. }), "{e}");
    // A vector of the same size in the natural layout did not go through the owner's first
    // stage: refused by its layout tag.
    let natural = he_fft::Layout::new(n, N)
        .unwrap()
        .encrypt(&k.ctx, &k.pk, &random_vector(n, 7))
        .unwrap();
    let mut x = map.encrypt(&k.pk, &random_vector(n, 8)).unwrap();
    x.extend(natural);
    let gk = GaloisKeys::generate(&k.sk, &map.galois_steps()).unwrap();
    let e = map.apply(&gk, &x).unwrap_err();
    assert!(matches!(e, Error::Layout { .. }), "{e}");
    let [a, b] = [1, 2].map(|s| map.encrypt(&k.pk, &random_vector(n, s)).unwrap());
    let ab: Vec<Ctxt> = [&a, &b]
        .iter()
        .flat_map(|v| v.iter())
        .map(|c| c.try_clone().unwrap())
        .collect();
    let none = GaloisKeys::generate(&k.sk, &GaloisSteps::new()).unwrap();
    let e = map.apply(&none, &ab).unwrap_err();
    assert!(matches!(e, Error::MissingKey(_)), "{e}");
    // One input alone.
    let gk = GaloisKeys::generate(&k.sk, &map.galois_steps()).unwrap();
    let e = map.apply(&gk, &a).unwrap_err();
    assert!(matches!(e, Error::WrongLength { .. }), "{e}");
    // b encrypted for another size.
    let other = WitnessMap::<Fr>::new(&k.ctx, 2 * n, &FftOptions::default()).unwrap();
    let mut wrong = map.encrypt(&k.pk, &random_vector(n, 4)).unwrap();
    wrong.extend(other.encrypt(&k.pk, &random_vector(2 * n, 5)).unwrap());
    match map.apply(&gk, &wrong).unwrap_err() {
        Error::Layout {
            transform,
            expected,
            got,
        } => {
            assert_eq!(transform, "the witness map");
            assert_eq!(expected, map.info().layout_tag);
            assert_eq!(got, other.info().layout_tag);
        }
        e => panic!("expected a layout error, got {e}"),
    }
    // b under another key.
    let sk2 = SecKey::generate(&k.ctx).unwrap();
    let pk2 = PubKey::generate(&sk2).unwrap();
    let mut ab2 = a;
    ab2.extend(map.encrypt(&pk2, &random_vector(n, 4)).unwrap());
    assert!(matches!(
        map.apply(&gk, &ab2),
        Err(Error::Engine(helib_rs::Error::Mismatch(_)))
    ));
    // A context sized for one transform has no room for the witness map's three levels.
    let one = keys();
    let m1 = WitnessMap::<Fr>::new(&one.ctx, n, &FftOptions::default()).unwrap();
    let gk1 = GaloisKeys::generate(&one.sk, &m1.galois_steps()).unwrap();
    let ab1: Vec<Ctxt> = [5, 6]
        .iter()
        .flat_map(|&s| m1.encrypt(&one.pk, &random_vector(n, s)).unwrap())
        .collect();
    let e = m1.apply(&gk1, &ab1).unwrap_err();
    match &e {
        Error::NoiseBudgetExhausted {
            transform,
            budget_bits,
            levels,
            needed_bits,
            modulus_bits,
            context_helper,
        } => {
            assert_eq!(*transform, "the witness map");
            assert!(*budget_bits <= 0, "{e}");
            assert_eq!(*levels, 3);
            assert!(*modulus_bits < *needed_bits, "{e}");
            assert_eq!(*context_helper, "witness_map_context");
            assert!(e.to_string().contains("he_fft::witness_map_context"), "{e}");
        }
        other => panic!("expected an exhausted budget, got {other:?}"),
    }
}

#[test]
fn secure_context_sizes() {
    let ctx = witness_map_context::<Fr>(4096).unwrap();
    assert_eq!(ctx.ring_degree(), 65536);
    assert!(ctx.security_bits() >= 128.0);
    println!(
        "n = 4096: log2 QP = {:.0}, {} digits",
        ctx.log2_qp(),
        ctx.ks_digits()
    );
    assert!(matches!(
        witness_map_context::<Fr>(1000),
        Err(Error::InvalidArgument(_))
    ));
}

/// The client-assisted form: the owner's inverse FFTs, one product, the same `h`.
#[test]
fn client_assisted_equals_the_plain_quotient() {
    let k = toy_keys(he_fft::ClientAssistedWitnessMap::<Fr>::ciphertext_bits(N));
    let mut n = 2;
    while n <= N / 2 {
        let a = random_vector(n, 3 * n as u64);
        let b = random_vector(n, 5 * n as u64);
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let map = he_fft::ClientAssistedWitnessMap::new(&k.ctx, n).unwrap();
        let x: Vec<Ctxt> = [&a, &b]
            .iter()
            .flat_map(|v| map.encrypt_to_bytes(&k.sk, v).unwrap())
            .map(|bytes| Ctxt::from_bytes(&k.pk, &bytes).unwrap())
            .collect();
        let h = map.apply_with(None, &x, &|_, _| {}).unwrap();
        assert!(h[0].noise_budget() > 0.0);
        println!(
            "client-assisted n = {n}: {:.1} bits left",
            h[0].noise_budget()
        );
        assert_eq!(
            map.decrypt(&k.sk, &h).unwrap(),
            plain_quotient(&a, &b, &c),
            "n = {n}"
        );
        n *= 2;
    }
    assert!(he_fft::ClientAssistedWitnessMap::<Fr>::new(&k.ctx, N).is_err());
    let map = he_fft::ClientAssistedWitnessMap::<Fr>::new(&k.ctx, 8).unwrap();
    assert!(matches!(
        map.encrypt(&k.pk, &[Fr::zero(); 7]),
        Err(Error::WrongLength { .. })
    ));
    let ctx = he_fft::ClientAssistedWitnessMap::<Fr>::secure_context(32768).unwrap();
    assert!(ctx.security_bits() >= 128.0);
    println!(
        "client-assisted n = 32768: N = {}, log2 QP = {:.0}",
        ctx.ring_degree(),
        ctx.log2_qp()
    );
}
