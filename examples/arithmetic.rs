//! A first tour of big-plaintext BGV: encrypt BN254 field elements, compute on them, decrypt,
//! and compare every result with the same computation done in the clear.
//!
//!     cargo run --release --example arithmetic            # 128-bit secure, N = 32768
//!     cargo run --release --example arithmetic -- --small # toy N = 2048, insecure, instant
//!     cargo run --release --example arithmetic -- --seed 7
//!
//! Exits with status 1 if any decrypted result differs from the plain computation.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use ark_std::UniformRand;
use bigp_he::{negacyclic_mul, poly_add};
use helib_rs::{Context, Ctxt, PubKey, SecKey};

use bigp_he::demo::DemoOptions as Options;

fn main() -> ExitCode {
    bigp_he::demo::main("arithmetic", "big-plaintext BGV tour", run)
}

fn build_context(small: bool) -> helib_rs::Result<Context> {
    if small {
        // N = 2048 cannot hold a 254-bit p at 128-bit security; the opt-out is explicit.
        bigp_he::job::toy_context(1000)
    } else {
        // m = 65536 (N = 32768): the HE Standard allows log2(QP) <= 881 bits at 128-bit
        // security. A 760-bit chain (room for one ciphertext product) fits when the
        // key-switching digits are small enough for the special primes to take the remaining
        // ~120 bits; Context::bn254 picks the smallest such digit count.
        Context::bn254(32768, 760)
    }
}

fn run(options: &Options) -> helib_rs::Result<usize> {
    let t = Instant::now();
    let ctx = build_context(options.small)?;
    println!("context ({:.2?})", t.elapsed());
    println!(
        "  ring degree N = {}, plaintext modulus: BN254 scalar field ({} bits)",
        ctx.ring_degree(),
        ctx.plaintext_bits()
    );
    println!("  {}", bigp_he::job::parameters_line(&ctx, options.small));
    println!("  fresh noise budget: {:.0} bits", ctx.fresh_noise_budget());

    let t = Instant::now();
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    println!(
        "keys ({:.2?}): public + relinearization key {:.1} MiB",
        t.elapsed(),
        pk.size_bytes() as f64 / (1024.0 * 1024.0)
    );

    let n = ctx.ring_degree();
    println!("random inputs: seed {}", options.seed);
    let mut rng = StdRng::seed_from_u64(options.seed);
    let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let k = Fr::rand(&mut rng);
    let (x, y) = (Fr::rand(&mut rng), Fr::rand(&mut rng));

    let t = Instant::now();
    let ca = pk.encrypt_poly(&a)?;
    let cb = pk.encrypt_poly(&b)?;
    let cx = pk.encrypt_const(x)?;
    let cy = pk.encrypt_const(y)?;
    println!("encrypt 2 polynomials + 2 constants ({:.2?})", t.elapsed());

    let mut checks = Checks::default();
    println!("\nresults (each decrypted and compared with the plain computation over F_p):");
    checks.poly(&sk, "decrypt(encrypt(a)) == a", &ca, &a, None);

    let t = Instant::now();
    let sum = (&ca + &cb)?;
    let elapsed = t.elapsed();
    checks.poly(&sk, "a + b", &sum, &poly_add(&a, &b), Some(elapsed));

    let t = Instant::now();
    let product = (&ca * &cb)?;
    let elapsed = t.elapsed();
    let plain_product = negacyclic_mul(&a, &b, n).unwrap_or_default();
    checks.poly(
        &sk,
        "a * b (ct x ct)",
        &product,
        &plain_product,
        Some(elapsed),
    );

    let t = Instant::now();
    let mut scaled = ca.clone();
    scaled.mul_const(k)?;
    let elapsed = t.elapsed();
    let plain_scaled: Vec<Fr> = a.iter().map(|v| *v * k).collect();
    checks.poly(
        &sk,
        "a * k (constant)",
        &scaled,
        &plain_scaled,
        Some(elapsed),
    );

    let t = Instant::now();
    let xy = (&cx * &cy)?;
    let elapsed = t.elapsed();
    checks.constant(&sk, "x * y (constants)", &xy, x * y, Some(elapsed));

    Ok(checks.mismatches)
}

/// Counts results that differ from the plain computation (a refused decryption counts too).
#[derive(Default)]
struct Checks {
    mismatches: usize,
}

impl Checks {
    fn poly(
        &mut self,
        sk: &SecKey,
        what: &str,
        ct: &Ctxt,
        expected: &[Fr],
        elapsed: Option<Duration>,
    ) {
        let outcome = sk.decrypt_poly::<Fr>(ct).map(|got| got == expected);
        self.report(what, ct, outcome, elapsed);
    }

    fn constant(
        &mut self,
        sk: &SecKey,
        what: &str,
        ct: &Ctxt,
        expected: Fr,
        elapsed: Option<Duration>,
    ) {
        let outcome = sk.decrypt_const::<Fr>(ct).map(|got| got == expected);
        self.report(what, ct, outcome, elapsed);
    }

    fn report(
        &mut self,
        what: &str,
        ct: &Ctxt,
        outcome: helib_rs::Result<bool>,
        elapsed: Option<Duration>,
    ) {
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
            "  {what:<26} {time:>10}   budget {:>4.0} bits, level {:>2}   {status}",
            ct.noise_budget(),
            ct.level()
        );
    }
}
