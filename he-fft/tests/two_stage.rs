//! The two-stage FFT against ark-poly: every size the toy ring takes, both directions,
//! cosets, caching policies, and its errors.

mod common;

use ark_bn254::Fr;
use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use common::{random_vector, two_level_keys, N};
use he_fft::Error;
use he_fft::{
    DiagonalCache, Direction, EncryptedTransform, FftOptions, OneProductFft, PlanOptions,
    Transposed, TwoStageFft,
};
use helib_rs::{Context, GaloisKeys, PubKey, SecKey};

fn subgroup(n: usize) -> Radix2EvaluationDomain<Fr> {
    Radix2EvaluationDomain::<Fr>::new(n).unwrap()
}

/// Encrypts `x`, applies `fft` with exactly its keys, decrypts; also the budget left.
fn run(fft: &TwoStageFft<Fr>, x: &[Fr]) -> (Vec<Fr>, f64) {
    let k = two_level_keys();
    let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).unwrap();
    let y = fft.apply(&gk, &fft.encrypt(&k.pk, x).unwrap()).unwrap();
    (fft.decrypt(&k.sk, &y).unwrap(), y[0].noise_budget())
}

#[test]
fn equals_ark_at_every_size() {
    let k = two_level_keys();
    let mut n = 4;
    while n <= N / 2 {
        for direction in [Direction::Forward, Direction::Inverse] {
            let fft = TwoStageFft::new(&k.ctx, n, direction, &FftOptions::default()).unwrap();
            let x = random_vector(n, n as u64);
            let (y, budget) = run(&fft, &x);
            let d = subgroup(n);
            let expected = match direction {
                Direction::Forward => d.fft(&x),
                Direction::Inverse => d.ifft(&x),
            };
            assert_eq!(y, expected, "n = {n}, {direction:?}");
            assert!(budget > 0.0, "n = {n}: {budget} bits left");
            assert_eq!(fft.info().levels, 2);
        }
        n *= 4; // 4, 16, 64, 256, 1024: both split shapes (n1 = n2 and n1 = 2 n2) below
    }
}

#[test]
fn unbalanced_splits_and_shapes_equal_ark() {
    let k = two_level_keys();
    // n1 = 2 n2 (8 = 4 x 2, 32 = 8 x 4, 512 = 32 x 16); one chain, then several, and fixed
    // baby steps, on both caching policies.
    for (n, chains, baby, cache) in [
        (8, Some(1), None, DiagonalCache::Always),
        (32, Some(3), None, DiagonalCache::Never),
        (512, None, Some(2), DiagonalCache::Never),
        (512, Some(1), None, DiagonalCache::Always),
    ] {
        let options = FftOptions::default()
            .with_plan({
                let mut plan = PlanOptions::default();
                plan.baby_steps = baby;
                plan.chains = chains;
                plan
            })
            .with_cache(cache);
        let fft = TwoStageFft::new(&k.ctx, n, Direction::Forward, &options).unwrap();
        let (n1, n2) = fft.split();
        assert_eq!((n1 * n2, n1), (n, 2 * n2), "n = {n}");
        let x = random_vector(n, 7 + n as u64);
        assert_eq!(run(&fft, &x).0, subgroup(n).fft(&x), "n = {n}, {options:?}");
    }
}

#[test]
fn cosets_equal_ark() {
    let k = two_level_keys();
    for n in [16, 128] {
        let coset = subgroup(n).get_coset(Fr::GENERATOR).unwrap();
        for direction in [Direction::Forward, Direction::Inverse] {
            let fft =
                TwoStageFft::on_domain(&k.ctx, &coset, direction, &FftOptions::default()).unwrap();
            let x = random_vector(n, 99 + n as u64);
            let expected = match direction {
                Direction::Forward => coset.fft(&x),
                Direction::Inverse => coset.ifft(&x),
            };
            assert_eq!(run(&fft, &x).0, expected, "n = {n}, {direction:?}");
        }
    }
}

#[test]
fn transposed_input_equals_ark() {
    let k = two_level_keys();
    for n in [4, 8, 64, 512] {
        for (domain, direction) in [
            (subgroup(n), Direction::Forward),
            (subgroup(n), Direction::Inverse),
            (
                subgroup(n).get_coset(Fr::GENERATOR).unwrap(),
                Direction::Forward,
            ),
            (
                subgroup(n).get_coset(Fr::GENERATOR).unwrap(),
                Direction::Inverse,
            ),
        ] {
            let options = FftOptions::default();
            let fft =
                TwoStageFft::with_order(&k.ctx, &domain, direction, Transposed::Input, &options)
                    .unwrap();
            assert_eq!(fft.transposed(), Transposed::Input);
            let x = random_vector(n, 5 + n as u64);
            let expected = match direction {
                Direction::Forward => domain.fft(&x),
                Direction::Inverse => domain.ifft(&x),
            };
            assert_eq!(run(&fft, &x).0, expected, "n = {n}, {direction:?}");
        }
    }
}

/// `ifft(fft(a) * fft(b))` on ciphertexts: the forward transforms leave the transposed order,
/// the product is slot-wise, and the inverse reads it back: the cyclic convolution.
#[test]
fn cyclic_convolution_chains_on_the_server() {
    let n = 256;
    let ctx = Context::builder()
        .ring_degree(N as u64)
        .plaintext_field::<Fr>()
        .ciphertext_bits(2 * he_fft::TwoStageFft::<Fr>::ciphertext_bits(N, n) + 100)
        .allow_insecure(true)
        .build()
        .unwrap();
    let sk = SecKey::generate(&ctx).unwrap();
    let pk = PubKey::generate(&sk).unwrap();
    let h = subgroup(n);
    let fft = TwoStageFft::on_domain(&ctx, &h, Direction::Forward, &FftOptions::default()).unwrap();
    let mut options = FftOptions::default();
    options.plan.half_rotated_input = fft.output_layout().is_half_rotated();
    let ifft =
        TwoStageFft::with_order(&ctx, &h, Direction::Inverse, Transposed::Input, &options).unwrap();
    let gk = GaloisKeys::generate(&sk, &fft.galois_steps().union(&ifft.galois_steps())).unwrap();
    let (a, b) = (random_vector(n, 11), random_vector(n, 12));
    let mut fa = fft.apply(&gk, &fft.encrypt(&pk, &a).unwrap()).unwrap();
    let fb = fft.apply(&gk, &fft.encrypt(&pk, &b).unwrap()).unwrap();
    fa[0].mul_assign(&fb[0]).unwrap();
    let c = ifft.apply(&gk, &fa).unwrap();
    let expected: Vec<Fr> = (0..n)
        .map(|i| (0..n).map(|j| a[j] * b[(n + i - j) % n]).sum())
        .collect();
    assert_eq!(ifft.decrypt(&sk, &c).unwrap(), expected);
    assert!(c[0].noise_budget() > 0.0);
}

#[test]
fn fewer_products_than_one_stage() {
    let k = two_level_keys();
    let n = 1024;
    let two =
        TwoStageFft::<Fr>::new(&k.ctx, n, Direction::Forward, &FftOptions::default()).unwrap();
    let one =
        OneProductFft::<Fr>::new(&k.ctx, n, Direction::Forward, &FftOptions::default()).unwrap();
    // n1 = n2 = 32: 16 stage-1 diagonals (rows split) and 64 around the main one, against 512.
    assert_eq!(two.split(), (32, 32));
    assert_eq!(two.num_diagonals(), 16 + 64);
    assert_eq!(one.plan().num_diagonals(), 512);
    // Stage 2's diagonals repeat with period n1: 2 n1 words per prime each.
    let [(plan1, encoded1), (plan2, encoded2)] = two.stages();
    let primes = u64::from(k.ctx.num_ctxt_primes());
    for (plan, encoded, period) in [(plan1, encoded1, n as u64), (plan2, encoded2, 32)] {
        let words = plan.num_diagonals() as u64 * 2 * period * primes;
        assert_eq!(encoded.estimated_cache_bytes(&k.ctx), words * 8);
        let held = encoded.cache_bytes();
        assert!(held >= words * 8 && held <= words * 8 + 1024 * plan.num_diagonals() as u64);
    }
}

#[test]
fn errors_are_clear() {
    let k = two_level_keys();
    let options = FftOptions::default();
    for n in [2, N] {
        match TwoStageFft::<Fr>::new(&k.ctx, n, Direction::Forward, &options) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains("4 <= n <= N/2"), "{m}"),
            other => panic!("n = {n}: {other:?}"),
        }
    }
    let fft = TwoStageFft::<Fr>::new(&k.ctx, 64, Direction::Forward, &options).unwrap();
    // A key set missing stage 2's keys fails before any work, naming a step.
    let [(plan1, _), _] = fft.stages();
    let gk = GaloisKeys::generate(&k.sk, &plan1.galois_steps()).unwrap();
    let x = fft.encrypt(&k.pk, &random_vector(64, 1)).unwrap();
    match fft.apply(&gk, &x) {
        Err(Error::MissingKey(m)) => assert!(m.contains("rotation by"), "{m}"),
        other => panic!("{other:?}"),
    }
    // One level's modulus is not enough: the budget error names the context helper.
    let small = helib_rs::Context::builder()
        .ring_degree(N as u64)
        .plaintext_field::<Fr>()
        .ciphertext_bits(he_fft::OneProductFft::<Fr>::ciphertext_bits(N, 64))
        .allow_insecure(true)
        .build()
        .unwrap();
    let sk = helib_rs::SecKey::generate(&small).unwrap();
    let pk = helib_rs::PubKey::generate(&sk).unwrap();
    let fft = TwoStageFft::<Fr>::new(&small, 64, Direction::Forward, &options).unwrap();
    let gk = GaloisKeys::generate(&sk, &fft.galois_steps()).unwrap();
    let x = fft.encrypt(&pk, &random_vector(64, 2)).unwrap();
    match fft.apply(&gk, &x) {
        Err(Error::NoiseBudgetExhausted {
            context_helper,
            levels,
            ..
        }) => assert_eq!((context_helper, levels), ("TwoStageFft::secure_context", 2)),
        other => panic!("{other:?}"),
    }
}
