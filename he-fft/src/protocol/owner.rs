//! The owner's two steps of a file exchange: [`OwnerJob`] before the server runs, and
//! [`OwnerKeys`] after.

use std::time::{Duration, Instant};

use ark_ff::{FftField, PrimeField};
use helib_rs::{
    Context, Ctxt, GaloisKeys, MasterKeys, ObjectKind, PubKey, SecKey, MAX_CONTEXT_BYTES,
};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::protocol::exchange_dir::{
    ExchangeDir, Side, CONTEXT_FILE, GALOIS_KEYS_FILE, MASTER_KEYS_FILE, PUBLIC_KEY_FILE,
    SECRET_KEY_FILE,
};
use crate::protocol::request::{Job, KeyKind, Request};
use crate::{DiagonalCache, EncryptedTransform};

/// What [`OwnerJob::write`] did.
#[derive(Debug)]
pub struct OwnerReport {
    /// `(file name, bytes)` of everything written to `public/`.
    pub files: Vec<(String, usize)>,
    /// Ring degree of the request's context.
    pub ring_degree: usize,
    /// [`Context::security_label`].
    pub security: String,
    /// Generating the Galois or master keys alone.
    pub galois_keygen_time: Duration,
    /// Encrypting the inputs alone.
    pub encrypt_time: Duration,
    /// Keys, encryption and files.
    pub time: Duration,
}

/// The owner's first step: the request's context and transform, built (and so checked)
/// before any input is made, then [`write`](Self::write).
pub struct OwnerJob<F: FftField + PrimeField> {
    request: Request,
    ctx: Context,
    transform: Box<dyn EncryptedTransform<F>>,
}

impl<F: FftField + PrimeField> OwnerJob<F> {
    /// The context and transform `request` names: an error here (a size no route takes, a
    /// ring too small) costs no input and writes nothing.
    ///
    /// A request without `chains` gets the plans' default on the owner's pool (a server-only
    /// witness map's: [`witness_map_chains`](crate::witness_map_chains); the other jobs'
    /// with Galois keys: one per thread). The
    /// chains decide some of the Galois keys, so the server then needs exactly the keys
    /// shipped, whatever its own thread count.
    pub fn new(request: &Request) -> Result<OwnerJob<F>> {
        let mut request = *request;
        let ctx = request.context::<F>()?;
        request = match request.job {
            Job::WitnessMap => {
                request.with_chains_if_unset(crate::witness_map_chains(&ctx, request.size))
            }
            // No Galois keys, so nothing for the chains to decide.
            Job::ClientAssistedWitnessMap => request,
            _ => request.with_pinned_chains(),
        };
        let transform = request.transform::<F>(&ctx, DiagonalCache::Never)?;
        Ok(OwnerJob {
            request,
            ctx,
            transform,
        })
    }

    /// The request as written: with the choices [`new`](Self::new) fixed.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The transform, for its [`info`](EncryptedTransform::info): how many input vectors of
    /// how many values [`write`](Self::write) takes.
    pub fn transform(&self) -> &dyn EncryptedTransform<F> {
        self.transform.as_ref()
    }

    /// A fresh key pair, the Galois (or master) keys the transform needs, and each of
    /// `inputs` (one slice per input vector) encrypted with the secret key (half the upload
    /// of public-key ciphertexts), written to `public/` with the context, the public key and
    /// the request. `owner/` gets the secret key (0600) and the owner's own copies of the
    /// context, public key and request.
    pub fn write(&self, dir: &ExchangeDir, inputs: &[&[F]]) -> Result<OwnerReport> {
        let start = Instant::now();
        let info = self.transform.info();
        if inputs.len() != info.num_inputs {
            return Err(Error::wrong_length(
                format!("{}'s input vectors", info.name),
                info.num_inputs,
                inputs.len(),
            ));
        }
        dir.create()?;
        let sk = SecKey::generate(&self.ctx)?;
        let pk = PubKey::generate(&sk)?;
        let keygen = Instant::now();
        let steps = self.transform.galois_steps();
        let keys = match self.request.keys {
            _ if steps.max_keys() == 0 => None,
            KeyKind::Galois => Some((
                GALOIS_KEYS_FILE,
                GaloisKeys::generate(&sk, &steps)?.to_bytes()?,
            )),
            KeyKind::Master => Some((MASTER_KEYS_FILE, MasterKeys::generate(&sk)?.to_bytes()?)),
        };
        let galois_keygen_time = keygen.elapsed();
        let pk_bytes = if self.request.needs_relinearization() {
            pk.to_bytes()?
        } else {
            pk.to_bytes_without_relinearization()?
        };
        let mut files = vec![
            (CONTEXT_FILE.to_string(), self.ctx.to_bytes()?),
            (PUBLIC_KEY_FILE.to_string(), pk_bytes),
        ];
        files.extend(keys.map(|(name, bytes)| (name.to_string(), bytes)));
        let encrypt = Instant::now();
        let mut i = 0;
        for x in inputs {
            for bytes in self.transform.encrypt_to_bytes(&sk, x)? {
                files.push((ExchangeDir::input_name(i), bytes));
                i += 1;
            }
        }
        let encrypt_time = encrypt.elapsed();
        for (name, bytes) in &files {
            dir.write(Side::Public, name, bytes)?;
        }
        dir.write_secret(SECRET_KEY_FILE, &sk.to_bytes()?)?;
        dir.write(Side::Owner, CONTEXT_FILE, &files[0].1)?;
        dir.write(Side::Owner, PUBLIC_KEY_FILE, &files[1].1)?;
        dir.write_request(&self.request)?;
        Ok(OwnerReport {
            files: files.iter().map(|(n, b)| (n.clone(), b.len())).collect(),
            ring_degree: self.ctx.ring_degree(),
            security: self.ctx.security_label(),
            galois_keygen_time,
            encrypt_time,
            time: start.elapsed(),
        })
    }
}

/// What the owner kept in `owner/`: its request, context and key pair, read back for the last
/// step. Nothing in `public/` is trusted here; the outputs are taken only as ciphertexts
/// under the owner's key, and what they decrypt to is for the caller's check.
pub struct OwnerKeys {
    /// The owner's copy of the request.
    pub request: Request,
    /// The context it names.
    pub ctx: Context,
    /// The secret key.
    pub sk: SecKey,
    /// The public key.
    pub pk: PubKey,
}

impl OwnerKeys {
    /// Reads `owner/`: the request, the context it names (compared with the owner's context
    /// file), and the key pair, each read no further than its kind allows; the secret key's
    /// bytes are wiped once parsed.
    pub fn open<F: FftField + PrimeField>(dir: &ExchangeDir) -> Result<OwnerKeys> {
        let request = dir.read_request(Side::Owner)?;
        let ctx = request.context::<F>()?;
        let kept =
            helib_rs::read_file_at_most(&dir.path(Side::Owner, CONTEXT_FILE), MAX_CONTEXT_BYTES)?;
        if kept != ctx.to_bytes()? {
            return Err(Error::Mismatch(format!(
                "owner/{CONTEXT_FILE} is not the context of owner/ request ({request})"
            )));
        }
        let secret = Zeroizing::new(ctx.read_object_file(
            &dir.path(Side::Owner, SECRET_KEY_FILE),
            ObjectKind::SecretKey,
        )?);
        let sk = SecKey::from_bytes(&ctx, &secret)?;
        let pk = dir.read_public_key(&ctx, Side::Owner)?;
        if !pk.belongs_to(&sk) {
            return Err(Error::Mismatch(
                "owner/ holds a public key of another secret key".into(),
            ));
        }
        Ok(OwnerKeys {
            request,
            ctx,
            sk,
            pk,
        })
    }

    /// The bytes of the server's outputs in `public/`, as many as the request's transform
    /// returns, each read no further than a ciphertext may be and taken only if it is a
    /// ciphertext under the owner's key.
    pub fn output_bytes<F: FftField + PrimeField>(
        &self,
        dir: &ExchangeDir,
    ) -> Result<Vec<Vec<u8>>> {
        let count = self.transform::<F>()?.info().output_ciphertexts;
        let bytes = dir.read_ciphertext_bytes(&self.ctx, ExchangeDir::output_name, 0..count)?;
        for b in &bytes {
            Ctxt::from_bytes(&self.pk, b)?;
        }
        Ok(bytes)
    }

    /// The server's outputs decrypted: the transform's result values in natural order, and
    /// the smallest noise budget left among the outputs.
    pub fn decrypt_outputs<F: FftField + PrimeField>(
        &self,
        dir: &ExchangeDir,
    ) -> Result<(Vec<F>, f64)> {
        let transform = self.transform::<F>()?;
        let count = transform.info().output_ciphertexts;
        let outputs = dir.read_ciphertexts(&self.pk, ExchangeDir::output_name, 0..count)?;
        let budget = outputs
            .iter()
            .map(Ctxt::noise_budget)
            .fold(f64::INFINITY, f64::min);
        Ok((transform.decrypt(&self.sk, &outputs)?, budget))
    }

    /// The request's transform on the owner's context.
    pub fn transform<F: FftField + PrimeField>(&self) -> Result<Box<dyn EncryptedTransform<F>>> {
        self.request.transform::<F>(&self.ctx, DiagonalCache::Never)
    }
}
