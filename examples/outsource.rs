//! An outsourced FFT in three steps that share nothing but files: the data owner encrypts, a
//! server that never sees the secret key computes the FFT, and the owner decrypts and checks.
//!
//! ```text
//! cargo run --release --example outsource                  # all three steps, in a temp dir
//! cargo run --release --example outsource -- owner  DIR [--size N] [--small]
//! cargo run --release --example outsource -- server DIR
//! cargo run --release --example outsource -- verify DIR
//! ```
//!
//! `owner` writes `DIR/public/` (context, public key, Galois keys, the encrypted input and the
//! request; the input encrypted with the secret key, which halves its bytes) for the server,
//! and keeps `DIR/owner/` (secret key, plain input, its own copies of the context and public
//! key; the secret key file readable by its owner only) to itself.
//! `server` reads only `DIR/public/` and writes the encrypted result there. `verify` reads the
//! result and everything else from `DIR/owner/`, decrypts, and compares with
//! `ark_poly::Radix2EvaluationDomain::fft`. Exit status: 0 verified, 1 mismatch, 2 usage or
//! engine error.

use std::error::Error as StdError;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use ark_bn254::Fr;
use ark_ff::{PrimeField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::SeedableRng;
use he_fft::{Direction, FftOptions, FftRoute, Route};
use helib_rs::{Context, Ctxt, GaloisKeys, PubKey, SecKey};

type BoxError = Box<dyn StdError>;

const USAGE: &str = "usage: outsource [owner DIR [--size N] [--small] | server DIR | verify DIR]";

fn main() -> ExitCode {
    bigp_he::end_quietly_on_closed_stdout();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        None => all_steps(),
        Some("owner") => dir_arg(&args).and_then(|dir| {
            let (size, small) = owner_options(&args[2..])?;
            owner(&dir, size, small)
        }),
        Some("server") => dir_arg(&args).and_then(|dir| server(&dir)),
        Some("verify") => dir_arg(&args).and_then(|dir| verify(&dir)),
        Some(_) => Err(USAGE.into()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn dir_arg(args: &[String]) -> Result<PathBuf, BoxError> {
    args.get(1).map(PathBuf::from).ok_or_else(|| USAGE.into())
}

fn owner_options(rest: &[String]) -> Result<(usize, bool), BoxError> {
    let (mut size, mut small) = (256, false);
    let mut it = rest.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--size" => size = it.next().ok_or("--size needs a value")?.parse()?,
            "--small" => small = true,
            _ => return Err(USAGE.into()),
        }
    }
    Ok((size, small))
}

/// The three steps in a fresh temporary directory.
fn all_steps() -> Result<bool, BoxError> {
    let dir = std::env::temp_dir().join(format!("bigp-he-outsource-{}", std::process::id()));
    owner(&dir, 256, false)?;
    server(&dir)?;
    let ok = verify(&dir)?;
    fs::remove_dir_all(&dir)?;
    Ok(ok)
}

fn write(path: PathBuf, bytes: &[u8]) -> Result<(), BoxError> {
    fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

/// Writes a file only its owner can read (where the OS has such permissions).
fn write_private(path: PathBuf, bytes: &[u8]) -> Result<(), BoxError> {
    use std::io::Write;
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    file.write_all(bytes)?;
    Ok(())
}

fn read(path: PathBuf) -> Result<Vec<u8>, BoxError> {
    Ok(fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?)
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn owner(dir: &Path, size: usize, small: bool) -> Result<bool, BoxError> {
    let start = Instant::now();
    bigp_he::reuse_freed_memory();
    fs::create_dir_all(dir.join("public"))?;
    fs::create_dir_all(dir.join("owner"))?;
    // The fastest route for the size, which the request tells the server; the toy ring takes
    // one product.
    let (route, ctx) = if small {
        let bits = Route::OneProduct.ciphertext_bits(2048, Fr::MODULUS_BIT_SIZE, size);
        let ctx = Context::builder()
            .ring_degree(2048)
            .plaintext_field::<Fr>()
            .ciphertext_bits(bits)
            .allow_insecure(true)
            .build()?;
        (Route::OneProduct, ctx)
    } else {
        let route = Route::fastest_for(size);
        (route, route.context::<Fr>(size)?)
    };
    let fft = transform(route, &ctx, size)?;
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
    // Test data, not a secret: a time seed is enough.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut rng = ark_std::rand::rngs::StdRng::seed_from_u64(seed);
    let x: Vec<Fr> = (0..size).map(|_| Fr::rand(&mut rng)).collect();
    // Secret-key encryption: the owner has the key anyway, and the upload is half the bytes
    // with more noise budget left for the server.
    let inputs = fft.encrypt_to_bytes(&sk, &x)?;

    let public = |name: &str| dir.join("public").join(name);
    write(
        public("request.txt"),
        format!("{size} forward {} {}\n", inputs.len(), route_name(route)).as_bytes(),
    )?;
    let files = [
        ("context.bin", ctx.to_bytes()?),
        ("pubkey.bin", pk.to_bytes()?),
        ("galois.bin", gk.to_bytes()?),
    ];
    for (name, bytes) in &files {
        write(public(name), bytes)?;
        println!("owner: {name:<12} {:>9.2} MiB", mib(bytes.len()));
    }
    for (i, bytes) in inputs.iter().enumerate() {
        println!("owner: input-{i}.ct   {:>9.2} MiB", mib(bytes.len()));
        write(public(&format!("input-{i}.ct")), bytes)?;
    }
    write_private(dir.join("owner").join("secret.bin"), &sk.to_bytes()?)?;
    // The owner's own copies: what the server can write is not trusted for verification.
    write(dir.join("owner").join("context.bin"), &files[0].1)?;
    write(dir.join("owner").join("pubkey.bin"), &files[1].1)?;
    let plain: String = x.iter().map(|v| format!("{v}\n")).collect();
    write(dir.join("owner").join("input.txt"), plain.as_bytes())?;
    println!(
        "owner: n = {size}, {} route, N = {}, ~{:.0}-bit security; keys, encryption and files \
         in {:.2} s",
        route_name(route),
        ctx.ring_degree(),
        ctx.security_bits(),
        start.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// The forward FFT of `size` points by `route` on `ctx`.
fn transform(route: Route, ctx: &Context, size: usize) -> Result<FftRoute<Fr>, BoxError> {
    let domain = Radix2EvaluationDomain::<Fr>::new(size)
        .filter(|d| d.size() == size)
        .ok_or("no FFT domain of this size")?;
    Ok(FftRoute::new(
        route,
        ctx,
        &domain,
        Direction::Forward,
        &FftOptions::default(),
    )?)
}

const ROUTES: [(Route, &str); 3] = [
    (Route::OneProduct, "one-product"),
    (Route::TwoStages, "two-stages"),
    (Route::FourSteps, "four-steps"),
];

fn route_name(route: Route) -> &'static str {
    ROUTES
        .iter()
        .find(|(r, _)| *r == route)
        .map_or("one-product", |(_, name)| name)
}

/// The request: size, number of input ciphertexts, and route.
fn request(dir: &Path) -> Result<(usize, usize, Route), BoxError> {
    let text = String::from_utf8(read(dir.join("public").join("request.txt"))?)?;
    let fields: Vec<&str> = text.split_whitespace().collect();
    let route = |name: &str| ROUTES.iter().find(|(_, n)| *n == name).map(|(r, _)| *r);
    match fields.as_slice() {
        [size, "forward", count, name] => match route(name) {
            Some(r) => Ok((size.parse()?, count.parse()?, r)),
            None => Err(format!("unknown route {name:?} in request.txt").into()),
        },
        _ => Err(format!("malformed request.txt: {text:?}").into()),
    }
}

/// The context in `DIR/<side>/context.bin`. Toy rings are accepted because this demo's owner
/// may choose one (`--small`); a real server would build its own context for the parameters
/// it serves and refuse the rest.
fn read_context(dir: &Path, side: &str) -> Result<Context, BoxError> {
    Ok(Context::from_bytes_allow_insecure(&read(
        dir.join(side).join("context.bin"),
    )?)?)
}

fn server(dir: &Path) -> Result<bool, BoxError> {
    bigp_he::reuse_freed_memory();
    let public = |name: &str| dir.join("public").join(name);
    let (size, count, route) = request(dir)?;
    let load = Instant::now();
    let ctx = read_context(dir, "public")?;
    let pk = PubKey::from_bytes(&ctx, &read(public("pubkey.bin"))?)?;
    let gk = GaloisKeys::from_bytes(&ctx, &read(public("galois.bin"))?)?;
    let cts = (0..count)
        .map(|i| {
            Ok(Ctxt::from_bytes(
                &pk,
                &read(public(&format!("input-{i}.ct")))?,
            )?)
        })
        .collect::<Result<Vec<_>, BoxError>>()?;
    let load_s = load.elapsed().as_secs_f64();

    let run = Instant::now();
    let fft = transform(route, &ctx, size)?;
    let out = fft.apply(&gk, &cts)?;
    for (i, ct) in out.iter().enumerate() {
        write(public(&format!("output-{i}.ct")), &ct.to_bytes()?)?;
    }
    println!(
        "server: read and validated {} keys and {count} ciphertext(s) in {load_s:.2} s; \
         FFT ({}, with encoding its diagonals) and writing in {:.2} s",
        gk.elements().len(),
        route_name(route),
        run.elapsed().as_secs_f64()
    );
    Ok(true)
}

fn verify(dir: &Path) -> Result<bool, BoxError> {
    let (size, count, route) = request(dir)?;
    let ctx = read_context(dir, "owner")?;
    let sk = SecKey::from_bytes(&ctx, &read(dir.join("owner").join("secret.bin"))?)?;
    let pk = PubKey::from_bytes(&ctx, &read(dir.join("owner").join("pubkey.bin"))?)?;
    let x = String::from_utf8(read(dir.join("owner").join("input.txt"))?)?
        .lines()
        .map(|l| {
            l.parse::<Fr>()
                .map_err(|_| format!("bad field element {l:?}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let outs = (0..count)
        .map(|i| {
            Ok(Ctxt::from_bytes(
                &pk,
                &read(dir.join("public").join(format!("output-{i}.ct")))?,
            )?)
        })
        .collect::<Result<Vec<_>, BoxError>>()?;
    let fft = transform(route, &ctx, size)?;
    let y = fft.decrypt(&sk, &outs)?;
    let domain = Radix2EvaluationDomain::<Fr>::new(size).ok_or("no domain of this size")?;
    let ok = y == domain.fft(&x);
    let first = y.first().map(|v| v.to_string()).unwrap_or_default();
    println!(
        "verify: {} (y[0] = {first}, noise budget left {:.0} bits)",
        if ok {
            "the decrypted FFT equals arkworks' fft"
        } else {
            "MISMATCH against arkworks"
        },
        outs.iter()
            .map(Ctxt::noise_budget)
            .fold(f64::INFINITY, f64::min)
    );
    Ok(ok)
}
