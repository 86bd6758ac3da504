//! An encrypted FFT through the packaged crates, compared with ark-poly's.

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::{Direction, EncryptedTransform, FftOptions, TwoStageFft};
use helib_rs::{Context, GaloisKeys, PubKey, SecKey};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 256;
    let ctx = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Fr>()
        .ciphertext_bits(TwoStageFft::<Fr>::ciphertext_bits(2048, n))
        .allow_insecure(true) // a toy ring, for speed
        .build()?;
    let fft = TwoStageFft::<Fr>::new(&ctx, n, Direction::Forward, &FftOptions::default())?;
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
    let x: Vec<Fr> = (0..n as u64).map(|i| Fr::from(7 * i + 1)).collect();
    let y = fft.decrypt(&sk, &fft.apply(&gk, &fft.encrypt(&pk, &x)?)?)?;
    let expected = Radix2EvaluationDomain::<Fr>::new(n).ok_or("no domain")?.fft(&x);
    if y != expected {
        return Err("the packaged crates' FFT differs from ark-poly's".into());
    }
    println!("package-check: a {n}-point encrypted FFT from the packaged crates equals ark-poly's");
    Ok(())
}
