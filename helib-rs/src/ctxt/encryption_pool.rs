//! [`EncryptionPool`]: offline/online encryption with fresh encryptions of zero, each used once.

use ark_ff::PrimeField;

use crate::error::{Error, Result};
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
/// A serialized pool is a one-time resource like a one-time pad: load it once and delete it.
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
    zeros: Vec<Ctxt>,
}

/// The most zeros one pool holds: bounds what [`EncryptionPool::from_bytes`] accepts before it
/// allocates (a zero at `N = 65536` is tens of MiB).
pub const MAX_POOL_SIZE: usize = 1 << 20;

impl EncryptionPool {
    /// `count` fresh public-key encryptions of zero under `pk`.
    pub fn public(pk: &PubKey, count: usize) -> Result<Self> {
        check_count(count)?;
        let zeros = (0..count)
            .map(|_| pk.encrypt_limbs(&[]))
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
            .map(|_| Ctxt::from_bytes(pk, &sk.encrypt_limbs_to_bytes(&[])?))
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

    /// Online encryption of a plaintext polynomial (up to `N` coefficients).
    pub fn encrypt_poly<F: PrimeField>(&mut self, coeffs: &[F]) -> Result<Ctxt> {
        let mut ct = self.zeros.pop().ok_or_else(|| {
            Error::InvalidArgument(
                "the encryption pool is empty: fill a new one (a zero is never used twice)".into(),
            )
        })?;
        if let Err(e) = ct.add_poly(coeffs) {
            self.zeros.push(ct);
            return Err(e);
        }
        Ok(ct)
    }

    /// The pool as bytes, for a device that precomputes while idle; consumed, so the same
    /// zeros cannot also stay in memory. The count (`u64`, little-endian), then each zero as
    /// its length (`u64`) and [`Ctxt::to_bytes`].
    pub fn into_bytes(self) -> Result<Vec<u8>> {
        let mut out = (self.zeros.len() as u64).to_le_bytes().to_vec();
        for ct in &self.zeros {
            let bytes = ct.to_bytes()?;
            out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            out.extend_from_slice(&bytes);
        }
        Ok(out)
    }

    /// Reads a pool written by [`into_bytes`](Self::into_bytes) for `pk`, validating every zero
    /// as [`Ctxt::from_bytes`] does. Load a stored pool once.
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
            let (ct, tail) = rest.split_at(len);
            zeros.push(Ctxt::from_bytes(pk, ct)?);
            rest = tail;
        }
        if !rest.is_empty() {
            return Err(corrupt("trailing bytes"));
        }
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
