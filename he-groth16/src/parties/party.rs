//! [`Party`]: one of the `k` parties sharing the key and the witness, from its witness share
//! to its share of the proof.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::PrimeField;
use ark_groth16::ProvingKey;
use he_fft::protocol::{Job, Request};
use he_fft::{DiagonalCache, EncryptedTransform};
use helib_rs::threshold::KeyShare;
use helib_rs::{Computation, Ctxt, PubKey};
use zeroize::Zeroize;

use super::blinding::{product_operand, Blinding};
use super::messages::{Broadcast, Completion, Contribution};
use crate::{Error, Evaluations, R1cs};

/// One party of a key shared by `k`: its key share, the joint public key, and the witness
/// map's owner side (encoding and decoding), for proofs on the request's domain.
pub struct Party<E: Pairing> {
    index: u32,
    key: KeyShare,
    pk: PubKey,
    request: Request,
    map: Box<dyn EncryptedTransform<E::ScalarField>>,
    report: Mutex<PartyReport>,
}

/// What a party's steps of its proofs cost so far (summed over proofs): its share of the
/// HE work against its share of the MSMs, which it would run in any coSNARK.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartyReport {
    /// Proofs contributed to.
    pub proofs: usize,
    /// Evaluating its shares of `a` and `b` and encrypting them, `r_i` and `s_i`.
    pub encrypt: Duration,
    /// Its masked decryption shares of `h` and `r s`, and decoding its share of `h`.
    pub decrypt: Duration,
    /// Its MSMs: `A`, `B` (G2 and G1) and `L` in round 1, `H` and the blinding terms in
    /// round 2.
    pub msm: Duration,
}

/// What a party keeps between its two messages of a proof: its blinding shares and its
/// share of the `L` sum. Wiped when dropped.
pub struct PartyState<E: Pairing> {
    blinding: Blinding<E::ScalarField>,
    l_acc: E::G1,
}

impl<E: Pairing> Drop for PartyState<E> {
    fn drop(&mut self) {
        self.l_acc.zeroize();
    }
}

/// The bigint form arkworks' MSMs take.
fn bigints<F: PrimeField>(v: &[F]) -> Vec<F::BigInt> {
    v.iter().map(|x| x.into_bigint()).collect()
}

/// `query . z`, refusing a query of another length.
fn msm<G: VariableBaseMSM>(
    query: &[G::MulBase],
    z: &[G::ScalarField],
    what: &str,
) -> Result<G, Error> {
    if query.len() != z.len() {
        return Err(Error::InvalidInput(format!(
            "the proving key's {what} has {} entries for {} values",
            query.len(),
            z.len()
        )));
    }
    let mut scalars = bigints(z);
    let out = G::msm_bigint(query, &scalars);
    scalars.zeroize();
    Ok(out)
}

impl<E: Pairing> Party<E> {
    /// Party `index` (`0..k`) of the key shared by the `k = request.parties` parties, with
    /// its `key` share and the `joint` public key (with its relinearization key), for the
    /// witness-map `request` the coordinator's server serves.
    pub fn new(index: u32, key: KeyShare, joint: PubKey, request: &Request) -> Result<Self, Error> {
        if request.job != Job::WitnessMap {
            return Err(Error::InvalidInput(format!(
                "the parties' proofs run the server-only witness map, not {:?}",
                request.job
            )));
        }
        let ctx = key.context().clone();
        if !ctx.same_as(joint.context()) {
            return Err(Error::SessionMismatch(
                "the key share and the joint public key are of different contexts".into(),
            ));
        }
        if request.parties != ctx.parties() {
            return Err(Error::InvalidInput(format!(
                "the request names {} parties, the key share's context {}",
                request.parties,
                ctx.parties()
            )));
        }
        if index >= ctx.parties() {
            return Err(Error::InvalidInput(format!(
                "party {index} of a key shared by {} parties (0..{0})",
                ctx.parties()
            )));
        }
        let map = request.transform::<E::ScalarField>(&ctx, DiagonalCache::Never)?;
        Ok(Party {
            index,
            key,
            pk: joint,
            request: *request,
            map,
            report: Mutex::new(PartyReport::default()),
        })
    }

    /// What the party's steps cost so far.
    pub fn report(&self) -> PartyReport {
        self.report.lock().map(|r| r.clone()).unwrap_or_default()
    }

    fn record(&self, f: impl FnOnce(&mut PartyReport)) {
        if let Ok(mut r) = self.report.lock() {
            f(&mut r);
        }
    }

    /// The party's index.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Round 1 of a proof: from this party's `share` of the circuit (the circuit's matrices
    /// with this party's additive share of the full assignment), its shares of `a` and `b`
    /// encrypted under the joint key, its `blinding` shares encrypted alike, and its shares
    /// of `A`, `B` and `B` in G1.
    ///
    /// Every term is linear in the assignment, the constant `1` included (its share weighs
    /// `alpha` and `beta`), so the shares sum to the one-owner values whatever the split.
    pub fn contribute(
        &self,
        proving_key: &ProvingKey<E>,
        share: &R1cs<E::ScalarField>,
        blinding: Blinding<E::ScalarField>,
    ) -> Result<(Contribution<E>, PartyState<E>), Error> {
        let z = &share.assignment;
        let start = Instant::now();
        let e = Evaluations::new(&share.matrices, share.num_inputs, share.num_constraints, z)?;
        if e.len() != self.request.size {
            return Err(Error::SessionMismatch(format!(
                "the circuit's domain has {} points, the keys are for {}",
                e.len(),
                self.request.size
            )));
        }
        let encrypt = |v: &[E::ScalarField]| -> Result<Vec<Vec<u8>>, Error> {
            let cts = self.map.encrypt(&self.pk, v)?;
            Ok(cts
                .iter()
                .map(Ctxt::to_bytes)
                .collect::<helib_rs::Result<_>>()?)
        };
        let (a, b) = (encrypt(&e.a)?, encrypt(&e.b)?);
        let mut e = e;
        for v in [&mut e.a, &mut e.b, &mut e.c] {
            v.zeroize();
        }
        let margin = self.request.decryption_margin_bits(self.pk.context());
        let r = product_operand(&self.pk, blinding.r, margin)?.to_bytes()?;
        let s = product_operand(&self.pk, blinding.s, margin)?.to_bytes()?;
        let encrypt = start.elapsed();
        let start = Instant::now();
        let (one, vk) = (z.first().copied().unwrap_or_default(), &proving_key.vk);
        let g1_a = msm::<E::G1>(&proving_key.a_query, z, "A query")?
            + vk.alpha_g1 * one
            + proving_key.delta_g1 * blinding.r;
        let g2_b = msm::<E::G2>(&proving_key.b_g2_query, z, "B query")?
            + vk.beta_g2 * one
            + vk.delta_g2 * blinding.s;
        let g1_b = msm::<E::G1>(&proving_key.b_g1_query, z, "B query in G1")?
            + proving_key.beta_g1 * one
            + proving_key.delta_g1 * blinding.s;
        let witness = z.get(share.num_inputs..).unwrap_or_default();
        let l_acc = msm::<E::G1>(&proving_key.l_query, witness, "L query")?;
        let msm_time = start.elapsed();
        self.record(|r| {
            r.proofs += 1;
            r.encrypt += encrypt;
            r.msm += msm_time;
        });
        Ok((
            Contribution {
                party: self.index,
                a,
                b,
                r,
                s,
                g1_a: g1_a.into_affine(),
                g2_b: g2_b.into_affine(),
                g1_b: g1_b.into_affine(),
            },
            PartyState { blinding, l_acc },
        ))
    }

    /// Round 2: this party's masked decryption shares of the coordinator's `h` and `r s`,
    /// and its share of `C`: its `L` sum, its share of `h` against the `H` query,
    /// `s_i A + r_i B - (r s)_i delta`.
    pub fn complete(
        &self,
        proving_key: &ProvingKey<E>,
        state: PartyState<E>,
        broadcast: &Broadcast<E>,
    ) -> Result<Completion<E>, Error> {
        let count = self.map.info().output_ciphertexts;
        if broadcast.h.len() != count {
            return Err(Error::InvalidInput(format!(
                "{} ciphertexts for h, where the witness map returns {count}",
                broadcast.h.len()
            )));
        }
        // Sums made up as the identity would strip the blinding s_i A + r_i B from this
        // party's share of C.
        if broadcast.g1_a.is_zero() || broadcast.g1_b.is_zero() {
            return Err(Error::InvalidInput(
                "the broadcast's A or B is the identity, which no honest sum is".into(),
            ));
        }
        let smudge = self.request.smudge_bits;
        let start = Instant::now();
        let mut decryption_shares = Vec::with_capacity(count + 1);
        let mut masks = Vec::with_capacity(count);
        for bytes in &broadcast.h {
            let ct = Ctxt::from_bytes(&self.pk, bytes)?;
            ct.check_factor(self.map.result_computation())?;
            let (share, mask) = self
                .key
                .masked_decryption_share::<E::ScalarField>(&ct, smudge)?;
            decryption_shares.push(share.to_bytes()?);
            masks.push(mask);
        }
        let mut h = self.map.decode(&masks)?;
        masks.zeroize();
        let rs = Ctxt::from_bytes(&self.pk, &broadcast.rs)?;
        rs.check_factor(Computation::OneProduct)?;
        let (share, mut rs_mask) = self
            .key
            .masked_decryption_share::<E::ScalarField>(&rs, smudge)?;
        decryption_shares.push(share.to_bytes()?);
        let mut t = rs_mask.first().copied().unwrap_or_default();
        rs_mask.zeroize();
        let decrypt = start.elapsed();
        let start = Instant::now();
        let b = &state.blinding;
        let mut h_scalars = bigints(&h);
        let g1_c: E::G1 = state.l_acc
            + E::G1::msm_bigint(&proving_key.h_query, &h_scalars)
            + broadcast.g1_a.into_group() * b.s
            + broadcast.g1_b.into_group() * b.r
            - proving_key.delta_g1 * t;
        h.zeroize();
        h_scalars.zeroize();
        t.zeroize();
        let msm_time = start.elapsed();
        self.record(|r| {
            r.decrypt += decrypt;
            r.msm += msm_time;
        });
        Ok(Completion {
            party: self.index,
            decryption_shares,
            g1_c: g1_c.into_affine(),
        })
    }

    /// The proof for `public_inputs` from the coordinator's `broadcast` and every party's
    /// completion, assembled and verified by this party ([`assemble`](super::assemble): a
    /// party that assembles keeps the parties' decryption shares from the coordinator).
    pub fn assemble(
        &self,
        proving_key: &ProvingKey<E>,
        public_inputs: &[E::ScalarField],
        broadcast: &Broadcast<E>,
        completions: &[Completion<E>],
    ) -> Result<ark_groth16::Proof<E>, Error> {
        super::assemble(
            &self.pk,
            self.map.as_ref(),
            proving_key,
            public_inputs,
            broadcast,
            completions,
        )
    }

    /// The witness map's Galois steps: what each party's key shares cover.
    pub fn galois_steps(&self) -> helib_rs::GaloisSteps {
        self.map.galois_steps()
    }
}
