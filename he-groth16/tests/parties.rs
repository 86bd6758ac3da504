//! Proofs by parties sharing the key and the witness: they verify, they are ark-groth16's
//! proofs bit for bit, a server's tampering makes them fail, and a missing or malformed
//! message names its party. Toy ring N = 2048.

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_groth16::r1cs_to_qap::LibsnarkReduction;
use ark_groth16::{Groth16, ProvingKey, VerifyingKey};
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use he_fft::protocol::{Job, Request};
use he_fft::DiagonalCache;
use he_groth16::parties::{
    self, Blinding, Completion, Contribution, Coordinator, KeyShares, Party, PartyState,
    RelinMessage,
};
use he_groth16::{CubicChain, Error, InProcessServer, R1cs, WitnessServer};
use helib_rs::threshold::{CommonRandomString, KeyShare};
use helib_rs::{Ctxt, PubKey};

struct Setup {
    request: Request,
    parties: Vec<Party<Bn254>>,
    joint: PubKey,
    galois: Option<helib_rs::GaloisKeys>,
    shares: Vec<KeyShares>,
    round1: Vec<RelinMessage>,
    round2: Vec<RelinMessage>,
}

/// `k` parties' keys for the witness map of `n` points, through the message bytes.
fn setup(k: u32, n: usize) -> Setup {
    let request = Request::new(Job::WitnessMap, n).on_toy_ring().shared_by(k);
    let ctx = request.context::<Fr>().unwrap();
    let steps = request
        .transform::<Fr>(&ctx, DiagonalCache::Never)
        .unwrap()
        .galois_steps();
    let seeds: Vec<[u8; 32]> = (0..k).map(|i| [i as u8 + 1; 32]).collect();
    let crs = CommonRandomString::agree(&seeds);
    let keys: Vec<KeyShare> = (0..k)
        .map(|_| KeyShare::generate(&ctx, &crs).unwrap())
        .collect();
    let (mut shares, mut round1, mut secrets) = (Vec::new(), Vec::new(), Vec::new());
    for (key, i) in keys.iter().zip(0..) {
        let (m, r, secret) = parties::key_shares(key, i, &steps).unwrap();
        shares.push(KeyShares::from_bytes(&m.to_bytes()).unwrap());
        round1.push(RelinMessage::from_bytes(&r.to_bytes()).unwrap());
        secrets.push(secret);
    }
    let round2: Vec<RelinMessage> = keys
        .iter()
        .zip(secrets)
        .zip(0..)
        .map(|((key, s), i)| {
            let m = parties::relin_round2(key, i, s, &round1).unwrap();
            RelinMessage::from_bytes(&m.to_bytes()).unwrap()
        })
        .collect();
    let joint = parties::joint_keys(&ctx, shares.clone(), &round1, &round2).unwrap();
    let parties = keys
        .into_iter()
        .zip(0..)
        .map(|(key, i)| Party::new(i, key, joint.public_key.clone(), &request).unwrap())
        .collect();
    Setup {
        request,
        parties,
        joint: joint.public_key,
        galois: Some(joint.galois_keys),
        shares,
        round1,
        round2,
    }
}

impl Setup {
    fn server(&mut self) -> InProcessServer<Fr> {
        let ctx = self.joint.context().clone();
        InProcessServer::new(
            &ctx,
            self.joint.clone(),
            self.galois.take().expect("one server per setup"),
            self.request.size,
            &self.request.options(DiagonalCache::Never),
        )
        .unwrap()
    }

    fn coordinator(
        &mut self,
        wrap: impl FnOnce(InProcessServer<Fr>) -> Box<dyn WitnessServer>,
    ) -> Coordinator<Bn254> {
        let server = wrap(self.server());
        Coordinator::new(self.joint.clone(), &self.request, server).unwrap()
    }
}

struct Circuit {
    circuit: CubicChain<Fr>,
    pk: ProvingKey<Bn254>,
    vk: VerifyingKey<Bn254>,
    r1cs: R1cs<Fr>,
}

fn circuit(rounds: usize, seed: u64) -> Circuit {
    let mut rng = StdRng::seed_from_u64(seed);
    let circuit = CubicChain::<Fr>::random(rounds, &mut rng);
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
    let r1cs = R1cs::from_circuit(circuit.clone()).unwrap();
    Circuit {
        circuit,
        pk,
        vk,
        r1cs,
    }
}

/// Round 1 of every party with the given blinding shares, through the message bytes.
fn contribute(
    setup: &Setup,
    c: &Circuit,
    blinding: &[(Fr, Fr)],
    seed: u64,
) -> (Vec<Contribution<Bn254>>, Vec<PartyState<Bn254>>) {
    let k = setup.parties.len();
    let shares = parties::split_assignment(&c.r1cs.assignment, k, &mut StdRng::seed_from_u64(seed));
    setup
        .parties
        .iter()
        .zip(shares)
        .zip(blinding)
        .map(|((p, share), &(r, s))| {
            let share = R1cs {
                assignment: share,
                ..c.r1cs.clone()
            };
            let (m, state) = p
                .contribute(&c.pk, &share, Blinding::from_values(r, s))
                .unwrap();
            (
                Contribution::from_bytes(&m.to_bytes().unwrap()).unwrap(),
                state,
            )
        })
        .unzip()
}

/// Round 2 of every party.
fn complete(
    setup: &Setup,
    c: &Circuit,
    states: Vec<PartyState<Bn254>>,
    broadcast: &parties::Broadcast<Bn254>,
) -> Vec<Completion<Bn254>> {
    setup
        .parties
        .iter()
        .zip(states)
        .map(|(p, s)| p.complete(&c.pk, s, broadcast).unwrap())
        .collect()
}

fn random_blinding(k: usize, seed: u64) -> Vec<(Fr, Fr)> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..k)
        .map(|_| (Fr::rand(&mut rng), Fr::rand(&mut rng)))
        .collect()
}

#[test]
fn three_parties_prove_what_one_prover_proves_bit_for_bit() {
    let mut setup = setup(3, 64);
    let coordinator = setup.coordinator(|s| Box::new(s));
    let c = circuit(25, 1); // 50 constraints + 2 inputs: 64 points
    let blinding = random_blinding(3, 2);
    let (contributions, states) = contribute(&setup, &c, &blinding, 3);
    let broadcast = coordinator.witness_map(contributions.clone()).unwrap();
    let broadcast = parties::Broadcast::from_bytes(&broadcast.to_bytes().unwrap()).unwrap();
    let completions: Vec<Completion<Bn254>> = setup
        .parties
        .iter()
        .zip(states)
        .map(|(p, s)| {
            let m = p.complete(&c.pk, s, &broadcast).unwrap();
            Completion::from_bytes(&m.to_bytes().unwrap()).unwrap()
        })
        .collect();
    let inputs = c.circuit.public_inputs();
    let proof = coordinator
        .assemble(&c.pk, &inputs, &broadcast, &completions)
        .unwrap();
    assert!(Groth16::<Bn254>::verify(&c.vk, &inputs, &proof).unwrap());
    // Any party assembles the same proof.
    assert_eq!(
        setup.parties[2]
            .assemble(&c.pk, &inputs, &broadcast, &completions)
            .unwrap(),
        proof
    );

    let (r, s) = blinding
        .iter()
        .fold((Fr::from(0u64), Fr::from(0u64)), |(r, s), (ri, si)| {
            (r + ri, s + si)
        });
    let expected = Groth16::<Bn254, LibsnarkReduction>::create_proof_with_reduction_and_matrices(
        &c.pk,
        r,
        s,
        &c.r1cs.matrices,
        c.r1cs.num_inputs,
        c.r1cs.num_constraints,
        &c.r1cs.assignment,
    )
    .unwrap();
    assert_eq!(
        proof, expected,
        "the parties' proof is ark-groth16's with r and s"
    );
}

/// Doubles the first ciphertext of `h`: a server that computes something else.
struct Tampering {
    inner: InProcessServer<Fr>,
    pk: PubKey,
}

impl WitnessServer for Tampering {
    fn witness_map(&self, a: &[Vec<u8>], b: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, Error> {
        let mut h = self.inner.witness_map(a, b)?;
        let mut ct = Ctxt::from_bytes(&self.pk, &h[0])?;
        ct.mul_const(Fr::from(2u64))?;
        h[0] = ct.to_bytes()?;
        Ok(h)
    }
}

/// The assembler verifies before it lets a proof go: one from a tampered `h` does not
/// verify, and is refused.
#[test]
fn a_tampered_h_gives_a_proof_that_does_not_verify() {
    let mut setup = setup(2, 64);
    let pk = setup.joint.clone();
    let coordinator = setup.coordinator(|inner| Box::new(Tampering { inner, pk }));
    let c = circuit(25, 4);
    let (contributions, states) = contribute(&setup, &c, &random_blinding(2, 5), 6);
    let broadcast = coordinator.witness_map(contributions).unwrap();
    let completions = complete(&setup, &c, states, &broadcast);
    let inputs = c.circuit.public_inputs();
    let e = setup.parties[0]
        .assemble(&c.pk, &inputs, &broadcast, &completions)
        .unwrap_err();
    assert!(
        matches!(&e, Error::Rejected(m) if m.contains("does not verify")),
        "{e}"
    );
}

/// A broadcast whose sums are the identity (which would strip the blinding from a party's
/// share of `C`) is refused; so is a proof checked against other public inputs.
#[test]
fn a_made_up_broadcast_is_refused() {
    let mut setup = setup(2, 64);
    let coordinator = setup.coordinator(|s| Box::new(s));
    let c = circuit(25, 14);
    let (contributions, states) = contribute(&setup, &c, &random_blinding(2, 15), 16);
    let mut made_up = coordinator.witness_map(contributions).unwrap();
    made_up.g1_a = Default::default();
    let e = setup.parties[0]
        .complete(&c.pk, states.into_iter().next().unwrap(), &made_up)
        .err()
        .unwrap();
    assert!(e.to_string().contains("identity"), "{e}");
    let (contributions, states) = contribute(&setup, &c, &random_blinding(2, 17), 16);
    let honest = coordinator.witness_map(contributions).unwrap();
    let completions = complete(&setup, &c, states, &honest);
    let wrong_inputs = [c.circuit.output() + Fr::from(1u64)];
    let e = setup.parties[1]
        .assemble(&c.pk, &wrong_inputs, &honest, &completions)
        .unwrap_err();
    assert!(matches!(e, Error::Rejected(_)), "{e}");
}

fn party_of(e: Error) -> (u32, String) {
    match e {
        Error::Party { party, reason } => (party, reason),
        other => panic!("expected an error naming a party, got {other}"),
    }
}

#[test]
fn a_missing_or_malformed_message_names_its_party() {
    let mut setup = setup(3, 64);
    let ctx = setup.joint.context().clone();
    // Key generation: key shares missing, given twice, malformed; relinearization messages
    // of the wrong round, malformed, or answering other round-1 messages.
    let joint = |k: &[KeyShares], r1: &[RelinMessage], r2: &[RelinMessage]| {
        parties::joint_keys(&ctx, k.to_vec(), r1, r2).err().unwrap()
    };
    let (p, why) = party_of(joint(&setup.shares[..2], &setup.round1, &setup.round2));
    assert_eq!(p, 2, "{why}");
    assert!(why.contains("sent no key shares"), "{why}");
    let twice = [setup.shares.clone(), vec![setup.shares[0].clone()]].concat();
    let (p, why) = party_of(joint(&twice, &setup.round1, &setup.round2));
    assert_eq!(p, 0);
    assert!(why.contains("twice"), "{why}");
    let mut bad = setup.shares.clone();
    bad[1].public_key.truncate(100);
    let (p, why) = party_of(joint(&bad, &setup.round1, &setup.round2));
    assert_eq!(p, 1);
    assert!(why.contains("public key share"), "{why}");
    let mut bad = setup.shares.clone();
    bad[0].galois_keys.truncate(100);
    let (p, why) = party_of(joint(&bad, &setup.round1, &setup.round2));
    assert_eq!(p, 0);
    assert!(why.contains("Galois key shares"), "{why}");
    let (p, why) = party_of(joint(&setup.shares, &setup.round2, &setup.round2));
    assert_eq!(p, 0);
    assert!(why.contains("round 2 where round 1"), "{why}");
    let mut bad = setup.round2.clone();
    bad[2].share.truncate(64);
    assert_eq!(party_of(joint(&setup.shares, &setup.round1, &bad)).0, 2);
    // An answer that reads but answers other round-1 messages: the engine names it by party.
    let mut bad = setup.round2.clone();
    bad[2].share[40] ^= 1;
    let e = joint(&setup.shares, &setup.round1, &bad).to_string();
    assert!(e.contains("share 2"), "{e}");

    // A proof: a contribution missing, from an unknown party, with a damaged ciphertext.
    let coordinator = setup.coordinator(|s| Box::new(s));
    let c = circuit(25, 7);
    let (contributions, states) = contribute(&setup, &c, &random_blinding(3, 8), 9);
    let (p, why) = party_of(
        coordinator
            .witness_map(contributions[1..].to_vec())
            .err()
            .unwrap(),
    );
    assert_eq!(p, 0);
    assert!(why.contains("sent no contribution"), "{why}");
    let mut bad = contributions.clone();
    bad[2].party = 7;
    let (p, why) = party_of(coordinator.witness_map(bad).err().unwrap());
    assert_eq!(p, 7);
    assert!(why.contains("parties 0..3"), "{why}");
    let mut bad = contributions.clone();
    let len = bad[1].b[0].len();
    bad[1].b[0][len / 2] ^= 0xff;
    bad[1].b[0].truncate(len - 1);
    let (p, why) = party_of(coordinator.witness_map(bad).err().unwrap());
    assert_eq!(p, 1);
    assert!(why.contains("share of b"), "{why}");

    // Round 2: a completion missing a decryption share, or with a damaged one.
    let broadcast = coordinator.witness_map(contributions.clone()).unwrap();
    let completions = complete(&setup, &c, states, &broadcast);
    let inputs = c.circuit.public_inputs();
    let mut bad = completions.clone();
    bad[2].decryption_shares.pop();
    let (p, why) = party_of(
        coordinator
            .assemble(&c.pk, &inputs, &broadcast, &bad)
            .err()
            .unwrap(),
    );
    assert_eq!(p, 2);
    assert!(why.contains("decryption shares"), "{why}");
    let (p, why) = party_of(
        coordinator
            .assemble(&c.pk, &inputs, &broadcast, &completions[..2])
            .err()
            .unwrap(),
    );
    assert_eq!(p, 2);
    assert!(why.contains("sent no completion"), "{why}");
    let mut bad = completions;
    bad[0].decryption_shares[0].truncate(10);
    let (p, why) = party_of(
        coordinator
            .assemble(&c.pk, &inputs, &broadcast, &bad)
            .err()
            .unwrap(),
    );
    assert_eq!(p, 0);
    assert!(why.contains("decryption share 0"), "{why}");
}

#[test]
fn malformed_message_bytes_are_refused() {
    let mut setup = setup(2, 64);
    let coordinator = setup.coordinator(|s| Box::new(s));
    let c = circuit(25, 10);
    let (contributions, _) = contribute(&setup, &c, &random_blinding(2, 11), 12);
    let bytes = contributions[0].to_bytes().unwrap();
    for cut in [0, 8, 12, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            Contribution::<Bn254>::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    // No point: the last G1 element's x coordinate 2^254 - 1, past the field's modulus
    // (little-endian, the flags in the top two bits left clear).
    let mut bad = bytes.clone();
    let end = bad.len();
    bad[end - 32..end].fill(0xff);
    bad[end - 1] = 0x3f;
    assert!(Contribution::<Bn254>::from_bytes(&bad).is_err());
    let broadcast = coordinator.witness_map(contributions.clone()).unwrap();
    let b = broadcast.to_bytes().unwrap();
    assert!(
        Contribution::<Bn254>::from_bytes(&b).is_err(),
        "a broadcast is no contribution"
    );
    assert!(parties::Broadcast::<Bn254>::from_bytes(&[b.clone(), vec![0]].concat()).is_err());
    assert!(KeyShares::from_bytes(&setup.shares[0].to_bytes()[..20]).is_err());
    assert!(RelinMessage::from_bytes(&setup.shares[0].to_bytes()).is_err());
    let mut round3 = setup.round1[0].to_bytes();
    round3[12] = 3; // the round field
    assert!(RelinMessage::from_bytes(&round3).is_err());
}

#[test]
fn a_party_refuses_a_circuit_of_another_size_and_an_index_out_of_range() {
    let setup = setup(2, 64);
    let c = circuit(40, 13); // 82 rows: 128 points
    let share = R1cs {
        assignment: c.r1cs.assignment.clone(),
        ..c.r1cs.clone()
    };
    let e = setup.parties[0]
        .contribute(&c.pk, &share, Blinding::random().unwrap())
        .err()
        .unwrap();
    assert!(matches!(e, Error::SessionMismatch(_)), "{e}");
    let ctx = setup.joint.context().clone();
    let crs = CommonRandomString::agree(&[[1; 32], [2; 32]]);
    let key = KeyShare::generate(&ctx, &crs).unwrap();
    assert!(Party::<Bn254>::new(2, key, setup.joint.clone(), &setup.request).is_err());
}
