//! [`Computation`]: what the owner knows of how a result it asked for was computed, so that
//! decryption does not take a ciphertext's plaintext factor on the bytes' word.

use helib_bindings as sys;

use crate::error::{check, Result};
use crate::Ctxt;

/// How a ciphertext the owner asked for was computed from fresh encryptions. It fixes the
/// plaintext factor the result carries at its level, so a factor field altered in transit (or
/// by a server) is refused with [`Error::Mismatch`](crate::Error::Mismatch) instead of
/// scaling the decrypted values by a wrong constant.
///
/// Modulus switching multiplies a ciphertext's factor by `q^-1` for each prime `q` it drops,
/// and a ciphertext product multiplies two factors; nothing else changes it. So a result at
/// level `l` has one factor if it was computed linearly, and one of at most `L` factors if it
/// went through one product.
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{Computation, Context, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size, insecure
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let mut ct = pk.encrypt_const(Fr::from(5u64))?;
/// ct.mod_switch_down()?; // what a server may do
/// assert_eq!(sk.decrypt_poly_expecting::<Fr>(&ct, Computation::Linear)?[0], Fr::from(5u64));
///
/// let product = ct.checked_square()?; // 25, not a linear result
/// assert!(sk.decrypt_poly_expecting::<Fr>(&product, Computation::Linear).is_err());
/// assert_eq!(sk.decrypt_poly_expecting::<Fr>(&product, Computation::OneProduct)?[0], Fr::from(25u64));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Computation {
    /// Additions, products by plaintexts and constants, rotations and modulus switching: every
    /// FFT route, every matrix product and an aggregation's sum.
    Linear,
    /// The same with at most one ciphertext product: the witness maps.
    OneProduct,
}

impl Computation {
    fn rule(self) -> u32 {
        match self {
            Computation::Linear => sys::HELIB_FACTOR_LINEAR as u32,
            Computation::OneProduct => sys::HELIB_FACTOR_ONE_PRODUCT as u32,
        }
    }
}

impl Ctxt {
    /// Checks that the ciphertext's plaintext factor is one that `computation` gives at its
    /// level; [`Error::Mismatch`](crate::Error::Mismatch) when it is not.
    pub fn check_factor(&self, computation: Computation) -> Result<()> {
        // SAFETY: the handle is live and only read.
        check(unsafe { sys::helib_ctxt_check_factor(self.as_ptr(), computation.rule()) })
    }
}
