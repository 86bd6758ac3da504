//! The byte form of contexts, keys and ciphertexts (`to_bytes` / `from_bytes`): how a data
//! owner stores its keys and ships ciphertexts and evaluation keys to a server, and how the
//! results come back.
//!
//! Every object starts with a header that names its kind and its context's fingerprint (a hash
//! of `m`, `p`, every prime and the key-switching digits). Reading validates everything before
//! use: a truncated, over-long or altered byte string is [`Error::InvalidArgument`] (`"corrupt
//! data: ..."`), and well-formed bytes of another context, or a ciphertext under another secret
//! key than the given public key's, are [`Error::Mismatch`]. The uniform halves of the public
//! and Galois keys travel as 32-byte seeds, which halves the keys on the wire; so does the
//! uniform half of a secret-key encryption, which halves the data owner's upload
//! ([`SecKey::encrypt_slots_to_bytes`]). Nothing authenticates the bytes: accept them only from
//! where you would accept the data itself. The byte layout is described in
//! `helib-fork/src/serialization/serialize.h`.

use std::ptr;

use ark_ff::PrimeField;
use helib_bindings as sys;
use zeroize::Zeroizing;

use crate::context::Context;
use crate::ctxt::Ctxt;
use crate::encoding::encoder::BatchEncoder;
use crate::encoding::ptxt::check_encoder;
use crate::error::{check, Error, Result};
use crate::field_limbs::encode_poly;
use crate::keys::{GaloisKeys, MasterKeys};
use crate::keys::{PubKey, SecKey};

/// The byte count an engine serializer announces, without writing anything.
fn announced_len(write: impl Fn(*mut u8, usize, &mut usize) -> sys::helib_status) -> Result<u64> {
    let mut needed = 0usize;
    check(write(ptr::null_mut(), 0, &mut needed))?;
    Ok(needed as u64)
}

/// Runs an engine serializer twice: for the size, then into a buffer of that size.
pub(crate) fn collect_bytes(
    write: impl Fn(*mut u8, usize, &mut usize) -> sys::helib_status,
) -> Result<Vec<u8>> {
    let mut needed = 0usize;
    check(write(ptr::null_mut(), 0, &mut needed))?;
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(needed)
        .map_err(|_| Error::OutOfMemory)?;
    // Written into the spare capacity, without zero-filling it first (tens of MiB for keys).
    let mut written = 0usize;
    check(write(out.as_mut_ptr(), needed, &mut written))?;
    if written != needed {
        return Err(Error::Internal(format!(
            "the engine wrote {written} bytes where it announced {needed}"
        )));
    }
    // SAFETY: the capacity is at least `needed`; on success the engine reports in `written`
    // how many bytes it wrote from the start of the buffer (it never writes past the length
    // it was given), and that is all `needed` of them.
    unsafe { out.set_len(needed) };
    Ok(out)
}

impl Context {
    /// The parameters as bytes: `m`, `p`, and the requested modulus size and key-switching
    /// digits (the primes follow from them; the fingerprint in the header checks that).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: the context handle is live; `out` is null (size query) or writable for
            // `len` bytes; `needed` is a valid out-pointer.
            unsafe { sys::helib_context_serialize(self.as_ptr(), out, len, needed) }
        })
    }

    /// Rebuilds a context from [`to_bytes`](Self::to_bytes). Building takes what the
    /// parameters take (tables of up to GiBs at the largest rings): a server that serves
    /// fixed parameters should build its own context and read keys and ciphertexts against
    /// it, whose fingerprints then refuse anything else.
    ///
    /// Refuses parameters below
    /// 128-bit security ([`Error::InsecureParameters`]) as
    /// [`ContextBuilder::build`](crate::ContextBuilder::build) does. Fails with
    /// [`Error::Mismatch`] if this engine derives other primes from the parameters than the
    /// writer did.
    pub fn from_bytes(bytes: &[u8]) -> Result<Context> {
        Self::from_bytes_with(bytes, false)
    }

    /// As [`from_bytes`](Self::from_bytes), accepting parameters below 128-bit security
    /// (as [`ContextBuilder::allow_insecure`](crate::ContextBuilder::allow_insecure); the
    /// bytes themselves never opt out). Only for tests and demos.
    pub fn from_bytes_allow_insecure(bytes: &[u8]) -> Result<Context> {
        Self::from_bytes_with(bytes, true)
    }

    fn from_bytes_with(bytes: &[u8], allow_insecure: bool) -> Result<Context> {
        let mut raw: *mut sys::helib_context = ptr::null_mut();
        // SAFETY: `bytes` is readable for its length; `raw` is a valid out-pointer set only
        // on success.
        check(unsafe {
            sys::helib_context_deserialize(
                &mut raw,
                bytes.as_ptr(),
                bytes.len(),
                i32::from(allow_insecure),
            )
        })?;
        Context::from_raw(raw, None)
    }
}

impl SecKey {
    /// The secret key as bytes.
    ///
    /// **Sensitive**: whoever holds these bytes can decrypt every ciphertext under this key.
    /// Store them as you would any private key (encrypted at rest, never sent to the server;
    /// on Unix, a file of mode 0600). The buffer is zeroed when dropped.
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: the key handle is live; `out` is null or writable for `len` bytes;
            // `needed` is a valid out-pointer.
            unsafe { sys::helib_seckey_serialize(self.as_ptr(), out, len, needed) }
        })
        .map(Zeroizing::new)
    }

    /// Reads a secret key written by [`to_bytes`](Self::to_bytes) for `ctx`'s parameters. On
    /// a context for several [`parties`](Context::parties) there is no whole secret key: read
    /// a party's share with [`KeyShare::from_bytes`](crate::threshold::KeyShare::from_bytes).
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<SecKey> {
        if ctx.parties() > 1 {
            return Err(Error::InvalidArgument(format!(
                "this context's key is shared by {} parties: read a party's share with \
                 threshold::KeyShare::from_bytes",
                ctx.parties()
            )));
        }
        SecKey::from_bytes_any(ctx, bytes)
    }

    /// A secret key or a party's key share, as the bytes hold.
    pub(crate) fn from_bytes_any(ctx: &Context, bytes: &[u8]) -> Result<SecKey> {
        let mut raw: *mut sys::helib_seckey = ptr::null_mut();
        // SAFETY: the context handle is live; `bytes` is readable for its length; `raw` is a
        // valid out-pointer set only on success.
        check(unsafe {
            sys::helib_seckey_deserialize(&mut raw, ctx.as_ptr(), bytes.as_ptr(), bytes.len())
        })?;
        SecKey::from_raw(raw, ctx)
    }
}

impl SecKey {
    /// Secret-key encryption of the polynomial `sum_i coeffs[i] X^i` (as
    /// [`PubKey::encrypt_poly`]), straight to bytes that [`Ctxt::from_bytes`] reads.
    ///
    /// Meant for the data owner's upload: the ciphertext's uniform half travels as a 32-byte
    /// seed, so the bytes are about half of `pk.encrypt_poly(..)?.to_bytes()`, and the fresh
    /// noise has no `u` or `s` factor: its tracked bound is `log2(2 ||s|| + 1)` bits lower (9
    /// at N = 2048, 11 at N >= 32768), which leaves the server more budget (after an FFT,
    /// where key-switching noise dominates, about 3 bits). Fresh randomness on every call.
    /// Fails as [`PubKey::encrypt_poly`] does. See
    /// [`encrypt_slots_to_bytes`](Self::encrypt_slots_to_bytes) for an example.
    pub fn encrypt_poly_to_bytes<F: PrimeField>(&self, coeffs: &[F]) -> Result<Vec<u8>> {
        self.encrypt_limbs_to_bytes(&encode_poly(self.context(), coeffs)?)
    }

    /// Secret-key encryption of up to `N` slot values (zero-padded), straight to bytes that
    /// [`Ctxt::from_bytes`] reads: about half the bytes of a public-key ciphertext and less
    /// fresh noise (see [`encrypt_poly_to_bytes`](SecKey::encrypt_poly_to_bytes)). The data
    /// owner, who holds the secret key anyway, uploads its inputs this way.
    ///
    /// Fails as [`PubKey::encrypt_slots`] does: [`Error::Mismatch`](crate::Error::Mismatch)
    /// for an encoder of another ring degree, and as `encode` does for too many values.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, Ctxt, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let v: Vec<Fr> = (1..=4u64).map(Fr::from).collect();
    ///
    /// let upload = sk.encrypt_slots_to_bytes(&enc, &v)?;
    /// let full = pk.encrypt_slots(&enc, &v)?;
    /// assert!(upload.len() < full.to_bytes()?.len() / 2 + 100); // about half
    ///
    /// let ct = Ctxt::from_bytes(&pk, &upload)?; // the server's view
    /// assert!(ct.noise_budget() > full.noise_budget());
    /// assert_eq!(&sk.decrypt_slots(&enc, &ct)?[..4], &v[..]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn encrypt_slots_to_bytes<F: PrimeField>(
        &self,
        encoder: &BatchEncoder<F>,
        values: &[F],
    ) -> Result<Vec<u8>> {
        check_encoder(self.context(), encoder)?;
        self.encrypt_limbs_to_bytes(
            &encoder.encode_to_limbs(values, self.context().plaintext_limbs())?,
        )
    }

    /// Coefficients laid out as the engine takes them (checked by the caller), encrypted.
    pub(crate) fn encrypt_limbs_to_bytes(&self, limbs: &[u64]) -> Result<Vec<u8>> {
        let num_coeffs = limbs.len() / self.context().plaintext_limbs();
        collect_bytes(|out, len, needed| {
            // SAFETY: the key handle is live; `limbs` holds `num_coeffs * plaintext_limbs`
            // values; `out` is null (a size query, which encrypts nothing) or writable for
            // `len` bytes; `needed` is a valid out-pointer.
            unsafe {
                sys::helib_seckey_encrypt_serialized(
                    self.as_ptr(),
                    limbs.as_ptr(),
                    num_coeffs,
                    out,
                    len,
                    needed,
                )
            }
        })
    }
}

impl PubKey {
    /// The public key and its relinearization key as bytes (the uniform parts as seeds).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: the key handle is live; `out` is null or writable for `len` bytes;
            // `needed` is a valid out-pointer.
            unsafe { sys::helib_pubkey_serialize(self.inner.as_ptr(), out, len, needed) }
        })
    }

    /// The length of [`to_bytes`](Self::to_bytes)'s result, without building it.
    pub fn serialized_len(&self) -> Result<u64> {
        announced_len(|out, len, needed| {
            // SAFETY: as in to_bytes, with a null buffer: a size query only.
            unsafe { sys::helib_pubkey_serialize(self.inner.as_ptr(), out, len, needed) }
        })
    }

    /// The public key without its relinearization key: enough to encrypt, and for a server
    /// that multiplies no two ciphertexts (FFTs and other linear maps), at a fraction of
    /// [`to_bytes`](Self::to_bytes)'s size. [`from_bytes`](Self::from_bytes) reads it;
    /// multiplying ciphertexts under the key read back fails with
    /// [`Error::MissingKey`](crate::Error::MissingKey).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::{Context, Error, PubKey, SecKey};
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// # let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    /// #     .ciphertext_bits(600).allow_insecure(true).build()?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let bytes = pk.to_bytes_without_relinearization()?;
    /// assert!(bytes.len() < pk.to_bytes()?.len() / 2);
    /// let server = PubKey::from_bytes(&ctx, &bytes)?;
    /// let mut x = server.encrypt_const(Fr::from(3u64))?;
    /// x.add_assign(&server.encrypt_const(Fr::from(4u64))?)?; // linear work is fine
    /// assert!(matches!(x.checked_mul(&x), Err(Error::MissingKey(_))));
    /// assert_eq!(sk.decrypt_const::<Fr>(&x)?, Fr::from(7u64));
    /// # Ok(())
    /// # }
    /// ```
    pub fn to_bytes_without_relinearization(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: as in to_bytes.
            unsafe {
                sys::helib_pubkey_serialize_encryption_key(self.inner.as_ptr(), out, len, needed)
            }
        })
    }

    /// The length of [`to_bytes_without_relinearization`](Self::to_bytes_without_relinearization)'s
    /// result, without building it.
    pub fn serialized_len_without_relinearization(&self) -> Result<u64> {
        announced_len(|out, len, needed| {
            // SAFETY: as in to_bytes, with a null buffer: a size query only.
            unsafe {
                sys::helib_pubkey_serialize_encryption_key(self.inner.as_ptr(), out, len, needed)
            }
        })
    }

    /// Reads a public key written by [`to_bytes`](Self::to_bytes) (or
    /// [`to_bytes_without_relinearization`](Self::to_bytes_without_relinearization)) for
    /// `ctx`'s parameters.
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<PubKey> {
        let mut raw: *mut sys::helib_pubkey = ptr::null_mut();
        // SAFETY: the context handle is live; `bytes` is readable for its length; `raw` is a
        // valid out-pointer set only on success.
        check(unsafe {
            sys::helib_pubkey_deserialize(&mut raw, ctx.as_ptr(), bytes.as_ptr(), bytes.len())
        })?;
        PubKey::from_raw(raw, ctx)
    }
}

impl GaloisKeys {
    /// The keys as bytes: about half of [`size_bytes`](Self::size_bytes), since each key's
    /// uniform part travels as a seed. Reading expands the seeds again (a fraction of the
    /// time generation takes).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: the key-set handle is live; `out` is null or writable for `len` bytes;
            // `needed` is a valid out-pointer.
            unsafe { sys::helib_galois_keys_serialize(self.as_ptr(), out, len, needed) }
        })
    }

    /// The length of [`to_bytes`](Self::to_bytes)'s result, without building it (what the
    /// keys take on the wire).
    pub fn serialized_len(&self) -> Result<u64> {
        announced_len(|out, len, needed| {
            // SAFETY: as in to_bytes, with a null buffer: a size query only.
            unsafe { sys::helib_galois_keys_serialize(self.as_ptr(), out, len, needed) }
        })
    }

    /// Reads keys written by [`to_bytes`](Self::to_bytes) for `ctx`'s parameters.
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<GaloisKeys> {
        let mut raw: *mut sys::helib_galois_keys = ptr::null_mut();
        // SAFETY: the context handle is live; `bytes` is readable for its length; `raw` is a
        // valid out-pointer set only on success.
        check(unsafe {
            sys::helib_galois_keys_deserialize(&mut raw, ctx.as_ptr(), bytes.as_ptr(), bytes.len())
        })?;
        GaloisKeys::from_raw(raw, ctx, None)
    }
}

impl MasterKeys {
    /// The master keys as bytes (each key's uniform part as a seed): what the owner ships
    /// instead of every Galois key.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: the handle is live; `out` is null or writable for `len` bytes; `needed`
            // is a valid out-pointer.
            unsafe { sys::helib_master_keys_serialize(self.as_ptr(), out, len, needed) }
        })
    }

    /// The length of [`to_bytes`](Self::to_bytes)'s result, without building it.
    pub fn serialized_len(&self) -> Result<u64> {
        announced_len(|out, len, needed| {
            // SAFETY: as in to_bytes, with a null buffer: a size query only.
            unsafe { sys::helib_master_keys_serialize(self.as_ptr(), out, len, needed) }
        })
    }

    /// Reads master keys written by [`to_bytes`](Self::to_bytes) for `ctx`'s parameters
    /// (validated as every object is: counts, residues, elements, no trailing bytes).
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<MasterKeys> {
        let mut raw: *mut sys::helib_master_keys = ptr::null_mut();
        // SAFETY: the context handle is live; `bytes` is readable for its length; `raw` is a
        // valid out-pointer set only on success.
        check(unsafe {
            sys::helib_master_keys_deserialize(&mut raw, ctx.as_ptr(), bytes.as_ptr(), bytes.len())
        })?;
        MasterKeys::from_raw(raw, ctx)
    }
}

impl Ctxt {
    /// The ciphertext as bytes, with its level, noise bound and plaintext factor: `2 x level
    /// x N` words and a small header.
    ///
    /// # Example: a data owner and a server that share only bytes
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, Ctxt, GaloisKeys, GaloisSteps, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// // Data owner: parameters, keys, a packed vector.
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size: see Context::bn254
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1))?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// let x: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    /// let ct = pk.encrypt_slots(&enc, &x)?;
    /// let to_server = [ctx.to_bytes()?, pk.to_bytes()?, gk.to_bytes()?, ct.to_bytes()?];
    ///
    /// // Server: no secret key, only bytes.
    /// let s_ctx = Context::from_bytes_allow_insecure(&to_server[0])?;
    /// let s_pk = PubKey::from_bytes(&s_ctx, &to_server[1])?;
    /// let s_gk = GaloisKeys::from_bytes(&s_ctx, &to_server[2])?;
    /// let mut s_ct = Ctxt::from_bytes(&s_pk, &to_server[3])?;
    /// s_ct.rotate_rows(1, &s_gk)?;
    /// let back = s_ct.to_bytes()?;
    ///
    /// // Data owner again.
    /// let y = sk.decrypt_slots(&enc, &Ctxt::from_bytes(&pk, &back)?)?;
    /// assert_eq!(y[0], Fr::from(1u64));
    /// assert!(Ctxt::from_bytes(&pk, &back[..back.len() - 1]).is_err()); // truncated
    /// # Ok(())
    /// # }
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: the ciphertext handle is live and only read; `out` is null or writable
            // for `len` bytes; `needed` is a valid out-pointer.
            unsafe { sys::helib_ctxt_serialize(self.as_ptr(), out, len, needed) }
        })
    }

    /// The same with `c0`'s rows in coefficient form, the form an
    /// [`EncryptionPool`](crate::EncryptionPool) keeps its zeros in (adding a message then
    /// needs no transform). [`from_bytes`](Self::from_bytes) reads it.
    pub(crate) fn to_bytes_coefficient_form(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: as in `to_bytes`.
            unsafe { sys::helib_ctxt_serialize_coefficient_form(self.as_ptr(), out, len, needed) }
        })
    }

    /// Reads a ciphertext written by [`to_bytes`](Self::to_bytes), or a fresh one from
    /// [`SecKey::encrypt_slots_to_bytes`] / [`SecKey::encrypt_poly_to_bytes`] (whose seeded
    /// half is expanded again) or from [`EncryptionPool::encrypt_poly_to_bytes`](crate::EncryptionPool::encrypt_poly_to_bytes)
    /// (whose `c0` is transformed on reading), and attaches it to `pk`
    /// (multiplication relinearizes with `pk`'s key), which must belong to the secret key it
    /// is encrypted under ([`Error::Mismatch`] otherwise).
    ///
    /// The noise bound is taken from the bytes: a sender who understates it only makes the
    /// results on its own ciphertexts unreliable.
    pub fn from_bytes(pk: &PubKey, bytes: &[u8]) -> Result<Ctxt> {
        let mut raw: *mut sys::helib_ctxt = ptr::null_mut();
        // SAFETY: the key handle is live; `bytes` is readable for its length; `raw` is a
        // valid out-pointer set only on success.
        check(unsafe {
            sys::helib_ctxt_deserialize(&mut raw, pk.inner.as_ptr(), bytes.as_ptr(), bytes.len())
        })?;
        Ctxt::from_raw(raw, &pk.inner)
    }
}
