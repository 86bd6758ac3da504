//! Microsoft SEAL's BFV through sealy: N = 8192 slots of a 60-bit plaintext prime (SEAL's
//! limit), its default 128-bit coefficient modulus.

use std::time::Duration;

use sealy::{
    BFVEncoder, BFVEncryptionParametersBuilder, BFVEvaluator, CoefficientModulusFactory, Context,
    Decryptor, DegreeType, Encryptor, Evaluator, KeyGenerator, PlainModulusFactory, SecurityLevel,
    ToBytes,
};

use crate::measure::{median, Figures, WordInputs};

const PLAINTEXT_BITS: u32 = 60;

pub fn measure(budget: Duration) -> Result<Figures, Box<dyn std::error::Error>> {
    let degree = DegreeType::D8192;
    let params = BFVEncryptionParametersBuilder::new()
        .set_poly_modulus_degree(degree)
        .set_coefficient_modulus(CoefficientModulusFactory::bfv(
            degree,
            SecurityLevel::TC128,
        )?)
        .set_plain_modulus(PlainModulusFactory::batching(degree, PLAINTEXT_BITS)?)
        .build()?;
    let t = params.get_plain_modulus().value();
    let ctx = Context::new(&params, false, SecurityLevel::TC128)?;
    let gen = KeyGenerator::new(&ctx)?;
    let (pk, sk) = (gen.create_public_key(), gen.secret_key());
    let encryptor = Encryptor::with_public_key(&ctx, &pk)?;
    let decryptor = Decryptor::new(&ctx, &sk)?;
    let evaluator = BFVEvaluator::new(&ctx)?;
    let encoder = BFVEncoder::new(&ctx)?;
    let n = encoder.get_slot_count();

    let w = WordInputs::new(t, n, 0x2545_f491_4f6c_dd1d);
    let (x, y, k) = (&w.x, &w.y, w.k);

    let (cx, encrypt) = median(5, budget, || encryptor.encrypt(&encoder.encode_u64(x)?));
    let cx = cx?;
    let cy = encryptor.encrypt(&encoder.encode_u64(y)?)?;
    let (sum, add) = median(20, budget, || evaluator.add(&cx, &cy));
    // A constant is a plaintext with every slot equal to it (encoded once, outside the timing).
    let pk_const = encoder.encode_u64(&vec![k; n])?;
    let (scaled, mul_const) = median(10, budget, || evaluator.multiply_plain(&cx, &pk_const));
    let py = encoder.encode_u64(y)?;
    let (product, mul_plain) = median(10, budget, || evaluator.multiply_plain(&cx, &py));
    let (decrypted, decrypt) = median(5, budget, || encoder.decode_u64(&decryptor.decrypt(&cx)?));

    let open = |c: &sealy::Ciphertext| -> Result<Vec<u64>, sealy::Error> {
        encoder.decode_u64(&decryptor.decrypt(c)?)
    };
    let verified = w.check(
        &decrypted?,
        &open(&sum?)?,
        &open(&scaled?)?,
        &open(&product?)?,
    );

    Ok(Figures {
        scheme: "SEAL BFV (sealy)",
        parameters: format!("N = 8192, t of {PLAINTEXT_BITS} bits, SEAL's 128-bit default modulus"),
        plaintext_bits: PLAINTEXT_BITS,
        elements: n,
        encrypt,
        encrypt_online: None,
        add,
        mul_const,
        mul_plain: Some(mul_plain),
        decrypt,
        bytes: cx.as_bytes()?.len(),
        verified,
    })
}
