//! What the parties and the coordinator send each other, as bytes. Each message names the
//! party that sent it; the coordinator checks that every party sent exactly one.

use ark_ec::pairing::Pairing;

use super::wire::{Reader, Writer};
use crate::{Ciphertexts, Error};

/// The most ciphertexts a message's list may hold (a witness map at `2^24` points over
/// `N = 65536` takes 512 a vector): bounds what a malformed message can make a reader parse.
const MAX_CIPHERTEXTS: usize = 4096;

/// Round 1 of the joint key generation, for whoever combines the joint keys: a party's
/// public key share and its Galois key shares for the witness map's steps, each the bytes of
/// a [`helib_rs::threshold`] object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyShares {
    /// The sender, `0..k`.
    pub party: u32,
    /// [`KeyShare::public_key_share`](helib_rs::threshold::KeyShare::public_key_share).
    pub public_key: Vec<u8>,
    /// [`KeyShare::galois_key_share`](helib_rs::threshold::KeyShare::galois_key_share).
    pub galois_keys: Vec<u8>,
}

/// A party's message in one of the two relinearization rounds: in round 1, for every party
/// and whoever combines ([`KeyShare::relin_round1`](helib_rs::threshold::KeyShare::relin_round1));
/// in round 2, its answer to every round-1 message, for whoever combines
/// ([`KeyShare::relin_round2`](helib_rs::threshold::KeyShare::relin_round2)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelinMessage {
    /// The sender, `0..k`.
    pub party: u32,
    /// 1 or 2.
    pub round: u32,
    /// The [`RelinShare`](helib_rs::threshold::RelinShare)'s bytes.
    pub share: Vec<u8>,
}

/// A party's first message of a proof: its shares of `a` and `b` encrypted under the joint
/// key, its blinding shares `r_i`, `s_i` encrypted alike, and its shares of the proof's `A`
/// (in G1), `B` (in G2) and `B` in G1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contribution<E: Pairing> {
    /// The sender, `0..k`.
    pub party: u32,
    /// The party's share of `a`, one byte string per ciphertext.
    pub a: Ciphertexts,
    /// The party's share of `b`.
    pub b: Ciphertexts,
    /// `r_i` (a constant polynomial).
    pub r: Vec<u8>,
    /// `s_i`.
    pub s: Vec<u8>,
    /// The party's share of `A`.
    pub g1_a: E::G1Affine,
    /// The party's share of `B`.
    pub g2_b: E::G2Affine,
    /// The party's share of `B` in G1.
    pub g1_b: E::G1Affine,
}

/// The coordinator's answer to the contributions: the encrypted `h` and `r s`, and the sums
/// `A`, `B` and `B` in G1 (the proof's first two elements, and what each party's share of
/// `C` needs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broadcast<E: Pairing> {
    /// The witness map's result, one byte string per ciphertext.
    pub h: Ciphertexts,
    /// `r s`, a constant polynomial.
    pub rs: Vec<u8>,
    /// The proof's `A`.
    pub g1_a: E::G1Affine,
    /// The proof's `B`.
    pub g2_b: E::G2Affine,
    /// `B` in G1.
    pub g1_b: E::G1Affine,
}

/// A party's last message of a proof: its masked decryption shares of each ciphertext of
/// `h`, then of `r s`, and its share of `C`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion<E: Pairing> {
    /// The sender, `0..k`.
    pub party: u32,
    /// One [`DecryptionShare`](helib_rs::threshold::DecryptionShare) per ciphertext of `h`,
    /// then one for `r s`.
    pub decryption_shares: Vec<Vec<u8>>,
    /// The party's share of `C`.
    pub g1_c: E::G1Affine,
}

const KEY_SHARES: &[u8; 8] = b"HEG16KS1";
const RELIN_MESSAGE: &[u8; 8] = b"HEG16RL1";
const CONTRIBUTION: &[u8; 8] = b"HEG16CO1";
const BROADCAST: &[u8; 8] = b"HEG16BR1";
const COMPLETION: &[u8; 8] = b"HEG16CM1";

impl KeyShares {
    /// The message as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        Writer::new(KEY_SHARES)
            .u32(self.party)
            .bytes(&self.public_key)
            .bytes(&self.galois_keys)
            .finish()
    }

    /// The message from its bytes; the keys inside are read (and checked) when combined.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(bytes, KEY_SHARES, "key shares message")?;
        let m = KeyShares {
            party: r.u32("the party")?,
            public_key: r.bytes("the public key share")?,
            galois_keys: r.bytes("the Galois key shares")?,
        };
        r.end()?;
        Ok(m)
    }
}

impl RelinMessage {
    /// The message as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        Writer::new(RELIN_MESSAGE)
            .u32(self.party)
            .u32(self.round)
            .bytes(&self.share)
            .finish()
    }

    /// The message from its bytes; the share inside is read (and checked) when used.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(bytes, RELIN_MESSAGE, "relinearization message")?;
        let m = RelinMessage {
            party: r.u32("the party")?,
            round: r.u32("the round")?,
            share: r.bytes("the relinearization share")?,
        };
        r.end()?;
        if !(1..=2).contains(&m.round) {
            return Err(Error::Party {
                party: m.party,
                reason: format!("a relinearization message of round {}", m.round),
            });
        }
        Ok(m)
    }
}

impl<E: Pairing> Contribution<E> {
    /// The message as bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        Ok(Writer::new(CONTRIBUTION)
            .u32(self.party)
            .list(&self.a, MAX_CIPHERTEXTS)?
            .list(&self.b, MAX_CIPHERTEXTS)?
            .bytes(&self.r)
            .bytes(&self.s)
            .point(&self.g1_a)?
            .point(&self.g2_b)?
            .point(&self.g1_b)?
            .finish())
    }

    /// The message from its bytes: its group elements checked, its ciphertexts read when used.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(bytes, CONTRIBUTION, "contribution")?;
        let m = Contribution {
            party: r.u32("the party")?,
            a: r.list(MAX_CIPHERTEXTS, "a")?,
            b: r.list(MAX_CIPHERTEXTS, "b")?,
            r: r.bytes("r")?,
            s: r.bytes("s")?,
            g1_a: r.point("A")?,
            g2_b: r.point("B")?,
            g1_b: r.point("B in G1")?,
        };
        r.end()?;
        Ok(m)
    }

    /// Bytes of its ciphertexts.
    pub fn ciphertext_bytes(&self) -> u64 {
        let lists: u64 = self.a.iter().chain(&self.b).map(|c| c.len() as u64).sum();
        lists + (self.r.len() + self.s.len()) as u64
    }
}

impl<E: Pairing> Broadcast<E> {
    /// The message as bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        Ok(Writer::new(BROADCAST)
            .list(&self.h, MAX_CIPHERTEXTS)?
            .bytes(&self.rs)
            .point(&self.g1_a)?
            .point(&self.g2_b)?
            .point(&self.g1_b)?
            .finish())
    }

    /// The message from its bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(bytes, BROADCAST, "broadcast")?;
        let m = Broadcast {
            h: r.list(MAX_CIPHERTEXTS, "h")?,
            rs: r.bytes("r s")?,
            g1_a: r.point("A")?,
            g2_b: r.point("B")?,
            g1_b: r.point("B in G1")?,
        };
        r.end()?;
        Ok(m)
    }
}

impl<E: Pairing> Completion<E> {
    /// The message as bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        Ok(Writer::new(COMPLETION)
            .u32(self.party)
            .list(&self.decryption_shares, MAX_CIPHERTEXTS + 1)?
            .point(&self.g1_c)?
            .finish())
    }

    /// The message from its bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(bytes, COMPLETION, "completion")?;
        let m = Completion {
            party: r.u32("the party")?,
            decryption_shares: r.list(MAX_CIPHERTEXTS + 1, "the decryption shares")?,
            g1_c: r.point("C")?,
        };
        r.end()?;
        Ok(m)
    }
}

/// Checks that `parties` names each of `0..k` exactly once, as messages of `what`: the
/// error names the first party missing, unknown or heard twice.
pub(crate) fn check_senders(
    k: u32,
    parties: impl IntoIterator<Item = u32>,
    what: &str,
) -> Result<(), Error> {
    let mut seen = vec![false; k as usize];
    for p in parties {
        match seen.get_mut(p as usize) {
            None => {
                return Err(Error::Party {
                    party: p,
                    reason: format!("sent {what}, but the key is shared by parties 0..{k}"),
                })
            }
            Some(true) => {
                return Err(Error::Party {
                    party: p,
                    reason: format!("sent {what} twice"),
                })
            }
            Some(s) => *s = true,
        }
    }
    match seen.iter().position(|s| !s) {
        Some(p) => Err(Error::Party {
            party: p as u32,
            reason: format!("sent no {what}"),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Bn254;
    use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};

    /// Random bytes behind each message's tag, and random cuts and flips of a valid one: every
    /// reader answers with a value or an error, never a panic.
    #[test]
    fn arbitrary_bytes_are_refused_without_a_panic() {
        let mut rng = StdRng::seed_from_u64(7);
        let valid = Completion::<Bn254> {
            party: 1,
            decryption_shares: vec![vec![1, 2, 3]; 2],
            g1_c: Default::default(),
        }
        .to_bytes()
        .unwrap();
        for round in 0..3000 {
            let bytes: Vec<u8> = match round % 3 {
                0 => {
                    let tag = [
                        KEY_SHARES,
                        RELIN_MESSAGE,
                        CONTRIBUTION,
                        BROADCAST,
                        COMPLETION,
                    ][rng.gen_range(0..5)];
                    let len = rng.gen_range(0..200);
                    tag.iter()
                        .copied()
                        .chain((0..len).map(|_| rng.gen()))
                        .collect()
                }
                1 => valid[..rng.gen_range(0..valid.len())].to_vec(),
                _ => {
                    let mut b = valid.clone();
                    let i = rng.gen_range(0..b.len());
                    b[i] ^= 1 << rng.gen_range(0..8);
                    b
                }
            };
            let _ = KeyShares::from_bytes(&bytes);
            let _ = RelinMessage::from_bytes(&bytes);
            let _ = Contribution::<Bn254>::from_bytes(&bytes);
            let _ = Broadcast::<Bn254>::from_bytes(&bytes);
            let _ = Completion::<Bn254>::from_bytes(&bytes);
        }
        assert_eq!(Completion::<Bn254>::from_bytes(&valid).unwrap().party, 1);
    }

    #[test]
    fn senders_are_each_party_once() {
        assert!(check_senders(3, [2, 0, 1], "m").is_ok());
        let missing = check_senders(3, [0, 2], "m").unwrap_err();
        assert_eq!(missing.to_string(), "party 1: sent no m");
        let twice = check_senders(2, [0, 0, 1], "m").unwrap_err();
        assert_eq!(twice.to_string(), "party 0: sent m twice");
        let outside = check_senders(2, [0, 1, 5], "m").unwrap_err();
        assert_eq!(
            outside.to_string(),
            "party 5: sent m, but the key is shared by parties 0..2"
        );
    }
}
