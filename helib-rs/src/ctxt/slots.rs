//! Packed (slot-wise) encryption and decryption through a [`BatchEncoder`]: the slot forms of
//! `encrypt_poly` and `decrypt_poly`, so they sit with them.

use ark_ff::PrimeField;
use zeroize::Zeroizing;

use crate::encoding::ptxt::check_encoder;
use crate::error::Result;
use crate::{BatchEncoder, Ctxt, PubKey, SecKey};

impl PubKey {
    /// Encrypts up to `N` slot values (zero-padded): `encoder.encode` then
    /// [`encrypt_poly`](PubKey::encrypt_poly). Fresh randomness on every call.
    ///
    /// Fails with [`Error::Mismatch`](crate::Error::Mismatch) when the encoder is for another
    /// ring degree, and as `encode` does for too many values.
    pub fn encrypt_slots<F: PrimeField>(
        &self,
        encoder: &BatchEncoder<F>,
        values: &[F],
    ) -> Result<Ctxt> {
        check_encoder(self.context(), encoder)?;
        self.encrypt_limbs(&encoder.encode_to_limbs(values, self.context().plaintext_limbs())?)
    }
}

impl SecKey {
    /// Decrypts and decodes all `N` slots (row 0, then row 1).
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let v: Vec<Fr> = (1..=4u64).map(Fr::from).collect();
    /// let ct = pk.encrypt_slots(&enc, &v)?;
    /// let slots = sk.decrypt_slots(&enc, &ct)?;
    /// assert_eq!(&slots[..4], &v[..]);
    /// assert_eq!(slots.len(), 2048);
    /// # Ok(())
    /// # }
    /// ```
    pub fn decrypt_slots<F: PrimeField>(
        &self,
        encoder: &BatchEncoder<F>,
        ct: &Ctxt,
    ) -> Result<Vec<F>> {
        check_encoder(self.context(), encoder)?;
        // The coefficients are as secret as the slots: wiped once decoded.
        Ok(encoder.decode(&Zeroizing::new(self.decrypt_poly::<F>(ct)?)))
    }
}
