//! [`RemoteTransform`]: an owner's FFT, coset change or matrix product that runs on a remote
//! `he-server`, checked here.

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::check::{self, MatrixCheck};
use he_fft::protocol::{matrix_bytes, Domain, Job, KeyKind, KeySetParts, Request};
use he_fft::{DiagonalCache, EncryptedTransform, Matrix};
use helib_rs::{Ctxt, GaloisKeys, MasterKeys, PubKey, SecKey};

use crate::client::{Client, ClientError, Transfer};

/// An owner's linear transform on a remote server: fresh keys made here, the key set (with
/// a matrix product's matrix) uploaded once, then [`apply`](Self::apply) as often as
/// wanted, each result decrypted and checked here before it is returned.
///
/// The checks cost `O(n)` per result and never involve the server: the FFT's and the coset
/// change's evaluate both sides at a fresh random point ([`he_fft::check`]); a matrix
/// product's is Freivalds' ([`MatrixCheck`], its secret vector drawn at
/// [`upload`](Self::upload)).
///
/// ```no_run
/// use ark_bn254::Fr;
/// use he_client::{Client, RemoteTransform};
/// use he_fft::protocol::Request;
/// use he_fft::Matrix;
///
/// # fn main() -> Result<(), he_client::ClientError> {
/// let client = Client::with_token_file("http://127.0.0.1:8700", "target/he-server/token".as_ref())?;
/// // The FFT of 4096 points.
/// let fft = RemoteTransform::<Fr>::upload(client.clone(), Request::forward_fft(4096), None)?;
/// let y = fft.apply(&[&vec![Fr::from(1u64); 4096]])?;
/// // A 3 x 5 matrix of the owner's choosing.
/// let m = Matrix::from_fn_with_shape(3, 5, |r, c| Fr::from((r * 5 + c) as u64))?;
/// let product = RemoteTransform::upload(client, Request::matrix_product(3, 5), Some(m))?;
/// let z = product.apply(&[&[Fr::from(1u64); 5]])?;
/// # Ok(())
/// # }
/// ```
pub struct RemoteTransform<F: FftField + PrimeField> {
    client: Client,
    request: Request,
    key_set: String,
    sk: SecKey,
    pk: PubKey,
    transform: Box<dyn EncryptedTransform<F>>,
    matrix_check: Option<MatrixCheck<F>>,
}

impl<F: FftField + PrimeField> RemoteTransform<F> {
    /// Makes a key pair and the transform's Galois (or master) keys for `request`, and
    /// uploads the key set through `client` (nothing is sent if the server has it). A
    /// matrix-product request takes its `matrix`; every other takes `None`.
    ///
    /// Without `chains`, the request gets this machine's thread count, so the server plans
    /// the products the keys were made for whatever its own thread count.
    pub fn upload(
        client: Client,
        request: Request,
        matrix: Option<Matrix<F>>,
    ) -> Result<Self, ClientError> {
        if matches!(request.job, Job::WitnessMap | Job::ClientAssistedWitnessMap) {
            return Err(ClientError::Invalid(
                "a witness map runs through he_client::remote_witness_session".into(),
            ));
        }
        let request = request.with_pinned_chains();
        let ctx = request.context::<F>()?;
        let (transform, matrix_bytes, matrix_check): (Box<dyn EncryptedTransform<F>>, _, _) =
            match (request.job, matrix) {
                (Job::MatrixProduct { .. }, Some(m)) => {
                    let bytes = matrix_bytes(&m)?;
                    let check = MatrixCheck::new(&m)?;
                    let product = request.product_by(&ctx, DiagonalCache::Never, m)?;
                    (Box::new(product), bytes, Some(check))
                }
                (Job::MatrixProduct { .. }, None) => {
                    return Err(ClientError::Invalid(format!(
                        "a matrix-product request needs its matrix ({request})"
                    )))
                }
                (_, Some(_)) => {
                    return Err(ClientError::Invalid(format!(
                        "only a matrix-product request takes a matrix ({request})"
                    )))
                }
                (_, None) => (
                    request.transform::<F>(&ctx, DiagonalCache::Never)?,
                    Vec::new(),
                    None,
                ),
            };
        let sk = SecKey::generate(&ctx)?;
        let pk = PubKey::generate(&sk)?;
        let steps = transform.galois_steps();
        let keys = match request.keys {
            _ if steps.max_keys() == 0 => Vec::new(),
            KeyKind::Galois => GaloisKeys::generate(&sk, &steps)?.to_bytes()?,
            KeyKind::Master => MasterKeys::generate(&sk)?.to_bytes()?,
        };
        let (context_bytes, pk_bytes) = (ctx.to_bytes()?, pk.to_bytes_without_relinearization()?);
        let parts = KeySetParts {
            request,
            context: &context_bytes,
            public_key: &pk_bytes,
            keys: &keys,
            matrix: &matrix_bytes,
        };
        let key_set = client.upload_key_set(&parts)?;
        Ok(RemoteTransform {
            client,
            request,
            key_set,
            sk,
            pk,
            transform,
            matrix_check,
        })
    }

    /// The request the server serves (with the chains fixed at upload).
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The key set's id on the server.
    pub fn key_set(&self) -> &str {
        &self.key_set
    }

    /// The owner's copy of the transform: its [`info`](EncryptedTransform::info) says how
    /// many values [`apply`](Self::apply) takes and returns.
    pub fn transform(&self) -> &dyn EncryptedTransform<F> {
        self.transform.as_ref()
    }

    /// What this transform's uploads and jobs moved over the network so far.
    pub fn transfer(&self) -> Transfer {
        self.client.transfer()
    }

    /// Encrypts `inputs` (one slice, of the transform's input length), runs the transform on
    /// the server, decrypts the result and checks it: [`ClientError::Rejected`] for a result
    /// that is not the transform of the input.
    pub fn apply(&self, inputs: &[&[F]]) -> Result<Vec<F>, ClientError> {
        let [x] = inputs else {
            return Err(ClientError::Invalid(format!(
                "{} takes one input vector, got {}",
                self.transform.info().name,
                inputs.len()
            )));
        };
        let upload = self.transform.encrypt_to_bytes(&self.sk, x)?;
        let outputs = self.transform.info().output_ciphertexts;
        let ctx = self.transform.context();
        let (bytes, _) = self.client.run(&self.key_set, &upload, ctx, outputs)?;
        let cts = bytes
            .iter()
            .map(|b| Ctxt::from_bytes(&self.pk, b))
            .collect::<helib_rs::Result<Vec<_>>>()
            .map_err(he_fft::Error::from)?;
        let y = self.transform.decrypt(&self.sk, &cts)?;
        self.check(x, &y).map_err(ClientError::Rejected)?;
        Ok(y)
    }

    fn check(&self, x: &[F], y: &[F]) -> he_fft::Result<()> {
        let subgroup = || {
            Radix2EvaluationDomain::<F>::new(self.request.size).ok_or_else(|| {
                he_fft::Error::Internal(format!("no subgroup of size {}", self.request.size))
            })
        };
        let coset = |h: Radix2EvaluationDomain<F>| {
            h.get_coset(F::GENERATOR)
                .ok_or_else(|| he_fft::Error::Internal("the generator has no inverse".into()))
        };
        match self.request.job {
            Job::Fft { direction, .. } => {
                let h = subgroup()?;
                let domain = match self.request.domain {
                    Domain::Subgroup => h,
                    Domain::Coset => coset(h)?,
                };
                check::fft(&domain, direction, x, y)?
            }
            Job::CosetChange => {
                let h = subgroup()?;
                check::coset_change(&h, &coset(h)?, x, y)?
            }
            Job::MatrixProduct { .. } => match &self.matrix_check {
                Some(c) => c.check(x, y)?,
                None => return Err(he_fft::Error::Internal("no matrix check".into())),
            },
            Job::WitnessMap | Job::ClientAssistedWitnessMap => {
                return Err(he_fft::Error::Internal(
                    "a witness map is no transform here".into(),
                ))
            }
        }
        Ok(())
    }
}
