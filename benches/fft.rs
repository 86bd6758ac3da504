//! Encrypted FFT, inverse FFT and coset change (evaluations on the subgroup to evaluations on
//! the coset `Fr::GENERATOR H`, `OneProductFft::coset_change`) over BN254 at 128-bit secure parameters
//! (N = 32768): the server-side work only (`OneProductFft::apply`), with the diagonals encoded
//! beforehand as the default cache policy decides. Keys, encoding and encryption happen outside the timed region.
//! `he_two_stage_fft` is the FFT as two sparse products (`TwoStageFft`, N = 65536, two
//! levels) on sizes 4096 and 32768 unless `TWO_STAGE_BENCH_SIZES` says otherwise;
//! `he_four_step_fft` the FFT across ciphertexts (`FourStepFft`, N = 65536, three levels) at
//! n = 65536 unless `FOUR_STEP_BENCH_SIZES` says otherwise; `he_witness_map` Groth16's
//! witness map through the plaintext ring's product (`he_fft::witness_map_for`: one
//! ciphertext on N = 65536 up to n = 32768, four steps on the same ring from n = 65536) at
//! n = 1024 unless `WITNESS_MAP_BENCH_SIZES` says otherwise. `plain` times the same
//! computations in the clear with arkworks on one thread, at every size the encrypted groups
//! use (`plain/fft/n`: `Radix2EvaluationDomain::fft`; `plain/witness_map/n`: the quotient as
//! ark-groth16's `LibsnarkReduction` computes it), so criterion's reports (HTML under
//! `target/criterion/`) show the overhead beside them.
//!
//!     cargo bench --bench fft                                  # n = 256, 512, 1024, 2048, 4096
//!     FFT_BENCH_SIZES=8192,16384 cargo bench --bench fft       # other sizes
//!     FFT_BENCH_THREADS=2 cargo bench --bench fft              # default: 1 thread
//!     TWO_STAGE_BENCH_SIZES=16384 cargo bench --bench fft -- he_two_stage_fft
//!     FOUR_STEP_BENCH_SIZES=262144 cargo bench --bench fft -- he_four_step_fft
//!     WITNESS_MAP_BENCH_SIZES=4096,32768 cargo bench --bench fft -- he_witness_map
//!
//! Each size takes its own keys and diagonals (n = 4096: ~25 s of set-up, ~3.7 GB peak).

use std::time::Duration;

use ark_bn254::Fr;
use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use he_fft::{
    witness_map_context, witness_map_for, CosetChange, Direction, EncryptedTransform, Fft,
    FftOptions, OneProductFft, Route,
};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps, PubKey, SecKey};

fn sizes() -> Vec<usize> {
    parse_sizes("FFT_BENCH_SIZES").unwrap_or_else(|| vec![256, 512, 1024, 2048, 4096])
}

/// The comma-separated sizes in environment variable `var`, if it is set.
fn parse_sizes(var: &str) -> Option<Vec<usize>> {
    let list = std::env::var(var).ok()?;
    Some(
        list.split(',')
            .filter_map(|s| s.trim().parse().ok())
            .collect(),
    )
}

fn threads() -> usize {
    std::env::var("FFT_BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// The pool the benchmarks run on (`FFT_BENCH_THREADS`), with freed buffers reused instead of
/// page-faulted in again (see `retain_freed_memory`).
fn pool() -> rayon::ThreadPool {
    bigp_he::reuse_freed_memory();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads())
        .build()
        .expect("thread pool")
}

/// A group of slow samples: ten, no warm-up to speak of.
fn slow_group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_secs(5));
    group
}

/// Fresh keys on `ctx`, the Galois keys for `steps`, and a random size-`n` vector encrypted
/// by `encrypt`.
fn keys_and_input(
    ctx: &Context,
    n: usize,
    steps: &GaloisSteps,
    encrypt: impl Fn(&PubKey, &[Fr]) -> he_fft::Result<Vec<Ctxt>>,
) -> (GaloisKeys, Vec<Ctxt>) {
    let sk = SecKey::generate(ctx).expect("secret key");
    let pk = PubKey::generate(&sk).expect("public key");
    let gk = GaloisKeys::generate(&sk, steps).expect("galois keys");
    let mut rng = StdRng::seed_from_u64(n as u64);
    let x: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    (gk, encrypt(&pk, &x).expect("encrypt"))
}

fn fft(c: &mut Criterion) {
    let pool = pool();
    for name in ["he_fft", "he_ifft", "he_coset_change"] {
        let mut group = slow_group(c, name);
        for n in sizes() {
            let (fft, gk, ct) = pool.install(|| {
                // The coset change's own ring keeps the vector replicated up to n = 32768.
                let ctx = match name {
                    "he_coset_change" => he_fft::CosetChange::<Fr>::secure_context(n),
                    _ => he_fft::OneProductFft::<Fr>::secure_context(n),
                }
                .expect("context");
                let options = FftOptions::default();
                let one_product = |direction| -> Box<dyn EncryptedTransform<Fr>> {
                    Box::new(OneProductFft::new(&ctx, n, direction, &options).expect("plan"))
                };
                let fft = match name {
                    "he_fft" => one_product(Direction::Forward),
                    "he_ifft" => one_product(Direction::Inverse),
                    _ => {
                        let h = Radix2EvaluationDomain::<Fr>::new(n).expect("domain");
                        let coset = h.get_coset(Fr::GENERATOR).expect("coset");
                        Box::new(CosetChange::new(&ctx, &h, &coset, &options).expect("plan"))
                    }
                };
                let (gk, ct) =
                    keys_and_input(&ctx, n, &fft.galois_steps(), |pk, x| fft.encrypt(pk, x));
                (fft, gk, ct)
            });
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| pool.install(|| fft.apply(&gk, &ct).expect("transform")))
            });
        }
        group.finish();
    }
}

/// The two-stage FFT (`TwoStageFft::apply`) on its own N = 65536 context.
fn two_stage(c: &mut Criterion) {
    let sizes = parse_sizes("TWO_STAGE_BENCH_SIZES").unwrap_or_else(|| vec![4096, 32768]);
    route_group(c, "he_two_stage_fft", Route::TwoStages, sizes);
}

/// The four-step FFT (`FourStepFft::apply`) on its own N = 65536 context.
fn four_step(c: &mut Criterion) {
    let sizes = parse_sizes("FOUR_STEP_BENCH_SIZES").unwrap_or_else(|| vec![65536]);
    route_group(c, "he_four_step_fft", Route::FourSteps, sizes);
}

/// The forward FFT by `route` on the route's own context, per size.
fn route_group(c: &mut Criterion, name: &str, route: Route, sizes: Vec<usize>) {
    let pool = pool();
    let mut group = slow_group(c, name);
    for n in sizes {
        let (fft, gk, ct) = pool.install(|| {
            let ctx = route.context::<Fr>(n).expect("context");
            let domain = Radix2EvaluationDomain::<Fr>::new(n).expect("domain");
            let options = FftOptions::default();
            let fft = Fft::new(route, &ctx, &domain, Direction::Forward, &options).expect("plan");
            let (gk, ct) = keys_and_input(&ctx, n, &fft.galois_steps(), |pk, x| fft.encrypt(pk, x));
            (fft, gk, ct)
        });
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| pool.install(|| fft.apply(&gk, &ct).expect("transform")))
        });
    }
    group.finish();
}

/// Groth16's witness map on the server-only route for its size (`he_fft::witness_map_for`:
/// one ciphertext up to `n = N/2`, four steps beyond) on its own context.
fn witness_map(c: &mut Criterion) {
    let pool = pool();
    let sizes = parse_sizes("WITNESS_MAP_BENCH_SIZES").unwrap_or_else(|| vec![1024]);
    let mut group = slow_group(c, "he_witness_map");
    for n in sizes {
        let (map, gk, ab) = pool.install(|| {
            let ctx = witness_map_context::<Fr>(n).expect("context");
            let map = witness_map_for::<Fr>(&ctx, n, &FftOptions::default()).expect("plan");
            let (gk, ab) = keys_and_input(&ctx, n, &map.galois_steps(), |pk, x| {
                let mut both = map.encrypt(pk, x)?;
                both.extend(map.encrypt(pk, x)?);
                Ok(both)
            });
            (map, gk, ab)
        });
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| {
            bench.iter(|| {
                pool.install(|| {
                    map.apply_with(Some(&gk), &ab, &|_, _| {})
                        .expect("witness map")
                })
            })
        });
    }
    group.finish();
}

/// The plain arkworks computations at every size the encrypted groups use.
fn plain(c: &mut Criterion) {
    let mut ffts: Vec<usize> = sizes();
    ffts.extend(parse_sizes("TWO_STAGE_BENCH_SIZES").unwrap_or_else(|| vec![4096, 32768]));
    ffts.extend(parse_sizes("FOUR_STEP_BENCH_SIZES").unwrap_or_else(|| vec![65536]));
    ffts.sort_unstable();
    ffts.dedup();
    let maps = parse_sizes("WITNESS_MAP_BENCH_SIZES").unwrap_or_else(|| vec![1024]);
    // One thread, as the encrypted groups' default.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    let mut group = c.benchmark_group("plain");
    let mut rng = StdRng::seed_from_u64(7);
    for n in ffts {
        let domain = Radix2EvaluationDomain::<Fr>::new(n).expect("domain");
        let x: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("fft", n), &n, |b, _| {
            b.iter(|| pool.install(|| domain.fft(&x)))
        });
    }
    for n in maps {
        let [a, b]: [Vec<Fr>; 2] = [0, 1].map(|_| (0..n).map(|_| Fr::rand(&mut rng)).collect());
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("witness_map", n), &n, |bench, _| {
            bench.iter(|| {
                pool.install(|| {
                    bigp_he::plain_quotient(&a, &b, &c, Fr::GENERATOR).expect("quotient")
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, plain, fft, two_stage, four_step, witness_map);
criterion_main!(benches);
