//! [`EncryptedReduction`]: ark-groth16's `R1CSToQAP` with the witness map on ciphertexts.

use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::EvaluationDomain;
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, SynthesisError};

use crate::session::{set_last_error, with_session};
use crate::{Error, Outsourcing};

/// A drop-in `R1CSToQAP` for ark-groth16: `Groth16::<E, EncryptedReduction>` proves exactly
/// as `Groth16::<E>` (which uses `LibsnarkReduction`), except that the witness map's FFT work
/// runs on ciphertexts, on the server of the [`Outsourcing`] session entered on the proving
/// thread. Keys made with either reduction work with both: the setup side (the instance map
/// and the `h` query) is `LibsnarkReduction`'s.
///
/// The trait's functions take no state, so the session is found through
/// [`Outsourcing::enter`]. Without one, or with one for another field or domain size, proving
/// fails with a `SynthesisError` (`AssignmentMissing`, `PolynomialDegreeTooLarge` for a
/// domain the session does not serve, `Unsatisfiable` for a result the owner's check
/// rejected) and [`last_error`](crate::last_error) says what happened; nothing panics.
///
/// ```
/// use std::sync::Arc;
/// use ark_bn254::{Bn254, Fr};
/// use ark_groth16::Groth16;
/// use ark_snark::SNARK;
/// use ark_std::rand::{rngs::StdRng, SeedableRng};
/// use he_groth16::{CubicChain, EncryptedReduction, Outsourcing, WitnessMapRoute};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut rng = StdRng::seed_from_u64(1);
/// let circuit = CubicChain::<Fr>::random(6, &mut rng);
/// let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)?;
///
/// // A toy ring for the example's speed (insecure); Outsourcing::in_process picks a secure one.
/// let n = circuit.domain_size();
/// let ctx = helib_rs::Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::witness_map_ciphertext_bits::<Fr>(2048, n))
///     .allow_insecure(true).build()?;
/// let (session, _) = Outsourcing::<Fr>::in_process_on(ctx, n, WitnessMapRoute::ServerOnly)?;
/// let session = Arc::new(session);
/// let guard = session.enter();
/// let proof = Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit.clone(), &mut rng)?;
/// drop(guard);
/// assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof)?);
/// assert_eq!(session.report().calls, 1);
/// # Ok(())
/// # }
/// ```
pub struct EncryptedReduction;

impl R1CSToQAP for EncryptedReduction {
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
        in_session::<F, D>(num_constraints, num_inputs, |session| {
            session.witness_map(matrices, num_inputs, num_constraints, full_assignment)
        })
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

/// Runs `witness_map` in the session entered on this thread, once the prover's domain type is
/// known to put its points where the session's are; an error becomes the `SynthesisError`
/// ark-groth16 passes on, and [`last_error`](crate::last_error) keeps the whole story.
pub(crate) fn in_session<F: PrimeField, D: EvaluationDomain<F>>(
    num_constraints: usize,
    num_inputs: usize,
    witness_map: impl FnOnce(&Outsourcing<F>) -> Result<Vec<F>, Error>,
) -> Result<Vec<F>, SynthesisError> {
    let result = with_session::<F, _>(|session: &Outsourcing<F>| {
        let rows = num_constraints.checked_add(num_inputs);
        let domain = rows
            .and_then(D::new)
            .ok_or_else(|| Error::InvalidInput("no evaluation domain for this many rows".into()))?;
        let ours = ark_poly::Radix2EvaluationDomain::<F>::new(domain.size());
        if ours.map(|d| (d.size(), d.group_gen())) != Some((domain.size(), domain.group_gen())) {
            return Err(Error::SessionMismatch(
                "the prover's evaluation domain is not the radix-2 subgroup".into(),
            ));
        }
        witness_map(session)
    });
    result.map_err(|e| {
        let code = match &e {
            Error::NoSession | Error::InvalidInput(_) | Error::File { .. } => {
                SynthesisError::AssignmentMissing
            }
            Error::SessionMismatch(_) => SynthesisError::PolynomialDegreeTooLarge,
            Error::Rejected(_) => SynthesisError::Unsatisfiable,
            Error::Engine(_) | Error::Transform(_) | Error::Server(_) | Error::Party { .. } => {
                SynthesisError::AssignmentMissing
            }
        };
        set_last_error(e);
        code
    })
}
