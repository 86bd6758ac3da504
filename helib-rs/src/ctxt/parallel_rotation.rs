//! Rotations whose key switches the threads of the rayon pool share.

use std::ptr;

use helib_bindings as sys;
use rayon::prelude::*;

use crate::ctxt::Ctxt;
use crate::error::{check, Error, Result};
use crate::keys::galois_elements::*;
use crate::keys::GaloisKeys;

/// The engine's batch of Galois images, freed on drop.
struct Batch(*mut sys::helib_galois_batch);

// SAFETY: the engine's batch has no thread affinity. Shared use is limited to what the C API
// allows at once: `helib_galois_batch_lift_rows` on distinct parts (each writes its own rows),
// then `helib_galois_batch_image` (reads only), never both at once; `images` below keeps to it.
unsafe impl Send for Batch {}
unsafe impl Sync for Batch {}

impl Batch {
    fn handle(&self) -> *mut sys::helib_galois_batch {
        self.0
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        // SAFETY: the handle came from helib_galois_batch_new and nothing else frees it.
        unsafe { sys::helib_galois_batch_free(self.0) }
    }
}

impl Ctxt {
    /// The ciphertext with both rows rotated left by each of `steps`, as
    /// [`rotated_rows`](Self::rotated_rows) gives them, with the work of each key switch
    /// shared by the threads of the current rayon pool: each thread lifts the digits to its
    /// share of the key-switching basis once for all of `steps`, then the threads finish the
    /// rotations side by side. For a pool with idle threads (one rotation on a pool of two)
    /// or rotations of one ciphertext by a few steps.
    ///
    /// Fails with [`Error::MissingKey`] (naming the step) before any work if a key is missing;
    /// `steps` must be nonzero modulo `N/2` ([`Error::InvalidArgument`]).
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
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1).step(2))?;
    /// let slots: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let ct = pk.encrypt_poly(&enc.encode(&slots)?)?;
    /// let [by_one, by_two] = <[_; 2]>::try_from(ct.rotated_rows_parallel(&[1, 2], &gk)?).unwrap();
    /// assert_eq!(enc.decode(&sk.decrypt_poly(&by_two)?)[0], Fr::from(2u64));
    /// assert_eq!(enc.decode(&sk.decrypt_poly(&by_one)?)[0], Fr::from(1u64));
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotated_rows_parallel(&self, steps: &[i64], gk: &GaloisKeys) -> Result<Vec<Ctxt>> {
        let elements = self.keyed_elements(steps, gk)?;
        if let Some(i) = elements.iter().position(|&g| g == 1) {
            return Err(Error::InvalidArgument(format!(
                "a parallel rotation by {} (0 modulo N/2) would be the identity",
                steps[i]
            )));
        }
        self.images(&elements, gk)
    }

    /// The ciphertext with its two rows swapped, as [`swap_rows`](Self::swap_rows) gives it,
    /// with the key switch's work shared by the threads of the current rayon pool (see
    /// [`rotated_rows_parallel`](Self::rotated_rows_parallel)).
    ///
    /// Fails with [`Error::MissingKey`] when `gk` has no row-swap key.
    pub fn swapped_rows_parallel(&self, gk: &GaloisKeys) -> Result<Ctxt> {
        self.ensure_galois_keys(gk)?;
        let g = row_swap_element(self.context());
        if !gk.has_element(g) {
            return Err(Error::MissingKey(format!(
                "no Galois key for the row swap (element {g}); generate the keys with \
                 GaloisSteps::new().row_swap()"
            )));
        }
        self.images(&[g], gk)?
            .pop()
            .ok_or_else(|| Error::Internal("the engine returned no row swap".into()))
    }

    /// The images of `self` under `elements` (valid, not 1, keys present), the lifting split
    /// into one part per thread and the images finished in parallel.
    fn images(&self, elements: &[u64], gk: &GaloisKeys) -> Result<Vec<Ctxt>> {
        let mut raw = ptr::null_mut();
        // SAFETY: `self` and the key handle are live for the whole batch (borrowed by this
        // call, which frees the batch before returning); `elements` holds `len` values.
        check(unsafe {
            sys::helib_galois_batch_new(
                &mut raw,
                self.as_ptr(),
                elements.as_ptr(),
                elements.len(),
                gk.as_ptr(),
            )
        })?;
        let batch = Batch(raw);
        let parts = rayon::current_num_threads().max(1);
        (0..parts).into_par_iter().try_for_each(|part| {
            // SAFETY: every part is lifted once, by one thread (see `Batch`).
            check(unsafe { sys::helib_galois_batch_lift_rows(batch.handle(), part, parts) })
        })?;
        (0..elements.len())
            .into_par_iter()
            .map(|k| {
                let mut out = ptr::null_mut();
                // SAFETY: every part has been lifted; images only read the batch.
                check(unsafe { sys::helib_galois_batch_image(batch.handle(), k, &mut out) })?;
                Ctxt::from_raw(out, self.pubkey())
            })
            .collect()
    }
}
