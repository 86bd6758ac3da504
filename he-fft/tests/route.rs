//! FftRoute: which route `fastest` picks for a size, and both routes behind one interface
//! against ark-poly.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use ark_bn254::Fr;
use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use common::{random_vector, two_level_keys};
use he_fft::{Direction, Fft, FftOptions, FftRoute, TwoStageFft};
use helib_rs::{Ctxt, Error, GaloisKeys};

fn subgroup(n: usize) -> Radix2EvaluationDomain<Fr> {
    Radix2EvaluationDomain::<Fr>::new(n).unwrap()
}

#[test]
fn fastest_picks_the_route_by_size() {
    for (n, two) in [(2048, false), (4096, true), (65536, true), (131072, false)] {
        assert_eq!(FftRoute::<Fr>::prefers_two_stages(n), two, "n = {n}");
    }
    let options = FftOptions::default();
    let small = FftRoute::fastest(&subgroup(256), Direction::Forward, &options).unwrap();
    assert!(matches!(small, FftRoute::OneProduct(_)), "{small:?}");
    assert_eq!((small.len(), small.levels()), (256, 1));
    assert_eq!(small.context().ring_degree(), 32768);

    let coset = subgroup(4096).get_coset(Fr::GENERATOR).unwrap();
    let large = FftRoute::fastest(&coset, Direction::Inverse, &options).unwrap();
    assert!(matches!(large, FftRoute::TwoStages(_)), "{large:?}");
    assert_eq!((large.len(), large.levels()), (4096, 2));
    assert_eq!(large.context().ring_degree(), 65536);
    assert!(large.context().security_bits() >= 128.0);
}

/// Both routes of one size, on the toy context with room for two levels.
fn routes(domain: &Radix2EvaluationDomain<Fr>, direction: Direction) -> [FftRoute<Fr>; 2] {
    let ctx = &two_level_keys().ctx;
    let options = FftOptions::default();
    [
        Fft::on_domain(ctx, domain, direction, &options)
            .unwrap()
            .into(),
        TwoStageFft::on_domain(ctx, domain, direction, &options)
            .unwrap()
            .into(),
    ]
}

#[test]
fn both_routes_equal_ark() {
    let k = two_level_keys();
    let coset = subgroup(64).get_coset(Fr::GENERATOR).unwrap();
    for (domain, direction) in [
        (subgroup(64), Direction::Forward),
        (subgroup(64), Direction::Inverse),
        (coset, Direction::Forward),
    ] {
        let expected_of = |x: &[Fr]| match direction {
            Direction::Forward => domain.fft(x),
            Direction::Inverse => domain.ifft(x),
        };
        for (levels, fft) in [1, 2].into_iter().zip(routes(&domain, direction)) {
            assert_eq!((fft.len(), fft.levels()), (64, levels));
            let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).unwrap();

            // Public-key encryption, with progress counted to its total.
            let x = random_vector(64, 7 + levels as u64);
            let calls = AtomicUsize::new(0);
            let y = fft
                .apply_with_progress(&gk, &fft.encrypt(&k.pk, &x).unwrap(), &|done, total| {
                    assert!(done <= total && total == fft.progress_total());
                    calls.fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
            assert_eq!(calls.into_inner(), fft.progress_total(), "{fft:?}");
            assert_eq!(fft.decrypt(&k.sk, &y).unwrap(), expected_of(&x), "{fft:?}");

            // Secret-key encryption through bytes, as a data owner uploads it.
            let x = random_vector(64, 17 + levels as u64);
            let uploaded: Vec<Ctxt> = fft
                .encrypt_to_bytes(&k.sk, &x)
                .unwrap()
                .iter()
                .map(|b| Ctxt::from_bytes(&k.pk, b).unwrap())
                .collect();
            let y = fft.apply(&gk, &uploaded).unwrap();
            assert_eq!(fft.decrypt(&k.sk, &y).unwrap(), expected_of(&x), "{fft:?}");
        }
    }
}

#[test]
fn both_routes_refuse_a_wrong_length() {
    let k = two_level_keys();
    for fft in routes(&subgroup(32), Direction::Forward) {
        let err = fft.encrypt(&k.pk, &random_vector(31, 1)).unwrap_err();
        assert!(matches!(err, Error::InvalidLength(_)), "{fft:?}: {err}");
    }
}
