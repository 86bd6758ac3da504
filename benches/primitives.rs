//! Timings of the primitive operations at 128-bit secure BN254 parameters, single thread:
//! N = 32768 with a 550-bit ciphertext modulus (one plaintext-multiplication level), and
//! N = 65536 with an 850-bit modulus (the size the reference prototype used), both with
//! 3 key-switching digits.
//!
//!     cargo bench --bench primitives
//!     BENCH_RINGS=65536 cargo bench --bench primitives     # one ring degree only
//!     BENCH_KS_DIGITS=4 cargo bench --bench primitives     # another key-switching digit count
//!
//! One criterion group per operation, named after it, holding one benchmark per ring size
//! (`bn254_n{N}_q{bits}`), with throughput in slots: criterion reports both sizes side by side,
//! also as elements per second. Each operation runs on a fresh copy of its input ciphertext,
//! outside the timed region.
//! `encrypt_poly`/`decrypt_poly` take and give coefficients, `encrypt_slots`/`decrypt_slots`
//! slot values (the encoder's transform included).
//! `encode`/`decode` are the slot transform over F_p, `encode_and_convert` adds the conversion
//! to the engine's NTT form (an `EncodedPtxt`), `mul_ptxt_encoded` multiplies by one.
//! Rotations: `rotate` is one row rotation by 1 in place, `rotate_hoisted_16` the 16 rotations
//! by 1..=16 of one ciphertext sharing a decomposition (16 new ciphertexts), and
//! `rotate_hoisted_1` the same call with the first step only (which the engine runs as one
//! streamed, out-of-place rotation, 2-5% faster than a batch's decomposition plus one key
//! product), so that each rotation after the first in a hoisted batch costs at most
//! `(hoisted_16 - hoisted_1) / 15`; `galois_keygen` is the
//! generation of one Galois key. `rotated_inner_product_16` is `sum_k w_k * rot(x, k)` for
//! k = 1..=16 under one mod-down (`Ctxt::rotated_inner_product`, extended plaintexts),
//! `rotated_inner_product_1` its first term alone, and `rotate_hoisted_16_then_inner_product`
//! the same sum from 16 hoisted rotations and `Ctxt::inner_product`.
//! Serialization: `ctxt_to_bytes` / `ctxt_from_bytes` (a fresh ciphertext, validated on
//! reading) and `galois_key_to_bytes` / `galois_key_from_bytes` (one key; reading validates
//! and expands the seeded half again). The data owner's upload: `encrypt_poly_then_to_bytes`
//! (public-key encryption, then its bytes) against `encrypt_poly_secret_key_to_bytes` (the
//! seeded secret-key form), and `ctxt_from_seeded_bytes` reading the latter.

use std::hint::black_box;
use std::time::Duration;

use ark_bn254::Fr;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use criterion::{
    criterion_group, criterion_main, BatchSize, Bencher, BenchmarkId, Criterion, Throughput,
};
use helib_rs::{BatchEncoder, Context, Ctxt, EncodedPtxt, GaloisKeys, GaloisSteps, PubKey, SecKey};

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

/// Everything the benchmarks of one ring size read: keys, inputs and their encodings.
struct Fixture {
    ring_degree: u64,
    bits: u32,
    ctx: Context,
    a: Vec<Fr>,
    b: Vec<Fr>,
    k: Fr,
    sk: SecKey,
    pk: PubKey,
    ca: Ctxt,
    cb: Ctxt,
    encoder: BatchEncoder<Fr>,
    coeffs: Vec<Fr>,
    pt: EncodedPtxt,
    steps: Vec<i64>,
    /// One extended plaintext per step, for the rotated inner products.
    weights: Vec<EncodedPtxt>,
    gk: GaloisKeys,
    /// One key (rotation by 1) and the byte forms the deserialization benchmarks read.
    gk1: GaloisKeys,
    gk1_bytes: Vec<u8>,
    ca_bytes: Vec<u8>,
    /// `a` encrypted with the secret key, as bytes (the seeded form).
    ca_seeded: Vec<u8>,
}

impl Fixture {
    fn new(ring_degree: u64, bits: u32) -> Fixture {
        let ctx = secure_context(ring_degree, bits);
        let n = ctx.ring_degree();
        let mut rng = StdRng::seed_from_u64(1);
        let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let k = Fr::rand(&mut rng);
        let sk = SecKey::generate(&ctx).expect("secret key");
        let pk = PubKey::generate(&sk).expect("public key");
        let ca = pk.encrypt_poly(&a).expect("encrypt");
        let cb = pk.encrypt_poly(&b).expect("encrypt");
        let encoder = BatchEncoder::<Fr>::for_context(&ctx).expect("encoder");
        let coeffs = encoder.encode(&a).expect("encode");
        let pt = EncodedPtxt::from_slots(&ctx, &encoder, &b, None).expect("encoded plaintext");
        let steps: Vec<i64> = (1..=16).collect();
        let mut weights = Vec::with_capacity(steps.len());
        for _ in &steps {
            let w: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            weights
                .push(EncodedPtxt::from_slots_extended(&ctx, &encoder, &w, None).expect("weights"));
        }
        let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().steps(steps.iter().copied()))
            .expect("Galois keys");
        let gk1 = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1)).expect("one key");
        let gk1_bytes = gk1.to_bytes().expect("key bytes");
        let ca_bytes = ca.to_bytes().expect("ciphertext bytes");
        let ca_seeded = sk
            .encrypt_poly_to_bytes(&a)
            .expect("seeded ciphertext bytes");
        Fixture {
            ring_degree,
            bits,
            ctx,
            a,
            b,
            k,
            sk,
            pk,
            ca,
            cb,
            encoder,
            coeffs,
            pt,
            steps,
            weights,
            gk,
            gk1,
            gk1_bytes,
            ca_bytes,
            ca_seeded,
        }
    }

    /// Times `op` on a fresh copy of the first ciphertext.
    fn on_copy<T>(&self, bench: &mut Bencher, op: impl Fn(&mut Ctxt) -> helib_rs::Result<T>) {
        bench.iter_batched(
            || self.ca.clone(),
            |mut x| op(&mut x).map(|_| x),
            BatchSize::LargeInput,
        )
    }
}

/// One group `name` with `run` timed on every fixture, throughput in slots.
fn group(
    c: &mut Criterion,
    fixtures: &[Fixture],
    name: &str,
    run: impl Fn(&mut Bencher, &Fixture),
) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for f in fixtures {
        group.throughput(Throughput::Elements(f.ring_degree));
        let id = BenchmarkId::from_parameter(format!("bn254_n{}_q{}", f.ring_degree, f.bits));
        group.bench_with_input(id, f, |bench, f| run(bench, f));
    }
    group.finish();
}

fn primitives(c: &mut Criterion) {
    // Freed buffers are reused instead of page-faulted in again (see `retain_freed_memory`).
    bigp_he::reuse_freed_memory();
    let fixtures: Vec<Fixture> = CONFIGS
        .into_iter()
        .filter(|&(ring_degree, _)| selected(ring_degree))
        .map(|(ring_degree, bits)| Fixture::new(ring_degree, bits))
        .collect();
    let fx = fixtures.as_slice();

    group(c, fx, "context_build", |bench, f| {
        bench.iter(|| builder(f.ring_degree, f.bits).build().map(black_box))
    });
    group(c, fx, "keygen_secret", |bench, f| {
        bench.iter(|| SecKey::generate(&f.ctx).map(black_box))
    });
    group(c, fx, "keygen_public_and_relin", |bench, f| {
        bench.iter(|| PubKey::generate(&f.sk).map(black_box))
    });
    group(c, fx, "encrypt_poly", |bench, f| {
        bench.iter(|| f.pk.encrypt_poly(black_box(&f.a)))
    });
    group(c, fx, "decrypt_poly", |bench, f| {
        bench.iter(|| f.sk.decrypt_poly::<Fr>(black_box(&f.ca)))
    });
    group(c, fx, "encrypt_slots", |bench, f| {
        bench.iter(|| f.pk.encrypt_slots(&f.encoder, black_box(&f.a)))
    });
    group(c, fx, "decrypt_slots", |bench, f| {
        bench.iter(|| f.sk.decrypt_slots(&f.encoder, black_box(&f.ca)))
    });
    group(c, fx, "add", |bench, f| {
        f.on_copy(bench, |x| x.add_assign(&f.cb))
    });
    group(c, fx, "mul_const", |bench, f| {
        f.on_copy(bench, |x| x.mul_const(f.k))
    });
    group(c, fx, "mul_poly", |bench, f| {
        f.on_copy(bench, |x| x.mul_poly(&f.b))
    });
    group(c, fx, "mul_ct_ct", |bench, f| {
        f.on_copy(bench, |x| x.mul_assign(&f.cb))
    });
    group(c, fx, "square", |bench, f| f.on_copy(bench, |x| x.square()));
    group(c, fx, "mod_switch_down", |bench, f| {
        f.on_copy(bench, |x| x.mod_switch_down())
    });
    group(c, fx, "encode", |bench, f| {
        bench.iter(|| f.encoder.encode(black_box(&f.a)))
    });
    group(c, fx, "decode", |bench, f| {
        bench.iter(|| f.encoder.decode(black_box(&f.coeffs)))
    });
    group(c, fx, "encode_and_convert", |bench, f| {
        bench.iter(|| EncodedPtxt::from_slots(&f.ctx, &f.encoder, black_box(&f.b), None))
    });
    group(c, fx, "mul_ptxt_encoded", |bench, f| {
        f.on_copy(bench, |x| x.mul_ptxt(&f.pt))
    });
    group(c, fx, "galois_keygen", |bench, f| {
        let one = GaloisSteps::new().step(1);
        bench.iter(|| GaloisKeys::generate(&f.sk, black_box(&one)).map(black_box))
    });
    group(c, fx, "rotate", |bench, f| {
        f.on_copy(bench, |x| x.rotate_rows(1, &f.gk))
    });
    group(c, fx, "rotate_hoisted_1", |bench, f| {
        bench.iter(|| f.ca.rotate_rows_many(black_box(&f.steps[..1]), &f.gk))
    });
    group(c, fx, "rotate_hoisted_16", |bench, f| {
        bench.iter(|| f.ca.rotate_rows_many(black_box(&f.steps), &f.gk))
    });
    group(c, fx, "rotated_inner_product_1", |bench, f| {
        let w: Vec<&EncodedPtxt> = f.weights[..1].iter().collect();
        bench.iter(|| {
            f.ca.rotated_inner_product(black_box(&f.steps[..1]), &w, &f.gk)
        })
    });
    group(c, fx, "rotated_inner_product_16", |bench, f| {
        let w: Vec<&EncodedPtxt> = f.weights.iter().collect();
        bench.iter(|| f.ca.rotated_inner_product(black_box(&f.steps), &w, &f.gk))
    });
    group(c, fx, "rotate_hoisted_16_then_inner_product", |bench, f| {
        let w: Vec<&EncodedPtxt> = f.weights.iter().collect();
        bench.iter(|| {
            let rotated = f.ca.rotate_rows_many(black_box(&f.steps), &f.gk)?;
            Ctxt::inner_product(&rotated.iter().collect::<Vec<_>>(), &w)
        })
    });

    group(c, fx, "ctxt_to_bytes", |bench, f| {
        bench.iter(|| f.ca.to_bytes())
    });
    group(c, fx, "ctxt_from_bytes", |bench, f| {
        bench.iter(|| Ctxt::from_bytes(&f.pk, black_box(&f.ca_bytes)))
    });
    group(c, fx, "encrypt_poly_then_to_bytes", |bench, f| {
        bench.iter(|| {
            f.pk.encrypt_poly(black_box(&f.a))
                .and_then(|ct| ct.to_bytes())
        })
    });
    group(c, fx, "encrypt_poly_secret_key_to_bytes", |bench, f| {
        bench.iter(|| f.sk.encrypt_poly_to_bytes(black_box(&f.a)))
    });
    group(c, fx, "ctxt_from_seeded_bytes", |bench, f| {
        bench.iter(|| Ctxt::from_bytes(&f.pk, black_box(&f.ca_seeded)))
    });
    group(c, fx, "galois_key_to_bytes", |bench, f| {
        bench.iter(|| f.gk1.to_bytes())
    });
    group(c, fx, "galois_key_from_bytes", |bench, f| {
        bench.iter(|| GaloisKeys::from_bytes(&f.ctx, black_box(&f.gk1_bytes)))
    });
}

criterion_group!(benches, primitives);
criterion_main!(benches);
