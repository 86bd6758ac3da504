//! Known-answer self-test of the engine's random generator and vector kernels.

use helib_bindings as sys;

use crate::error::{check, Result};

/// Checks the engine's keystream generator against a known answer: the ChaCha20 block of
/// RFC 8439 (section 2.3.2), and, on CPUs with AVX2, the eight-block vector kernel against the
/// scalar one for both round counts the engine uses (20 for secrets and errors, 12 for the
/// public "a" parts of keys), and the vector rejection sampler against the scalar one. Also,
/// with AVX2 and FMA, the vector basis-conversion kernel (key switching and plaintext
/// conversion) against the scalar one at the edge of its bounds, and every vector NTT the CPU
/// has (AVX-512 IFMA, AVX2) against the scalar NTT on three primes and three sizes. Cheap
/// (about a millisecond); a service may run it once at start-up.
///
/// Returns [`Error::Internal`](crate::Error::Internal) on a mismatch.
///
/// ```
/// helib_rs::self_test().expect("engine self-test");
/// ```
pub fn self_test() -> Result<()> {
    // SAFETY: takes no arguments and touches no shared state.
    check(unsafe { sys::helib_self_test() })
}
