//! The encrypted QAP quotient against ark-groth16's witness map and against the plain
//! computation with ark-poly, at N = 2048.

use ark_bn254::Fr;
use ark_ff::{FftField, Field, One, Zero};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::{quotient_context, EncryptedTransform, FftOptions, Quotient};
use helib_rs::{Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, SecKey};

mod common;
use common::{evaluations, joined, keys, quotient_keys, random_r1cs, random_vector, Keys, N};

/// `coset.ifft((a' b' - c') / Z_H(g))` with `a' = coset.fft(H.ifft(a))`, step by step as
/// ark-groth16 does it.
fn plain_quotient(a: &[Fr], b: &[Fr], c: &[Fr], offset: Fr) -> Vec<Fr> {
    let h = Radix2EvaluationDomain::<Fr>::new(a.len()).unwrap();
    let coset = h.get_coset(offset).unwrap();
    let [a, b, c] = [a, b, c].map(|v| coset.fft(&h.ifft(v)));
    let z_inv = h.evaluate_vanishing_polynomial(offset).inverse().unwrap();
    let q: Vec<Fr> = (0..a.len()).map(|i| (a[i] * b[i] - c[i]) * z_inv).collect();
    coset.ifft(&q)
}

/// Encrypts a, b, c under `k`, runs the quotient, decrypts; returns `h` and its noise budget.
fn run(k: &Keys, q: &Quotient<Fr>, a: &[Fr], b: &[Fr], c: &[Fr]) -> (Vec<Fr>, f64) {
    let gk = GaloisKeys::generate(&k.sk, &q.galois_steps()).expect("galois keys");
    let [a, b, c] = [a, b, c].map(|v| q.encrypt(&k.pk, v).expect("encrypt"));
    let h = q.apply(&gk, &joined(&[&a, &b, &c])).expect("quotient");
    let budget = h
        .iter()
        .map(|c| c.noise_budget())
        .fold(f64::INFINITY, f64::min);
    (q.decrypt(&k.sk, &h).expect("decrypt"), budget)
}

/// Decrypting the encrypted quotient gives exactly ark-groth16's `h` (its witness map on
/// the same assignment), whose last coefficient is 0 since the constraints hold.
#[test]
fn equals_groth16_witness_map() {
    let k = quotient_keys();
    // (constraints, inputs): n = 8, and n = 1024 = N/2, the largest one-ciphertext size.
    for (constraints, inputs, seed) in [(5, 2, 1), (1000, 24, 2)] {
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
        let [a, b, c] = evaluations(&m, &z, inputs, n);
        let q = Quotient::new(&k.ctx, n, &FftOptions::default()).unwrap();
        let (h, budget) = run(k, &q, &a, &b, &c);
        assert_eq!(h, expected, "n = {n}");
        assert!(h[n - 1].is_zero(), "deg h <= n - 2");
        assert!(budget > 0.0, "n = {n}: budget {budget}");
    }
}

/// Arbitrary (unsatisfied) evaluations give the plain formula's result on every route:
/// replicated, split rows (n = N) and two ciphertexts (n = 2N).
#[test]
fn equals_the_plain_quotient_on_every_route() {
    let k = quotient_keys();
    for n in [1, 2, 16, N / 2, N, 2 * N] {
        let [a, b, c] = [0, 1, 2].map(|i| random_vector(n, 10 * n as u64 + i));
        let q = Quotient::new(&k.ctx, n, &FftOptions::default()).unwrap();
        let (h, budget) = run(k, &q, &a, &b, &c);
        assert_eq!(h, plain_quotient(&a, &b, &c, Fr::GENERATOR), "n = {n}");
        assert!(budget > 0.0, "n = {n}: budget {budget}");
        println!("n = {n}: {budget:.1} bits of budget left");
        assert_eq!(q.len(), n);
        assert_eq!(q.coset().coset_offset(), Fr::GENERATOR);
    }
}

/// Another coset works; offsets in H (where Z_H vanishes) and 0 are refused.
#[test]
fn offsets() {
    let k = quotient_keys();
    let n = 16;
    let [a, b, c] = [0, 1, 2].map(|i| random_vector(n, 50 + i));
    let seven = Fr::from(7u64);
    let q = Quotient::with_offset(&k.ctx, n, seven, &FftOptions::default()).unwrap();
    assert_eq!(run(k, &q, &a, &b, &c).0, plain_quotient(&a, &b, &c, seven));

    let w = Radix2EvaluationDomain::<Fr>::new(n).unwrap().group_gen();
    for bad in [Fr::one(), w, w.square()] {
        let e = Quotient::with_offset(&k.ctx, n, bad, &FftOptions::default()).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidArgument(m) if m.contains("lies in the subgroup of size 16")),
            "{e}"
        );
    }
    let e = Quotient::with_offset(&k.ctx, n, Fr::zero(), &FftOptions::default()).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("not be 0")),
        "{e}"
    );
    let e = Quotient::<Fr>::new(&k.ctx, 12, &FftOptions::default()).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
}

/// Bad calls fail with the error that names the problem, never a wrong result.
#[test]
fn errors() {
    let k = quotient_keys();
    let n = 16;
    let q = Quotient::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
    let [a, b, c] = [0, 1, 2].map(|i| q.encrypt(&k.pk, &random_vector(n, 70 + i)).unwrap());

    // Keys of the final iFFT only: the coset changes' extra rotation (by n/2, after their
    // row swap) is missing, found before any work.
    let (to, from) = (q.to_coset().galois_steps(), q.from_coset().galois_steps());
    assert!(!from.requested_steps().contains(&(n as i64 / 2)));
    assert!(to.requested_steps().contains(&(n as i64 / 2)));
    let partial = GaloisKeys::generate(&k.sk, &from).unwrap();
    let e = q.apply(&partial, &joined(&[&a, &b, &c])).unwrap_err();
    assert!(
        matches!(&e, Error::MissingKey(m) if m.contains("by 8")),
        "{e}"
    );
    let all = GaloisKeys::generate(&k.sk, &q.galois_steps()).unwrap();
    let none = GaloisKeys::generate(&k.sk, &GaloisSteps::new()).unwrap();
    let e = q.apply(&none, &joined(&[&a, &b, &c])).unwrap_err();
    assert!(
        matches!(&e, Error::MissingKey(m) if m.contains("row")),
        "{e}"
    );

    // Wrong number of ciphertexts.
    let e = q.apply(&all, &joined(&[&a, &b])).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidLength(m) if m.contains("3 input vector")),
        "{e}"
    );

    // b under another public key: no product across keys.
    let sk2 = SecKey::generate(&k.ctx).unwrap();
    let pk2 = PubKey::generate(&sk2).unwrap();
    let b2 = q.encrypt(&pk2, &random_vector(n, 80)).unwrap();
    let e = q.apply(&all, &joined(&[&a, &b2, &c])).unwrap_err();
    assert!(matches!(e, Error::Mismatch(_)), "{e}");

    // A context sized for one transform has no room for three levels.
    let one = keys();
    let q1 = Quotient::<Fr>::new(&one.ctx, n, &FftOptions::default()).unwrap();
    let gk1 = GaloisKeys::generate(&one.sk, &q1.galois_steps()).unwrap();
    let [a1, b1, c1] = [0, 1, 2].map(|i| q1.encrypt(&one.pk, &random_vector(n, 90 + i)).unwrap());
    let e = q1.apply(&gk1, &joined(&[&a1, &b1, &c1])).unwrap_err();
    assert!(
        matches!(&e, Error::NoiseBudgetExhausted(m) if m.contains("quotient_context")),
        "{e}"
    );
}

/// The data owner's upload encrypted with the secret key (seeded, half size) works the same.
#[test]
fn secret_key_upload() {
    let k = quotient_keys();
    let n = 64;
    let q = Quotient::<Fr>::new(&k.ctx, n, &FftOptions::default()).unwrap();
    let gk = GaloisKeys::generate(&k.sk, &q.galois_steps()).unwrap();
    let inputs = [0, 1, 2].map(|i| random_vector(n, 110 + i));
    let [a, b, c] = inputs.each_ref().map(|v| {
        q.encrypt_to_bytes(&k.sk, v)
            .unwrap()
            .iter()
            .map(|bytes| Ctxt::from_bytes(&k.pk, bytes).unwrap())
            .collect::<Vec<_>>()
    });
    let h = q
        .decrypt(&k.sk, &q.apply(&gk, &joined(&[&a, &b, &c])).unwrap())
        .unwrap();
    assert_eq!(
        h,
        plain_quotient(&inputs[0], &inputs[1], &inputs[2], Fr::GENERATOR)
    );
}

/// The secure context: N = 65536 for BN254 (three levels do not fit N = 32768); sizes that
/// are not powers of two are refused.
#[test]
fn quotient_context_sizes() {
    let ctx = quotient_context::<Fr>(4096).unwrap();
    assert_eq!(ctx.ring_degree(), 65536);
    assert!(ctx.security_bits() >= 128.0);
    assert!(matches!(
        quotient_context::<Fr>(1000),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        quotient_context::<Fr>(0),
        Err(Error::InvalidArgument(_))
    ));
}
