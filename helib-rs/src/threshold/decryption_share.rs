//! [`DecryptionShare`]: one party's part of decrypting a ciphertext under a shared key, and
//! [`Ctxt::combine_decryption`], which adds every party's.

use std::fmt;
use std::ptr::{self, NonNull};

use ark_ff::PrimeField;
use helib_bindings as sys;
use zeroize::Zeroizing;

use crate::error::{check, Error, Result};
use crate::field_limbs::{check_field, from_limbs};
use crate::serialization::bytes::collect_bytes;
use crate::{Context, Ctxt};

/// One party's part of decrypting one ciphertext
/// ([`KeyShare::decryption_share`](crate::threshold::KeyShare::decryption_share)): `c1 s_i` plus a smudging error, minus the
/// party's random share of the plaintext when masked. It names its party and its ciphertext,
/// so a share of another ciphertext, or one party's counted twice, is refused when combined.
pub struct DecryptionShare {
    raw: NonNull<sys::helib_decryption_share>,
    ctx: Context,
    party: u64,
    masked: bool,
}

// SAFETY: the engine's share is immutable once made and only read through const pointers;
// it is freed once, from Drop.
unsafe impl Send for DecryptionShare {}
// SAFETY: as above.
unsafe impl Sync for DecryptionShare {}

impl Drop for DecryptionShare {
    fn drop(&mut self) {
        // SAFETY: `raw` came from the engine and is freed exactly once, here.
        unsafe { sys::helib_decryption_share_free(self.raw.as_ptr()) }
    }
}

impl DecryptionShare {
    pub(crate) fn from_raw(
        raw: *mut sys::helib_decryption_share,
        ctx: &Context,
    ) -> Result<DecryptionShare> {
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::Internal("the engine returned no decryption share".into()))?;
        let mut share = DecryptionShare {
            raw,
            ctx: ctx.clone(),
            party: 0,
            masked: false,
        };
        let mut masked = 0i32;
        // SAFETY: the handle is live; the out-pointers are valid. On error `share` frees it.
        check(unsafe {
            sys::helib_decryption_share_info(raw.as_ptr(), &mut share.party, &mut masked)
        })?;
        share.masked = masked != 0;
        Ok(share)
    }

    /// The party's tag ([`KeyShare::party`](crate::threshold::KeyShare::party)).
    pub fn party(&self) -> u64 {
        self.party
    }

    /// Whether the share is masked: the plaintext then ends as additive shares.
    pub fn is_masked(&self) -> bool {
        self.masked
    }

    /// The share as bytes, to send to whoever combines the shares.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: the handle is live; `out` is null or writable for `len` bytes;
            // `needed` is a valid out-pointer.
            unsafe { sys::helib_decryption_share_serialize(self.raw.as_ptr(), out, len, needed) }
        })
    }

    /// Reads a share of a ciphertext of `ctx`, every field and residue checked.
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<DecryptionShare> {
        let mut raw: *mut sys::helib_decryption_share = ptr::null_mut();
        // SAFETY: the context handle is live; `bytes` is readable for its length; `raw` is a
        // valid out-pointer set only on success.
        check(unsafe {
            sys::helib_decryption_share_deserialize(
                &mut raw,
                ctx.as_ptr(),
                bytes.as_ptr(),
                bytes.len(),
            )
        })?;
        DecryptionShare::from_raw(raw, ctx)
    }
}

impl fmt::Debug for DecryptionShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecryptionShare")
            .field("party", &self.party)
            .field("masked", &self.masked)
            .finish_non_exhaustive()
    }
}

impl Ctxt {
    /// Adds every party's decryption share of this ciphertext (one per party of the
    /// context, in any order) and returns the `N` plaintext coefficients: the plaintext
    /// itself when no share is masked; otherwise what completes the masked parties' shares
    /// to it (the sum of the result and those shares is the plaintext).
    ///
    /// [`Error::Mismatch`] for a share of another ciphertext, key or context;
    /// [`Error::InvalidArgument`] for a missing share or one party's given twice.
    pub fn combine_decryption<F: PrimeField>(&self, shares: &[DecryptionShare]) -> Result<Vec<F>> {
        check_field::<F>(self.context())?;
        for s in shares {
            self.context()
                .ensure_same(&s.ctx, "the decryption share and the ciphertext")?;
        }
        let per = self.context().plaintext_limbs();
        // What a masked combination returns is no secret, but the unmasked one is the
        // plaintext: wiped either way.
        let mut out = Zeroizing::new(vec![0u64; self.context().ring_degree() * per]);
        let handles: Vec<*const sys::helib_decryption_share> =
            shares.iter().map(|s| s.raw.as_ptr().cast_const()).collect();
        let mut needed = 0usize;
        // SAFETY: the ciphertext and share handles are live for the call; `handles` holds
        // `handles.len()` of them; `out` is writable for its length; `needed` is valid.
        check(unsafe {
            sys::helib_ctxt_combine_decryption(
                self.as_ptr(),
                handles.as_ptr(),
                handles.len(),
                out.as_mut_ptr(),
                out.len(),
                &mut needed,
            )
        })?;
        from_limbs(&out[..needed.min(out.len())], per)
    }
}
