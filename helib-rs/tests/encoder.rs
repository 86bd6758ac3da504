//! SIMD packing with `BatchEncoder`: round trips, the slot-order contract (checked against
//! naive evaluation and arkworks' FFT), slotwise arithmetic, rotations by Galois
//! automorphisms, errors, and packing through the encryption API.

mod common;

use ark_ff::{FftField, Field, One, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use common::*;
use helib_rs::{BatchEncoder, Error};

/// Every ring degree the fast tests cover: 8, 16, ..., 8192.
fn degrees() -> impl Iterator<Item = usize> {
    (3..=13).map(|log| 1usize << log)
}

fn encoder(n: usize) -> BatchEncoder<F> {
    BatchEncoder::new(n).unwrap_or_else(|e| panic!("encoder for N = {n}: {e}"))
}

fn mul(a: &[F], b: &[F]) -> Vec<F> {
    a.iter().zip(b).map(|(x, y)| *x * y).collect()
}

/// `v` (two rows of `n/2`) with each row rotated left by `k` (right for negative `k`).
fn rotate_rows(v: &[F], k: i64) -> Vec<F> {
    let row = v.len() / 2;
    let k = k.rem_euclid(row as i64) as usize;
    v.chunks(row)
        .flat_map(|r| r[k..].iter().chain(&r[..k]).copied())
        .collect()
}

fn swap_rows(v: &[F]) -> Vec<F> {
    let row = v.len() / 2;
    v[row..].iter().chain(&v[..row]).copied().collect()
}

/// `3^j mod 2N` and `-3^j mod 2N`: the documented slot exponents, computed independently.
fn documented_exponent(n: usize, slot: usize) -> u64 {
    let m = 2 * n as u64;
    let (row, j) = (slot / (n / 2), slot % (n / 2));
    let e = (0..j).fold(1u64, |e, _| e * 3 % m);
    if row == 0 {
        e
    } else {
        m - e
    }
}

/// The documented `zeta`: the two-adic root of unity raised to `2^(TWO_ADICITY - log2(2N))`.
fn documented_zeta(n: usize) -> F {
    let log_m = (2 * n).trailing_zeros();
    F::TWO_ADIC_ROOT_OF_UNITY.pow([1u64 << (F::TWO_ADICITY - log_m)])
}

fn horner(coeffs: &[F], x: F) -> F {
    coeffs.iter().rev().fold(F::zero(), |acc, c| acc * x + c)
}

#[test]
fn decode_inverts_encode() {
    let mut rng = rng(1);
    for n in [2usize, 4].into_iter().chain(degrees()) {
        let enc = encoder(n);
        assert_eq!(enc.slot_count(), n);
        assert_eq!(enc.ring_degree(), n);
        assert_eq!(enc.row_size(), n / 2);

        let v = random_poly(&mut rng, n);
        let coeffs = enc.encode(&v).expect("encode");
        assert_eq!(coeffs.len(), n);
        assert_eq!(enc.decode(&coeffs), v, "N = {n}, full vector");
        // ... and the other way round: encode inverts decode too.
        let c = random_poly(&mut rng, n);
        assert_eq!(enc.encode(&enc.decode(&c)).expect("encode"), c, "N = {n}");

        for len in [0, 1, n / 2, n - 1] {
            let short = random_poly(&mut rng, len);
            let coeffs = enc.encode(&short).expect("encode");
            assert_eq!(enc.decode(&coeffs), padded(&short, n), "N = {n}, len {len}");
        }
    }
}

#[test]
fn constants_fill_every_slot() {
    let mut rng = rng(2);
    let enc = encoder(64);
    let k = random_elem(&mut rng);
    assert_eq!(enc.decode(&[k]), vec![k; 64]);
    assert_eq!(enc.encode(&[k; 64]).expect("encode"), padded(&[k], 64));
    assert_eq!(enc.encode(&[]).expect("encode"), vec![F::zero(); 64]);
}

#[test]
fn slots_are_evaluations_at_the_documented_exponents() {
    let mut rng = rng(3);
    for n in [2usize, 4, 8, 16, 32, 64, 128] {
        let enc = encoder(n);
        let zeta = documented_zeta(n);
        assert_eq!(enc.root_of_unity(), zeta);
        assert_eq!(
            zeta.pow([n as u64]),
            -F::one(),
            "zeta is a primitive 2N-th root"
        );

        let exponents: Vec<u64> = (0..n).map(|s| documented_exponent(n, s)).collect();
        assert_eq!(enc.slot_exponents(), exponents, "N = {n}");
        // The exponents are exactly the N odd residues mod 2N, each once.
        let mut sorted = exponents.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n as u64).map(|k| 2 * k + 1).collect::<Vec<_>>());

        let coeffs = random_poly(&mut rng, n);
        let slots = enc.decode(&coeffs);
        for (s, e) in exponents.iter().enumerate() {
            assert_eq!(
                slots[s],
                horner(&coeffs, zeta.pow([*e])),
                "N = {n}, slot {s}"
            );
        }
    }
}

#[test]
fn slots_match_arkworks_fft_over_2n_points() {
    // An FFT of size 2N evaluates m at every power of arkworks' 2N-th root, the odd ones
    // being the slots.
    let mut rng = rng(4);
    for n in degrees() {
        let enc = encoder(n);
        let domain = Radix2EvaluationDomain::<F>::new(2 * n).expect("domain");
        assert_eq!(
            domain.group_gen(),
            enc.root_of_unity(),
            "same zeta as arkworks"
        );
        let coeffs = random_poly(&mut rng, n);
        let evals = domain.fft(&coeffs);
        let expected: Vec<F> = enc
            .slot_exponents()
            .iter()
            .map(|&e| evals[e as usize])
            .collect();
        assert_eq!(enc.decode(&coeffs), expected, "N = {n}");
    }
}

#[test]
fn encoding_is_linear() {
    let mut rng = rng(5);
    for n in degrees() {
        let enc = encoder(n);
        let a = random_poly(&mut rng, n);
        let b = random_poly(&mut rng, n);
        let k = random_elem(&mut rng);
        let ea = enc.encode(&a).expect("encode");
        let eb = enc.encode(&b).expect("encode");
        assert_eq!(enc.decode(&add(&ea, &eb)), add(&a, &b), "N = {n}, sum");
        assert_eq!(
            enc.decode(&sub(&ea, &eb)),
            sub(&a, &b),
            "N = {n}, difference"
        );
        assert_eq!(enc.decode(&scale(&ea, k)), scale(&a, k), "N = {n}, scalar");
        assert_eq!(enc.encode(&add(&a, &b)).expect("encode"), add(&ea, &eb));
    }
}

#[test]
fn negacyclic_products_are_slotwise_products() {
    let mut rng = rng(6);
    for n in degrees() {
        let enc = encoder(n);
        let a = random_poly(&mut rng, n);
        let b = random_poly(&mut rng, n);
        let ea = enc.encode(&a).expect("encode");
        let eb = enc.encode(&b).expect("encode");
        let product = if n <= 256 {
            negacyclic_mul_schoolbook(&ea, &eb, n)
        } else {
            negacyclic_mul(&ea, &eb, n)
        };
        assert_eq!(enc.decode(&product), mul(&a, &b), "N = {n}");
    }
}

#[test]
fn decode_reduces_long_polynomials_modulo_x_n_plus_1() {
    let mut rng = rng(7);
    let n = 16;
    let enc = encoder(n);
    // A polynomial of degree < 3N and its reduction mod X^N + 1 have the same slots.
    let long = random_poly(&mut rng, 3 * n - 5);
    let mut reduced = vec![F::zero(); n];
    for (i, c) in long.iter().enumerate() {
        if (i / n) % 2 == 0 {
            reduced[i % n] += c;
        } else {
            reduced[i % n] -= c;
        }
    }
    assert_eq!(enc.decode(&long), enc.decode(&reduced));
    let zeta = enc.root_of_unity();
    let slots = enc.decode(&long);
    for (s, e) in enc.slot_exponents().iter().enumerate() {
        assert_eq!(slots[s], horner(&long, zeta.pow([*e])));
    }
}

#[test]
fn galois_elements_are_powers_of_three() {
    let enc = encoder(64); // 2N = 128, rows of 32
    assert_eq!(enc.galois_element_for_rotation(0), 1);
    assert_eq!(enc.galois_element_for_rotation(1), 3);
    assert_eq!(enc.galois_element_for_rotation(4), 81);
    assert_eq!(enc.galois_element_for_rotation(5), 243 % 128);
    assert_eq!(enc.galois_element_for_rotation(32), 1);
    assert_eq!(enc.galois_element_for_rotation(33), 3);
    assert_eq!(
        enc.galois_element_for_rotation(-1),
        enc.galois_element_for_rotation(31)
    );
    assert_eq!(
        enc.galois_element_for_rotation(i64::MIN),
        enc.galois_element_for_rotation(0),
        "i64::MIN is a multiple of the row size"
    );
    // g(-k) * g(k) = 1 mod 2N.
    for k in 0..32 {
        let g = enc.galois_element_for_rotation(k);
        let g_inv = enc.galois_element_for_rotation(-k);
        assert_eq!(g * g_inv % 128, 1, "k = {k}");
    }
    assert_eq!(enc.galois_element_row_swap(), 127);
}

#[test]
fn galois_rotations_rotate_each_row() {
    let mut rng = rng(8);
    for n in degrees() {
        let enc = encoder(n);
        let half = (n / 2) as i64;
        let v = random_poly(&mut rng, n);
        let coeffs = enc.encode(&v).expect("encode");
        for k in [1, 2, 5, -1, -3, half - 1, half, half + 1, -half] {
            let g = enc.galois_element_for_rotation(k);
            let rotated = enc.decode(&enc.apply_galois(&coeffs, g));
            assert_eq!(rotated, rotate_rows(&v, k), "N = {n}, left by {k}");
        }
        // Right by k is left by N/2 - k.
        for k in [1, 3] {
            assert_eq!(
                enc.galois_element_for_rotation(-k),
                enc.galois_element_for_rotation(half - k)
            );
        }
    }
}

#[test]
fn galois_rotations_compose() {
    let mut rng = rng(9);
    for n in [8usize, 64, 1024] {
        let enc = encoder(n);
        let m = 2 * n as u64;
        let v = random_poly(&mut rng, n);
        let coeffs = enc.encode(&v).expect("encode");
        for (k1, k2) in [(1, 1), (2, 5), (-1, 1), (-3, 7), (3, -5)] {
            let (g1, g2) = (
                enc.galois_element_for_rotation(k1),
                enc.galois_element_for_rotation(k2),
            );
            let twice = enc.apply_galois(&enc.apply_galois(&coeffs, g1), g2);
            // Automorphisms compose by multiplying Galois elements ...
            assert_eq!(twice, enc.apply_galois(&coeffs, g1 * g2 % m));
            // ... and rotations by adding steps.
            assert_eq!(
                enc.decode(&twice),
                rotate_rows(&v, k1 + k2),
                "N = {n}, {k1} then {k2}"
            );
        }
        // Rotate, swap rows, rotate back: rows swapped, nothing else.
        let swap = enc.galois_element_row_swap();
        let g = enc.galois_element_for_rotation(3);
        let g_back = enc.galois_element_for_rotation(-3);
        let out = enc.apply_galois(
            &enc.apply_galois(&enc.apply_galois(&coeffs, g), swap),
            g_back,
        );
        assert_eq!(enc.decode(&out), swap_rows(&v), "N = {n}");
    }
}

#[test]
fn row_swap_swaps_rows() {
    let mut rng = rng(10);
    for n in [2usize, 4].into_iter().chain(degrees()) {
        let enc = encoder(n);
        let v = random_poly(&mut rng, n);
        let coeffs = enc.encode(&v).expect("encode");
        let swap = enc.galois_element_row_swap();
        assert_eq!(swap, 2 * n as u64 - 1);
        let swapped = enc.apply_galois(&coeffs, swap);
        assert_eq!(enc.decode(&swapped), swap_rows(&v), "N = {n}");
        assert_eq!(enc.apply_galois(&swapped, swap), coeffs, "an involution");
    }
}

#[test]
fn apply_galois_is_substitution() {
    let mut rng = rng(11);
    let n = 16;
    let enc = encoder(n);
    let zeta = enc.root_of_unity();
    let coeffs = random_poly(&mut rng, n);
    // m(X^g) at X = zeta^e is m(zeta^(g e)), for every g (odd or even) and e.
    for g in [1u64, 2, 3, 5, 31, 32, 33, 1000] {
        let out = enc.apply_galois(&coeffs, g);
        for e in [1u64, 3, 7, 29] {
            let x = zeta.pow([e]);
            assert_eq!(
                horner(&out, x),
                horner(&coeffs, x.pow([g])),
                "g = {g}, e = {e}"
            );
        }
    }
    // Identity, short inputs, and inputs past N (reduced like decode does).
    assert_eq!(enc.apply_galois(&coeffs, 1), coeffs);
    assert_eq!(enc.apply_galois(&coeffs, 2 * n as u64 + 1), coeffs);
    assert_eq!(enc.apply_galois(&[], 3), vec![F::zero(); n]);
    let long = random_poly(&mut rng, 2 * n + 3);
    assert_eq!(
        enc.decode(&enc.apply_galois(&long, 3)),
        enc.decode(&enc.apply_galois(&enc.encode(&enc.decode(&long)).unwrap(), 3))
    );
}

#[test]
fn bad_ring_degrees_are_invalid_arguments() {
    for n in [0usize, 1, 3, 6, 1000, 4095, usize::MAX] {
        match BatchEncoder::<F>::new(n) {
            Err(Error::InvalidArgument(msg)) => {
                assert!(msg.contains("power of two"), "N = {n}: {msg}")
            }
            other => panic!("N = {n}: expected InvalidArgument, got {other:?}"),
        }
    }
}

#[test]
fn too_many_values_is_an_invalid_length() {
    let enc = encoder(8);
    let err = enc.encode(&[F::one(); 9]).unwrap_err();
    assert!(matches!(err, Error::InvalidLength(_)), "{err:?}");
    assert!(message(&err).contains('9'), "{err}");
}

#[test]
fn fields_without_enough_two_adicity_have_no_slots() {
    // BN254's p - 1 = 2^28 * odd: N = 2^27 is the largest ring with slots.
    assert_eq!(F::TWO_ADICITY, 28);
    for log_n in [28u32, 29, 40, 63] {
        let err = BatchEncoder::<F>::new(1usize << log_n).unwrap_err();
        assert!(matches!(err, Error::NoSlots(_)), "N = 2^{log_n}: {err:?}");
        assert!(message(&err).contains("2^28"), "{err}");
    }
    // BN254's base field: q = 3 mod 4, so not even N = 2 has slots.
    type Fq = ark_bn254::Fq;
    assert_eq!(Fq::TWO_ADICITY, 1);
    for n in [2usize, 4, 2048] {
        let err = BatchEncoder::<Fq>::new(n).unwrap_err();
        assert!(matches!(err, Error::NoSlots(_)), "N = {n}: {err:?}");
    }
}

#[test]
fn for_context_checks_the_field() {
    let ctx = &fixture().ctx;
    let enc = BatchEncoder::<F>::for_context(ctx).expect("encoder");
    assert_eq!(enc.slot_count(), ctx.ring_degree());
    assert!(ctx.slots_available());

    let err = BatchEncoder::<ark_bn254::Fq>::for_context(ctx).unwrap_err();
    assert!(matches!(err, Error::FieldMismatch(_)), "{err:?}");
}

#[test]
fn encoder_is_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<BatchEncoder<F>>();
    let enc = encoder(1024);
    let v: Vec<F> = (0..1024u64).map(F::from).collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| assert_eq!(enc.decode(&enc.encode(&v).unwrap()), v));
        }
    });
    let dbg = format!("{enc:?}");
    assert!(dbg.contains("1024"), "{dbg}");
}

#[test]
fn packed_arithmetic_through_encryption() {
    let Fixture { ctx, sk, pk } = fixture();
    let enc = BatchEncoder::<F>::for_context(ctx).expect("encoder");
    let n = enc.slot_count();
    let mut rng = rng(12);
    let a = random_poly(&mut rng, n);
    let b = random_poly(&mut rng, n);
    let c = random_poly(&mut rng, n);

    // Enc(a) * b + c, with b and c as plaintext polynomials: slotwise a*b + c.
    let mut ct = pk.encrypt_poly(&enc.encode(&a).unwrap()).expect("encrypt");
    ct.mul_poly(&enc.encode(&b).unwrap()).expect("mul_poly");
    ct.add_poly(&enc.encode(&c).unwrap()).expect("add_poly");
    let got = enc.decode(&sk.decrypt_poly::<F>(&ct).expect("decrypt"));
    assert_eq!(got, add(&mul(&a, &b), &c));
    assert_noise_within_bound(sk, &ct, "Enc(a) * b + c");

    // Enc(a) * Enc(b) + Enc(c), a short vector padded with zero slots.
    let short = &c[..n / 3];
    let ca = pk.encrypt_poly(&enc.encode(&a).unwrap()).expect("encrypt");
    let cb = pk.encrypt_poly(&enc.encode(&b).unwrap()).expect("encrypt");
    let cc = pk
        .encrypt_poly(&enc.encode(short).unwrap())
        .expect("encrypt");
    let prod = ((&ca * &cb).expect("mul") + &cc).expect("add");
    let got = enc.decode(&sk.decrypt_poly::<F>(&prod).expect("decrypt"));
    assert_eq!(got, add(&mul(&a, &b), &padded(short, n)));

    // A scalar multiplies every slot.
    let k = random_elem(&mut rng);
    let mut scaled = ca.try_clone().expect("clone");
    scaled.mul_const(k).expect("mul_const");
    let got = enc.decode(&sk.decrypt_poly::<F>(&scaled).expect("decrypt"));
    assert_eq!(got, scale(&a, k));
}
