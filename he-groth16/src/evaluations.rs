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
    /// `<C_j, z>`, then zeros ([`circom`](Self::circom): `a_i b_i`).
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
        Self::build(
            [ma, mb],
            Some(mc),
            num_inputs,
            num_constraints,
            full_assignment,
        )
    }

    /// The evaluations as circom's quotient takes them (ark-circom's `CircomReduction`,
    /// snarkjs): `a` and `b` as [`new`](Self::new) lays them out, and `c_i = a_i b_i`, which
    /// is `<C_j, z>` when the constraints hold. `matrices` is `[A, B]` (a snarkjs proving key
    /// carries no `C`) or `[A, B, C]` (`C` unused).
    pub fn circom(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Self, Error> {
        let (ma, mb) = match matrices {
            [ma, mb] | [ma, mb, _] => (ma, mb),
            _ => {
                return Err(Error::InvalidInput(format!(
                    "circom's quotient takes the matrices A and B (and C, unused), got {}",
                    matrices.len()
                )))
            }
        };
        Self::build([ma, mb], None, num_inputs, num_constraints, full_assignment)
    }

    /// `a`, `b`, and `c` from `mc`, or as the products `a_i b_i` without it.
    fn build(
        [ma, mb]: [&Matrix<F>; 2],
        mc: Option<&Matrix<F>>,
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Self, Error> {
        for (name, m) in [("A", ma), ("B", mb)]
            .into_iter()
            .chain(mc.map(|m| ("C", m)))
        {
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
        let b = eval(mb)?;
        let c = match mc {
            Some(mc) => eval(mc)?,
            None => a.iter().zip(&b).map(|(x, y)| *x * y).collect(),
        };
        Ok(Evaluations { a, b, c })
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
