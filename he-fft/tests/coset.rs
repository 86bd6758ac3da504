//! Coset FFTs and coset changes against ark-poly, and circulant matrices against the plain
//! cyclic convolution, at N = 2048.

use ark_bn254::Fr;
use ark_ff::{FftField, Field};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::Error;
use he_fft::{
    CosetChange, DiagonalCache, Direction, EncryptedTransform, FftOptions, Matrix, OneProductFft,
    PlanOptions, TransformPlan,
};
use helib_rs::{GaloisKeys, GaloisSteps};

mod common;
use common::{decrypted_product, keys, random_vector, two_level_keys, N};

fn subgroup(n: usize) -> Radix2EvaluationDomain<Fr> {
    Radix2EvaluationDomain::new(n).expect("domain")
}

/// Encrypts x, applies `fft`, decrypts; returns the result and its noise budget.
fn run(fft: &impl EncryptedTransform<Fr>, x: &[Fr]) -> (Vec<Fr>, f64) {
    let k = keys();
    let gk = GaloisKeys::generate(&k.sk, &fft.galois_steps()).expect("galois keys");
    let y = fft
        .apply(&gk, &fft.encrypt(&k.pk, x).expect("encrypt"))
        .expect("transform");
    let budget = y
        .iter()
        .map(|c| c.noise_budget())
        .fold(f64::INFINITY, f64::min);
    (fft.decrypt(&k.sk, &y).expect("decrypt"), budget)
}

/// `domain.fft` and `domain.ifft` on the coset ark-groth16 uses (offset `Fr::GENERATOR`), on
/// every route: replicated, split rows (n = N) and several ciphertexts (n = 2N).
#[test]
fn coset_transforms_equal_ark_on_every_route() {
    let k = keys();
    for log_n in 0..=N.ilog2() + 1 {
        let n = 1usize << log_n;
        let coset = subgroup(n).get_coset(Fr::GENERATOR).unwrap();
        let x = random_vector(n, log_n as u64);
        let fwd =
            OneProductFft::on_domain(&k.ctx, &coset, Direction::Forward, &FftOptions::default())
                .unwrap();
        let (y, budget) = run(&fwd, &x);
        assert!(budget > 0.0, "n = {n}: budget {budget}");
        assert_eq!(y, coset.fft(&x), "coset fft, n = {n}");
        assert_eq!(fwd.direction(), Direction::Forward);
        if [1, 8, N / 2, N, 2 * N].contains(&n) {
            let inv = OneProductFft::on_domain(
                &k.ctx,
                &coset,
                Direction::Inverse,
                &FftOptions::default(),
            )
            .unwrap();
            assert_eq!(run(&inv, &x).0, coset.ifft(&x), "coset ifft, n = {n}");
        }
    }
}

/// A coset FFT is not the subgroup's: the offset reaches the result.
#[test]
fn the_offset_changes_the_result() {
    let k = keys();
    let n = 16;
    let x = random_vector(n, 7);
    // 7, not 5: 5 is BN254's Fr::GENERATOR, which the other tests use.
    let coset = subgroup(n).get_coset(Fr::from(7u64)).unwrap();
    let fft = OneProductFft::on_domain(&k.ctx, &coset, Direction::Forward, &FftOptions::default())
        .unwrap();
    let y = run(&fft, &x).0;
    assert_eq!(y, coset.fft(&x));
    assert_ne!(y, subgroup(n).fft(&x));
}

/// Evaluations on one coset to evaluations on another, as `to.fft(&from.ifft(e))`: from the
/// subgroup (a prover's move to its quotient coset), between two proper cosets, onto the
/// same coset (the identity) and onto a shifted copy of it (a cyclic shift of the values).
#[test]
fn coset_changes_equal_ark_on_every_route() {
    let k = keys();
    for n in [1, 2, 16, 256, N / 2, N, 2 * N] {
        let h = subgroup(n);
        let g = h.get_coset(Fr::GENERATOR).unwrap();
        let other = h.get_coset(Fr::from(3u64).pow([5u64])).unwrap();
        let shifted = h.get_coset(h.group_gen()).unwrap();
        let e = random_vector(n, 100 + n as u64);
        for (from, to, what) in [
            (&h, &g, "subgroup to coset"),
            (&g, &other, "coset to coset"),
            (&g, &g, "identity"),
            (&h, &shifted, "shift"),
        ] {
            let change = CosetChange::new(&k.ctx, from, to, &FftOptions::default()).unwrap();
            assert_eq!(change.to_domain(), to);
            assert!(change.encoded().is_cached(), "n = {n}: always cached");
            let (y, budget) = run(&change, &e);
            assert!(budget > 0.0, "n = {n} {what}: budget {budget}");
            assert_eq!(y, to.fft(&from.ifft(&e)), "n = {n} {what}");
            if what == "shift" {
                // Values at w^(r+1): the input moved down by one.
                let mut expected = e.clone();
                expected.rotate_left(1);
                assert_eq!(y, expected, "n = {n}");
            }
        }
    }
}

/// On a replicated layout (n <= N/2) a coset change's diagonals are constants per row: 4 words
/// per prime each whatever n, cached even when the policy says never; at n = N they are not,
/// and the policy holds.
#[test]
fn circulant_diagonals_cost_four_words_per_prime() {
    let k = keys();
    let primes = k.ctx.num_ctxt_primes() as u64;
    for n in [64, N / 2] {
        let h = subgroup(n);
        let g = h.get_coset(Fr::GENERATOR).unwrap();
        let options = FftOptions::default().with_cache(DiagonalCache::Never);
        let change = CosetChange::new(&k.ctx, &h, &g, &options).unwrap();
        let diagonals = change.plan().num_diagonals() as u64;
        assert_eq!(
            change.encoded().estimated_cache_bytes(&k.ctx),
            4 * 8 * primes * diagonals
        );
        let held = change.encoded().cache_bytes();
        assert!(held >= 4 * 8 * primes * diagonals, "n = {n}: {held} bytes");
        assert!(
            held <= 4 * 8 * primes * diagonals + 1024 * diagonals,
            "n = {n}: {held} bytes"
        );
        // The FFT of the same size holds 2n words per prime per diagonal.
        let fft = OneProductFft::on_domain(&k.ctx, &g, Direction::Forward, &FftOptions::default())
            .unwrap();
        assert_eq!(
            fft.encoded().estimated_cache_bytes(&k.ctx),
            2 * n as u64 * 8 * primes * diagonals
        );
    }
    let h = subgroup(N);
    let options = FftOptions::default().with_cache(DiagonalCache::Never);
    let change =
        CosetChange::new(&k.ctx, &h, &h.get_coset(Fr::GENERATOR).unwrap(), &options).unwrap();
    assert!(!change.encoded().is_cached());
}

/// Circulant matrices, given by their column or found among rows and diagonals, against the
/// plain cyclic convolution; every diagonal-cache policy and baby-step shape.
#[test]
fn circulant_matrices_multiply_exactly() {
    let k = keys();
    for n in [2, 8, 128, N / 2, N] {
        let column = random_vector(n, 300 + n as u64);
        let x = random_vector(n, 400 + n as u64);
        let expected: Vec<Fr> = (0..n)
            .map(|r| (0..n).map(|c| column[(r + n - c) % n] * x[c]).sum())
            .collect();
        let rows: Vec<Vec<Fr>> = (0..n)
            .map(|r| (0..n).map(|c| column[(r + n - c) % n]).collect())
            .collect();
        let diagonals: Vec<Vec<Fr>> = (0..n)
            .map(|t| (0..n).map(|r| rows[r][(r + t) % n]).collect())
            .collect();
        let matrices = [
            Matrix::circulant(column.clone()).unwrap(),
            Matrix::from_rows(rows).unwrap(),
            Matrix::from_diagonals(diagonals).unwrap(),
        ];
        let baby = if n >= 8 { Some(2) } else { None };
        for (i, m) in matrices.into_iter().enumerate() {
            assert!(m.is_circulant(), "n = {n}, matrix {i}");
            let options = {
                let mut plan = PlanOptions::default();
                plan.baby_steps = if i == 1 { baby } else { None };
                plan
            };
            let plan = TransformPlan::new(&k.ctx, n, &options).unwrap();
            let gk = GaloisKeys::generate(&k.sk, &plan.galois_steps()).unwrap();
            let ct = plan.input_layout().encrypt(&k.ctx, &k.pk, &x).unwrap();
            let cache = [
                DiagonalCache::Always,
                DiagonalCache::Never,
                DiagonalCache::UpTo(0),
            ][i];
            assert_eq!(
                decrypted_product(&plan, m, cache, &gk, &ct),
                expected,
                "n = {n}, matrix {i}"
            );
        }
    }
}

/// Only matrices whose every diagonal is constant count as circulant.
#[test]
fn circulant_detection_is_exact() {
    let one = Fr::from(1u64);
    let two = Fr::from(2u64);
    // Constant diagonals except one entry.
    let mut rows = vec![vec![one, two], vec![two, one]];
    assert!(Matrix::from_rows(rows.clone()).unwrap().is_circulant());
    rows[1][1] = two;
    assert!(!Matrix::from_rows(rows).unwrap().is_circulant());
    assert!(
        !Matrix::from_diagonals(vec![vec![one, two], vec![one, one]])
            .unwrap()
            .is_circulant()
    );
    // Found circulant, entries unchanged: (r, r + t) holds diagonal t's value.
    let d = Matrix::from_diagonals(vec![
        vec![one; 4],
        vec![two; 4],
        vec![one + two; 4],
        vec![two + two; 4],
    ])
    .unwrap();
    assert!(d.is_circulant());
    for r in 0..4 {
        for t in 0..4 {
            assert_eq!(d.entry(r, (r + t) % 4), Some(Fr::from([1u64, 2, 3, 4][t])));
        }
    }
    assert!(!Matrix::from_fn(2, move |_, _| one).unwrap().is_circulant());
    assert!(matches!(
        Matrix::circulant(vec![one; 3]),
        Err(Error::InvalidArgument(_))
    ));
}

/// After an FFT (whose output is half-rotated on a replicated layout), a coset change that
/// takes that layout as its input: both row flavours of the constant-row diagonals.
#[test]
fn coset_change_after_an_fft_chains() {
    let k = two_level_keys();
    for n in [4, 64, N / 2] {
        let h = subgroup(n);
        let coset = h.get_coset(Fr::GENERATOR).unwrap();
        let x = random_vector(n, 500 + n as u64);
        let fft =
            OneProductFft::new(&k.ctx, n, Direction::Forward, &FftOptions::default()).unwrap();
        let options =
            FftOptions::default().with_plan(PlanOptions::default().with_half_rotated_input(true));
        let change = CosetChange::new(&k.ctx, &h, &coset, &options).unwrap();
        assert_eq!(change.plan().input_layout(), fft.plan().output_layout());
        let steps = fft
            .galois_steps()
            .requested_steps()
            .iter()
            .chain(change.galois_steps().requested_steps())
            .copied()
            .collect::<Vec<_>>();
        let steps = GaloisSteps::new().steps(steps).row_swap();
        let gk = GaloisKeys::generate(&k.sk, &steps).unwrap();
        let evals = fft.apply(&gk, &fft.encrypt(&k.pk, &x).unwrap()).unwrap();
        let y = change.apply(&gk, &evals).unwrap();
        assert!(y[0].noise_budget() > 0.0, "n = {n}");
        // Evaluations on H to evaluations on g H: the coset FFT of the input.
        assert_eq!(change.decrypt(&k.sk, &y).unwrap(), coset.fft(&x), "n = {n}");
    }
}

#[test]
fn coset_change_errors_are_clear() {
    let k = keys();
    // Same size, another generator (ark-poly's fields are public).
    let h = subgroup(8);
    let other = Radix2EvaluationDomain {
        group_gen: h.group_gen().square(),
        ..h
    };
    match CosetChange::new(&k.ctx, &h, &other, &FftOptions::default()) {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains("generators"), "{msg}"),
        other => panic!("expected InvalidArgument, got {:?}", other.map(|_| ())),
    }
    assert!(matches!(
        he_fft::CosetChange::<Fr>::secure_context(20000),
        Err(Error::InvalidArgument(msg)) if msg.contains("power of two")
    ));
    match CosetChange::new(&k.ctx, &subgroup(8), &subgroup(16), &FftOptions::default()) {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains("sizes 8 and 16"), "{msg}"),
        other => panic!("expected InvalidArgument, got {:?}", other.map(|_| ())),
    }
    // A coset beyond the layouts' reach is refused like an FFT of that size.
    let huge = Radix2EvaluationDomain::<Fr>::new(1 << 27).unwrap();
    assert!(matches!(
        CosetChange::new(&k.ctx, &huge, &huge, &FftOptions::default()),
        Err(Error::InvalidArgument(_))
    ));
}
