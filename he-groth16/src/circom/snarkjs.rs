//! Proofs, public inputs and verifying keys in snarkjs's JSON (`proof.json`, `public.json`,
//! `verification_key.json`), BN254 (`bn128`): written for `snarkjs groth16 verify`, and read
//! so that a proof made by snarkjs can be checked with ark-groth16.
//!
//! Coordinates are decimal strings of affine points with a third coordinate (`"1"`, or the
//! identity `["0", "1", "0"]`), as snarkjs writes them.
//!
//! ```
//! use ark_bn254::{Bn254, Fr, G1Affine, G2Affine};
//! use ark_ec::AffineRepr;
//! use ark_groth16::Proof;
//! use he_groth16::circom::snarkjs;
//!
//! # fn main() -> Result<(), he_groth16::Error> {
//! let proof = Proof::<Bn254> {
//!     a: G1Affine::generator(),
//!     b: G2Affine::generator(),
//!     c: G1Affine::generator(),
//! };
//! let json = snarkjs::proof_to_json(&proof);
//! assert!(json.contains("\"protocol\": \"groth16\""));
//! assert_eq!(snarkjs::proof_from_json("proof.json", &json)?, proof);
//! let public = snarkjs::public_to_json(&[Fr::from(7u64)]);
//! assert_eq!(snarkjs::public_from_json("public.json", &public)?, vec![Fr::from(7u64)]);
//! # Ok(())
//! # }
//! ```

use std::str::FromStr;

use ark_bn254::{Bn254, Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, PrimeField};
use ark_groth16::{Proof, VerifyingKey};
use serde_json::{json, Value};

use crate::circom::binfile::bad;
use crate::Error;

/// A G1 point as snarkjs writes it.
fn g1_json(p: &G1Affine) -> Value {
    match p.xy() {
        Some((x, y)) => json!([x.to_string(), y.to_string(), "1"]),
        None => json!(["0", "1", "0"]),
    }
}

/// A G2 point as snarkjs writes it.
fn g2_json(p: &G2Affine) -> Value {
    match p.xy() {
        Some((x, y)) => json!([
            [x.c0.to_string(), x.c1.to_string()],
            [y.c0.to_string(), y.c1.to_string()],
            ["1", "0"]
        ]),
        None => json!([["0", "0"], ["1", "0"], ["0", "0"]]),
    }
}

/// `proof.json` for `snarkjs groth16 verify`.
pub fn proof_to_json(proof: &Proof<Bn254>) -> String {
    let v = json!({
        "pi_a": g1_json(&proof.a),
        "pi_b": g2_json(&proof.b),
        "pi_c": g1_json(&proof.c),
        "protocol": "groth16",
        "curve": "bn128",
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// `public.json`: the public inputs (the wires after the constant 1), as decimal strings.
pub fn public_to_json(inputs: &[Fr]) -> String {
    let v: Vec<String> = inputs.iter().map(|x| x.to_string()).collect();
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// `verification_key.json` for `snarkjs groth16 verify`: the fields it reads (`protocol`,
/// `curve`, `nPublic`, `vk_alpha_1`, `vk_beta_2`, `vk_gamma_2`, `vk_delta_2`, `IC`), without
/// the pairing `vk_alphabeta_12` that `snarkjs zkey export verificationkey` adds for
/// Solidity.
pub fn verifying_key_to_json(vk: &VerifyingKey<Bn254>) -> String {
    let v = json!({
        "protocol": "groth16",
        "curve": "bn128",
        "nPublic": vk.gamma_abc_g1.len().saturating_sub(1),
        "vk_alpha_1": g1_json(&vk.alpha_g1),
        "vk_beta_2": g2_json(&vk.beta_g2),
        "vk_gamma_2": g2_json(&vk.gamma_g2),
        "vk_delta_2": g2_json(&vk.delta_g2),
        "IC": vk.gamma_abc_g1.iter().map(g1_json).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// Reads snarkjs's JSON, with errors naming `file`.
struct Json<'a> {
    file: &'a str,
}

impl Json<'_> {
    fn parse(&self, text: &str) -> Result<Value, Error> {
        serde_json::from_str(text).map_err(|e| bad(self.file, format!("not JSON: {e}")))
    }

    /// A decimal string below `F`'s prime.
    fn element<F: PrimeField<BigInt = BigInt<4>>>(
        &self,
        v: &Value,
        what: &str,
    ) -> Result<F, Error> {
        // Digits only, no leading zero: what snarkjs writes, and nothing looser.
        let decimal = |s: &&str| {
            !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_digit())
                && (s.len() == 1 || !s.starts_with('0'))
        };
        v.as_str()
            .filter(decimal)
            .and_then(|s| BigInt::<4>::from_str(s).ok())
            .and_then(F::from_bigint)
            .ok_or_else(|| {
                bad(
                    self.file,
                    format!("{what}: not a decimal field element: {v}"),
                )
            })
    }

    fn list<'v>(&self, v: &'v Value, len: usize, what: &str) -> Result<&'v [Value], Error> {
        v.as_array()
            .filter(|a| a.len() == len)
            .map(|a| a.as_slice())
            .ok_or_else(|| bad(self.file, format!("{what}: not a list of {len}")))
    }

    fn g1(&self, v: &Value, what: &str) -> Result<G1Affine, Error> {
        let c = self.list(v, 3, what)?;
        let (x, y, z): (Fq, Fq, Fq) = (
            self.element(&c[0], what)?,
            self.element(&c[1], what)?,
            self.element(&c[2], what)?,
        );
        if z == Fq::from(0u64) {
            // snarkjs writes the identity as (0, 1, 0) and nothing else.
            if (x, y) != (Fq::from(0u64), Fq::from(1u64)) {
                return Err(bad(self.file, format!("{what}: z = 0 but not (0, 1, 0)")));
            }
            return Ok(G1Affine::zero());
        }
        if z != Fq::from(1u64) {
            return Err(bad(
                self.file,
                format!("{what}: not an affine point (z = {z})"),
            ));
        }
        let p = G1Affine::new_unchecked(x, y);
        if !(p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve()) {
            return Err(bad(self.file, format!("{what}: not a point of BN254's G1")));
        }
        Ok(p)
    }

    fn fq2(&self, v: &Value, what: &str) -> Result<Fq2, Error> {
        let c = self.list(v, 2, what)?;
        Ok(Fq2::new(
            self.element(&c[0], what)?,
            self.element(&c[1], what)?,
        ))
    }

    fn g2(&self, v: &Value, what: &str) -> Result<G2Affine, Error> {
        let c = self.list(v, 3, what)?;
        let (x, y, z) = (
            self.fq2(&c[0], what)?,
            self.fq2(&c[1], what)?,
            self.fq2(&c[2], what)?,
        );
        if z == Fq2::from(0u64) {
            if (x, y) != (Fq2::from(0u64), Fq2::from(1u64)) {
                return Err(bad(
                    self.file,
                    format!("{what}: z = 0 but not the identity"),
                ));
            }
            return Ok(G2Affine::zero());
        }
        if z != Fq2::from(1u64) {
            return Err(bad(self.file, format!("{what}: not an affine point")));
        }
        let p = G2Affine::new_unchecked(x, y);
        if !(p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve()) {
            return Err(bad(self.file, format!("{what}: not a point of BN254's G2")));
        }
        Ok(p)
    }

    /// The `protocol` and `curve` fields, where present, must be Groth16's and bn128.
    fn check_kind(&self, v: &Value) -> Result<(), Error> {
        for (key, want) in [("protocol", "groth16"), ("curve", "bn128")] {
            match v.get(key).and_then(Value::as_str) {
                None => {}
                Some(s) if s == want => {}
                Some(s) => return Err(bad(self.file, format!("{key} {s:?}, not {want:?}"))),
            }
        }
        Ok(())
    }
}

/// Reads a `proof.json` (snarkjs's or [`proof_to_json`]'s); `file` names it in errors.
pub fn proof_from_json(file: &str, text: &str) -> Result<Proof<Bn254>, Error> {
    let j = Json { file };
    let v = j.parse(text)?;
    j.check_kind(&v)?;
    let field = |key: &str| v.get(key).ok_or_else(|| bad(file, format!("no {key}")));
    Ok(Proof {
        a: j.g1(field("pi_a")?, "pi_a")?,
        b: j.g2(field("pi_b")?, "pi_b")?,
        c: j.g1(field("pi_c")?, "pi_c")?,
    })
}

/// Reads a `public.json`; `file` names it in errors.
pub fn public_from_json(file: &str, text: &str) -> Result<Vec<Fr>, Error> {
    let j = Json { file };
    let v = j.parse(text)?;
    let list = v
        .as_array()
        .ok_or_else(|| bad(file, "not a list of public inputs"))?;
    list.iter()
        .enumerate()
        .map(|(i, x)| j.element(x, &format!("input {i}")))
        .collect()
}

/// Reads a `verification_key.json` (`snarkjs zkey export verificationkey`); `file` names it
/// in errors.
pub fn verifying_key_from_json(file: &str, text: &str) -> Result<VerifyingKey<Bn254>, Error> {
    let j = Json { file };
    let v = j.parse(text)?;
    j.check_kind(&v)?;
    let field = |key: &str| v.get(key).ok_or_else(|| bad(file, format!("no {key}")));
    let ic = field("IC")?
        .as_array()
        .ok_or_else(|| bad(file, "IC: not a list"))?;
    if let Some(n) = v.get("nPublic") {
        let n = n
            .as_u64()
            .ok_or_else(|| bad(file, format!("nPublic {n}: not a count")))?;
        if ic.len() as u64 != n.saturating_add(1) {
            return Err(bad(
                file,
                format!("{} IC points for {n} public inputs", ic.len()),
            ));
        }
    }
    Ok(VerifyingKey {
        alpha_g1: j.g1(field("vk_alpha_1")?, "vk_alpha_1")?,
        beta_g2: j.g2(field("vk_beta_2")?, "vk_beta_2")?,
        gamma_g2: j.g2(field("vk_gamma_2")?, "vk_gamma_2")?,
        delta_g2: j.g2(field("vk_delta_2")?, "vk_delta_2")?,
        gamma_abc_g1: ic
            .iter()
            .enumerate()
            .map(|(i, p)| j.g1(p, &format!("IC {i}")))
            .collect::<Result<_, _>>()?,
    })
}
