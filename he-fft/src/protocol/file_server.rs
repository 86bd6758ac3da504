//! [`serve_directory`]: the server's step of a file exchange, for every job a [`Request`]
//! names.

use std::time::{Duration, Instant};

use ark_ff::{FftField, PrimeField};
use helib_rs::{Context, GaloisKeys, MasterKeys, ObjectKind};

use crate::error::{Error, Result};
use crate::protocol::exchange_dir::{
    ExchangeDir, Side, CONTEXT_FILE, GALOIS_KEYS_FILE, MASTER_KEYS_FILE,
};
use crate::protocol::request::{KeyKind, Request, Ring};
use crate::{DiagonalCache, EncryptedTransform, Progress};

/// What the server is willing to do with a request: by default, secure rings only and no
/// diagonals kept between runs.
#[derive(Clone, Copy, Debug)]
pub struct ServePolicy {
    /// Serve requests on the insecure toy ring (tests and demonstrations).
    pub allow_toy_ring: bool,
    /// Whether the transform keeps its encoded diagonals in memory.
    pub cache: DiagonalCache,
}

impl Default for ServePolicy {
    fn default() -> Self {
        ServePolicy {
            allow_toy_ring: false,
            cache: DiagonalCache::Never,
        }
    }
}

/// What [`serve_directory`] did.
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
    /// Reading and validating the context, the public key and the ciphertexts.
    pub load_time: Duration,
    /// Building the transform (its plans and, when cached, its encoded diagonals).
    pub setup_time: Duration,
    /// The transform and writing the outputs.
    pub run_time: Duration,
    /// Bytes of the outputs, as the owner downloads them.
    pub download_bytes: u64,
}

/// The server's step: reads `public/` only and writes the encrypted result there.
///
/// It builds the context the request calls for and refuses a [`CONTEXT_FILE`] with other
/// bytes before building anything from it; every other file is read no further than its kind
/// allows under that context. A request on the toy ring is refused unless `policy` allows
/// it. The outputs are switched down to the fewest primes the owner's decryption needs.
pub fn serve_directory<F: FftField + PrimeField>(
    dir: &ExchangeDir,
    policy: ServePolicy,
    progress: Progress<'_>,
) -> Result<ServerReport> {
    let request = dir.read_request(Side::Public)?;
    if request.ring == Ring::Toy && !policy.allow_toy_ring {
        return Err(Error::InvalidArgument(format!(
            "the request ({request}) is on the insecure toy ring, which this server serves only \
             when allowed to (--small)"
        )));
    }
    let load = Instant::now();
    let ctx = request.context::<F>()?;
    ctx.check_context_file(&dir.path(Side::Public, CONTEXT_FILE))
        .map_err(|e| Error::Mismatch(format!("{e}: not the context of the request ({request})")))?;
    let pk = dir.read_public_key(&ctx, Side::Public)?;
    let load_time = load.elapsed();

    let setup = Instant::now();
    let transform = request.transform::<F>(&ctx, policy.cache)?;
    let setup_time = setup.elapsed();

    let keys = Instant::now();
    let (gk, masters, derive_time) = read_keys(dir, &ctx, &request, transform.as_ref())?;
    let keys_ready_time = keys.elapsed();

    let load = Instant::now();
    let count = transform.info().total_input_ciphertexts();
    let inputs = dir.read_ciphertexts(&pk, ExchangeDir::input_name, count)?;
    let load_time = load_time + load.elapsed();

    let run = Instant::now();
    let outputs = transform.apply_with(gk.as_ref(), &inputs, progress)?;
    let mut download_bytes = 0u64;
    for (i, mut ct) in outputs.into_iter().enumerate() {
        ct.compact_for_decryption(helib_rs::DECRYPTION_MARGIN_BITS)?;
        let bytes = ct.to_bytes()?;
        download_bytes += bytes.len() as u64;
        dir.write(Side::Public, &ExchangeDir::output_name(i), &bytes)?;
    }
    Ok(ServerReport {
        request,
        keys: gk.as_ref().map_or(0, |k| k.elements().len()),
        masters,
        keys_ready_time,
        derive_time,
        load_time,
        setup_time,
        run_time: run.elapsed(),
        download_bytes,
    })
}

/// The Galois keys the transform needs (none if it needs none), read or derived from the
/// master keys as the request says, with the number of masters and the derivation time.
fn read_keys<F: FftField + PrimeField>(
    dir: &ExchangeDir,
    ctx: &Context,
    request: &Request,
    transform: &dyn EncryptedTransform<F>,
) -> Result<(Option<GaloisKeys>, usize, Option<Duration>)> {
    let steps = transform.galois_steps();
    if steps.max_keys() == 0 {
        return Ok((None, 0, None));
    }
    match request.keys {
        KeyKind::Galois => {
            let path = dir.path(Side::Public, GALOIS_KEYS_FILE);
            let bytes = ctx.read_object_file(&path, ObjectKind::GaloisKeys(steps.max_keys()))?;
            Ok((Some(GaloisKeys::from_bytes(ctx, &bytes)?), 0, None))
        }
        KeyKind::Master => {
            let path = dir.path(Side::Public, MASTER_KEYS_FILE);
            let most = MasterKeys::default_steps(ctx).max_keys();
            let masters = MasterKeys::from_bytes(
                ctx,
                &ctx.read_object_file(&path, ObjectKind::MasterKeys(most))?,
            )?;
            let t = Instant::now();
            let gk = masters.derive(&steps)?;
            Ok((Some(gk), masters.elements().len(), Some(t.elapsed())))
        }
    }
}
