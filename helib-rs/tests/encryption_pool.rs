//! Offline/online encryption: every zero of a pool is fresh, used once, and decrypts exactly;
//! an empty pool, a pool of another key and damaged pool bytes are errors.

use std::time::Instant;

use ark_bn254::Fr;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use helib_rs::{BatchEncoder, Context, Ctxt, EncryptionPool, Error, PoolFile, PubKey, SecKey};

fn toy() -> (Context, SecKey, PubKey) {
    let ctx = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<Fr>()
        .ciphertext_bits(600)
        .allow_insecure(true)
        .build()
        .expect("context");
    let sk = SecKey::generate(&ctx).expect("secret key");
    let pk = PubKey::generate(&sk).expect("public key");
    (ctx, sk, pk)
}

#[test]
fn every_zero_is_fresh_and_decrypts_exactly() {
    let (ctx, sk, pk) = toy();
    let enc = BatchEncoder::<Fr>::for_context(&ctx).unwrap();
    let mut rng = StdRng::seed_from_u64(1);
    for mut pool in [
        EncryptionPool::public(&pk, 6).unwrap(),
        EncryptionPool::secret(&sk, &pk, 6).unwrap(),
    ] {
        let x: Vec<Fr> = (0..2048).map(|_| Fr::rand(&mut rng)).collect();
        let mut seen = Vec::new();
        while !pool.is_empty() {
            // In memory and straight to bytes, in turn.
            let ct = if pool.len() % 2 == 0 {
                pool.encrypt_slots(&enc, &x).unwrap()
            } else {
                let bytes = pool.encrypt_slots_to_bytes(&enc, &x).unwrap();
                Ctxt::from_bytes(&pk, &bytes).unwrap()
            };
            assert_eq!(sk.decrypt_slots(&enc, &ct).unwrap(), x);
            // Same message, so equal bytes would mean reused randomness.
            let bytes = ct.to_bytes().unwrap();
            assert!(
                !seen.contains(&bytes),
                "two ciphertexts share their randomness"
            );
            seen.push(bytes);
        }
        assert_eq!(seen.len(), 6);
        assert!(matches!(
            pool.encrypt_slots(&enc, &x),
            Err(Error::InvalidArgument(m)) if m.contains("empty")
        ));
    }
}

#[test]
fn online_bytes_are_a_ciphertext_with_c0_in_coefficient_form() {
    let (_ctx, sk, pk) = toy();
    let mut rng = StdRng::seed_from_u64(2);
    let coeffs: Vec<Fr> = (0..2048).map(|_| Fr::rand(&mut rng)).collect();
    let mut pool = EncryptionPool::public(&pk, 2).unwrap();
    let bytes = pool.encrypt_poly_to_bytes(&coeffs).unwrap();
    assert_eq!(&bytes[6..8], &9u16.to_le_bytes()); // the object kind
    let ct = Ctxt::from_bytes(&pk, &bytes).unwrap();
    assert_eq!(sk.decrypt_poly::<Fr>(&ct).unwrap(), coeffs);
    // The same size as the ciphertext in NTT form, and a fresh encryption's noise.
    assert_eq!(ct.to_bytes().unwrap().len(), bytes.len());
    let fresh = pk.encrypt_poly(&coeffs).unwrap();
    assert!((ct.noise_budget() - fresh.noise_budget()).abs() < 1.0);
    // A message that does not fit is refused before the zero is touched: it stays.
    let too_long = vec![Fr::from(1u64); 2049];
    assert!(pool.encrypt_poly_to_bytes(&too_long).is_err());
    assert_eq!(pool.len(), 1);
    let ct = Ctxt::from_bytes(&pk, &pool.encrypt_poly_to_bytes(&coeffs[..3]).unwrap()).unwrap();
    assert_eq!(
        &sk.decrypt_poly::<Fr>(&ct).unwrap()[..4],
        &[coeffs[0], coeffs[1], coeffs[2], Fr::from(0u64)]
    );
}

#[test]
fn online_and_fresh_encryption_timed() {
    let (ctx, sk, pk) = toy();
    let enc = BatchEncoder::<Fr>::for_context(&ctx).unwrap();
    let x: Vec<Fr> = (0..2048u64).map(Fr::from).collect();
    let rounds = 20;
    let mut pool = EncryptionPool::public(&pk, rounds).unwrap();
    let t = Instant::now();
    for _ in 0..rounds {
        pk.encrypt_slots(&enc, &x).unwrap();
    }
    let fresh = t.elapsed();
    let t = Instant::now();
    for _ in 0..rounds {
        pool.encrypt_slots(&enc, &x).unwrap();
    }
    let online = t.elapsed();
    println!(
        "N = 2048: fresh public-key encryption {:.3} ms, online from the pool {:.3} ms",
        fresh.as_secs_f64() * 1e3 / rounds as f64,
        online.as_secs_f64() * 1e3 / rounds as f64
    );
    let ct = EncryptionPool::public(&pk, 1)
        .unwrap()
        .encrypt_slots(&enc, &x)
        .unwrap();
    assert_eq!(sk.decrypt_slots(&enc, &ct).unwrap(), x);
}

#[test]
fn pool_bytes_round_trip_and_are_validated() {
    let (ctx, sk, pk) = toy();
    let enc = BatchEncoder::<Fr>::for_context(&ctx).unwrap();
    let bytes = EncryptionPool::secret(&sk, &pk, 3)
        .unwrap()
        .into_bytes()
        .unwrap();
    let mut pool = EncryptionPool::from_bytes(&pk, &bytes).unwrap();
    assert_eq!(pool.len(), 3);
    let x: Vec<Fr> = (1..=3u64).map(Fr::from).collect();
    let ct = pool.encrypt_slots(&enc, &x).unwrap();
    assert_eq!(&sk.decrypt_slots(&enc, &ct).unwrap()[..3], &x[..]);

    for bad in [
        bytes[..bytes.len() - 1].to_vec(),  // truncated
        [bytes.to_vec(), vec![0]].concat(), // trailing byte
        [u64::MAX.to_le_bytes().to_vec(), bytes[8..].to_vec()].concat(), // forged count
        vec![],
    ] {
        assert!(matches!(
            EncryptionPool::from_bytes(&pk, &bad),
            Err(Error::InvalidArgument(_))
        ));
    }
    // A ciphertext in NTT form is not a zero of the pool's form.
    let full = pk.encrypt_poly::<Fr>(&[]).unwrap().to_bytes().unwrap();
    let forged = [
        1u64.to_le_bytes().to_vec(),
        (full.len() as u64).to_le_bytes().to_vec(),
        full,
    ]
    .concat();
    assert!(matches!(
        EncryptionPool::from_bytes(&pk, &forged),
        Err(Error::InvalidArgument(m)) if m.contains("pool's form")
    ));
    // Zeros under another key are refused.
    let sk2 = SecKey::generate(&ctx).unwrap();
    let pk2 = PubKey::generate(&sk2).unwrap();
    assert!(EncryptionPool::from_bytes(&pk2, &bytes).is_err());
    assert!(EncryptionPool::public(&pk, helib_rs::MAX_POOL_SIZE + 1).is_err());
}

/// The pool's byte form: a count, then each zero with its length.
fn pool_bytes(zeros: &[&[u8]]) -> Vec<u8> {
    let mut out = (zeros.len() as u64).to_le_bytes().to_vec();
    for z in zeros {
        out.extend_from_slice(&(z.len() as u64).to_le_bytes());
        out.extend_from_slice(z);
    }
    out
}

/// `(count, [(offset, len)])` of a pool's bytes.
fn entries(bytes: &[u8]) -> Vec<&[u8]> {
    let count = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut at = 8;
    (0..count)
        .map(|_| {
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            at += 8 + len;
            &bytes[at - len..at]
        })
        .collect()
}

#[test]
fn a_zero_is_loaded_once_per_process() {
    let (_, sk, pk) = toy();
    let bytes = EncryptionPool::secret(&sk, &pk, 2)
        .unwrap()
        .into_bytes()
        .unwrap();
    let zeros = entries(&bytes);
    // One zero listed twice: two online encryptions would share c1 and subtract to m1 - m2.
    let twice = pool_bytes(&[zeros[0], zeros[1], zeros[0]]);
    assert!(matches!(
        EncryptionPool::from_bytes(&pk, &twice),
        Err(Error::InvalidArgument(m)) if m.contains("twice")
    ));
    // The refused bytes claimed nothing: the pool itself still loads, once.
    let mut pool = EncryptionPool::from_bytes(&pk, &bytes).unwrap();
    assert_eq!(pool.len(), 2);
    let again = EncryptionPool::from_bytes(&pk, &bytes);
    assert!(
        matches!(&again, Err(Error::InvalidArgument(m)) if m.contains("already loaded")),
        "{:?}",
        again.err()
    );
    // Nor after its zeros were used, nor one of them alone.
    pool.encrypt_poly(&[Fr::from(1u64)]).unwrap();
    pool.encrypt_poly(&[Fr::from(2u64)]).unwrap();
    assert!(EncryptionPool::from_bytes(&pk, &bytes).is_err());
    assert!(EncryptionPool::from_bytes(&pk, &pool_bytes(&[zeros[1]])).is_err());
}

/// A directory removed when dropped (std only: this test binary also runs under the
/// sanitizers, whose runtime must come first among the libraries it loads).
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A pool file's path in a fresh directory, removed with the returned guard.
fn temp_path(tag: &str) -> (TempDir, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("helib-pool-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pool.bin");
    (TempDir(dir), path)
}

#[test]
fn a_pool_file_removes_each_zero_before_its_ciphertext_is_returned() {
    let (ctx, sk, pk) = toy();
    let enc = BatchEncoder::<Fr>::for_context(&ctx).unwrap();
    let (_dir, path) = temp_path("consume");
    let mut pool = PoolFile::create(&path, EncryptionPool::public(&pk, 3).unwrap()).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let full = std::fs::read(&path).unwrap();
    let zeros: Vec<Vec<u8>> = entries(&full).into_iter().map(<[u8]>::to_vec).collect();
    assert!(PoolFile::create(&path, EncryptionPool::public(&pk, 1).unwrap()).is_err());

    // A message the engine refuses (too many values) leaves the zero where it was.
    assert!(pool.encrypt_poly(&vec![Fr::from(1u64); 4096]).is_err());
    assert_eq!(pool.len(), 3);
    assert_eq!(std::fs::read(&path).unwrap(), full);

    let x: Vec<Fr> = (1..=5u64).map(Fr::from).collect();
    for left in (0..3).rev() {
        let ct = pool.encrypt_slots(&enc, &x).unwrap();
        assert_eq!(&sk.decrypt_slots(&enc, &ct).unwrap()[..5], &x[..]);
        // On disk by now: the count lowered, the zero's bytes gone.
        let now = std::fs::read(&path).unwrap();
        assert_eq!(u64::from_le_bytes(now[..8].try_into().unwrap()), left);
        let kept: Vec<&[u8]> = entries(&now);
        assert_eq!(kept.len(), left as usize);
        for (k, z) in kept.iter().enumerate() {
            assert_eq!(*z, &zeros[k][..]);
        }
        assert_eq!(pool.len(), left as usize);
    }
    assert!(matches!(
        pool.encrypt_slots(&enc, &x),
        Err(Error::InvalidArgument(m)) if m.contains("empty")
    ));
    std::fs::remove_file(&path).ok();
}

#[test]
fn a_pool_file_has_one_user_and_survives_a_crash() {
    let (_, sk, pk) = toy();
    let (_dir, path) = temp_path("lock");
    let bytes = EncryptionPool::secret(&sk, &pk, 3)
        .unwrap()
        .into_bytes()
        .unwrap();
    let zeros = entries(&bytes);
    // A crash after the count was lowered to 1 and before the two zeros past it were cut off.
    let mut crashed = pool_bytes(&zeros[..1]);
    crashed.extend_from_slice(&pool_bytes(&zeros[1..])[8..]);
    std::fs::write(&path, &crashed).unwrap();

    // Another holder of the file (another process, as far as the lock can tell).
    let other = std::fs::File::open(&path).unwrap();
    other.lock().unwrap();
    assert!(matches!(
        PoolFile::open(&pk, &path),
        Err(Error::InvalidArgument(m)) if m.contains("open elsewhere")
    ));
    drop(other);

    let mut pool = PoolFile::open(&pk, &path).unwrap();
    assert_eq!(pool.len(), 1, "the zeros past the count were spent");
    let on_disk = std::fs::read(&path).unwrap();
    assert_eq!(on_disk, pool_bytes(&zeros[..1]), "and wiped off the file");
    // Open: a second open in this process is refused by the lock.
    assert!(PoolFile::open(&pk, &path).is_err());
    let ct = pool.encrypt_poly(&[Fr::from(9u64)]).unwrap();
    assert_eq!(sk.decrypt_poly::<Fr>(&ct).unwrap()[0], Fr::from(9u64));
    drop(pool);
    // Closed and empty; the spent zeros cannot come back through the bytes either.
    assert!(EncryptionPool::from_bytes(&pk, &pool_bytes(&zeros[2..])).is_err());
    // A count beyond the entries is corrupt, not a pool.
    let mut short = pool_bytes(&zeros[..1]);
    short[..8].copy_from_slice(&2u64.to_le_bytes());
    let (_dir2, path2) = temp_path("short");
    std::fs::write(&path2, &short).unwrap();
    assert!(matches!(
        PoolFile::open(&pk, &path2),
        Err(Error::InvalidArgument(m)) if m.contains("truncated")
    ));
    // An entry longer than any ciphertext of the context: refused before it is read.
    let max = pk
        .context()
        .max_serialized_len(helib_rs::ObjectKind::Ciphertext)
        .unwrap();
    let long = vec![0u8; max as usize + 1];
    std::fs::write(&path2, pool_bytes(&[&long[..]])).unwrap();
    assert!(matches!(
        PoolFile::open(&pk, &path2),
        Err(Error::InvalidArgument(m)) if m.contains("longer than any ciphertext")
    ));
    std::fs::remove_file(&path).ok();
    std::fs::remove_file(&path2).ok();
}
