//! The bodies a network server and its clients exchange: a *key set* (the request line, then
//! the context, the public key and the Galois or master keys), named by the SHA-256 of its
//! bytes, and a *list of ciphertexts* (a job's inputs or its results).
//!
//! ```text
//! key set:      "he-key-set 1\n" request-line "\n" (len:u64le bytes) x 3, or x 4
//! ciphertexts:  "he-ciphertexts 1\n" count:u64le (len:u64le bytes) x count
//! ```
//!
//! The key set's parts are the context, the public key and the keys (empty when the
//! transform needs none), and for a matrix-product request a fourth, the matrix
//! ([`matrix_bytes`](crate::protocol::matrix_bytes): its length is fixed by the request's
//! shape). Every reader checks each length against what the request's
//! context allows for that kind of object before it reads the bytes.

use std::borrow::Cow;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use ark_ff::{FftField, PrimeField};
use helib_rs::{Context, ObjectKind};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::protocol::exchange_dir::{
    ExchangeDir, Side, CONTEXT_FILE, GALOIS_KEYS_FILE, MASTER_KEYS_FILE, MATRIX_FILE,
    PUBLIC_KEY_FILE, REQUEST_FILE,
};
use crate::protocol::matrix_bytes::matrix_len;
use crate::protocol::request::{Job, KeyKind, Request, MAX_REQUEST_BYTES};

/// The first bytes of a key set body.
pub const KEY_SET_MAGIC: &[u8] = b"he-key-set 1\n";
/// The first bytes of a list of ciphertexts.
pub const CIPHERTEXTS_MAGIC: &[u8] = b"he-ciphertexts 1\n";
/// The longest prefix a key set body has before its first part: the magic, a request line
/// and its newline.
pub const KEY_SET_PREFIX_MAX: usize = KEY_SET_MAGIC.len() + MAX_REQUEST_BYTES + 1;

/// A key set as an owner uploads it: borrowed parts, streamed by [`reader`](Self::reader).
///
/// ```
/// use he_fft::protocol::{KeySetParts, Request};
///
/// let parts = KeySetParts {
///     request: Request::forward_fft(16).on_toy_ring(),
///     context: b"ctx",
///     public_key: b"pk",
///     keys: b"",
///     matrix: b"",
/// };
/// let mut body = Vec::new();
/// std::io::copy(&mut parts.reader(), &mut body).unwrap();
/// assert_eq!(body.len() as u64, parts.len());
/// assert_eq!(parts.id().len(), 64);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct KeySetParts<'a> {
    /// The request the keys serve.
    pub request: Request,
    /// The context's bytes ([`helib_rs::Context::to_bytes`]).
    pub context: &'a [u8],
    /// The public key's bytes (with its relinearization key when the job multiplies).
    pub public_key: &'a [u8],
    /// The Galois or master keys' bytes, as the request's `keys` says; empty when the
    /// transform needs none.
    pub keys: &'a [u8],
    /// A matrix-product request's matrix
    /// ([`matrix_bytes`](crate::protocol::matrix_bytes)); empty for every other job, whose
    /// body then has no fourth part (a server refuses one that has).
    pub matrix: &'a [u8],
}

impl<'a> KeySetParts<'a> {
    fn pieces(&self) -> Vec<Cow<'a, [u8]>> {
        let mut head = KEY_SET_MAGIC.to_vec();
        head.extend_from_slice(format!("{}\n", self.request).as_bytes());
        let mut pieces = vec![Cow::Owned(head)];
        // A matrix given to another job is sent too, so the server refuses the body rather
        // than the matrix being dropped unseen.
        let matrix = (matches!(self.request.job, Job::MatrixProduct { .. })
            || !self.matrix.is_empty())
        .then_some(self.matrix);
        for part in [self.context, self.public_key, self.keys]
            .into_iter()
            .chain(matrix)
        {
            pieces.push(Cow::Owned((part.len() as u64).to_le_bytes().to_vec()));
            pieces.push(Cow::Borrowed(part));
        }
        pieces
    }

    /// The body's bytes, in order, without copying the parts.
    pub fn reader(&self) -> PiecesReader<'a> {
        PiecesReader::new(self.pieces())
    }

    /// The body's length in bytes.
    pub fn len(&self) -> u64 {
        self.pieces().iter().map(|p| p.len() as u64).sum()
    }

    /// Always false: a body has at least its magic.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The key set's name: the SHA-256 of its body, in lowercase hex.
    pub fn id(&self) -> String {
        let mut hasher = Sha256::new();
        for piece in self.pieces() {
            hasher.update(&piece);
        }
        hex(&hasher.finalize())
    }
}

/// A list of ciphertexts as a body: the magic, the count, and each ciphertext with its length,
/// streamed without copying them.
pub fn ciphertexts_reader<T: AsRef<[u8]>>(ciphertexts: &[T]) -> PiecesReader<'_> {
    let mut head = CIPHERTEXTS_MAGIC.to_vec();
    head.extend_from_slice(&(ciphertexts.len() as u64).to_le_bytes());
    let mut pieces = vec![Cow::Owned(head)];
    for ct in ciphertexts {
        let ct = ct.as_ref();
        pieces.push(Cow::Owned((ct.len() as u64).to_le_bytes().to_vec()));
        pieces.push(Cow::Borrowed(ct));
    }
    PiecesReader::new(pieces)
}

/// The length of [`ciphertexts_reader`]'s body for `count` ciphertexts of `bytes` in all.
pub fn ciphertexts_len(count: usize, bytes: u64) -> u64 {
    (CIPHERTEXTS_MAGIC.len() as u64 + 8)
        .saturating_add((count as u64).saturating_mul(8))
        .saturating_add(bytes)
}

/// The most bytes a list of `count` ciphertexts of `ctx` may take.
pub fn max_ciphertexts_len(ctx: &Context, count: usize) -> Result<u64> {
    let each = ctx.max_serialized_len(ObjectKind::Ciphertext)?;
    Ok(ciphertexts_len(count, each.saturating_mul(count as u64)))
}

/// A body made of byte pieces, read in order.
pub struct PiecesReader<'a> {
    pieces: Vec<Cow<'a, [u8]>>,
    index: usize,
    offset: usize,
}

impl<'a> PiecesReader<'a> {
    fn new(pieces: Vec<Cow<'a, [u8]>>) -> Self {
        PiecesReader {
            pieces,
            index: 0,
            offset: 0,
        }
    }
}

impl Read for PiecesReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while let Some(piece) = self.pieces.get(self.index) {
            let rest = &piece[self.offset..];
            if rest.is_empty() {
                self.index += 1;
                self.offset = 0;
                continue;
            }
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.offset += n;
            return Ok(n);
        }
        Ok(0)
    }
}

/// The request at the head of a key set body: `prefix` holds at least the magic and the
/// request line with its newline (up to [`KEY_SET_PREFIX_MAX`] bytes suffice). `Ok(None)`
/// when `prefix` is too short to tell yet.
pub fn key_set_request(prefix: &[u8]) -> Result<Option<Request>> {
    let magic = KEY_SET_MAGIC.len().min(prefix.len());
    if prefix[..magic] != KEY_SET_MAGIC[..magic] {
        return Err(Error::BadRequest(
            "not a key set (its first bytes are wrong)".into(),
        ));
    }
    let rest = &prefix[magic..];
    match rest.iter().position(|&b| b == b'\n') {
        Some(end) if end <= MAX_REQUEST_BYTES => {
            let line = std::str::from_utf8(&rest[..end])
                .map_err(|_| Error::BadRequest("the key set's request is not text".into()))?;
            Ok(Some(line.parse()?))
        }
        None if rest.len() <= MAX_REQUEST_BYTES => Ok(None),
        _ => Err(Error::BadRequest(format!(
            "the key set's request line is longer than {MAX_REQUEST_BYTES} bytes"
        ))),
    }
}

/// The most bytes the key set body for `request` may take: its prefix and the largest
/// context, public key and keys the request's context allows.
pub fn max_key_set_len<F: FftField + PrimeField>(request: &Request) -> Result<u64> {
    let (ctx, keys) = key_set_bounds::<F>(request)?;
    let part = |kind| ctx.max_serialized_len(kind);
    let keys = keys.map_or(Ok(0), part)?;
    Ok(KEY_SET_PREFIX_MAX as u64
        + 32
        + part(ObjectKind::Context)?
        + part(ObjectKind::PublicKey)?
        + keys
        + matrix_part_len::<F>(request))
}

/// The length of the request's matrix part: its entries' bytes for a matrix product, none
/// for any other job.
fn matrix_part_len<F: PrimeField>(request: &Request) -> u64 {
    match request.job {
        Job::MatrixProduct { rows, columns } => matrix_len::<F>(rows, columns),
        _ => 0,
    }
}

/// The request's context and the kind of its keys part (`None`: the transform needs none).
fn key_set_bounds<F: FftField + PrimeField>(
    request: &Request,
) -> Result<(Context, Option<ObjectKind>)> {
    let ctx = request.context::<F>()?;
    let (_, steps) = request.outline::<F>(&ctx)?;
    let keys = match request.keys {
        _ if steps.max_keys() == 0 => None,
        KeyKind::Galois => Some(ObjectKind::GaloisKeys(steps.max_keys())),
        KeyKind::Master => Some(ObjectKind::MasterKeys(
            helib_rs::MasterKeys::default_steps(&ctx).max_keys(),
        )),
    };
    Ok((ctx, keys))
}

/// Reads a key set body from `r` into `dir`'s `public/` (the request file, the context, the
/// public key, the Galois or master keys file, and a matrix product's matrix), each part's length checked against what
/// the request's context allows before the part is read, and every file written whole. Returns
/// the request and the body's SHA-256 (its name, [`KeySetParts::id`]). Only the framing and
/// the sizes are checked here: [`ServerKeys::open`](crate::protocol::ServerKeys::open) on
/// `dir` then checks the contents.
pub fn read_key_set<F: FftField + PrimeField>(
    r: impl Read,
    dir: &ExchangeDir,
) -> Result<(Request, String)> {
    let mut r = HashingReader::new(r);
    let mut prefix = Vec::with_capacity(KEY_SET_PREFIX_MAX);
    let request = loop {
        let mut byte = [0u8];
        if r.read(&mut byte)
            .map_err(|e| read_error("the key set", e))?
            == 0
        {
            return Err(Error::BadRequest(
                "the key set ends inside its request line".into(),
            ));
        }
        prefix.push(byte[0]);
        if let Some(request) = key_set_request(&prefix)? {
            break request;
        }
    };
    let (ctx, keys) = key_set_bounds::<F>(&request)?;
    let folder = dir.path(Side::Public, "");
    fs::create_dir_all(&folder).map_err(|e| io_error(&folder, e))?;
    let keys_file = match request.keys {
        KeyKind::Galois => GALOIS_KEYS_FILE,
        KeyKind::Master => MASTER_KEYS_FILE,
    };
    for (name, kind, what) in [
        (CONTEXT_FILE, Some(ObjectKind::Context), "context"),
        (PUBLIC_KEY_FILE, Some(ObjectKind::PublicKey), "public key"),
        (keys_file, keys, "keys"),
    ] {
        let len = read_len(&mut r, what)?;
        let most = kind.map_or(Ok(0), |k| ctx.max_serialized_len(k))?;
        if len > most {
            return Err(Error::BadRequest(format!(
                "the key set's {what} takes {len} bytes, more than {most} the request's context \
                 allows ({request})"
            )));
        }
        if kind.is_some() {
            copy_to_file(&mut r, len, &dir.path(Side::Public, name), what)?;
        }
    }
    if let Job::MatrixProduct { .. } = request.job {
        let len = read_len(&mut r, "matrix")?;
        let expected = matrix_part_len::<F>(&request);
        if len != expected {
            return Err(Error::BadRequest(format!(
                "the key set's matrix takes {len} bytes, not the {expected} its shape does \
                 ({request})"
            )));
        }
        copy_to_file(&mut r, len, &dir.path(Side::Public, MATRIX_FILE), "matrix")?;
    }
    let mut extra = [0u8];
    if r.read(&mut extra)
        .map_err(|e| read_error("the key set", e))?
        != 0
    {
        return Err(Error::BadRequest(
            "bytes follow the key set's last part".into(),
        ));
    }
    dir.write(
        Side::Public,
        REQUEST_FILE,
        format!("{request}\n").as_bytes(),
    )?;
    Ok((request, r.finish()))
}

/// Reads a list of exactly `count` ciphertexts from `r` into `dir`'s `public/` as
/// `name(0)`, `name(1)`, ..., each refused before it is read if longer than a ciphertext of
/// `ctx` may be. Returns the ciphertexts' bytes in all. (The ciphertexts themselves are
/// parsed when used.)
pub fn read_ciphertexts_into(
    r: impl Read,
    ctx: &Context,
    count: usize,
    dir: &ExchangeDir,
    name: fn(usize) -> String,
) -> Result<u64> {
    let mut r = r;
    let got = read_ciphertexts_head(&mut r)?;
    if got != count as u64 {
        return Err(Error::WrongLength {
            what: "the ciphertexts of the job".into(),
            expected: count,
            got: usize::try_from(got).unwrap_or(usize::MAX),
        });
    }
    let most = ctx.max_serialized_len(ObjectKind::Ciphertext)?;
    let mut total = 0;
    for i in 0..count {
        let what = format!("ciphertext {i}");
        let len = read_len(&mut r, &what)?;
        if len > most {
            return Err(Error::BadRequest(format!(
                "{what} takes {len} bytes, more than a ciphertext of this context may ({most})"
            )));
        }
        copy_to_file(&mut r, len, &dir.path(Side::Public, &name(i)), &what)?;
        total += len;
    }
    let mut extra = [0u8];
    if r.read(&mut extra)
        .map_err(|e| read_error("the ciphertexts", e))?
        != 0
    {
        return Err(Error::BadRequest(format!(
            "bytes follow the last of the {count} ciphertexts"
        )));
    }
    Ok(total)
}

/// Reads a list of at most `max_count` ciphertexts of `ctx` from `r` into memory.
pub fn read_ciphertexts(r: impl Read, ctx: &Context, max_count: usize) -> Result<Vec<Vec<u8>>> {
    let mut r = r;
    let count = read_ciphertexts_head(&mut r)?;
    if count > max_count as u64 {
        return Err(Error::BadRequest(format!(
            "{count} ciphertexts, more than the {max_count} expected"
        )));
    }
    let most = ctx.max_serialized_len(ObjectKind::Ciphertext)?;
    (0..count)
        .map(|i| {
            let what = format!("ciphertext {i}");
            let len = read_len(&mut r, &what)?;
            if len > most {
                return Err(Error::BadRequest(format!(
                    "{what} takes {len} bytes, more than a ciphertext of this context may ({most})"
                )));
            }
            let mut bytes = Vec::new();
            let got = (&mut r)
                .take(len)
                .read_to_end(&mut bytes)
                .map_err(|e| read_error(&what, e))?;
            if got as u64 != len {
                return Err(truncated(&what));
            }
            Ok(bytes)
        })
        .collect()
}

fn read_ciphertexts_head(r: &mut impl Read) -> Result<u64> {
    let mut magic = vec![0u8; CIPHERTEXTS_MAGIC.len()];
    r.read_exact(&mut magic)
        .map_err(|e| read_error("the ciphertexts", e))?;
    if magic != CIPHERTEXTS_MAGIC {
        return Err(Error::BadRequest(
            "not a list of ciphertexts (its first bytes are wrong)".into(),
        ));
    }
    read_len(r, "the ciphertext count")
}

fn read_len(r: &mut impl Read, what: &str) -> Result<u64> {
    let mut len = [0u8; 8];
    r.read_exact(&mut len).map_err(|e| read_error(what, e))?;
    Ok(u64::from_le_bytes(len))
}

/// Copies exactly `len` bytes of `r` to `path`, through a fresh file beside it renamed into
/// place once complete: a reader never sees half a file.
fn copy_to_file(r: &mut impl Read, len: u64, path: &Path, what: &str) -> Result<()> {
    let partial = partial_path(path);
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&partial)
            .map_err(|e| io_error(&partial, e))?;
        let copied = io::copy(&mut r.take(len), &mut file).map_err(|e| read_error(what, e))?;
        if copied != len {
            return Err(truncated(what));
        }
        file.flush().map_err(|e| io_error(&partial, e))?;
        file.sync_all().map_err(|e| io_error(&partial, e))?;
        fs::rename(&partial, path).map_err(|e| io_error(path, e))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&partial);
    }
    result
}

fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".partial-{}", std::process::id()));
    path.with_file_name(name)
}

/// A reader that hashes what passes through it.
struct HashingReader<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: Read> HashingReader<R> {
    fn new(inner: R) -> Self {
        HashingReader {
            inner,
            hasher: Sha256::new(),
        }
    }

    fn finish(self) -> String {
        hex(&self.hasher.finalize())
    }
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn truncated(what: &str) -> Error {
    Error::BadRequest(format!("the body ends inside {what}"))
}

fn read_error(what: &str, e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        truncated(what)
    } else {
        Error::BadRequest(format!("reading {what}: {e}"))
    }
}

fn io_error(path: &Path, e: io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn a_key_set_reads_back_into_its_files_and_names_itself() {
        let request = Request::forward_fft(16).on_toy_ring();
        let ctx = request.context::<Fr>().unwrap();
        let context = ctx.to_bytes().unwrap();
        let parts = KeySetParts {
            request,
            context: &context,
            public_key: b"not checked here",
            keys: b"nor this",
            matrix: b"",
        };
        let tmp = tempfile::tempdir().unwrap();
        let dir = ExchangeDir::new(tmp.path());
        let (got, id) = read_key_set::<Fr>(parts.reader(), &dir).unwrap();
        assert_eq!((got, id), (request, parts.id()));
        assert_eq!(
            fs::read(dir.path(Side::Public, CONTEXT_FILE)).unwrap(),
            context
        );
        assert_eq!(
            fs::read(dir.path(Side::Public, GALOIS_KEYS_FILE)).unwrap(),
            b"nor this"
        );
        assert!(parts.len() <= max_key_set_len::<Fr>(&request).unwrap());

        // Cut anywhere, the body is refused, and nothing half-written is left as a part.
        let mut body = Vec::new();
        parts.reader().read_to_end(&mut body).unwrap();
        for cut in [3, KEY_SET_MAGIC.len() + 5, body.len() - 1] {
            let tmp = tempfile::tempdir().unwrap();
            let dir = ExchangeDir::new(tmp.path());
            let err = read_key_set::<Fr>(&body[..cut], &dir).unwrap_err();
            assert!(matches!(err, Error::BadRequest(_)), "cut at {cut}: {err}");
        }
        // A part longer than the context allows is refused before it is read.
        let mut long = body[..KEY_SET_MAGIC.len() + request.to_string().len() + 1].to_vec();
        long.extend_from_slice(&u64::MAX.to_le_bytes());
        let err = read_key_set::<Fr>(&long[..], &ExchangeDir::new(tmp.path())).unwrap_err();
        assert!(err.to_string().contains("more than"), "{err}");
        // Another format, or a request line that never ends.
        assert!(read_key_set::<Fr>(&b"GET / HTTP/1.1\r\n"[..], &dir).is_err());
        let endless = [KEY_SET_MAGIC, &[b'x'; 400][..]].concat();
        assert!(read_key_set::<Fr>(&endless[..], &dir).is_err());
    }

    #[test]
    fn ciphertexts_round_trip_and_are_bounded() {
        let ctx = Request::forward_fft(16)
            .on_toy_ring()
            .context::<Fr>()
            .unwrap();
        let cts = vec![b"one".to_vec(), vec![7u8; 1000], Vec::new()];
        let mut body = Vec::new();
        ciphertexts_reader(&cts).read_to_end(&mut body).unwrap();
        assert_eq!(body.len() as u64, ciphertexts_len(3, 1003));
        assert_eq!(read_ciphertexts(&body[..], &ctx, 3).unwrap(), cts);
        assert!(read_ciphertexts(&body[..], &ctx, 2).is_err());
        assert!(read_ciphertexts(&body[..body.len() - 1], &ctx, 3).is_err());

        let tmp = tempfile::tempdir().unwrap();
        let dir = ExchangeDir::new(tmp.path());
        fs::create_dir_all(dir.path(Side::Public, "")).unwrap();
        assert_eq!(
            read_ciphertexts_into(&body[..], &ctx, 3, &dir, ExchangeDir::input_name).unwrap(),
            1003
        );
        assert_eq!(
            fs::read(dir.path(Side::Public, "input-1.ct")).unwrap(),
            vec![7u8; 1000]
        );
        let longer = [&body[..], b"x"].concat();
        assert!(
            read_ciphertexts_into(&longer[..], &ctx, 3, &dir, ExchangeDir::input_name).is_err()
        );
        match read_ciphertexts_into(&body[..], &ctx, 4, &dir, ExchangeDir::input_name) {
            Err(Error::WrongLength { expected, got, .. }) => assert_eq!((expected, got), (4, 3)),
            other => panic!("{other:?}"),
        }
        // A length past a ciphertext's bound is refused before anything is allocated.
        let mut huge = body[..CIPHERTEXTS_MAGIC.len() + 8].to_vec();
        huge.extend_from_slice(&(1u64 << 60).to_le_bytes());
        assert!(read_ciphertexts(&huge[..], &ctx, 3).is_err());
    }
}
