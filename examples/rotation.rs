//! Slot rotations on encrypted BN254 vectors: pack a random vector into the N slots of one
//! ciphertext (two rows of N/2), generate Galois keys for a few steps and the row swap, rotate
//! one step at a time and hoisted (many steps sharing one decomposition), take a weighted sum
//! of rotations under one mod-down (`Ctxt::rotated_inner_product`), and compare every decrypted
//! result with the same computation done in the clear.
//!
//!     cargo run --release --example rotation            # 128-bit secure, N = 32768
//!     cargo run --release --example rotation -- --small # toy N = 2048, insecure, instant
//!     cargo run --release --example rotation -- --seed 7
//!
//! Exits with status 1 if any decrypted result differs from the plain permutation.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use bigp_he::{rotate_slot_rows, swap_slot_rows};
use helib_rs::{BatchEncoder, Context, Ctxt, EncodedPtxt, GaloisKeys, GaloisSteps, PubKey, SecKey};

/// Row rotations the keys are generated for (left for positive, right for negative).
const STEPS: [i64; 6] = [1, 2, 4, 8, -1, -5];

use bigp_he::demo::DemoOptions as Options;

fn main() -> ExitCode {
    bigp_he::demo::main("rotation", "encrypted slot rotations", run)
}

fn build_context(small: bool) -> helib_rs::Result<Context> {
    if small {
        // N = 2048 cannot hold a 254-bit p at 128-bit security; the opt-out is explicit.
        bigp_he::job::toy_context(600)
    } else {
        // N = 32768 with a 550-bit chain (one plaintext-multiplication level, what an FFT
        // layer needs): 3 key-switching digits keep log2(QP) under the 881-bit limit.
        Context::bn254(32768, 550)
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn run(options: &Options) -> helib_rs::Result<usize> {
    // Reuse freed buffers instead of page-faulting fresh ones for every result, as the
    // benchmarks do, so the times below are comparable with `cargo bench`.
    bigp_he::reuse_freed_memory();
    let t = Instant::now();
    let ctx = build_context(options.small)?;
    println!("context ({:.2?})", t.elapsed());
    let n = ctx.ring_degree();
    println!(
        "  ring degree N = {n}: {n} slots in two rows of {}, plaintext modulus: BN254 scalar field ({} bits)",
        n / 2,
        ctx.plaintext_bits()
    );
    println!("  {}", bigp_he::job::parameters_line(&ctx, options.small));
    println!("  fresh noise budget: {:.0} bits", ctx.fresh_noise_budget());

    let t = Instant::now();
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    println!(
        "secret, public + relinearization key ({:.2?}, {:.1} MiB)",
        t.elapsed(),
        mib(pk.size_bytes())
    );

    let steps = GaloisSteps::new().steps(STEPS).row_swap();
    let t = Instant::now();
    let gk = GaloisKeys::generate(&sk, &steps)?;
    let keygen = t.elapsed();
    let count = gk.elements().len() as u32;
    println!(
        "Galois keys for steps {STEPS:?} + row swap: {count} keys in {keygen:.2?} ({:.2?} per key), {:.1} MiB ({:.1} MiB per key)",
        keygen / count,
        mib(gk.size_bytes()),
        mib(gk.size_bytes()) / f64::from(count)
    );

    println!("random slot vector: seed {}", options.seed);
    let mut rng = StdRng::seed_from_u64(options.seed);
    let v: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    let t = Instant::now();
    let ct = pk.encrypt_poly(&enc.encode(&v)?)?;
    println!("encode + encrypt ({:.2?})", t.elapsed());

    let mut checks = Checks::default();
    println!("\nresults (each decrypted and compared with the plain permutation of the slots):");
    checks.slots(&sk, &enc, "decrypt(encrypt(v)) == v", &ct, &v, None);

    // One untimed rotation first: it page-faults in the buffers every later one reuses.
    drop(ct.rotated_rows(STEPS[0], &gk)?);
    let mut single_total = Duration::ZERO;
    for k in STEPS {
        let t = Instant::now();
        let rotated = ct.rotated_rows(k, &gk)?;
        let elapsed = t.elapsed();
        single_total += elapsed;
        let what = format!("rotate rows by {k}");
        checks.slots(
            &sk,
            &enc,
            &what,
            &rotated,
            &rotate_slot_rows(&v, k),
            Some(elapsed),
        );
    }

    let t = Instant::now();
    let mut swapped = ct.clone();
    swapped.swap_rows(&gk)?;
    let elapsed = t.elapsed();
    checks.slots(
        &sk,
        &enc,
        "swap rows",
        &swapped,
        &swap_slot_rows(&v),
        Some(elapsed),
    );

    // 1 + 2 + 4 + 8 = 15: a rotation without its own key, composed from keyed ones.
    let t = Instant::now();
    let mut composed = ct.clone();
    for k in [1, 2, 4, 8] {
        composed.rotate_rows(k, &gk)?;
    }
    let elapsed = t.elapsed();
    checks.slots(
        &sk,
        &enc,
        "rotate 1, 2, 4, 8 (= 15)",
        &composed,
        &rotate_slot_rows(&v, 15),
        Some(elapsed),
    );

    // Timed on its second call, likewise: the first one page-faults in memory for all its
    // results at once.
    drop(ct.rotate_rows_many(&STEPS, &gk)?);
    let t = Instant::now();
    let hoisted = ct.rotate_rows_many(&STEPS, &gk)?;
    let hoisted_total = t.elapsed();
    for (k, rotated) in STEPS.iter().zip(&hoisted) {
        let what = format!("hoisted rotate by {k}");
        checks.slots(&sk, &enc, &what, rotated, &rotate_slot_rows(&v, *k), None);
    }

    // sum_k w_k * rot(v, k) over the same steps: from the hoisted rotations and an inner
    // product, then in one call that multiplies before the mod-down and so pays for one.
    let weights: Vec<Vec<Fr>> = STEPS
        .iter()
        .map(|_| (0..n).map(|_| Fr::rand(&mut rng)).collect())
        .collect();
    let encoded = weights
        .iter()
        .map(|w| EncodedPtxt::from_slots_extended(&ctx, &enc, w, None))
        .collect::<helib_rs::Result<Vec<_>>>()?;
    let pts: Vec<&EncodedPtxt> = encoded.iter().collect();
    let mut expected = vec![Fr::from(0u64); v.len()];
    for (k, w) in STEPS.iter().zip(&weights) {
        for ((e, r), c) in expected.iter_mut().zip(rotate_slot_rows(&v, *k)).zip(w) {
            *e += r * c;
        }
    }
    let t = Instant::now();
    let eager = Ctxt::inner_product(&hoisted.iter().collect::<Vec<_>>(), &pts)?;
    let eager_time = hoisted_total + t.elapsed();
    checks.slots(
        &sk,
        &enc,
        "hoisted, then inner product",
        &eager,
        &expected,
        Some(eager_time),
    );
    drop(ct.rotated_inner_product(&STEPS, &pts, &gk)?);
    let t = Instant::now();
    let lazy = ct.rotated_inner_product(&STEPS, &pts, &gk)?;
    let lazy_time = t.elapsed();
    checks.slots(
        &sk,
        &enc,
        "rotated inner product",
        &lazy,
        &expected,
        Some(lazy_time),
    );

    let count = STEPS.len() as u32;
    println!(
        "\nrotation: {:.2?} each when done one by one, {:.2?} each hoisted ({} steps in {hoisted_total:.2?}, {:.2}x faster)",
        single_total / count,
        hoisted_total / count,
        count,
        single_total.as_secs_f64() / hoisted_total.as_secs_f64()
    );
    println!(
        "weighted sum of {count} rotations: {eager_time:.2?} hoisted then inner product, \
         {lazy_time:.2?} as one rotated inner product ({:.2}x faster)",
        eager_time.as_secs_f64() / lazy_time.as_secs_f64()
    );
    println!(
        "noise budget: fresh {:.1} bits, after one rotation {:.1}, after four {:.1}",
        ct.noise_budget(),
        hoisted[0].noise_budget(),
        composed.noise_budget()
    );

    Ok(checks.mismatches)
}

/// Counts results that differ from the plain permutation (a refused decryption counts too).
#[derive(Default)]
struct Checks {
    mismatches: usize,
}

impl Checks {
    fn slots(
        &mut self,
        sk: &SecKey,
        enc: &BatchEncoder<Fr>,
        what: &str,
        ct: &Ctxt,
        expected: &[Fr],
        elapsed: Option<Duration>,
    ) {
        let outcome = sk
            .decrypt_poly::<Fr>(ct)
            .map(|coeffs| enc.decode(&coeffs) == expected);
        let status = match &outcome {
            Ok(true) => "ok".to_string(),
            Ok(false) => "MISMATCH".to_string(),
            Err(e) => format!("MISMATCH (decryption failed: {e})"),
        };
        if !matches!(outcome, Ok(true)) {
            self.mismatches += 1;
        }
        let time = elapsed.map(|d| format!("{d:.2?}")).unwrap_or_default();
        println!(
            "  {what:<28} {time:>10}   budget {:>4.0} bits, level {:>2}   {status}",
            ct.noise_budget(),
            ct.level()
        );
    }
}
