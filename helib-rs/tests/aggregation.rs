//! Private aggregation: uploads summed by the server equal the plain sum over F_p, files are
//! summed on several threads, and every malformed input is a clear error.

mod common;

use std::path::PathBuf;

use ark_ff::Zero;
use common::{message, new_fixture, random_poly, rng, Fixture, F, N};
use helib_rs::{Aggregation, EncryptedSum, EncryptionPool, Error};

/// Room for a few hundred users at N = 2048, insecure (a toy ring).
const BITS: u32 = 400;

fn setup(users: u64) -> (Fixture, Aggregation) {
    let fx = new_fixture(BITS);
    let agg = Aggregation::with_context(&fx.ctx, users).expect("the toy context holds the sum");
    (fx, agg)
}

fn plain_sum(vectors: &[Vec<F>]) -> Vec<F> {
    let mut sum = vec![F::zero(); vectors[0].len()];
    for v in vectors {
        for (s, x) in sum.iter_mut().zip(v) {
            *s += x;
        }
    }
    sum
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("helib-aggregation-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn the_sum_of_uploads_decrypts_to_the_plain_sum() {
    let users = 40;
    let (fx, agg) = setup(users);
    let len = 2 * N as usize + 100; // three ciphertexts per user, the last partly filled
    assert_eq!(agg.ciphertexts_for(len), 3);
    let mut r = rng(1);
    let vectors: Vec<Vec<F>> = (0..users).map(|_| random_poly(&mut r, len)).collect();
    let mut sum = EncryptedSum::new(&agg, &fx.pk);
    for v in &vectors {
        let upload = agg.encrypt(&fx.pk, v).unwrap();
        assert_eq!(upload.len(), 3);
        for ct in &upload {
            assert!(ct.noise_budget() >= agg.upload_margin_bits());
        }
        sum.add_bytes(&Aggregation::upload_to_bytes(&upload).unwrap())
            .unwrap();
    }
    assert_eq!(sum.users(), users);
    assert_eq!(sum.decrypt::<F>(&fx.sk, len).unwrap(), plain_sum(&vectors));
    assert!(sum.ciphertexts().iter().all(|c| c.noise_budget() > 0.0));
}

#[test]
fn uploads_are_switched_down_to_what_the_sum_needs() {
    let fx = new_fixture(700);
    let agg = Aggregation::with_context(&fx.ctx, 10).unwrap();
    let fresh = fx.pk.encrypt_poly(&[F::from(1u64)]).unwrap();
    let upload = agg.encrypt(&fx.pk, &[F::from(1u64)]).unwrap();
    assert!(upload[0].level() < fresh.level());
    assert!(upload[0].to_bytes().unwrap().len() < fresh.to_bytes().unwrap().len());
    assert!(upload[0].noise_budget() >= agg.upload_margin_bits());
}

#[test]
fn files_are_summed_on_several_threads() {
    let users = 60;
    let (fx, agg) = setup(users);
    let dir = temp_dir("files");
    let mut r = rng(2);
    let vectors: Vec<Vec<F>> = (0..users).map(|_| random_poly(&mut r, 300)).collect();
    let files: Vec<PathBuf> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let path = dir.join(format!("user{i}.bin"));
            let upload = agg.encrypt(&fx.pk, v).unwrap();
            std::fs::write(&path, Aggregation::upload_to_bytes(&upload).unwrap()).unwrap();
            path
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let sum = pool
        .install(|| EncryptedSum::sum_files(&agg, &fx.pk, &files))
        .unwrap();
    assert_eq!(sum.users(), users);
    assert_eq!(sum.decrypt::<F>(&fx.sk, 300).unwrap(), plain_sum(&vectors));

    // A damaged file fails the sum, and the error names it.
    let bad = dir.join("user7.bin");
    let mut bytes = std::fs::read(&bad).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&bad, &bytes).unwrap();
    let e = EncryptedSum::sum_files(&agg, &fx.pk, &files).err().unwrap();
    assert!(
        matches!(&e, Error::RefusedUpload { index: 7, file: Some(f), .. } if f.ends_with("user7.bin")),
        "{e}"
    );
    let missing = [dir.join("nobody.bin")];
    let e = EncryptedSum::sum_files(&agg, &fx.pk, &missing)
        .err()
        .unwrap();
    assert!(
        matches!(&e, Error::Io(m) if m.contains("nobody.bin")),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn partial_sums_merge() {
    let (fx, agg) = setup(8);
    let mut r = rng(3);
    let vectors: Vec<Vec<F>> = (0..8).map(|_| random_poly(&mut r, 50)).collect();
    let (mut left, mut right) = (
        EncryptedSum::new(&agg, &fx.pk),
        EncryptedSum::new(&agg, &fx.pk),
    );
    for (i, v) in vectors.iter().enumerate() {
        let upload = agg.encrypt(&fx.pk, v).unwrap();
        if i % 3 == 0 {
            left.add(&upload)
        } else {
            right.add(&upload)
        }
        .unwrap();
    }
    left.merge(right).unwrap();
    left.merge(EncryptedSum::new(&agg, &fx.pk)).unwrap(); // an empty one is nothing
    assert_eq!(left.users(), 8);
    assert_eq!(left.decrypt::<F>(&fx.sk, 50).unwrap(), plain_sum(&vectors));
}

#[test]
fn pool_uploads_sum_like_fresh_ones() {
    let (fx, agg) = setup(6);
    let mut r = rng(4);
    let len = N as usize + 5; // two ciphertexts per upload
    let vectors: Vec<Vec<F>> = (0..6).map(|_| random_poly(&mut r, len)).collect();
    let mut pool = EncryptionPool::public(&fx.pk, 7).unwrap();
    let mut sum = EncryptedSum::new(&agg, &fx.pk);
    for (i, v) in vectors.iter().enumerate() {
        let upload = if i < 3 {
            agg.encrypt_with_pool(&mut pool, v).unwrap()
        } else {
            agg.encrypt(&fx.pk, v).unwrap()
        };
        assert!(upload
            .iter()
            .all(|c| c.noise_budget() >= agg.upload_margin_bits()));
        sum.add(&upload).unwrap();
    }
    assert_eq!(sum.decrypt::<F>(&fx.sk, len).unwrap(), plain_sum(&vectors));
    // One zero left, two needed: refused before any is used.
    let e = agg.encrypt_with_pool(&mut pool, &vectors[0]).err().unwrap();
    assert!(message(&e).contains("holds 1"), "{e}");
    assert_eq!(pool.len(), 1);
}

#[test]
fn pool_uploads_in_bytes_sum_like_fresh_ones() {
    // Below the top level (the toy context's uploads are switched down): through a
    // ciphertext in memory.
    let (fx, agg) = setup(4);
    let mut r = rng(5);
    let vectors: Vec<Vec<F>> = (0..4).map(|_| random_poly(&mut r, 30)).collect();
    let mut pool = EncryptionPool::secret(&fx.sk, &fx.pk, 3).unwrap();
    let mut sum = EncryptedSum::new(&agg, &fx.pk);
    for (i, v) in vectors.iter().enumerate() {
        let upload = if i < 3 {
            Aggregation::upload_parts_to_bytes(
                &agg.encrypt_with_pool_to_bytes(&mut pool, v).unwrap(),
            )
            .unwrap()
        } else {
            Aggregation::upload_to_bytes(&agg.encrypt(&fx.pk, v).unwrap()).unwrap()
        };
        sum.add_bytes(&upload).unwrap();
    }
    assert_eq!(sum.decrypt::<F>(&fx.sk, 30).unwrap(), plain_sum(&vectors));
    assert!(agg
        .encrypt_with_pool_to_bytes(&mut pool, &vectors[0])
        .is_err()); // used up
}

#[test]
fn pool_uploads_at_the_top_level_skip_the_transform() {
    // The real parameters (N = 32768): uploads travel at the zeros' level, so each is the
    // zero plus the message, c0 in coefficient form.
    let agg = Aggregation::new::<F>(1000).unwrap();
    let sk = helib_rs::SecKey::generate(agg.context()).unwrap();
    let pk = helib_rs::PubKey::generate(&sk).unwrap();
    let n = agg.values_per_ciphertext();
    let mut r = rng(6);
    let vectors: Vec<Vec<F>> = (0..3).map(|_| random_poly(&mut r, n)).collect();
    let mut pool = EncryptionPool::public(&pk, 3).unwrap();
    let mut sum = EncryptedSum::new(&agg, &pk);
    let mut kinds = Vec::new();
    for v in &vectors {
        let parts = agg.encrypt_with_pool_to_bytes(&mut pool, v).unwrap();
        assert_eq!(parts.len(), 1);
        kinds.push(parts[0][6]);
        sum.add_bytes(&Aggregation::upload_parts_to_bytes(&parts).unwrap())
            .unwrap();
        let ct = helib_rs::Ctxt::from_bytes(&pk, &parts[0]).unwrap();
        assert_eq!(ct.level(), agg.context().num_ctxt_primes());
        assert!(ct.noise_budget() >= agg.upload_margin_bits());
    }
    // The upload level is known before the first upload (the fresh bound is the same for
    // every message), so every upload skips the transform (kind 9, c0 in coefficient form).
    assert_eq!(kinds, vec![9, 9, 9]);
    assert_eq!(sum.decrypt::<F>(&sk, n).unwrap(), plain_sum(&vectors));
}

#[test]
fn counters_sum_exactly() {
    let (fx, agg) = setup(5);
    let counters: Vec<u64> = vec![u64::MAX, 0, 1, u64::MAX - 1];
    let mut sum = EncryptedSum::new(&agg, &fx.pk);
    for _ in 0..5 {
        let values = agg.encode_counters::<F>(&counters).unwrap();
        sum.add(&agg.encrypt(&fx.pk, &values).unwrap()).unwrap();
    }
    let expected: Vec<F> = counters.iter().map(|&c| F::from(c as u128 * 5)).collect();
    assert_eq!(sum.decrypt::<F>(&fx.sk, 4).unwrap(), expected);
}

#[test]
fn misuse_is_a_clear_error() {
    let (fx, agg) = setup(2);
    let one = agg.encrypt(&fx.pk, &[F::from(1u64)]).unwrap();
    let two = agg
        .encrypt(&fx.pk, &vec![F::from(1u64); N as usize + 1])
        .unwrap();
    let mut sum = EncryptedSum::new(&agg, &fx.pk);
    assert!(matches!(
        sum.decrypt::<F>(&fx.sk, 1),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(sum.add(&[]), Err(Error::InvalidLength(_))));
    sum.add(&one).unwrap();
    assert!(matches!(sum.add(&two), Err(Error::InvalidLength(_))));
    sum.add(&one).unwrap();
    let e = sum.add(&one).err().unwrap();
    assert!(message(&e).contains("sized for 2 users"), "{e}");
    assert!(matches!(
        sum.decrypt::<F>(&fx.sk, N as usize + 1),
        Err(Error::InvalidLength(_))
    ));

    // Bytes: truncated, trailing, a forged length.
    let bytes = Aggregation::upload_to_bytes(&one).unwrap();
    for bad in [&bytes[..3], &bytes[..bytes.len() - 1]] {
        assert!(Aggregation::upload_from_bytes(&fx.pk, bad).is_err());
    }
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(matches!(
        Aggregation::upload_from_bytes(&fx.pk, &trailing),
        Err(Error::InvalidArgument(_))
    ));
    let mut forged = bytes.clone();
    forged[4..12].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(Aggregation::upload_from_bytes(&fx.pk, &forged).is_err());
    let mut many = bytes.clone();
    many[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Aggregation::upload_from_bytes(&fx.pk, &many).is_err());

    // Another key's uploads, another context, parameters that cannot hold the sum.
    let other = new_fixture(BITS);
    assert!(matches!(
        Aggregation::upload_from_bytes(&other.pk, &bytes),
        Err(Error::Mismatch(_))
    ));
    assert!(matches!(
        agg.encrypt::<F>(&other.pk, &[]),
        Err(Error::Mismatch(_))
    ));
    let tight = common::toy_context(N, 300);
    assert!(tight.fresh_noise_budget() < 56.0);
    let e = Aggregation::with_context(&tight, 1 << 40).err().unwrap();
    assert!(message(&e).contains("cannot hold the sum"), "{e}");
    assert!(Aggregation::with_context(&fx.ctx, 0).is_err());
    assert!(Aggregation::with_context(&fx.ctx, (1 << 40) + 1).is_err());
}

#[test]
fn secure_parameters_hold_a_thousand_users() {
    let agg = Aggregation::new::<F>(1000).unwrap();
    assert!(agg.context().security_bits() >= 128.0);
    assert_eq!(agg.values_per_ciphertext(), 32768);
    assert!(agg.context().fresh_noise_budget() >= agg.upload_margin_bits());
}

/// One upload's bytes with its first ciphertext's field at `at` replaced by `value`.
fn forge(upload: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    // The upload: count (4), length (8), then the ciphertext.
    let mut bytes = upload.to_vec();
    bytes[12 + at..12 + at + value.len()].copy_from_slice(value);
    bytes
}

#[test]
fn uploads_whose_public_fields_are_out_of_range_are_refused_by_index() {
    let (fx, agg) = setup(10);
    let honest = |v: u64| {
        Aggregation::upload_to_bytes(&agg.encrypt(&fx.pk, &[F::from(v)]).unwrap()).unwrap()
    };
    let mut sum = EncryptedSum::new(&agg, &fx.pk);
    sum.add_bytes(&honest(1)).unwrap();
    sum.add_bytes(&honest(2)).unwrap();

    let upload = honest(3);
    // Fields after the 16-byte header: key id (8), level (4), noise bound (8), factor (32).
    let exhausted = forge(&upload, 28, &1e6f64.to_le_bytes());
    let noisier = forge(
        &upload,
        28,
        &(sum.ciphertexts()[0].log2_noise_bound() + 1.0).to_le_bytes(),
    );
    let mut factor = [0u8; 32];
    factor[0] = 3;
    let scaled = forge(&upload, 36, &factor);
    let other_key = {
        let other = new_fixture(BITS);
        let agg2 = Aggregation::with_context(&other.ctx, 10).unwrap();
        Aggregation::upload_to_bytes(&agg2.encrypt(&other.pk, &[F::from(3u64)]).unwrap()).unwrap()
    };
    let fresh_level =
        Aggregation::upload_to_bytes(&[fx.pk.encrypt_poly(&[F::from(3u64)]).unwrap()]).unwrap();
    let two_parts = Aggregation::upload_to_bytes(
        &agg.encrypt(&fx.pk, &vec![F::from(1u64); 2 * N as usize])
            .unwrap(),
    )
    .unwrap();
    for (what, bad) in [
        ("an exhausted noise bound", exhausted),
        ("a noise bound above an honest upload's", noisier),
        ("a plaintext factor of 3", scaled),
        ("another key", other_key),
        ("the fresh level", fresh_level),
        ("two ciphertexts", two_parts),
        ("a truncated upload", upload[..upload.len() - 8].to_vec()),
        ("a trailing byte", [upload.clone(), vec![0]].concat()),
    ] {
        let e = sum.add_bytes(&bad).expect_err(what);
        assert!(
            matches!(
                &e,
                Error::RefusedUpload {
                    index: 2,
                    file: None,
                    ..
                }
            ),
            "{what}: {e}"
        );
        assert_eq!(sum.users(), 2, "{what} was added");
    }
    sum.add_bytes(&upload).unwrap();
    assert_eq!(sum.decrypt::<F>(&fx.sk, 1).unwrap(), vec![F::from(6u64)]);
}

#[test]
fn an_upload_that_hides_its_noise_makes_the_sum_an_error_not_a_wrong_sum() {
    let (fx, agg) = setup(10);
    let mut sum = EncryptedSum::new(&agg, &fx.pk);
    sum.add(&agg.encrypt(&fx.pk, &[F::from(5u64)]).unwrap())
        .unwrap();
    // Honest fields over rows of a ciphertext far noisier than they say: c0 replaced by c1.
    let ct = agg.encrypt(&fx.pk, &[F::from(7u64)]).unwrap().remove(0);
    let mut bytes = ct.to_bytes().unwrap();
    let rows = (bytes.len() - 68) / 2;
    let (head, c1) = bytes.split_at_mut(68 + rows);
    head[68..].copy_from_slice(c1);
    let forged = Aggregation::upload_parts_to_bytes(&[bytes]).unwrap();
    sum.add_bytes(&forged).unwrap(); // its public fields are an honest upload's
    assert!(matches!(
        sum.decrypt::<F>(&fx.sk, 1),
        Err(Error::NoiseBudgetExhausted(m)) if m.contains("hid")
    ));
}
