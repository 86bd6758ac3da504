//! The joint key set, in two rounds after the common random string: each party's
//! [`KeyShares`], then its [`RelinAnswer`]; anyone holding every message combines them.

use helib_rs::threshold::{KeyShare, RelinSecret, RelinShare};
use helib_rs::{Context, GaloisKeys, GaloisSteps, PubKey};

use super::messages::{check_senders, KeyShares, RelinAnswer};
use crate::Error;

/// What the parties' key generation gives the coordinator and the server: the joint public
/// key with its relinearization key, and the joint Galois keys.
pub struct JointKeys {
    /// The joint public key, which encrypts and relinearizes.
    pub public_key: PubKey,
    /// The joint Galois keys for the witness map's steps.
    pub galois_keys: GaloisKeys,
}

/// Party `party`'s round-1 message for Galois `steps` (the witness map's), and the secret its
/// round 2 uses up.
pub fn key_shares(
    key: &KeyShare,
    party: u32,
    steps: &GaloisSteps,
) -> Result<(KeyShares, RelinSecret), Error> {
    let (relin, secret) = key.relin_round1()?;
    let galois_keys = if steps.max_keys() == 0 {
        Vec::new()
    } else {
        key.galois_key_share(steps)?.to_bytes()?
    };
    Ok((
        KeyShares {
            party,
            public_key: key.public_key_share()?.to_bytes()?,
            galois_keys,
            relin_round1: relin.to_bytes()?,
        },
        secret,
    ))
}

/// The round-1 relinearization messages of `round1`, in party order, each read and checked.
fn relin_round1(ctx: &Context, round1: &[KeyShares]) -> Result<Vec<RelinShare>, Error> {
    check_senders(ctx.parties(), round1.iter().map(|m| m.party), "key shares")?;
    let mut sorted: Vec<&KeyShares> = round1.iter().collect();
    sorted.sort_by_key(|m| m.party);
    sorted
        .iter()
        .map(|m| {
            RelinShare::from_bytes(ctx, &m.relin_round1).map_err(|e| Error::Party {
                party: m.party,
                reason: format!("its relinearization message: {e}"),
            })
        })
        .collect()
}

/// Party `party`'s round-2 message: its answer to every party's round-1 message, with the
/// secret from its own round 1.
pub fn relin_answer(
    key: &KeyShare,
    party: u32,
    secret: RelinSecret,
    round1: &[KeyShares],
) -> Result<RelinAnswer, Error> {
    let shares = relin_round1(key.context(), round1)?;
    Ok(RelinAnswer {
        party,
        relin_round2: key.relin_round2(secret, &shares)?.to_bytes()?,
    })
}

/// The joint keys from every party's two messages; a missing, repeated or malformed one is
/// [`Error::Party`] naming its sender.
pub fn joint_keys(
    ctx: &Context,
    round1: &[KeyShares],
    round2: &[RelinAnswer],
) -> Result<JointKeys, Error> {
    let first = RelinShare::combine(&relin_round1(ctx, round1)?)?;
    check_senders(
        ctx.parties(),
        round2.iter().map(|m| m.party),
        "relinearization answer",
    )?;
    let party_error = |party: u32, what: &'static str| {
        move |e: helib_rs::Error| Error::Party {
            party,
            reason: format!("{what}: {e}"),
        }
    };
    // In party order, so that the engine's complaint about "share i" names party i.
    let mut sorted: Vec<&RelinAnswer> = round2.iter().collect();
    sorted.sort_by_key(|m| m.party);
    let second = sorted
        .iter()
        .map(|m| {
            RelinShare::from_bytes(ctx, &m.relin_round2)
                .map_err(party_error(m.party, "its relinearization answer"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let second = RelinShare::combine(&second)?;
    let public = round1
        .iter()
        .map(|m| {
            PubKey::share_from_bytes(ctx, &m.public_key)
                .map_err(party_error(m.party, "its public key share"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let public_key = PubKey::combine(&public)?.with_joint_relinearization(&first, &second)?;
    drop(public);
    // One share in memory besides the sum at a time would need an incremental sum; the
    // engine's sum takes them all, so the largest key sets cost k shares' memory here.
    let galois = round1
        .iter()
        .map(|m| {
            GaloisKeys::share_from_bytes(ctx, &m.galois_keys)
                .map_err(party_error(m.party, "its Galois key shares"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(JointKeys {
        public_key,
        galois_keys: GaloisKeys::combine(&galois)?,
    })
}
