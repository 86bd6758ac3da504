//! Encrypted FFT / iFFT against ark-poly, for every power-of-two size up to 2N at N = 2048.

use ark_bn254::Fr;
use ark_ff::Field;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use he_fft::Error;
use he_fft::{
    DiagonalCache, Direction, EncodedTransform, EncryptedTransform, FftOptions, Layout, Matrix,
    OneProductFft, PlanOptions, TransformPlan,
};
use helib_rs::{Ctxt, GaloisKeys, GaloisSteps};

mod common;
use common::{decrypted_product, keys, random_vector, two_level_keys, Keys, N};

fn plain(n: usize, x: &[Fr], direction: Direction) -> Vec<Fr> {
    let domain = Radix2EvaluationDomain::<Fr>::new(n).expect("domain");
    match direction {
        Direction::Forward => domain.fft(x),
        Direction::Inverse => domain.ifft(x),
    }
}

/// Runs the encrypted transform of size n and checks it against ark-poly; returns the
/// result's noise budget.
fn check_size(n: usize, direction: Direction, options: &FftOptions, seed: u64) -> f64 {
    let k = keys();
    let fft = OneProductFft::<Fr>::new(&k.ctx, n, direction, options).expect("plan");
    let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).expect("galois keys");
    let x = random_vector(n, seed);
    let y = fft
        .apply(&gk, &fft.encrypt(&k.pk, &x).expect("encrypt"))
        .expect("transform");
    let budget = y
        .iter()
        .map(|c| c.noise_budget())
        .fold(f64::INFINITY, f64::min);
    assert!(budget > 0.0, "n = {n}: budget {budget}");
    assert_eq!(
        fft.decrypt(&k.sk, &y).expect("decrypt"),
        plain(n, &x, direction),
        "n = {n} {direction:?}"
    );
    budget
}

#[test]
fn forward_every_size_up_to_2n() {
    for log_n in 0..=12 {
        let n = 1 << log_n;
        let b = check_size(n, Direction::Forward, &FftOptions::default(), log_n);
        assert!(b > 20.0, "n = {n}: only {b:.1} bits left");
    }
}

#[test]
fn inverse_every_size_up_to_2n() {
    for log_n in 0..=12 {
        let n = 1 << log_n;
        let b = check_size(n, Direction::Inverse, &FftOptions::default(), 100 + log_n);
        assert!(b > 20.0, "n = {n}: only {b:.1} bits left");
    }
}

/// The data owner's upload as secret-key bytes: the server reads them and transforms them
/// exactly, with more budget left than after a public-key encryption of the same input. The
/// gain is the fresh noise's: most of it when every baby step is one key switch from the input
/// (hoisted, the default), less when they come in rounds and key switches add up.
#[test]
fn secret_key_uploads_transform_exactly_with_more_budget() {
    let k = keys();
    let rounds = FftOptions::default().with_plan(PlanOptions::default().with_baby_step_keys(2));
    for (n, options, least_gain) in [
        (16, FftOptions::default(), 2.0),
        (N, FftOptions::default(), 2.0),
        (2 * N, FftOptions::default(), 2.0),
        (N, rounds, 0.5),
    ] {
        let fft = OneProductFft::<Fr>::new(&k.ctx, n, Direction::Forward, &options).unwrap();
        let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).unwrap();
        let x = random_vector(n, 50 + n as u64);
        let upload = fft.encrypt_to_bytes(&k.sk, &x).unwrap();
        assert_eq!(upload.len(), fft.plan().input_layout().num_ciphertexts());
        let cts = upload
            .iter()
            .map(|b| Ctxt::from_bytes(&k.pk, b))
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let y = fft.apply(&gk, &cts).unwrap();
        assert_eq!(
            fft.decrypt(&k.sk, &y).unwrap(),
            plain(n, &x, Direction::Forward),
            "n = {n}"
        );

        for c in &y {
            let measured = k.sk.measure_noise(c).unwrap();
            assert!(
                measured <= c.log2_noise_bound(),
                "n = {n}: noise above its bound"
            );
        }

        let public = fft.apply(&gk, &fft.encrypt(&k.pk, &x).unwrap()).unwrap();
        let gain = y[0].noise_budget() - public[0].noise_budget();
        assert!(gain > least_gain, "n = {n}: only {gain:.1} more bits left");
    }

    // A layout of another ring degree is refused.
    let other = Layout::new(16, 2 * N).unwrap();
    assert!(matches!(
        other.encrypt_to_bytes(&k.ctx, &k.sk, &random_vector(16, 1)),
        Err(Error::Mismatch(_))
    ));
}

/// ifft(fft(x)) == x on ciphertexts: the forward output's layout is the inverse's input.
#[test]
fn round_trip_returns_the_input() {
    let Keys { ctx, sk, pk } = two_level_keys();
    for n in [2, 256, 2 * N] {
        let fwd =
            OneProductFft::<Fr>::new(ctx, n, Direction::Forward, &FftOptions::default()).unwrap();
        let inv_options = FftOptions::default().with_plan(
            PlanOptions::default()
                .with_half_rotated_input(fwd.plan().output_layout().is_half_rotated()),
        );
        let inv = OneProductFft::<Fr>::new(ctx, n, Direction::Inverse, &inv_options).unwrap();
        assert_eq!(inv.plan().input_layout(), fwd.plan().output_layout());
        let steps: Vec<i64> = fwd
            .galois_steps()
            .requested_steps()
            .iter()
            .chain(inv.galois_steps().requested_steps())
            .copied()
            .collect();
        let gk = GaloisKeys::generate(sk, &GaloisSteps::new().steps(steps).row_swap()).unwrap();
        let x = random_vector(n, 7 + n as u64);
        let y = fwd.apply(&gk, &fwd.encrypt(pk, &x).unwrap()).unwrap();
        let back = inv.apply(&gk, &y).unwrap();
        assert!(back[0].noise_budget() > 0.0, "n = {n}");
        assert_eq!(inv.decrypt(sk, &back).unwrap(), x, "n = {n}");
    }
}

/// Inputs whose noise grew are switched down before the transform (to one level, the lowest
/// natural one, when there are several): here the second of two ciphertexts went through a
/// constant product. Diagonals encoded on demand are then encoded for that level.
#[test]
fn grown_noise_inputs_run_lower() {
    let Keys { ctx, sk, pk } = two_level_keys();
    let n = 2 * N;
    for cache in [DiagonalCache::Always, DiagonalCache::Never] {
        let options = FftOptions::default().with_cache(cache);
        let fft = OneProductFft::<Fr>::new(ctx, n, Direction::Forward, &options).unwrap();
        let gk = GaloisKeys::generate(sk, &fft.galois_steps()).unwrap();
        let mut cts = fft.encrypt(pk, &random_vector(n, 300)).unwrap();
        // (p + 1) / 2: about 253 bits of noise growth.
        cts[1].mul_const(Fr::from(2u64).inverse().unwrap()).unwrap();
        let top = cts[0].level();
        let x = fft.plan().input_layout().decrypt(ctx, sk, &cts).unwrap();
        let y = fft.apply(&gk, &cts).unwrap();
        assert!(
            y.iter().all(|c| c.level() < top),
            "{cache:?}: no level dropped"
        );
        assert!(y.iter().all(|c| c.noise_budget() > 0.0), "{cache:?}");
        assert_eq!(
            fft.decrypt(sk, &y).unwrap(),
            plain(n, &x, Direction::Forward),
            "{cache:?}"
        );
    }
}

/// The same transforms with diagonals encoded on demand and with other BSGS shapes: baby
/// steps, chains, and baby steps in rounds of a few keys (the last round short) or all at once.
#[test]
fn uncached_and_reshaped_plans_agree() {
    for (n, baby, chains, keys) in [
        (64, 1, 1, None),
        (64, 32, 3, Some(5)),
        (512, 4, 2, None),
        (N, 16, 1, Some(15)),
        (2 * N, 64, 4, Some(3)),
    ] {
        let mut plan = PlanOptions::default()
            .with_baby_steps(baby)
            .with_chains(chains);
        if let Some(k) = keys {
            plan = plan.with_baby_step_keys(k);
        }
        let options = FftOptions::default()
            .with_plan(plan)
            .with_cache(DiagonalCache::Never);
        check_size(n, Direction::Forward, &options, 40 + n as u64);
    }
}

/// A general dense matrix, given by rows and by diagonals, against the plain product.
#[test]
fn general_matrices_by_rows_and_diagonals() {
    let k = keys();
    for n in [4, 32, N, 2 * N] {
        let mut rng = StdRng::seed_from_u64(n as u64);
        let rows: Vec<Vec<Fr>> = (0..n)
            .map(|_| (0..n).map(|_| Fr::rand(&mut rng)).collect())
            .collect();
        let diagonals: Vec<Vec<Fr>> = (0..n)
            .map(|t| (0..n).map(|r| rows[r][(r + t) % n]).collect())
            .collect();
        let x = random_vector(n, 900 + n as u64);
        let expected: Vec<Fr> = rows
            .iter()
            .map(|row| row.iter().zip(&x).map(|(a, b)| *a * b).sum())
            .collect();
        let plan = TransformPlan::new(&k.ctx, n, &PlanOptions::default()).unwrap();
        let gk = GaloisKeys::generate(&k.sk, &plan.galois_steps()).unwrap();
        let ct = plan.input_layout().encrypt(&k.ctx, &k.pk, &x).unwrap();
        for m in [
            Matrix::from_rows(rows.clone()).unwrap(),
            Matrix::from_diagonals(diagonals.clone()).unwrap(),
        ] {
            assert_eq!(
                decrypted_product(&plan, m, DiagonalCache::default(), &gk, &ct),
                expected,
                "n = {n}"
            );
        }
    }
}

/// The plan asks for exactly the keys it uses: the baby steps' keys, the giant step, chain
/// offsets and the row work.
#[test]
fn plans_request_few_keys() {
    let k = keys();
    // 512 diagonals per row: 32 baby steps, giant step 32, one chain offset, h = 512.
    let options = PlanOptions::default().with_chains(2);
    let plan = TransformPlan::new(&k.ctx, 1024, &options).unwrap();
    let steps = plan.galois_steps();
    // By default a key per baby step: all of them hoisted from the input, in one round.
    assert_eq!(plan.baby_step_keys(), 31);
    assert_eq!(steps.requested_steps().len(), 31 + 1 + 1 + 1);
    assert!(steps.includes_row_swap());
    assert_eq!(plan.num_diagonals(), 512);
    assert_eq!(plan.levels(), 1);
    // Two keys: rotations by 1 and 2, in rounds; as many rotations.
    let rounds = TransformPlan::new(&k.ctx, 1024, &options.clone().with_baby_step_keys(2)).unwrap();
    let steps = rounds.galois_steps();
    assert_eq!(rounds.baby_step_keys(), 2);
    assert_eq!(steps.requested_steps().len(), 2 + 1 + 1 + 1);
    assert!(steps.requested_steps().contains(&2) && !steps.requested_steps().contains(&3));
    assert_eq!(rounds.num_rotations(), plan.num_rotations());
    // More keys than baby steps is the same as enough; none is an error.
    let more = TransformPlan::new(&k.ctx, 1024, &options.clone().with_baby_step_keys(100)).unwrap();
    assert_eq!(more.baby_step_keys(), 31);
    assert!(matches!(
        TransformPlan::new(&k.ctx, 1024, &options.with_baby_step_keys(0)),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn errors_are_clear() {
    let k = keys();
    // Not a power of two.
    assert!(matches!(
        OneProductFft::<Fr>::new(&k.ctx, 12, Direction::Forward, &FftOptions::default()),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(Layout::new(0, N), Err(Error::InvalidArgument(_))));
    // Ring degrees that are not powers of two (0 would divide by zero).
    assert!(matches!(Layout::new(4, 0), Err(Error::InvalidArgument(_))));
    assert!(matches!(Layout::new(4, 6), Err(Error::InvalidArgument(_))));
    // Vectors over more than MAX_CIPHERTEXTS ciphertexts, up to sizes whose plans would not
    // fit in memory: refused before any allocation.
    let most = Layout::MAX_CIPHERTEXTS * N;
    assert_eq!(
        Layout::new(most, N).unwrap().num_ciphertexts(),
        Layout::MAX_CIPHERTEXTS
    );
    for n in [2 * most, 1 << 40, 1 << 62] {
        assert!(matches!(Layout::new(n, N), Err(Error::InvalidArgument(_))));
        assert!(matches!(
            OneProductFft::<Fr>::new(&k.ctx, n, Direction::Forward, &FftOptions::default()),
            Err(Error::InvalidArgument(_))
        ));
    }
    // Out-of-range matrix entries are None, not a panic.
    let m = Matrix::from_rows(vec![vec![Fr::from(1u64), Fr::from(2u64)]; 2]).unwrap();
    assert_eq!(m.entry(1, 1), Some(Fr::from(2u64)));
    assert_eq!((m.entry(2, 0), m.entry(0, 2)), (None, None));
    let d = Matrix::from_diagonals(vec![vec![Fr::from(1u64); 2]; 2]).unwrap();
    assert_eq!((d.entry(3, 0), d.entry(usize::MAX, 1)), (None, None));
    // Any shape pads to a power of two; an empty side or cyclic diagonals of another size
    // are errors.
    let odd = Matrix::<Fr>::from_fn(3, |_, _| Fr::from(0u64)).unwrap();
    assert_eq!((odd.shape(), odd.dim()), ((3, 3), 4));
    assert!(matches!(
        Matrix::<Fr>::from_fn_with_shape(0, 4, |_, _| Fr::from(0u64)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Matrix::from_diagonals(vec![vec![Fr::from(1u64); 3]; 3]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Matrix::<Fr>::from_rows(vec![]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Matrix::from_rows(vec![vec![Fr::from(1u64)], vec![]]),
        Err(Error::WrongLength { .. })
    ));
    // Beyond the field's two-adicity (BN254: 2^28).
    assert!(matches!(
        he_fft::dft_matrix::<Fr>(1 << 29, Direction::Forward),
        Err(Error::InvalidArgument(_))
    ));

    let fft =
        OneProductFft::<Fr>::new(&k.ctx, 64, Direction::Forward, &FftOptions::default()).unwrap();
    // A vector of the wrong length.
    assert!(matches!(
        fft.encrypt(&k.pk, &random_vector(65, 1)),
        Err(Error::WrongLength { .. })
    ));
    assert!(matches!(
        fft.encrypt(&k.pk, &random_vector(32, 1)),
        Err(Error::WrongLength { .. })
    ));

    // A missing Galois key, named.
    let x = fft.encrypt(&k.pk, &random_vector(64, 2)).unwrap();
    let partial = GaloisKeys::generate(&k.sk, &GaloisSteps::new().step(1)).unwrap();
    match fft.apply(&partial, &x) {
        Err(Error::MissingKey(msg)) => assert!(msg.contains("rotation by"), "{msg}"),
        other => panic!("expected MissingKey, got {other:?}"),
    }
    // No keys at all: the message names the route, not the product inside it.
    match fft.apply_with(None, &x, &|_, _| {}) {
        Err(Error::MissingKey(msg)) => {
            assert!(msg.starts_with(fft.info().name), "{msg}");
            assert!(!msg.contains("matrix product"), "{msg}");
        }
        other => panic!("expected MissingKey, got {other:?}"),
    }
    // The wrong number of ciphertexts.
    let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).unwrap();
    assert!(matches!(
        fft.apply(&gk, &[]),
        Err(Error::WrongLength { .. })
    ));
    // An encoding built for another plan.
    let other = TransformPlan::new(&k.ctx, 64, &PlanOptions::default().with_baby_steps(2)).unwrap();
    assert!(matches!(
        other.execute(fft.encoded(), &gk, &x),
        Err(Error::InvalidArgument(_))
    ));
    // Baby steps that do not divide the work.
    assert!(matches!(
        TransformPlan::new(&k.ctx, 64, &PlanOptions::default().with_baby_steps(3)),
        Err(Error::InvalidArgument(_))
    ));
    // A matrix of another size.
    let m = he_fft::dft_matrix::<Fr>(32, Direction::Forward).unwrap();
    assert!(matches!(
        EncodedTransform::new(&k.ctx, fft.plan(), m, DiagonalCache::Never),
        Err(Error::InvalidArgument(_))
    ));
}
