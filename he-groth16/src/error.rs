//! What can go wrong when the witness map is outsourced.

/// Errors of the outsourced witness map. Inside ark-groth16's prover they surface as a
/// `SynthesisError` (which carries no text); [`last_error`](crate::last_error) then gives this
/// error on the proving thread.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The prover ran [`EncryptedReduction`](crate::EncryptedReduction) with no session
    /// entered on this thread ([`Outsourcing::enter`](crate::Outsourcing::enter)).
    #[error(
        "no outsourcing session on this thread: call Outsourcing::enter and keep its guard \
         alive while proving with EncryptedReduction"
    )]
    NoSession,
    /// The session was made for another field or another domain size than the circuit needs.
    #[error("the session does not fit this circuit: {0}")]
    SessionMismatch(String),
    /// The inputs are inconsistent (matrix count, assignment length, domain size).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The decrypted `h` failed the owner's check: the server returned something else than
    /// the witness map, or the witness does not satisfy the constraints.
    #[error("the witness map was rejected: {0}")]
    Rejected(String),
    /// The engine failed (keys, bytes).
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),
    /// The witness map's transform failed (input counts, layout, keys, noise budget).
    #[error(transparent)]
    Transform(he_fft::Error),
    /// A remote server could not be reached, or refused or failed the work.
    #[error("the witness server: {0}")]
    Server(String),
    /// One of the parties sharing a key sent a message that is missing, repeated or
    /// malformed ([`parties`](crate::parties)).
    #[error("party {party}: {reason}")]
    Party {
        /// The party, `0..k`.
        party: u32,
        /// What is wrong with its message.
        reason: String,
    },
    /// A circom or snarkjs file (`.r1cs`, `.wtns`, `.zkey`) that cannot be read, is
    /// malformed, or does not match the others ([`circom`](crate::circom)).
    #[error("{file}: {reason}")]
    File {
        /// The file, as the caller named it.
        file: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// he-fft's errors as they are, except that helib-rs's own stay [`Error::Engine`], whichever
/// crate passed them on.
impl From<he_fft::Error> for Error {
    fn from(e: he_fft::Error) -> Self {
        match e {
            he_fft::Error::Engine(e) => Error::Engine(e),
            other => Error::Transform(other),
        }
    }
}
