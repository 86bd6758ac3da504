//! Ciphertext-plaintext operations: a [`Ctxt`] times, plus or minus an [`EncodedPtxt`], and
//! [`Ctxt::inner_product`], the sum of such products.

use std::ops::{Add, Mul, Sub};
use std::ptr;

use helib_bindings as sys;

use crate::error::{check, Error, Result};
use crate::{Ctxt, EncodedPtxt};

impl Ctxt {
    /// `self *= pt` (slotwise product, or polynomial product mod `X^N + 1`).
    pub fn mul_ptxt(&mut self, pt: &EncodedPtxt) -> Result<()> {
        pt.ensure_context(self.context())?;
        // SAFETY: both handles are live; the engine validates levels.
        self.modify(|c| unsafe { sys::helib_ctxt_mul_ptxt(c, pt.as_ptr()) })
    }

    /// `self += pt`. Needs a ciphertext with plaintext factor 1 (never modulus-switched, also
    /// not implicitly by a ct x ct product) and a plaintext encoded at the ciphertext's level
    /// or above; use [`Ctxt::add_poly`] otherwise.
    pub fn add_ptxt(&mut self, pt: &EncodedPtxt) -> Result<()> {
        pt.ensure_context(self.context())?;
        // SAFETY: both handles are live.
        self.modify(|c| unsafe { sys::helib_ctxt_add_ptxt(c, pt.as_ptr()) })
    }

    /// `self -= pt`, with the condition of [`Ctxt::add_ptxt`].
    pub fn sub_ptxt(&mut self, pt: &EncodedPtxt) -> Result<()> {
        pt.ensure_context(self.context())?;
        // SAFETY: both handles are live.
        self.modify(|c| unsafe { sys::helib_ctxt_sub_ptxt(c, pt.as_ptr()) })
    }

    /// `self = pt - self`, with the condition of [`Ctxt::add_ptxt`]. On failure `self` is
    /// unchanged.
    pub fn rsub_ptxt(&mut self, pt: &EncodedPtxt) -> Result<()> {
        pt.ensure_context(self.context())?;
        let mut out = self.try_clone()?;
        out.neg_assign()?;
        out.add_ptxt(pt)?;
        *self = out;
        Ok(())
    }

    /// `sum_i cts[i] * pts[i]` in one pass per prime, without intermediate ciphertexts: the
    /// core of a diagonal-method matrix-vector product.
    ///
    /// The ciphertexts must share context, key, level and plaintext factor (rotations of one
    /// ciphertext do); each plaintext must be at their level or above. Fails with
    /// [`Error::InvalidLength`] when the slices differ in length or are empty.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, Ctxt, EncodedPtxt, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let a = pk.encrypt_slots(&enc, &[Fr::from(2u64)])?;
    /// let b = pk.encrypt_slots(&enc, &[Fr::from(3u64)])?;
    /// let w = EncodedPtxt::from_slots(&ctx, &enc, &[Fr::from(5u64)], None)?;
    /// let v = EncodedPtxt::from_slots(&ctx, &enc, &[Fr::from(7u64)], None)?;
    /// let dot = Ctxt::inner_product(&[&a, &b], &[&w, &v])?;
    /// assert_eq!(sk.decrypt_slots(&enc, &dot)?[0], Fr::from(2 * 5 + 3 * 7u64));
    /// # Ok(())
    /// # }
    /// ```
    pub fn inner_product(cts: &[&Ctxt], pts: &[&EncodedPtxt]) -> Result<Ctxt> {
        if cts.is_empty() || cts.len() != pts.len() {
            return Err(Error::InvalidLength(format!(
                "an inner product needs as many plaintexts as ciphertexts, at least one \
                 ({} ciphertexts, {} plaintexts)",
                cts.len(),
                pts.len()
            )));
        }
        let first = cts[0];
        for ct in &cts[1..] {
            first.ensure_compatible(ct)?;
        }
        for pt in pts {
            pt.ensure_context(first.context())?;
        }
        let ct_ptrs: Vec<*const sys::helib_ctxt> = cts.iter().map(|c| c.as_ptr()).collect();
        let pt_ptrs: Vec<*const sys::helib_ptxt> = pts.iter().map(|p| p.as_ptr()).collect();
        let mut raw: *mut sys::helib_ctxt = ptr::null_mut();
        // SAFETY: every handle is live for the call; the arrays hold `len` valid pointers;
        // `raw` is a valid out-pointer.
        check(unsafe {
            sys::helib_ctxt_inner_product(
                &mut raw,
                ct_ptrs.as_ptr(),
                pt_ptrs.as_ptr(),
                ct_ptrs.len(),
            )
        })?;
        Ctxt::from_raw(raw, first.pubkey())
    }
}

impl Mul<&EncodedPtxt> for &Ctxt {
    type Output = Result<Ctxt>;
    fn mul(self, pt: &EncodedPtxt) -> Result<Ctxt> {
        let mut out = self.try_clone()?;
        out.mul_ptxt(pt)?;
        Ok(out)
    }
}

impl Add<&EncodedPtxt> for &Ctxt {
    type Output = Result<Ctxt>;
    fn add(self, pt: &EncodedPtxt) -> Result<Ctxt> {
        let mut out = self.try_clone()?;
        out.add_ptxt(pt)?;
        Ok(out)
    }
}

impl Sub<&EncodedPtxt> for &Ctxt {
    type Output = Result<Ctxt>;
    fn sub(self, pt: &EncodedPtxt) -> Result<Ctxt> {
        let mut out = self.try_clone()?;
        out.sub_ptxt(pt)?;
        Ok(out)
    }
}

impl Sub<&Ctxt> for &EncodedPtxt {
    type Output = Result<Ctxt>;
    fn sub(self, ct: &Ctxt) -> Result<Ctxt> {
        let mut out = ct.try_clone()?;
        out.rsub_ptxt(self)?;
        Ok(out)
    }
}
