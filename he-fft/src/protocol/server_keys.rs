//! [`ServerKeys`]: what a server loads once per owner's request (context, public key,
//! Galois keys, transform) to serve any number of input sets.

use std::time::{Duration, Instant};

use ark_ff::{FftField, PrimeField};
use helib_rs::{Context, GaloisKeys, GaloisSteps, MasterKeys, ObjectKind, PubKey};

use crate::error::{Error, Result};
use crate::protocol::exchange_dir::{
    ExchangeDir, Side, CONTEXT_FILE, GALOIS_KEYS_FILE, MASTER_KEYS_FILE, MATRIX_FILE,
};
use crate::protocol::file_server::ServePolicy;
use crate::protocol::matrix_bytes::{matrix_from_bytes, matrix_len};
use crate::protocol::request::Job;
use crate::protocol::request::{KeyKind, Request};
use crate::{EncryptedTransform, Progress};

/// What a server holds for one owner's request: the context, the public key, the Galois keys
/// (read, or derived once from master keys) and the transform, loaded from an exchange's
/// `public/` and then used for any number of input sets ([`serve`](Self::serve)). A
/// long-running server keeps it between jobs, so that neither the keys nor (with a cache
/// policy that keeps them) the encoded diagonals are loaded twice.
pub struct ServerKeys<F: FftField + PrimeField> {
    pub(super) request: Request,
    pub(super) ctx: Context,
    pub(super) pk: PubKey,
    pub(super) gk: Option<GaloisKeys>,
    pub(super) transform: Box<dyn EncryptedTransform<F>>,
    pub(super) masters: usize,
    pub(super) keys_ready_time: Duration,
    pub(super) derive_time: Option<Duration>,
    pub(super) load_time: Duration,
    pub(super) setup_time: Duration,
}

/// What [`ServerKeys::serve`] did.
#[derive(Clone, Copy, Debug)]
pub struct ServeRun {
    /// Reading the input files (one at a time, as the transform needed them).
    pub read_time: Duration,
    /// The transform and writing the outputs, the reads left out.
    pub run_time: Duration,
    /// Bytes of the outputs, as the owner downloads them.
    pub download_bytes: u64,
    /// Output files written (`output-0.ct` on).
    pub outputs: usize,
}

impl<F: FftField + PrimeField> ServerKeys<F> {
    /// Reads the request, context, public key and keys from `dir`'s `public/`, checked as
    /// [`serve_directory`](super::serve_directory) says, and builds the transform with `policy`'s cache.
    pub fn open(dir: &ExchangeDir, policy: ServePolicy) -> Result<Self> {
        let request = dir.read_request(Side::Public)?;
        policy.check(&request)?;
        let load = Instant::now();
        let ctx = request.context::<F>()?;
        ctx.check_context_file(&dir.path(Side::Public, CONTEXT_FILE))
            .map_err(|e| {
                Error::Mismatch(format!("{e}: not the context of the request ({request})"))
            })?;
        let pk = dir.read_public_key(&ctx, Side::Public)?;
        let load_time = load.elapsed();

        let setup = Instant::now();
        let transform: Box<dyn EncryptedTransform<F>> = match request.job {
            Job::MatrixProduct { rows, columns } => {
                let path = dir.path(Side::Public, MATRIX_FILE);
                let bytes = read_bounded(&path, matrix_len::<F>(rows, columns))?;
                let matrix = matrix_from_bytes::<F>(&bytes, rows, columns)?;
                drop(bytes);
                Box::new(request.product_by(&ctx, policy.cache, matrix)?)
            }
            _ => request.transform::<F>(&ctx, policy.cache)?,
        };
        let setup_time = setup.elapsed();

        let keys = Instant::now();
        let (gk, masters, derive_time) = read_keys(dir, &ctx, &request, transform.as_ref())?;
        if gk.as_ref().is_some_and(|gk| !gk.matches(&pk)) {
            return Err(Error::Mismatch(
                "the Galois (or master) keys come from another secret key than the public key"
                    .into(),
            ));
        }
        if let Some(gk) = &gk {
            check_coverage(gk, &transform.galois_steps(), &request)?;
        }
        Ok(ServerKeys {
            request,
            ctx,
            pk,
            gk,
            transform,
            masters,
            keys_ready_time: keys.elapsed(),
            derive_time,
            load_time,
            setup_time,
        })
    }

    /// The request these keys serve.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The request's context.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The owner's public key (ciphertexts are parsed under it).
    pub fn public_key(&self) -> &PubKey {
        &self.pk
    }

    /// The transform the request names.
    pub fn transform(&self) -> &dyn EncryptedTransform<F> {
        self.transform.as_ref()
    }

    /// Bytes the keys, a matrix product's matrix and the kept diagonals take in memory.
    pub fn memory_bytes(&self) -> u64 {
        let matrix = match self.request.job {
            Job::MatrixProduct { rows, columns } => {
                (rows as u64 * columns as u64).saturating_mul(std::mem::size_of::<F>() as u64)
            }
            _ => 0,
        };
        self.gk.as_ref().map_or(0, GaloisKeys::size_bytes) + self.transform.cache_bytes() + matrix
    }

    /// Runs the transform on the input files of `job`'s `public/` (`input-0.ct` on, as many
    /// as the transform takes, each refused before any work if missing or larger than a
    /// ciphertext may be, then read when needed) and writes the outputs there
    /// (`output-0.ct` on), switched down to the fewest primes the owner's decryption needs.
    /// `job` may be the directory the keys came from or another one.
    pub fn serve(&self, job: &ExchangeDir, progress: Progress<'_>) -> Result<ServeRun> {
        self.serve_until(job, progress, &|| false)
    }

    /// [`serve`](Self::serve), ending with [`Error::Stopped`] at the next input read once
    /// `stop()` says so. Transforms that read their inputs as they go stop within one of
    /// their steps (the four-step witness map: before its next component, about 8 s at
    /// `n = 2^20`); the others read everything first and then run to the end.
    pub fn serve_until(
        &self,
        job: &ExchangeDir,
        progress: Progress<'_>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<ServeRun> {
        // Each input file is read when the transform needs it (the four-step witness map holds
        // two at a time), so a missing or oversized one is refused first, before any work; the
        // reads count as loading, not as the run (they come one at a time).
        let count = self.transform.info().total_input_ciphertexts();
        check_input_files(job, &self.ctx, count)?;
        let reading_ns = std::sync::atomic::AtomicU64::new(0);
        let read = |i: usize| -> Result<helib_rs::Ctxt> {
            if stop() {
                return Err(Error::Stopped);
            }
            let start = Instant::now();
            let ct = job
                .read_ciphertexts(&self.pk, ExchangeDir::input_name, i..i + 1)?
                .pop()
                .ok_or_else(|| Error::Internal("an input file read as nothing".into()))?;
            let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
            reading_ns.fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
            Ok(ct)
        };
        let run = Instant::now();
        let outputs = self
            .transform
            .apply_reading(self.gk.as_ref(), &read, progress)?;
        let read_time = Duration::from_nanos(reading_ns.load(std::sync::atomic::Ordering::Relaxed));
        let mut download_bytes = 0u64;
        let count = outputs.len();
        for (i, mut ct) in outputs.into_iter().enumerate() {
            ct.compact_for_decryption(self.request.decryption_margin_bits(&self.ctx))?;
            let bytes = ct.to_bytes()?;
            download_bytes += bytes.len() as u64;
            job.write(Side::Public, &ExchangeDir::output_name(i), &bytes)?;
        }
        Ok(ServeRun {
            read_time,
            run_time: run.elapsed().saturating_sub(read_time),
            download_bytes,
            outputs: count,
        })
    }
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

/// [`Error::Mismatch`] unless `gk` has a key for every rotation `steps` names: a key set
/// that could never serve its request is refused when it arrives, not at its first job.
fn check_coverage(gk: &GaloisKeys, steps: &GaloisSteps, request: &Request) -> Result<()> {
    let lacking = |what: String| {
        Err(Error::Mismatch(format!(
            "the key set has no Galois key for {what}, which the transform uses ({request})"
        )))
    };
    if let Some(k) = steps.requested_steps().iter().find(|&&k| !gk.has_step(k)) {
        return lacking(format!("the rotation by {k}"));
    }
    if steps.includes_row_swap() && !gk.has_row_swap() {
        return lacking("the row swap".into());
    }
    Ok(())
}

/// The bytes of `path`, refused unless exactly `len` long (checked before reading).
fn read_bounded(path: &std::path::Path, len: u64) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| Error::BadRequest(format!("{}: {e}", path.display()));
    let found = std::fs::metadata(path).map_err(io)?.len();
    if found != len {
        return Err(Error::BadRequest(format!(
            "{}: {found} bytes, not the {len} the request's matrix takes",
            path.display()
        )));
    }
    std::fs::read(path).map_err(io)
}

/// [`Error::BadRequest`] unless all `count` input files are there, none longer than a
/// ciphertext of `ctx` may be: what can be known of them before they are read.
fn check_input_files(dir: &ExchangeDir, ctx: &Context, count: usize) -> Result<()> {
    let max = ctx.max_serialized_len(ObjectKind::Ciphertext)?;
    for i in 0..count {
        let path = dir.path(Side::Public, &ExchangeDir::input_name(i));
        let len = std::fs::metadata(&path)
            .map_err(|e| Error::BadRequest(format!("{}: {e}", path.display())))?
            .len();
        if len > max {
            return Err(Error::BadRequest(format!(
                "{}: {len} bytes, more than a ciphertext of this context may take ({max})",
                path.display()
            )));
        }
    }
    Ok(())
}
