//! Encrypted FFT / iFFT against ark-poly, for every power-of-two size up to 2N at N = 2048.

use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use he_fft::{required_ciphertext_bits, DiagonalCache, Direction, Fft, FftOptions, PlanOptions};
use helib_rs::{Context, Error, GaloisKeys, GaloisSteps, PubKey, SecKey};

const N: usize = 2048;

struct Keys {
    ctx: Context,
    sk: SecKey,
    pk: PubKey,
}

/// One toy context (insecure at this N, hence the opt-out) sized for the largest test.
fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let ctx = Context::builder()
            .ring_degree(N as u64)
            .plaintext_field::<Fr>()
            .ciphertext_bits(required_ciphertext_bits(N, 254, 2 * N))
            .allow_insecure(true)
            .build()
            .expect("context");
        let sk = SecKey::generate(&ctx).expect("secret key");
        let pk = PubKey::generate(&sk).expect("public key");
        Keys { ctx, sk, pk }
    })
}

fn random_vector(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| Fr::rand(&mut rng)).collect()
}

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
    let fft = Fft::<Fr>::new(&k.ctx, n, direction, options).expect("plan");
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
        println!("forward n = {n}: budget {b:.1} bits");
    }
}

#[test]
fn inverse_every_size_up_to_2n() {
    for log_n in 0..=12 {
        let n = 1 << log_n;
        let b = check_size(n, Direction::Inverse, &FftOptions::default(), 100 + log_n);
        println!("inverse n = {n}: budget {b:.1} bits");
    }
}
