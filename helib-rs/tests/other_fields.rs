//! The plaintext modulus is any odd prime, not just BN254's: a one-limb field (Goldilocks,
//! 64 bits) and a six-limb field (BLS12-381's 381-bit base field) through the same API.

// arkworks' MontConfig derive emits `cfg(feature = "asm")`, a feature this crate does not have.
#![allow(unexpected_cfgs)]

use ark_ff::fields::{Fp384, Fp64, MontBackend, MontConfig};
use ark_ff::PrimeField;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use helib_rs::{Context, Error, PubKey, SecKey};

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
