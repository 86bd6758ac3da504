//! [`R1cs`]: a circuit's constraint matrices and full assignment, as ark-groth16's prover
//! sees them.

use ark_ff::PrimeField;
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystem, Matrix, R1CS_PREDICATE_LABEL};

use crate::Error;

/// The R1CS of one circuit with its assignment: what
/// `R1CSToQAP::witness_map_from_matrices` takes.
#[derive(Clone, Debug)]
pub struct R1cs<F: PrimeField> {
    /// `[A, B, C]`: one row per constraint, entries `(coefficient, variable index)`.
    pub matrices: Vec<Matrix<F>>,
    /// Instance variables, the constant 1 included.
    pub num_inputs: usize,
    /// Constraints.
    pub num_constraints: usize,
    /// Instance, then witness values.
    pub assignment: Vec<F>,
}

impl<F: PrimeField> R1cs<F> {
    /// Synthesizes `circuit` (with its witness) and extracts its matrices and assignment.
    pub fn from_circuit(circuit: impl ConstraintSynthesizer<F>) -> Result<Self, Error> {
        let synthesis = |e: ark_relations::gr1cs::SynthesisError| {
            Error::InvalidInput(format!("the circuit did not synthesize: {e}"))
        };
        let cs = ConstraintSystem::new_ref();
        circuit
            .generate_constraints(cs.clone())
            .map_err(synthesis)?;
        cs.finalize();
        let matrices = cs
            .to_matrices()
            .map_err(synthesis)?
            .remove(R1CS_PREDICATE_LABEL)
            .ok_or_else(|| Error::InvalidInput("the circuit has no R1CS constraints".into()))?;
        let (num_inputs, num_constraints) = (cs.num_instance_variables(), cs.num_constraints());
        let cs = cs
            .borrow()
            .ok_or_else(|| Error::InvalidInput("the constraint system is in use".into()))?;
        let assignment = [
            cs.instance_assignment().map_err(synthesis)?,
            cs.witness_assignment().map_err(synthesis)?,
        ]
        .concat();
        Ok(R1cs {
            matrices,
            num_inputs,
            num_constraints,
            assignment,
        })
    }
}
