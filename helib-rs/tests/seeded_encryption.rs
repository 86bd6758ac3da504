//! Secret-key encryption straight to bytes (`SecKey::encrypt_*_to_bytes`): what it decrypts
//! to, that it is half the bytes and less noise, that every call is fresh, that the server
//! computes on it as on any ciphertext, and that damaged or foreign bytes are refused.

mod common;

use common::*;
use helib_rs::{BatchEncoder, Ctxt, EncodedPtxt, Error, GaloisKeys, GaloisSteps, PubKey, SecKey};

/// Header (16), key id (8), level (4), noise bound (8), plaintext factor (4 limbs for BN254).
const CT_LEVEL: usize = 16 + 8;
const CT_ROWS: usize = CT_LEVEL + 4 + 8 + 4 * 8;
const SEED: usize = 32;

fn encoder() -> BatchEncoder<F> {
    BatchEncoder::for_context(&fixture().ctx).expect("encoder")
}

fn upload(v: &[F]) -> Vec<u8> {
    fixture()
        .sk
        .encrypt_slots_to_bytes(&encoder(), v)
        .expect("secret-key encryption")
}

fn read(bytes: &[u8]) -> Ctxt {
    Ctxt::from_bytes(&fixture().pk, bytes).expect("seeded ciphertext reads")
}

fn expect_corrupt(result: Result<Ctxt, Error>, needle: &str, what: &str) {
    match result {
        Err(Error::InvalidArgument(m)) => {
            assert!(m.contains("corrupt data"), "{what}: {m}");
            assert!(m.contains(needle), "{what}: expected '{needle}' in '{m}'");
        }
        other => panic!("{what}: expected a corrupt-data error, got {other:?}"),
    }
}

#[test]
fn secret_key_encryptions_decrypt_to_what_was_encrypted() {
    let f = fixture();
    let enc = encoder();
    let mut r = rng(1);
    let full = random_poly(&mut r, N as usize);
    let short = random_poly(&mut r, 5);

    assert_decrypts_to_slots(&f.sk, &enc, &read(&upload(&full)), &full, "full slots");
    assert_decrypts_to_slots(&f.sk, &enc, &read(&upload(&short)), &short, "five slots");
    assert_decrypts_to_slots(&f.sk, &enc, &read(&upload(&[])), &[], "no slots");

    let poly = random_poly(&mut r, 100);
    let ct = read(&f.sk.encrypt_poly_to_bytes(&poly).unwrap());
    assert_decrypts_to(&f.sk, &ct, &poly, "polynomial");
    assert_eq!(ct.level(), f.ctx.num_ctxt_primes(), "fresh: top level");
}

#[test]
fn the_upload_is_half_the_bytes_with_less_noise() {
    let f = fixture();
    let enc = encoder();
    let v = random_poly(&mut rng(2), N as usize);
    let seeded = upload(&v);
    let public = f.pk.encrypt_slots(&enc, &v).unwrap();
    let full = public.to_bytes().unwrap();

    // The seed replaces c1's rows, nothing else changes.
    let rows = f.ctx.num_ctxt_primes() as usize * N as usize * 8;
    assert_eq!(full.len(), CT_ROWS + 2 * rows);
    assert_eq!(seeded.len(), CT_ROWS + rows + SEED);

    // No u or s factor in the noise: the bound is lower by about log2(2 ||s|| + 1) bits, and
    // the measured noise stays under it.
    let ct = read(&seeded);
    let gain = public.log2_noise_bound() - ct.log2_noise_bound();
    assert!(gain > 5.0, "noise bound only {gain:.1} bits lower");
    assert_noise_within_bound(&f.sk, &ct, "seeded encryption");
    let measured_gain = f.sk.measure_noise(&public).unwrap() - f.sk.measure_noise(&ct).unwrap();
    assert!(
        measured_gain > 3.0,
        "measured noise only {measured_gain:.1} bits lower"
    );
}

#[test]
fn every_encryption_is_fresh() {
    let v = random_poly(&mut rng(3), N as usize);
    let (a, b) = (upload(&v), upload(&v));
    assert_eq!(a.len(), b.len());
    assert_eq!(a[..CT_ROWS], b[..CT_ROWS], "same header and fields");
    let seed = a.len() - SEED;
    assert_ne!(a[seed..], b[seed..], "a seed was reused");
    assert_ne!(a[seed..], [0u8; SEED], "an all-zero seed");
    // c0 differs almost everywhere (fresh a and fresh e), not just somewhere.
    let same = a[CT_ROWS..seed]
        .chunks(8)
        .zip(b[CT_ROWS..seed].chunks(8))
        .filter(|(x, y)| x == y)
        .count();
    assert!(same < 4, "{same} residues of c0 repeat");

    // The error is fresh too (a fresh a alone would change c0 just as much): the difference of
    // two encryptions of one message has the noise p (e - e'), not zero.
    let diff = (&read(&a) - &read(&b)).unwrap();
    let noise = fixture().sk.measure_noise(&diff).unwrap();
    assert!(
        noise > 254.0,
        "the difference has noise 2^{noise:.1}: an error was reused"
    );
}

#[test]
fn a_server_computes_on_seeded_uploads_as_on_any_ciphertext() {
    let f = fixture();
    let enc = encoder();
    let mut r = rng(4);
    let (x, y, w) = (
        random_poly(&mut r, N as usize),
        random_poly(&mut r, N as usize),
        random_poly(&mut r, N as usize),
    );
    let gk = GaloisKeys::generate(&f.sk, &GaloisSteps::new().steps([1])).unwrap();
    let cx = read(&upload(&x));
    let cy = f.pk.encrypt_slots(&enc, &y).unwrap(); // mixes with public-key ciphertexts

    let mut rotated = cx.clone();
    rotated.rotate_rows(1, &gk).unwrap();
    let half = N as usize / 2;
    let plain_rot: Vec<F> = x
        .chunks(half)
        .flat_map(|row| {
            row[1..]
                .iter()
                .chain(&row[..1])
                .copied()
                .collect::<Vec<_>>()
        })
        .collect();
    assert_decrypts_to_slots(&f.sk, &enc, &rotated, &plain_rot, "rotation");

    let pt = EncodedPtxt::from_slots(&f.ctx, &enc, &w, None).unwrap();
    let prod = (&(&cx * &pt).unwrap() + &cy).unwrap();
    let want: Vec<F> = x
        .iter()
        .zip(&w)
        .zip(&y)
        .map(|((a, b), c)| *a * b + c)
        .collect();
    assert_decrypts_to_slots(&f.sk, &enc, &prod, &want, "x * w + y");

    let sq = cx.checked_mul(&cx).unwrap();
    let want: Vec<F> = x.iter().map(|a| *a * a).collect();
    assert_decrypts_to_slots(&f.sk, &enc, &sq, &want, "x * x");

    // Results travel back in full form (only a fresh encryption has a seed for c1).
    let back = prod.to_bytes().unwrap();
    assert_eq!(
        back.len(),
        CT_ROWS + 2 * prod.level() as usize * N as usize * 8
    );
    let expected: Vec<F> = x
        .iter()
        .zip(&w)
        .zip(&y)
        .map(|((a, b), c)| *a * b + c)
        .collect();
    assert_decrypts_to_slots(&f.sk, &enc, &read(&back), &expected, "result read back");
}

#[test]
fn damaged_or_foreign_seeded_bytes_are_refused() {
    let f = fixture();
    let good = upload(&random_poly(&mut rng(5), N as usize));
    let pk = &f.pk;

    expect_corrupt(
        Ctxt::from_bytes(pk, &good[..good.len() - 1]),
        "truncated",
        "cut in the seed",
    );
    expect_corrupt(
        Ctxt::from_bytes(pk, &good[..CT_ROWS + 100]),
        "truncated",
        "cut in c0",
    );
    let mut long = good.clone();
    long.push(0);
    expect_corrupt(
        Ctxt::from_bytes(pk, &long),
        "unexpected bytes",
        "trailing byte",
    );

    // A seeded ciphertext exists only at the top level.
    let mut low = good.clone();
    let level = u32::from_le_bytes(low[CT_LEVEL..CT_LEVEL + 4].try_into().unwrap());
    low[CT_LEVEL..CT_LEVEL + 4].copy_from_slice(&(level - 1).to_le_bytes());
    expect_corrupt(
        Ctxt::from_bytes(pk, &low),
        "another level than fresh encryptions",
        "lower level",
    );

    // A residue of c0 at or above its prime.
    let mut big = good.clone();
    big[CT_ROWS..CT_ROWS + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    expect_corrupt(Ctxt::from_bytes(pk, &big), "not below its prime", "residue");

    // A seeded ciphertext is fresh: its plaintext factor is 1.
    let mut factor = good.clone();
    factor[CT_ROWS - 32] = 2;
    expect_corrupt(
        Ctxt::from_bytes(pk, &factor),
        "factor other than 1",
        "factor 2",
    );

    // A full ciphertext relabelled as seeded: the seed is followed by the rest of c1.
    let mut full =
        f.pk.encrypt_slots(&encoder(), &[F::from(1u64)])
            .unwrap()
            .to_bytes()
            .unwrap();
    full[6..8].copy_from_slice(&6u16.to_le_bytes());
    expect_corrupt(Ctxt::from_bytes(pk, &full), "unexpected bytes", "kind 6");

    // Relabelled as a full ciphertext, c1's rows are missing.
    let mut relabelled = good.clone();
    relabelled[6..8].copy_from_slice(&5u16.to_le_bytes());
    expect_corrupt(Ctxt::from_bytes(pk, &relabelled), "truncated", "kind 5");

    // A damaged seed still reads (any 32 bytes are a seed), but decrypts to garbage with the
    // noise check refusing it instead of returning wrong values.
    let mut seed = good.clone();
    let at = seed.len() - 1;
    seed[at] ^= 1;
    match f.sk.decrypt_slots(&encoder(), &read(&seed)) {
        Err(Error::NoiseBudgetExhausted(_)) => {}
        other => panic!("a flipped seed bit: {other:?}"),
    }

    // Other readers name what they found.
    match SecKey::from_bytes(&f.ctx, &good) {
        Err(Error::InvalidArgument(m)) => {
            assert!(m.contains("found a seeded ciphertext"), "{m}")
        }
        other => panic!("seeded ciphertext read as a secret key: {other:?}"),
    }

    // Another context (one more chain prime): the fingerprint differs.
    let other = new_fixture(CIPHERTEXT_BITS + 100);
    match Ctxt::from_bytes(&other.pk, &good) {
        Err(Error::Mismatch(m)) => assert!(m.contains("another context"), "{m}"),
        other => panic!("seeded ciphertext of another context: {other:?}"),
    }

    // Another secret key's public key.
    let other_pk = PubKey::generate(&SecKey::generate(&f.ctx).unwrap()).unwrap();
    match Ctxt::from_bytes(&other_pk, &good) {
        Err(Error::Mismatch(m)) => assert!(m.contains("another secret key"), "{m}"),
        other => panic!("seeded ciphertext under another key: {other:?}"),
    }
}

#[test]
fn bad_plaintexts_are_refused_before_encrypting() {
    let f = fixture();
    let too_many = vec![F::from(1u64); N as usize + 1];
    assert!(matches!(
        f.sk.encrypt_slots_to_bytes(&encoder(), &too_many),
        Err(Error::InvalidLength(_))
    ));
    assert!(matches!(
        f.sk.encrypt_poly_to_bytes(&too_many),
        Err(Error::InvalidLength(_))
    ));
    let other_ring = BatchEncoder::<F>::new(2 * N as usize).unwrap();
    assert!(matches!(
        f.sk.encrypt_slots_to_bytes(&other_ring, &[F::from(1u64)]),
        Err(Error::Mismatch(_))
    ));
    assert!(matches!(
        f.sk.encrypt_poly_to_bytes(&[ark_bn254::Fq::from(1u64)]),
        Err(Error::FieldMismatch(_))
    ));
}
