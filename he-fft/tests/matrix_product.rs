//! Matrices of any shape times encrypted vectors, against the plain product over Fr, at
//! N = 2048.

use ark_bn254::Fr;
use ark_ff::Zero;
use he_fft::Error;
use he_fft::{EncryptedTransform, FftOptions, Matrix, MatrixProduct};
use helib_rs::GaloisKeys;

mod common;
use common::{keys, random_vector};

/// `m x n` random rows (seeded).
fn random_rows(m: usize, n: usize, seed: u64) -> Vec<Vec<Fr>> {
    (0..m)
        .map(|r| random_vector(n, seed * 1000 + r as u64))
        .collect()
}

fn plain_product(rows: &[Vec<Fr>], x: &[Fr]) -> Vec<Fr> {
    rows.iter()
        .map(|row| row.iter().zip(x).map(|(a, b)| *a * b).sum())
        .collect()
}

/// `rows` applied to a random encrypted vector, decrypted, and the plain product.
fn encrypted_and_plain(rows: Vec<Vec<Fr>>, seed: u64) -> (Vec<Fr>, Vec<Fr>) {
    let k = keys();
    let n = rows[0].len();
    let x = random_vector(n, seed);
    let expected = plain_product(&rows, &x);
    let product = MatrixProduct::new(
        &k.ctx,
        Matrix::from_rows(rows).unwrap(),
        &FftOptions::default(),
    )
    .unwrap();
    let gk = GaloisKeys::generate(&k.sk, &product.galois_steps()).unwrap();
    let y = product
        .apply(&gk, &product.encrypt(&k.pk, &x).unwrap())
        .unwrap();
    (product.decrypt(&k.sk, &y).unwrap(), expected)
}

/// The published prototype's own test case: a 200 x 200 matrix (run as 256 x 256).
#[test]
fn a_200_by_200_matrix() {
    let (y, expected) = encrypted_and_plain(random_rows(200, 200, 1), 2);
    assert_eq!(y.len(), 200);
    assert_eq!(y, expected);
}

#[test]
fn rectangular_shapes() {
    for (m, n) in [(1, 64), (64, 1), (3, 5), (5, 3), (1, 1), (7, 100)] {
        let (y, expected) = encrypted_and_plain(random_rows(m, n, (m * 31 + n) as u64), 3);
        assert_eq!(y.len(), m, "{m} x {n}");
        assert_eq!(y, expected, "{m} x {n}");
    }
}

/// A matrix given by a function of (row, column), and the shape and costs the product
/// reports.
#[test]
fn from_a_function_with_its_costs() {
    let k = keys();
    // The sum of 5 values, and twice it, as a 2 x 5 matrix.
    let m = Matrix::from_fn_with_shape(2, 5, |r, _| Fr::from((r + 1) as u64)).unwrap();
    let product = MatrixProduct::new(&k.ctx, m, &FftOptions::default()).unwrap();
    assert_eq!((product.info().len, product.info().output_len), (5, 2));
    assert_eq!(product.shape(), (2, 5));
    assert_eq!(product.info().levels, 1);
    assert_eq!(product.plan().input_layout().len(), 8);
    assert!(product.plan().num_rotations() > 0);
    let gk = GaloisKeys::generate(&k.sk, &product.galois_steps()).unwrap();
    let x: Vec<Fr> = (1..=5u64).map(Fr::from).collect();
    let y = product
        .decrypt(
            &k.sk,
            &product
                .apply(&gk, &product.encrypt(&k.pk, &x).unwrap())
                .unwrap(),
        )
        .unwrap();
    // 1 + 2 + 3 + 4 + 5 = 15, and twice that.
    assert_eq!(y, vec![Fr::from(15u64), Fr::from(30u64)]);
}

#[test]
fn errors() {
    let k = keys();
    let product = MatrixProduct::new(
        &k.ctx,
        Matrix::from_rows(random_rows(3, 5, 4)).unwrap(),
        &FftOptions::default(),
    )
    .unwrap();
    // The input must have as many values as the matrix has columns: 5, not the padded 8.
    for bad in [4, 8] {
        assert!(matches!(
            product.encrypt(&k.pk, &vec![Fr::zero(); bad]),
            Err(Error::WrongLength { .. })
        ));
    }
    // Two ciphertexts where one is expected, before any work.
    let x = product.encrypt(&k.pk, &random_vector(5, 5)).unwrap();
    let gk = GaloisKeys::generate(&k.sk, &product.galois_steps()).unwrap();
    let two: Vec<_> = [&x, &x]
        .iter()
        .flat_map(|v| v.iter().map(|c| c.try_clone().unwrap()))
        .collect();
    assert!(matches!(
        product.apply(&gk, &two),
        Err(Error::WrongLength { .. })
    ));
    // Ragged rows.
    assert!(matches!(
        Matrix::from_rows(vec![vec![Fr::zero(); 3], vec![Fr::zero(); 2]]),
        Err(Error::WrongLength { .. })
    ));
    // More columns than any layout holds: refused before anything that size is allocated.
    let huge = Matrix::from_fn_with_shape(1, 1 << 40, |_, _| Fr::zero()).unwrap();
    assert!(matches!(
        MatrixProduct::new(&k.ctx, huge, &FftOptions::default()),
        Err(Error::InvalidArgument(_))
    ));
}
