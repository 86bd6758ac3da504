//! A party's shares `r_i`, `s_i` of the proof's blinding scalars, and their encryption for
//! the one product `r s` the proof needs.

use ark_ff::PrimeField;
use helib_rs::{Ctxt, PubKey};
use zeroize::Zeroize;

use crate::Error;

/// A party's shares of Groth16's blinding scalars `r = sum r_i` and `s = sum s_i`. Nobody
/// learns `r` or `s`: each party draws its own, and their product `r s`, which `C` needs, is
/// computed on ciphertexts and decrypted to shares. Wiped when dropped.
pub struct Blinding<F: PrimeField> {
    pub(crate) r: F,
    pub(crate) s: F,
}

impl<F: PrimeField> Blinding<F> {
    /// Fresh shares from the operating system's generator.
    pub fn random() -> Result<Self, Error> {
        Ok(Blinding {
            r: random_element()?,
            s: random_element()?,
        })
    }

    /// Given shares: for tests that compare with a proof made with known `r` and `s`. A
    /// proof's blinding must never be reused or guessable.
    pub fn from_values(r: F, s: F) -> Self {
        Blinding { r, s }
    }
}

impl<F: PrimeField> Drop for Blinding<F> {
    fn drop(&mut self) {
        self.r.zeroize();
        self.s.zeroize();
    }
}

/// A uniform field element from 512 bits of the OS generator (bias below `2^-250`).
fn random_element<F: PrimeField>() -> Result<F, Error> {
    let mut wide = [
        helib_rs::threshold::contribution()?,
        helib_rs::threshold::contribution()?,
    ]
    .concat();
    let x = F::from_le_bytes_mod_order(&wide);
    wide.zeroize();
    Ok(x)
}

/// `value` encrypted under `pk` as a constant polynomial, switched down to the fewest primes
/// that still leave a product of two such ciphertexts `margin_bits` of noise budget: the
/// smallest upload for `r s`.
///
/// A product's noise is about the operands' noises times `N`, so its budget is about
/// `2 b - log2 q - log2 N` for operands with budget `b` on modulus `q`; 8 bits more cover the
/// relinearization's noise and the rounding.
pub(crate) fn product_operand<F: PrimeField>(
    pk: &PubKey,
    value: F,
    margin_bits: f64,
) -> Result<Ctxt, Error> {
    let mut ct = pk.encrypt_const(value)?;
    let log_n = (pk.context().ring_degree() as f64).log2();
    let enough = |c: &Ctxt| 2.0 * c.noise_budget() - c.log2_modulus() - log_n - 8.0 >= margin_bits;
    while ct.level() > 1 {
        let mut lower = ct.try_clone()?;
        if lower.mod_switch_to(ct.level() - 1).is_err() || !enough(&lower) {
            break;
        }
        ct = lower;
    }
    Ok(ct)
}
