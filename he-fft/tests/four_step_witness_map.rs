//! The witness map across ciphertexts (domains of `N` and more), against ark-groth16's
//! `LibsnarkReduction` and the plain quotient: every size from `N` to `2N` at `N = 2048`, and
//! every row count from 2 to 32 on the smallest ring.

use ark_bn254::Fr;
use ark_ff::{FftField, Field, Zero};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::Error;
use he_fft::{
    witness_map_for, EncryptedTransform, EncryptedWitnessMap, FftOptions, FourStepWitnessMap,
    WitnessMap,
};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps, PubKey, SecKey};
use std::sync::OnceLock;

mod common;
use common::{evaluations, random_r1cs, random_vector, toy_keys, Keys, N};

/// Keys with room for the three levels and the products' sums at `n = 2N`.
fn map_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| toy_keys(he_fft::FourStepWitnessMap::<Fr>::ciphertext_bits(N, 2 * N)))
}

fn run(k: &Keys, map: &dyn EncryptedWitnessMap<Fr>, a: &[Fr], b: &[Fr]) -> (Vec<Fr>, f64) {
    let gk = GaloisKeys::generate(&k.sk, &map.galois_steps()).expect("galois keys");
    let mut x = map.encrypt(&k.pk, a).expect("encrypt");
    x.extend(map.encrypt(&k.pk, b).expect("encrypt"));
    let h = map
        .apply_with(Some(&gk), &x, &|_, _| {})
        .expect("witness map");
    let budget = h
        .iter()
        .map(|c| c.noise_budget())
        .fold(f64::INFINITY, f64::min);
    (map.decrypt(&k.sk, &h).expect("decrypt"), budget)
}

/// Keys on the smallest ring (`N = 1024`, insecure) with room for the four-step map up to `n`.
fn smallest_ring_keys(n: usize) -> Keys {
    let ring = 1024;
    let ctx = Context::builder()
        .ring_degree(ring as u64)
        .plaintext_field::<Fr>()
        .ciphertext_bits(he_fft::FourStepWitnessMap::<Fr>::ciphertext_bits(ring, n))
        .allow_insecure(true)
        .build()
        .unwrap();
    let sk = SecKey::generate(&ctx).unwrap();
    let pk = PubKey::generate(&sk).unwrap();
    Keys { ctx, sk, pk }
}

fn satisfied(n: usize, seed: u64) -> [Vec<Fr>; 3] {
    let a = random_vector(n, seed);
    let b = random_vector(n, seed + 1000);
    let c = a.iter().zip(&b).map(|(x, y)| x * y).collect();
    [a, b, c]
}

#[test]
fn sizes_n_and_2n_equal_groth16_witness_map() {
    let k = map_keys();
    // Constraint counts whose domains are N and 2N (and the instance's inputs).
    for (constraints, inputs, seed) in [(N - 40, 8, 1), (N + 17, 3, 2), (2 * N - 9, 5, 3)] {
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
        assert!(n >= N, "n = {n}");
        let [a, b, _] = evaluations(&m, &z, inputs, n);
        let map = witness_map_for::<Fr>(&k.ctx, n, &FftOptions::default()).unwrap();
        assert_eq!(map.route_name(), "server-only, four-step");
        let (h, budget) = run(k, map.as_ref(), &a, &b);
        assert_eq!(h, expected, "n = {n}");
        assert!(budget > 0.0, "n = {n}: {budget}");
        println!("n = {n}: {budget:.1} bits left");
    }
}

/// On the smallest ring (`N = 1024`, rows of 512): every row count from 2 to 32, checked in
/// `O(n)`, with a wrong entry caught.
#[test]
fn every_row_count_on_a_tiny_ring() {
    let ring = 1024;
    let k = smallest_ring_keys(16 * ring);
    let mut n = ring;
    while n <= 16 * ring {
        let [a, b, c] = satisfied(n, n as u64);
        let map = FourStepWitnessMap::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
        assert_eq!(map.num_rows(), n / 512);
        let (h, budget) = run(&k, &map, &a, &b);
        let domain = Radix2EvaluationDomain::new(n).unwrap();
        he_fft::check::quotient(&domain, &a, &b, &c, &h).expect("the owner's check");
        assert!(h[n - 1].is_zero());
        assert!(budget > 0.0, "n = {n}: {budget}");
        // One wrong entry is caught.
        let mut bad = h.clone();
        bad[n / 3] += Fr::from(1u64);
        assert!(he_fft::check::quotient(&domain, &a, &b, &c, &bad).is_err());
        n *= 2;
    }
}

/// The most components the route takes (`FourStepWitnessMap::MAX_COMPONENTS`, 512) on the
/// smallest ring: the modulus leaves room for the products' transforms across all of them,
/// and `h` equals ark-groth16's.
#[test]
fn the_most_components_on_a_tiny_ring() {
    let ring = 1024;
    let c = FourStepWitnessMap::<Fr>::MAX_COMPONENTS;
    let n = c * ring / 2;
    let k = smallest_ring_keys(n);
    let map = FourStepWitnessMap::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
    assert_eq!(map.num_rows(), c);
    assert!(FourStepWitnessMap::<Fr>::new(&k.ctx, 2 * n, &FftOptions::default()).is_err());
    let [a, b, c_values] = satisfied(n, 7);
    let (h, budget) = run(&k, &map, &a, &b);
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let coset = domain.get_coset(Fr::GENERATOR).unwrap();
    let [pa, pb, pc] = [&a, &b, &c_values].map(|v| coset.fft(&domain.ifft(v)));
    let z_inv = domain
        .evaluate_vanishing_polynomial(Fr::GENERATOR)
        .inverse()
        .unwrap();
    let q: Vec<Fr> = (0..n).map(|i| (pa[i] * pb[i] - pc[i]) * z_inv).collect();
    assert_eq!(h, coset.ifft(&q));
    assert!(budget > 0.0, "{budget}");
    println!("{c} components: {budget:.1} bits left");
}

/// On pools of two and four threads a component's `a` and `b` run side by side, each on half
/// the pool (one giant-step chain per stage on two threads; two, joined by offset rotations,
/// on four): the chains an owner names from `witness_map_chains` give the keys the default
/// plan needs, progress counts every giant step and product once, up to the transform's total,
/// and `h` passes the owner's check.
#[test]
fn a_and_b_side_by_side_on_two_and_four_threads() {
    let k = map_keys();
    let n = 2 * N;
    for threads in [2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let map = FourStepWitnessMap::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
            assert_eq!(he_fft::witness_map_chains(&k.ctx, n), threads / 2);
            let mut named = FftOptions::default();
            named.plan.chains = Some(he_fft::witness_map_chains(&k.ctx, n));
            let pinned = witness_map_for::<Fr>(&k.ctx, n, &named).unwrap();
            assert_eq!(pinned.galois_steps(), map.galois_steps());
            let one = WitnessMap::<Fr>::unpacked(&k.ctx, N / 2, &FftOptions::default()).unwrap();
            assert_eq!(one.galois_steps(), map.galois_steps());

            let [a, b, c] = satisfied(n, 11 + threads as u64);
            let gk = GaloisKeys::generate(&k.sk, &map.galois_steps()).unwrap();
            let mut x = map.encrypt(&k.pk, &a).unwrap();
            x.extend(map.encrypt(&k.pk, &b).unwrap());
            let seen = std::sync::Mutex::new(Vec::new());
            let h = map
                .apply_with(Some(&gk), &x, &|done, total| {
                    seen.lock().unwrap().push((done, total))
                })
                .unwrap();
            let mut seen = seen.into_inner().unwrap();
            let total = map.info().progress_total;
            assert!(seen.iter().all(|&(_, t)| t == total), "{threads} threads");
            seen.sort_unstable();
            let counts: Vec<usize> = seen.iter().map(|&(d, _)| d).collect();
            assert_eq!(counts, (1..=total).collect::<Vec<_>>(), "{threads} threads");
            let h = map.decrypt(&k.sk, &h).unwrap();
            let domain = Radix2EvaluationDomain::new(n).unwrap();
            he_fft::check::quotient(&domain, &a, &b, &c, &h).expect("the owner's check");
        });
    }
}

/// The owner's upload encrypted with the secret key works the same.
#[test]
fn secret_key_upload() {
    let k = map_keys();
    let n = N;
    let map = FourStepWitnessMap::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
    let gk = GaloisKeys::generate(&k.sk, &map.galois_steps()).unwrap();
    let [a, b, c] = satisfied(n, 5);
    let x: Vec<Ctxt> = [&a, &b]
        .iter()
        .flat_map(|v| map.encrypt_to_bytes(&k.sk, v).unwrap())
        .map(|bytes| Ctxt::from_bytes(&k.pk, &bytes).unwrap())
        .collect();
    let h = map.decrypt(&k.sk, &map.apply(&gk, &x).unwrap()).unwrap();
    he_fft::check::quotient(&Radix2EvaluationDomain::new(n).unwrap(), &a, &b, &c, &h)
        .expect("the owner's check");

    // The same inputs read one at a time, each exactly once, give the same bytes.
    let reads: Vec<std::sync::atomic::AtomicUsize> = x.iter().map(|_| Default::default()).collect();
    let read = |i: usize| -> he_fft::Result<Ctxt> {
        reads[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(x[i].try_clone()?)
    };
    let streamed = map.apply_reading(Some(&gk), &read, &|_, _| {}).unwrap();
    let whole = map.apply(&gk, &x).unwrap();
    assert!(reads
        .iter()
        .all(|r| r.load(std::sync::atomic::Ordering::Relaxed) == 1));
    for (s, w) in streamed.iter().zip(&whole) {
        assert_eq!(s.to_bytes().unwrap(), w.to_bytes().unwrap());
    }
    // An input laid out for another transform is refused when it is read.
    let small = WitnessMap::<Fr>::new(&k.ctx, N / 2, &FftOptions::default()).unwrap();
    let other = small.encrypt(&k.pk, &random_vector(N / 2, 4)).unwrap();
    let mixed = |i: usize| -> he_fft::Result<Ctxt> {
        Ok(if i == 1 {
            other[0].try_clone()?
        } else {
            x[i].try_clone()?
        })
    };
    let e = map
        .apply_reading(Some(&gk), &mixed, &|_, _| {})
        .unwrap_err();
    assert!(matches!(e, Error::Layout { .. }), "{e}");
}

#[test]
fn errors() {
    let k = map_keys();
    for bad in [N / 2, 3 * N, 1024 * N] {
        let e = FourStepWitnessMap::<Fr>::new(&k.ctx, bad, &FftOptions::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "n = {bad}: {e}");
    }
    let n = N;
    let map = FourStepWitnessMap::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
    let e = map.encrypt(&k.pk, &random_vector(n - 1, 3)).unwrap_err();
    assert!(matches!(e, Error::WrongLength { .. }), "{e}");
    let [a, b] = [1, 2].map(|s| map.encrypt(&k.pk, &random_vector(n, s)).unwrap());
    let ab: Vec<Ctxt> = a.iter().chain(&b).map(|c| c.try_clone().unwrap()).collect();
    // Missing keys: none, or all but one of the row map's.
    let none = GaloisKeys::generate(&k.sk, &GaloisSteps::new()).unwrap();
    assert!(matches!(map.apply(&none, &ab), Err(Error::MissingKey(_))));
    let steps = map.galois_steps();
    let all_but_one = GaloisSteps::new().steps(steps.requested_steps()[1..].iter().copied());
    let partial = GaloisKeys::generate(&k.sk, &all_but_one).unwrap();
    assert!(matches!(
        map.apply(&partial, &ab),
        Err(Error::MissingKey(_))
    ));
    let gk = GaloisKeys::generate(&k.sk, &map.galois_steps()).unwrap();
    // Wrong ciphertext counts, and inputs laid out for the one-ciphertext map.
    assert!(matches!(map.apply(&gk, &b), Err(Error::WrongLength { .. })));
    let small = WitnessMap::<Fr>::new(&k.ctx, N / 2, &FftOptions::default()).unwrap();
    let other = small.encrypt(&k.pk, &random_vector(N / 2, 4)).unwrap();
    let mut x: Vec<Ctxt> = vec![other[0].try_clone().unwrap()];
    x.extend(a[1..].iter().map(|c| c.try_clone().unwrap()));
    x.extend(b);
    let e = map.apply(&gk, &x).unwrap_err();
    assert!(matches!(e, Error::Layout { .. }), "{e}");
    assert!(matches!(
        map.decrypt(&k.sk, &a[1..]),
        Err(Error::WrongLength { .. })
    ));
    // The one-ciphertext route through the trait refuses several ciphertexts.
    let four: Vec<Ctxt> = (0..4).map(|_| other[0].try_clone().unwrap()).collect();
    let e = small.apply_with(Some(&gk), &four, &|_, _| {}).unwrap_err();
    assert!(matches!(e, Error::WrongLength { .. }), "{e}");
}

/// The owner applies the row map's first stage while encoding: each uploaded ciphertext holds
/// that stage's output on one component (checked against the stage's definition), the server
/// runs two stages and the product (three levels), and the modulus is a stage smaller than
/// the packed map's (whose server runs all three) at the row size.
#[test]
fn the_owner_applies_the_first_stage() {
    let k = map_keys();
    let n = 2 * N;
    let map = FourStepWitnessMap::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
    let rows = map.row_map();
    assert!(rows.owner_applies_first_stage());
    assert_eq!(rows.stages().len(), 2);
    assert_eq!(map.info().levels, 3);
    let row = map.row_len();
    assert!(
        FourStepWitnessMap::<Fr>::ciphertext_bits(N, n) + 250
            < WitnessMap::<Fr>::packed_ciphertext_bits(N, row)
    );
    // The packed one-ciphertext map joins a and b before the first stage: the server runs it.
    let packed = WitnessMap::<Fr>::packed(&k.ctx, N / 16, &FftOptions::default()).unwrap();
    assert!(packed.is_packed() && !packed.owner_applies_first_stage());

    let a = random_vector(n, 11);
    let x = map.encrypt(&k.pk, &a).unwrap();
    let values = map.component_values(&a).unwrap();
    let (n1, n2) = rows.split();
    // Stage 1 writes its output n1 slots on where stage 2's diagonals need it (2 n1 < R).
    assert!(2 * n1 < row);
    let w_inv = Radix2EvaluationDomain::<Fr>::new(row)
        .unwrap()
        .group_gen_inv();
    let layout = rows.stages()[0].0.input_layout();
    for (ct, v) in x.iter().zip(&values) {
        let got: Vec<Fr> = layout
            .decrypt(&k.ctx, &k.sk, std::slice::from_ref(ct))
            .unwrap();
        for t in 0..row {
            let (j1, i) = (t % n1, t / n1);
            let expected: Fr = (0..n2)
                .map(|j2| w_inv.pow([(i * (j1 + n1 * j2)) as u64]) * v[j1 + n1 * j2])
                .sum();
            assert_eq!(got[(t + n1) % row], expected, "slot {t}");
        }
    }
}
