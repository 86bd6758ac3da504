//! Fixtures and plain (unencrypted) reference arithmetic shared by the integration tests.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::sync::OnceLock;

use ark_ff::{Field, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use helib_rs::{BatchEncoder, Context, Ctxt, Error, PubKey, SecKey};

/// The plaintext field of every test context: BN254's scalar field.
pub type F = ark_bn254::Fr;

/// Ring degree of the fast test contexts.
pub const N: u64 = 2048;

/// Enough modulus at N = 2048 for three ct x ct multiplications of fresh ciphertexts (each
/// costs ~270 bits of budget with a 254-bit p). Far from 128-bit secure at this N, hence the
/// opt-out in `small_context`.
pub const CIPHERTEXT_BITS: u32 = 1200;

/// A context, one key pair and its public key, built once per test binary.
pub struct Fixture {
    pub ctx: Context,
    pub sk: SecKey,
    pub pk: PubKey,
}

/// A fresh toy context (insecure, small N) with BN254's scalar field as plaintext space.
pub fn small_context(ciphertext_bits: u32) -> Context {
    toy_context(N, ciphertext_bits)
}

/// [`small_context`] at another ring degree.
pub fn toy_context(ring_degree: u64, ciphertext_bits: u32) -> Context {
    Context::builder()
        .ring_degree(ring_degree)
        .plaintext_field::<F>()
        .ciphertext_bits(ciphertext_bits)
        .allow_insecure(true)
        .build()
        .expect("toy context builds")
}

/// A new context and key pair (use when a test needs objects that are not shared).
pub fn new_fixture(ciphertext_bits: u32) -> Fixture {
    new_fixture_with_degree(N, ciphertext_bits)
}

/// [`new_fixture`] at another ring degree.
pub fn new_fixture_with_degree(ring_degree: u64, ciphertext_bits: u32) -> Fixture {
    let ctx = toy_context(ring_degree, ciphertext_bits);
    let sk = SecKey::generate(&ctx).expect("secret key");
    let pk = PubKey::generate(&sk).expect("public key");
    Fixture { ctx, sk, pk }
}

/// The shared fixture of this test binary (key generation happens once).
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| new_fixture(CIPHERTEXT_BITS))
}

/// The slot encoder of the shared fixture, built once per test binary.
pub fn fixture_encoder() -> &'static BatchEncoder<F> {
    static ENC: OnceLock<BatchEncoder<F>> = OnceLock::new();
    ENC.get_or_init(|| BatchEncoder::for_context(&fixture().ctx).expect("encoder"))
}

/// `N` random slot values from the generator of `seed`.
pub fn random_slots(seed: u64) -> Vec<F> {
    random_poly(&mut rng(seed), N as usize)
}

/// A public-key encryption of `slots` under the shared fixture.
pub fn encrypt_fixture_slots(slots: &[F]) -> Ctxt {
    fixture()
        .pk
        .encrypt_slots(fixture_encoder(), slots)
        .expect("encrypt slots")
}

/// `a` and `b` decrypt to the same slots under the shared fixture.
pub fn assert_same_slots(a: &Ctxt, b: &Ctxt) {
    let sk = &fixture().sk;
    assert_eq!(
        sk.decrypt_slots(fixture_encoder(), a).expect("decrypt"),
        sk.decrypt_slots(fixture_encoder(), b).expect("decrypt")
    );
}

/// A deterministic generator, so a failing run can be repeated exactly.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

pub fn random_poly(rng: &mut StdRng, len: usize) -> Vec<F> {
    (0..len).map(|_| F::rand(rng)).collect()
}

pub fn random_elem(rng: &mut StdRng) -> F {
    F::rand(rng)
}

/// `v` zero-padded to `n` coefficients (what decryption returns for a short polynomial).
pub fn padded(v: &[F], n: usize) -> Vec<F> {
    let mut out = v.to_vec();
    out.resize(n, F::zero());
    out
}

pub fn add(a: &[F], b: &[F]) -> Vec<F> {
    a.iter().zip(b).map(|(x, y)| *x + y).collect()
}

pub fn sub(a: &[F], b: &[F]) -> Vec<F> {
    a.iter().zip(b).map(|(x, y)| *x - y).collect()
}

pub fn scale(a: &[F], k: F) -> Vec<F> {
    a.iter().map(|x| *x * k).collect()
}

/// `a * b mod (X^n + 1)` via an FFT of size 2n over F (arkworks), independent of the engine.
pub fn negacyclic_mul(a: &[F], b: &[F], n: usize) -> Vec<F> {
    let domain = Radix2EvaluationDomain::<F>::new(2 * n).expect("2n-point domain exists");
    let mut fa = padded(a, 2 * n);
    let mut fb = padded(b, 2 * n);
    domain.fft_in_place(&mut fa);
    domain.fft_in_place(&mut fb);
    for (x, y) in fa.iter_mut().zip(&fb) {
        *x *= y;
    }
    domain.ifft_in_place(&mut fa);
    // X^n = -1: the upper half of the full product folds back with a sign flip.
    (0..n).map(|i| fa[i] - fa[i + n]).collect()
}

/// Schoolbook `a * b mod (X^n + 1)`, O(n^2): checks `negacyclic_mul` itself on small inputs.
pub fn negacyclic_mul_schoolbook(a: &[F], b: &[F], n: usize) -> Vec<F> {
    let mut out = vec![F::zero(); n];
    for (i, ai) in a.iter().enumerate() {
        for (j, bj) in b.iter().enumerate() {
            let prod = *ai * bj;
            if i + j < n {
                out[i + j] += prod;
            } else {
                out[i + j - n] -= prod;
            }
        }
    }
    out
}

pub fn pow(x: F, e: u64) -> F {
    x.pow([e])
}

/// Decrypts and compares with `expected` (zero-padded to N), with a readable failure.
pub fn assert_decrypts_to(sk: &SecKey, ct: &Ctxt, expected: &[F], what: &str) {
    let got = sk
        .decrypt_poly::<F>(ct)
        .unwrap_or_else(|e| panic!("{what}: decryption failed: {e}"));
    let want = padded(expected, sk.context().ring_degree());
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: coefficient {i} differs: got {}, expected {} ({:?})",
            got[i],
            want[i],
            ct.info()
        );
    }
}

/// The message carried by a string-bearing error, or "" for the unit variants.
pub fn message(e: &Error) -> String {
    match e {
        Error::InvalidArgument(m)
        | Error::InsecureParameters(m)
        | Error::Mismatch(m)
        | Error::NoiseBudgetExhausted(m)
        | Error::MissingKey(m)
        | Error::Level(m)
        | Error::Internal(m)
        | Error::FieldMismatch(m)
        | Error::InvalidLength(m)
        | Error::NoSlots(m)
        | Error::Io(m) => m.clone(),
        _ => String::new(),
    }
}

/// Noise check after an operation: the measured noise must stay under the tracked bound.
pub fn assert_noise_within_bound(sk: &SecKey, ct: &Ctxt, what: &str) {
    let measured = sk.measure_noise(ct).expect("noise measurement");
    assert!(
        measured <= ct.log2_noise_bound(),
        "{what}: measured noise 2^{measured:.1} above the tracked bound 2^{:.1}",
        ct.log2_noise_bound()
    );
}

/// Decrypts the slots of `ct`, compares them with `expected` (zero-padded to the slot count),
/// and checks that the budget is positive and the measured noise under the tracked bound.
pub fn assert_decrypts_to_slots(
    sk: &SecKey,
    enc: &BatchEncoder<F>,
    ct: &Ctxt,
    expected: &[F],
    what: &str,
) {
    let got = sk
        .decrypt_slots(enc, ct)
        .unwrap_or_else(|e| panic!("{what}: decryption failed: {e} ({:?})", ct.info()));
    let want = padded(expected, got.len());
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: slot {i} differs: got {}, expected {} ({:?})",
            got[i],
            want[i],
            ct.info()
        );
    }
    assert!(
        ct.noise_budget() > 0.0,
        "{what}: budget {}",
        ct.noise_budget()
    );
    assert_noise_within_bound(sk, ct, what);
}

/// Plain reference: both slot rows of `v` rotated left by `k` (right for negative `k`).
pub fn plain_rotate_rows(v: &[F], k: i64) -> Vec<F> {
    let half = v.len() / 2;
    let s = k.rem_euclid(half as i64) as usize;
    v.chunks(half)
        .flat_map(|row| (0..half).map(move |j| row[(j + s) % half]))
        .collect()
}
