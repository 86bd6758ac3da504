//! Paillier at a 3072-bit modulus (kzen-paillier over GMP): one element per ciphertext, with
//! r^n precomputed for the online encryption and CRT decryption.

use std::time::Duration;

use curv::arithmetic::traits::{Converter, Samplable};
use kzen_paillier::{
    Add, BigInt, Decrypt, Encrypt, EncryptWithChosenRandomness, KeyGeneration, Mul, Paillier,
    PrecomputeRandomness, RawCiphertext, RawPlaintext,
};

use crate::measure::{median, Figures};

/// The modulus size NIST pairs with 128-bit security.
const MODULUS_BITS: usize = 3072;

pub fn measure(budget: Duration) -> Result<Figures, Box<dyn std::error::Error>> {
    let (ek, dk) = Paillier::keypair_with_modulus_size(MODULUS_BITS).keys();
    // A BN254-sized value and constant (254 bits).
    let x = BigInt::from_str_radix(
        "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80",
        16,
    )?;
    let y = BigInt::from_str_radix(
        "0fedcba9876543210fedcba9876543210fedcba9876543210fedcba98765432",
        16,
    )?;
    let k = BigInt::from_str_radix(
        "123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",
        16,
    )?;

    let ct = |c: RawCiphertext| -> BigInt { c.into() };
    let (cx, encrypt) = median(5, budget, || {
        ct(Paillier::encrypt(&ek, RawPlaintext::from(&x)))
    });
    let cy = ct(Paillier::encrypt(&ek, RawPlaintext::from(&y)));
    // Offline: r^n mod n^2 for a fresh r; online: one product.
    let r = BigInt::sample_below(&ek.n);
    let rn = Paillier::precompute(&ek, &r);
    let (_, encrypt_online) = median(20, budget, || {
        ct(Paillier::encrypt_with_chosen_randomness(
            &ek,
            RawPlaintext::from(&x),
            &rn,
        ))
    });
    let (sum, add) = median(20, budget, || {
        ct(Paillier::add(
            &ek,
            RawCiphertext::from(&cx),
            RawCiphertext::from(&cy),
        ))
    });
    let (scaled, mul_const) = median(10, budget, || {
        ct(Paillier::mul(
            &ek,
            RawCiphertext::from(&cx),
            RawPlaintext::from(&k),
        ))
    });
    let plain = |c: &BigInt| -> BigInt { Paillier::decrypt(&dk, &RawCiphertext::from(c)).into() };
    let (decrypted, decrypt) = median(5, budget, || plain(&cx));

    let n = &ek.n;
    let verified =
        decrypted == x && plain(&sum) == (&x + &y) % n && plain(&scaled) == (&x * &k) % n;
    let bytes = cx.to_bytes().len();
    Ok(Figures {
        scheme: "Paillier-3072 (kzen-paillier)",
        parameters: format!("n of {MODULUS_BITS} bits, r^n precomputed online, CRT decryption"),
        plaintext_bits: MODULUS_BITS as u32,
        elements: 1,
        encrypt,
        encrypt_online: Some(encrypt_online),
        add,
        mul_const,
        // One element per ciphertext: a plaintext vector is a constant per element.
        mul_plain: Some(mul_const),
        decrypt,
        bytes,
        verified,
    })
}
