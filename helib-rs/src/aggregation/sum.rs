//! [`EncryptedSum`]: the server's running sum of users' uploads, from bytes, ciphertexts or
//! files, and the key owner's decryption of it.

use std::io::Read;
use std::path::Path;

use ark_ff::PrimeField;
use rayon::prelude::*;

use super::{too_many, Aggregation};
use crate::error::{Error, Result};
use crate::serialization::frames::frame_count;
use crate::serialization::size_limits::{in_file, read_file_exactly};
use crate::{Computation, Ctxt, PubKey, SecKey};

/// The server's sum of users' uploads.
///
/// It refuses more users than its [`Aggregation`] was sized for, and uploads of a different
/// shape (ciphertext count) than the first one it added.
pub struct EncryptedSum {
    aggregation: Aggregation,
    pk: PubKey,
    users: u64,
    parts: Vec<Ctxt>,
}

impl EncryptedSum {
    /// An empty sum of uploads under `pk`.
    pub fn new(aggregation: &Aggregation, pk: &PubKey) -> Self {
        EncryptedSum {
            aggregation: aggregation.clone(),
            pk: pk.clone(),
            users: 0,
            parts: Vec::new(),
        }
    }

    /// Users added so far.
    pub fn users(&self) -> u64 {
        self.users
    }

    /// The sum's ciphertexts (none before the first upload).
    pub fn ciphertexts(&self) -> &[Ctxt] {
        &self.parts
    }

    /// Adds one user's upload, refused with [`Error::RefusedUpload`] (and nothing added)
    /// when a ciphertext's level, plaintext factor or noise bound is not an honest upload's.
    pub fn add(&mut self, upload: &[Ctxt]) -> Result<()> {
        self.check_upload(upload, None)?;
        if self.parts.is_empty() {
            let owned = upload.iter().map(Ctxt::try_clone).collect::<Result<_>>()?;
            return self.absorb(1, owned);
        }
        self.make_room(1, upload.len())?;
        self.add_parts(upload)?;
        self.users += 1;
        Ok(())
    }

    /// Adds one user's upload in [`Aggregation::upload_to_bytes`]' form. Its size is checked
    /// against an honest upload's before any ciphertext is read, then every ciphertext's
    /// fields as [`add`](Self::add) checks them; a refused upload is named by its index
    /// ([`Error::RefusedUpload`]).
    pub fn add_bytes(&mut self, upload: &[u8]) -> Result<()> {
        self.add_bytes_from(upload, None)
    }

    fn add_bytes_from(&mut self, upload: &[u8], file: Option<&Path>) -> Result<()> {
        let refuse = |reason: String| self.refused(file, reason);
        let shape = self.aggregation.shape(&self.pk)?;
        let count = frame_count(upload).ok_or_else(|| refuse("truncated".into()))?;
        if !self.parts.is_empty() && count as usize != self.parts.len() {
            return Err(refuse(format!(
                "{count} ciphertext(s) where the sum has {}",
                self.parts.len()
            )));
        }
        let want = 4 + count as u64 * (8 + shape.bytes as u64);
        if upload.len() as u64 != want {
            return Err(refuse(format!(
                "{} bytes where an upload of {count} ciphertext(s) has {want}",
                upload.len()
            )));
        }
        let parts =
            Aggregation::upload_from_bytes(&self.pk, upload).map_err(|e| refuse(e.to_string()))?;
        self.check_upload(&parts, file)?;
        self.absorb(1, parts)
    }

    /// Refuses an upload whose ciphertexts are not what an honest user sends.
    fn check_upload(&self, upload: &[Ctxt], file: Option<&Path>) -> Result<()> {
        let shape = self.aggregation.shape(&self.pk)?;
        for (i, ct) in upload.iter().enumerate() {
            let refuse = |what: String| self.refused(file, format!("ciphertext {i}: {what}"));
            if ct.pubkey().secret_id() != self.pk.inner.secret_id() {
                return Err(refuse("under another key".into()));
            }
            if ct.level() != shape.level {
                return Err(refuse(format!(
                    "level {}, where the aggregation's uploads are at level {}",
                    ct.level(),
                    shape.level
                )));
            }
            ct.check_factor(Computation::Linear)
                .map_err(|_| refuse("a plaintext factor no upload has at its level".into()))?;
            // Not NaN, not above an honest upload's: the sum's budget is planned from it.
            let bound = ct.log2_noise_bound();
            if bound.is_nan() || bound > shape.log2_noise_bound + 1e-9 {
                return Err(refuse(format!(
                    "a noise bound of 2^{:.2}, above an honest upload's 2^{:.2}",
                    ct.log2_noise_bound(),
                    shape.log2_noise_bound
                )));
            }
        }
        Ok(())
    }

    fn refused(&self, file: Option<&Path>, reason: String) -> Error {
        Error::RefusedUpload {
            index: self.users,
            file: file.map(Path::to_path_buf),
            reason,
        }
    }

    /// Adds another partial sum of the same aggregation.
    pub fn merge(&mut self, other: EncryptedSum) -> Result<()> {
        if other.users == 0 {
            return Ok(());
        }
        self.absorb(other.users, other.parts)
    }

    /// Adds `users` users' ciphertexts, taken over as the sum when it is still empty.
    fn absorb(&mut self, users: u64, parts: Vec<Ctxt>) -> Result<()> {
        self.make_room(users, parts.len())?;
        if self.parts.is_empty() {
            self.parts = parts;
        } else {
            self.add_parts(&parts)?;
        }
        self.users += users;
        Ok(())
    }

    fn add_parts(&mut self, parts: &[Ctxt]) -> Result<()> {
        for (sum, ct) in self.parts.iter_mut().zip(parts) {
            sum.add_assign(ct)?;
        }
        Ok(())
    }

    /// The sum of the uploads in `files` (each one user's
    /// [`Aggregation::upload_to_bytes`]), read and added on rayon's threads. Each thread reads
    /// one file at a time into its own partial sum, so memory stays flat however many files
    /// there are.
    ///
    /// Before anything is read whole, every file's size is checked against an honest upload
    /// with as many ciphertexts as the first file declares, so no file costs more memory than
    /// an honest one. A file that cannot be read, or is refused, fails the whole sum with
    /// [`Error::RefusedUpload`] naming it and its index (or [`Error::Io`] naming it).
    pub fn sum_files<P: AsRef<Path> + Sync>(
        aggregation: &Aggregation,
        pk: &PubKey,
        files: &[P],
    ) -> Result<EncryptedSum> {
        if files.len() as u64 > aggregation.users {
            return Err(too_many(aggregation.users, files.len() as u64));
        }
        let shape = aggregation.shape(pk)?;
        let mut first_count = None;
        for (index, file) in files.iter().enumerate() {
            let path = file.as_ref();
            let refuse = |reason: String| Error::RefusedUpload {
                index: index as u64,
                file: Some(path.to_path_buf()),
                reason,
            };
            let mut head = [0u8; 4];
            let mut f = std::fs::File::open(path).map_err(|e| io(path, e))?;
            let size = f.metadata().map_err(|e| io(path, e))?.len();
            f.read_exact(&mut head)
                .map_err(|_| refuse("truncated".into()))?;
            let count = u32::from_le_bytes(head);
            let first = *first_count.get_or_insert(count);
            if count != first {
                return Err(refuse(format!(
                    "{count} ciphertext(s) where the first file's upload has {first}"
                )));
            }
            let want = 4 + count as u64 * (8 + shape.bytes as u64);
            if size != want {
                return Err(refuse(format!(
                    "{size} bytes where an upload of {count} ciphertext(s) has {want}"
                )));
            }
        }
        let indexed: Vec<(usize, &P)> = files.iter().enumerate().collect();
        indexed
            .par_iter()
            .try_fold(
                || EncryptedSum::new(aggregation, pk),
                |mut sum, &(index, file)| {
                    let path = file.as_ref();
                    let bytes = read_file_exactly(
                        path,
                        4 + first_count.unwrap_or(0) as u64 * (8 + shape.bytes as u64),
                    )?;
                    sum.add_bytes_from(&bytes, Some(path))
                        .map_err(|e| match e {
                            Error::RefusedUpload { reason, .. } => Error::RefusedUpload {
                                index: index as u64,
                                file: Some(path.to_path_buf()),
                                reason,
                            },
                            other => in_file(path, other),
                        })?;
                    Ok(sum)
                },
            )
            .try_reduce(
                || EncryptedSum::new(aggregation, pk),
                |mut a, b| {
                    a.merge(b)?;
                    Ok(a)
                },
            )
    }

    /// The owner's view: the first `len` values of the sum.
    ///
    /// Each ciphertext is decrypted at the level and plaintext factor an honest sum has, not
    /// the ones its fields claim ([`Error::Mismatch`] when they differ), so a sum is right or
    /// an error. An upload that hid its noise behind honest fields makes the sum undecryptable:
    /// [`Error::NoiseBudgetExhausted`], never a wrong sum (the sum cannot tell whose it was).
    pub fn decrypt<F: PrimeField>(&self, sk: &SecKey, len: usize) -> Result<Vec<F>> {
        if self.parts.is_empty() {
            return Err(Error::InvalidArgument("the sum holds no upload yet".into()));
        }
        let level = self.aggregation.shape(&self.pk)?.level;
        let n = sk.context().ring_degree();
        let mut values = Vec::with_capacity(len.min(self.parts.len() * n));
        for ct in &self.parts {
            if ct.level() != level {
                return Err(Error::Mismatch(format!(
                    "a sum at level {} where the aggregation's is at level {level}",
                    ct.level()
                )));
            }
            values.extend(
                sk.decrypt_poly_expecting::<F>(ct, Computation::Linear)
                    .map_err(|e| match e {
                        Error::NoiseBudgetExhausted(m) => Error::NoiseBudgetExhausted(format!(
                            "{m} (the sum does not decrypt: an upload carried noise its public \
                             fields hid, or the sum was altered)"
                        )),
                        other => other,
                    })?,
            );
        }
        if len > values.len() {
            return Err(Error::InvalidLength(format!(
                "the sum holds {} values, {len} asked for",
                values.len()
            )));
        }
        values.truncate(len);
        Ok(values)
    }

    fn make_room(&self, users: u64, ciphertexts: usize) -> Result<()> {
        let capacity = self.aggregation.users;
        if self.users.saturating_add(users) > capacity {
            return Err(too_many(capacity, self.users.saturating_add(users)));
        }
        if ciphertexts == 0 || (!self.parts.is_empty() && ciphertexts != self.parts.len()) {
            return Err(Error::InvalidLength(format!(
                "an upload of {ciphertexts} ciphertext(s) where the sum has {}",
                self.parts.len()
            )));
        }
        Ok(())
    }
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}
