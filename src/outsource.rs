//! The outsourced FFT of `examples/outsource.rs` as three steps that share nothing but files
//! (the layout and the steps of [`he_fft::protocol`]): the data owner encrypts ([`owner`]), a
//! server that never sees the secret key computes the FFT ([`server`]), and the owner
//! decrypts and checks the result ([`verify`]).
//!
//! `DIR/public/` is what the server reads and writes: context, public key (without its
//! relinearization key, which an FFT does not use), the master keys the server derives its
//! Galois keys from (or, with [`KeyShipping::AllGaloisKeys`], every Galois key), the encrypted
//! input and the request. `DIR/owner/` stays with the owner: the secret key and the
//! plain input (both written 0600), and its own copies of the context, public key and request.
//! [`verify`] trusts nothing in `DIR/public/` but the output ciphertexts, and those only after
//! they decrypt under the owner's key and pass the owner's `O(n)` check
//! ([`he_fft::check::fft`]).

use std::path::Path;
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_ff::UniformRand;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::SeedableRng;
use he_fft::protocol::{
    self, ExchangeDir, Job, KeyKind, OwnerJob, OwnerKeys, Request, ServePolicy, ServerReport, Side,
};
use he_fft::{check, Direction, Route};

use crate::job::BoxError;

/// The owner's copy of its plain input (0600).
const INPUT_FILE: &str = "input.txt";

/// What the owner ships for the server's Galois keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeyShipping {
    /// Master keys where the route's ring has room for derived keys (the two-stage sizes),
    /// every Galois key elsewhere (room there takes a larger, slower ring).
    #[default]
    Auto,
    /// A few master keys (`masters.bin`), from which the server derives the keys it needs
    /// ([`helib_rs::MasterKeys`]): a fraction of the bytes, on a context with room for
    /// derived keys.
    MasterKeys,
    /// Every Galois key the transform uses (`galois.bin`): more bytes, no derivation.
    AllGaloisKeys,
}

/// What [`owner`] did, for the example to print.
#[derive(Debug)]
pub struct OwnerReport {
    /// The request written to both sides.
    pub request: Request,
    /// The route the request names.
    pub route: Route,
    /// The protocol's report: files, ring, security, times.
    pub files: protocol::OwnerReport,
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
    let route = if small {
        Route::OneProduct
    } else {
        Route::fastest_for(size)
    };
    let master_keys = match keys {
        KeyShipping::MasterKeys => true,
        KeyShipping::AllGaloisKeys => false,
        // Master keys only where room for derived keys costs no larger ring.
        KeyShipping::Auto => {
            !small
                && route.derivable_context::<Fr>(size)?.ring_degree()
                    == route.context::<Fr>(size)?.ring_degree()
        }
    };
    let mut request = Request::new(
        Job::Fft {
            direction: Direction::Forward,
            route,
        },
        size,
    );
    if small {
        request = request.on_toy_ring();
    }
    if master_keys {
        request.keys = KeyKind::Master;
    }
    let job = OwnerJob::<Fr>::new(&request)?;
    // Test data, not a secret: a time seed is enough.
    let mut rng = ark_std::rand::rngs::StdRng::seed_from_u64(crate::demo::time_seed());
    let x: Vec<Fr> = (0..size).map(|_| Fr::rand(&mut rng)).collect();
    let exchange = ExchangeDir::new(dir);
    let files = job.write(&exchange, &[&x])?;
    let plain: String = x.iter().map(|v| format!("{v}\n")).collect();
    exchange.write_secret(INPUT_FILE, plain.as_bytes())?;
    Ok(OwnerReport {
        request: *job.request(),
        route,
        files,
        master_keys,
    })
}

/// The server's step ([`protocol::serve_directory`]): reads `DIR/public/` only and writes the
/// encrypted result there. `allow_toy` serves the owner's `--small` toy ring (below 128-bit
/// security).
pub fn server(dir: &Path, allow_toy: bool) -> Result<ServerReport, BoxError> {
    let policy = ServePolicy {
        allow_toy_ring: allow_toy,
        serve_witness_map: false,
        ..ServePolicy::default()
    };
    Ok(protocol::serve_directory::<Fr>(
        &ExchangeDir::new(dir),
        policy,
        &|_, _| {},
    )?)
}

/// The owner's last step: decrypts the server's outputs with what it kept in `DIR/owner/`
/// and checks them against its own input and request. `Ok` with `accepted: false` is a
/// rejected result; `Err` is a result that could not be read or decrypted (equally not to be
/// used, and equally not to be reported back to the server).
pub fn verify(dir: &Path) -> Result<Verdict, BoxError> {
    let exchange = ExchangeDir::new(dir);
    let kept = OwnerKeys::open::<Fr>(&exchange)?;
    let Job::Fft { direction, .. } = kept.request.job else {
        return Err(format!("owner/ holds a request for another job: {}", kept.request).into());
    };
    let size = kept.request.size;
    let x = crate::field_text::read_elements(&exchange.path(Side::Owner, INPUT_FILE), size)?;
    if x.len() != size {
        return Err(format!("the kept input has {} values, the request {size}", x.len()).into());
    }
    let (y, noise_budget) = kept.decrypt_outputs::<Fr>(&exchange)?;
    let domain = Radix2EvaluationDomain::<Fr>::new(size).ok_or("no FFT domain of this size")?;
    let t = Instant::now();
    let checked = check::fft(&domain, direction, &x, &y);
    let check_time = t.elapsed();
    let (_, plain_fft_time) = crate::median_time(|| domain.fft(&x));
    Ok(Verdict {
        accepted: checked.is_ok(),
        reason: checked.err().map(|e| e.to_string()),
        check_time,
        plain_fft_time,
        noise_budget,
    })
}
