//! circom's and snarkjs's files (tests/data/circom: a Poseidon hash circuit of 517 constraints
//! compiled by circom, its witness, its snarkjs key, verifying key and proof; see that
//! folder's README): read, checked against each other, proven with the witness map on
//! ciphertexts, and refused with the file named when they do not fit.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use ark_ff::{One, UniformRand};
use ark_groth16::r1cs_to_qap::R1CSToQAP;
use ark_groth16::Groth16;
use ark_poly::GeneralEvaluationDomain;
use ark_snark::SNARK;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use he_groth16::circom::{snarkjs, CircomR1cs, CircomWitness, Zkey};
use he_groth16::{CircomReduction, EncryptedCircomReduction, Error, Outsourcing, WitnessMapRoute};
use helib_rs::Context;

type D = GeneralEvaluationDomain<Fr>;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/circom")
        .join(name)
}

fn text(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap()
}

struct Poseidon {
    r1cs: CircomR1cs<Fr>,
    witness: CircomWitness<Fr>,
    zkey: Zkey,
}

fn poseidon() -> Poseidon {
    Poseidon {
        r1cs: CircomR1cs::read(&data("poseidon_hash.r1cs")).unwrap(),
        witness: CircomWitness::read(&data("poseidon_hash.wtns")).unwrap(),
        zkey: Zkey::read(&data("poseidon_hash.zkey")).unwrap(),
    }
}

/// A session on the toy ring N = 2048 (insecure, for speed).
fn session(n: usize) -> Arc<Outsourcing<Fr>> {
    let ctx = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Fr>()
        .ciphertext_bits(he_fft::witness_map_ciphertext_bits::<Fr>(2048, n))
        .allow_insecure(true)
        .build()
        .unwrap();
    Arc::new(
        Outsourcing::in_process_on(ctx, n, WitnessMapRoute::ServerOnly)
            .unwrap()
            .0,
    )
}

fn file_error(e: Error) -> (String, String) {
    match e {
        Error::File { file, reason } => (file, reason),
        other => panic!("expected a file error, got {other}"),
    }
}

#[test]
fn the_three_files_read_and_fit_each_other() {
    let p = poseidon();
    assert_eq!(
        (
            p.r1cs.num_wires,
            p.r1cs.num_public,
            p.r1cs.num_constraints()
        ),
        (520, 1, 517)
    );
    assert_eq!(p.r1cs.domain_size().unwrap(), 1024);
    assert_eq!(p.witness.values.len(), 520);
    assert_eq!(
        (p.zkey.num_vars, p.zkey.num_public, p.zkey.num_constraints),
        (520, 1, 517)
    );
    assert_eq!(p.zkey.domain_size, 1024);
    p.r1cs.check_witness(&p.witness).unwrap();
    p.zkey.check_circuit(&p.r1cs).unwrap();
    // The key's verifying key is the one snarkjs exports, point for point.
    let exported = snarkjs::verifying_key_from_json(
        "poseidon_hash_verification_key.json",
        &text("poseidon_hash_verification_key.json"),
    )
    .unwrap();
    assert_eq!(p.zkey.verifying_key(), &exported);
    // snarkjs's own proof verifies with ark-groth16 on the same public input.
    let public = snarkjs::public_from_json(
        "poseidon_hash_public.json",
        &text("poseidon_hash_public.json"),
    )
    .unwrap();
    assert_eq!(public, p.witness.public_inputs(1).unwrap());
    let proof = snarkjs::proof_from_json(
        "poseidon_hash_proof.json",
        &text("poseidon_hash_proof.json"),
    )
    .unwrap();
    assert!(Groth16::<Bn254>::verify(&exported, &public, &proof).unwrap());
    assert!(!Groth16::<Bn254>::verify(&exported, &[public[0] + Fr::one()], &proof).unwrap());
}

#[test]
fn a_proof_with_the_witness_map_on_ciphertexts_verifies_with_the_snarkjs_key() {
    let p = poseidon();
    let (inputs, constraints) = (p.zkey.num_public + 1, p.zkey.num_constraints);
    let z = &p.witness.values;
    let clear = CircomReduction::witness_map_from_matrices::<Fr, D>(
        &p.zkey.matrices,
        inputs,
        constraints,
        z,
    )
    .unwrap();
    let session = session(p.zkey.domain_size);
    let encrypted = session
        .circom_witness_map(&p.zkey.matrices, inputs, constraints, z)
        .unwrap();
    assert_eq!(encrypted, clear);
    // The circuit's own matrices (with C) give the same quotient.
    let from_r1cs = session
        .circom_witness_map(&p.r1cs.matrices, inputs, constraints, z)
        .unwrap();
    assert_eq!(from_r1cs, clear);

    let mut rng = StdRng::seed_from_u64(21);
    let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
    let pk = &p.zkey.proving_key;
    let proof = {
        let _guard = session.enter();
        Groth16::<Bn254, EncryptedCircomReduction>::create_proof_with_reduction_and_matrices(
            pk,
            r,
            s,
            &p.zkey.matrices,
            inputs,
            constraints,
            z,
        )
        .unwrap()
    };
    let expected = Groth16::<Bn254, CircomReduction>::create_proof_with_reduction_and_matrices(
        pk,
        r,
        s,
        &p.zkey.matrices,
        inputs,
        constraints,
        z,
    )
    .unwrap();
    assert_eq!(proof, expected);
    let public = p.witness.public_inputs(p.zkey.num_public).unwrap();
    assert!(Groth16::<Bn254>::verify(p.zkey.verifying_key(), public, &proof).unwrap());
    // Written as snarkjs reads it, and read back.
    let json = snarkjs::proof_to_json(&proof);
    assert_eq!(
        snarkjs::proof_from_json("proof.json", &json).unwrap(),
        proof
    );
    let public_json = snarkjs::public_to_json(public);
    assert_eq!(
        public_json.replace(char::is_whitespace, ""),
        text("poseidon_hash_public.json").replace(char::is_whitespace, "")
    );
}

#[test]
fn files_of_another_circuit_or_curve_are_refused_naming_the_file() {
    let p = poseidon();
    let multiplier = CircomR1cs::<Fr>::read(&data("multiplier.r1cs")).unwrap();
    let multiplier_witness = CircomWitness::<Fr>::read(&data("multiplier.wtns")).unwrap();
    multiplier.check_witness(&multiplier_witness).unwrap();

    let (file, reason) = file_error(p.r1cs.check_witness(&multiplier_witness).unwrap_err());
    assert!(
        file.ends_with("multiplier.wtns") && reason.contains("520 wires"),
        "{file}: {reason}"
    );
    let (file, reason) = file_error(p.zkey.check_circuit(&multiplier).unwrap_err());
    assert!(file.ends_with("poseidon_hash.zkey"), "{file}");
    assert!(reason.contains("multiplier.r1cs"), "{reason}");

    // A witness value changed: the first constraint it breaks is named.
    let mut wrong = p.witness.clone();
    wrong.values[400] += Fr::one();
    let (file, reason) = file_error(p.r1cs.check_witness(&wrong).unwrap_err());
    assert!(
        file.ends_with("poseidon_hash.wtns") && reason.contains("does not hold"),
        "{reason}"
    );

    let (file, reason) =
        file_error(CircomR1cs::<Fr>::read(&data("multiplier_bls12381.r1cs")).unwrap_err());
    assert!(
        file.ends_with("multiplier_bls12381.r1cs") && reason.contains("prime"),
        "{reason}"
    );
    let (file, reason) = file_error(Zkey::read(&data("multiplier_bls12381.zkey")).unwrap_err());
    assert!(
        file.ends_with("multiplier_bls12381.zkey") && reason.contains("bn128"),
        "{reason}"
    );
    // A file of one kind given as another.
    let (_, reason) = file_error(Zkey::read(&data("poseidon_hash.r1cs")).unwrap_err());
    assert!(reason.contains("not a snarkjs proving key"), "{reason}");
    let (_, reason) = file_error(CircomWitness::<Fr>::read(&data("nothing.wtns")).unwrap_err());
    assert!(reason.contains("cannot read"), "{reason}");
}

#[test]
fn truncated_and_mutated_files_are_errors_not_panics() {
    let r1cs = std::fs::read(data("poseidon_hash.r1cs")).unwrap();
    let wtns = std::fs::read(data("poseidon_hash.wtns")).unwrap();
    let zkey = std::fs::read(data("poseidon_hash.zkey")).unwrap();
    let mut rng = StdRng::seed_from_u64(22);
    for (name, bytes) in [("a.r1cs", &r1cs), ("a.wtns", &wtns), ("a.zkey", &zkey)] {
        let read = |b: &[u8]| -> Result<(), Error> {
            match name {
                "a.r1cs" => CircomR1cs::<Fr>::from_bytes(name, b).map(|_| ()),
                "a.wtns" => CircomWitness::<Fr>::from_bytes(name, b).map(|_| ()),
                _ => Zkey::from_bytes(name, b).map(|_| ()),
            }
        };
        read(bytes).unwrap();
        for len in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
            let (file, _) = file_error(read(&bytes[..len]).unwrap_err());
            assert_eq!(file, name);
        }
        // A byte after the last section.
        let mut longer = bytes.clone();
        longer.push(0);
        let (_, reason) = file_error(read(&longer).unwrap_err());
        assert!(reason.contains("after its end"), "{reason}");
        // Mutations in the first bytes and in every section's head (type and length): each
        // an error or a file that still parses, never a panic.
        let mut heads = Vec::new();
        let mut at = 12;
        while at + 12 <= bytes.len() {
            heads.extend(at..at + 12);
            let len = u64::from_le_bytes(bytes[at + 4..at + 12].try_into().unwrap()) as usize;
            at += 12 + len;
        }
        assert!(
            heads.len() >= 24,
            "{name}: {} section heads",
            heads.len() / 12
        );
        for round in 0..600 {
            let mut b = bytes.clone();
            let at = if round % 2 == 0 {
                (u64::rand(&mut rng) as usize) % b.len().min(4096)
            } else {
                heads[(u64::rand(&mut rng) as usize) % heads.len()]
            };
            b[at] ^= 1 << (u8::rand(&mut rng) % 8);
            let _ = read(&b);
        }
    }
}

#[test]
fn snarkjs_json_that_is_not_a_proof_is_refused() {
    let good = text("poseidon_hash_proof.json");
    for (bad, expect) in [
        ("{", "not JSON"),
        (&good.replace("bn128", "bls12381") as &str, "curve"),
        (&good.replace("pi_c", "pi_x"), "no pi_c"),
        (
            &good.replacen("\"1\"\n ]", "\"2\"\n ]", 1),
            "not an affine point",
        ),
        (
            &good.replacen(
                "5675990729890641013598165905464932342088050695699889063241399768982248373547",
                "1",
                1,
            ),
            "not a point",
        ),
    ] {
        let (file, reason) = file_error(snarkjs::proof_from_json("p.json", bad).unwrap_err());
        assert_eq!(file, "p.json");
        assert!(reason.contains(expect), "{expect}: {reason}");
    }
    for loose in ["-1", "+5", "05", "1_0", "", " 7"] {
        let e = snarkjs::public_from_json("pub.json", &format!("[\"{loose}\"]")).unwrap_err();
        assert!(e.to_string().contains("pub.json"), "{loose:?}: {e}");
    }
    assert_eq!(
        snarkjs::public_from_json("pub.json", "[\"0\", \"17\"]").unwrap(),
        [Fr::from(0u64), Fr::from(17u64)]
    );
    // The identity only as (0, 1, 0).
    let a_identity = good.replacen("\"1\"\n ]", "\"0\"\n ]", 1);
    let (_, reason) = file_error(snarkjs::proof_from_json("p.json", &a_identity).unwrap_err());
    assert!(reason.contains("z = 0"), "{reason}");
}
