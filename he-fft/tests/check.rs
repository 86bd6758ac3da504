//! The owner's O(n) checks of returned results: they accept exactly what arkworks computes
//! and reject any change, on the subgroup and on cosets, both directions.

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use he_fft::Error;
use he_fft::{check, Direction};

fn random(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| Fr::rand(&mut rng)).collect()
}

fn domains(n: usize) -> Vec<Radix2EvaluationDomain<Fr>> {
    let h = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    vec![
        h,
        h.get_coset(Fr::GENERATOR).unwrap(),
        h.get_coset(Fr::from(12345u64)).unwrap(),
    ]
}

#[test]
fn accepts_arkworks_and_rejects_every_single_change() {
    for n in [1, 2, 8, 64] {
        for domain in domains(n) {
            let x = random(n, n as u64);
            for (direction, y) in [
                (Direction::Forward, domain.fft(&x)),
                (Direction::Inverse, domain.ifft(&x)),
            ] {
                check::fft(&domain, direction, &x, &y).expect("arkworks' own result");
                for k in 0..n {
                    let mut bad = y.clone();
                    bad[k] += Fr::from(1u64);
                    assert!(
                        matches!(
                            check::fft(&domain, direction, &x, &bad),
                            Err(Error::ResultRejected(_))
                        ),
                        "n = {n}, {direction:?}, output {k} changed"
                    );
                }
                // The input echoed back, or the other direction's result: both wrong for n > 1.
                if n > 1 {
                    assert!(check::fft(&domain, direction, &x, &x).is_err());
                }
            }
        }
    }
}

#[test]
fn wrong_lengths_are_errors_not_verdicts() {
    let domain = Radix2EvaluationDomain::<Fr>::new(8).unwrap();
    let x = random(8, 1);
    let y = domain.fft(&x);
    assert!(matches!(
        check::fft(&domain, Direction::Forward, &x[..7], &y),
        Err(Error::WrongLength { .. })
    ));
    assert!(matches!(
        check::fft(&domain, Direction::Forward, &x, &y[..4]),
        Err(Error::WrongLength { .. })
    ));
}

#[test]
fn quotient_check_matches_the_plain_witness_map() {
    for n in [2, 16, 256] {
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let a = random(n, 10 + n as u64);
        let b = random(n, 20 + n as u64);
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let h = bigp_he_reference_quotient(&a, &b, &c);
        check::quotient(&domain, &a, &b, &c, &h).expect("the true quotient");
        let mut bad = h.clone();
        bad[n / 2] -= Fr::from(7u64);
        assert!(matches!(
            check::quotient(&domain, &a, &b, &c, &bad),
            Err(Error::ResultRejected(_))
        ));
        // An unsatisfied witness has no quotient: the check says so.
        let mut c2 = c.clone();
        c2[0] += Fr::from(1u64);
        let h2 = bigp_he_reference_quotient(&a, &b, &c2);
        assert!(check::quotient(&domain, &a, &b, &c2, &h2).is_err());
        assert!(matches!(
            check::quotient(&domain, &a, &b, &c[1..], &h),
            Err(Error::WrongLength { .. })
        ));
    }
}

/// ark-groth16's witness map, step by step (coset `F::GENERATOR * H`).
fn bigp_he_reference_quotient(a: &[Fr], b: &[Fr], c: &[Fr]) -> Vec<Fr> {
    use ark_ff::Field;
    let n = a.len();
    let h = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let coset = h.get_coset(Fr::GENERATOR).unwrap();
    let z_inv = h
        .evaluate_vanishing_polynomial(Fr::GENERATOR)
        .inverse()
        .unwrap();
    let [a, b, c] = [a, b, c].map(|v| coset.fft(&h.ifft(v)));
    let q: Vec<Fr> = (0..n).map(|i| (a[i] * b[i] - c[i]) * z_inv).collect();
    coset.ifft(&q)
}

#[test]
fn coset_change_check_accepts_arkworks_and_rejects_every_single_change() {
    for n in [2, 16, 128] {
        let h = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let gh = h.get_coset(Fr::GENERATOR).unwrap();
        let x = random(n, 7 + n as u64);
        let y = gh.fft(&h.ifft(&x));
        check::coset_change(&h, &gh, &x, &y).expect("arkworks' own result");
        for k in 0..n {
            let mut bad = y.clone();
            bad[k] -= Fr::from(3u64);
            assert!(matches!(
                check::coset_change(&h, &gh, &x, &bad),
                Err(Error::ResultRejected(_))
            ));
        }
        // The subgroup's own values are not the coset's.
        assert!(check::coset_change(&h, &gh, &x, &x).is_err());
        assert!(matches!(
            check::coset_change(&h, &gh, &x, &y[1..]),
            Err(Error::WrongLength { .. })
        ));
    }
}

#[test]
fn matrix_check_accepts_the_product_and_rejects_every_single_change() {
    for (rows, columns) in [(1, 1), (3, 5), (17, 4)] {
        let entries: Vec<Vec<Fr>> = (0..rows).map(|r| random(columns, r as u64)).collect();
        let m = he_fft::Matrix::from_rows(entries.clone()).unwrap();
        let check = check::MatrixCheck::new(&m).unwrap();
        let x = random(columns, 99);
        let y: Vec<Fr> = entries
            .iter()
            .map(|row| row.iter().zip(&x).map(|(a, b)| *a * b).sum())
            .collect();
        check.check(&x, &y).expect("the plain product");
        for k in 0..rows {
            let mut bad = y.clone();
            bad[k] += Fr::from(1u64);
            assert!(matches!(
                check.check(&x, &bad),
                Err(Error::ResultRejected(_))
            ));
        }
        assert!(matches!(
            check.check(&x[1..], &y),
            Err(Error::WrongLength { .. })
        ));
    }
}
