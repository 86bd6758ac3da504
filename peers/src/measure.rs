//! One row of the table, and the timer every scheme is measured with.

use std::time::{Duration, Instant};

use serde::Serialize;

/// One scheme's figures, per ciphertext and per element, measured on one core.
#[derive(Serialize, Clone, Debug)]
pub struct Row {
    pub scheme: String,
    pub parameters: String,
    pub plaintext_bits: u32,
    pub elements_per_ciphertext: usize,
    pub encrypt_s: f64,
    /// Encryption with its randomness precomputed offline, where the scheme has such a form.
    pub encrypt_online_s: Option<f64>,
    pub add_s: f64,
    pub mul_const_s: f64,
    /// A slot-wise product by a plaintext vector, where the packing has one.
    pub mul_plain_s: Option<f64>,
    pub decrypt_s: f64,
    pub ciphertext_bytes: usize,
    pub encrypt_per_element_s: f64,
    pub add_per_element_s: f64,
    pub decrypt_per_element_s: f64,
    pub bytes_per_element: f64,
    /// Ciphertexts (and so encryption time and bytes) per 254-bit value: 1 for schemes whose
    /// plaintext holds it, else the plaintext moduli a CRT split across needs (additions
    /// only: products modulo BN254's p do not split that way).
    pub ciphertexts_per_254_bit_value: u32,
    pub verified: bool,
}

/// Per-ciphertext timings and sizes of one scheme, turned into a [`Row`].
pub struct Figures {
    pub scheme: &'static str,
    pub parameters: String,
    pub plaintext_bits: u32,
    pub elements: usize,
    pub encrypt: Duration,
    pub encrypt_online: Option<Duration>,
    pub add: Duration,
    pub mul_const: Duration,
    pub mul_plain: Option<Duration>,
    pub decrypt: Duration,
    pub bytes: usize,
    pub verified: bool,
}

impl Figures {
    pub fn row(self) -> Row {
        let e = self.elements as f64;
        Row {
            scheme: self.scheme.into(),
            parameters: self.parameters,
            plaintext_bits: self.plaintext_bits,
            elements_per_ciphertext: self.elements,
            encrypt_s: self.encrypt.as_secs_f64(),
            encrypt_online_s: self.encrypt_online.map(|d| d.as_secs_f64()),
            add_s: self.add.as_secs_f64(),
            mul_const_s: self.mul_const.as_secs_f64(),
            mul_plain_s: self.mul_plain.map(|d| d.as_secs_f64()),
            decrypt_s: self.decrypt.as_secs_f64(),
            ciphertext_bytes: self.bytes,
            encrypt_per_element_s: self.encrypt.as_secs_f64() / e,
            add_per_element_s: self.add.as_secs_f64() / e,
            decrypt_per_element_s: self.decrypt.as_secs_f64() / e,
            bytes_per_element: self.bytes as f64 / e,
            ciphertexts_per_254_bit_value: if self.plaintext_bits >= 254 {
                1
            } else {
                254u32.div_ceil(self.plaintext_bits.saturating_sub(1).max(1))
            },
            verified: self.verified,
        }
    }
}

/// The median time of `f` over at least `min_runs` runs and about `budget` of wall time. The
/// previous run's result is dropped outside the timed region.
pub fn median<T>(min_runs: usize, budget: Duration, mut f: impl FnMut() -> T) -> (T, Duration) {
    let start = Instant::now();
    let mut times = Vec::new();
    let mut out;
    loop {
        let t = Instant::now();
        let result = f();
        times.push(t.elapsed());
        out = result;
        if times.len() >= min_runs && (start.elapsed() >= budget || times.len() >= 1000) {
            break;
        }
    }
    times.sort();
    (out, times[times.len() / 2])
}

/// The plain inputs of the schemes with word-sized plaintexts (SEAL, fhe.rs): two vectors and a
/// constant below `t`, from a fixed xorshift sequence (a benchmark needs no CSPRNG), and the
/// check of their results.
pub struct WordInputs {
    pub t: u64,
    pub x: Vec<u64>,
    pub y: Vec<u64>,
    pub k: u64,
}

impl WordInputs {
    pub fn new(t: u64, n: usize, seed: u64) -> Self {
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % t
        };
        let x = (0..n).map(|_| next()).collect();
        let y = (0..n).map(|_| next()).collect();
        let k = next();
        WordInputs { t, x, y, k }
    }

    fn mul(&self, a: u64, b: u64) -> u64 {
        ((a as u128 * b as u128) % self.t as u128) as u64
    }

    /// Whether the decrypted `x`, `x + y`, `k x` and `x y` (slot-wise, mod `t`) are right.
    pub fn check(&self, x: &[u64], sum: &[u64], scaled: &[u64], product: &[u64]) -> bool {
        let pairs = || self.x.iter().zip(&self.y);
        x == self.x
            && sum.iter().eq(pairs()
                .map(|(a, b)| (a + b) % self.t)
                .collect::<Vec<_>>()
                .iter())
            && scaled.iter().eq(self
                .x
                .iter()
                .map(|&a| self.mul(a, self.k))
                .collect::<Vec<_>>()
                .iter())
            && product.iter().eq(pairs()
                .map(|(&a, &b)| self.mul(a, b))
                .collect::<Vec<_>>()
                .iter())
    }
}
