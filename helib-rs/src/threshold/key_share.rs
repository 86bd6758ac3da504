//! [`KeyShare`]: one party's share of a secret key shared by a context's parties.

use std::fmt;
use std::ptr;

use ark_ff::PrimeField;
use helib_bindings as sys;
use zeroize::Zeroizing;

use crate::error::{check, Error, Result};
use crate::field_limbs::{check_field, from_limbs};
use crate::threshold::{CommonRandomString, DecryptionShare, RelinSecret, RelinShare};
use crate::{Context, Ctxt, GaloisKeys, GaloisSteps, MasterKeys, PubKey, SecKey};

/// One party's share of a secret key that the context's [`parties`](Context::parties) share
/// (the module docs, [`crate::threshold`], give the whole flow): a uniform ternary secret
/// from the OS CSPRNG, the joint key's id, and the common random string every party used.
///
/// It makes this party's shares of the joint keys and of decryptions; it never decrypts or
/// encrypts alone. Its bytes are as sensitive as a secret key's: the parties together can
/// decrypt everything under the joint key. Its memory is wiped when dropped.
pub struct KeyShare {
    sk: SecKey,
    party: u64,
}

impl KeyShare {
    /// A fresh share for `ctx` (built with [`parties`](crate::ContextBuilder::parties) of 2
    /// or more) from the parties' common string.
    pub fn generate(ctx: &Context, crs: &CommonRandomString) -> Result<KeyShare> {
        let mut raw: *mut sys::helib_seckey = ptr::null_mut();
        // SAFETY: the context handle is live; `crs.0` is 32 readable bytes; `raw` is a valid
        // out-pointer set only on success.
        check(unsafe { sys::helib_seckey_new_share(&mut raw, ctx.as_ptr(), crs.0.as_ptr()) })?;
        KeyShare::from_secret(SecKey::from_raw(raw, ctx)?)
    }

    fn from_secret(sk: SecKey) -> Result<KeyShare> {
        let mut party = 0u64;
        // SAFETY: the key handle is live; `party` is a valid out-pointer.
        check(unsafe { sys::helib_seckey_party(sk.as_ptr(), &mut party) })?;
        if party == 0 {
            return Err(Error::InvalidArgument(
                "these bytes hold a whole secret key, not a party's key share".into(),
            ));
        }
        Ok(KeyShare { sk, party })
    }

    /// The context this share belongs to.
    pub fn context(&self) -> &Context {
        self.sk.context()
    }

    /// This party's random tag (non-zero): decryption shares carry it, so that one party's
    /// share counted twice is refused.
    pub fn party(&self) -> u64 {
        self.party
    }

    /// This party's share of the joint public key, to send to whoever combines them
    /// ([`PubKey::combine`]; read back with [`PubKey::share_from_bytes`]). It has no
    /// relinearization key, and it only combines: encrypting with it is refused.
    pub fn public_key_share(&self) -> Result<PubKey> {
        PubKey::generate(&self.sk)
    }

    /// This party's share of the joint Galois keys for `steps` (every party asks for the same
    /// steps), to combine with [`GaloisKeys::combine`] (read back with
    /// [`GaloisKeys::share_from_bytes`]). It rotates nothing itself.
    pub fn galois_key_share(&self, steps: &GaloisSteps) -> Result<GaloisKeys> {
        GaloisKeys::generate(&self.sk, steps)
    }

    /// This party's share of the joint master keys for `steps` (every party asks for the same
    /// ones; [`MasterKeys::default_steps`] are the usual), on a context built with
    /// [`derivable_keys`](crate::ContextBuilder::derivable_keys): combined with
    /// [`MasterKeys::combine`] (read back with [`MasterKeys::share_from_bytes`]), the joint
    /// master keys a server derives the joint Galois keys from. A share derives nothing.
    pub fn master_key_share(&self, steps: &GaloisSteps) -> Result<MasterKeys> {
        MasterKeys::generate_for(&self.sk, steps)
    }

    /// Round 1 of the joint relinearization key: this party's message (send it) and its
    /// ephemeral secret (keep it in memory for round 2).
    ///
    /// 1. Every party sends `relin_round1` (where a party could wait for the others' messages
    ///    before choosing its own, have each commit to its message first: a party that picks
    ///    its message after seeing the others' can make round 2 give away their shares).
    /// 2. Every party answers every party's round-1 message with
    ///    [`relin_round2`](Self::relin_round2); those answers are summed
    ///    ([`RelinShare::combine`]), and so are the round-1 messages.
    /// 3. [`PubKey::with_joint_relinearization`] puts both sums with the joint public key.
    pub fn relin_round1(&self) -> Result<(RelinShare, RelinSecret)> {
        let mut raw: *mut sys::helib_relin_share = ptr::null_mut();
        let mut secret: *mut sys::helib_relin_secret = ptr::null_mut();
        // SAFETY: the key handle is live; both out-pointers are valid and set together on
        // success.
        check(unsafe { sys::helib_relin_share_round1(&mut raw, &mut secret, self.sk.as_ptr()) })?;
        let secret = RelinSecret::from_raw(secret)?;
        Ok((RelinShare::from_raw(raw, self.context())?, secret))
    }

    /// Round 2 of the joint relinearization key: this party's answer to every party's
    /// round-1 message (one per party, its own among them: [`Error::InvalidArgument`]
    /// otherwise, so that nobody can have it answer a sum made up to extract its share), with
    /// its round-1 secret, which this uses up.
    pub fn relin_round2(&self, secret: RelinSecret, round1: &[RelinShare]) -> Result<RelinShare> {
        let handles: Vec<*const sys::helib_relin_share> =
            round1.iter().map(RelinShare::as_ptr).collect();
        let mut raw: *mut sys::helib_relin_share = ptr::null_mut();
        // SAFETY: the handles are live for the call (the secret is dropped, and wiped, after
        // it); `raw` is a valid out-pointer set on success.
        check(unsafe {
            sys::helib_relin_share_round2(
                &mut raw,
                self.sk.as_ptr(),
                secret.as_mut_ptr(),
                handles.as_ptr(),
                handles.len(),
            )
        })?;
        RelinShare::from_raw(raw, self.context())
    }

    /// This party's part of decrypting `ct` with `smudge_bits` (40 to 128) of statistical
    /// security: combined with every other party's ([`Ctxt::combine_decryption`]), the
    /// plaintext. Send it only to whoever may learn the plaintext, and make it only for a
    /// ciphertext whose origin this party trusts: an unmasked share of a ciphertext made up to
    /// that end (`c1 = 1`, say) gives away this party's key share modulo `p`. A masked share
    /// ([`masked_decryption_share`](Self::masked_decryption_share)) does not.
    pub fn decryption_share(&self, ct: &Ctxt, smudge_bits: u32) -> Result<DecryptionShare> {
        self.share_of(ct, smudge_bits, None)
    }

    /// This party's part of decrypting `ct` into additive shares, and this party's share of
    /// the plaintext's `N` coefficients: combining every party's decryption share gives the
    /// rest, so that the parties' shares and the combined result sum to the plaintext, and no
    /// one of them alone says anything about it. The returned share is secret (wiped when
    /// dropped, as limbs; the field elements are the caller's to keep safe).
    pub fn masked_decryption_share<F: PrimeField>(
        &self,
        ct: &Ctxt,
        smudge_bits: u32,
    ) -> Result<(DecryptionShare, Vec<F>)> {
        check_field::<F>(self.context())?;
        let per = self.context().plaintext_limbs();
        let mut mask = Zeroizing::new(vec![0u64; self.context().ring_degree() * per]);
        let share = self.share_of(ct, smudge_bits, Some(&mut mask))?;
        Ok((share, from_limbs(&mask, per)?))
    }

    fn share_of(
        &self,
        ct: &Ctxt,
        smudge_bits: u32,
        mask: Option<&mut Zeroizing<Vec<u64>>>,
    ) -> Result<DecryptionShare> {
        self.context()
            .ensure_same(ct.context(), "the key share and the ciphertext")?;
        let mut raw: *mut sys::helib_decryption_share = ptr::null_mut();
        let (masked, out, len) = match mask {
            Some(m) => (1, m.as_mut_ptr(), m.len()),
            None => (0, ptr::null_mut(), 0),
        };
        // SAFETY: the key and ciphertext handles are live; `out` is null or writable for
        // `len` limbs; `raw` is a valid out-pointer set only on success.
        check(unsafe {
            sys::helib_decryption_share_new(
                &mut raw,
                self.sk.as_ptr(),
                ct.as_ptr(),
                masked,
                smudge_bits,
                out,
                len,
            )
        })?;
        DecryptionShare::from_raw(raw, self.context())
    }

    /// The share as bytes. **Sensitive**, as a secret key's (store it 0600). Zeroed when
    /// dropped.
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>> {
        self.sk.to_bytes()
    }

    /// Reads a share written by [`to_bytes`](Self::to_bytes) for `ctx`; a whole secret key's
    /// bytes are refused.
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<KeyShare> {
        KeyShare::from_secret(SecKey::from_bytes_any(ctx, bytes)?)
    }
}

impl fmt::Debug for KeyShare {
    // Never prints key material.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyShare")
            .field("party", &self.party)
            .field("parties", &self.context().parties())
            .finish_non_exhaustive()
    }
}
