//! Galois keys for the levels each stage runs at: every multi-stage route asks for keys below
//! the top for its later stages, those keys are smaller, and the results are what keys for
//! every level give: the same values, at the same level, with the same noise budget (so the
//! planned levels are never below the ones the stages run at).

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::{
    Direction, EncryptedTransform, EncryptedWitnessMap, Fft, FftOptions, FourStepWitnessMap, Route,
    WitnessMap,
};
use helib_rs::{Ctxt, GaloisKeys, GaloisSteps, PubKey, SecKey};

mod common;
use common::{random_vector, toy_keys, Keys, N};

/// Asks for keys below the top, and returns the capped keys and the keys for every level.
fn both_keys(k: &Keys, steps: &GaloisSteps, what: &str) -> (GaloisKeys, GaloisKeys) {
    let top = k.ctx.num_ctxt_primes();
    assert!(
        steps
            .requested_levels()
            .iter()
            .any(|l| matches!(l, Some(l) if *l < top)),
        "{what}: no key below the top level {top}"
    );
    let capped = GaloisKeys::generate(&k.sk, steps).expect("capped keys");
    let full = GaloisKeys::generate(&k.sk, &steps.clone().all_levels()).expect("keys");
    assert!(
        capped.size_bytes() < full.size_bytes(),
        "{what}: {} vs {} bytes",
        capped.size_bytes(),
        full.size_bytes()
    );
    assert!(capped.to_bytes().unwrap().len() < full.to_bytes().unwrap().len());
    (capped, full)
}

/// The same levels and noise budgets: the caps cost nothing.
fn same_bookkeeping(capped: &[Ctxt], full: &[Ctxt], what: &str) {
    assert_eq!(capped.len(), full.len());
    for (a, b) in capped.iter().zip(full) {
        assert_eq!(a.level(), b.level(), "{what}");
        assert!(
            (a.noise_budget() - b.noise_budget()).abs() < 1e-9,
            "{what}: budget {} with capped keys, {} with full ones",
            a.noise_budget(),
            b.noise_budget()
        );
    }
}

#[test]
fn fft_routes_with_keys_for_their_levels() {
    let k = toy_keys(he_fft::FourStepFft::<Fr>::ciphertext_bits(N, 4 * N));
    for (route, n) in [
        (Route::TwoStages, 256),
        (Route::FourSteps, 4 * N),
        (Route::RowFfts, 4 * N),
    ] {
        fft_with_keys_for_its_levels(&k, route, n);
    }
}

fn fft_with_keys_for_their_levels_at(route: Route, n: usize) {
    let ctx = route.context::<Fr>(n).unwrap();
    let sk = SecKey::generate(&ctx).unwrap();
    let pk = PubKey::generate(&sk).unwrap();
    fft_with_keys_for_its_levels(&Keys { ctx, sk, pk }, route, n);
}

/// The secure contexts, where the stages drop five primes each (about a minute).
#[test]
#[ignore = "N = 65536: run with --ignored"]
fn real_sizes_with_keys_for_their_levels() {
    fft_with_keys_for_their_levels_at(Route::TwoStages, 4096);
    fft_with_keys_for_their_levels_at(Route::FourSteps, 65536);
    let ctx = he_fft::witness_map_context::<Fr>(4096).unwrap();
    let sk = SecKey::generate(&ctx).unwrap();
    let pk = PubKey::generate(&sk).unwrap();
    let k = Keys { ctx, sk, pk };
    witness_map_with_keys_for_its_levels(
        &k,
        &WitnessMap::<Fr>::new(&k.ctx, 4096, &FftOptions::default()).unwrap(),
    );
}

fn fft_with_keys_for_its_levels(k: &Keys, route: Route, n: usize) {
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let fft = Fft::new(
        route,
        &k.ctx,
        &domain,
        Direction::Forward,
        &FftOptions::default(),
    )
    .unwrap();
    let what = format!("{route:?}, n = {n}");
    let (capped, full) = both_keys(k, &fft.galois_steps(), &what);
    let x = random_vector(n, n as u64);
    let input = fft.encrypt(&k.pk, &x).unwrap();
    let y = fft.apply(&capped, &input).unwrap();
    let z = fft.apply(&full, &input).unwrap();
    assert_eq!(fft.decrypt(&k.sk, &y).unwrap(), domain.fft(&x), "{what}");
    assert_eq!(fft.decrypt(&k.sk, &z).unwrap(), domain.fft(&x), "{what}");
    same_bookkeeping(&y, &z, &what);
}

#[test]
fn witness_maps_with_keys_for_their_levels() {
    // Room for both: the four-step map's products add the sums across components.
    let k = toy_keys(
        FourStepWitnessMap::<Fr>::ciphertext_bits(N, 2 * N)
            .max(WitnessMap::<Fr>::ciphertext_bits(N, N / 4))
            .max(WitnessMap::<Fr>::packed_ciphertext_bits(N, N / 16)),
    );
    let maps: Vec<Box<dyn EncryptedWitnessMap<Fr>>> = vec![
        Box::new(WitnessMap::<Fr>::new(&k.ctx, N / 4, &FftOptions::default()).unwrap()),
        Box::new(WitnessMap::<Fr>::packed(&k.ctx, N / 16, &FftOptions::default()).unwrap()),
        Box::new(FourStepWitnessMap::<Fr>::new(&k.ctx, 2 * N, &FftOptions::default()).unwrap()),
    ];
    for map in &maps {
        witness_map_with_keys_for_its_levels(&k, map.as_ref());
    }
}

fn witness_map_with_keys_for_its_levels(k: &Keys, map: &dyn EncryptedWitnessMap<Fr>) {
    let n = map.info().len;
    let what = format!("{}, n = {n}", map.route_name());
    let (capped, full) = both_keys(k, &map.galois_steps(), &what);
    let a = random_vector(n, 1);
    let b = random_vector(n, 2);
    let mut x = map.encrypt(&k.pk, &a).unwrap();
    x.extend(map.encrypt(&k.pk, &b).unwrap());
    let h = map.apply_with(Some(&capped), &x, &|_, _| {}).unwrap();
    let g = map.apply_with(Some(&full), &x, &|_, _| {}).unwrap();
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
    let decrypted = map.decrypt(&k.sk, &h).unwrap();
    he_fft::check::quotient(&domain, &a, &b, &c, &decrypted)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(decrypted, map.decrypt(&k.sk, &g).unwrap(), "{what}");
    same_bookkeeping(&h, &g, &what);
}
