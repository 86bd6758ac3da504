//! Homomorphic arithmetic on [`Ctxt`]: in-place methods, `checked_*` methods that return a
//! new ciphertext, and operators on references.
//!
//! Every operation can fail (mismatched operands, noise budget used up), so the operators
//! return `Result<Ctxt>` rather than `Ctxt`: `(&a + &b)?`.

use std::ops::{Add, Mul, Neg, Sub};

use ark_ff::PrimeField;
use helib_bindings as sys;

use crate::ctxt::Ctxt;
use crate::error::Result;
use crate::field_limbs::{encode_const, encode_poly};

impl Ctxt {
    /// In place: `self <- self + other`. The operand at the higher level is switched down to
    /// the other's level first.
    pub fn add_assign(&mut self, other: &Ctxt) -> Result<()> {
        self.ensure_compatible(other)?;
        let b = other.as_ptr();
        // SAFETY: `a` is this ciphertext's live handle, exclusively borrowed; `b` is a live,
        // distinct handle (Rust forbids `x.add_assign(&x)`) that the engine only reads.
        self.modify(|a| unsafe { sys::helib_ctxt_add(a, b) })
    }

    /// In place: `self <- self - other`.
    pub fn sub_assign(&mut self, other: &Ctxt) -> Result<()> {
        self.ensure_compatible(other)?;
        let b = other.as_ptr();
        // SAFETY: as in `add_assign`.
        self.modify(|a| unsafe { sys::helib_ctxt_sub(a, b) })
    }

    /// In place: `self <- -self`.
    pub fn neg_assign(&mut self) -> Result<()> {
        // SAFETY: `a` is this ciphertext's live handle, exclusively borrowed.
        self.modify(|a| unsafe { sys::helib_ctxt_negate(a) })
    }

    /// In place: `self <- self * other`, relinearized with the relinearization key of the
    /// public key that encrypted `self`. Both operands are first switched down to where their
    /// noise is near the modulus-switching floor, so the level usually drops.
    ///
    /// Costs a few tens of bits more than `log2(p)` of noise budget (about 270-300 bits for
    /// BN254's 254-bit `p`); fails with
    /// [`Error::NoiseBudgetExhausted`](crate::Error::NoiseBudgetExhausted) when there is not
    /// enough left.
    pub fn mul_assign(&mut self, other: &Ctxt) -> Result<()> {
        self.ensure_compatible(other)?;
        let b = other.as_ptr();
        let pk = self.pubkey().as_ptr();
        // SAFETY: `a` is exclusively borrowed; `b` and `pk` are live handles the engine only
        // reads (the key is kept alive by `self`).
        self.modify(|a| unsafe { sys::helib_ctxt_mul(a, b, pk) })
    }

    /// In place: `self <- self * self`, relinearized (cheaper than multiplying by a clone).
    pub fn square(&mut self) -> Result<()> {
        let pk = self.pubkey().as_ptr();
        // SAFETY: `a` is exclusively borrowed; `pk` is live and only read.
        self.modify(|a| unsafe { sys::helib_ctxt_square(a, pk) })
    }

    /// In place: adds the constant `k` to the plaintext.
    pub fn add_const<F: PrimeField>(&mut self, k: F) -> Result<()> {
        let limbs = encode_const(self.context(), k)?;
        // SAFETY: `a` is exclusively borrowed; `limbs` is live for the call and its length is
        // passed along.
        self.modify(|a| unsafe { sys::helib_ctxt_add_const(a, limbs.as_ptr(), limbs.len()) })
    }

    /// In place: multiplies the plaintext by the constant `k` (costs about `log2(p)` bits of
    /// noise budget for a random `k`).
    pub fn mul_const<F: PrimeField>(&mut self, k: F) -> Result<()> {
        let limbs = encode_const(self.context(), k)?;
        // SAFETY: as in `add_const`.
        self.modify(|a| unsafe { sys::helib_ctxt_mul_const(a, limbs.as_ptr(), limbs.len()) })
    }

    /// In place: adds the plaintext polynomial `sum_i coeffs[i] X^i` (at most `N`
    /// coefficients; missing ones are zero).
    pub fn add_poly<F: PrimeField>(&mut self, coeffs: &[F]) -> Result<()> {
        let limbs = encode_poly(self.context(), coeffs)?;
        let num_coeffs = limbs.len() / self.context().plaintext_limbs();
        // SAFETY: `a` is exclusively borrowed; `limbs` holds `num_coeffs` values of
        // `plaintext_limbs` limbs each and is live for the call.
        self.modify(|a| unsafe { sys::helib_ctxt_add_poly(a, limbs.as_ptr(), num_coeffs) })
    }

    /// In place: multiplies by the plaintext polynomial `sum_i coeffs[i] X^i` modulo
    /// `X^N + 1`; missing coefficients are zero (an empty slice multiplies by zero). Costs
    /// about `log2(p) + log2(N)` bits of noise budget for random coefficients.
    pub fn mul_poly<F: PrimeField>(&mut self, coeffs: &[F]) -> Result<()> {
        let limbs = encode_poly(self.context(), coeffs)?;
        let num_coeffs = limbs.len() / self.context().plaintext_limbs();
        // SAFETY: as in `add_poly`.
        self.modify(|a| unsafe { sys::helib_ctxt_mul_poly(a, limbs.as_ptr(), num_coeffs) })
    }

    /// BGV modulus switching: drops the top prime. The plaintext is unchanged; the noise
    /// shrinks along with the modulus (down to a floor). Fails with
    /// [`Error::Level`](crate::Error::Level), leaving the ciphertext as it was, at level 1 or
    /// where the remaining primes could no longer hold the plaintext above that floor.
    pub fn mod_switch_down(&mut self) -> Result<()> {
        // SAFETY: `a` is this ciphertext's live handle, exclusively borrowed.
        self.modify(|a| unsafe { sys::helib_ctxt_mod_switch_down(a) })
    }

    /// BGV modulus switching down to `level` primes (1 ..= the current level). The plaintext
    /// is unchanged. Fails with [`Error::Level`](crate::Error::Level) before touching the
    /// ciphertext if `level` is out of range, or too low to hold the plaintext above the
    /// modulus-switching floor (its message names the lowest level that keeps it).
    pub fn mod_switch_to(&mut self, level: u32) -> Result<()> {
        // SAFETY: `a` is this ciphertext's live handle, exclusively borrowed.
        self.modify(|a| unsafe { sys::helib_ctxt_mod_switch_to(a, level) })
    }

    /// BGV modulus switching down to the lowest level at which the noise stays just above
    /// the modulus-switching floor: the noise budget is kept (to within a bit) and whatever
    /// follows runs on fewer primes. Worth it before plaintext products and rotations of a
    /// ciphertext whose noise grew (after a product, say); products of two ciphertexts do it
    /// to their operands themselves, and a fresh ciphertext stays where it is.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use ark_ff::Field;
    /// use helib_rs::{Context, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(900).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let half = Fr::from(2u64).inverse().unwrap(); // (p + 1) / 2: 253 bits of noise growth
    /// let mut ct = pk.encrypt_const(Fr::from(3u64))?;
    /// ct.mul_const(half)?;
    /// let (level, budget) = (ct.level(), ct.noise_budget());
    /// ct.mod_switch_to_natural_level()?;
    /// assert!(ct.level() < level);
    /// assert!(ct.noise_budget() > budget - 2.0);
    /// assert_eq!(sk.decrypt_const::<Fr>(&ct)?, Fr::from(3u64) * half);
    /// # Ok(())
    /// # }
    /// ```
    pub fn mod_switch_to_natural_level(&mut self) -> Result<()> {
        // SAFETY: `a` is this ciphertext's live handle, exclusively borrowed.
        self.modify(|a| unsafe { sys::helib_ctxt_mod_switch_to_natural(a) })
    }

    /// Switches down to the fewest primes that still leave `margin_bits` of noise budget
    /// (at least the natural level's budget is never needed): the smallest form of a result
    /// that only has to be decrypted, for the download. A ciphertext whose budget is already
    /// at or below the margin only goes to its natural level.
    ///
    /// Each prime dropped below the natural level costs about its size in budget, so a
    /// result with `b` bits left sheds about `(b - margin_bits) / 50` primes of its bytes.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{Context, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(900).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let mut ct = pk.encrypt_const(Fr::from(3u64))?;
    /// let (bytes, level) = (ct.to_bytes()?.len(), ct.level());
    /// ct.compact_for_decryption(helib_rs::DECRYPTION_MARGIN_BITS)?;
    /// assert!(ct.level() < level && ct.to_bytes()?.len() < bytes);
    /// assert!(ct.noise_budget() >= helib_rs::DECRYPTION_MARGIN_BITS);
    /// assert_eq!(sk.decrypt_const::<Fr>(&ct)?, Fr::from(3u64));
    /// # Ok(())
    /// # }
    /// ```
    pub fn compact_for_decryption(&mut self, margin_bits: f64) -> Result<()> {
        self.mod_switch_to_natural_level()?;
        while self.level() > 1 && self.noise_budget() > margin_bits {
            let mut lower = self.try_clone()?;
            if lower.mod_switch_to(self.level() - 1).is_err() || lower.noise_budget() < margin_bits
            {
                break;
            }
            *self = lower;
        }
        Ok(())
    }

    /// `self + other` as a new ciphertext.
    pub fn checked_add(&self, other: &Ctxt) -> Result<Ctxt> {
        // Checked before cloning so that a mismatch costs nothing.
        self.ensure_compatible(other)?;
        let mut out = self.try_clone()?;
        out.add_assign(other)?;
        Ok(out)
    }

    /// `self - other` as a new ciphertext.
    pub fn checked_sub(&self, other: &Ctxt) -> Result<Ctxt> {
        self.ensure_compatible(other)?;
        let mut out = self.try_clone()?;
        out.sub_assign(other)?;
        Ok(out)
    }

    /// `-self` as a new ciphertext.
    pub fn checked_neg(&self) -> Result<Ctxt> {
        let mut out = self.try_clone()?;
        out.neg_assign()?;
        Ok(out)
    }

    /// `self * other` (relinearized) as a new ciphertext.
    pub fn checked_mul(&self, other: &Ctxt) -> Result<Ctxt> {
        self.ensure_compatible(other)?;
        let mut out = self.try_clone()?;
        out.mul_assign(other)?;
        Ok(out)
    }

    /// `self * self` (relinearized) as a new ciphertext.
    pub fn checked_square(&self) -> Result<Ctxt> {
        let mut out = self.try_clone()?;
        out.square()?;
        Ok(out)
    }
}

impl Add<&Ctxt> for &Ctxt {
    type Output = Result<Ctxt>;

    /// `&a + &b`: see [`Ctxt::checked_add`].
    fn add(self, rhs: &Ctxt) -> Result<Ctxt> {
        self.checked_add(rhs)
    }
}

impl Add<&Ctxt> for Ctxt {
    type Output = Result<Ctxt>;

    /// `a + &b`, reusing `a` instead of copying it.
    fn add(mut self, rhs: &Ctxt) -> Result<Ctxt> {
        self.add_assign(rhs)?;
        Ok(self)
    }
}

impl Sub<&Ctxt> for &Ctxt {
    type Output = Result<Ctxt>;

    /// `&a - &b`: see [`Ctxt::checked_sub`].
    fn sub(self, rhs: &Ctxt) -> Result<Ctxt> {
        self.checked_sub(rhs)
    }
}

impl Sub<&Ctxt> for Ctxt {
    type Output = Result<Ctxt>;

    /// `a - &b`, reusing `a` instead of copying it.
    fn sub(mut self, rhs: &Ctxt) -> Result<Ctxt> {
        self.sub_assign(rhs)?;
        Ok(self)
    }
}

impl Mul<&Ctxt> for &Ctxt {
    type Output = Result<Ctxt>;

    /// `&a * &b`: see [`Ctxt::checked_mul`].
    fn mul(self, rhs: &Ctxt) -> Result<Ctxt> {
        self.checked_mul(rhs)
    }
}

impl Mul<&Ctxt> for Ctxt {
    type Output = Result<Ctxt>;

    /// `a * &b`, reusing `a` instead of copying it.
    fn mul(mut self, rhs: &Ctxt) -> Result<Ctxt> {
        self.mul_assign(rhs)?;
        Ok(self)
    }
}

impl Neg for &Ctxt {
    type Output = Result<Ctxt>;

    /// `-&a`: see [`Ctxt::checked_neg`].
    fn neg(self) -> Result<Ctxt> {
        self.checked_neg()
    }
}

impl Neg for Ctxt {
    type Output = Result<Ctxt>;

    /// `-a`, reusing `a` instead of copying it.
    fn neg(mut self) -> Result<Ctxt> {
        self.neg_assign()?;
        Ok(self)
    }
}
