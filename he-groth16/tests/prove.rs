//! Groth16 proofs with the witness map on ciphertexts, verified by ark-groth16; tampered
//! results refused; misuse reported, never a panic. Toy ring N = 2048.

use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use ark_ff::{One, PrimeField};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::Groth16;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, SynthesisError};
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use he_groth16::{
    last_error, CubicChain, EncryptedReduction, Error, Outsourcing, R1cs, WitnessMapRoute,
    WitnessServer,
};
use helib_rs::Context;

const N: u64 = 2048;

fn toy_context(n: usize) -> Context {
    Context::builder()
        .ring_degree(N)
        .plaintext_field::<Fr>()
        .ciphertext_bits(he_fft::witness_map_ciphertext_bits::<Fr>(N as usize, n))
        .allow_insecure(true)
        .build()
        .expect("toy context")
}

fn session(n: usize) -> Arc<Outsourcing<Fr>> {
    Arc::new(
        Outsourcing::in_process_on(toy_context(n), n, WitnessMapRoute::ServerOnly)
            .expect("session")
            .0,
    )
}

/// The R1CS of a circuit: matrices, instance count, constraint count, full assignment.
fn r1cs(circuit: CubicChain<Fr>) -> (Vec<Matrix<Fr>>, usize, usize, Vec<Fr>) {
    let r = R1cs::from_circuit(circuit).unwrap();
    (r.matrices, r.num_inputs, r.num_constraints, r.assignment)
}

#[test]
fn proofs_verify_at_several_sizes() {
    let mut rng = StdRng::seed_from_u64(1);
    for rounds in [1, 3, 7, 60, 250] {
        let circuit = CubicChain::<Fr>::random(rounds, &mut rng);
        let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
        let session = session(circuit.domain_size());
        let proof = {
            let _guard = session.enter();
            Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng).unwrap()
        };
        assert!(
            Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof).unwrap(),
            "{rounds} rounds"
        );
        // The wrong public input does not verify.
        assert!(!Groth16::<Bn254>::verify(&vk, &[circuit.output() + Fr::one()], &proof).unwrap());
        let report = session.report();
        assert_eq!(report.calls, 1);
        assert!(report.upload_bytes > 0 && report.download_bytes > 0);
    }
}

#[test]
fn the_direct_call_equals_libsnark_reduction() {
    let mut rng = StdRng::seed_from_u64(2);
    for rounds in [1, 2, 5, 31, 100] {
        let (m, inputs, constraints, z) = r1cs(CubicChain::random(rounds, &mut rng));
        let expected =
            LibsnarkReduction::witness_map_from_matrices::<Fr, Radix2EvaluationDomain<Fr>>(
                &m,
                inputs,
                constraints,
                &z,
            )
            .unwrap();
        let session = session(expected.len());
        let h = session.witness_map(&m, inputs, constraints, &z).unwrap();
        assert_eq!(h, expected, "{rounds} rounds");
    }
}

/// The server's plan options reach the owner's keys: baby steps in rounds of one key take
/// fewer keys than a key per baby step, and bounded baby steps change the shape; the same `h`.
#[test]
fn plan_options_reach_the_owners_keys() {
    let mut rng = StdRng::seed_from_u64(4);
    let (m, inputs, constraints, z) = r1cs(CubicChain::random(100, &mut rng));
    let expected = LibsnarkReduction::witness_map_from_matrices::<Fr, Radix2EvaluationDomain<Fr>>(
        &m,
        inputs,
        constraints,
        &z,
    )
    .unwrap();
    let n = expected.len();
    let setup = |plan: he_fft::PlanOptions| {
        let options = he_fft::FftOptions::default().with_plan(plan);
        Outsourcing::<Fr>::in_process_with(toy_context(n), n, WitnessMapRoute::ServerOnly, &options)
            .unwrap()
    };
    let (hoisted, hoisted_setup) =
        setup(he_fft::PlanOptions::default().with_baby_step_keys(usize::MAX));
    let (rounds, rounds_setup) = setup(he_fft::PlanOptions::default().with_baby_step_keys(1));
    let (bounded, _) = setup(he_fft::PlanOptions::default().with_baby_steps(2));
    assert!(
        rounds_setup.galois_keys < hoisted_setup.galois_keys,
        "{} keys in rounds, {} hoisted",
        rounds_setup.galois_keys,
        hoisted_setup.galois_keys
    );
    for session in [hoisted, rounds, bounded] {
        assert_eq!(
            session.witness_map(&m, inputs, constraints, &z).unwrap(),
            expected
        );
    }
}

/// A reduction that proves with a wrong `h`: the verifier must refuse the proof.
struct Tampered;

impl R1CSToQAP for Tampered {
    #[allow(clippy::type_complexity)]
    fn instance_map_with_evaluation<F: PrimeField, D: EvaluationDomain<F>>(
        cs: ConstraintSystemRef<F>,
        t: &F,
    ) -> Result<(Vec<F>, Vec<F>, Vec<F>, F, usize, usize), SynthesisError> {
        LibsnarkReduction::instance_map_with_evaluation::<F, D>(cs, t)
    }

    fn witness_map_from_matrices<F: PrimeField, D: EvaluationDomain<F>>(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Vec<F>, SynthesisError> {
        let mut h = EncryptedReduction::witness_map_from_matrices::<F, D>(
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
        )?;
        h[1] += F::one();
        Ok(h)
    }

    fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
        max_power: usize,
        t: F,
        zt: F,
        delta_inverse: F,
    ) -> Result<Vec<F>, SynthesisError> {
        LibsnarkReduction::h_query_scalars::<F, D>(max_power, t, zt, delta_inverse)
    }
}

#[test]
fn a_tampered_h_does_not_verify() {
    let mut rng = StdRng::seed_from_u64(3);
    let circuit = CubicChain::<Fr>::random(5, &mut rng);
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
    let session = session(circuit.domain_size());
    let _guard = session.enter();
    let proof = Groth16::<Bn254, Tampered>::prove(&pk, circuit.clone(), &mut rng).unwrap();
    assert!(!Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof).unwrap());
}

/// A server that returns a valid encryption of something else: the owner's check refuses it
/// before any proof is made.
struct Cheating(Box<dyn WitnessServer>);

impl WitnessServer for Cheating {
    fn witness_map(&self, a: &[Vec<u8>], _b: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, Error> {
        // h computed from (a, a) instead of (a, b): well-formed, under the right key, wrong.
        self.0.witness_map(a, a)
    }
}

/// Domains of N and 2N: the four-step route, several ciphertexts each way.
#[test]
fn proofs_verify_across_ciphertexts() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut sizes = Vec::new();
    for rounds in [700, 1500] {
        let circuit = CubicChain::<Fr>::random(rounds, &mut rng);
        let n = circuit.domain_size();
        sizes.push(n);
        let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
        let session = session(n);
        let proof = {
            let _guard = session.enter();
            Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng).unwrap()
        };
        assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof).unwrap());
        let report = session.report();
        assert!(report.upload_bytes > 0 && report.download_bytes > 0);
    }
    assert_eq!(sizes, [N as usize, 2 * N as usize]);
}

/// A server that answers with a flood of byte strings: counted and refused before any is
/// parsed.
struct Flooding;

impl WitnessServer for Flooding {
    fn witness_map(&self, _a: &[Vec<u8>], _b: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, Error> {
        Ok(vec![vec![0u8; 64]; 10_000])
    }
}

/// A client that sends the honest server one ciphertext too many for b.
struct Padding(Box<dyn WitnessServer>);

impl WitnessServer for Padding {
    fn witness_map(&self, a: &[Vec<u8>], b: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, Error> {
        let mut more = b.to_vec();
        more.push(b[0].clone());
        self.0.witness_map(a, &more)
    }
}

#[test]
fn wrong_ciphertext_counts_are_refused_before_parsing() {
    let mut rng = StdRng::seed_from_u64(6);
    let circuit = CubicChain::<Fr>::random(3, &mut rng);
    let n = circuit.domain_size();
    let (m, inputs, constraints, z) = r1cs(circuit);
    for (which, expected) in [(0, "for h"), (1, "for a and b")] {
        let (honest, _) =
            Outsourcing::<Fr>::in_process_on(toy_context(n), n, WitnessMapRoute::ServerOnly)
                .unwrap();
        let session = if which == 0 {
            honest.with_server(|_| Box::new(Flooding))
        } else {
            honest.with_server(|s| Box::new(Padding(s)))
        };
        match session.witness_map(&m, inputs, constraints, &z) {
            Err(Error::InvalidInput(why)) => assert!(why.contains(expected), "{why}"),
            other => panic!("{expected}: {other:?}"),
        }
    }
}

#[test]
fn a_cheating_server_is_caught() {
    let mut rng = StdRng::seed_from_u64(4);
    let circuit = CubicChain::<Fr>::random(3, &mut rng);
    let n = circuit.domain_size();
    let (honest, _) =
        Outsourcing::<Fr>::in_process_on(toy_context(n), n, WitnessMapRoute::ServerOnly).unwrap();
    let session = Arc::new(honest.with_server(|s| Box::new(Cheating(s))));
    let (m, inputs, constraints, z) = r1cs(circuit.clone());
    let e = session
        .witness_map(&m, inputs, constraints, &z)
        .unwrap_err();
    assert!(matches!(e, Error::Rejected(_)), "{e}");

    let (pk, _) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
    let _guard = session.enter();
    let e = Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit, &mut rng).unwrap_err();
    assert!(matches!(e, SynthesisError::Unsatisfiable), "{e}");
    assert!(matches!(last_error(), Some(Error::Rejected(_))));
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let mut rng = StdRng::seed_from_u64(5);
    let circuit = CubicChain::<Fr>::random(3, &mut rng);
    let (pk, _) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();

    // No session entered.
    let e =
        Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng).unwrap_err();
    assert!(matches!(e, SynthesisError::AssignmentMissing), "{e}");
    assert!(matches!(last_error(), Some(Error::NoSession)));

    // A session for another domain size.
    let other = session(4 * circuit.domain_size());
    {
        let _guard = other.enter();
        let e = Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng)
            .unwrap_err();
        assert!(matches!(e, SynthesisError::PolynomialDegreeTooLarge), "{e}");
        assert!(matches!(last_error(), Some(Error::SessionMismatch(_))));
    }

    // Wrong lengths in the direct call.
    let (m, inputs, constraints, z) = r1cs(circuit.clone());
    let s = session(circuit.domain_size());
    for (what, result) in [
        (
            "two matrices",
            s.witness_map(&m[..2], inputs, constraints, &z),
        ),
        (
            "short assignment",
            s.witness_map(&m, inputs, constraints, &z[..3]),
        ),
        (
            "constraint count",
            s.witness_map(&m, inputs, constraints - 1, &z),
        ),
    ] {
        assert!(
            matches!(result, Err(Error::InvalidInput(_))),
            "{what}: {result:?}"
        );
    }
    // An unsatisfied assignment has no quotient: refused.
    let mut bad = z.clone();
    bad[3] += Fr::one();
    assert!(matches!(
        s.witness_map(&m, inputs, constraints, &bad),
        Err(Error::Rejected(_))
    ));
    // Sizes the session cannot serve: more than 512 rows of N/2, or more than N/2 for the
    // client-assisted route.
    for (n, route) in [
        (512 * N as usize, WitnessMapRoute::ServerOnly),
        (N as usize, WitnessMapRoute::ClientAssisted),
    ] {
        match Outsourcing::<Fr>::in_process_on(toy_context(8), n, route) {
            Err(Error::Transform(he_fft::Error::InvalidArgument(_))) => {}
            Err(e) => panic!("n = {n}: {e}"),
            Ok(_) => panic!("n = {n} accepted"),
        }
    }
}

/// The client-assisted route: the owner's inverse FFTs, one product on the server, no Galois
/// keys; the same proofs.
#[test]
fn client_assisted_proofs_verify() {
    let mut rng = StdRng::seed_from_u64(6);
    for rounds in [2, 100] {
        let circuit = CubicChain::<Fr>::random(rounds, &mut rng);
        let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
        let ctx = Context::builder()
            .ring_degree(N)
            .plaintext_field::<Fr>()
            .ciphertext_bits(he_fft::ClientAssistedWitnessMap::<Fr>::ciphertext_bits(
                N as usize,
            ))
            .allow_insecure(true)
            .build()
            .unwrap();
        let (session, setup) = Outsourcing::<Fr>::in_process_on(
            ctx,
            circuit.domain_size(),
            WitnessMapRoute::ClientAssisted,
        )
        .unwrap();
        assert_eq!(setup.galois_keys, 0);
        let session = Arc::new(session);
        let _guard = session.enter();
        let proof =
            Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng).unwrap();
        assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof).unwrap());
    }
}

#[test]
fn guards_dropped_out_of_order_leave_their_own_session() {
    let mut rng = StdRng::seed_from_u64(6);
    let circuit = CubicChain::<Fr>::random(3, &mut rng);
    let (pk, _) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
    let right = session(circuit.domain_size());
    let wrong = session(4 * circuit.domain_size());
    let outer = right.enter();
    let inner = wrong.enter();
    // Leaving the outer session must not switch the thread back to it.
    drop(outer);
    let e =
        Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng).unwrap_err();
    assert!(matches!(e, SynthesisError::PolynomialDegreeTooLarge), "{e}");
    assert!(matches!(last_error(), Some(Error::SessionMismatch(_))));
    drop(inner);
    let e = Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit, &mut rng).unwrap_err();
    assert!(matches!(e, SynthesisError::AssignmentMissing), "{e}");
    assert!(matches!(last_error(), Some(Error::NoSession)));
}
