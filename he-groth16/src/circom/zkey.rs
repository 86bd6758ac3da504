//! [`Zkey`]: a snarkjs Groth16 proving key (`.zkey`) over BN254.

use std::path::Path;

use ark_bn254::{Bn254, Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, PrimeField, Zero};
use ark_groth16::{ProvingKey, VerifyingKey};
use ark_relations::gr1cs::Matrix;
use ark_serialize::CanonicalDeserialize;

use crate::circom::binfile::{self, bad, Reader, Sections};
use crate::circom::CircomR1cs;
use crate::{Error, Evaluations};

const HEADER: u32 = 1;
const GROTH16_HEADER: u32 = 2;
const IC: u32 = 3;
const COEFFICIENTS: u32 = 4;
const POINTS_A: u32 = 5;
const POINTS_B1: u32 = 6;
const POINTS_B2: u32 = 7;
const POINTS_C: u32 = 8;
const POINTS_H: u32 = 9;

/// Bytes of a base-field element, and so of a G1 point (two) and a G2 point (four).
const N8: usize = 32;

/// A Groth16 proving key as snarkjs writes it (`snarkjs groth16 setup`, `zkey contribute`),
/// for BN254 (snarkjs's `bn128`), as ark-groth16's [`ProvingKey`] and the matrices `A` and
/// `B` it carries.
///
/// Its H query is for circom's form of the quotient, so prove with
/// [`EncryptedCircomReduction`](crate::EncryptedCircomReduction) (or
/// [`CircomReduction`](crate::CircomReduction) in the clear). The key also carries the
/// circuit's `A` and `B`, and [`check_circuit`](Self::check_circuit) tells whether a `.r1cs`
/// is the circuit it was made for.
///
/// Every point is checked on the curve and in its subgroup; counts are checked against the
/// section lengths before anything is allocated.
///
/// ```no_run
/// use he_groth16::circom::Zkey;
///
/// # fn main() -> Result<(), he_groth16::Error> {
/// let zkey = Zkey::read("poseidon.zkey".as_ref())?;
/// println!("{} constraints, domain {}", zkey.num_constraints, zkey.domain_size);
/// let vk = &zkey.proving_key.vk; // ark-groth16's verifying key, as snarkjs exports it
/// # let _ = vk;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Zkey {
    /// The file it came from, for errors.
    pub file: String,
    /// The key in ark-groth16's form (its `vk` is the verifying key).
    pub proving_key: ProvingKey<Bn254>,
    /// Wires of the circuit, the constant 1 included.
    pub num_vars: usize,
    /// Public wires (outputs and public inputs), the constant not included.
    pub num_public: usize,
    /// The circuit's constraints (the rows snarkjs adds for the public inputs not counted).
    pub num_constraints: usize,
    /// The evaluation domain's size.
    pub domain_size: usize,
    /// `[A, B]`, `num_constraints` rows of `(coefficient, wire)`.
    pub matrices: Vec<Matrix<Fr>>,
}

/// The next 32 little-endian bytes as an integer below `modulus` (`what` for errors).
fn below(r: &mut Reader, modulus: BigInt<4>, what: &str) -> Result<BigInt<4>, Error> {
    let limbs = BigInt::<4>::deserialize_uncompressed(r.take(N8)?)
        .map_err(|_| r.bad(format!("a malformed {what}")))?;
    if limbs >= modulus {
        return Err(r.bad(format!("a {what} is not below its prime")));
    }
    Ok(limbs)
}

/// A base-field element as snarkjs writes it: Montgomery form, little-endian.
fn fq(r: &mut Reader) -> Result<Fq, Error> {
    Ok(Fq::new_unchecked(below(r, Fq::MODULUS, "coordinate")?))
}

/// A G1 point (`x`, `y`; both zero for the identity), checked on the curve.
fn g1(r: &mut Reader) -> Result<G1Affine, Error> {
    let (x, y) = (fq(r)?, fq(r)?);
    if x.is_zero() && y.is_zero() {
        return Ok(G1Affine::zero());
    }
    let p = G1Affine::new_unchecked(x, y);
    if !(p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve()) {
        return Err(r.bad("a G1 point is not on BN254's curve"));
    }
    Ok(p)
}

/// A G2 point (`x.c0`, `x.c1`, `y.c0`, `y.c1`; all zero for the identity), checked on the
/// curve and in the prime-order subgroup.
fn g2(r: &mut Reader) -> Result<G2Affine, Error> {
    let x = Fq2::new(fq(r)?, fq(r)?);
    let y = Fq2::new(fq(r)?, fq(r)?);
    if x.is_zero() && y.is_zero() {
        return Ok(G2Affine::zero());
    }
    let p = G2Affine::new_unchecked(x, y);
    if !(p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve()) {
        return Err(r.bad("a G2 point is not in BN254's G2"));
    }
    Ok(p)
}

/// Exactly `n` points of a section.
fn points<P>(
    sections: &Sections,
    kind: u32,
    name: &'static str,
    n: usize,
    size: usize,
    point: impl Fn(&mut Reader) -> Result<P, Error>,
) -> Result<Vec<P>, Error> {
    let mut r = sections.get(kind, name)?;
    r.check_room(n, size, "points")?;
    let out = (0..n)
        .map(|_| point(&mut r))
        .collect::<Result<Vec<P>, Error>>()?;
    r.finish()?;
    Ok(out)
}

/// A matrix coefficient as snarkjs writes it: the value times `R^2` (Montgomery's `R`),
/// little-endian.
fn coefficient(r: &mut Reader) -> Result<Fr, Error> {
    let limbs = below(r, Fr::MODULUS, "coefficient")?;
    // Read as Montgomery form once, the integer is the value times R; once more, the value.
    Ok(Fr::new_unchecked(Fr::new_unchecked(limbs).into_bigint()))
}

impl Zkey {
    /// Reads a `.zkey` file.
    pub fn read(path: &Path) -> Result<Self, Error> {
        Self::from_bytes(&path.display().to_string(), &binfile::read(path)?)
    }

    /// Parses a `.zkey` file's bytes; `file` names it in errors. A key for another protocol
    /// (PLONK, FFLONK) or another curve is refused with an error saying so.
    pub fn from_bytes(file: &str, bytes: &[u8]) -> Result<Self, Error> {
        let sections =
            Sections::parse(file, bytes, b"zkey", &[1], "a snarkjs proving key (.zkey)")?;
        let mut h = sections.get(HEADER, "header")?;
        let protocol = h.u32()?;
        h.finish()?;
        if protocol != 1 {
            return Err(bad(
                file,
                format!("a proving key for protocol {protocol}, not Groth16 (1)"),
            ));
        }
        let mut g = sections.get(GROTH16_HEADER, "Groth16 header")?;
        let n8q = g.u32()? as usize;
        g.modulus::<Fq>(n8q, "BN254's base field (bn128)")?;
        let n8r = g.u32()? as usize;
        g.modulus::<Fr>(n8r, "BN254's scalar field")?;
        let num_vars = g.u32()? as usize;
        let num_public = g.u32()? as usize;
        let domain_size = g.u32()? as usize;
        if !domain_size.is_power_of_two() || num_public >= num_vars {
            return Err(g.bad(format!(
                "{num_vars} wires, {num_public} public, domain {domain_size}: not a Groth16 key"
            )));
        }
        let alpha_g1 = g1(&mut g)?;
        let beta_g1 = g1(&mut g)?;
        let beta_g2 = g2(&mut g)?;
        let gamma_g2 = g2(&mut g)?;
        let delta_g1 = g1(&mut g)?;
        let delta_g2 = g2(&mut g)?;
        g.finish()?;

        let (g1_size, g2_size) = (2 * N8, 4 * N8);
        let gamma_abc_g1 = points(&sections, IC, "IC", num_public + 1, g1_size, g1)?;
        let h_query = points(&sections, POINTS_H, "H points", domain_size, g1_size, g1)?;
        let (num_constraints, matrices) =
            Self::matrices(&sections, num_vars, num_public, domain_size)?;
        let a_query = points(&sections, POINTS_A, "A points", num_vars, g1_size, g1)?;
        let b_g1_query = points(&sections, POINTS_B1, "B1 points", num_vars, g1_size, g1)?;
        let b_g2_query = points(&sections, POINTS_B2, "B2 points", num_vars, g2_size, g2)?;
        let l_query = points(
            &sections,
            POINTS_C,
            "C points",
            num_vars - num_public - 1,
            g1_size,
            g1,
        )?;
        let vk = VerifyingKey {
            alpha_g1,
            beta_g2,
            gamma_g2,
            delta_g2,
            gamma_abc_g1,
        };
        Ok(Zkey {
            file: file.to_string(),
            proving_key: ProvingKey {
                vk,
                beta_g1,
                delta_g1,
                a_query,
                b_g1_query,
                b_g2_query,
                h_query,
                l_query,
            },
            num_vars,
            num_public,
            num_constraints,
            domain_size,
            matrices,
        })
    }

    /// `A` and `B` from the coefficients section, without the rows snarkjs adds for the
    /// public inputs (row `m + i` has `A = z_i`, `B = 0` for `i <= num_public`), which are
    /// checked to be exactly that.
    fn matrices(
        sections: &Sections,
        num_vars: usize,
        num_public: usize,
        domain_size: usize,
    ) -> Result<(usize, Vec<Matrix<Fr>>), Error> {
        let mut r = sections.get(COEFFICIENTS, "coefficients")?;
        let count = r.count(12 + N8, "coefficients")?;
        let mut entries = Vec::with_capacity(count);
        let mut last_row = 0;
        for _ in 0..count {
            let (matrix, row, wire) = (r.u32()? as usize, r.u32()? as usize, r.u32()? as usize);
            if matrix > 1 || row >= domain_size || wire >= num_vars {
                return Err(r.bad(format!(
                    "coefficient of matrix {matrix}, row {row}, wire {wire}: out of range"
                )));
            }
            last_row = last_row.max(row);
            entries.push((matrix, row, wire, coefficient(&mut r)?));
        }
        r.finish()?;
        let num_constraints = last_row
            .checked_sub(num_public)
            .ok_or_else(|| r.bad(format!("no rows for the {} public inputs", num_public + 1)))?;
        // `last_row < domain_size`, which the H points' section (read before) holds a point
        // for each of: the rows allocated here are bounded by the file's size.
        let mut matrices = vec![vec![Vec::new(); last_row + 1]; 2];
        for (matrix, row, wire, value) in entries {
            matrices[matrix][row].push((value, wire));
        }
        for i in 0..=num_public {
            let (a, b) = (
                &matrices[0][num_constraints + i],
                &matrices[1][num_constraints + i],
            );
            if a.as_slice() != [(Fr::from(1u64), i)] || !b.is_empty() {
                return Err(r.bad(format!(
                    "row {} is not public input {i}'s",
                    num_constraints + i
                )));
            }
        }
        for m in &mut matrices {
            m.truncate(num_constraints);
        }
        let expected = Evaluations::<Fr>::domain_size(num_constraints, num_public + 1)?;
        if expected != domain_size {
            return Err(r.bad(format!(
                "{num_constraints} constraints and {} inputs take a domain of {expected}, not {domain_size}",
                num_public + 1
            )));
        }
        Ok((num_constraints, matrices))
    }

    /// Checks that `circuit` fits this key: the same wires, public wires and constraints,
    /// and the same `A` and `B` row by row (a key carries no `C`; a circuit that differs in
    /// `C` alone passes, and its proofs do not verify). An error names both files.
    pub fn check_circuit(&self, circuit: &CircomR1cs<Fr>) -> Result<(), Error> {
        let mismatch = |what: String| {
            bad(
                &self.file,
                format!("not a key for {}: {what}", circuit.file),
            )
        };
        let counts = (
            circuit.num_wires,
            circuit.num_public,
            circuit.num_constraints(),
        );
        if counts != (self.num_vars, self.num_public, self.num_constraints) {
            return Err(mismatch(format!(
                "wires, public wires, constraints {counts:?} against the key's {:?}",
                (self.num_vars, self.num_public, self.num_constraints)
            )));
        }
        for (m, name) in [(0, "A"), (1, "B")] {
            let (Some(ours), Some(theirs)) = (self.matrices.get(m), circuit.matrices.get(m)) else {
                return Err(mismatch(format!("no matrix {name}")));
            };
            let mut rows = ours.iter().zip(theirs);
            if let Some(j) = rows.position(|(k, c)| !same_row(k, c)) {
                return Err(mismatch(format!("row {j} of {name} differs")));
            }
        }
        Ok(())
    }

    /// The verifying key (ark-groth16's form of `snarkjs zkey export verificationkey`).
    pub fn verifying_key(&self) -> &VerifyingKey<Bn254> {
        &self.proving_key.vk
    }
}

/// Two rows with the same terms, in any order and with repeated wires added up.
fn same_row(a: &[(Fr, usize)], b: &[(Fr, usize)]) -> bool {
    let merged = |row: &[(Fr, usize)]| {
        let mut v: Vec<(usize, Fr)> = Vec::with_capacity(row.len());
        let mut sorted: Vec<(usize, Fr)> = row.iter().map(|&(k, w)| (w, k)).collect();
        sorted.sort_by_key(|&(w, _)| w);
        for (w, k) in sorted {
            match v.last_mut() {
                Some((lw, lk)) if *lw == w => *lk += k,
                _ => v.push((w, k)),
            }
        }
        v.retain(|(_, k)| !k.is_zero());
        v
    };
    merged(a) == merged(b)
}
