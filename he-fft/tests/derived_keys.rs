//! Every FFT route with Galois keys the server derives from master keys, against ark-poly.

mod common;

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use common::{random_vector, N};
use he_fft::{Direction, EncryptedTransform, Fft, FftOptions, Route};
use helib_rs::{Context, GaloisKeys, MasterKeys, PubKey, SecKey};

#[test]
fn every_route_runs_on_derived_keys() {
    // A toy derivable context with room for the four-step route's three levels.
    let ctx = Context::builder()
        .ring_degree(N as u64)
        .plaintext_field::<Fr>()
        .ciphertext_bits(he_fft::FourStepFft::<Fr>::ciphertext_bits(N, 4 * N))
        .derivable_keys(true)
        .allow_insecure(true)
        .build()
        .unwrap();
    let sk = SecKey::generate(&ctx).unwrap();
    let pk = PubKey::generate(&sk).unwrap();
    let masters = MasterKeys::generate(&sk).unwrap();
    let top = ctx.derivation_level().unwrap();
    for (route, n) in [
        (Route::OneProduct, 64),
        (Route::TwoStages, 256),
        (Route::FourSteps, 4 * N),
        (Route::RowFfts, 4 * N),
    ] {
        for direction in [Direction::Forward, Direction::Inverse] {
            let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
            let fft = Fft::new(route, &ctx, &domain, direction, &FftOptions::default()).unwrap();
            let gk = masters.derive(&fft.galois_steps()).unwrap();
            assert!(gk.is_derived());
            let x = random_vector(n, n as u64);
            let y = fft.apply(&gk, &fft.encrypt(&pk, &x).unwrap()).unwrap();
            assert!(
                y.iter().all(|c| c.level() <= top),
                "{route:?}: results above {top}"
            );
            let expected = match direction {
                Direction::Forward => domain.fft(&x),
                Direction::Inverse => domain.ifft(&x),
            };
            assert_eq!(
                fft.decrypt(&sk, &y).unwrap(),
                expected,
                "{route:?}, n = {n}, {direction:?}"
            );
            // The same transform with keys generated from the secret key decrypts alike.
            let generated = GaloisKeys::generate(&sk, &fft.galois_steps()).unwrap();
            let z = fft
                .apply(&generated, &fft.encrypt(&pk, &x).unwrap())
                .unwrap();
            assert_eq!(fft.decrypt(&sk, &z).unwrap(), expected);
        }
    }
}
