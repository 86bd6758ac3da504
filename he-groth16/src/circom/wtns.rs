//! [`CircomWitness`]: a witness as circom's generated code and snarkjs write it (`.wtns`).

use std::path::Path;

use ark_ff::PrimeField;

use crate::circom::binfile::{self, bad, Sections};
use crate::Error;

const HEADER: u32 = 1;
const VALUES: u32 = 2;

/// A full assignment of a circom circuit's wires (`snarkjs wtns calculate`, or the circuit's
/// generated `generate_witness.js`): wire 0 is the constant 1, then the public outputs and
/// inputs, then the private wires; the first `num_public + 1` values are the proof's
/// instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircomWitness<F> {
    /// The file it came from, for errors.
    pub file: String,
    /// One value per wire.
    pub values: Vec<F>,
}

impl<F: PrimeField> CircomWitness<F> {
    /// Reads a `.wtns` file.
    pub fn read(path: &Path) -> Result<Self, Error> {
        Self::from_bytes(&path.display().to_string(), &binfile::read(path)?)
    }

    /// Parses a `.wtns` file's bytes (version 2, snarkjs's); `file` names it in errors. The
    /// prime must be `F`'s and wire 0 must be 1.
    pub fn from_bytes(file: &str, bytes: &[u8]) -> Result<Self, Error> {
        let sections = Sections::parse(file, bytes, b"wtns", &[2], "a circom witness (.wtns)")?;
        let mut h = sections.get(HEADER, "header")?;
        let n8 = h.u32()? as usize;
        h.modulus::<F>(n8, "the proving field")?;
        let count = h.u32()? as usize;
        h.finish()?;
        let mut v = sections.get(VALUES, "values")?;
        v.check_room(count, n8, "values")?;
        let values = (0..count)
            .map(|_| v.element::<F>(n8))
            .collect::<Result<Vec<F>, Error>>()?;
        v.finish()?;
        if values.first() != Some(&F::one()) {
            return Err(bad(file, "wire 0 is not the constant 1"));
        }
        Ok(CircomWitness {
            file: file.to_string(),
            values,
        })
    }

    /// The proof's public inputs: wires `1..=num_public`.
    pub fn public_inputs(&self, num_public: usize) -> Result<&[F], Error> {
        self.values
            .get(1..=num_public)
            .ok_or_else(|| bad(&self.file, format!("fewer than {num_public} public values")))
    }
}
