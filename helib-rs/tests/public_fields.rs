//! What a server reads in the clear must not depend on the data: every encryption path gives
//! the same public fields (length, header, key id, level, noise bound, plaintext factor) for
//! all-zero, constant, sparse, random and largest-norm messages, and the recorded bound still
//! holds the measured noise of the largest messages.

mod common;

use ark_ff::{BigInteger, PrimeField};
use common::{new_fixture_with_degree, rng, Fixture, F};
use helib_rs::{Aggregation, BatchEncoder, Ctxt, EncryptionPool, PoolFile};

/// Ring degree of this file's context: the one the leak was shown on.
const RING: u64 = 4096;

fn fixture() -> &'static Fixture {
    static FIXTURE: std::sync::OnceLock<Fixture> = std::sync::OnceLock::new();
    FIXTURE.get_or_init(|| new_fixture_with_degree(RING, 900))
}

/// Messages of every kind a curious server might want to tell apart, as polynomials of `N`
/// coefficients: all zero, a constant, one nonzero coefficient, uniform, and the two of
/// largest canonical norm (every coefficient `(p - 1) / 2`, or its negative).
fn messages() -> Vec<(&'static str, Vec<F>)> {
    let n = RING as usize;
    let mut r = rng(45);
    let half = F::from_bigint({
        let mut m = F::MODULUS;
        m.div2();
        m
    })
    .expect("(p - 1) / 2 is below p");
    let mut sparse = vec![F::from(0u64); n];
    sparse[1234] = F::from(987_654_321u64);
    vec![
        ("zero", vec![F::from(0u64); n]),
        ("constant", {
            let mut v = vec![F::from(0u64); n];
            v[0] = F::from(42u64);
            v
        }),
        ("sparse", sparse),
        ("random", common::random_poly(&mut r, n)),
        ("largest", vec![half; n]),
        ("largest, negated", vec![-half; n]),
    ]
}

/// Everything of a ciphertext's bytes that is not its rows: the length, then the header, key
/// id, level, noise bound and plaintext factor.
fn public_fields(bytes: &[u8]) -> (usize, Vec<u8>) {
    let limbs = fixture().ctx.plaintext_limbs();
    (bytes.len(), bytes[..36 + 8 * limbs].to_vec())
}

/// Encrypts every message through `path` and asserts the public fields do not vary.
fn assert_same_fields(path: &str, mut encrypt: impl FnMut(&[F]) -> Vec<u8>) {
    let mut first: Option<(&str, (usize, Vec<u8>))> = None;
    for (name, m) in messages() {
        let fields = public_fields(&encrypt(&m));
        match &first {
            None => first = Some((name, fields)),
            Some((first_name, want)) => assert_eq!(
                &fields, want,
                "{path}: the public fields of a {name} message differ from a {first_name} one's"
            ),
        }
    }
}

#[test]
fn every_encryption_path_writes_the_same_public_fields_for_every_message() {
    let fx = fixture();
    let pk = &fx.pk;
    let sk = &fx.sk;
    let enc = BatchEncoder::<F>::for_context(&fx.ctx).expect("encoder");

    assert_same_fields("public-key encryption", |m| {
        pk.encrypt_poly(m).unwrap().to_bytes().unwrap()
    });
    assert_same_fields("public-key encryption of slots", |m| {
        pk.encrypt_slots(&enc, m).unwrap().to_bytes().unwrap()
    });
    assert_same_fields("secret-key encryption to bytes", |m| {
        sk.encrypt_poly_to_bytes(m).unwrap()
    });
    assert_same_fields("secret-key encryption of slots to bytes", |m| {
        sk.encrypt_slots_to_bytes(&enc, m).unwrap()
    });
    let count = messages().len();
    let mut public = EncryptionPool::public(pk, count).unwrap();
    assert_same_fields("public pool, online to bytes", |m| {
        public.encrypt_poly_to_bytes(m).unwrap()
    });
    let mut secret = EncryptionPool::secret(sk, pk, count).unwrap();
    assert_same_fields("secret pool, online to bytes", |m| {
        secret.encrypt_poly_to_bytes(m).unwrap()
    });
    let mut public = EncryptionPool::public(pk, count).unwrap();
    assert_same_fields("public pool, online in memory", |m| {
        public.encrypt_poly(m).unwrap().to_bytes().unwrap()
    });
    let dir = tempdir("fields");
    let mut file = PoolFile::create(
        dir.join("pool.bin"),
        EncryptionPool::public(pk, count).unwrap(),
    )
    .unwrap();
    assert_same_fields("pool file, online to bytes", |m| {
        file.encrypt_poly_to_bytes(m).unwrap()
    });

    // Aggregation uploads, switched down to the level the sum needs.
    let agg = Aggregation::with_context(&fx.ctx, 1000).unwrap();
    assert_same_fields("aggregation upload", |m| {
        agg.encrypt(pk, m).unwrap()[0].to_bytes().unwrap()
    });
    let mut pool = EncryptionPool::public(pk, count).unwrap();
    assert_same_fields("aggregation upload from a pool", |m| {
        agg.encrypt_with_pool_to_bytes(&mut pool, m)
            .unwrap()
            .remove(0)
    });

    // A public-key ciphertext and an online one from a public pool are indistinguishable.
    let direct = pk
        .encrypt_poly(&messages()[3].1)
        .unwrap()
        .to_bytes()
        .unwrap();
    let online = EncryptionPool::public(pk, 1)
        .unwrap()
        .encrypt_poly(&messages()[3].1)
        .unwrap()
        .to_bytes()
        .unwrap();
    assert_eq!(public_fields(&direct), public_fields(&online));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_fresh_bound_holds_the_largest_messages() {
    let fx = fixture();
    let (pk, sk) = (&fx.pk, &fx.sk);
    let mut pool = EncryptionPool::secret(sk, pk, 2).unwrap();
    for (name, m) in messages() {
        let cts: Vec<(&str, Ctxt)> = vec![
            ("public-key", pk.encrypt_poly(&m).unwrap()),
            (
                "secret-key",
                Ctxt::from_bytes(pk, &sk.encrypt_poly_to_bytes(&m).unwrap()).unwrap(),
            ),
            (
                "public pool",
                EncryptionPool::public(pk, 1)
                    .unwrap()
                    .encrypt_poly(&m)
                    .unwrap(),
            ),
            ("secret pool", {
                if pool.is_empty() {
                    pool = EncryptionPool::secret(sk, pk, 2).unwrap();
                }
                pool.encrypt_poly(&m).unwrap()
            }),
        ];
        for (path, ct) in cts {
            let measured = sk.measure_noise(&ct).unwrap();
            assert!(
                measured <= ct.log2_noise_bound(),
                "{path} encryption of a {name} message: measured noise 2^{measured:.2} above \
                 its recorded bound 2^{:.2}",
                ct.log2_noise_bound()
            );
            assert_eq!(sk.decrypt_poly::<F>(&ct).unwrap(), m, "{path}, {name}");
        }
    }
    // The largest messages come close to the bound the secret-key path records (its noise has
    // no u or s factor, so the message dominates): the bound is tight, not merely safe.
    let largest = &messages()[4].1;
    let ct = Ctxt::from_bytes(pk, &sk.encrypt_poly_to_bytes(largest).unwrap()).unwrap();
    let gap = ct.log2_noise_bound() - sk.measure_noise(&ct).unwrap();
    assert!(
        gap < 12.0,
        "a bound {gap:.1} bits above the largest message's noise"
    );
    // And the context's fresh budget is what a fresh public-key encryption shows.
    let fresh = pk.encrypt_poly(largest).unwrap();
    assert!((fresh.noise_budget() - fx.ctx.fresh_noise_budget()).abs() < 1e-9);
}

fn tempdir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("helib-rs-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
