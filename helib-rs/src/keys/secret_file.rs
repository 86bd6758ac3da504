//! Writing files whole: secrets so that only their owner can read them, and exchanged files so
//! that a reader never sees half of one, whatever was at the path before.

use std::fs;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` as a file only its owner can read and write (mode 0600 on Unix),
/// replacing any file there, whatever its mode was.
///
/// The bytes go to a new file beside `path` (created 0600, never readable by others, not even
/// for a moment) which is then renamed over `path`: an existing world-readable file is replaced
/// rather than rewritten in place, so it cannot keep its old permissions, and a failed write
/// leaves the old file whole. Use it for secret keys and for plaintext the owner keeps.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let dir = std::env::temp_dir().join(format!("helib-rs-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("secret.bin");
/// helib_rs::write_private_file(&path, b"not for others")?;
/// #[cfg(unix)]
/// {
///     use std::os::unix::fs::PermissionsExt;
///     assert_eq!(std::fs::metadata(&path)?.permissions().mode() & 0o777, 0o600);
/// }
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
pub fn write_private_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_whole(path, bytes, 0o600)
}

/// Writes `bytes` to `path` whole (mode 0644 on Unix), replacing any file there: the bytes go
/// to a new file beside `path` that is then renamed over it, so a reader sees the old file or
/// the new one, never half of one. A link planted at the temporary name is replaced, never
/// followed. Use it for files another party reads (ciphertexts, public keys, requests).
pub fn write_public_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_whole(path, bytes, 0o644)
}

/// The temporary file and rename of both writers, the new file created with `mode`.
fn write_whole(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let mut tmp_name = name.to_os_string();
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    // A leftover of a crashed write is ours to replace (removing a link removes only the link).
    let _ = fs::remove_file(&tmp);
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let written = options.open(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    match written.and_then(|()| fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", path.display()),
            ))
        }
    }
}
