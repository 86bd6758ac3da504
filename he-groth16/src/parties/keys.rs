//! The joint key set, in two rounds after the common random string: each party's
//! [`KeyShares`] and first [`RelinMessage`], then its second; whoever holds every message
//! combines them.

use helib_rs::threshold::{KeyShare, RelinSecret, RelinShare};
use helib_rs::{Context, GaloisKeys, GaloisSteps, PubKey};

use super::messages::{check_senders, KeyShares, RelinMessage};
use crate::Error;

/// What the parties' key generation gives the coordinator and the server: the joint public
/// key with its relinearization key, and the joint Galois keys.
pub struct JointKeys {
    /// The joint public key, which encrypts and relinearizes.
    pub public_key: PubKey,
    /// The joint Galois keys for the witness map's steps.
    pub galois_keys: GaloisKeys,
}

/// Party `party`'s round-1 messages for Galois `steps` (the witness map's): its key shares
/// for whoever combines, its first relinearization message for every party, and the secret
/// its second uses up.
pub fn key_shares(
    key: &KeyShare,
    party: u32,
    steps: &GaloisSteps,
) -> Result<(KeyShares, RelinMessage, RelinSecret), Error> {
    let (relin, secret) = key.relin_round1()?;
    let shares = KeyShares {
        party,
        public_key: key.public_key_share()?.to_bytes()?,
        galois_keys: key.galois_key_share(steps)?.to_bytes()?,
    };
    let relin = RelinMessage {
        party,
        round: 1,
        share: relin.to_bytes()?,
    };
    Ok((shares, relin, secret))
}

/// One relinearization round's messages, one per party, read in party order (so that the
/// engine's complaint about "share i" names party i).
fn relin_round(
    ctx: &Context,
    messages: &[RelinMessage],
    round: u32,
) -> Result<Vec<RelinShare>, Error> {
    let what = format!("relinearization message of round {round}");
    check_senders(ctx.parties(), messages.iter().map(|m| m.party), &what)?;
    let mut sorted: Vec<&RelinMessage> = messages.iter().collect();
    sorted.sort_by_key(|m| m.party);
    sorted
        .iter()
        .map(|m| {
            if m.round != round {
                return Err(Error::Party {
                    party: m.party,
                    reason: format!("sent round {} where round {round} was due", m.round),
                });
            }
            RelinShare::from_bytes(ctx, &m.share).map_err(|e| Error::Party {
                party: m.party,
                reason: format!("its {what}: {e}"),
            })
        })
        .collect()
}

/// Party `party`'s round-2 message: its answer to every party's round-1 relinearization
/// message, with the secret from its own round 1.
pub fn relin_round2(
    key: &KeyShare,
    party: u32,
    secret: RelinSecret,
    round1: &[RelinMessage],
) -> Result<RelinMessage, Error> {
    let shares = relin_round(key.context(), round1, 1)?;
    Ok(RelinMessage {
        party,
        round: 2,
        share: key.relin_round2(secret, &shares)?.to_bytes()?,
    })
}

/// The joint keys from every party's messages; a missing, repeated or malformed one is
/// [`Error::Party`] naming its sender.
///
/// The engine adds the Galois key shares all at once, so every party's shares are in memory
/// with their sum (`k + 1` key sets' worth at the peak); each message's bytes are dropped as
/// soon as they are read.
pub fn joint_keys(
    ctx: &Context,
    keys: Vec<KeyShares>,
    round1: &[RelinMessage],
    round2: &[RelinMessage],
) -> Result<JointKeys, Error> {
    check_senders(ctx.parties(), keys.iter().map(|m| m.party), "key shares")?;
    let first = RelinShare::combine(&relin_round(ctx, round1, 1)?)?;
    let second = RelinShare::combine(&relin_round(ctx, round2, 2)?)?;
    let party_error = |party: u32, what: &'static str| {
        move |e: helib_rs::Error| Error::Party {
            party,
            reason: format!("{what}: {e}"),
        }
    };
    let public = keys
        .iter()
        .map(|m| {
            PubKey::share_from_bytes(ctx, &m.public_key)
                .map_err(party_error(m.party, "its public key share"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let public_key = PubKey::combine(&public)?.with_joint_relinearization(&first, &second)?;
    drop((public, first, second));
    let galois = keys
        .into_iter()
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
