//! [`CommonRandomString`]: the seed every party's key share draws the joint keys' uniform
//! parts from, agreed from one contribution per party.

use sha2::{Digest, Sha256};

use helib_bindings as sys;

use crate::error::{check, Result};

/// 32 bytes the parties agree on, from which every joint key's uniform part is expanded (so
/// the parties' key shares add up). Public: it protects nothing, but no party alone may choose
/// it, so it is the hash of every party's [`contribution`], in the parties' agreed order.
///
/// A party that sees the others' contributions before sending its own could steer the hash
/// (not choose it); where that matters, have each party commit to its contribution first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommonRandomString(pub [u8; 32]);

/// 32 fresh bytes from the OS CSPRNG: one party's part of a [`CommonRandomString`].
pub fn contribution() -> Result<[u8; 32]> {
    let mut bytes = [0u8; 32];
    // SAFETY: `bytes` is 32 writable bytes.
    check(unsafe { sys::helib_os_random_seed(bytes.as_mut_ptr()) })?;
    Ok(bytes)
}

impl CommonRandomString {
    /// The string of `contributions` (one per party, in the order every party uses): the
    /// SHA-256 of a domain tag, the count and the contributions.
    ///
    /// ```
    /// use helib_rs::threshold::CommonRandomString;
    ///
    /// let a = CommonRandomString::agree(&[[1; 32], [2; 32]]);
    /// assert_eq!(a, CommonRandomString::agree(&[[1; 32], [2; 32]]));
    /// assert_ne!(a, CommonRandomString::agree(&[[2; 32], [1; 32]]));
    /// ```
    pub fn agree(contributions: &[[u8; 32]]) -> CommonRandomString {
        let mut h = Sha256::new();
        h.update(b"bigp-he common random string v1");
        h.update((contributions.len() as u64).to_le_bytes());
        for c in contributions {
            h.update(c);
        }
        CommonRandomString(h.finalize().into())
    }
}
