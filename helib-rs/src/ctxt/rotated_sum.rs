//! Hoisted rotations summed with plaintext weights under one mod-down:
//! [`Ctxt::rotated_inner_product`].

use std::ptr;

use helib_bindings as sys;

use crate::error::{check, Error, Result};
use crate::keys::galois_elements::{engine_missing_key, missing_step_message, rotation_element};
use crate::{Ctxt, EncodedPtxt, GaloisKeys};

impl Ctxt {
    /// `sum_i pts[i] * rot(self, steps[i])`: both slot rows rotated left by `steps[i]`
    /// (a step of 0 is `self` itself and needs no key), multiplied slotwise by `pts[i]`, and
    /// summed. The result equals [`rotate_rows_many`](Self::rotate_rows_many) followed by
    /// [`inner_product`](Self::inner_product), at a fraction of the cost and with less noise.
    ///
    /// Every rotation shares one digit decomposition of `self` (hoisting), and its plaintext
    /// product is taken before the key switch's mod-down, so the whole sum pays for one
    /// mod-down: a term after the first costs its key product, two row permutations and the
    /// plaintext product, not the decomposition and mod-down that make up most of a rotation.
    /// A matrix with a few diagonals is one call (`sum_i diag_i * rot(x, i)`). In a baby-step
    /// giant-step product, where every giant step reuses the same baby-step rotations, rotating
    /// once with [`rotate_rows_many`](Self::rotate_rows_many) and taking an
    /// [`inner_product`](Self::inner_product) per giant step is cheaper: this call repeats
    /// each key product for every sum it appears in. The price: each
    /// plaintext for a nonzero step must carry the key-switching special primes too
    /// ([`EncodedPtxt::from_slots_extended`]), and be encoded at the ciphertext's level or
    /// above.
    ///
    /// Fails, before any work, with [`Error::InvalidLength`] when the slices are empty or differ
    /// in length, [`Error::MissingKey`] naming the first step without a key,
    /// [`Error::Mismatch`] for keys or plaintexts of another context or secret key, and
    /// [`Error::InvalidArgument`] for a plaintext that is not extended where it has to be or is
    /// encoded below the ciphertext's level.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, EncodedPtxt, GaloisKeys, GaloisSteps, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().steps([1, 2]))?;
    ///
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let x = pk.encrypt_slots(&enc, &slots)?;
    /// let weight = |w: u64| EncodedPtxt::from_slots_extended(&ctx, &enc, &vec![Fr::from(w); 2048], None);
    /// let (w0, w1, w2) = (weight(100)?, weight(10)?, weight(1)?);
    /// // 100 x[j] + 10 x[j + 1] + x[j + 2] in every slot j of each row
    /// let y = x.rotated_inner_product(&[0, 1, 2], &[&w0, &w1, &w2], &gk)?;
    /// assert_eq!(sk.decrypt_slots(&enc, &y)?[5], Fr::from(100 * 5 + 10 * 6 + 7u64));
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotated_inner_product(
        &self,
        steps: &[i64],
        pts: &[&EncodedPtxt],
        gk: &GaloisKeys,
    ) -> Result<Ctxt> {
        if steps.is_empty() || steps.len() != pts.len() {
            return Err(Error::InvalidLength(format!(
                "a rotated inner product needs one plaintext per step, at least one \
                 ({} steps, {} plaintexts)",
                steps.len(),
                pts.len()
            )));
        }
        self.ensure_galois_keys(gk)?;
        let elements: Vec<u64> = steps
            .iter()
            .map(|&k| rotation_element(self.context(), k))
            .collect();
        for (i, (&g, pt)) in elements.iter().zip(pts).enumerate() {
            pt.ensure_context(self.context())?;
            if g == 1 {
                continue;
            }
            if !gk.has_element(g) {
                return Err(Error::MissingKey(missing_step_message(gk, steps[i])));
            }
            if !pt.is_extended() {
                return Err(Error::InvalidArgument(format!(
                    "plaintext {i} multiplies the rotation by {} but was encoded without the \
                     special primes that a product before the mod-down needs; encode it with \
                     EncodedPtxt::from_slots_extended (or from_poly_extended)",
                    steps[i]
                )));
            }
        }
        let pt_ptrs: Vec<*const sys::helib_ptxt> = pts.iter().map(|p| p.as_ptr()).collect();
        let mut raw: *mut sys::helib_ctxt = ptr::null_mut();
        // SAFETY: every handle is live for the call and only read; `elements` and `pt_ptrs`
        // hold `len` entries each; `raw` is a valid out-pointer.
        check(unsafe {
            sys::helib_ctxt_rotated_inner_product(
                &mut raw,
                self.as_ptr(),
                elements.as_ptr(),
                pt_ptrs.as_ptr(),
                pt_ptrs.len(),
                gk.as_ptr(),
            )
        })
        .map_err(|e| {
            engine_missing_key(e, || {
                format!("no Galois key for one of the row rotations by {steps:?}")
            })
        })?;
        Ctxt::from_raw(raw, self.pubkey())
    }
}
