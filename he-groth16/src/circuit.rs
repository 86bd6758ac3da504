//! [`CubicChain`]: a MiMC-style circuit of adjustable size for examples, tests and benchmarks.

use ark_ff::PrimeField;
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystemRef, SynthesisError};
use ark_relations::lc;
use ark_std::rand::Rng;

/// `rounds` rounds of `x <- (x + k_i)^3` from a secret `x_0` to a public `x_r`, two
/// constraints a round (`s = (x + k) (x + k)`, `x' = s (x + k)`): the shape of MiMC with
/// exponent 3, whose round constants here are random rather than standard.
///
/// Public input: the final value. Witness: the start and every intermediate value.
#[derive(Clone, Debug)]
pub struct CubicChain<F> {
    /// The secret start.
    pub start: F,
    /// One constant a round.
    pub round_constants: Vec<F>,
}

impl<F: PrimeField> CubicChain<F> {
    /// A chain of `rounds` rounds (at least 1) with a random start and random constants.
    pub fn random<R: Rng + ?Sized>(rounds: usize, rng: &mut R) -> Self {
        CubicChain {
            start: F::rand(rng),
            round_constants: (0..rounds.max(1)).map(|_| F::rand(rng)).collect(),
        }
    }

    /// The chain with the fewest rounds whose R1CS has at least `constraints` constraints.
    pub fn with_constraints<R: Rng + ?Sized>(constraints: usize, rng: &mut R) -> Self {
        Self::random(constraints.div_ceil(2), rng)
    }

    /// The number of constraints: two a round.
    pub fn num_constraints(&self) -> usize {
        2 * self.round_constants.len()
    }

    /// The domain ark-groth16 proves on: the next power of two of the constraints plus the
    /// two instance variables (the constant 1 and the output).
    pub fn domain_size(&self) -> usize {
        (self.num_constraints() + 2).next_power_of_two()
    }

    /// The final value, the circuit's public input.
    pub fn output(&self) -> F {
        self.round_constants.iter().fold(self.start, |x, k| {
            let y = x + k;
            y * y * y
        })
    }

    /// The public inputs the verifier takes.
    pub fn public_inputs(&self) -> Vec<F> {
        vec![self.output()]
    }
}

impl<F: PrimeField> ConstraintSynthesizer<F> for CubicChain<F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let output = cs.new_input_variable(|| Ok(self.output()))?;
        let mut x_value = self.start;
        let mut x = cs.new_witness_variable(|| Ok(x_value))?;
        let last = self.round_constants.len() - 1;
        for (i, &k) in self.round_constants.iter().enumerate() {
            let y_value = x_value + k;
            let s_value = y_value * y_value;
            let s = cs.new_witness_variable(|| Ok(s_value))?;
            cs.enforce_r1cs_constraint(
                || lc!() + x + (k, ark_relations::gr1cs::Variable::One),
                || lc!() + x + (k, ark_relations::gr1cs::Variable::One),
                || lc!() + s,
            )?;
            x_value = s_value * y_value;
            let next = if i == last {
                output
            } else {
                cs.new_witness_variable(|| Ok(x_value))?
            };
            cs.enforce_r1cs_constraint(
                || lc!() + s,
                || lc!() + x + (k, ark_relations::gr1cs::Variable::One),
                || lc!() + next,
            )?;
            x = next;
        }
        Ok(())
    }
}
