//! The crate's error type and the single place where C status codes become Rust errors.

use std::ffi::CStr;

use helib_bindings as sys;

/// Everything that can go wrong in `helib-rs`.
///
/// The first group of variants mirrors the engine's `HELIB_ERR_*` status codes one to one and
/// carries the engine's explanation; the rest are detected on the Rust side before the engine
/// is called.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter or argument is malformed or out of range (`HELIB_ERR_INVALID_ARGUMENT`),
    /// e.g. `m` not a power of two, `p` even or composite, too few modulus bits.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The parameters are estimated below 128-bit security and the caller did not opt out with
    /// [`ContextBuilder::allow_insecure`](crate::ContextBuilder::allow_insecure)
    /// (`HELIB_ERR_INSECURE_PARAMETERS`).
    #[error("insecure parameters: {0}")]
    InsecureParameters(String),
    /// Objects of different contexts or different keys were combined (`HELIB_ERR_MISMATCH`).
    #[error("mismatched objects: {0}")]
    Mismatch(String),
    /// The ciphertext's noise budget is used up, or its measured noise exceeds its recorded
    /// bound, so the result could not be trusted (`HELIB_ERR_NOISE_BUDGET_EXHAUSTED`). For
    /// honestly computed ciphertexts decryption refuses rather than return a wrong value.
    /// Serialized bytes are not authenticated, so a forged ciphertext can still decrypt to a
    /// wrong value: check results on the owner's side (`he_fft::check`), and never report a
    /// failure back to whoever supplied the ciphertext.
    #[error("noise budget exhausted: {0}")]
    NoiseBudgetExhausted(String),
    /// A key the operation needs is missing, e.g. a Galois key (`HELIB_ERR_MISSING_KEY`).
    #[error("missing key: {0}")]
    MissingKey(String),
    /// The ciphertext cannot go to the requested level, e.g. it is already at the lowest one
    /// (`HELIB_ERR_LEVEL`).
    #[error("level: {0}")]
    Level(String),
    /// An output buffer was too small (`HELIB_ERR_BUFFER_TOO_SMALL`). The safe API sizes its
    /// buffers itself, so seeing this means the engine and this crate disagree on a size.
    #[error("output buffer too small")]
    BufferTooSmall,
    /// The engine could not allocate memory (`HELIB_ERR_OUT_OF_MEMORY`).
    #[error("out of memory")]
    OutOfMemory,
    /// The engine reported a bug, or returned a status this crate does not know
    /// (`HELIB_ERR_INTERNAL`).
    #[error("internal engine error: {0}")]
    Internal(String),
    /// An arkworks field was used whose modulus differs from the context's plaintext modulus.
    #[error("field mismatch: {0}")]
    FieldMismatch(String),
    /// A slice has the wrong length, e.g. a polynomial with more than `N` coefficients.
    #[error("invalid length: {0}")]
    InvalidLength(String),
    /// The plaintext ring has no SIMD slots: batch encoding needs `p = 1 mod 2N`, and the
    /// field's two-adicity is too small for this `N`
    /// (see [`BatchEncoder::new`](crate::BatchEncoder::new)).
    #[error("no slots: {0}")]
    NoSlots(String),
    /// A result the data owner received failed its check (e.g. `he_fft::check`): the server
    /// computed something else, or the bytes were altered on the way. Tell nobody but the owner
    /// which result failed: a verdict sent back is an oracle for whoever forged it.
    #[error("result rejected: {0}")]
    ResultRejected(String),
    /// A file could not be read or written; the message names it and the OS error.
    #[error("i/o: {0}")]
    Io(String),
    /// An aggregation refused one user's upload ([`EncryptedSum`](crate::EncryptedSum)): its
    /// size or public fields (level, plaintext factor, noise bound, key) are not those of an
    /// honest upload for the aggregation's parameters. Nothing of it was added.
    #[error("upload {index}{}: {reason}", file.as_ref().map(|f| format!(" ({})", f.display())).unwrap_or_default())]
    RefusedUpload {
        /// Its position: among the uploads added to the sum (from 0), or in the list of files.
        index: u64,
        /// The file it was read from, if any.
        file: Option<std::path::PathBuf>,
        /// What is wrong with it.
        reason: String,
    },
}

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Turns an engine status into a `Result`, reading the calling thread's last-error message.
///
/// Must run on the thread that made the call, right after it: the C side keeps the message in
/// thread-local storage and overwrites it on the next failure.
pub(crate) fn check(status: sys::helib_status) -> Result<()> {
    if status == sys::HELIB_OK {
        return Ok(());
    }
    let message = last_error_message(status);
    Err(match status {
        sys::HELIB_ERR_INVALID_ARGUMENT => Error::InvalidArgument(message),
        sys::HELIB_ERR_INSECURE_PARAMETERS => Error::InsecureParameters(message),
        sys::HELIB_ERR_MISMATCH => Error::Mismatch(message),
        sys::HELIB_ERR_NOISE_BUDGET_EXHAUSTED => Error::NoiseBudgetExhausted(message),
        sys::HELIB_ERR_MISSING_KEY => Error::MissingKey(message),
        sys::HELIB_ERR_LEVEL => Error::Level(message),
        sys::HELIB_ERR_BUFFER_TOO_SMALL => Error::BufferTooSmall,
        sys::HELIB_ERR_OUT_OF_MEMORY => Error::OutOfMemory,
        sys::HELIB_ERR_INTERNAL => Error::Internal(message),
        other => Error::Internal(format!("unknown engine status {other}: {message}")),
    })
}

fn last_error_message(status: sys::helib_status) -> String {
    // SAFETY: helib_last_error takes no arguments and returns either NULL or a NUL-terminated
    // string owned by this thread's storage, valid until this thread's next failing call;
    // it is copied out before anything else runs on this thread.
    let text = unsafe {
        let ptr = sys::helib_last_error();
        if ptr.is_null() {
            String::new()
        } else {
            CStr::from_ptr(ptr).to_string_lossy().into_owned()
        }
    };
    // Callers match on the variant but show the text to people: never leave it empty.
    if text.is_empty() {
        format!("engine returned status {status} without a message")
    } else {
        text
    }
}
