//! fhe.rs's BFV: N = 8192 slots of a 60-bit plaintext prime, three 62-bit ciphertext primes
//! (186 bits, inside the 218 that 128-bit security allows at this N).

use std::sync::Arc;
use std::time::Duration;

use fhe::bfv::{
    BfvParameters, BfvParametersBuilder, Ciphertext, Encoding, Plaintext, PublicKey, SecretKey,
};
use fhe_traits::{FheDecoder, FheDecrypter, FheEncoder, FheEncrypter, Serialize};

use crate::measure::{median, Figures, WordInputs};

const DEGREE: usize = 8192;
const PLAINTEXT_BITS: u32 = 60;

pub fn measure(budget: Duration) -> Result<Figures, Box<dyn std::error::Error>> {
    let t = fhe_math::zq::primes::generate_prime(
        PLAINTEXT_BITS as usize,
        2 * DEGREE as u64,
        (1u64 << PLAINTEXT_BITS) - 1,
    )
    .ok_or("no 60-bit batching prime")?;
    let params: Arc<BfvParameters> = BfvParametersBuilder::new()
        .set_degree(DEGREE)
        .set_plaintext_modulus(t)
        .set_moduli_sizes(&[62, 62, 62])
        .build_arc()?;
    let mut rng = rand::rng();
    let sk = SecretKey::random(&params, &mut rng);
    let pk = PublicKey::new(&sk, &mut rng);

    let w = WordInputs::new(t, DEGREE, 0x9e37_79b9_7f4a_7c15);
    let (x, y, k) = (&w.x, &w.y, w.k);
    let encode = |v: &[u64]| Plaintext::try_encode(v, Encoding::simd(), &params);

    let (cx, encrypt) = median(5, budget, || -> Result<Ciphertext, fhe::Error> {
        pk.try_encrypt(&encode(x)?, &mut rand::rng())
    });
    let cx = cx?;
    let cy = pk.try_encrypt(&encode(y)?, &mut rng)?;
    let (sum, add) = median(20, budget, || &cx + &cy);
    let pk_const = encode(&vec![k; DEGREE])?;
    let (scaled, mul_const) = median(10, budget, || &cx * &pk_const);
    let py = encode(y)?;
    let (product, mul_plain) = median(10, budget, || &cx * &py);
    let open = |c: &Ciphertext| -> Result<Vec<u64>, fhe::Error> {
        Vec::<u64>::try_decode(&sk.try_decrypt(c)?, Encoding::simd())
    };
    let (decrypted, decrypt) = median(5, budget, || open(&cx));

    let verified = w.check(&decrypted?, &open(&sum)?, &open(&scaled)?, &open(&product)?);

    Ok(Figures {
        scheme: "fhe.rs BFV",
        parameters: format!("N = {DEGREE}, t of {PLAINTEXT_BITS} bits, 3 x 62-bit primes"),
        plaintext_bits: PLAINTEXT_BITS,
        elements: DEGREE,
        encrypt,
        encrypt_online: None,
        add,
        mul_const,
        mul_plain: Some(mul_plain),
        decrypt,
        bytes: cx.to_bytes().len(),
        verified,
    })
}
