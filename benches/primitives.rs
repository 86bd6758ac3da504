//! Timings of the primitive operations at 128-bit secure BN254 parameters, single thread:
//! N = 32768 with a 550-bit ciphertext modulus (one plaintext-multiplication level), and
//! N = 65536 with an 850-bit modulus (the size the reference prototype used), both with
//! 3 key-switching digits.
//!
//!     cargo bench --bench primitives
//!     BENCH_RINGS=65536 cargo bench --bench primitives     # one ring degree only
//!     BENCH_KS_DIGITS=4 cargo bench --bench primitives     # another key-switching digit count
//!
//! Each operation runs on a fresh copy of its input ciphertext, outside the timed region.
//! `encode`/`decode` are the slot transform over F_p, `encode_and_convert` adds the conversion
//! to the engine's NTT form (an `EncodedPtxt`), `mul_ptxt_encoded` multiplies by one.
//! Rotations: `rotate` is one row rotation by 1 in place, `rotate_hoisted_16` the 16 rotations
//! by 1..=16 of one ciphertext sharing a decomposition (16 new ciphertexts), and
//! `rotate_hoisted_1` the same call with the first step only, so that each rotation after the
//! first in a hoisted batch costs `(hoisted_16 - hoisted_1) / 15`; `galois_keygen` is the
//! generation of one Galois key.

use std::hint::black_box;
use std::time::Duration;

use ark_bn254::Fr;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use helib_rs::{BatchEncoder, Context, EncodedPtxt, GaloisKeys, GaloisSteps, PubKey, SecKey};

/// (ring degree, ciphertext-modulus bits) pairs to measure.
const CONFIGS: [(u64, u32); 2] = [(32768, 550), (65536, 850)];

/// Key-switching digits: 3, or `BENCH_KS_DIGITS`.
fn ks_digits() -> u32 {
    std::env::var("BENCH_KS_DIGITS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(3)
}

fn builder(ring_degree: u64, bits: u32) -> helib_rs::ContextBuilder {
    Context::builder()
        .ring_degree(ring_degree)
        .plaintext_field::<Fr>()
        .ciphertext_bits(bits)
        .ks_digits(ks_digits())
}

fn secure_context(ring_degree: u64, bits: u32) -> Context {
    match builder(ring_degree, bits).build() {
        Ok(ctx) => ctx,
        Err(e) => panic!("benchmark context: {e}"),
    }
}

fn selected(ring_degree: u64) -> bool {
    match std::env::var("BENCH_RINGS") {
        Ok(list) => list.split(',').any(|s| s.trim() == ring_degree.to_string()),
        Err(_) => true,
    }
}

fn primitives(c: &mut Criterion) {
    // Freed buffers are reused instead of page-faulted in again (see `retain_freed_memory`).
    helib_rs::retain_freed_memory().expect("glibc allocator");
    for (ring_degree, bits) in CONFIGS {
        if selected(ring_degree) {
            primitives_at(c, ring_degree, bits);
        }
    }
}

fn primitives_at(c: &mut Criterion, ring_degree: u64, bits: u32) {
    let ctx = secure_context(ring_degree, bits);
    let n = ctx.ring_degree();
    let mut rng = StdRng::seed_from_u64(1);
    let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let k = Fr::rand(&mut rng);

    let mut group = c.benchmark_group(format!("bn254_n{n}_q{bits}"));
    // Throughput in slots, so criterion also reports elements per second.
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));

    group.bench_function("context_build", |bench| {
        bench.iter(|| builder(ring_degree, bits).build().map(black_box))
    });

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

    let encoder = BatchEncoder::<Fr>::for_context(&ctx).expect("encoder");
    group.bench_function("encode", |bench| {
        bench.iter(|| encoder.encode(black_box(&a)))
    });
    let coeffs = encoder.encode(&a).expect("encode");
    group.bench_function("decode", |bench| {
        bench.iter(|| encoder.decode(black_box(&coeffs)))
    });
    group.bench_function("encode_and_convert", |bench| {
        bench.iter(|| EncodedPtxt::from_slots(&ctx, &encoder, black_box(&b), None))
    });
    let pt = EncodedPtxt::from_slots(&ctx, &encoder, &b, None).expect("encoded plaintext");
    group.bench_function("mul_ptxt_encoded", |bench| {
        bench.iter_batched(
            || ca.clone(),
            |mut x| x.mul_ptxt(&pt).map(|_| x),
            BatchSize::LargeInput,
        )
    });

    group.bench_function("galois_keygen", |bench| {
        let one = GaloisSteps::new().step(1);
        bench.iter(|| GaloisKeys::generate(&sk, black_box(&one)).map(black_box))
    });
    let steps: Vec<i64> = (1..=16).collect();
    let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().steps(steps.iter().copied()))
        .expect("Galois keys");
    group.bench_function("rotate", |bench| {
        bench.iter_batched(
            || ca.clone(),
            |mut x| x.rotate_rows(1, &gk).map(|_| x),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("rotate_hoisted_1", |bench| {
        bench.iter(|| ca.rotate_rows_many(black_box(&steps[..1]), &gk))
    });
    group.bench_function("rotate_hoisted_16", |bench| {
        bench.iter(|| ca.rotate_rows_many(black_box(&steps), &gk))
    });
    group.finish();
}

criterion_group!(benches, primitives);
criterion_main!(benches);
