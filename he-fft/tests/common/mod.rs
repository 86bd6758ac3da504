//! What the he-fft integration tests share: one toy context with its keys, and random vectors.

use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use he_fft::{
    quotient_ciphertext_bits, required_ciphertext_bits, DiagonalCache, EncodedTransform, Matrix,
    TransformPlan,
};
use helib_rs::{Context, Ctxt, GaloisKeys, PubKey, SecKey};

/// The ring degree of the tests: small and fast, far from secure.
pub const N: usize = 2048;

pub struct Keys {
    pub ctx: Context,
    pub sk: SecKey,
    pub pk: PubKey,
}

/// One toy context (insecure at this N, hence the opt-out) sized for transforms up to 2N.
pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| toy_keys(required_ciphertext_bits(N, 254, 2 * N)))
}

/// The same with room for two transforms in a row (two levels).
#[allow(dead_code)] // not every test file chains transforms
pub fn two_level_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| toy_keys(required_ciphertext_bits(N, 254, 2 * N) + 300))
}

/// The same with room for a quotient (three levels).
#[allow(dead_code)]
pub fn quotient_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| toy_keys(quotient_ciphertext_bits(N, 254, 2 * N)))
}

#[allow(dead_code)] // public for test files with contexts of their own
pub fn toy_keys(bits: u32) -> Keys {
    let ctx = Context::builder()
        .ring_degree(N as u64)
        .plaintext_field::<Fr>()
        .ciphertext_bits(bits)
        .allow_insecure(true)
        .build()
        .expect("context");
    let sk = SecKey::generate(&ctx).expect("secret key");
    let pk = PubKey::generate(&sk).expect("public key");
    Keys { ctx, sk, pk }
}

pub fn random_vector(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| Fr::rand(&mut rng)).collect()
}

/// `m` through `plan` on the encrypted `ct`, decrypted.
#[allow(dead_code)]
pub fn decrypted_product(
    plan: &TransformPlan,
    m: Matrix<Fr>,
    cache: DiagonalCache,
    gk: &GaloisKeys,
    ct: &[Ctxt],
) -> Vec<Fr> {
    let k = keys();
    let encoded = EncodedTransform::new(&k.ctx, plan, m, cache).expect("encoding");
    let y = plan.execute(&encoded, gk, ct).expect("product");
    plan.output_layout()
        .decrypt::<Fr>(&k.ctx, &k.sk, &y)
        .expect("decrypt")
}
