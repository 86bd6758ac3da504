//! circom's `R1CSToQAP`: [`CircomReduction`] in the clear, [`EncryptedCircomReduction`] with
//! the witness map on ciphertexts.

use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::EvaluationDomain;
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, SynthesisError};

use crate::reduction::in_session;
use crate::Evaluations;

/// circom's (snarkjs's) reduction in the clear, as ark-circom's `CircomReduction` computes
/// it: the witness map returns the values of `A B - C` on the coset `w H` (`w` a primitive
/// `2n`-th root of unity, `C` the interpolant of `a_i b_i`), and the H query holds the odd
/// Lagrange basis polynomials of the domain of size `2n` at `tau`, over `delta`. The instance
/// map is ark-groth16's.
///
/// The reference [`EncryptedCircomReduction`] is checked against, and the setup side of keys
/// for it: `Groth16::<E, CircomReduction>::circuit_specific_setup` makes keys in snarkjs's
/// convention.
///
/// ```
/// use ark_bn254::{Bn254, Fr};
/// use ark_groth16::Groth16;
/// use ark_snark::SNARK;
/// use ark_std::rand::{rngs::StdRng, SeedableRng};
/// use he_groth16::{CircomReduction, CubicChain};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut rng = StdRng::seed_from_u64(1);
/// let circuit = CubicChain::<Fr>::random(6, &mut rng);
/// let (pk, vk) =
///     Groth16::<Bn254, CircomReduction>::circuit_specific_setup(circuit.clone(), &mut rng)?;
/// let proof = Groth16::<Bn254, CircomReduction>::prove(&pk, circuit.clone(), &mut rng)?;
/// assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof)?);
/// # Ok(())
/// # }
/// ```
pub struct CircomReduction;

impl R1CSToQAP for CircomReduction {
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
        let e = Evaluations::circom(matrices, num_inputs, num_constraints, full_assignment)
            .map_err(|_| SynthesisError::AssignmentMissing)?;
        let domain = D::new(e.len()).ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        let coset = e
            .len()
            .checked_mul(2)
            .and_then(D::new)
            .and_then(|double| domain.get_coset(double.element(1)))
            .ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        // Each of a, b, c interpolated on H and evaluated on w H.
        let on_coset = |values: &[F]| coset.fft(&domain.ifft(values));
        let (a, b, c) = (on_coset(&e.a), on_coset(&e.b), on_coset(&e.c));
        Ok(a.iter()
            .zip(&b)
            .zip(&c)
            .map(|((a, b), c)| *a * b - c)
            .collect())
    }

    fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
        max_power: usize,
        t: F,
        _zt: F,
        delta_inverse: F,
    ) -> Result<Vec<F>, SynthesisError> {
        // The inverse FFT of tau's powers over the domain of size 2n gives the Lagrange basis
        // at tau; the odd points are w H. Powers 0 to 2n - 2, as ark-circom takes them, so
        // that the keys match its bit for bit (the top power meets only coefficients that
        // A B - C does not have).
        let count = max_power
            .checked_mul(2)
            .and_then(|m| m.checked_add(1))
            .ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        let double = D::new(count).ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        let mut powers = Vec::with_capacity(double.size());
        let mut power = delta_inverse;
        for _ in 0..count {
            powers.push(power);
            power *= t;
        }
        let lagrange = double.ifft(&powers);
        Ok(lagrange.into_iter().skip(1).step_by(2).collect())
    }
}

/// circom's reduction with the witness map on ciphertexts: `Groth16::<E,
/// EncryptedCircomReduction>` proves as `Groth16::<E, CircomReduction>` (and snarkjs) do,
/// bit for bit, with the FFT work on the server of the [`Outsourcing`](crate::Outsourcing)
/// session entered on the proving thread
/// ([`Outsourcing::circom_witness_map`](crate::Outsourcing::circom_witness_map)). The server
/// computes the same `h` as for [`EncryptedReduction`](crate::EncryptedReduction), on the same
/// keys; the owner checks it and evaluates it on the coset. Errors as for
/// `EncryptedReduction`.
///
/// ```
/// use std::sync::Arc;
/// use ark_bn254::{Bn254, Fr};
/// use ark_groth16::Groth16;
/// use ark_snark::SNARK;
/// use ark_std::rand::{rngs::StdRng, SeedableRng};
/// use he_groth16::{
///     CircomReduction, CubicChain, EncryptedCircomReduction, Outsourcing, WitnessMapRoute,
/// };
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut rng = StdRng::seed_from_u64(1);
/// let circuit = CubicChain::<Fr>::random(6, &mut rng);
/// let (pk, vk) =
///     Groth16::<Bn254, CircomReduction>::circuit_specific_setup(circuit.clone(), &mut rng)?;
///
/// // A toy ring for the example's speed (insecure); Outsourcing::in_process picks a secure one.
/// let n = circuit.domain_size();
/// let ctx = helib_rs::Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::witness_map_ciphertext_bits::<Fr>(2048, n))
///     .allow_insecure(true).build()?;
/// let (session, _) = Outsourcing::<Fr>::in_process_on(ctx, n, WitnessMapRoute::ServerOnly)?;
/// let session = Arc::new(session);
/// let guard = session.enter();
/// let proof = Groth16::<Bn254, EncryptedCircomReduction>::prove(&pk, circuit.clone(), &mut rng)?;
/// drop(guard);
/// assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof)?);
/// # Ok(())
/// # }
/// ```
pub struct EncryptedCircomReduction;

impl R1CSToQAP for EncryptedCircomReduction {
    #[allow(clippy::type_complexity)]
    fn instance_map_with_evaluation<F: PrimeField, D: EvaluationDomain<F>>(
        cs: ConstraintSystemRef<F>,
        t: &F,
    ) -> Result<(Vec<F>, Vec<F>, Vec<F>, F, usize, usize), SynthesisError> {
        CircomReduction::instance_map_with_evaluation::<F, D>(cs, t)
    }

    fn witness_map_from_matrices<F: PrimeField, D: EvaluationDomain<F>>(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Vec<F>, SynthesisError> {
        in_session::<F, D>(num_constraints, num_inputs, |session| {
            session.circom_witness_map(matrices, num_inputs, num_constraints, full_assignment)
        })
    }

    fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
        max_power: usize,
        t: F,
        zt: F,
        delta_inverse: F,
    ) -> Result<Vec<F>, SynthesisError> {
        CircomReduction::h_query_scalars::<F, D>(max_power, t, zt, delta_inverse)
    }
}
