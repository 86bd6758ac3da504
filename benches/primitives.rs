//! Timings of the primitive operations at 128-bit secure BN254 parameters (N = 32768,
//! 13 x 60-bit chain primes, one special prime, 13 key-switching digits).
//!
//!     cargo bench --bench primitives
//!
//! Each operation runs on a fresh copy of its input ciphertext, outside the timed region.

use std::hint::black_box;
use std::time::Duration;

use ark_bn254::Fr;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use helib_rs::{Context, PubKey, SecKey};

fn secure_context() -> Context {
    match Context::builder()
        .m(65536)
        .plaintext_field::<Fr>()
        .ciphertext_bits(760)
        .ks_digits(13)
        .build()
    {
        Ok(ctx) => ctx,
        Err(e) => panic!("benchmark context: {e}"),
    }
}

fn primitives(c: &mut Criterion) {
    let ctx = secure_context();
    let n = ctx.ring_degree();
    let mut rng = StdRng::seed_from_u64(1);
    let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let k = Fr::rand(&mut rng);

    let mut group = c.benchmark_group(format!("bn254_n{n}"));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));

    group.bench_function("keygen_secret", |bench| {
        bench.iter(|| SecKey::generate(&ctx).map(black_box))
    });
    let sk = SecKey::generate(&ctx).expect("secret key");
    group.bench_function("keygen_public_and_relin", |bench| {
        bench.iter(|| PubKey::generate(&sk).map(black_box))
    });
    let pk = PubKey::generate(&sk).expect("public key");
    let ca = pk.encrypt_poly(&a).expect("encrypt");
    let cb = pk.encrypt_poly(&b).expect("encrypt");

    group.bench_function("encrypt_poly", |bench| {
        bench.iter(|| pk.encrypt_poly(black_box(&a)))
    });
    group.bench_function("decrypt_poly", |bench| {
        bench.iter(|| sk.decrypt_poly::<Fr>(black_box(&ca)))
    });
    group.bench_function("add", |bench| {
        bench.iter_batched(
            || ca.clone(),
            |mut x| x.add_assign(&cb).map(|_| x),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("mul_const", |bench| {
        bench.iter_batched(
            || ca.clone(),
            |mut x| x.mul_const(k).map(|_| x),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("mul_poly", |bench| {
        bench.iter_batched(
            || ca.clone(),
            |mut x| x.mul_poly(&b).map(|_| x),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("mul_ct_ct", |bench| {
        bench.iter_batched(
            || ca.clone(),
            |mut x| x.mul_assign(&cb).map(|_| x),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("square", |bench| {
        bench.iter_batched(
            || ca.clone(),
            |mut x| x.square().map(|_| x),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("mod_switch_down", |bench| {
        bench.iter_batched(
            || ca.clone(),
            |mut x| x.mod_switch_down().map(|_| x),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, primitives);
criterion_main!(benches);
