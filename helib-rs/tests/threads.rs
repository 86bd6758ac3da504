//! Contexts, keys and ciphertexts are Send + Sync and work from several threads at once.

mod common;

use common::*;
use helib_rs::{Context, Ctxt, PubKey, SecKey};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn public_types_are_send_and_sync() {
    assert_send_sync::<Context>();
    assert_send_sync::<SecKey>();
    assert_send_sync::<PubKey>();
    assert_send_sync::<Ctxt>();
    assert_send_sync::<helib_rs::Error>();
}

#[test]
fn concurrent_encryption_and_computation_with_shared_keys() {
    let fx = fixture();
    let n = fx.ctx.ring_degree();
    let results: Vec<(Ctxt, Vec<F>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4u64)
            .map(|t| {
                s.spawn(move || {
                    let mut rng = rng(40 + t);
                    let a = random_poly(&mut rng, n);
                    let b = random_poly(&mut rng, n);
                    let ca = fx.pk.encrypt_poly(&a).expect("encrypt");
                    let cb = fx.pk.encrypt_poly(&b).expect("encrypt");
                    let prod = (&ca * &cb).expect("mul");
                    // Decrypt on this thread too, with the shared secret key.
                    let expected = negacyclic_mul(&a, &b, n);
                    assert_decrypts_to(&fx.sk, &prod, &expected, &format!("thread {t}"));
                    (prod, expected)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker thread"))
            .collect()
    });
    // Ciphertexts made on other threads decrypt here (Send).
    for (ct, expected) in &results {
        assert_decrypts_to(&fx.sk, ct, expected, "back on the main thread");
    }
}

#[test]
fn a_shared_ciphertext_is_read_concurrently() {
    let fx = fixture();
    let mut rng = rng(50);
    let a = random_poly(&mut rng, fx.ctx.ring_degree());
    let shared = fx.pk.encrypt_poly(&a).expect("encrypt");
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let shared = &shared;
            let a = &a;
            s.spawn(move || {
                let k = F::from(t + 2);
                let mut mine = shared.try_clone().expect("clone");
                mine.mul_const(k).expect("mul_const");
                assert_decrypts_to(&fx.sk, &mine, &scale(a, k), &format!("thread {t}"));
                assert_decrypts_to(&fx.sk, shared, a, "shared original");
            });
        }
    });
}

#[test]
fn keys_outlive_the_thread_that_made_them() {
    // Everything is created on a worker and used after it ends: the Arcs keep the engine
    // objects alive.
    let (pk, sk) = std::thread::spawn(|| {
        let ctx = small_context(CIPHERTEXT_BITS);
        let sk = SecKey::generate(&ctx).expect("key");
        let pk = PubKey::generate(&sk).expect("key");
        (pk, sk)
    })
    .join()
    .expect("worker");
    let ct = pk.encrypt_const(F::from(42u64)).expect("encrypt");
    drop(pk);
    assert_eq!(sk.decrypt_const::<F>(&ct).expect("decrypt"), F::from(42u64));
    let mut ct = ct;
    ct.square()
        .expect("square still has its relinearization key");
    assert_eq!(
        sk.decrypt_const::<F>(&ct).expect("decrypt"),
        F::from(42u64 * 42)
    );
}
