//! [`Error`]: what went wrong in a transform, with the fields a caller acts on, and
//! helib-rs's errors as they are.

use std::path::PathBuf;

/// he-fft's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// An error of a transform, a check or the protocol.
///
/// The variants a caller reacts to carry their facts as fields: how many ciphertexts or values
/// were expected and given ([`WrongLength`](Self::WrongLength)), which layout
/// ([`Layout`](Self::Layout)), how much noise budget and modulus there was
/// ([`NoiseBudgetExhausted`](Self::NoiseBudgetExhausted)). helib-rs's own errors pass through
/// unchanged as [`Engine`](Self::Engine).
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{Direction, EncryptedTransform, Error, FftOptions, OneProductFft};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size, insecure
/// let fft = OneProductFft::<Fr>::new(&ctx, 16, Direction::Forward, &FftOptions::default())?;
/// let sk = SecKey::generate(&ctx)?;
/// let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
/// match fft.apply(&gk, &[]) {
///     Err(Error::WrongLength { expected: 1, got: 0, .. }) => {}
///     other => panic!("expected a length error, got {other:?}"),
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// helib-rs refused an operation (its error, unchanged).
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),

    /// An argument no transform takes: a size, a shape, an option.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// A vector, a list of ciphertexts or a matrix row of the wrong length.
    #[error("{what}: expected {expected}, got {got}")]
    WrongLength {
        /// What had the wrong length ("the two-stage FFT's input ciphertexts").
        what: String,
        /// The length it must have.
        expected: usize,
        /// The length it had.
        got: usize,
    },

    /// An input ciphertext laid out for another transform (its [`helib_rs::Ctxt::layout_tag`]
    /// is another transform's).
    #[error(
        "an input is laid out for another transform than {transform} (layout tag {got:#x}, it \
         reads {expected:#x}: another size, route or order); encrypt it with this transform's \
         encrypt, or chain transforms whose layouts match (TwoStageFft::with_order, \
         PlanOptions::half_rotated_input)"
    )]
    Layout {
        /// The transform that refused the input.
        transform: &'static str,
        /// The tag it reads.
        expected: u64,
        /// The input's tag.
        got: u64,
    },

    /// Objects that do not belong together: another context, another key.
    #[error("mismatched objects: {0}")]
    Mismatch(String),

    /// A Galois key the transform needs is missing, or no keys were given.
    #[error("missing key: {0}")]
    MissingKey(String),

    /// A result has no noise budget left: the context is too small for the transform, and
    /// decrypting would give garbage.
    #[error(
        "{transform} used up the noise budget ({budget_bits} bits left): its context has \
         {modulus_bits} bits of modulus, and {levels} level(s) at this size need about \
         {needed_bits} (he_fft::{context_helper} sizes one)"
    )]
    NoiseBudgetExhausted {
        /// The transform.
        transform: &'static str,
        /// The smallest budget left among the results, in whole bits (0 or less).
        budget_bits: i64,
        /// The context's modulus, in whole bits.
        modulus_bits: u32,
        /// The levels the transform consumes.
        levels: u32,
        /// The modulus the transform needs at its size on this ring.
        needed_bits: u32,
        /// The `he_fft` function that sizes a context that fits.
        context_helper: &'static str,
    },

    /// The owner's check refused a result: not the transform of the owner's input.
    #[error("result rejected: {0}")]
    ResultRejected(String),

    /// A request line the protocol does not accept.
    #[error("bad request: {0}")]
    BadRequest(String),

    /// A file of an exchange could not be written (reads fail with helib-rs's bounded readers'
    /// errors, as [`Engine`](Self::Engine)).
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },

    /// An invariant the code relies on did not hold: a bug, worth a report.
    #[error("internal error: {0}")]
    Internal(String),

    /// The caller asked the computation to stop
    /// ([`ServerKeys::serve_until`](crate::protocol::ServerKeys::serve_until)).
    #[error("stopped on request")]
    Stopped,
}

impl Error {
    /// [`Error::WrongLength`] of `what`.
    pub fn wrong_length(what: impl Into<String>, expected: usize, got: usize) -> Error {
        Error::WrongLength {
            what: what.into(),
            expected,
            got,
        }
    }
}
