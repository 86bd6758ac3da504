//! The four-step FFT against ark-poly: row lengths and ciphertext counts, both directions,
//! cosets, uploads as bytes, the context helper, and its errors.

mod common;

use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use common::{random_vector, Keys, N};
use he_fft::Error;
use he_fft::{Direction, EncryptedTransform, FftOptions, FirstStep, FourStepFft, Route};
use helib_rs::{Context, Ctxt, GaloisKeys, PubKey, SecKey};

fn subgroup(n: usize) -> Radix2EvaluationDomain<Fr> {
    Radix2EvaluationDomain::<Fr>::new(n).unwrap()
}

/// A toy context with room for the three levels.
fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        common::toy_keys(he_fft::FourStepFft::<Fr>::ciphertext_bits(N, 128 * N / 2))
    })
}

fn expected(domain: &Radix2EvaluationDomain<Fr>, direction: Direction, x: &[Fr]) -> Vec<Fr> {
    match direction {
        Direction::Forward => domain.fft(x),
        Direction::Inverse => domain.ifft(x),
    }
}

/// Encrypts `x`, applies `fft` with exactly its keys, decrypts; also the budget left.
fn run(fft: &FourStepFft<Fr>, x: &[Fr]) -> (Vec<Fr>, f64) {
    let k = keys();
    let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).unwrap();
    let y = fft.apply(&gk, &fft.encrypt(&k.pk, x).unwrap()).unwrap();
    let budget = y
        .iter()
        .map(Ctxt::noise_budget)
        .fold(f64::INFINITY, f64::min);
    (fft.decrypt(&k.sk, &y).unwrap(), budget)
}

#[test]
fn full_rows_equal_ark() {
    let k = keys();
    // Rows of N/2 = 1024 slots: one ciphertext and four.
    for n in [N, 4 * N] {
        for direction in [Direction::Forward, Direction::Inverse] {
            let fft = FourStepFft::new(&k.ctx, n, direction, &FftOptions::default()).unwrap();
            assert_eq!((fft.row_len(), fft.num_ciphertexts()), (N / 2, n / N));
            let x = random_vector(n, n as u64 + direction as u64);
            let (y, budget) = run(&fft, &x);
            assert_eq!(
                y,
                expected(&subgroup(n), direction, &x),
                "n = {n}, {direction:?}"
            );
            assert!(budget > 0.0, "n = {n}: {budget} bits left");
        }
    }
}

#[test]
fn short_rows_cosets_and_many_ciphertexts_equal_ark() {
    let k = keys();
    // (n, row): from 2 rows (one ciphertext) to the most, 128 (64 ciphertexts).
    // The most rows take 8192 full-size plaintexts per run: one case of them.
    for (n, row, cases) in [(8, 4, 4), (64, 16, 4), (256, 32, 4), (1024, 8, 1)] {
        let coset = subgroup(n).get_coset(Fr::GENERATOR).unwrap();
        for (domain, direction) in [
            (subgroup(n), Direction::Forward),
            (coset, Direction::Inverse),
            (subgroup(n), Direction::Inverse),
            (coset, Direction::Forward),
        ]
        .into_iter()
        .take(cases)
        {
            let options = FftOptions::default();
            let fft = FourStepFft::with_rows(&k.ctx, &domain, row, direction, &options).unwrap();
            assert_eq!(
                (fft.num_rows(), fft.num_ciphertexts()),
                (n / row, n / row / 2)
            );
            let x = random_vector(n, 31 * n as u64 + row as u64);
            let got = run(&fft, &x).0;
            assert_eq!(
                got,
                expected(&domain, direction, &x),
                "n = {n}, row {row}, {direction:?}"
            );
        }
    }
}

#[test]
fn uploads_as_bytes_and_reports_progress() {
    let k = keys();
    let n = 128;
    let fft = FourStepFft::with_rows(
        &k.ctx,
        &subgroup(n),
        32,
        Direction::Forward,
        &FftOptions::default(),
    )
    .unwrap();
    let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).unwrap();
    let x = random_vector(n, 3);
    let cts: Vec<Ctxt> = fft
        .encrypt_to_bytes(&k.sk, &x)
        .unwrap()
        .iter()
        .map(|b| Ctxt::from_bytes(&k.pk, b).unwrap())
        .collect();
    assert_eq!(cts.len(), 2);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let y = fft
        .apply_with(Some(&gk), &cts, &|done, total| {
            assert!(done <= total && total == fft.info().progress_total);
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(calls.into_inner(), fft.info().progress_total);
    assert_eq!(fft.decrypt(&k.sk, &y).unwrap(), subgroup(n).fft(&x));
    assert_eq!(fft.info().levels, 3);
}

#[test]
fn inputs_at_different_levels() {
    let k = keys();
    let n = 64;
    let fft = FourStepFft::with_rows(
        &k.ctx,
        &subgroup(n),
        8,
        Direction::Inverse,
        &FftOptions::default(),
    )
    .unwrap();
    let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).unwrap();
    let x = random_vector(n, 11);
    let mut cts = fft.encrypt(&k.pk, &x).unwrap();
    let top = cts[0].level();
    cts[1].mod_switch_to(top - 2).unwrap();
    let y = fft.apply(&gk, &cts).unwrap();
    assert_eq!(fft.decrypt(&k.sk, &y).unwrap(), subgroup(n).ifft(&x));
}

#[test]
fn the_context_helper_sizes_rows_of_half_the_ring() {
    for (n, ring) in [(1 << 16, 65536), (1 << 22, 65536), (1 << 23, 131072)] {
        let ctx = he_fft::FourStepFft::<Fr>::secure_context(n).unwrap();
        assert_eq!(ctx.ring_degree(), ring, "n = {n}");
        assert!(ctx.security_bits() >= 128.0);
    }
    match he_fft::FourStepFft::<Fr>::secure_context(32768) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("TwoStageFft::secure_context"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn errors_are_clear() {
    let k = keys();
    let options = FftOptions::default();
    let d = subgroup(64);
    // Rows that are not a power of two of 4..N/2, and row counts outside 2..64.
    for row in [2, 24, N] {
        match FourStepFft::with_rows(&k.ctx, &d, row, Direction::Forward, &options) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains("rows hold"), "row {row}: {m}"),
            other => panic!("row {row}: {other:?}"),
        }
    }
    for (n, row) in [(64, 64), (1024, 4)] {
        match FourStepFft::with_rows(&k.ctx, &subgroup(n), row, Direction::Forward, &options) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains("2 to 128 rows"), "{m}"),
            other => panic!("n = {n}, row {row}: {other:?}"),
        }
    }
    let fft = FourStepFft::with_rows(&k.ctx, &d, 16, Direction::Forward, &options).unwrap();
    let x = fft.encrypt(&k.pk, &random_vector(64, 1)).unwrap();
    assert!(matches!(
        fft.encrypt(&k.pk, &random_vector(63, 1)),
        Err(Error::WrongLength { .. })
    ));
    // A missing key fails before any work, naming the step; so does a wrong count.
    let none = GaloisKeys::generate(&k.sk, &helib_rs::GaloisSteps::new()).unwrap();
    match fft.apply(&none, &x) {
        Err(Error::MissingKey(m)) => assert!(m.contains("rotation by"), "{m}"),
        other => panic!("{other:?}"),
    }
    let no_swap = GaloisKeys::generate(&k.sk, &fft.row_fft().galois_steps()).unwrap();
    match fft.apply(&no_swap, &x) {
        Err(Error::MissingKey(m)) => assert!(m.contains("row swap"), "{m}"),
        other => panic!("{other:?}"),
    }
    let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).unwrap();
    match fft.apply(&gk, &x[..1]) {
        Err(Error::WrongLength { expected, got, .. }) => assert_eq!((expected, got), (2, 1)),
        other => panic!("{other:?}"),
    }
    // Two levels' modulus is not enough: the budget error names the context helper.
    let small = Context::builder()
        .ring_degree(N as u64)
        .plaintext_field::<Fr>()
        .ciphertext_bits(he_fft::TwoStageFft::<Fr>::ciphertext_bits(N, 64))
        .allow_insecure(true)
        .build()
        .unwrap();
    let sk = SecKey::generate(&small).unwrap();
    let pk = PubKey::generate(&sk).unwrap();
    let fft = FourStepFft::with_rows(&small, &d, 16, Direction::Forward, &options).unwrap();
    let gk = GaloisKeys::generate(&sk, &fft.galois_steps()).unwrap();
    let x = fft.encrypt(&pk, &random_vector(64, 2)).unwrap();
    match fft.apply(&gk, &x) {
        Err(Error::NoiseBudgetExhausted {
            context_helper,
            levels,
            ..
        }) => assert_eq!((context_helper, levels), ("FourStepFft::secure_context", 3)),
        other => panic!("{other:?}"),
    }
}

/// The owner's first step: the same results as the server's from two levels, on every row
/// count and both directions, cosets included; the server needs no row swap.
#[test]
fn the_owners_first_step_equals_ark_on_two_levels() {
    let k = keys();
    for (n, row) in [(8, 4), (64, 16), (256, 8), (2 * N, N / 2)] {
        let coset = subgroup(n).get_coset(Fr::GENERATOR).unwrap();
        for (domain, direction) in [
            (subgroup(n), Direction::Forward),
            (subgroup(n), Direction::Inverse),
            (coset, Direction::Forward),
            (coset, Direction::Inverse),
        ] {
            let options = FftOptions::default();
            let fft = FourStepFft::with_rows(&k.ctx, &domain, row, direction, &options)
                .unwrap()
                .with_first_step(FirstStep::Owner);
            assert_eq!(fft.info().levels, 2);
            assert!(!fft.galois_steps().includes_row_swap());
            let x = random_vector(n, 7 * n as u64 + row as u64);
            let (y, budget) = run(&fft, &x);
            assert_eq!(
                y,
                expected(&domain, direction, &x),
                "n = {n}, row {row}, {direction:?}"
            );
            assert!(budget > 0.0, "n = {n}: {budget} bits left");
        }
    }
}

#[test]
fn the_owners_first_step_on_its_own_context() {
    for n in [1 << 16, 1 << 20, 1 << 22] {
        let ctx = Route::RowFfts.context::<Fr>(n).unwrap();
        let server = Route::FourSteps.context::<Fr>(n).unwrap();
        assert_eq!(ctx.ring_degree(), 65536, "n = {n}");
        assert!(ctx.security_bits() >= 128.0);
        // One level fewer: a prime or more less to switch keys over.
        assert!(ctx.num_ctxt_primes() < server.num_ctxt_primes(), "n = {n}");
    }
    // On a context for two levels only, the route runs where the server's first step fails.
    let small = Context::builder()
        .ring_degree(N as u64)
        .plaintext_field::<Fr>()
        .ciphertext_bits(Route::RowFfts.ciphertext_bits::<Fr>(N, 4 * N))
        .allow_insecure(true)
        .build()
        .unwrap();
    let sk = SecKey::generate(&small).unwrap();
    let pk = PubKey::generate(&sk).unwrap();
    let domain = subgroup(4 * N);
    let fft = he_fft::Fft::new(
        Route::RowFfts,
        &small,
        &domain,
        Direction::Forward,
        &FftOptions::default(),
    )
    .unwrap();
    assert_eq!(fft.route(), Route::RowFfts);
    let gk = GaloisKeys::generate(&sk, &fft.galois_steps()).unwrap();
    let x = random_vector(4 * N, 5);
    let server_side = he_fft::Fft::new(
        Route::FourSteps,
        &small,
        &domain,
        Direction::Forward,
        &FftOptions::default(),
    )
    .unwrap();
    let server_keys = GaloisKeys::generate(&sk, &server_side.galois_steps()).unwrap();
    assert!(matches!(
        server_side.apply(&server_keys, &server_side.encrypt(&pk, &x).unwrap()),
        Err(Error::NoiseBudgetExhausted { .. })
    ));
    let cts = fft.encrypt(&pk, &x).unwrap();
    assert_ne!(cts[0].layout_tag(), 0);
    let y = fft.apply(&gk, &cts).unwrap();
    assert_eq!(fft.decrypt(&sk, &y).unwrap(), domain.fft(&x));
    // Wrong counts and lengths are errors, not wrong values.
    assert!(matches!(
        fft.encrypt(&pk, &random_vector(4 * N - 1, 1)),
        Err(Error::WrongLength { .. })
    ));
    assert!(matches!(
        fft.apply(&gk, &cts[..1]),
        Err(Error::WrongLength {
            expected: 4,
            got: 1,
            ..
        })
    ));
}
