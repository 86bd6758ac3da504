//! Route and Fft: which route `fastest` picks for a size, and all three routes behind
//! one interface against ark-poly.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use ark_bn254::Fr;
use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use common::{random_vector, toy_keys, Keys, N};
use he_fft::Error;
use he_fft::{Direction, EncryptedTransform, Fft, FftOptions, Route};
use helib_rs::{Ctxt, GaloisKeys, GaloisSteps};

fn subgroup(n: usize) -> Radix2EvaluationDomain<Fr> {
    Radix2EvaluationDomain::<Fr>::new(n).unwrap()
}

#[test]
fn fastest_picks_the_route_by_size() {
    for (n, route) in [
        (2048, Route::OneProduct),
        (4096, Route::TwoStages),
        (32768, Route::TwoStages),
        (65536, Route::FourSteps),
        (1 << 20, Route::FourSteps),
    ] {
        assert_eq!(Route::fastest_for(n), route, "n = {n}");
    }
    let options = FftOptions::default();
    let small = Fft::fastest(&subgroup(256), Direction::Forward, &options).unwrap();
    assert_eq!(small.route(), Route::OneProduct, "{small:?}");
    assert_eq!((small.info().len, small.info().levels), (256, 1));
    assert_eq!(small.context().ring_degree(), 32768);

    let coset = subgroup(4096).get_coset(Fr::GENERATOR).unwrap();
    let large = Fft::fastest(&coset, Direction::Inverse, &options).unwrap();
    assert_eq!(large.route(), Route::TwoStages, "{large:?}");
    assert_eq!((large.info().len, large.info().levels), (4096, 2));
    assert_eq!(large.context().ring_degree(), 65536);
    assert!(large.context().security_bits() >= 128.0);
}

/// A toy context with room for every route's levels, vectors of up to `2N` values.
fn keys() -> &'static Keys {
    static KEYS: std::sync::OnceLock<Keys> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| toy_keys(Route::FourSteps.ciphertext_bits::<Fr>(N, 2 * N)))
}

/// One transform per route (`N/2` values for one product and two stages, one slot row; `2N`
/// for four steps with either side's first step, four ciphertexts) per direction, on the subgroup and on a coset.
fn cases() -> Vec<(Radix2EvaluationDomain<Fr>, Direction, Fft<Fr>)> {
    let ctx = &keys().ctx;
    let mut out = Vec::new();
    for (route, n) in [
        (Route::OneProduct, N / 2),
        (Route::TwoStages, N / 2),
        (Route::FourSteps, 2 * N),
        (Route::RowFfts, 2 * N),
    ] {
        let coset = subgroup(n).get_coset(Fr::GENERATOR).unwrap();
        for domain in [subgroup(n), coset] {
            for direction in [Direction::Forward, Direction::Inverse] {
                let fft = Fft::new(route, ctx, &domain, direction, &FftOptions::default());
                out.push((domain, direction, fft.unwrap()));
            }
        }
    }
    out
}

#[test]
fn every_route_equals_ark() {
    let k = keys();
    let cases = cases();
    // One key set for all sixteen transforms: key generation is most of a toy run's time.
    let steps = cases.iter().fold(GaloisSteps::new(), |s, (_, _, f)| {
        s.union(&f.galois_steps())
    });
    let gk = GaloisKeys::generate(&k.sk, &steps).unwrap();
    for (domain, direction, fft) in &cases {
        let n = domain.size();
        let levels = match fft.route() {
            Route::OneProduct => 1,
            Route::TwoStages => 2,
            Route::FourSteps => 3,
            Route::RowFfts => 2,
        };
        assert_eq!((fft.info().len, fft.info().levels), (n, levels));
        let expected_of = |x: &[Fr]| match direction {
            Direction::Forward => domain.fft(x),
            Direction::Inverse => domain.ifft(x),
        };
        let what = format!(
            "{:?}, {direction:?}, offset {}",
            fft.route(),
            domain.coset_offset()
        );

        // Public-key encryption, with progress counted to its total.
        let x = random_vector(n, 7 + u64::from(levels));
        let calls = AtomicUsize::new(0);
        let y = fft
            .apply_with(
                Some(&gk),
                &fft.encrypt(&k.pk, &x).unwrap(),
                &|done, total| {
                    assert!(done <= total && total == fft.info().progress_total);
                    calls.fetch_add(1, Ordering::Relaxed);
                },
            )
            .unwrap();
        assert_eq!(calls.into_inner(), fft.info().progress_total, "{what}");
        assert_eq!(fft.decrypt(&k.sk, &y).unwrap(), expected_of(&x), "{what}");

        // Secret-key encryption through bytes, as a data owner uploads it.
        let x = random_vector(n, 17 + u64::from(levels));
        let uploaded: Vec<Ctxt> = fft
            .encrypt_to_bytes(&k.sk, &x)
            .unwrap()
            .iter()
            .map(|b| Ctxt::from_bytes(&k.pk, b).unwrap())
            .collect();
        let y = fft.apply(&gk, &uploaded).unwrap();
        assert_eq!(fft.decrypt(&k.sk, &y).unwrap(), expected_of(&x), "{what}");
    }
}

#[test]
fn every_route_refuses_a_wrong_length() {
    let k = keys();
    for (domain, _, fft) in cases() {
        let err = fft
            .encrypt(&k.pk, &random_vector(domain.size() - 1, 1))
            .unwrap_err();
        assert!(
            matches!(err, Error::WrongLength { .. }),
            "{:?}: {err}",
            fft.route()
        );
    }
}
