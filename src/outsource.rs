//! The outsourced FFT of `examples/outsource.rs` as three steps that share nothing but files:
//! the data owner encrypts ([`owner`]), a server that never sees the secret key computes the
//! FFT ([`server`]), and the owner decrypts and checks the result ([`verify`]).
//!
//! `DIR/public/` is what the server reads and writes: context, public key (without its
//! relinearization key, which an FFT does not use), the master keys the server derives its
//! Galois keys from (or, with [`KeyShipping::AllGaloisKeys`], every Galois key), the encrypted
//! input and the request. `DIR/owner/` stays with the owner: the secret key and the
//! plain input (both written 0600), and its own copies of the context, public key and request.
//! [`verify`] trusts nothing in `DIR/public/` but the output ciphertexts, and those only after
//! they decrypt under the owner's key and pass the owner's `O(n)` check
//! ([`he_fft::check::fft`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_ff::{PrimeField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::SeedableRng;
use he_fft::{check, Direction, EncryptedTransform, Fft, FftOptions, Route};
use helib_rs::{
    Context, Ctxt, GaloisKeys, MasterKeys, ObjectKind, PubKey, SecKey, MAX_CONTEXT_BYTES,
};

use crate::job::BoxError;

/// What the owner asks for: the size, the number of input (and output) ciphertexts, the route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The FFT size `n`.
    pub size: usize,
    /// Ciphertexts in the input, and in the output.
    pub count: usize,
    /// The route the server runs.
    pub route: Route,
}

impl Request {
    fn to_text(self) -> String {
        format!("{} forward {} {}\n", self.size, self.count, self.route)
    }

    fn parse(text: &str) -> Result<Request, BoxError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        match fields.as_slice() {
            [size, "forward", count, name] => {
                let size: usize = size.parse().map_err(|_| format!("bad size {size:?}"))?;
                crate::job::check_size(size)?;
                let count: usize = count.parse().map_err(|_| format!("bad count {count:?}"))?;
                if count == 0 || count > he_fft::Layout::MAX_CIPHERTEXTS {
                    return Err(format!("bad ciphertext count {count}").into());
                }
                let route: Route = name.parse()?;
                Ok(Request { size, count, route })
            }
            _ => Err(format!("malformed request: {text:?}").into()),
        }
    }
}

/// What the owner ships for the server's Galois keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeyShipping {
    /// Master keys where the route's ring has room for derived keys (the two-stage sizes),
    /// every Galois key elsewhere (room there takes a larger, slower ring).
    #[default]
    Auto,
    /// A few master keys (`masters.bin`), from which the server derives the keys it needs
    /// ([`MasterKeys`]): a fraction of the bytes, on a context with room for derived keys.
    MasterKeys,
    /// Every Galois key the transform uses (`galois.bin`): more bytes, no derivation.
    AllGaloisKeys,
}

/// What [`owner`] did, for the example to print.
#[derive(Debug)]
pub struct OwnerReport {
    /// The request written to both sides.
    pub request: Request,
    /// `(file name, bytes)` of everything in `DIR/public/`.
    pub files: Vec<(String, usize)>,
    /// Ring degree and security of the context.
    pub ring_degree: usize,
    /// [`Context::security_label`].
    pub security: String,
    /// Keys, encryption and files.
    pub time: Duration,
    /// Generating the Galois or master keys alone.
    pub galois_keygen_time: Duration,
    /// Whether the owner shipped master keys (else every Galois key).
    pub master_keys: bool,
}

/// What [`verify`] found.
#[derive(Debug)]
pub struct Verdict {
    /// Whether the owner's check accepted the decrypted result.
    pub accepted: bool,
    /// Why not, if not.
    pub reason: Option<String>,
    /// The owner's `O(n)` check.
    pub check_time: Duration,
    /// The plain arkworks FFT of the same input, timed in the same run for comparison.
    pub plain_fft_time: Duration,
    /// The smallest noise budget left among the outputs.
    pub noise_budget: f64,
}

fn public(dir: &Path, name: &str) -> PathBuf {
    dir.join("public").join(name)
}

fn private(dir: &Path, name: &str) -> PathBuf {
    dir.join("owner").join(name)
}

fn write(path: PathBuf, bytes: &[u8]) -> Result<(), BoxError> {
    fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

fn write_private(path: PathBuf, bytes: &[u8]) -> Result<(), BoxError> {
    helib_rs::write_private_file(&path, bytes)?;
    Ok(())
}

/// A request is one short line.
const MAX_REQUEST_BYTES: u64 = 256;
/// A field element in decimal, with its newline.
const MAX_LINE_BYTES: u64 = 80;

fn read_request(path: PathBuf) -> Result<Request, BoxError> {
    let text = String::from_utf8(helib_rs::read_file_at_most(&path, MAX_REQUEST_BYTES)?)
        .map_err(|_| format!("{}: not text", path.display()))?;
    Request::parse(&text).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The forward FFT of `size` points by `route` on `ctx`.
fn transform(route: Route, ctx: &Context, size: usize) -> Result<Fft<Fr>, BoxError> {
    let domain = subgroup(size)?;
    Ok(Fft::new(
        route,
        ctx,
        &domain,
        Direction::Forward,
        &FftOptions::default(),
    )?)
}

fn subgroup(size: usize) -> Result<Radix2EvaluationDomain<Fr>, BoxError> {
    Ok(Radix2EvaluationDomain::<Fr>::new(size)
        .filter(|d| d.size() == size)
        .ok_or("no FFT domain of this size")?)
}

/// The route and context of a `size`-point FFT: the insecure toy ring `N = 2048` (one
/// product) when `small`, else the fastest route's secure context; with room for derived keys
/// when `derivable`. The owner picks them, and the server rebuilds the same ones from the
/// request, so that it never builds what a context file describes before comparing.
fn route_and_context(
    size: usize,
    small: bool,
    derivable: bool,
) -> Result<(Route, Context), BoxError> {
    if small {
        let bits = Route::OneProduct.ciphertext_bits(2048, Fr::MODULUS_BIT_SIZE, size);
        let ctx = Context::builder()
            .ring_degree(2048)
            .plaintext_field::<Fr>()
            .ciphertext_bits(bits)
            .derivable_keys(derivable)
            .allow_insecure(true)
            .build()?;
        return Ok((Route::OneProduct, ctx));
    }
    let route = Route::fastest_for(size);
    let ctx = if derivable {
        route.derivable_context::<Fr>(size)?
    } else {
        route.context::<Fr>(size)?
    };
    Ok((route, ctx))
}

/// The owner's step: keys, the encrypted random input of `size` values, and the request.
/// `small` takes the insecure toy ring `N = 2048` (one product) instead of the fastest route's
/// secure context.
pub fn owner(
    dir: &Path,
    size: usize,
    small: bool,
    keys: KeyShipping,
) -> Result<OwnerReport, BoxError> {
    crate::job::check_size(size)?;
    let start = Instant::now();
    let derivable = match keys {
        KeyShipping::MasterKeys => true,
        KeyShipping::AllGaloisKeys => false,
        KeyShipping::Auto => {
            !small && {
                let route = Route::fastest_for(size);
                route.derivable_context::<Fr>(size)?.ring_degree()
                    == route.context::<Fr>(size)?.ring_degree()
            }
        }
    };
    let (route, ctx) = route_and_context(size, small, derivable)?;
    let fft = transform(route, &ctx, size)?;
    fs::create_dir_all(dir.join("public"))?;
    fs::create_dir_all(dir.join("owner"))?;
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let t = Instant::now();
    let (key_file, key_bytes) = if derivable {
        ("masters.bin", MasterKeys::generate(&sk)?.to_bytes()?)
    } else {
        (
            "galois.bin",
            GaloisKeys::generate(&sk, &fft.galois_steps())?.to_bytes()?,
        )
    };
    let galois_keygen_time = t.elapsed();
    // Test data, not a secret: a time seed is enough.
    let mut rng = ark_std::rand::rngs::StdRng::seed_from_u64(crate::demo::time_seed());
    let x: Vec<Fr> = (0..size).map(|_| Fr::rand(&mut rng)).collect();
    // Secret-key encryption: the owner has the key anyway, and the upload is half the bytes
    // with more noise budget left for the server.
    let inputs = fft.encrypt_to_bytes(&sk, &x)?;
    let request = Request {
        size,
        count: inputs.len(),
        route,
    };

    let mut files = vec![
        ("context.bin".to_string(), ctx.to_bytes()?),
        // An FFT multiplies no two ciphertexts: no relinearization key.
        (
            "pubkey.bin".to_string(),
            pk.to_bytes_without_relinearization()?,
        ),
        (key_file.to_string(), key_bytes),
        ("request.txt".to_string(), request.to_text().into_bytes()),
    ];
    for (i, bytes) in inputs.into_iter().enumerate() {
        files.push((format!("input-{i}.ct"), bytes));
    }
    // Outputs (and the other kind of keys) of an earlier run must not pass for this one's.
    let _ = fs::remove_file(public(dir, "masters.bin"));
    let _ = fs::remove_file(public(dir, "galois.bin"));
    for i in 0..he_fft::Layout::MAX_CIPHERTEXTS {
        let _ = fs::remove_file(public(dir, &format!("output-{i}.ct")));
    }
    for (name, bytes) in &files {
        write(public(dir, name), bytes)?;
    }
    write_private(private(dir, "secret.bin"), &sk.to_bytes()?)?;
    let plain: String = x.iter().map(|v| format!("{v}\n")).collect();
    write_private(private(dir, "input.txt"), plain.as_bytes())?;
    // The owner's own copies: verification trusts nothing the server can write.
    for name in ["context.bin", "pubkey.bin", "request.txt"] {
        let bytes = &files.iter().find(|(n, _)| n == name).ok_or(name)?.1;
        write(private(dir, name), bytes)?;
    }
    Ok(OwnerReport {
        request,
        files: files.iter().map(|(n, b)| (n.clone(), b.len())).collect(),
        ring_degree: ctx.ring_degree(),
        security: ctx.security_label(),
        time: start.elapsed(),
        galois_keygen_time,
        master_keys: derivable,
    })
}

/// What [`server`] did.
#[derive(Debug)]
pub struct ServerReport {
    /// The request it served.
    pub request: Request,
    /// Galois keys read or derived.
    pub keys: usize,
    /// Master keys the Galois keys were derived from (0: every key was shipped).
    pub masters: usize,
    /// Reading (and deriving) the keys: ready for the first transform.
    pub keys_ready_time: Duration,
    /// Deriving the Galois keys from the masters, within `keys_ready_time`.
    pub derive_time: Option<Duration>,
    /// Reading and validating the public key and the ciphertexts.
    pub load_time: Duration,
    /// The FFT (with encoding its diagonals) and writing the outputs.
    pub run_time: Duration,
    /// Bytes of the outputs, as the owner downloads them.
    pub download_bytes: u64,
}

/// The server's step: reads `DIR/public/` only and writes the encrypted result there.
/// It builds the context the request calls for and refuses a `context.bin` with other bytes
/// before building anything from it; every other file is read no further than its kind allows
/// under that context. `allow_toy` serves the owner's `--small` toy ring (below 128-bit
/// security) instead of the secure one.
pub fn server(dir: &Path, allow_toy: bool) -> Result<ServerReport, BoxError> {
    let request = read_request(public(dir, "request.txt"))?;
    let load = Instant::now();
    let masters_path = public(dir, "masters.bin");
    let derivable = masters_path.exists();
    // The server's own context for the request, compared with the owner's bytes: a context
    // file is never built as it stands, so a forged one costs nothing.
    let (route, ctx) = route_and_context(request.size, allow_toy, derivable)?;
    if route != request.route {
        return Err(format!(
            "the request names the route {}, but {} points take {}",
            request.route, request.size, route
        )
        .into());
    }
    ctx.check_context_file(&public(dir, "context.bin"))
        .map_err(|e| {
            format!(
                "{e}, the context of {} points; {}",
                request.size,
                crate::job::TOY_HINT
            )
        })?;
    let pk = PubKey::from_bytes(
        &ctx,
        &ctx.read_object_file(&public(dir, "pubkey.bin"), ObjectKind::PublicKey)?,
    )?;
    let load_time = load.elapsed();
    // The keys: derived from master keys where the owner shipped those.
    let fft = transform(route, &ctx, request.size)?;
    let needed = fft.galois_steps().max_keys();
    let keys = Instant::now();
    let (gk, masters, derive_time) = if derivable {
        let bytes = ctx.read_object_file(
            &masters_path,
            ObjectKind::MasterKeys(MasterKeys::default_steps(&ctx).max_keys()),
        )?;
        let masters = MasterKeys::from_bytes(&ctx, &bytes)?;
        let t = Instant::now();
        let gk = masters.derive(&fft.galois_steps())?;
        (gk, masters.elements().len(), Some(t.elapsed()))
    } else {
        let path = public(dir, "galois.bin");
        let gk = GaloisKeys::from_bytes(
            &ctx,
            &ctx.read_object_file(&path, ObjectKind::GaloisKeys(needed))?,
        )?;
        (gk, 0, None)
    };
    let keys_ready_time = keys.elapsed();
    let load = Instant::now();
    let cts = (0..request.count)
        .map(|i| {
            let path = public(dir, &format!("input-{i}.ct"));
            Ok(Ctxt::from_bytes(
                &pk,
                &ctx.read_object_file(&path, ObjectKind::Ciphertext)?,
            )?)
        })
        .collect::<Result<Vec<_>, BoxError>>()?;
    let load_time = load_time + load.elapsed();

    let run = Instant::now();
    let out = fft.apply(&gk, &cts)?;
    let mut download_bytes = 0u64;
    for (i, mut ct) in out.into_iter().enumerate() {
        // The fewest primes the owner's decryption needs: the smallest download.
        ct.compact_for_decryption(helib_rs::DECRYPTION_MARGIN_BITS)?;
        let bytes = ct.to_bytes()?;
        download_bytes += bytes.len() as u64;
        write(public(dir, &format!("output-{i}.ct")), &bytes)?;
    }
    Ok(ServerReport {
        request,
        keys: gk.elements().len(),
        masters,
        keys_ready_time,
        derive_time,
        load_time,
        run_time: run.elapsed(),
        download_bytes,
    })
}

/// The owner's last step: decrypts the server's outputs with what it kept in `DIR/owner/`
/// and checks them against its own input and request. `Ok` with `accepted: false` is a
/// rejected result; `Err` is a result that could not be read or decrypted (equally not to be
/// used, and equally not to be reported back to the server).
pub fn verify(dir: &Path) -> Result<Verdict, BoxError> {
    let request = read_request(private(dir, "request.txt"))?;
    let ctx = Context::from_bytes_allow_insecure(&helib_rs::read_file_at_most(
        &private(dir, "context.bin"),
        MAX_CONTEXT_BYTES,
    )?)?;
    let (sk, pk) = crate::job::read_key_pair(
        &ctx,
        &private(dir, "secret.bin"),
        &private(dir, "pubkey.bin"),
    )?;
    let max_input = request.size as u64 * MAX_LINE_BYTES;
    let x = String::from_utf8(helib_rs::read_file_at_most(
        &private(dir, "input.txt"),
        max_input,
    )?)?
    .lines()
    .map(|l| {
        l.parse::<Fr>()
            .map_err(|_| format!("bad field element {l:?}"))
    })
    .collect::<Result<Vec<_>, _>>()?;
    if x.len() != request.size {
        return Err(format!(
            "the kept input has {} values, the request {}",
            x.len(),
            request.size
        )
        .into());
    }
    let outs = (0..request.count)
        .map(|i| {
            let path = public(dir, &format!("output-{i}.ct"));
            Ok(Ctxt::from_bytes(
                &pk,
                &ctx.read_object_file(&path, ObjectKind::Ciphertext)?,
            )?)
        })
        .collect::<Result<Vec<_>, BoxError>>()?;
    let fft = transform(request.route, &ctx, request.size)?;
    let y = fft.decrypt(&sk, &outs)?;
    let domain = subgroup(request.size)?;
    let t = Instant::now();
    let checked = check::fft(&domain, Direction::Forward, &x, &y);
    let check_time = t.elapsed();
    let (_, plain_fft_time) = crate::median_time(|| domain.fft(&x));
    Ok(Verdict {
        accepted: checked.is_ok(),
        reason: checked.err().map(|e| e.to_string()),
        check_time,
        plain_fft_time,
        noise_budget: outs
            .iter()
            .map(Ctxt::noise_budget)
            .fold(f64::INFINITY, f64::min),
    })
}
