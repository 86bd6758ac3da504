//! How many bytes a valid object can take, and reading files and streams no further than that.
//!
//! Every byte string a program reads from elsewhere (a file the server wrote, an upload, a
//! message from another rank) is measured against the most its context allows before it is
//! read whole: a file that is too large, or a device such as `/dev/zero` that never ends, is a
//! clear error after at most `max + 1` bytes, never an allocation of what the other side claims.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use helib_bindings as sys;

use crate::context::Context;
use crate::error::{check, Error, Result};

/// The kinds of serialized object, for [`Context::max_serialized_len`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// A context's own bytes ([`Context::to_bytes`]): at most [`MAX_CONTEXT_BYTES`] for any
    /// context.
    Context,
    /// A secret key ([`SecKey::to_bytes`](crate::SecKey::to_bytes)).
    SecretKey,
    /// A public key with its relinearization key
    /// ([`PubKey::to_bytes`](crate::PubKey::to_bytes)).
    PublicKey,
    /// A public key without it
    /// ([`PubKey::to_bytes_without_relinearization`](crate::PubKey::to_bytes_without_relinearization)).
    EncryptionKey,
    /// A set of this many Galois keys ([`GaloisKeys::to_bytes`](crate::GaloisKeys::to_bytes)).
    GaloisKeys(usize),
    /// This many master keys ([`MasterKeys::to_bytes`](crate::MasterKeys::to_bytes)).
    MasterKeys(usize),
    /// A ciphertext in any of its byte forms (full, seeded or online), at any level.
    Ciphertext,
}

/// The most bytes any context's [`Context::to_bytes`] takes (a 2048-bit `p` and every option):
/// read a context file with [`read_file_at_most`] and this bound.
pub const MAX_CONTEXT_BYTES: u64 = sys::HELIB_MAX_CONTEXT_BYTES as u64;

impl Context {
    /// The most bytes a valid serialized `kind` can take under this context. Readers compare a
    /// length with it before reading or allocating anything.
    ///
    /// ```
    /// use helib_rs::{Context, ObjectKind};
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<ark_bn254::Fr>()
    ///     .ciphertext_bits(400).allow_insecure(true).build()?;
    /// let max = ctx.max_serialized_len(ObjectKind::Ciphertext)?;
    /// // Two rows of N words per prime of the chain, and a few header bytes.
    /// assert!(max >= 2 * 8 * 2048 * u64::from(ctx.num_ctxt_primes()));
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    pub fn max_serialized_len(&self, kind: ObjectKind) -> Result<u64> {
        let (code, count) = match kind {
            ObjectKind::Context => (sys::HELIB_OBJECT_CONTEXT, 0),
            ObjectKind::SecretKey => (sys::HELIB_OBJECT_SECRET_KEY, 0),
            ObjectKind::PublicKey => (sys::HELIB_OBJECT_PUBLIC_KEY, 0),
            ObjectKind::EncryptionKey => (sys::HELIB_OBJECT_ENCRYPTION_KEY, 0),
            ObjectKind::GaloisKeys(n) => (sys::HELIB_OBJECT_GALOIS_KEYS, n),
            ObjectKind::MasterKeys(n) => (sys::HELIB_OBJECT_MASTER_KEYS, n),
            ObjectKind::Ciphertext => (sys::HELIB_OBJECT_CIPHERTEXT, 0),
        };
        let mut out = 0u64;
        // SAFETY: the context handle is live and `out` is a valid out-pointer.
        check(unsafe {
            sys::helib_max_serialized_size(self.as_ptr(), code as u32, count as u64, &mut out)
        })?;
        Ok(out)
    }

    /// Checks that the file at `path` holds this context's bytes ([`to_bytes`](Self::to_bytes)),
    /// reading at most [`MAX_CONTEXT_BYTES`] of it: how a server that built the context a job
    /// calls for refuses another one without building what the file describes. Other bytes
    /// are [`Error::Mismatch`], naming the file and this context's ring and security.
    pub fn check_context_file(&self, path: &Path) -> Result<()> {
        if read_file_at_most(path, MAX_CONTEXT_BYTES)? == self.to_bytes()? {
            return Ok(());
        }
        Err(Error::Mismatch(format!(
            "{}: not the expected context (N = {}, {})",
            path.display(),
            self.ring_degree(),
            self.security_label()
        )))
    }

    /// Reads the file at `path` if it holds at most the bytes of a valid `kind` under this
    /// context ([`max_serialized_len`](Self::max_serialized_len)).
    pub fn read_object_file(&self, path: &Path, kind: ObjectKind) -> Result<Vec<u8>> {
        read_file_at_most(path, self.max_serialized_len(kind)?)
    }

    /// Reads a file of Galois or master keys ([`GaloisKeys::to_bytes`](crate::GaloisKeys::to_bytes),
    /// [`MasterKeys::to_bytes`](crate::MasterKeys::to_bytes)) no further than the most that
    /// the key count it announces allows (at most `N` keys): the count is read first, then
    /// the rest up to that bound. The keys are validated when the bytes are read
    /// (`from_bytes`); this only keeps a forged or endless file from being read whole.
    pub fn read_key_set_file(&self, path: &Path) -> Result<Vec<u8>> {
        let named = |e: Error| in_file(path, e);
        let mut file = File::open(path).map_err(|e| named(Error::Io(e.to_string())))?;
        // Header (magic, version, kind, fingerprint), key id, key count.
        let head = read_at_most(Read::by_ref(&mut file).take(KEY_SET_HEAD), KEY_SET_HEAD)
            .map_err(named)?;
        if head.len() as u64 != KEY_SET_HEAD {
            return Err(Error::InvalidArgument(format!(
                "{}: corrupt data: truncated key set ({} bytes)",
                path.display(),
                head.len()
            )));
        }
        let kind = u16::from_le_bytes([head[6], head[7]]);
        let count = u32::from_le_bytes([head[24], head[25], head[26], head[27]]) as usize;
        let kind = match kind {
            4 => ObjectKind::GaloisKeys(count),
            7 => ObjectKind::MasterKeys(count),
            other => {
                return Err(Error::InvalidArgument(format!(
                    "{}: corrupt data: object kind {other}, not a key set",
                    path.display()
                )))
            }
        };
        if count > self.ring_degree() {
            return Err(Error::InvalidArgument(format!(
                "{}: corrupt data: {count} keys announced (the ring has room for {})",
                path.display(),
                self.ring_degree()
            )));
        }
        let max = self.max_serialized_len(kind)?;
        let rest = read_at_most(file, max.saturating_sub(KEY_SET_HEAD)).map_err(named)?;
        let mut bytes = head;
        bytes.extend_from_slice(&rest);
        Ok(bytes)
    }
}

/// The bytes of a key set before its keys: a 16-byte header, the key id and the count.
const KEY_SET_HEAD: u64 = 16 + 8 + 4;

/// Reads the file at `path` whole if it holds at most `max` bytes. A larger file, or one that
/// grows while it is read (a device, a pipe), is [`Error::InvalidLength`] after at most
/// `max + 1` bytes; the error names the file.
pub fn read_file_at_most(path: &Path, max: u64) -> Result<Vec<u8>> {
    let file = File::open(path).map_err(|e| in_file(path, Error::Io(e.to_string())))?;
    // The length is a hint for the buffer, never trusted for the bound.
    let hint = file.metadata().map(|m| m.len()).unwrap_or(0).min(max);
    read_at_most_with_hint(file, max, hint).map_err(|e| in_file(path, e))
}

/// `e` with the file it is about named in front of its message.
pub(crate) fn in_file(path: &Path, e: Error) -> Error {
    let named = |m: String| format!("{}: {m}", path.display());
    match e {
        Error::InvalidArgument(m) => Error::InvalidArgument(named(m)),
        Error::InvalidLength(m) => Error::InvalidLength(named(m)),
        Error::Mismatch(m) => Error::Mismatch(named(m)),
        Error::Io(m) => Error::Io(named(m)),
        other => other,
    }
}

/// Reads the file at `path` whole when it holds exactly `len` bytes, as measured before (it
/// may have changed since): never more than `len + 1` bytes in memory.
pub(crate) fn read_file_exactly(path: &Path, len: u64) -> Result<Vec<u8>> {
    let bytes = read_file_at_most(path, len).map_err(|e| match e {
        Error::InvalidLength(_) => Error::Io(format!(
            "{}: changed while it was read (more than the {len} bytes measured)",
            path.display()
        )),
        other => other,
    })?;
    if bytes.len() as u64 != len {
        return Err(Error::Io(format!(
            "{}: changed while it was read ({} bytes, {len} expected)",
            path.display(),
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// Reads `reader` to its end if it yields at most `max` bytes; otherwise
/// [`Error::InvalidLength`] after at most `max + 1` bytes.
pub fn read_at_most(reader: impl Read, max: u64) -> Result<Vec<u8>> {
    read_at_most_with_hint(reader, max, 0)
}

fn read_at_most_with_hint(reader: impl Read, max: u64, hint: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(hint).map_err(|_| Error::OutOfMemory)?)
        .map_err(|_| Error::OutOfMemory)?;
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Io(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(Error::InvalidLength(format!(
            "more than the {max} bytes this input may take"
        )));
    }
    Ok(bytes)
}
