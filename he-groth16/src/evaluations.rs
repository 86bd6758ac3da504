//! From R1CS matrices and a full assignment to the evaluations `a`, `b`, `c` of `A`, `B`, `C`
//! on the domain `H`, as ark-groth16's `LibsnarkReduction` lays them out.

use ark_ff::PrimeField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::Matrix;

use crate::Error;

/// The evaluations of the QAP polynomials on `H` for one assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluations<F> {
    /// `<A_j, z>` for each constraint `j`, then the public inputs (ark-groth16's input
    /// constraints `z_i * 0 = 0`), then zeros, `n` values.
    pub a: Vec<F>,
    /// `<B_j, z>`, then zeros.
    pub b: Vec<F>,
    /// `<C_j, z>`, then zeros.
    pub c: Vec<F>,
}

impl<F: PrimeField> Evaluations<F> {
    /// The domain size ark-groth16 uses for `num_constraints + num_inputs` rows: the next
    /// power of two (an error past the field's two-adicity).
    pub fn domain_size(num_constraints: usize, num_inputs: usize) -> Result<usize, Error> {
        let rows = num_constraints.checked_add(num_inputs).ok_or_else(|| {
            Error::InvalidInput("the constraint and input counts overflow".into())
        })?;
        Radix2EvaluationDomain::<F>::new(rows)
            .map(|d| d.size())
            .ok_or_else(|| {
                Error::InvalidInput(format!(
                    "{rows} rows need a domain larger than this field's 2^{}",
                    F::TWO_ADICITY
                ))
            })
    }

    /// The evaluations for the R1CS `matrices` (`[A, B, C]`, one row per constraint, entries
    /// `(coefficient, variable index)`) and `full_assignment` (instance, then witness; the
    /// first `num_inputs` entries are the instance, constant 1 included).
    pub fn new(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Self, Error> {
        let [ma, mb, mc] = matrices else {
            return Err(Error::InvalidInput(format!(
                "R1CS has three matrices, got {}",
                matrices.len()
            )));
        };
        for (name, m) in [("A", ma), ("B", mb), ("C", mc)] {
            if m.len() != num_constraints {
                return Err(Error::InvalidInput(format!(
                    "matrix {name} has {} rows for {num_constraints} constraints",
                    m.len()
                )));
            }
        }
        if num_inputs > full_assignment.len() {
            return Err(Error::InvalidInput(format!(
                "{num_inputs} inputs but an assignment of {} values",
                full_assignment.len()
            )));
        }
        let n = Self::domain_size(num_constraints, num_inputs)?;
        let row = |terms: &[(F, usize)]| -> Result<F, Error> {
            terms.iter().try_fold(F::zero(), |acc, &(k, i)| {
                let v = full_assignment.get(i).ok_or_else(|| {
                    Error::InvalidInput(format!(
                        "a constraint uses variable {i} of an assignment of {}",
                        full_assignment.len()
                    ))
                })?;
                Ok(acc + k * v)
            })
        };
        let eval = |m: &Matrix<F>| -> Result<Vec<F>, Error> {
            let mut v = m
                .iter()
                .map(|r| row(r))
                .collect::<Result<Vec<F>, Error>>()?;
            v.resize(n, F::zero());
            Ok(v)
        };
        let mut a = eval(ma)?;
        a[num_constraints..num_constraints + num_inputs]
            .copy_from_slice(&full_assignment[..num_inputs]);
        Ok(Evaluations {
            a,
            b: eval(mb)?,
            c: eval(mc)?,
        })
    }

    /// The domain size `n`.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Never true: a domain has at least one point.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }
}
