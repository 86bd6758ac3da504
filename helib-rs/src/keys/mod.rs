//! Secret and public keys.

use std::fmt;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use helib_bindings as sys;
use zeroize::Zeroizing;

use crate::context::Context;
use crate::error::{check, Error, Result};

pub(crate) mod galois_elements;
mod galois_keys;
mod galois_steps;
mod master_keys;
mod secret_file;

pub use galois_keys::GaloisKeys;
pub use galois_steps::GaloisSteps;
pub use master_keys::{MasterKeys, MASTER_STEP_BASE};
pub use secret_file::{write_private_file, write_public_file};

/// Identifies a secret key so that ciphertexts under different keys are refused before the
/// engine is called: the engine's id of the key, 64 random bits drawn with it, which
/// serialization keeps, so keys and ciphertexts read back still recognise each other.
pub(crate) type KeyId = u64;

/// A BGV secret key: a uniform ternary polynomial sampled from the OS CSPRNG.
///
/// Decrypts ciphertexts made with any [`PubKey`] derived from it. Keeps its [`Context`]
/// alive.
pub struct SecKey {
    raw: NonNull<sys::helib_seckey>,
    ctx: Context,
    id: KeyId,
}

// SAFETY: the engine's secret key is immutable after generation and only passed as a const
// pointer; the C API declares const handles safe to share between threads. It is freed once,
// from Drop.
unsafe impl Send for SecKey {}
// SAFETY: as above — no interior mutation on either side.
unsafe impl Sync for SecKey {}

impl Drop for SecKey {
    fn drop(&mut self) {
        // SAFETY: `raw` came from helib_seckey_new and is freed exactly once, here; the
        // context it refers to is still alive because `self.ctx` is dropped after this.
        unsafe { sys::helib_seckey_free(self.raw.as_ptr()) }
    }
}

impl SecKey {
    /// Samples a fresh secret key for `ctx`. Two calls give independent keys.
    pub fn generate(ctx: &Context) -> Result<SecKey> {
        let mut raw: *mut sys::helib_seckey = ptr::null_mut();
        // SAFETY: the context handle is live; `raw` is a valid out-pointer set on success.
        check(unsafe { sys::helib_seckey_new(&mut raw, ctx.as_ptr()) })?;
        Self::from_raw(raw, ctx)
    }

    /// **INSECURE: for reproducible experiments and tests only, never for data that
    /// matters.** The secret key, and every public, relinearization and Galois key generated
    /// from it, derived from `seed` alone: the same seed on the same context gives the same
    /// keys, byte for byte, in any order of generation. Anyone who knows or guesses the seed
    /// has the secret key. Encryption randomness still comes from the OS, so ciphertexts and
    /// their noise differ from run to run. A key read back with [`SecKey::from_bytes`] has no
    /// seed, and keys generated from it are random again.
    ///
    /// Only with the crate feature `insecure-deterministic-keys`.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{Context, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(1024).plaintext_field::<Fr>()
    ///     .ciphertext_bits(400).allow_insecure(true).build()?;
    /// let a = SecKey::generate_insecure_deterministic(&ctx, [7; 32])?;
    /// let b = SecKey::generate_insecure_deterministic(&ctx, [7; 32])?;
    /// assert_eq!(*a.to_bytes()?, *b.to_bytes()?);
    /// assert_eq!(PubKey::generate(&a)?.to_bytes()?, PubKey::generate(&b)?.to_bytes()?);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "insecure-deterministic-keys")]
    pub fn generate_insecure_deterministic(ctx: &Context, seed: [u8; 32]) -> Result<SecKey> {
        let seed = zeroize::Zeroizing::new(seed);
        let mut raw: *mut sys::helib_seckey = ptr::null_mut();
        // SAFETY: the context handle is live; `seed` is readable for the 32 bytes the engine
        // reads; `raw` is a valid out-pointer set on success.
        check(unsafe {
            sys::helib_seckey_new_insecure_deterministic(&mut raw, ctx.as_ptr(), seed.as_ptr())
        })?;
        Self::from_raw(raw, ctx)
    }

    /// Takes ownership of a handle the engine just produced for `ctx`.
    pub(crate) fn from_raw(raw: *mut sys::helib_seckey, ctx: &Context) -> Result<SecKey> {
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::Internal("the engine returned no secret key".into()))?;
        let mut key = SecKey {
            raw,
            ctx: ctx.clone(),
            id: 0,
        };
        // SAFETY: the handle is live; the out-pointer is valid. On error `key` frees it.
        check(unsafe { sys::helib_seckey_id(raw.as_ptr(), &mut key.id) })?;
        Ok(key)
    }

    /// The context this key belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The secret's `N` coefficients, each in `{-1, 0, 1}`.
    ///
    /// **Sensitive**: anyone holding these can decrypt every ciphertext under this key. Meant
    /// for tests and for exporting the key to protected storage. The buffer is zeroed when
    /// dropped.
    pub fn coefficients(&self) -> Result<Zeroizing<Vec<i8>>> {
        let mut out = Zeroizing::new(vec![0i8; self.ctx.ring_degree()]);
        let mut needed = 0usize;
        // SAFETY: the key handle is live; `out` is writable for `out.len()` elements and
        // `needed` is a valid out-pointer.
        check(unsafe {
            sys::helib_seckey_coefficients(
                self.raw.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                &mut needed,
            )
        })?;
        out.truncate(needed);
        Ok(out)
    }

    pub(crate) fn as_ptr(&self) -> *const sys::helib_seckey {
        self.raw.as_ptr()
    }

    pub(crate) fn id(&self) -> KeyId {
        self.id
    }
}

impl fmt::Debug for SecKey {
    // Never prints key material.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecKey")
            .field("ring_degree", &self.ctx.ring_degree())
            .finish_non_exhaustive()
    }
}

/// A BGV public key together with the relinearization key used by ciphertext
/// multiplication.
///
/// Cloning is cheap (a reference count). Every [`Ctxt`](crate::Ctxt) it encrypts holds a
/// reference to it, because multiplication takes the relinearization key from there (as in
/// HElib, where a ciphertext refers to its public key).
#[derive(Clone)]
pub struct PubKey {
    pub(crate) inner: Arc<PubKeyInner>,
}

pub(crate) struct PubKeyInner {
    raw: NonNull<sys::helib_pubkey>,
    ctx: Context,
    secret_id: KeyId,
    size_bytes: u64,
}

// SAFETY: the engine's public key (with its relinearization key) is immutable after
// generation and only passed as a const pointer; the C API declares const handles safe to
// share between threads. It is freed once, from Drop, when the last reference goes.
unsafe impl Send for PubKeyInner {}
// SAFETY: as above — no interior mutation on either side.
unsafe impl Sync for PubKeyInner {}

impl Drop for PubKeyInner {
    fn drop(&mut self) {
        // SAFETY: `raw` came from helib_pubkey_new and is freed exactly once, here; the
        // context is still alive because `self.ctx` is dropped after this.
        unsafe { sys::helib_pubkey_free(self.raw.as_ptr()) }
    }
}

impl PubKeyInner {
    pub(crate) fn as_ptr(&self) -> *const sys::helib_pubkey {
        self.raw.as_ptr()
    }

    pub(crate) fn context(&self) -> &Context {
        &self.ctx
    }

    pub(crate) fn secret_id(&self) -> KeyId {
        self.secret_id
    }
}

impl PubKey {
    /// Derives the public key and the relinearization key from `sk`.
    pub fn generate(sk: &SecKey) -> Result<PubKey> {
        let mut raw: *mut sys::helib_pubkey = ptr::null_mut();
        // SAFETY: the secret-key handle is live; `raw` is a valid out-pointer set on success.
        check(unsafe { sys::helib_pubkey_new(&mut raw, sk.as_ptr()) })?;
        Self::from_raw(raw, sk.context())
    }

    /// Takes ownership of a handle the engine just produced for `ctx`.
    pub(crate) fn from_raw(raw: *mut sys::helib_pubkey, ctx: &Context) -> Result<PubKey> {
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::Internal("the engine returned no public key".into()))?;
        let mut inner = PubKeyInner {
            raw,
            ctx: ctx.clone(),
            secret_id: 0,
            size_bytes: 0,
        };
        // SAFETY: the handle is live; the out-pointers are valid. On error `inner` frees it.
        check(unsafe { sys::helib_pubkey_id(raw.as_ptr(), &mut inner.secret_id) })?;
        // SAFETY: as above.
        check(unsafe { sys::helib_pubkey_size_bytes(raw.as_ptr(), &mut inner.size_bytes) })?;
        Ok(PubKey {
            inner: Arc::new(inner),
        })
    }

    /// The context this key belongs to.
    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }

    /// Bytes of memory held by the key material (public key plus relinearization key).
    pub fn size_bytes(&self) -> u64 {
        self.inner.size_bytes
    }

    /// Whether `sk` is the secret key this public key was derived from.
    pub fn belongs_to(&self, sk: &SecKey) -> bool {
        self.inner.secret_id == sk.id()
    }
}

impl fmt::Debug for PubKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PubKey")
            .field("ring_degree", &self.inner.ctx.ring_degree())
            .field("size_bytes", &self.inner.size_bytes)
            .finish_non_exhaustive()
    }
}
