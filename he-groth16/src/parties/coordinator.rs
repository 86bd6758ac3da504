//! [`Coordinator`]: whoever relays the parties' messages and fronts the server. It holds
//! public keys only and sees ciphertexts, group elements and masked decryptions.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_groth16::{Proof, ProvingKey};
use he_fft::protocol::Request;
use he_fft::{DiagonalCache, EncryptedTransform};
use helib_rs::{Context, Ctxt, PubKey};

use super::messages::{check_senders, Broadcast, Completion, Contribution};
use crate::{Error, WitnessServer};

/// The coordinator of the parties' proofs: it adds their encrypted shares, has its server
/// run the witness map on the sums, multiplies the encrypted blinding scalars, and assembles
/// the proof from the parties' group elements and the masked decryptions.
///
/// It is as untrusted as the server: what it sees is encrypted, blinded by `r` and `s`, or
/// masked by every party's share. What it returns the parties check only through the proof:
/// a wrong `h` or `r s` gives a proof that does not verify.
pub struct Coordinator<E: Pairing> {
    pk: PubKey,
    request: Request,
    map: Box<dyn EncryptedTransform<E::ScalarField>>,
    server: Box<dyn WitnessServer>,
    report: Mutex<CoordinatorReport>,
}

/// What the coordinator's steps cost so far (summed over proofs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoordinatorReport {
    /// Proofs assembled.
    pub proofs: usize,
    /// Adding the parties' ciphertexts.
    pub add: Duration,
    /// The server's witness map (for a remote server, the whole exchange).
    pub server: Duration,
    /// `r s` on ciphertexts.
    pub product: Duration,
    /// [`assemble`](Self::assemble): combining the decryption shares, decoding, the last MSM.
    pub assemble: Duration,
}

/// The sum of every party's ciphertext `j` of one vector, each read under `pk`.
fn sum_parties<'a>(
    pk: &PubKey,
    parts: impl Iterator<Item = (u32, &'a [u8])>,
    what: &str,
) -> Result<Ctxt, Error> {
    let mut sum: Option<Ctxt> = None;
    for (party, bytes) in parts {
        let ct = Ctxt::from_bytes(pk, bytes).map_err(|e| Error::Party {
            party,
            reason: format!("its {what}: {e}"),
        })?;
        match &mut sum {
            None => sum = Some(ct),
            Some(s) => s.add_assign(&ct).map_err(|e| Error::Party {
                party,
                reason: format!("its {what} does not add to the others': {e}"),
            })?,
        }
    }
    sum.ok_or_else(|| Error::InvalidInput(format!("no {what} to add")))
}

impl<E: Pairing> Coordinator<E> {
    /// A coordinator for the witness-map `request` shared by `request.parties` parties,
    /// with the `joint` public key (with its relinearization key) and a `server` that holds
    /// it and the joint Galois keys.
    pub fn new(
        joint: PubKey,
        request: &Request,
        server: Box<dyn WitnessServer>,
    ) -> Result<Self, Error> {
        let ctx = joint.context();
        if request.job != he_fft::protocol::Job::WitnessMap {
            return Err(Error::InvalidInput(format!(
                "the parties' proofs run the server-only witness map, not {:?}",
                request.job
            )));
        }
        if ctx.parties() < 2 || ctx.parties() != request.parties {
            return Err(Error::InvalidInput(format!(
                "a coordinator needs a key shared by the request's {} parties (the key's context: {})",
                request.parties,
                ctx.parties()
            )));
        }
        let map = request.transform::<E::ScalarField>(ctx, DiagonalCache::Never)?;
        Ok(Coordinator {
            pk: joint,
            request: *request,
            map,
            server,
            report: Mutex::new(CoordinatorReport::default()),
        })
    }

    /// What the coordinator's steps cost so far.
    pub fn report(&self) -> CoordinatorReport {
        self.report.lock().map(|r| r.clone()).unwrap_or_default()
    }

    fn record(&self, f: impl FnOnce(&mut CoordinatorReport)) {
        if let Ok(mut r) = self.report.lock() {
            f(&mut r);
        }
    }

    /// The context of the joint keys.
    pub fn context(&self) -> &Context {
        self.pk.context()
    }

    /// Round 1 on the coordinator's side: every party's [`Contribution`] (one each, in any
    /// order) summed; the witness map of the sums from the server; `r s` on ciphertexts; and
    /// the sums `A`, `B`. A missing, repeated or malformed contribution is [`Error::Party`]
    /// naming its sender. Each party's ciphertext bytes are dropped once added, so the
    /// parties' uploads and the sums are not all in memory during the witness map.
    pub fn witness_map(
        &self,
        mut contributions: Vec<Contribution<E>>,
    ) -> Result<Broadcast<E>, Error> {
        check_senders(
            self.request.parties,
            contributions.iter().map(|c| c.party),
            "contribution",
        )?;
        let count = self.map.info().input_ciphertexts;
        for c in &contributions {
            if c.a.len() != count || c.b.len() != count {
                return Err(Error::Party {
                    party: c.party,
                    reason: format!(
                        "{} and {} ciphertexts for a and b, where the witness map takes {count} each",
                        c.a.len(),
                        c.b.len()
                    ),
                });
            }
        }
        // The small parts first: a party's malformed r or s is found before the server works.
        let start = Instant::now();
        let r = sum_parties(
            &self.pk,
            contributions.iter().map(|c| (c.party, c.r.as_slice())),
            "r",
        )?;
        let s = sum_parties(
            &self.pk,
            contributions.iter().map(|c| (c.party, c.s.as_slice())),
            "s",
        )?;
        let mut rs = r.checked_mul(&s)?;
        let margin = self.request.decryption_margin_bits(self.context());
        rs.compact_for_decryption(margin)?;
        if rs.noise_budget() < margin {
            return Err(Error::InvalidInput(format!(
                "r s keeps {:.0} bits of noise budget, its decryption by the parties needs {margin:.0}",
                rs.noise_budget()
            )));
        }
        let product = start.elapsed();
        let g1_a: E::G1 = contributions.iter().map(|c| c.g1_a.into_group()).sum();
        let g2_b: E::G2 = contributions.iter().map(|c| c.g2_b.into_group()).sum();
        let g1_b: E::G1 = contributions.iter().map(|c| c.g1_b.into_group()).sum();

        let start = Instant::now();
        let mut sums = |pick: fn(&mut Contribution<E>) -> &mut Vec<Vec<u8>>, what: &str| {
            (0..count)
                .map(|j| {
                    let parts: Vec<(u32, Vec<u8>)> = contributions
                        .iter_mut()
                        .map(|c| (c.party, std::mem::take(&mut pick(c)[j])))
                        .collect();
                    let parts = parts.iter().map(|(p, b)| (*p, b.as_slice()));
                    sum_parties(&self.pk, parts, what)?
                        .to_bytes()
                        .map_err(Error::from)
                })
                .collect::<Result<Vec<_>, Error>>()
        };
        let a = sums(|c| &mut c.a, "share of a")?;
        let b = sums(|c| &mut c.b, "share of b")?;
        drop(contributions);
        let add = start.elapsed();
        let start = Instant::now();
        let h_bytes = self.server.witness_map(&a, &b)?;
        let server = start.elapsed();
        drop((a, b));
        if h_bytes.len() != self.map.info().output_ciphertexts {
            return Err(Error::Server(format!(
                "{} ciphertexts for h, where the witness map returns {}",
                h_bytes.len(),
                self.map.info().output_ciphertexts
            )));
        }
        self.record(|r| {
            r.add += add;
            r.server += server;
            r.product += product;
        });
        Ok(Broadcast {
            h: h_bytes,
            rs: rs.to_bytes()?,
            g1_a: g1_a.into_affine(),
            g2_b: g2_b.into_affine(),
            g1_b: g1_b.into_affine(),
        })
    }

    /// The proof for `public_inputs` from the `broadcast` and every party's [`Completion`],
    /// verified ([`assemble`](super::assemble)), with the time it took in the report.
    /// Whoever assembles sees the parties' decryption shares: see
    /// [`assemble`](super::assemble) for when that should be a party.
    pub fn assemble(
        &self,
        proving_key: &ProvingKey<E>,
        public_inputs: &[E::ScalarField],
        broadcast: &Broadcast<E>,
        completions: &[Completion<E>],
    ) -> Result<Proof<E>, Error> {
        let start = Instant::now();
        let proof = super::assemble(
            &self.pk,
            self.map.as_ref(),
            proving_key,
            public_inputs,
            broadcast,
            completions,
        )?;
        let assemble = start.elapsed();
        self.record(|r| {
            r.proofs += 1;
            r.assemble += assemble;
        });
        Ok(proof)
    }
}
