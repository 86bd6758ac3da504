//! [`EncryptionPool`]: offline/online encryption with fresh encryptions of zero, each used once.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use ark_ff::PrimeField;
use helib_bindings as sys;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::error::{check, Error, Result};
use crate::field_limbs::encode_poly;
use crate::{BatchEncoder, Ctxt, PubKey, SecKey};

/// Encryptions of zero made ahead of time (offline), each consumed by exactly one online
/// encryption, which is then only an encoding and an addition: `Enc(0) + m` is an encryption
/// of `m` with the same noise and the same security as a fresh one, because its randomness
/// is fresh and never used again.
///
/// Schemes that cache *one* encryption of zero and add it to every message are insecure: two
/// such ciphertexts subtract to `m - m'` in the clear. Here every zero is drawn with its own
/// randomness from the OS, [`encrypt_slots`](Self::encrypt_slots) takes it out of the pool
/// (ownership makes a second use impossible), and an empty pool is an error, never a reuse.
/// A serialized pool is a one-time resource like a one-time pad: [`from_bytes`](Self::from_bytes)
/// refuses zeros this process loaded before, and a [`PoolFile`](crate::PoolFile) keeps a pool
/// on disk and removes each zero from the file before its ciphertext is returned.
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{BatchEncoder, Context, EncryptionPool, Error, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size, insecure
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
///
/// let mut pool = EncryptionPool::public(&pk, 2)?; // offline: while the device is idle
/// let x: Vec<Fr> = (1..=4u64).map(Fr::from).collect();
/// let ct = pool.encrypt_slots(&enc, &x)?; // online: encode and add
/// assert_eq!(&sk.decrypt_slots(&enc, &ct)?[..4], &x[..]);
/// assert_eq!(pool.len(), 1);
/// pool.encrypt_slots(&enc, &x)?;
/// assert!(matches!(pool.encrypt_slots(&enc, &x), Err(Error::InvalidArgument(_)))); // empty
/// # Ok(())
/// # }
/// ```
pub struct EncryptionPool {
    pk: PubKey,
    zeros: Vec<Zero>,
}

/// One encryption of zero, as bytes with `c0` in coefficient form: an online encryption adds
/// the message's residues to those rows in place and hands the bytes on, with no transform and
/// no copy. Wiped when dropped unused: whoever saw a zero could subtract it from the
/// ciphertext made with it.
struct Zero {
    bytes: Zeroizing<Vec<u8>>,
    level: u32,
}

impl Zero {
    fn new(ct: &Ctxt) -> Result<Zero> {
        Ok(Zero {
            bytes: Zeroizing::new(ct.to_bytes_coefficient_form()?),
            level: ct.level(),
        })
    }

    /// The bytes, no longer secret once a message was added (taken out unwiped).
    fn into_upload(mut self) -> Vec<u8> {
        std::mem::take(&mut *self.bytes)
    }
}

/// The most zeros one pool holds: bounds what [`EncryptionPool::from_bytes`] accepts before it
/// allocates (a zero at `N = 65536` is tens of MiB).
pub const MAX_POOL_SIZE: usize = 1 << 20;

/// Bytes 6..8 of every engine object name its kind; 9 is a ciphertext whose `c0` is in
/// coefficient form, the form a pool's zeros take.
const COEFFICIENT_FORM_KIND: u16 = 9;

impl EncryptionPool {
    /// `count` fresh public-key encryptions of zero under `pk`.
    pub fn public(pk: &PubKey, count: usize) -> Result<Self> {
        check_count(count)?;
        let zeros = (0..count)
            .map(|_| Zero::new(&pk.encrypt_limbs(&[])?))
            .collect::<Result<_>>()?;
        Ok(EncryptionPool {
            pk: pk.clone(),
            zeros,
        })
    }

    /// `count` fresh secret-key encryptions of zero (less noise than public-key ones), used
    /// with `pk`, which must belong to `sk`.
    pub fn secret(sk: &SecKey, pk: &PubKey, count: usize) -> Result<Self> {
        check_count(count)?;
        let zeros = (0..count)
            .map(|_| Zero::new(&Ctxt::from_bytes(pk, &sk.encrypt_limbs_to_bytes(&[])?)?))
            .collect::<Result<_>>()?;
        Ok(EncryptionPool {
            pk: pk.clone(),
            zeros,
        })
    }

    /// Zeros left.
    pub fn len(&self) -> usize {
        self.zeros.len()
    }

    /// Whether no zero is left.
    pub fn is_empty(&self) -> bool {
        self.zeros.is_empty()
    }

    /// Online encryption of up to `N` slot values: the next zero plus their encoding.
    /// Fails with [`Error::InvalidArgument`] on an empty pool, and as
    /// [`PubKey::encrypt_slots`] does for a wrong encoder or too many values (the zero is then
    /// kept).
    pub fn encrypt_slots<F: PrimeField>(
        &mut self,
        encoder: &BatchEncoder<F>,
        values: &[F],
    ) -> Result<Ctxt> {
        let poly = encoder.encode(values)?;
        self.encrypt_poly(&poly)
    }

    /// Online encryption of a plaintext polynomial (up to `N` coefficients), as a ciphertext
    /// in memory. [`encrypt_poly_to_bytes`](Self::encrypt_poly_to_bytes) is faster when the
    /// ciphertext is to be sent: it skips the transform that this call makes on reading.
    pub fn encrypt_poly<F: PrimeField>(&mut self, coeffs: &[F]) -> Result<Ctxt> {
        let (bytes, _) = self.add_to_next(coeffs)?;
        Ctxt::from_bytes(&self.pk, &bytes)
    }

    /// Online encryption of up to `N` slot values, as the bytes to send:
    /// [`encrypt_poly_to_bytes`](Self::encrypt_poly_to_bytes) of their encoding.
    pub fn encrypt_slots_to_bytes<F: PrimeField>(
        &mut self,
        encoder: &BatchEncoder<F>,
        values: &[F],
    ) -> Result<Vec<u8>> {
        let poly = encoder.encode(values)?;
        self.encrypt_poly_to_bytes(&poly)
    }

    /// Online encryption of a plaintext polynomial (up to `N` coefficients), straight to the
    /// bytes that [`Ctxt::from_bytes`] reads: the message's residues are added to the zero's
    /// rows in place, with no transform and no copy. Whoever reads the bytes makes the one
    /// transform (of `c0`) that a fresh encryption makes on the device.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{Context, Ctxt, EncryptionPool, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size, insecure
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let mut pool = EncryptionPool::public(&pk, 1)?;
    /// let coeffs = [Fr::from(7u64), Fr::from(8u64)];
    /// let upload = pool.encrypt_poly_to_bytes(&coeffs)?; // online: no transform
    /// let ct = Ctxt::from_bytes(&pk, &upload)?; // the receiver transforms c0
    /// assert_eq!(&sk.decrypt_poly::<Fr>(&ct)?[..2], &coeffs[..]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn encrypt_poly_to_bytes<F: PrimeField>(&mut self, coeffs: &[F]) -> Result<Vec<u8>> {
        Ok(self.add_to_next(coeffs)?.0)
    }

    /// The level the next zero is at (the context's fresh level), if any is left.
    pub(crate) fn next_level(&self) -> Option<u32> {
        self.zeros.last().map(|z| z.level)
    }

    /// The next zero plus `coeffs`, as bytes, and the noise budget they leave. The engine
    /// checks the message before it touches the zero, so on an error the zero stays.
    pub(crate) fn add_to_next<F: PrimeField>(&mut self, coeffs: &[F]) -> Result<(Vec<u8>, f64)> {
        let zero = self.zeros.last_mut().ok_or_else(empty_pool)?;
        let budget = add_message(&self.pk, &mut zero.bytes, coeffs)?;
        let zero = self
            .zeros
            .pop()
            .ok_or_else(|| Error::Internal("the zero vanished".into()))?;
        Ok((zero.into_upload(), budget))
    }

    /// The pool as bytes, for a device that precomputes while idle; consumed, so the same
    /// zeros cannot also stay in memory. The count (`u64`, little-endian), then each zero as
    /// its length (`u64`) and its bytes (a ciphertext with `c0` in coefficient form, which
    /// [`Ctxt::from_bytes`] also reads). Secret like a one-time pad: whoever holds a zero can
    /// take it off the ciphertext made with it. Store it readable by its owner only (0600),
    /// load it once and delete it; the returned buffer is wiped when dropped.
    pub fn into_bytes(self) -> Result<Zeroizing<Vec<u8>>> {
        let total = self.zeros.iter().map(|z| 8 + z.bytes.len()).sum::<usize>() + 8;
        let mut out = Zeroizing::new(Vec::with_capacity(total));
        out.extend_from_slice(&(self.zeros.len() as u64).to_le_bytes());
        for zero in &self.zeros {
            out.extend_from_slice(&(zero.bytes.len() as u64).to_le_bytes());
            out.extend_from_slice(&zero.bytes);
        }
        Ok(out)
    }

    /// Reads a pool written by [`into_bytes`](Self::into_bytes) for `pk`, validating every zero
    /// as [`Ctxt::from_bytes`] does (and that it is in the pool's form).
    ///
    /// A zero is used once, so a pool is loaded once: bytes that list one zero twice are
    /// refused, and so is every zero this process already loaded (from these bytes, other
    /// bytes or a [`PoolFile`](crate::PoolFile)), with [`Error::InvalidArgument`]. A process
    /// cannot see what another one loaded: keep a stored pool in a [`PoolFile`](crate::PoolFile),
    /// which consumes it in place.
    pub fn from_bytes(pk: &PubKey, bytes: &[u8]) -> Result<Self> {
        let corrupt = |what: &str| Error::InvalidArgument(format!("corrupt data: pool {what}"));
        let mut rest = bytes;
        let take_u64 = |rest: &mut &[u8]| -> Result<u64> {
            let (head, tail) = rest
                .split_first_chunk::<8>()
                .ok_or_else(|| corrupt("truncated"))?;
            *rest = tail;
            Ok(u64::from_le_bytes(*head))
        };
        let count = usize::try_from(take_u64(&mut rest)?).map_err(|_| corrupt("count"))?;
        // Each zero takes at least its 8-byte length: a forged count allocates nothing.
        if count > MAX_POOL_SIZE || count > rest.len() / 8 {
            return Err(corrupt("count beyond its bytes"));
        }
        let mut zeros = Vec::with_capacity(count);
        for _ in 0..count {
            let len = usize::try_from(take_u64(&mut rest)?).map_err(|_| corrupt("length"))?;
            if len > rest.len() {
                return Err(corrupt("truncated"));
            }
            let (zero, tail) = rest.split_at(len);
            zeros.push(Zero {
                level: check_zero(pk, zero)?,
                bytes: Zeroizing::new(zero.to_vec()),
            });
            rest = tail;
        }
        if !rest.is_empty() {
            return Err(corrupt("trailing bytes"));
        }
        let ring = pk.context().ring_degree();
        claim_zeros(zeros.iter().map(|z| zero_digest(&z.bytes, z.level, ring)))?;
        Ok(EncryptionPool {
            pk: pk.clone(),
            zeros,
        })
    }

    /// The public key the pool's zeros are under.
    pub fn public_key(&self) -> &PubKey {
        &self.pk
    }
}

fn check_count(count: usize) -> Result<()> {
    if count > MAX_POOL_SIZE {
        return Err(Error::InvalidArgument(format!(
            "an encryption pool holds at most {MAX_POOL_SIZE} zeros, asked for {count}"
        )));
    }
    Ok(())
}

fn empty_pool() -> Error {
    Error::InvalidArgument(
        "the encryption pool is empty: fill a new one (a zero is never used twice)".into(),
    )
}

/// Adds `coeffs` to the zero in `bytes` in place; the noise budget left. The engine checks the
/// message before it changes a byte.
pub(super) fn add_message<F: PrimeField>(
    pk: &PubKey,
    bytes: &mut [u8],
    coeffs: &[F],
) -> Result<f64> {
    let limbs = Zeroizing::new(encode_poly(pk.context(), coeffs)?);
    let num_coeffs = limbs.len() / pk.context().plaintext_limbs();
    let mut budget = 0.0;
    // SAFETY: the key handle is live; `bytes` is exclusively borrowed and writable for its
    // length; `limbs` holds `num_coeffs` values of `plaintext_limbs` limbs and is live for the
    // call; `budget` is a valid out-pointer.
    check(unsafe {
        sys::helib_coefficient_form_add_poly(
            pk.inner.as_ptr(),
            bytes.as_mut_ptr(),
            bytes.len(),
            limbs.as_ptr(),
            num_coeffs,
            &mut budget,
        )
    })?;
    Ok(budget)
}

/// Validates one stored zero for `pk` (a ciphertext in the pool's form); its level.
pub(super) fn check_zero(pk: &PubKey, zero: &[u8]) -> Result<u32> {
    if zero.get(6..8) != Some(&COEFFICIENT_FORM_KIND.to_le_bytes()[..]) {
        return Err(Error::InvalidArgument(
            "corrupt data: pool entry that is not a zero in the pool's form".into(),
        ));
    }
    Ok(Ctxt::from_bytes(pk, zero)?.level())
}

/// What makes a zero the one it is: a hash of its `c1` rows (the last `level * N` words),
/// which two uses of one zero share.
pub(super) fn zero_digest(zero: &[u8], level: u32, ring_degree: usize) -> [u8; 32] {
    let c1 = (level as usize * ring_degree * 8).min(zero.len());
    Sha256::digest(&zero[zero.len() - c1..]).into()
}

/// Marks zeros as loaded in this process, or refuses them all if one is listed twice or was
/// loaded before.
///
/// This is the one piece of process-wide state in the crate, on purpose: "loaded once" is a
/// property of the process, not of any value a caller holds. It keeps 32 bytes a zero and is
/// never cleared, since a zero used and dropped must not come back either.
pub(super) fn claim_zeros(digests: impl Iterator<Item = [u8; 32]>) -> Result<()> {
    static CLAIMED: OnceLock<Mutex<HashSet<[u8; 32]>>> = OnceLock::new();
    let mut batch = HashSet::new();
    for d in digests {
        if !batch.insert(d) {
            return Err(Error::InvalidArgument(
                "corrupt data: the pool lists one encryption of zero twice".into(),
            ));
        }
    }
    let mut claimed = CLAIMED
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| Error::Internal("the pool registry's lock was poisoned".into()))?;
    if batch.iter().any(|d| claimed.contains(d)) {
        return Err(Error::InvalidArgument(
            "these encryptions of zero were already loaded in this process: a stored pool is \
             loaded once (each zero is used once)"
                .into(),
        ));
    }
    claimed.extend(batch);
    Ok(())
}
