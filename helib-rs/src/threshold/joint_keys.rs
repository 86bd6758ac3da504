//! The joint keys of a shared secret key: the sums of the parties' key shares.

use std::ptr;

use helib_bindings as sys;

use crate::error::{check, Error, Result};
use crate::{GaloisKeys, MasterKeys, PubKey};

/// The context every part belongs to, checked alike.
pub(super) fn common_context<'a, T>(
    parts: &'a [T],
    context: impl Fn(&'a T) -> &'a crate::Context,
    what: &str,
) -> Result<&'a crate::Context> {
    let first = parts
        .first()
        .ok_or_else(|| Error::InvalidArgument(format!("no {what} to combine")))?;
    let ctx = context(first);
    for p in parts {
        ctx.ensure_same(context(p), what)?;
    }
    Ok(ctx)
}

impl PubKey {
    /// A party's public key share
    /// ([`public_key_share`](crate::threshold::KeyShare::public_key_share)) from its bytes:
    /// [`PubKey::from_bytes`] refuses those, and this reads nothing else.
    pub fn share_from_bytes(ctx: &crate::Context, bytes: &[u8]) -> Result<PubKey> {
        let mut raw: *mut sys::helib_pubkey = ptr::null_mut();
        // SAFETY: the context handle is live; `bytes` is readable for its length; `raw` is a
        // valid out-pointer set only on success.
        check(unsafe {
            sys::helib_pubkey_deserialize_share(&mut raw, ctx.as_ptr(), bytes.as_ptr(), bytes.len())
        })?;
        PubKey::from_raw(raw, ctx)
    }

    /// The joint public key: the sum of every party's
    /// [`public_key_share`](crate::threshold::KeyShare::public_key_share), one per party of
    /// the context, in any order. It encrypts as any public key does; it has no
    /// relinearization key.
    ///
    /// [`Error::Mismatch`] for shares of another joint key or context;
    /// [`Error::InvalidArgument`] for a share missing or given twice.
    pub fn combine(shares: &[PubKey]) -> Result<PubKey> {
        let ctx = common_context(shares, PubKey::context, "public key shares")?;
        let handles: Vec<*const sys::helib_pubkey> =
            shares.iter().map(|s| s.inner.as_ptr()).collect();
        let mut raw: *mut sys::helib_pubkey = ptr::null_mut();
        // SAFETY: every share's handle is live for the call; `handles` holds
        // `handles.len()` of them; `raw` is a valid out-pointer set only on success.
        check(unsafe { sys::helib_pubkey_combine(&mut raw, handles.as_ptr(), handles.len()) })?;
        PubKey::from_raw(raw, ctx)
    }
}

impl GaloisKeys {
    /// A party's Galois key shares
    /// ([`galois_key_share`](crate::threshold::KeyShare::galois_key_share)) from their bytes:
    /// [`GaloisKeys::from_bytes`] refuses those, and this reads nothing else.
    pub fn share_from_bytes(ctx: &crate::Context, bytes: &[u8]) -> Result<GaloisKeys> {
        let mut raw: *mut sys::helib_galois_keys = ptr::null_mut();
        // SAFETY: as for PubKey::share_from_bytes.
        check(unsafe {
            sys::helib_galois_keys_deserialize_share(
                &mut raw,
                ctx.as_ptr(),
                bytes.as_ptr(),
                bytes.len(),
            )
        })?;
        GaloisKeys::from_raw(raw, ctx, None)
    }

    /// The joint Galois keys: the sum of every party's
    /// [`galois_key_share`](crate::threshold::KeyShare::galois_key_share) for the same steps,
    /// one per party. They rotate ciphertexts under the joint public key.
    ///
    /// [`Error::Mismatch`] for shares of another joint key, context or set of steps;
    /// [`Error::InvalidArgument`] for a share missing or given twice.
    pub fn combine(shares: &[GaloisKeys]) -> Result<GaloisKeys> {
        let ctx = common_context(shares, GaloisKeys::context, "Galois key shares")?;
        let handles: Vec<*const sys::helib_galois_keys> =
            shares.iter().map(GaloisKeys::as_ptr).collect();
        let mut raw: *mut sys::helib_galois_keys = ptr::null_mut();
        // SAFETY: as for PubKey::combine.
        check(unsafe {
            sys::helib_galois_keys_combine(&mut raw, handles.as_ptr(), handles.len())
        })?;
        GaloisKeys::from_raw(raw, ctx, None)
    }
}

impl MasterKeys {
    /// A party's master key shares
    /// ([`master_key_share`](crate::threshold::KeyShare::master_key_share)) from their bytes:
    /// [`MasterKeys::from_bytes`] refuses those, and this reads nothing else.
    pub fn share_from_bytes(ctx: &crate::Context, bytes: &[u8]) -> Result<MasterKeys> {
        let mut raw: *mut sys::helib_master_keys = ptr::null_mut();
        // SAFETY: as for PubKey::share_from_bytes.
        check(unsafe {
            sys::helib_master_keys_deserialize_share(
                &mut raw,
                ctx.as_ptr(),
                bytes.as_ptr(),
                bytes.len(),
            )
        })?;
        MasterKeys::from_raw(raw, ctx)
    }

    /// The joint master keys: the sum of every party's
    /// [`master_key_share`](crate::threshold::KeyShare::master_key_share) for the same steps,
    /// one per party. A server derives the joint Galois keys from them
    /// ([`derive`](MasterKeys::derive)) as from one owner's.
    ///
    /// [`Error::Mismatch`] for shares of another joint key, context or set of masters;
    /// [`Error::InvalidArgument`] for a share missing or given twice.
    pub fn combine(shares: &[MasterKeys]) -> Result<MasterKeys> {
        let ctx = common_context(shares, MasterKeys::context, "master key shares")?;
        let handles: Vec<*const sys::helib_master_keys> =
            shares.iter().map(MasterKeys::as_ptr).collect();
        let mut raw: *mut sys::helib_master_keys = ptr::null_mut();
        // SAFETY: as for PubKey::combine.
        check(unsafe {
            sys::helib_master_keys_combine(&mut raw, handles.as_ptr(), handles.len())
        })?;
        MasterKeys::from_raw(raw, ctx)
    }
}
