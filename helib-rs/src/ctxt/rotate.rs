//! Slot rotations of a [`Ctxt`](crate::Ctxt): the methods that apply [`GaloisKeys`](crate::GaloisKeys).

use std::ptr;

use helib_bindings as sys;

use crate::ctxt::Ctxt;
use crate::error::{check, Error, Result};
use crate::keys::galois_elements::*;
use crate::keys::GaloisKeys;

/// Rotations. Every method checks, before calling the engine, that the keys belong to this
/// ciphertext's context and secret key ([`Error::Mismatch`]) and that every key it needs is
/// there ([`Error::MissingKey`], naming the step); on any error the ciphertext is unchanged.
///
/// A rotation costs one key switch: its noise is added to the ciphertext's, a small and
/// constant amount, so long chains of rotations keep almost all of the noise budget.
impl Ctxt {
    /// In place: rotates both rows of slots left by `k` (right by `|k|` for a negative `k`),
    /// `k` taken modulo `N/2`. A step of 0 does nothing and needs no key.
    ///
    /// Fails with [`Error::MissingKey`] when `gk` has no key for this step; generate it with
    /// [`GaloisSteps::step`](crate::GaloisSteps::step).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(-1))?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let mut ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// ct.rotate_rows(-1, &gk)?; // right by one: row 0 becomes 1023, 0, 1, ...
    /// let got = enc.decode(&sk.decrypt_poly(&ct)?);
    /// assert_eq!(&got[..3], &[Fr::from(1023u64), Fr::from(0u64), Fr::from(1u64)]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotate_rows(&mut self, k: i64, gk: &GaloisKeys) -> Result<()> {
        self.ensure_galois_keys(gk)?;
        let g = rotation_element(self.context(), k);
        self.apply_element(g, gk, || missing_step_message(gk, k))
    }

    /// The ciphertext with both rows rotated left by `k`, leaving `self` as it is (see
    /// [`rotate_rows`](Self::rotate_rows)).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(3))?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// let rotated = ct.rotated_rows(3, &gk)?;
    /// assert_eq!(enc.decode(&sk.decrypt_poly(&rotated)?)[0], Fr::from(3u64));
    /// assert_eq!(enc.decode(&sk.decrypt_poly(&ct)?)[0], Fr::from(0u64));
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotated_rows(&self, k: i64, gk: &GaloisKeys) -> Result<Ctxt> {
        // A batch of one (which checks the keys first): the engine builds the result from the key switch's outputs, with
        // no copy of `self` first.
        let mut out = self.rotate_rows_many(&[k], gk)?;
        out.pop()
            .ok_or_else(|| Error::InvalidArgument("the engine returned no rotation".into()))
    }

    /// Hoisted rotations: one new ciphertext per step, `out[i]` rotated left by `steps[i]`,
    /// sharing one digit decomposition of `self` (cheaper than separate
    /// [`rotated_rows`](Self::rotated_rows) calls; the results are the same). `self` is left
    /// as it is; a step of 0 gives a copy.
    ///
    /// All keys are checked before any work: a missing one fails with [`Error::MissingKey`]
    /// naming the first step without a key, and nothing is returned.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().steps([1, 2, 4]))?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// let rotated = ct.rotate_rows_many(&[0, 1, 2, 4], &gk)?;
    /// for (r, k) in rotated.iter().zip([0u64, 1, 2, 4]) {
    ///     assert_eq!(enc.decode(&sk.decrypt_poly(r)?)[0], Fr::from(k));
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotate_rows_many(&self, steps: &[i64], gk: &GaloisKeys) -> Result<Vec<Ctxt>> {
        let elements = self.keyed_elements(steps, gk)?;
        if steps.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = OwnedHandles(vec![ptr::null_mut(); elements.len()]);
        // SAFETY: `self` and the key handle are live and only read; `elements` holds
        // `elements.len()` values and `out.0` has room for as many handles. The engine sets
        // either all of them or none.
        check(unsafe {
            sys::helib_ctxt_apply_galois_many(
                self.as_ptr(),
                elements.as_ptr(),
                elements.len(),
                gk.as_ptr(),
                out.0.as_mut_ptr(),
            )
        })
        .map_err(|e| {
            engine_missing_key(e, || {
                format!("no Galois key for one of the row rotations by {steps:?}")
            })
        })?;
        // Each handle is taken out before it is wrapped: if wrapping fails, the ones already
        // wrapped are freed by `rotated` and the rest by `out`.
        let mut rotated = Vec::with_capacity(out.0.len());
        for handle in out.0.iter_mut() {
            let raw = std::mem::replace(handle, ptr::null_mut());
            rotated.push(Ctxt::from_raw(raw, self.pubkey())?);
        }
        Ok(rotated)
    }

    /// In place: swaps the two rows of slots (Galois element `2N - 1`).
    ///
    /// Fails with [`Error::MissingKey`] when `gk` has no row-swap key; generate it with
    /// [`GaloisSteps::row_swap`](crate::GaloisSteps::row_swap).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().row_swap())?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let mut ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// ct.swap_rows(&gk)?;
    /// let got = enc.decode(&sk.decrypt_poly(&ct)?);
    /// assert_eq!((got[0], got[1024]), (Fr::from(1024u64), Fr::from(0u64)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn swap_rows(&mut self, gk: &GaloisKeys) -> Result<()> {
        self.ensure_galois_keys(gk)?;
        let g = row_swap_element(self.context());
        self.apply_element(g, gk, || {
            format!(
                "no Galois key for the row swap (element {g}); generate the keys with \
                 GaloisSteps::new().row_swap()"
            )
        })
    }

    /// In place: the automorphism `X -> X^g` for a raw Galois element `g` (odd, below `2N`),
    /// key-switched back to the secret key. `g = 1` does nothing and needs no key.
    ///
    /// On the plaintext this is [`BatchEncoder::apply_galois`](crate::BatchEncoder::apply_galois).
    /// Fails with [`Error::InvalidArgument`] for an invalid `g` and with
    /// [`Error::MissingKey`] when `gk` has no key for it.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// # let sk = SecKey::generate(&ctx)?;
    /// # let pk = PubKey::generate(&sk)?;
    /// let gk = GaloisKeys::generate_for_elements(&sk, &[5])?;
    /// let mut ct = pk.encrypt_poly(&[Fr::from(0u64), Fr::from(7u64)])?; // 7X
    /// ct.apply_galois(5, &gk)?;                                          // 7X^5
    /// let got = sk.decrypt_poly::<Fr>(&ct)?;
    /// assert_eq!((got[1], got[5]), (Fr::from(0u64), Fr::from(7u64)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn apply_galois(&mut self, g: u64, gk: &GaloisKeys) -> Result<()> {
        self.ensure_galois_keys(gk)?;
        if !valid_element(self.context(), g) {
            return Err(Error::InvalidArgument(invalid_element_message(
                self.context(),
                g,
            )));
        }
        let ctx = self.context().clone();
        self.apply_element(g, gk, || {
            format!(
                "no Galois key for element {g} ({}); generate it with \
                 GaloisKeys::generate_for_elements or GaloisSteps",
                describe_element(&ctx, g)
            )
        })
    }

    /// The Galois elements of the row rotations by `steps`, after checking that `gk` belongs
    /// to this ciphertext and has a key for each ([`Error::MissingKey`] naming the step).
    pub(crate) fn keyed_elements(&self, steps: &[i64], gk: &GaloisKeys) -> Result<Vec<u64>> {
        self.ensure_galois_keys(gk)?;
        let elements: Vec<u64> = steps
            .iter()
            .map(|&k| rotation_element(self.context(), k))
            .collect();
        if let Some(i) = elements.iter().position(|&g| !gk.has_element(g)) {
            return Err(Error::MissingKey(missing_step_message(gk, steps[i])));
        }
        Ok(elements)
    }

    /// Fails with [`Error::Mismatch`] unless `gk` has this context and this secret key.
    pub(crate) fn ensure_galois_keys(&self, gk: &GaloisKeys) -> Result<()> {
        self.context()
            .ensure_same(gk.context(), "the ciphertext and the Galois keys")?;
        if self.pubkey().secret_id() != gk.secret_id {
            return Err(Error::Mismatch(
                "the Galois keys were generated from a different secret key than the one the \
                 ciphertext is encrypted under"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Applies the valid element `g` in place, after checking that its key is there; `missing`
    /// describes the missing key in the caller's terms.
    fn apply_element(
        &mut self,
        g: u64,
        gk: &GaloisKeys,
        missing: impl FnOnce() -> String,
    ) -> Result<()> {
        if g == 1 {
            return Ok(());
        }
        if !gk.has_element(g) {
            return Err(Error::MissingKey(missing()));
        }
        let keys = gk.as_ptr();
        // SAFETY: `a` is this ciphertext's live handle, exclusively borrowed; `keys` is a live
        // handle (borrowed for the call) that the engine only reads.
        self.modify(|a| unsafe { sys::helib_ctxt_apply_galois(a, g, keys) })
            .map_err(|e| engine_missing_key(e, missing))
    }
}

/// Frees, on drop, every handle still in the vector (those not yet wrapped in a `Ctxt`).
struct OwnedHandles(Vec<*mut sys::helib_ctxt>);

impl Drop for OwnedHandles {
    fn drop(&mut self) {
        for &raw in &self.0 {
            // SAFETY: each non-null entry is a handle the engine produced that nothing else
            // owns (wrapped ones were replaced by null); helib_ctxt_free accepts null.
            unsafe { sys::helib_ctxt_free(raw) }
        }
    }
}
