//! [`PoolFile`]: an [`EncryptionPool`] kept on disk and consumed in place, one zero at a time.

use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use ark_ff::PrimeField;
use zeroize::Zeroizing;

use super::encryption_pool::{add_message, check_zero, claim_zeros, zero_digest};
use crate::error::{Error, Result};
use crate::{BatchEncoder, Ctxt, EncryptionPool, ObjectKind, PubKey, MAX_POOL_SIZE};

/// A stored pool of encryptions of zero that hands each zero out once, across crashes,
/// restarts and processes.
///
/// The file has [`EncryptionPool::into_bytes`]' form: a count, then each zero with its length.
/// The count is the truth. Taking a zero (the last one) first lowers the count on disk and
/// syncs it, and only then returns the ciphertext made with it; the zero's bytes are then
/// overwritten with zeros and cut off the file. A crash after the count was lowered leaves the
/// zero's bytes past the count, and the next [`open`](Self::open) wipes and cuts them without
/// using them. So a zero whose ciphertext may have left the process is never handed out again.
///
/// While a `PoolFile` is open it holds an exclusive lock on the file: a second open, from this
/// process or another, is refused. A zero loaded by this process in any way (here or through
/// [`EncryptionPool::from_bytes`]) cannot be loaded again.
///
/// What this does not prevent: a copy of the file made outside this type (a backup, `cp`)
/// holds the same zeros, and overwritten blocks may survive on some storage (copy-on-write
/// file systems, SSD wear levelling). Keep the file on the device that uses it, 0600 (as
/// [`create`](Self::create) writes it), and do not copy it.
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{BatchEncoder, Context, EncryptionPool, PoolFile, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size, insecure
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
/// let path = std::env::temp_dir().join(format!("pool-doc-{}.bin", std::process::id()));
///
/// let mut pool = PoolFile::create(&path, EncryptionPool::public(&pk, 2)?)?; // offline
/// let ct = pool.encrypt_slots(&enc, &[Fr::from(7u64)])?; // online; the zero is gone from disk
/// assert_eq!(sk.decrypt_slots(&enc, &ct)?[0], Fr::from(7u64));
/// assert!(PoolFile::open(&pk, &path).is_err()); // held by `pool`
/// drop(pool);
/// assert!(PoolFile::open(&pk, &path).is_err()); // its zeros were loaded in this process
/// # std::fs::remove_file(&path).ok();
/// # Ok(())
/// # }
/// ```
pub struct PoolFile {
    pk: PubKey,
    file: File,
    path: PathBuf,
    /// Where each zero left starts (its length word) and how long it is.
    entries: Vec<(u64, usize)>,
}

impl PoolFile {
    /// Writes `pool` to a new file at `path` (mode 0600; an existing file is an error, so no
    /// pool is ever written over another) and opens it.
    pub fn create(path: impl AsRef<Path>, pool: EncryptionPool) -> Result<PoolFile> {
        let path = path.as_ref();
        let pk = pool.public_key().clone();
        let bytes = pool.into_bytes()?;
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(path).map_err(|e| io(path, e))?;
        file.write_all_at(&bytes, 0).map_err(|e| io(path, e))?;
        file.sync_all().map_err(|e| io(path, e))?;
        drop(file);
        Self::open(&pk, path)
    }

    /// Opens a stored pool for `pk`, validating every zero as [`EncryptionPool::from_bytes`]
    /// does. Refused when another `PoolFile` holds the file, when its zeros were loaded in
    /// this process before, or when it is corrupt. Zeros left past the count by a crash are
    /// wiped and cut off first. Reads one zero at a time: the whole file is never in memory.
    pub fn open(pk: &PubKey, path: impl AsRef<Path>) -> Result<PoolFile> {
        let path = path.as_ref();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| io(path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(Error::InvalidArgument(format!(
                    "{}: the pool is open elsewhere (a zero is used once: one user at a time)",
                    path.display()
                )))
            }
            Err(TryLockError::Error(e)) => return Err(io(path, e)),
        }
        let size = file.metadata().map_err(|e| io(path, e))?.len();
        let corrupt = |what: &str| {
            Error::InvalidArgument(format!("{}: corrupt pool: {what}", path.display()))
        };
        let count = read_u64(&file, 0).map_err(|_| corrupt("no count"))?;
        if count > MAX_POOL_SIZE as u64 || count > size / 8 {
            return Err(corrupt("a count beyond its bytes"));
        }
        let ring = pk.context().ring_degree();
        // No zero is longer than a ciphertext of the context: a forged length allocates nothing.
        let max_len = pk.context().max_serialized_len(ObjectKind::Ciphertext)?;
        let mut entries = Vec::with_capacity(count as usize);
        let mut digests = Vec::with_capacity(count as usize);
        let mut at = 8u64;
        for _ in 0..count {
            let len = read_u64(&file, at).map_err(|_| corrupt("truncated"))?;
            if len > size - at - 8 {
                return Err(corrupt("truncated"));
            }
            if len > max_len {
                return Err(corrupt(
                    "an entry longer than any ciphertext of the context",
                ));
            }
            let len = usize::try_from(len).map_err(|_| corrupt("an entry's length"))?;
            let mut zero = Zeroizing::new(vec![0u8; len]);
            file.read_exact_at(&mut zero, at + 8)
                .map_err(|e| io(path, e))?;
            let level = check_zero(pk, &zero)?;
            digests.push(zero_digest(&zero, level, ring));
            entries.push((at, len));
            at += 8 + len as u64;
        }
        // Past the count: zeros taken just before a crash. Spent, whatever happened to them:
        // claimed with the rest (so their bytes cannot come back from a copy), then wiped.
        let mut spent = at;
        while let Ok(len) = read_u64(&file, spent) {
            let Some(len) = usize::try_from(len)
                .ok()
                .filter(|&l| l as u64 <= size - spent - 8 && l as u64 <= max_len)
            else {
                break;
            };
            let mut zero = Zeroizing::new(vec![0u8; len]);
            if file.read_exact_at(&mut zero, spent + 8).is_err() {
                break;
            }
            let Ok(level) = check_zero(pk, &zero) else {
                break;
            };
            digests.push(zero_digest(&zero, level, ring));
            spent += 8 + len as u64;
        }
        if size > at {
            wipe_from(&file, at, size).map_err(|e| io(path, e))?;
        }
        claim_zeros(digests.into_iter())?;
        Ok(PoolFile {
            pk: pk.clone(),
            file,
            path: path.to_path_buf(),
            entries,
        })
    }

    /// Zeros left.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no zero is left.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The public key the zeros are under.
    pub fn public_key(&self) -> &PubKey {
        &self.pk
    }

    /// [`EncryptionPool::encrypt_poly_to_bytes`] with the file's last zero, which is durably
    /// gone from the file before the bytes are returned. A message the engine refuses leaves
    /// the zero in place.
    pub fn encrypt_poly_to_bytes<F: PrimeField>(&mut self, coeffs: &[F]) -> Result<Vec<u8>> {
        let &(at, len) = self.entries.last().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{}: the pool is empty (a zero is never used twice)",
                self.path.display()
            ))
        })?;
        let mut zero = Zeroizing::new(vec![0u8; len]);
        self.file
            .read_exact_at(&mut zero, at + 8)
            .map_err(|e| io(&self.path, e))?;
        add_message(&self.pk, &mut zero, coeffs)?;
        self.consume_last().map_err(|e| io(&self.path, e))?;
        Ok(std::mem::take(&mut *zero))
    }

    /// [`encrypt_poly_to_bytes`](Self::encrypt_poly_to_bytes) of the values' encoding.
    pub fn encrypt_slots_to_bytes<F: PrimeField>(
        &mut self,
        encoder: &BatchEncoder<F>,
        values: &[F],
    ) -> Result<Vec<u8>> {
        let poly = encoder.encode(values)?;
        self.encrypt_poly_to_bytes(&poly)
    }

    /// [`encrypt_poly_to_bytes`](Self::encrypt_poly_to_bytes), read back as a ciphertext.
    pub fn encrypt_poly<F: PrimeField>(&mut self, coeffs: &[F]) -> Result<Ctxt> {
        let bytes = self.encrypt_poly_to_bytes(coeffs)?;
        Ctxt::from_bytes(&self.pk, &bytes)
    }

    /// [`encrypt_slots_to_bytes`](Self::encrypt_slots_to_bytes), read back as a ciphertext.
    pub fn encrypt_slots<F: PrimeField>(
        &mut self,
        encoder: &BatchEncoder<F>,
        values: &[F],
    ) -> Result<Ctxt> {
        let bytes = self.encrypt_slots_to_bytes(encoder, values)?;
        Ctxt::from_bytes(&self.pk, &bytes)
    }

    /// Lowers the count and syncs it (from here on the last zero is spent, even across a
    /// crash), then wipes and cuts off the zero's bytes.
    fn consume_last(&mut self) -> std::io::Result<()> {
        let (at, _) = self
            .entries
            .pop()
            .ok_or_else(|| std::io::Error::other("no zero to consume"))?;
        self.file
            .write_all_at(&(self.entries.len() as u64).to_le_bytes(), 0)?;
        self.file.sync_data()?;
        let size = self.file.metadata()?.len();
        wipe_from(&self.file, at, size)
    }
}

fn read_u64(file: &File, at: u64) -> std::io::Result<u64> {
    let mut word = [0u8; 8];
    file.read_exact_at(&mut word, at)?;
    Ok(u64::from_le_bytes(word))
}

/// Overwrites `[from, to)` with zeros, cuts the file at `from` and syncs.
fn wipe_from(file: &File, from: u64, to: u64) -> std::io::Result<()> {
    let block = vec![0u8; 1 << 20];
    let mut at = from;
    while at < to {
        let n = (to - at).min(block.len() as u64) as usize;
        file.write_all_at(&block[..n], at)?;
        at += n as u64;
    }
    file.sync_data()?;
    file.set_len(from)?;
    file.sync_data()
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}
