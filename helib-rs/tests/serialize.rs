//! Serialization: every object survives the trip through bytes (a server that only sees bytes
//! computes what the data owner's objects compute), and every kind of damaged or foreign byte
//! string is refused with an error naming the problem, never a crash.

mod common;

use std::sync::OnceLock;

use ark_std::rand::Rng;
use common::*;
use helib_rs::{BatchEncoder, Context, Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, SecKey};

/// Header: magic (4), version (2), kind (2), fingerprint (8).
const HEADER: usize = 16;
/// A ciphertext's fields after the header: key id (8), level (4), noise bound (8), then the
/// plaintext factor (4 limbs for BN254), then the rows.
const CT_LEVEL: usize = HEADER + 8;
const CT_NOISE: usize = CT_LEVEL + 4;
const CT_FACTOR: usize = CT_NOISE + 8;
const CT_ROWS: usize = CT_FACTOR + 4 * 8;

const STEPS: [i64; 2] = [1, -2];

fn keys() -> &'static GaloisKeys {
    static KEYS: OnceLock<GaloisKeys> = OnceLock::new();
    KEYS.get_or_init(|| {
        GaloisKeys::generate(&fixture().sk, &GaloisSteps::new().steps(STEPS).row_swap())
            .expect("keys")
    })
}

fn encoder() -> &'static BatchEncoder<F> {
    static ENC: OnceLock<BatchEncoder<F>> = OnceLock::new();
    ENC.get_or_init(|| BatchEncoder::for_context(&fixture().ctx).expect("encoder"))
}

fn encrypt(v: &[F]) -> Ctxt {
    fixture().pk.encrypt_slots(encoder(), v).expect("encrypt")
}

fn decrypt_with(sk: &SecKey, ct: &Ctxt) -> Vec<F> {
    sk.decrypt_slots(encoder(), ct).expect("decrypt")
}

fn rotate_left(v: &[F], k: i64) -> Vec<F> {
    let half = v.len() / 2;
    let k = k.rem_euclid(half as i64) as usize;
    let mut out = Vec::with_capacity(v.len());
    for row in v.chunks(half) {
        out.extend(row[k..].iter().chain(&row[..k]));
    }
    out
}

fn expect_corrupt<T: std::fmt::Debug>(result: Result<T, Error>, needle: &str, what: &str) {
    match result {
        Err(Error::InvalidArgument(m)) => {
            assert!(m.contains("corrupt data"), "{what}: {m}");
            assert!(m.contains(needle), "{what}: expected '{needle}' in '{m}'");
        }
        other => panic!("{what}: expected a corrupt-data error, got {other:?}"),
    }
}

fn patched(bytes: &[u8], at: usize, with: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + with.len()].copy_from_slice(with);
    out
}

#[test]
fn a_server_holding_only_bytes_computes_what_the_owner_would() {
    let f = fixture();
    let mut r = rng(1);
    let x = random_poly(&mut r, N as usize);
    let w = random_poly(&mut r, N as usize);

    let ctx = Context::from_bytes_allow_insecure(&f.ctx.to_bytes().unwrap()).unwrap();
    assert!(!ctx.same_as(&f.ctx));
    assert_eq!(ctx.to_bytes().unwrap(), f.ctx.to_bytes().unwrap());
    assert_eq!(ctx.primes().unwrap(), f.ctx.primes().unwrap());
    let pk = PubKey::from_bytes(&ctx, &f.pk.to_bytes().unwrap()).unwrap();
    let gk = GaloisKeys::from_bytes(&ctx, &keys().to_bytes().unwrap()).unwrap();
    assert_eq!(gk.elements(), keys().elements());
    assert_eq!(gk.size_bytes(), keys().size_bytes());
    let ct = Ctxt::from_bytes(&pk, &encrypt(&x).to_bytes().unwrap()).unwrap();
    let ct_w = Ctxt::from_bytes(&pk, &encrypt(&w).to_bytes().unwrap()).unwrap();

    // Rotation (Galois keys read back), product (relinearization key read back), sum.
    let mut y = ct.rotated_rows(1, &gk).unwrap();
    y = (&y * &ct_w).unwrap();
    y = (&y + &ct.rotated_rows(-2, &gk).unwrap()).unwrap();
    y.swap_rows(&gk).unwrap();
    let back = Ctxt::from_bytes(&f.pk, &y.to_bytes().unwrap()).unwrap();
    assert_eq!(back.level(), y.level());
    assert_eq!(back.noise_budget(), y.noise_budget());

    let mut want: Vec<F> = rotate_left(&x, 1)
        .iter()
        .zip(&w)
        .map(|(a, b)| *a * b)
        .collect();
    want = want
        .iter()
        .zip(rotate_left(&x, -2))
        .map(|(a, b)| *a + b)
        .collect();
    let half = want.len() / 2;
    want.rotate_left(half);
    assert_eq!(decrypt_with(&f.sk, &back), want);
}

#[test]
fn a_public_key_read_back_encrypts_for_the_original_secret_key() {
    let f = fixture();
    let pk = PubKey::from_bytes(&f.ctx, &f.pk.to_bytes().unwrap()).unwrap();
    assert!(pk.belongs_to(&f.sk));
    assert_eq!(pk.size_bytes(), f.pk.size_bytes());
    let x = random_poly(&mut rng(2), N as usize);
    let ct = pk.encrypt_slots(encoder(), &x).unwrap();
    assert_eq!(decrypt_with(&f.sk, &ct), x);
    // And mixes with ciphertexts of the original key.
    let sum = (&ct + &encrypt(&x)).unwrap();
    assert_eq!(
        decrypt_with(&f.sk, &sum),
        x.iter().map(|a| *a + a).collect::<Vec<_>>()
    );
}

#[test]
fn a_secret_key_read_back_decrypts_and_reserializes_identically() {
    let f = fixture();
    let bytes = f.sk.to_bytes().unwrap();
    assert_eq!(bytes.len(), HEADER + 8 + N as usize);
    let sk = SecKey::from_bytes(&f.ctx, &bytes).unwrap();
    assert_eq!(sk.to_bytes().unwrap(), bytes);
    assert_eq!(sk.coefficients().unwrap(), f.sk.coefficients().unwrap());
    assert!(f.pk.belongs_to(&sk) && keys().belongs_to(&sk));
    let x = random_poly(&mut rng(3), N as usize);
    assert_eq!(decrypt_with(&sk, &encrypt(&x)), x);
}

#[test]
fn ciphertexts_keep_level_noise_and_plaintext_factor() {
    let f = fixture();
    let mut r = rng(4);
    let x = random_poly(&mut r, N as usize);
    // A product (plaintext factor != 1 after its modulus switches), then one level lower.
    let mut ct = (&encrypt(&x) * &encrypt(&x)).unwrap();
    ct.mod_switch_down().unwrap();
    let bytes = ct.to_bytes().unwrap();
    let level = ct.level() as usize;
    assert_eq!(bytes.len(), CT_ROWS + 2 * level * N as usize * 8);
    let back = Ctxt::from_bytes(&f.pk, &bytes).unwrap();
    assert_eq!(back.info(), ct.info());
    assert_eq!(back.to_bytes().unwrap(), bytes);
    let squares: Vec<F> = x.iter().map(|a| *a * a).collect();
    assert_eq!(decrypt_with(&f.sk, &back), squares);
}

#[test]
fn galois_keys_travel_at_about_half_their_memory() {
    let bytes = keys().to_bytes().unwrap();
    let ratio = bytes.len() as f64 / keys().size_bytes() as f64;
    assert!((0.45..0.55).contains(&ratio), "wire / memory = {ratio}");
    let empty = GaloisKeys::generate(&fixture().sk, &GaloisSteps::new()).unwrap();
    let back = GaloisKeys::from_bytes(&fixture().ctx, &empty.to_bytes().unwrap()).unwrap();
    assert!(back.elements().is_empty());
}

#[test]
fn truncated_or_extended_bytes_are_corrupt() {
    let f = fixture();
    let ct = encrypt(&random_poly(&mut rng(5), N as usize))
        .to_bytes()
        .unwrap();
    // Every cut in the header and fields, then a stride through the rows, and the last byte.
    let cuts = (0..CT_ROWS + 16)
        .chain((CT_ROWS + 16..ct.len()).step_by(4099))
        .chain([ct.len() - 1]);
    for cut in cuts {
        expect_corrupt(
            Ctxt::from_bytes(&f.pk, &ct[..cut]),
            "",
            &format!("ciphertext cut at {cut}"),
        );
    }
    let mut longer = ct.clone();
    longer.push(0);
    expect_corrupt(
        Ctxt::from_bytes(&f.pk, &longer),
        "unexpected bytes",
        "a trailing byte",
    );

    let gk = keys().to_bytes().unwrap();
    for cut in [
        0,
        HEADER,
        HEADER + 12,
        HEADER + 20,
        gk.len() / 2,
        gk.len() - 1,
    ] {
        expect_corrupt(
            GaloisKeys::from_bytes(&f.ctx, &gk[..cut]),
            "",
            &format!("keys cut at {cut}"),
        );
    }
    let pk = f.pk.to_bytes().unwrap();
    for cut in [0, HEADER + 8, HEADER + 40, pk.len() / 2, pk.len() - 1] {
        expect_corrupt(
            PubKey::from_bytes(&f.ctx, &pk[..cut]),
            "",
            &format!("public key cut at {cut}"),
        );
    }
    let sk = f.sk.to_bytes().unwrap();
    expect_corrupt(
        SecKey::from_bytes(&f.ctx, &sk[..sk.len() - 1]),
        "truncated",
        "secret key cut",
    );
    let c = f.ctx.to_bytes().unwrap();
    for cut in 0..c.len() {
        expect_corrupt(
            Context::from_bytes_allow_insecure(&c[..cut]),
            "",
            &format!("context cut at {cut}"),
        );
    }
}

#[test]
fn damaged_fields_are_named() {
    let f = fixture();
    let x = random_poly(&mut rng(6), N as usize);
    let ct = encrypt(&x).to_bytes().unwrap();
    let load = |b: &[u8]| Ctxt::from_bytes(&f.pk, b);

    expect_corrupt(load(&patched(&ct, 0, b"XPHE")), "magic", "magic");
    expect_corrupt(
        load(&patched(&ct, 4, &2u16.to_le_bytes())),
        "version 2",
        "version",
    );
    expect_corrupt(
        load(&patched(&ct, 6, &17u16.to_le_bytes())),
        "unknown kind 17",
        "kind",
    );
    expect_corrupt(
        load(&patched(&ct, CT_LEVEL, &0u32.to_le_bytes())),
        "level 0",
        "level 0",
    );
    let too_high = f.ctx.num_ctxt_primes() + 1;
    expect_corrupt(
        load(&patched(&ct, CT_LEVEL, &too_high.to_le_bytes())),
        "level",
        "level too high",
    );
    expect_corrupt(
        load(&patched(&ct, CT_NOISE, &f64::NAN.to_le_bytes())),
        "noise",
        "NaN noise",
    );
    expect_corrupt(
        load(&patched(&ct, CT_NOISE, &(-1f64).to_le_bytes())),
        "noise",
        "negative noise",
    );
    expect_corrupt(
        load(&patched(&ct, CT_FACTOR, &[0; 32])),
        "factor",
        "factor 0",
    );
    expect_corrupt(
        load(&patched(&ct, CT_FACTOR, &[0xff; 32])),
        "factor",
        "factor >= p",
    );
    expect_corrupt(
        load(&patched(&ct, CT_ROWS, &[0xff; 8])),
        "not below its prime",
        "first residue",
    );
    expect_corrupt(
        load(&patched(&ct, ct.len() - 8, &[0xff; 8])),
        "not below its prime",
        "last residue",
    );

    // Another object kind where a ciphertext is expected, and the other way round.
    expect_corrupt(
        load(&f.pk.to_bytes().unwrap()),
        "expected a ciphertext, found a public key",
        "kind",
    );
    expect_corrupt(
        GaloisKeys::from_bytes(&f.ctx, &ct),
        "expected Galois keys, found a ciphertext",
        "kind",
    );

    let sk = f.sk.to_bytes().unwrap();
    expect_corrupt(
        SecKey::from_bytes(&f.ctx, &patched(&sk, HEADER + 8, &[2])),
        "{-1, 0, 1}",
        "coefficient 2",
    );
    expect_corrupt(
        SecKey::from_bytes(&f.ctx, &patched(&sk, HEADER, &[0; 8])),
        "key id 0",
        "id 0",
    );

    // Galois keys: id (8), count (4), then the first element.
    let gk = keys().to_bytes().unwrap();
    let first = HEADER + 12;
    expect_corrupt(
        GaloisKeys::from_bytes(&f.ctx, &patched(&gk, first, &4u64.to_le_bytes())),
        "Galois element 4",
        "even",
    );
    expect_corrupt(
        GaloisKeys::from_bytes(&f.ctx, &patched(&gk, first, &1u64.to_le_bytes())),
        "Galois element 1",
        "identity",
    );
    expect_corrupt(
        GaloisKeys::from_bytes(&f.ctx, &patched(&gk, HEADER + 8, &u32::MAX.to_le_bytes())),
        "announced",
        "a key count far beyond the data",
    );
    // The digit count of the first key: after its element (8) and seed (32).
    expect_corrupt(
        GaloisKeys::from_bytes(&f.ctx, &patched(&gk, first + 40, &7u32.to_le_bytes())),
        "digits",
        "digit count",
    );

    // Context: m not a power of two is the builder's own error; p of 33 limbs is corrupt.
    let c = f.ctx.to_bytes().unwrap();
    match Context::from_bytes_allow_insecure(&patched(&c, HEADER, &3000u64.to_le_bytes())) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("power of two"), "{m}"),
        other => panic!("m = 3000: {other:?}"),
    }
    expect_corrupt(
        Context::from_bytes_allow_insecure(&patched(&c, HEADER + 16, &33u32.to_le_bytes())),
        "limbs",
        "p limbs",
    );
}

#[test]
fn random_byte_damage_never_crashes() {
    let f = fixture();
    let ct = encrypt(&random_poly(&mut rng(7), N as usize))
        .to_bytes()
        .unwrap();
    let mut r = rng(8);
    let mut refused = 0;
    for i in 0..300 {
        // Half the flips in the header and fields, half anywhere.
        let at = if i % 2 == 0 {
            r.gen_range(0..CT_ROWS)
        } else {
            r.gen_range(0..ct.len())
        };
        let mut bad = ct.clone();
        bad[at] ^= 1 << r.gen_range(0..8);
        // Header, key id and level are always checked; so is the top byte of a residue
        // (primes are below 2^50). The noise bound, the factor and lower residue bits may
        // change into other valid values.
        let must_refuse = at < CT_NOISE || (at >= CT_ROWS && (at - CT_ROWS) % 8 == 7);
        match Ctxt::from_bytes(&f.pk, &bad) {
            Ok(c) => {
                assert!(!must_refuse, "flip at {at} accepted");
                let _ = f.sk.decrypt_slots(encoder(), &c);
            }
            Err(Error::InvalidArgument(_) | Error::Mismatch(_)) => refused += 1,
            Err(e) => panic!("flip at {at}: unexpected error {e:?}"),
        }
    }
    assert!(
        refused >= 60,
        "only {refused} of 300 damaged ciphertexts refused"
    );
}

#[test]
fn foreign_objects_are_mismatches() {
    let f = fixture();
    let ct = encrypt(&random_poly(&mut rng(9), N as usize))
        .to_bytes()
        .unwrap();

    // Another secret key's public key.
    let other_sk = SecKey::generate(&f.ctx).unwrap();
    let other_pk = PubKey::generate(&other_sk).unwrap();
    match Ctxt::from_bytes(&other_pk, &ct) {
        Err(Error::Mismatch(m)) => assert!(m.contains("another secret key"), "{m}"),
        other => panic!("ciphertext under another key: {other:?}"),
    }

    // Another context (one more chain prime): the fingerprint differs.
    let other_ctx = small_context(CIPHERTEXT_BITS + 100);
    for result in [
        SecKey::from_bytes(&other_ctx, &f.sk.to_bytes().unwrap()).map(|_| ()),
        PubKey::from_bytes(&other_ctx, &f.pk.to_bytes().unwrap()).map(|_| ()),
        GaloisKeys::from_bytes(&other_ctx, &keys().to_bytes().unwrap()).map(|_| ()),
    ] {
        match result {
            Err(Error::Mismatch(m)) => assert!(m.contains("another context"), "{m}"),
            other => panic!("object of another context: {other:?}"),
        }
    }

    // Reading a context keeps the 128-bit gate unless the reader opts out.
    match Context::from_bytes(&f.ctx.to_bytes().unwrap()) {
        Err(Error::InsecureParameters(_)) => {}
        other => panic!("toy context read without opting out: {other:?}"),
    }
}

#[test]
fn a_plaintext_modulus_with_all_ones_limbs_round_trips() {
    // p = 2^127 - 1: its low limb is u64::MAX, a value no range check may refuse.
    let ctx = Context::builder()
        .ring_degree(N)
        .plaintext_modulus_limbs(&[u64::MAX, (1 << 63) - 1])
        .ciphertext_bits(600)
        .allow_insecure(true)
        .build()
        .unwrap();
    let back = Context::from_bytes_allow_insecure(&ctx.to_bytes().unwrap()).unwrap();
    assert_eq!(back.plaintext_modulus_limbs(), &[u64::MAX, (1 << 63) - 1]);
    assert_eq!(back.primes().unwrap(), ctx.primes().unwrap());
}

#[test]
fn keys_read_back_give_bit_identical_results() {
    let f = fixture();
    let pk_bytes = f.pk.to_bytes().unwrap();
    let gk_bytes = keys().to_bytes().unwrap();
    let pk = PubKey::from_bytes(&f.ctx, &pk_bytes).unwrap();
    let gk = GaloisKeys::from_bytes(&f.ctx, &gk_bytes).unwrap();
    assert_eq!(pk.to_bytes().unwrap(), pk_bytes);
    assert_eq!(gk.to_bytes().unwrap(), gk_bytes);
    // Key switching is deterministic, so keys whose expanded halves match give equal bytes.
    let ct = encrypt(&random_poly(&mut rng(10), N as usize));
    let original = ct.rotated_rows(-2, keys()).unwrap().to_bytes().unwrap();
    assert_eq!(
        ct.rotated_rows(-2, &gk).unwrap().to_bytes().unwrap(),
        original
    );
    let same_ct = Ctxt::from_bytes(&pk, &ct.to_bytes().unwrap()).unwrap();
    let product = (&ct * &ct).unwrap().to_bytes().unwrap();
    assert_eq!((&same_ct * &same_ct).unwrap().to_bytes().unwrap(), product);
}

#[test]
fn damaged_keys_and_contexts_are_refused() {
    let f = fixture();
    let sk = f.sk.to_bytes().unwrap();
    for bad in [0xfe_u8, 0x80] {
        expect_corrupt(
            SecKey::from_bytes(&f.ctx, &patched(&sk, HEADER + 8 + 17, &[bad])),
            "{-1, 0, 1}",
            "coefficient",
        );
    }
    // Public key: id (8), seed (32), then b's rows.
    let pk = f.pk.to_bytes().unwrap();
    expect_corrupt(
        PubKey::from_bytes(&f.ctx, &patched(&pk, HEADER + 40, &[0xff; 8])),
        "not below its prime",
        "pk row",
    );
    expect_corrupt(
        PubKey::from_bytes(&f.ctx, &patched(&pk, pk.len() - 8, &[0xff; 8])),
        "not below its prime",
        "relin row",
    );

    // Galois keys: id (8), count (4), then per key its element (8), seed (32), digits (4), rows.
    let gk = keys().to_bytes().unwrap();
    let count = keys().elements().len();
    let per_key = (gk.len() - HEADER - 12) / count;
    let first = HEADER + 12;
    let load = |b: &[u8]| GaloisKeys::from_bytes(&f.ctx, b);
    expect_corrupt(
        load(&patched(&gk, first + 44, &[0xff; 8])),
        "not below its prime",
        "key row",
    );
    expect_corrupt(
        load(&patched(&gk, first, &(2 * N + 1).to_le_bytes())),
        "Galois element",
        "element >= 2N",
    );
    let first_element = keys().elements()[0].to_le_bytes();
    expect_corrupt(
        load(&patched(&gk, first + per_key, &first_element)),
        "increasing order",
        "a repeated element",
    );

    // A context whose fingerprint does not match the primes its parameters give here.
    let c = f.ctx.to_bytes().unwrap();
    match Context::from_bytes_allow_insecure(&patched(&c, 8, &[0x5a; 8])) {
        Err(Error::Mismatch(m)) => assert!(m.contains("corrupted or forged"), "{m}"),
        other => panic!("context with another fingerprint: {other:?}"),
    }
}

#[test]
fn unusual_but_valid_ciphertext_fields_are_accepted() {
    let f = fixture();
    let ct = encrypt(&random_poly(&mut rng(11), N as usize))
        .to_bytes()
        .unwrap();
    // A plaintext factor with an all-ones limb (2^64 - 1 < p).
    let factor = [[0xff; 8], [0; 8], [0; 8], [0; 8]].concat();
    let odd = Ctxt::from_bytes(&f.pk, &patched(&ct, CT_FACTOR, &factor)).unwrap();
    assert_eq!(odd.to_bytes().unwrap(), patched(&ct, CT_FACTOR, &factor));
    // An exhausted ciphertext (+inf), and a bound beyond the modulus, which reads as exhausted.
    for noise in [f64::INFINITY, 1e9] {
        let c = Ctxt::from_bytes(&f.pk, &patched(&ct, CT_NOISE, &noise.to_le_bytes())).unwrap();
        assert_eq!(c.log2_noise_bound(), f64::INFINITY, "noise {noise}");
        assert!(matches!(
            f.sk.decrypt_slots(encoder(), &c),
            Err(Error::NoiseBudgetExhausted(_))
        ));
    }
}
