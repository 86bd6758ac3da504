//! [`ExchangeDir`]: the files an owner and a server exchange through a directory, and the
//! bounded readers and careful writers for them.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use helib_rs::{Context, Ctxt, ObjectKind, PubKey};

use crate::error::{Error, Result};
use crate::protocol::request::{Request, MAX_REQUEST_BYTES};

/// The context's bytes.
pub const CONTEXT_FILE: &str = "context.bin";
/// The public key (with its relinearization key when the job needs it).
pub const PUBLIC_KEY_FILE: &str = "pubkey.bin";
/// Every Galois key the transform uses.
pub const GALOIS_KEYS_FILE: &str = "galois.bin";
/// The master keys the server derives Galois keys from.
pub const MASTER_KEYS_FILE: &str = "masters.bin";
/// A matrix-product request's matrix ([`matrix_bytes`](crate::protocol::matrix_bytes)).
pub const MATRIX_FILE: &str = "matrix.bin";
/// The [`Request`] line.
pub const REQUEST_FILE: &str = "request.txt";
/// The owner's secret key (owner side only, written 0600).
pub const SECRET_KEY_FILE: &str = "secret.bin";

/// A directory shared by an owner and a server that share nothing else:
/// - `public/`, what the server reads and writes: [`CONTEXT_FILE`], [`PUBLIC_KEY_FILE`],
///   [`GALOIS_KEYS_FILE`] or [`MASTER_KEYS_FILE`], [`REQUEST_FILE`], a matrix product's
///   [`MATRIX_FILE`], the inputs
///   `input-0.ct`, `input-1.ct`, ... (every input vector's ciphertexts, one vector after the
///   other: a witness map's `a`, then `b`) and the outputs `output-0.ct`, ...;
/// - `owner/`, what stays with the owner: [`SECRET_KEY_FILE`] and anything else secret
///   (written 0600), and its own copies of the context, public key and request, so that
///   checking a result trusts nothing the server can write.
///
/// Every reader is bounded by what its kind of file may hold (under the request's context for
/// keys and ciphertexts), so a file grown by a hostile party is refused before it is read.
#[derive(Clone, Debug)]
pub struct ExchangeDir {
    root: PathBuf,
}

/// Which side of the exchange a file belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `public/`: the server's view.
    Public,
    /// `owner/`: the owner's own files.
    Owner,
}

impl ExchangeDir {
    /// The exchange under `root` (nothing is created until [`create`](Self::create)).
    pub fn new(root: impl Into<PathBuf>) -> ExchangeDir {
        ExchangeDir { root: root.into() }
    }

    /// The directory the exchange lives in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `name` on `side`.
    pub fn path(&self, side: Side, name: &str) -> PathBuf {
        let folder = match side {
            Side::Public => "public",
            Side::Owner => "owner",
        };
        self.root.join(folder).join(name)
    }

    /// The name of input ciphertext `i`.
    pub fn input_name(i: usize) -> String {
        format!("input-{i}.ct")
    }

    /// The name of output ciphertext `i`.
    pub fn output_name(i: usize) -> String {
        format!("output-{i}.ct")
    }

    /// Creates both folders, `owner/` readable by its user only, and removes what an earlier
    /// exchange left in `public/` that must not pass for this one's: outputs and keys.
    pub fn create(&self) -> Result<()> {
        for side in [Side::Public, Side::Owner] {
            let folder = self.path(side, "");
            fs::create_dir_all(&folder).map_err(|e| io_error(&folder, e))?;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let owner = self.path(Side::Owner, "");
            fs::set_permissions(&owner, fs::Permissions::from_mode(0o700))
                .map_err(|e| io_error(&owner, e))?;
        }
        for name in [GALOIS_KEYS_FILE, MASTER_KEYS_FILE] {
            remove_if_present(&self.path(Side::Public, name))?;
        }
        for i in 0..Self::max_ciphertexts() {
            remove_if_present(&self.path(Side::Public, &Self::output_name(i)))?;
        }
        Ok(())
    }

    /// Writes `bytes` to `name` on `side` whole ([`helib_rs::write_public_file`]): a reader
    /// never sees half a file, and a link the other party planted is replaced, not followed.
    pub fn write(&self, side: Side, name: &str, bytes: &[u8]) -> Result<()> {
        let path = self.path(side, name);
        helib_rs::write_public_file(&path, bytes).map_err(|e| io_error(&path, e))
    }

    /// Writes a secret to `name` in `owner/`, readable by its user only (0600).
    pub fn write_secret(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let path = self.path(Side::Owner, name);
        helib_rs::write_private_file(&path, bytes).map_err(|e| io_error(&path, e))
    }

    /// Writes the request to `public/` and the owner's copy to `owner/`.
    pub fn write_request(&self, request: &Request) -> Result<()> {
        let line = format!("{request}\n");
        self.write(Side::Public, REQUEST_FILE, line.as_bytes())?;
        self.write(Side::Owner, REQUEST_FILE, line.as_bytes())
    }

    /// The request on `side`, read no further than a request line may be.
    pub fn read_request(&self, side: Side) -> Result<Request> {
        let path = self.path(side, REQUEST_FILE);
        let bytes = helib_rs::read_file_at_most(&path, MAX_REQUEST_BYTES as u64)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::BadRequest(format!("{}: not text", path.display())))?;
        text.trim_end().parse().map_err(|e| match e {
            Error::BadRequest(why) => Error::BadRequest(format!("{}: {why}", path.display())),
            other => other,
        })
    }

    /// The public key on `side`, read no further than a public key of `ctx` may be.
    pub fn read_public_key(&self, ctx: &Context, side: Side) -> Result<PubKey> {
        let path = self.path(side, PUBLIC_KEY_FILE);
        Ok(PubKey::from_bytes(
            ctx,
            &ctx.read_object_file(&path, ObjectKind::PublicKey)?,
        )?)
    }

    /// The bytes of the ciphertexts named by `name(i)` in `public/` for `i` in `indices`
    /// (`0..count` for all of them; a part for a rank that holds only some), each read no
    /// further than a ciphertext of `ctx` may be.
    pub fn read_ciphertext_bytes(
        &self,
        ctx: &Context,
        name: fn(usize) -> String,
        indices: Range<usize>,
    ) -> Result<Vec<Vec<u8>>> {
        indices
            .map(|i| {
                let path = self.path(Side::Public, &name(i));
                Ok(ctx.read_object_file(&path, ObjectKind::Ciphertext)?)
            })
            .collect()
    }

    /// The ciphertexts named by `name(i)` in `public/` for `i` in `indices`, under `pk`.
    pub fn read_ciphertexts(
        &self,
        pk: &PubKey,
        name: fn(usize) -> String,
        indices: Range<usize>,
    ) -> Result<Vec<Ctxt>> {
        self.read_ciphertext_bytes(pk.context(), name, indices)?
            .iter()
            .map(|bytes| Ok(Ctxt::from_bytes(pk, bytes)?))
            .collect()
    }

    /// The most input or output files an exchange has: both inputs of the widest witness map
    /// (one ciphertext per component), more than any FFT's.
    fn max_ciphertexts() -> usize {
        2 * crate::params::MAX_COMPONENTS
    }
}

fn remove_if_present(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(path, e)),
        _ => Ok(()),
    }
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_replaced_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim.txt");
        fs::write(&victim, b"keep me").unwrap();
        let dir = ExchangeDir::new(tmp.path().join("exchange"));
        dir.create().unwrap();
        // The other party plants links at the final name and at a temporary-looking one.
        let target = dir.path(Side::Public, &ExchangeDir::input_name(0));
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        let planted = target.with_file_name(format!("input-0.ct.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        dir.write(Side::Public, &ExchangeDir::input_name(0), b"ciphertext")
            .unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"keep me");
        assert_eq!(fs::read(&target).unwrap(), b"ciphertext");
        assert!(!fs::symlink_metadata(&target)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn an_oversized_or_foreign_request_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ExchangeDir::new(tmp.path());
        dir.create().unwrap();
        dir.write(Side::Public, REQUEST_FILE, &[b' '; 1000])
            .unwrap();
        assert!(dir.read_request(Side::Public).is_err());
        dir.write(Side::Public, REQUEST_FILE, &[0xff, 0xfe])
            .unwrap();
        match dir.read_request(Side::Public) {
            Err(Error::BadRequest(m)) => assert!(m.contains("request.txt"), "{m}"),
            other => panic!("expected a bad request, got {other:?}"),
        }
    }
}
