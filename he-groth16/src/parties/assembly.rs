//! [`assemble`]: the proof from the coordinator's broadcast and every party's completion.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{PrimeField, Zero};
use ark_groth16::{Groth16, Proof, ProvingKey};
use he_fft::EncryptedTransform;
use helib_rs::threshold::DecryptionShare;
use helib_rs::{Computation, Ctxt, PubKey};

use super::messages::{check_senders, Broadcast, Completion};
use crate::Error;

/// The proof for `public_inputs` from the coordinator's `broadcast` and every party's
/// [`Completion`] (one each, in any order), under the `joint` public key with the witness
/// map's owner side `map`, checked with the proving key's verifying key before it is
/// returned: a proof that does not verify is [`Error::Rejected`], and must not leave the
/// assembler (a made-up broadcast can turn it into a function of the witness alone).
///
/// The parties' decryption shares, combined, give what completes their shares of `h` and
/// `r s` (uniform, with no party's mask known); its terms of `C` (the `H` query against the
/// rest of `h`, minus the rest of `r s` times `delta`) are added to the parties' shares of
/// `C`. A missing, repeated or malformed completion is [`Error::Party`] naming its sender.
///
/// Whoever assembles sees every party's decryption shares. A coordinator that does so and
/// also chose the ciphertexts the parties decrypted could have made those shares give away
/// the parties' masks, and with them unblinded parts of `C`; so where the coordinator is
/// not trusted to follow the protocol, have one of the parties assemble
/// ([`Party::assemble`](super::Party::assemble)), with the completions sent to it over the
/// parties' own channels. The proof is the same either way.
pub fn assemble<E: Pairing>(
    joint: &PubKey,
    map: &dyn EncryptedTransform<E::ScalarField>,
    proving_key: &ProvingKey<E>,
    public_inputs: &[E::ScalarField],
    broadcast: &Broadcast<E>,
    completions: &[Completion<E>],
) -> Result<Proof<E>, Error> {
    let ctx = joint.context();
    check_senders(
        ctx.parties(),
        completions.iter().map(|c| c.party),
        "completion",
    )?;
    let outputs = map.info().output_ciphertexts;
    if broadcast.h.len() != outputs {
        return Err(Error::InvalidInput(format!(
            "{} ciphertexts for h, where the witness map returns {outputs}",
            broadcast.h.len()
        )));
    }
    let count = outputs + 1;
    let mut shares: Vec<Vec<DecryptionShare>> = (0..count).map(|_| Vec::new()).collect();
    for c in completions {
        if c.decryption_shares.len() != count {
            return Err(Error::Party {
                party: c.party,
                reason: format!(
                    "{} decryption shares, where h and r s take {count}",
                    c.decryption_shares.len()
                ),
            });
        }
        for (j, bytes) in c.decryption_shares.iter().enumerate() {
            let share = DecryptionShare::from_bytes(ctx, bytes).map_err(|e| Error::Party {
                party: c.party,
                reason: format!("its decryption share {j}: {e}"),
            })?;
            shares[j].push(share);
        }
    }
    let rs_shares = shares.pop().unwrap_or_default();
    let rest = broadcast
        .h
        .iter()
        .zip(&shares)
        .map(|(bytes, s)| {
            let ct = Ctxt::from_bytes(joint, bytes)?;
            ct.check_factor(map.result_computation())?;
            ct.combine_decryption::<E::ScalarField>(s)
        })
        .collect::<helib_rs::Result<Vec<_>>>()?;
    let h_rest: Vec<_> = map.decode(&rest)?.iter().map(|x| x.into_bigint()).collect();
    let rs = Ctxt::from_bytes(joint, &broadcast.rs)?;
    rs.check_factor(Computation::OneProduct)?;
    let t_rest = rs
        .combine_decryption::<E::ScalarField>(&rs_shares)?
        .first()
        .copied()
        .unwrap_or_else(E::ScalarField::zero);
    let g1_c: E::G1 = completions
        .iter()
        .map(|c| c.g1_c.into_group())
        .sum::<E::G1>()
        + E::G1::msm_bigint(&proving_key.h_query, &h_rest)
        - proving_key.delta_g1 * t_rest;
    let proof = Proof {
        a: broadcast.g1_a,
        b: broadcast.g2_b,
        c: g1_c.into_affine(),
    };
    let pvk = ark_groth16::prepare_verifying_key(&proving_key.vk);
    match Groth16::<E>::verify_proof(&pvk, &proof, public_inputs) {
        Ok(true) => Ok(proof),
        Ok(false) => Err(Error::Rejected(
            "the assembled proof does not verify: the server or the coordinator returned \
             something else than h, r s or the sums (or a party's share is wrong)"
                .into(),
        )),
        Err(e) => Err(Error::InvalidInput(format!(
            "the proof cannot be checked against these public inputs: {e}"
        ))),
    }
}
