//! [`CircomR1cs`]: a circuit as circom writes it (`.r1cs`).

use std::path::Path;

use ark_ff::PrimeField;
use ark_relations::gr1cs::Matrix;

use crate::circom::binfile::{self, bad, Sections};
use crate::circom::CircomWitness;
use crate::{Error, Evaluations};

const HEADER: u32 = 1;
const CONSTRAINTS: u32 = 2;
const CUSTOM_GATES: [u32; 2] = [4, 5];

/// A circuit compiled by circom (`circom --r1cs`): its constraints `<A_j, z> <B_j, z> =
/// <C_j, z>` over the wires `z` (wire 0 the constant 1, then the public outputs, the public
/// inputs, the private inputs and the rest).
///
/// ```no_run
/// use ark_bn254::Fr;
/// use he_groth16::circom::{CircomR1cs, CircomWitness};
///
/// # fn main() -> Result<(), he_groth16::Error> {
/// let circuit = CircomR1cs::<Fr>::read("poseidon.r1cs".as_ref())?;
/// let witness = CircomWitness::<Fr>::read("poseidon.wtns".as_ref())?;
/// circuit.check_witness(&witness)?; // an error names the first constraint that fails
/// println!("{} constraints, domain {}", circuit.num_constraints(), circuit.domain_size()?);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircomR1cs<F> {
    /// The file it came from, for errors.
    pub file: String,
    /// Wires, the constant 1 included.
    pub num_wires: usize,
    /// Public outputs and public inputs (wires `1..=num_public`).
    pub num_public: usize,
    /// `[A, B, C]`, one row per constraint, entries `(coefficient, wire)`.
    pub matrices: Vec<Matrix<F>>,
}

impl<F: PrimeField> CircomR1cs<F> {
    /// Reads a `.r1cs` file.
    pub fn read(path: &Path) -> Result<Self, Error> {
        Self::from_bytes(&path.display().to_string(), &binfile::read(path)?)
    }

    /// Parses a `.r1cs` file's bytes; `file` names it in errors. The prime must be `F`'s;
    /// circuits with custom gates (PLONK's) are refused.
    pub fn from_bytes(file: &str, bytes: &[u8]) -> Result<Self, Error> {
        let sections = Sections::parse(file, bytes, b"r1cs", &[1], "a circom circuit (.r1cs)")?;
        if CUSTOM_GATES.iter().any(|&k| sections.has(k)) {
            return Err(bad(
                file,
                "the circuit has custom gates, which Groth16 does not take",
            ));
        }
        let mut h = sections.get(HEADER, "header")?;
        let n8 = h.u32()? as usize;
        h.modulus::<F>(n8, "the proving field")?;
        let num_wires = h.u32()? as usize;
        let outputs = h.u32()? as usize;
        let public_inputs = h.u32()? as usize;
        let _private_inputs = h.u32()?;
        let _labels = h.u64()?;
        let num_constraints = h.u32()? as usize;
        h.finish()?;
        let num_public = outputs
            .checked_add(public_inputs)
            .filter(|&p| p < num_wires)
            .ok_or_else(|| {
                bad(
                    file,
                    format!("{outputs} + {public_inputs} public wires of {num_wires}"),
                )
            })?;

        let mut c = sections.get(CONSTRAINTS, "constraints")?;
        // Each constraint is at least three empty linear combinations.
        c.check_room(num_constraints, 12, "constraints")?;
        let mut matrices: Vec<Matrix<F>> = (0..3)
            .map(|_| Vec::with_capacity(num_constraints))
            .collect();
        for _ in 0..num_constraints {
            for m in matrices.iter_mut() {
                let terms = c.count(4 + n8, "terms")?;
                let mut row = Vec::with_capacity(terms);
                for _ in 0..terms {
                    let wire = c.u32()? as usize;
                    if wire >= num_wires {
                        return Err(c.bad(format!("wire {wire} of {num_wires}")));
                    }
                    row.push((c.element::<F>(n8)?, wire));
                }
                m.push(row);
            }
        }
        c.finish()?;
        Ok(CircomR1cs {
            file: file.to_string(),
            num_wires,
            num_public,
            matrices,
        })
    }

    /// Constraints, the public inputs' not counted.
    pub fn num_constraints(&self) -> usize {
        self.matrices.first().map_or(0, Vec::len)
    }

    /// Instance values of the proof: the constant 1 and the public wires.
    pub fn num_inputs(&self) -> usize {
        self.num_public + 1
    }

    /// The evaluation domain's size: the constraints and one row per instance value, rounded
    /// up to a power of two (what snarkjs's setup takes).
    pub fn domain_size(&self) -> Result<usize, Error> {
        Evaluations::<F>::domain_size(self.num_constraints(), self.num_inputs())
    }

    /// Checks that `witness` has one value per wire and satisfies every constraint; an error
    /// names the witness's file and the first constraint that fails.
    pub fn check_witness(&self, witness: &CircomWitness<F>) -> Result<(), Error> {
        let z = &witness.values;
        if z.len() != self.num_wires {
            return Err(bad(
                &witness.file,
                format!(
                    "{} values for a circuit of {} wires ({})",
                    z.len(),
                    self.num_wires,
                    self.file
                ),
            ));
        }
        let eval = |row: &[(F, usize)]| row.iter().map(|(k, i)| *k * z[*i]).sum::<F>();
        let [a, b, c] = &self.matrices[..] else {
            return Err(bad(&self.file, "not three matrices"));
        };
        for (j, ((ra, rb), rc)) in a.iter().zip(b).zip(c).enumerate() {
            if eval(ra) * eval(rb) != eval(rc) {
                return Err(bad(
                    &witness.file,
                    format!(
                        "constraint {j} of {} does not hold: not a witness of this circuit",
                        self.file
                    ),
                ));
            }
        }
        Ok(())
    }
}
