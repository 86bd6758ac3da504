//! The most bytes each object can take, and reads that stop there: every honest object fits
//! its bound, anything longer is refused after a bounded read, and a forged context costs a
//! prime search, not its tables.

mod common;

use std::path::PathBuf;

use common::*;
use helib_rs::{
    read_at_most, read_file_at_most, Context, Error, GaloisKeys, GaloisSteps, MasterKeys,
    ObjectKind, SecKey, MAX_CONTEXT_BYTES,
};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("size-limits-{}-{name}", std::process::id()))
}

#[test]
fn every_honest_object_fits_its_bound() {
    let fx = fixture();
    let ctx = &fx.ctx;
    let max = |kind| ctx.max_serialized_len(kind).expect("bound");
    let len = |bytes: Vec<u8>| bytes.len() as u64;

    assert!(len(ctx.to_bytes().unwrap()) <= MAX_CONTEXT_BYTES);
    assert_eq!(max(ObjectKind::Context), MAX_CONTEXT_BYTES);
    // Exact where the size is fixed by the context.
    assert_eq!(
        len(fx.sk.to_bytes().unwrap().to_vec()),
        max(ObjectKind::SecretKey)
    );
    assert_eq!(len(fx.pk.to_bytes().unwrap()), max(ObjectKind::PublicKey));
    assert_eq!(
        len(fx.pk.to_bytes_without_relinearization().unwrap()),
        max(ObjectKind::EncryptionKey)
    );
    let mut rng = rng(3);
    let fresh = fx.pk.encrypt_poly(&random_poly(&mut rng, 16)).unwrap();
    assert_eq!(len(fresh.to_bytes().unwrap()), max(ObjectKind::Ciphertext));
    assert!(
        len(fx
            .sk
            .encrypt_poly_to_bytes(&random_poly(&mut rng, 16))
            .unwrap())
            < max(ObjectKind::Ciphertext)
    );
    let steps = GaloisSteps::new().step(1).step(2).step(-5).row_swap();
    let gk = GaloisKeys::generate(&fx.sk, &steps).unwrap();
    assert_eq!(steps.max_keys(), 4);
    assert_eq!(len(gk.to_bytes().unwrap()), max(ObjectKind::GaloisKeys(4)));
    assert!(max(ObjectKind::GaloisKeys(3)) < max(ObjectKind::GaloisKeys(4)));
    // More keys than the ring has elements is no bound at all.
    let over = ctx.max_serialized_len(ObjectKind::GaloisKeys(ctx.ring_degree() + 1));
    assert!(matches!(over, Err(Error::InvalidArgument(_))), "{over:?}");

    let derivable = Context::builder()
        .ring_degree(2048)
        .plaintext_field::<F>()
        .ciphertext_bits(900)
        .derivable_keys(true)
        .allow_insecure(true)
        .build()
        .unwrap();
    let sk = SecKey::generate(&derivable).unwrap();
    let masters = MasterKeys::generate(&sk).unwrap();
    let count = MasterKeys::default_steps(&derivable).max_keys();
    assert_eq!(masters.elements().len(), count);
    let bytes = masters.to_bytes().unwrap();
    assert!(
        len(bytes)
            <= derivable
                .max_serialized_len(ObjectKind::MasterKeys(count))
                .unwrap()
    );
}

#[test]
fn reads_stop_at_their_bound() {
    let path = temp("bound");
    std::fs::write(&path, vec![7u8; 100]).unwrap();
    assert_eq!(read_file_at_most(&path, 100).unwrap().len(), 100);
    let err = read_file_at_most(&path, 99).unwrap_err();
    assert!(matches!(err, Error::InvalidLength(_)), "{err:?}");
    assert!(
        err.to_string().contains("size-limits-"),
        "the file is named: {err}"
    );
    std::fs::remove_file(&path).unwrap();
    let missing = read_file_at_most(&path, 99).unwrap_err();
    assert!(matches!(missing, Error::Io(_)), "{missing:?}");
    // A stream that never ends: refused after max + 1 bytes.
    let endless = std::io::repeat(1);
    assert!(matches!(
        read_at_most(endless, 1 << 20),
        Err(Error::InvalidLength(_))
    ));
    #[cfg(unix)]
    assert!(matches!(
        read_file_at_most(std::path::Path::new("/dev/zero"), 1 << 20),
        Err(Error::InvalidLength(_))
    ));
}

#[test]
fn key_set_files_are_read_no_further_than_their_count_allows() {
    let fx = fixture();
    let ctx = &fx.ctx;
    let gk = GaloisKeys::generate(&fx.sk, &GaloisSteps::new().step(1).step(3)).unwrap();
    let honest = gk.to_bytes().unwrap();
    let path = temp("keys");
    std::fs::write(&path, &honest).unwrap();
    assert_eq!(ctx.read_key_set_file(&path).unwrap(), honest);
    let back = GaloisKeys::from_bytes(ctx, &ctx.read_key_set_file(&path).unwrap()).unwrap();
    assert_eq!(back.elements(), gk.elements());

    // Bytes past what two keys can take.
    let mut long = honest.clone();
    long.extend(std::iter::repeat_n(0u8, honest.len()));
    std::fs::write(&path, &long).unwrap();
    assert!(matches!(
        ctx.read_key_set_file(&path),
        Err(Error::InvalidLength(_))
    ));
    // A count beyond the ring, another kind, a file shorter than its head.
    let mut forged = honest.clone();
    forged[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&path, &forged).unwrap();
    let err = ctx.read_key_set_file(&path).unwrap_err();
    assert!(err.to_string().contains("keys announced"), "{err}");
    std::fs::write(&path, fx.pk.to_bytes().unwrap()).unwrap();
    let err = ctx.read_key_set_file(&path).unwrap_err();
    assert!(err.to_string().contains("not a key set"), "{err}");
    std::fs::write(&path, &honest[..20]).unwrap();
    let err = ctx.read_key_set_file(&path).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_forged_context_costs_a_prime_search_not_its_tables() {
    // The largest ring and modulus, with the opt-out, and the small context's fingerprint: the
    // fingerprint is compared once the primes are chosen, before gigabytes of tables.
    let mut bytes = small_context(400).to_bytes().unwrap();
    bytes[16..24].copy_from_slice(&(1u64 << 20).to_le_bytes());
    bytes[24..28].copy_from_slice(&3600u32.to_le_bytes());
    let before = helib_rs::peak_rss_bytes();
    let start = std::time::Instant::now();
    let err = Context::from_bytes_allow_insecure(&bytes).expect_err("forged");
    assert!(err.to_string().contains("corrupted or forged"), "{err}");
    let grew = helib_rs::peak_rss_bytes().saturating_sub(before);
    // The tables alone would take over 3 GB; other tests of this binary run alongside, so
    // the bound is loose.
    assert!(grew < 1 << 30, "peak memory grew by {grew} bytes");
    eprintln!("refused in {:?}, peak grew {grew} bytes", start.elapsed());
}
