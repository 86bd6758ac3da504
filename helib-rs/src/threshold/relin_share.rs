//! [`RelinShare`]: the two rounds in which the parties make the joint relinearization key.

use std::fmt;
use std::ptr::{self, NonNull};

use helib_bindings as sys;

use crate::error::{check, Error, Result};
use crate::serialization::bytes::collect_bytes;
use crate::threshold::joint_keys::common_context;
use crate::{Context, PubKey};

/// One party's message in a round of the joint relinearization key, or the sum of every
/// party's (the [`KeyShare::relin_round1`](crate::threshold::KeyShare::relin_round1) docs give
/// the rounds). A round-1 message is about the size of a whole relinearization key; a
/// round-2 message, half that.
pub struct RelinShare {
    raw: NonNull<sys::helib_relin_share>,
    ctx: Context,
    party: u64,
    round: u32,
}

/// A party's ephemeral secret between the two rounds, and the digest of the round-1 message
/// it sent: kept in memory only, used up by round 2, wiped when dropped.
pub struct RelinSecret {
    raw: NonNull<sys::helib_relin_secret>,
}

// SAFETY: both engine objects are immutable once made and only read through const pointers;
// each is freed once, from Drop.
unsafe impl Send for RelinShare {}
// SAFETY: as above.
unsafe impl Sync for RelinShare {}
// SAFETY: as above.
unsafe impl Send for RelinSecret {}

impl Drop for RelinShare {
    fn drop(&mut self) {
        // SAFETY: `raw` came from the engine and is freed exactly once, here.
        unsafe { sys::helib_relin_share_free(self.raw.as_ptr()) }
    }
}

impl Drop for RelinSecret {
    fn drop(&mut self) {
        // SAFETY: `raw` came from the engine and is freed (and wiped) exactly once, here.
        unsafe { sys::helib_relin_secret_free(self.raw.as_ptr()) }
    }
}

impl RelinSecret {
    pub(crate) fn from_raw(raw: *mut sys::helib_relin_secret) -> Result<RelinSecret> {
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::Internal("the engine returned no round-1 secret".into()))?;
        Ok(RelinSecret { raw })
    }

    pub(crate) fn as_mut_ptr(&self) -> *mut sys::helib_relin_secret {
        self.raw.as_ptr()
    }
}

impl fmt::Debug for RelinSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelinSecret").finish_non_exhaustive()
    }
}

impl RelinShare {
    pub(crate) fn from_raw(raw: *mut sys::helib_relin_share, ctx: &Context) -> Result<RelinShare> {
        let raw = NonNull::new(raw).ok_or_else(|| {
            Error::Internal("the engine returned no relinearization share".into())
        })?;
        let mut share = RelinShare {
            raw,
            ctx: ctx.clone(),
            party: 0,
            round: 0,
        };
        // SAFETY: the handle is live; the out-pointers are valid. On error `share` frees it.
        check(unsafe {
            sys::helib_relin_share_info(raw.as_ptr(), &mut share.party, &mut share.round)
        })?;
        Ok(share)
    }

    pub(crate) fn as_ptr(&self) -> *const sys::helib_relin_share {
        self.raw.as_ptr()
    }

    /// The party who sent it; 0 for a round's sum.
    pub fn party(&self) -> u64 {
        self.party
    }

    /// The round, 1 or 2.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The sum of one message per party of the context, all of one round (anyone may add
    /// them: they are public). [`Error::Mismatch`] for messages of another key, round or
    /// round-1 sum; [`Error::InvalidArgument`] for a missing one or one party's twice.
    pub fn combine(shares: &[RelinShare]) -> Result<RelinShare> {
        let ctx = common_context(shares, |s| &s.ctx, "relinearization shares")?;
        let handles: Vec<*const sys::helib_relin_share> = shares.iter().map(Self::as_ptr).collect();
        let mut raw: *mut sys::helib_relin_share = ptr::null_mut();
        // SAFETY: every handle is live for the call; `raw` is a valid out-pointer.
        check(unsafe {
            sys::helib_relin_share_combine(&mut raw, handles.as_ptr(), handles.len())
        })?;
        RelinShare::from_raw(raw, ctx)
    }

    /// The message as bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        collect_bytes(|out, len, needed| {
            // SAFETY: the handle is live; `out` is null or writable for `len` bytes;
            // `needed` is a valid out-pointer.
            unsafe { sys::helib_relin_share_serialize(self.raw.as_ptr(), out, len, needed) }
        })
    }

    /// Reads a message for `ctx`, every field and residue checked.
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<RelinShare> {
        let mut raw: *mut sys::helib_relin_share = ptr::null_mut();
        // SAFETY: the context handle is live; `bytes` is readable for its length; `raw` is a
        // valid out-pointer set only on success.
        check(unsafe {
            sys::helib_relin_share_deserialize(&mut raw, ctx.as_ptr(), bytes.as_ptr(), bytes.len())
        })?;
        RelinShare::from_raw(raw, ctx)
    }
}

impl fmt::Debug for RelinShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelinShare")
            .field("party", &self.party)
            .field("round", &self.round)
            .finish_non_exhaustive()
    }
}

impl PubKey {
    /// This joint public key ([`PubKey::combine`]) with the joint relinearization key made of
    /// the sums of both rounds: it then multiplies ciphertexts as one owner's public key does.
    /// Its bytes ([`to_bytes`](PubKey::to_bytes)) hold the relinearization key in full, about
    /// twice a single owner's.
    pub fn with_joint_relinearization(
        &self,
        round1_sum: &RelinShare,
        round2_sum: &RelinShare,
    ) -> Result<PubKey> {
        let mut raw: *mut sys::helib_pubkey = ptr::null_mut();
        // SAFETY: the three handles are live; `raw` is a valid out-pointer set on success.
        check(unsafe {
            sys::helib_pubkey_with_joint_relin(
                &mut raw,
                self.inner.as_ptr(),
                round1_sum.as_ptr(),
                round2_sum.as_ptr(),
            )
        })?;
        PubKey::from_raw(raw, self.context())
    }
}
