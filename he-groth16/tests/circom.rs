//! circom's quotient: in the clear against an independent computation from ark-groth16's
//! `h`, on ciphertexts bit for bit against the clear one (one ciphertext and four steps), and
//! proofs in snarkjs's convention that verify. Toy ring N = 2048.

use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use ark_ff::{Field, One};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::Groth16;
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::Matrix;
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use he_groth16::{
    last_error, CircomReduction, CubicChain, EncryptedCircomReduction, Error, Outsourcing, R1cs,
    WitnessMapRoute, WitnessServer,
};
use helib_rs::Context;

const N: u64 = 2048;
type D = GeneralEvaluationDomain<Fr>;

fn session(n: usize) -> Arc<Outsourcing<Fr>> {
    let ctx = Context::builder()
        .ring_degree(N)
        .plaintext_field::<Fr>()
        .ciphertext_bits(he_fft::witness_map_ciphertext_bits::<Fr>(N as usize, n))
        .allow_insecure(true)
        .build()
        .expect("toy context");
    let (session, _) =
        Outsourcing::in_process_on(ctx, n, WitnessMapRoute::ServerOnly).expect("session");
    Arc::new(session)
}

/// The R1CS of a circuit: matrices, instance count, constraint count, full assignment.
fn r1cs(circuit: CubicChain<Fr>) -> (Vec<Matrix<Fr>>, usize, usize, Vec<Fr>) {
    let r = R1cs::from_circuit(circuit).unwrap();
    (r.matrices, r.num_inputs, r.num_constraints, r.assignment)
}

/// circom's values from first principles: `A B - C = h Z_H` evaluated point by point on
/// `w H`, with ark-groth16's `h` (Horner) and `Z_H(x) = x^n - 1`.
fn circom_values_from_libsnark_h(h: &[Fr], n: usize) -> Vec<Fr> {
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let w = Radix2EvaluationDomain::<Fr>::new(2 * n)
        .unwrap()
        .group_gen();
    (0..n)
        .map(|i| {
            let x = w * domain.element(i);
            let hx = h.iter().rev().fold(Fr::from(0u64), |acc, c| acc * x + c);
            hx * (x.pow([n as u64]) - Fr::one())
        })
        .collect()
}

#[test]
fn circom_reduction_in_the_clear_is_a_b_minus_c_on_the_coset() {
    let mut rng = StdRng::seed_from_u64(11);
    for rounds in [1, 5, 60] {
        let (m, inputs, constraints, z) = r1cs(CubicChain::<Fr>::random(rounds, &mut rng));
        let h = LibsnarkReduction::witness_map_from_matrices::<Fr, D>(&m, inputs, constraints, &z)
            .unwrap();
        let circom =
            CircomReduction::witness_map_from_matrices::<Fr, D>(&m, inputs, constraints, &z)
                .unwrap();
        assert_eq!(
            circom,
            circom_values_from_libsnark_h(&h, h.len()),
            "{rounds} rounds"
        );
        // The owner's step from h gives the same values.
        let domain = Radix2EvaluationDomain::<Fr>::new(h.len()).unwrap();
        assert_eq!(he_fft::circom_quotient(&domain, &h).unwrap(), circom);
        // Without C: snarkjs's keys carry A and B only.
        let ab =
            CircomReduction::witness_map_from_matrices::<Fr, D>(&m[..2], inputs, constraints, &z)
                .unwrap();
        assert_eq!(ab, circom);
    }
}

#[test]
fn the_encrypted_circom_quotient_equals_the_clear_one_bit_for_bit() {
    let mut rng = StdRng::seed_from_u64(12);
    // One ciphertext (n = 8, 128 and 512), and four steps across two ciphertexts
    // (n = 2048 = N).
    for rounds in [2, 60, 250, 700] {
        let circuit = CubicChain::<Fr>::random(rounds, &mut rng);
        let n = circuit.domain_size();
        let (m, inputs, constraints, z) = r1cs(circuit);
        let session = session(n);
        let encrypted = session
            .circom_witness_map(&m[..2], inputs, constraints, &z)
            .unwrap();
        let clear =
            CircomReduction::witness_map_from_matrices::<Fr, D>(&m, inputs, constraints, &z)
                .unwrap();
        assert_eq!(encrypted, clear, "n = {n}");
        let report = session.report();
        assert_eq!(report.calls, 1);
        assert!(report.finish > std::time::Duration::ZERO);
    }
}

#[test]
fn proofs_in_circoms_convention_verify_and_equal_the_clear_prover() {
    let mut rng = StdRng::seed_from_u64(13);
    for rounds in [3, 250] {
        let circuit = CubicChain::<Fr>::random(rounds, &mut rng);
        let (pk, vk) =
            Groth16::<Bn254, CircomReduction>::circuit_specific_setup(circuit.clone(), &mut rng)
                .unwrap();
        // Keys in circom's convention differ from ark-groth16's in the H query only.
        let (libsnark_pk, _) = Groth16::<Bn254>::circuit_specific_setup(
            circuit.clone(),
            &mut StdRng::seed_from_u64(99),
        )
        .unwrap();
        let (circom_pk, _) = Groth16::<Bn254, CircomReduction>::circuit_specific_setup(
            circuit.clone(),
            &mut StdRng::seed_from_u64(99),
        )
        .unwrap();
        assert_eq!(libsnark_pk.vk, circom_pk.vk);
        assert_eq!(libsnark_pk.a_query, circom_pk.a_query);
        assert_eq!(libsnark_pk.b_g1_query, circom_pk.b_g1_query);
        assert_eq!(libsnark_pk.b_g2_query, circom_pk.b_g2_query);
        assert_eq!(libsnark_pk.l_query, circom_pk.l_query);
        // n - 1 powers of tau times Z(tau) against n odd Lagrange polynomials of 2n points.
        let n = circuit.domain_size();
        assert_eq!(
            (libsnark_pk.h_query.len(), circom_pk.h_query.len()),
            (n - 1, n)
        );
        assert_ne!(libsnark_pk.h_query[0], circom_pk.h_query[0]);

        let session = session(circuit.domain_size());
        let encrypted = {
            let _guard = session.enter();
            Groth16::<Bn254, EncryptedCircomReduction>::prove(
                &pk,
                circuit.clone(),
                &mut StdRng::seed_from_u64(5),
            )
            .unwrap()
        };
        let clear = Groth16::<Bn254, CircomReduction>::prove(
            &pk,
            circuit.clone(),
            &mut StdRng::seed_from_u64(5),
        )
        .unwrap();
        assert_eq!(encrypted, clear, "{rounds} rounds");
        assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &encrypted).unwrap());
        let wrong = [circuit.output() + Fr::one()];
        assert!(!Groth16::<Bn254>::verify(&vk, &wrong, &encrypted).unwrap());
        // ark-groth16's own quotient does not fit circom's keys.
        let mismatched =
            Groth16::<Bn254>::prove(&pk, circuit.clone(), &mut StdRng::seed_from_u64(5)).unwrap();
        assert!(!Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &mismatched).unwrap());
    }
}

/// A server that computes h from (a, a) instead of (a, b): well-formed, under the right key,
/// wrong.
struct Cheating(Box<dyn WitnessServer>);

impl WitnessServer for Cheating {
    fn witness_map(&self, a: &[Vec<u8>], _b: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, Error> {
        self.0.witness_map(a, a)
    }
}

#[test]
fn a_cheating_server_is_caught_before_the_coset_step() {
    let mut rng = StdRng::seed_from_u64(14);
    let circuit = CubicChain::<Fr>::random(60, &mut rng);
    let n = circuit.domain_size();
    let (pk, _) =
        Groth16::<Bn254, CircomReduction>::circuit_specific_setup(circuit.clone(), &mut rng)
            .unwrap();
    let session = session(n);
    let session = Arc::new(
        Arc::try_unwrap(session)
            .ok()
            .unwrap()
            .with_server(|s| Box::new(Cheating(s))),
    );
    let (m, inputs, constraints, z) = r1cs(circuit.clone());
    let e = session
        .circom_witness_map(&m, inputs, constraints, &z)
        .unwrap_err();
    assert!(matches!(e, Error::Rejected(_)), "{e}");
    let _guard = session.enter();
    let e = Groth16::<Bn254, EncryptedCircomReduction>::prove(&pk, circuit, &mut rng).unwrap_err();
    assert!(
        matches!(e, ark_relations::gr1cs::SynthesisError::Unsatisfiable),
        "{e}"
    );
    assert!(matches!(last_error(), Some(Error::Rejected(_))));
}

#[test]
fn wrong_matrices_and_sizes_are_errors() {
    let mut rng = StdRng::seed_from_u64(15);
    let circuit = CubicChain::<Fr>::random(3, &mut rng);
    let n = circuit.domain_size();
    let (m, inputs, constraints, z) = r1cs(circuit);
    let s = session(n);
    let e = s
        .circom_witness_map(&m[..1], inputs, constraints, &z)
        .unwrap_err();
    assert!(e.to_string().contains("takes the matrices A and B"), "{e}");
    let e = s
        .circom_witness_map(&m, inputs, constraints + 1, &z)
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidInput(_) | Error::SessionMismatch(_)),
        "{e}"
    );
    let other = session(4 * n);
    let e = other
        .circom_witness_map(&m, inputs, constraints, &z)
        .unwrap_err();
    assert!(matches!(e, Error::SessionMismatch(_)), "{e}");
    let e = CircomReduction::witness_map_from_matrices::<Fr, D>(&m[..1], inputs, constraints, &z)
        .unwrap_err();
    assert!(
        matches!(e, ark_relations::gr1cs::SynthesisError::AssignmentMissing),
        "{e}"
    );
}

/// On the client-assisted route too: the owner's step after the check is the same.
#[test]
fn the_client_assisted_route_gives_the_same_circom_quotient() {
    let mut rng = StdRng::seed_from_u64(16);
    let circuit = CubicChain::<Fr>::random(100, &mut rng);
    let n = circuit.domain_size();
    let ctx = Context::builder()
        .ring_degree(N)
        .plaintext_field::<Fr>()
        .ciphertext_bits(he_fft::ClientAssistedWitnessMap::<Fr>::ciphertext_bits(
            N as usize,
        ))
        .allow_insecure(true)
        .build()
        .unwrap();
    let (session, _) =
        Outsourcing::<Fr>::in_process_on(ctx, n, WitnessMapRoute::ClientAssisted).unwrap();
    let (m, inputs, constraints, z) = r1cs(circuit);
    let encrypted = session
        .circom_witness_map(&m, inputs, constraints, &z)
        .unwrap();
    let clear =
        CircomReduction::witness_map_from_matrices::<Fr, D>(&m, inputs, constraints, &z).unwrap();
    assert_eq!(encrypted, clear);
}
