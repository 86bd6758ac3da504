//! Keys derived from a seed (the `insecure-deterministic-keys` test feature): the same seed
//! gives the same keys in any order, another seed other keys, and they work as keys.
#![cfg(feature = "insecure-deterministic-keys")]

use ark_bn254::Fr;
use helib_rs::{BatchEncoder, Context, GaloisKeys, GaloisSteps, PubKey, SecKey};

fn toy() -> Context {
    Context::builder()
        .ring_degree(1024)
        .plaintext_field::<Fr>()
        .ciphertext_bits(400)
        .allow_insecure(true)
        .build()
        .expect("context")
}

#[test]
fn same_seed_same_keys_in_any_order() {
    let ctx = toy();
    let a = SecKey::generate_insecure_deterministic(&ctx, [1; 32]).unwrap();
    let b = SecKey::generate_insecure_deterministic(&ctx, [1; 32]).unwrap();
    let c = SecKey::generate_insecure_deterministic(&ctx, [2; 32]).unwrap();
    assert_eq!(*a.to_bytes().unwrap(), *b.to_bytes().unwrap());
    assert_ne!(*a.to_bytes().unwrap(), *c.to_bytes().unwrap());

    // Galois keys first for b, public key first for a; key by key, and in one set.
    let steps = GaloisSteps::new().steps([1, 3]).row_swap();
    let gb = GaloisKeys::generate(&b, &steps).unwrap();
    let pa = PubKey::generate(&a).unwrap();
    let ga = GaloisKeys::generate(&a, &GaloisSteps::new().step(3)).unwrap();
    let ga_all = GaloisKeys::generate(&a, &steps).unwrap();
    let pb = PubKey::generate(&b).unwrap();
    assert_eq!(pa.to_bytes().unwrap(), pb.to_bytes().unwrap());
    assert_eq!(ga_all.to_bytes().unwrap(), gb.to_bytes().unwrap());
    assert_ne!(ga.to_bytes().unwrap(), gb.to_bytes().unwrap());
    let pc = PubKey::generate(&c).unwrap();
    assert_ne!(pa.to_bytes().unwrap(), pc.to_bytes().unwrap());

    // They work: encrypt under a's public key, rotate with b's keys, decrypt with b.
    let enc = BatchEncoder::<Fr>::for_context(&ctx).unwrap();
    let x: Vec<Fr> = (0..1024u64).map(Fr::from).collect();
    let mut ct = pa.encrypt_slots(&enc, &x).unwrap();
    ct.rotate_rows(3, &gb).unwrap();
    let y = b.decrypt_slots(&enc, &ct).unwrap();
    assert_eq!(y[0], Fr::from(3u64));

    // Encryption stays random: two encryptions of one vector differ.
    let again = pa.encrypt_slots(&enc, &x).unwrap();
    let first = pa.encrypt_slots(&enc, &x).unwrap();
    assert_ne!(again.to_bytes().unwrap(), first.to_bytes().unwrap());
}
