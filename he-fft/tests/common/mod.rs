//! What the he-fft integration tests share: one toy context with its keys, and random vectors.

use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_ff::{One, Zero};
use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
use ark_std::UniformRand;
use he_fft::{DiagonalCache, EncodedTransform, Matrix, TransformPlan};
use helib_rs::{Context, Ctxt, GaloisKeys, PubKey, SecKey};

/// The ring degree of the tests: small and fast, far from secure.
pub const N: usize = 2048;

/// A context and one key pair on it.
#[allow(dead_code)] // some test files use parts only
pub struct Keys {
    pub ctx: Context,
    pub sk: SecKey,
    pub pk: PubKey,
}

/// One toy context (insecure at this N, hence the opt-out) sized for transforms up to 2N.
pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| toy_keys(he_fft::OneProductFft::<Fr>::ciphertext_bits(N, 2 * N)))
}

/// The same with room for two transforms in a row (two levels).
#[allow(dead_code)] // not every test file chains transforms
pub fn two_level_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| toy_keys(he_fft::OneProductFft::<Fr>::ciphertext_bits(N, 2 * N) + 300))
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

#[allow(dead_code)]
pub type R1csMatrix = Vec<Vec<(Fr, usize)>>;

/// A random satisfied R1CS: variables `[1, inputs, free witnesses, products]`, constraint `j`
/// is `<A_j, z> * <B_j, z> = z[product j]` with `A_j`, `B_j` random combinations of the
/// first variables. Returns the matrices and the full assignment.
#[allow(dead_code)]
pub fn random_r1cs(constraints: usize, inputs: usize, seed: u64) -> ([R1csMatrix; 3], Vec<Fr>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let free = 1 + inputs + 8;
    let mut z: Vec<Fr> = std::iter::once(Fr::one())
        .chain((1..free).map(|_| Fr::rand(&mut rng)))
        .collect();
    let combination = |rng: &mut StdRng| -> Vec<(Fr, usize)> {
        (0..3)
            .map(|_| (Fr::rand(rng), rng.gen_range(0..free)))
            .collect()
    };
    let (mut ma, mut mb, mut mc) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..constraints {
        let (ra, rb) = (combination(&mut rng), combination(&mut rng));
        let value = |row: &[(Fr, usize)], z: &[Fr]| row.iter().map(|&(k, i)| k * z[i]).sum::<Fr>();
        z.push(value(&ra, &z) * value(&rb, &z));
        ma.push(ra);
        mb.push(rb);
        mc.push(vec![(Fr::one(), free + j)]);
    }
    ([ma, mb, mc], z)
}

/// The evaluations on `H` the witness map starts from: each constraint's `<A_j, z>`,
/// `<B_j, z>`, `<C_j, z>`, then the inputs in `a` (ark-groth16's input constraints), zeros.
#[allow(dead_code)]
pub fn evaluations(m: &[R1csMatrix; 3], z: &[Fr], inputs: usize, n: usize) -> [Vec<Fr>; 3] {
    let eval = |mat: &R1csMatrix| {
        let mut v: Vec<Fr> = mat
            .iter()
            .map(|row| row.iter().map(|&(k, i)| k * z[i]).sum())
            .collect();
        v.resize(n, Fr::zero());
        v
    };
    let mut a = eval(&m[0]);
    a[m[0].len()..m[0].len() + inputs].copy_from_slice(&z[..inputs]);
    [a, eval(&m[1]), eval(&m[2])]
}

/// The ciphertexts of several input vectors, one after the other, as a transform of several
/// inputs takes them.
#[allow(dead_code)]
pub fn joined(parts: &[&[Ctxt]]) -> Vec<Ctxt> {
    parts
        .iter()
        .flat_map(|p| p.iter())
        .map(|c| c.try_clone().expect("clone"))
        .collect()
}
