//! The plaintext modulus is any odd prime, not just BN254's: a one-limb field (Goldilocks,
//! 64 bits) and a six-limb field (BLS12-381's 381-bit base field) through the same API, and
//! slots over fields the encoder's integer fast path does not take (it needs four limbs and
//! p < 2^254): Goldilocks and BLS12-381's 255-bit scalar field.

// arkworks' MontConfig derive emits `cfg(feature = "asm")`, a feature this crate does not have.
#![allow(unexpected_cfgs)]

use ark_ff::fields::{Fp256, Fp384, Fp64, MontBackend, MontConfig};
use ark_ff::{FftField, PrimeField, UniformRand};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use helib_rs::{BatchEncoder, Context, EncodedPtxt, Error, PubKey, SecKey};

#[derive(MontConfig)]
#[modulus = "18446744069414584321"]
#[generator = "7"]
struct GoldilocksConfig;
/// p = 2^64 - 2^32 + 1: one limb with the top bit set.
type Goldilocks = Fp64<MontBackend<GoldilocksConfig, 1>>;

#[derive(MontConfig)]
#[modulus = "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787"]
#[generator = "2"]
struct Bls381BaseConfig;
/// BLS12-381's base field: 381 bits, six limbs.
type Bls381Base = Fp384<MontBackend<Bls381BaseConfig, 6>>;

#[derive(MontConfig)]
#[modulus = "52435875175126190479447740508185965837690552500527637822603658699938581184513"]
#[generator = "7"]
struct Bls381ScalarConfig;
/// BLS12-381's scalar field: 255 bits in four limbs, one bit short of the fast path.
type Bls381Scalar = Fp256<MontBackend<Bls381ScalarConfig, 4>>;

fn negacyclic<F: PrimeField>(a: &[F], b: &[F], n: usize) -> Vec<F> {
    let mut out = vec![F::zero(); n];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            if i + j < n {
                out[i + j] += *x * y;
            } else {
                out[i + j - n] -= *x * y;
            }
        }
    }
    out
}

fn roundtrip_and_arithmetic<F: PrimeField>(ciphertext_bits: u32, expected_limbs: usize) {
    let ctx = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<F>()
        .ciphertext_bits(ciphertext_bits)
        .allow_insecure(true)
        .build()
        .expect("context");
    assert_eq!(ctx.plaintext_bits(), F::MODULUS_BIT_SIZE);
    assert_eq!(ctx.plaintext_limbs(), expected_limbs);
    let n = ctx.ring_degree();
    let sk = SecKey::generate(&ctx).expect("key");
    let pk = PubKey::generate(&sk).expect("key");
    let mut rng = StdRng::seed_from_u64(70);
    let a: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    // A short multiplier keeps the schoolbook reference cheap.
    let b: Vec<F> = (0..16).map(|_| F::rand(&mut rng)).collect();
    let k = F::rand(&mut rng);

    let ca = pk.encrypt_poly(&a).expect("encrypt");
    assert_eq!(sk.decrypt_poly::<F>(&ca).expect("decrypt"), a);

    let edge = [F::zero(), F::one(), -F::one()];
    let ce = pk.encrypt_poly(&edge).expect("encrypt");
    let got = sk.decrypt_poly::<F>(&ce).expect("decrypt");
    assert_eq!(&got[..3], &edge);

    let mut scaled = ca.clone();
    scaled.mul_const(k).expect("mul_const");
    let expected: Vec<F> = a.iter().map(|x| *x * k).collect();
    assert_eq!(sk.decrypt_poly::<F>(&scaled).expect("decrypt"), expected);

    let cb = pk.encrypt_poly(&b).expect("encrypt");
    let prod = (&ca * &cb).expect("mul");
    assert_eq!(
        sk.decrypt_poly::<F>(&prod).expect("decrypt"),
        negacyclic(&a, &b, n)
    );
    let measured = sk.measure_noise(&prod).expect("measure");
    assert!(measured <= prod.log2_noise_bound());

    // And the BN254 field does not fit this context.
    let err = pk
        .encrypt_const(ark_bn254::Fr::from(1u64))
        .expect_err("wrong field");
    assert!(matches!(err, Error::FieldMismatch(_)), "{err:?}");
}

#[test]
fn goldilocks_one_limb() {
    roundtrip_and_arithmetic::<Goldilocks>(600, 1);
}

#[test]
fn bls12_381_base_field_six_limbs() {
    roundtrip_and_arithmetic::<Bls381Base>(1500, 6);
}

#[test]
fn small_prime_allows_deep_circuits() {
    // A 64-bit p leaves room for many products in the same modulus that holds two for BN254.
    let ctx = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Goldilocks>()
        .ciphertext_bits(1200)
        .allow_insecure(true)
        .build()
        .expect("context");
    let sk = SecKey::generate(&ctx).expect("key");
    let pk = PubKey::generate(&sk).expect("key");
    let x = Goldilocks::from(3u64);
    let mut ct = pk.encrypt_const(x).expect("encrypt");
    let mut plain = x;
    for depth in 1..=6 {
        ct.square().expect("square");
        plain *= plain;
        assert_eq!(
            sk.decrypt_const::<Goldilocks>(&ct).expect("decrypt"),
            plain,
            "depth {depth}"
        );
    }
}

/// Slot `s` of `decode(c)` is `c` evaluated at `zeta^e_s`, and `encode` inverts `decode`.
fn slots_are_evaluations<F: PrimeField + FftField>() {
    let n = 64;
    let enc = BatchEncoder::<F>::new(n).expect("encoder");
    let mut rng = StdRng::seed_from_u64(71);
    let coeffs: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    let slots = enc.decode(&coeffs);
    let zeta = enc.root_of_unity();
    for (slot, e) in slots.iter().zip(enc.slot_exponents()) {
        let x = zeta.pow([e]);
        let value = coeffs.iter().rev().fold(F::zero(), |acc, c| acc * x + c);
        assert_eq!(*slot, value, "exponent {e}");
    }
    assert_eq!(enc.encode(&slots).expect("encode"), coeffs);
}

#[test]
fn encoder_over_fields_off_the_fast_path() {
    slots_are_evaluations::<Goldilocks>();
    slots_are_evaluations::<Bls381Scalar>();
    // And on it, for comparison.
    slots_are_evaluations::<ark_bn254::Fr>();
}

#[test]
fn packed_arithmetic_over_bls12_381_scalars() {
    let ctx = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Bls381Scalar>()
        .ciphertext_bits(600)
        .allow_insecure(true)
        .build()
        .expect("context");
    let enc = BatchEncoder::<Bls381Scalar>::for_context(&ctx).expect("encoder");
    let sk = SecKey::generate(&ctx).expect("key");
    let pk = PubKey::generate(&sk).expect("key");
    let mut rng = StdRng::seed_from_u64(72);
    let a: Vec<Bls381Scalar> = (0..2048).map(|_| Bls381Scalar::rand(&mut rng)).collect();
    let b: Vec<Bls381Scalar> = (0..2048).map(|_| Bls381Scalar::rand(&mut rng)).collect();
    let mut ct = pk.encrypt_slots(&enc, &a).expect("encrypt");
    let pt = EncodedPtxt::from_slots(&ctx, &enc, &b, None).expect("encode");
    ct.mul_ptxt(&pt).expect("multiply");
    let expected: Vec<Bls381Scalar> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    assert_eq!(sk.decrypt_slots(&enc, &ct).expect("decrypt"), expected);
}
