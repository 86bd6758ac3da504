//! [`Request`]: what an owner asks a server to compute, as one line of text both sides
//! parse the same way, and the context and transform a server rebuilds from it.

use std::fmt;
use std::str::FromStr;

use ark_ff::{FftField, PrimeField};
use ark_poly::EvaluationDomain;
use helib_rs::Context;

use crate::error::{Error, Result};
use crate::fft::matrices::subgroup;
use crate::protocol::matrix_bytes::MAX_MATRIX_ENTRIES;
use crate::{
    witness_map_ciphertext_bits, witness_map_context, witness_map_for, ClientAssistedWitnessMap,
    CosetChange, DiagonalCache, Direction, EncryptedTransform, Fft, FftOptions, Matrix,
    MatrixProduct, PlanOptions, Route, TransformInfo, MAX_FFT_SIZE,
};
use helib_rs::threshold::{MAX_SMUDGE_BITS, MIN_SMUDGE_BITS};
use helib_rs::GaloisSteps;

/// The ring degree of [`Ring::Toy`].
pub const TOY_RING_DEGREE: usize = 2048;

/// The longest request line a reader takes, in bytes.
pub const MAX_REQUEST_BYTES: usize = 256;

/// The most baby steps a request may fix (`2^20`, the largest slot row).
const MAX_BABY_STEPS: usize = 1 << 20;
/// The most Galois keys a request may give each stage's baby steps.
const MAX_BABY_STEP_KEYS: usize = 1024;
/// The most giant-step chains a request may fix.
const MAX_CHAINS: usize = 64;

/// The computation a request names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// The FFT (or inverse FFT) on the subgroup of the request's size, by `route`.
    Fft {
        /// Forward or inverse.
        direction: Direction,
        /// The route the server runs.
        route: Route,
    },
    /// Groth16's witness map on the subgroup of the request's size (the server-only route
    /// [`witness_map_for`] picks): `a`'s ciphertexts, then `b`'s, in; `h` out.
    WitnessMap,
    /// Groth16's witness map with the owner's interpolation
    /// ([`ClientAssistedWitnessMap`](crate::ClientAssistedWitnessMap)): the owner runs the two
    /// inverse FFTs in the clear, the server multiplies once, with no Galois keys (`n <= N/2`).
    ClientAssistedWitnessMap,
    /// Evaluations on the subgroup `H` to evaluations on its coset `g H` (`g` the field's
    /// generator, as ark-groth16 takes it): [`CosetChange`], one product with a circulant
    /// matrix, sizes up to 32768.
    CosetChange,
    /// A plaintext matrix of the owner's choosing times an encrypted vector
    /// ([`MatrixProduct`]): `rows x columns` entries, shipped with the key set
    /// ([`matrix_bytes`](crate::protocol::matrix_bytes)); the request's size is the
    /// power of two the product runs on (the least at least both sides).
    MatrixProduct {
        /// The matrix's rows: the output's length.
        rows: usize,
        /// The matrix's columns: the input's length.
        columns: usize,
    },
}

/// Where an FFT job's evaluations are: the subgroup `H` of the request's size, or its coset
/// `g H` with `g` the field's generator (`FftField::GENERATOR`, ark-groth16's coset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Domain {
    /// `H`.
    #[default]
    Subgroup,
    /// `g H`.
    Coset,
}

/// The ring a request runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ring {
    /// The job's own context of at least 128-bit security (the `he_fft` sizing helpers).
    #[default]
    Secure,
    /// The ring `N = 2048` (`TOY_RING_DEGREE`) with the job's modulus: far below 128-bit
    /// security, for tests and demonstrations only; a server serves it only when told to.
    Toy,
}

/// The evaluation keys the owner ships for the server's rotations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeyKind {
    /// Every Galois key the transform uses ([`galois_steps`](EncryptedTransform::galois_steps)).
    #[default]
    Galois,
    /// A few master keys the server derives the Galois keys from
    /// ([`helib_rs::MasterKeys`]), on a context with room for derived keys: FFT jobs only.
    Master,
}

/// What the owner asks for: the job, its size and every choice that changes the keys or the
/// result bytes, so the server rebuilds the same context and transform from it
/// ([`context`](Self::context), [`transform`](Self::transform)) and never builds what a
/// context file describes.
///
/// Its text form is one line of `key=value` fields (`Display`, `FromStr`):
///
/// ```
/// use he_fft::protocol::{Job, KeyKind, Request, Ring};
/// use he_fft::{Direction, Route};
///
/// let request: Request = "job=fft direction=forward route=two-stages size=4096".parse()?;
/// assert_eq!(request.job, Job::Fft { direction: Direction::Forward, route: Route::TwoStages });
/// assert_eq!((request.size, request.ring, request.keys), (4096, Ring::Secure, KeyKind::Galois));
/// assert_eq!(request.to_string().parse::<Request>()?, request);
/// assert!("job=fft size=4096 colour=blue".parse::<Request>().is_err());
/// # Ok::<(), he_fft::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The computation.
    pub job: Job,
    /// The domain size `n` (a power of two).
    pub size: usize,
    /// Secure, or the insecure toy ring.
    pub ring: Ring,
    /// Galois keys or master keys.
    pub keys: KeyKind,
    /// The subgroup or its coset (FFT jobs).
    pub domain: Domain,
    /// Baby steps per product (a power of two), or the plan's choice.
    pub baby_steps: Option<usize>,
    /// Galois keys per stage's baby steps (1 to 1024), or the plans' default (an FFT's: one
    /// per baby step; a witness map's: one per chain).
    pub baby_step_keys: Option<usize>,
    /// Giant-step chains per product, or the plans' default: one per thread for an FFT, half
    /// the pool for a witness map ([`witness_map_chains`](crate::witness_map_chains)).
    pub chains: Option<usize>,
    /// The parties whose key shares make the secret key (1: one owner; 2 to 64: a context
    /// for a shared key, [`helib_rs::threshold`], with the room their decryption takes).
    pub parties: u32,
    /// The statistical security of the parties' smudging, 40 to 128 bits (the default 40):
    /// the room the context keeps for it, and the server leaves in a result.
    pub smudge_bits: u32,
}

impl Request {
    /// A request for `job` at `size` on a secure context with Galois keys and the plans'
    /// default shapes.
    pub fn new(job: Job, size: usize) -> Request {
        Request {
            job,
            size,
            ring: Ring::Secure,
            keys: KeyKind::Galois,
            domain: Domain::Subgroup,
            baby_steps: None,
            baby_step_keys: None,
            chains: None,
            parties: 1,
            smudge_bits: MIN_SMUDGE_BITS,
        }
    }

    /// The forward FFT of `size` points by the fastest route for the size.
    pub fn forward_fft(size: usize) -> Request {
        Request::new(
            Job::Fft {
                direction: Direction::Forward,
                route: Route::fastest_for(size),
            },
            size,
        )
    }

    /// The product by a `rows x columns` matrix, on the least power of two holding it (at
    /// least 2).
    pub fn matrix_product(rows: usize, columns: usize) -> Request {
        let size = rows
            .max(columns)
            .max(2)
            .checked_next_power_of_two()
            .unwrap_or(0);
        Request::new(Job::MatrixProduct { rows, columns }, size)
    }

    /// The same request with `chains` fixed to this machine's thread count where it was left
    /// to the plans (which take one chain per thread): the plans, and so the Galois keys, are
    /// then the ones built here, whatever the server's thread count.
    pub fn with_pinned_chains(self) -> Request {
        self.with_chains_if_unset(rayon::current_num_threads())
    }

    /// The same request with `chains` set to `chains` (kept within 1 to 64) where it was left
    /// to the plans.
    pub fn with_chains_if_unset(mut self, chains: usize) -> Request {
        self.chains.get_or_insert(chains.clamp(1, MAX_CHAINS));
        self
    }

    /// The same request for a key shared by `parties` parties.
    pub fn shared_by(self, parties: u32) -> Request {
        Request { parties, ..self }
    }

    /// The noise budget the server leaves in a result for its decryption: one owner's, or
    /// the parties' smudging room ([`helib_rs::threshold::decryption_margin_bits`]).
    pub fn decryption_margin_bits(&self, ctx: &Context) -> f64 {
        helib_rs::threshold::decryption_margin_bits(ctx, self.smudge_bits)
    }

    /// The same request on the toy ring.
    pub fn on_toy_ring(self) -> Request {
        Request {
            ring: Ring::Toy,
            ..self
        }
    }

    /// Whether the server's ciphertexts are multiplied with each other, so the public key
    /// must carry its relinearization key (the witness map); an FFT's need not.
    pub fn needs_relinearization(&self) -> bool {
        matches!(self.job, Job::WitnessMap | Job::ClientAssistedWitnessMap)
    }

    /// The BSGS options the request fixes, with the server's own choice of `cache` (which
    /// changes memory and time, never the result).
    pub fn options(&self, cache: DiagonalCache) -> FftOptions {
        let plan = PlanOptions {
            baby_steps: self.baby_steps,
            baby_step_keys: self.baby_step_keys,
            chains: self.chains,
            ..PlanOptions::default()
        };
        FftOptions::default().with_plan(plan).with_cache(cache)
    }

    /// The job's ciphertext-modulus bits on the ring `ring_degree`, as one owner needs them.
    fn ciphertext_bits<F: FftField + PrimeField>(&self, ring_degree: usize) -> u32 {
        match self.job {
            Job::Fft { route, .. } => route.ciphertext_bits::<F>(ring_degree, self.size),
            Job::WitnessMap => witness_map_ciphertext_bits::<F>(ring_degree, self.size),
            Job::ClientAssistedWitnessMap => {
                ClientAssistedWitnessMap::<F>::ciphertext_bits(ring_degree)
            }
            Job::CosetChange => Route::OneProduct.ciphertext_bits::<F>(ring_degree, self.size),
            Job::MatrixProduct { .. } => {
                MatrixProduct::<F>::ciphertext_bits(ring_degree, self.size)
            }
        }
    }

    /// The context the request calls for, built the same way by the owner and the server.
    ///
    /// For a key shared by parties: one owner's ring for the job, with the modulus grown by
    /// the room the parties' smudging takes
    /// ([`smudging_room_bits`](helib_rs::threshold::smudging_room_bits)) and the digits
    /// that keep 128-bit security ([`Error::InsecureParameters`](helib_rs::Error) through
    /// [`Error::Engine`] where none does).
    pub fn context<F: FftField + PrimeField>(&self) -> Result<Context> {
        self.check()?;
        if self.parties > 1 {
            let ring = match self.ring {
                Ring::Toy => TOY_RING_DEGREE,
                Ring::Secure => Request {
                    parties: 1,
                    ..*self
                }
                .context::<F>()?
                .ring_degree(),
            };
            let room =
                helib_rs::threshold::smudging_room_bits(ring, self.parties, self.smudge_bits);
            let builder = Context::builder()
                .ring_degree(ring as u64)
                .plaintext_field::<F>()
                .ciphertext_bits(self.ciphertext_bits::<F>(ring).saturating_add(room))
                .derivable_keys(self.keys == KeyKind::Master)
                .parties(self.parties);
            return Ok(match self.ring {
                Ring::Toy => builder.allow_insecure(true).build()?,
                Ring::Secure => builder.build_with_fewest_digits()?,
            });
        }
        let master = self.keys == KeyKind::Master;
        match (self.ring, self.job) {
            (Ring::Toy, _) => Ok(Context::builder()
                .ring_degree(TOY_RING_DEGREE as u64)
                .plaintext_field::<F>()
                .ciphertext_bits(self.ciphertext_bits::<F>(TOY_RING_DEGREE))
                .derivable_keys(master)
                .allow_insecure(true)
                .build()?),
            (Ring::Secure, Job::Fft { route, .. }) if master => {
                route.derivable_context::<F>(self.size)
            }
            (Ring::Secure, Job::Fft { route, .. }) => route.context::<F>(self.size),
            (Ring::Secure, Job::WitnessMap) => witness_map_context::<F>(self.size),
            (Ring::Secure, Job::ClientAssistedWitnessMap) => {
                ClientAssistedWitnessMap::<F>::secure_context(self.size)
            }
            (Ring::Secure, Job::CosetChange) => CosetChange::<F>::secure_context(self.size),
            (Ring::Secure, Job::MatrixProduct { .. }) => {
                MatrixProduct::<F>::secure_context(self.size)
            }
        }
    }

    /// What the request's transform takes and gives, and the Galois keys it needs, without
    /// its matrix (a matrix product's shape and plan do not depend on the entries) and
    /// without encoding anything: what bounds a key set's body and a job's memory.
    pub fn outline<F: FftField + PrimeField>(
        &self,
        ctx: &Context,
    ) -> Result<(TransformInfo, GaloisSteps)> {
        let transform = match self.job {
            Job::MatrixProduct { rows, columns } => {
                // Zeros stand in for the entries: this product is dropped here, never applied.
                let zeros = Matrix::from_fn_with_shape(rows, columns, |_, _| F::zero())?;
                Box::new(self.product_by(ctx, DiagonalCache::Never, zeros)?)
            }
            _ => self.transform::<F>(ctx, DiagonalCache::Never)?,
        };
        Ok((transform.info(), transform.galois_steps()))
    }

    /// The product by `matrix` a [`Job::MatrixProduct`] request names, on `ctx`; a
    /// [`Error::Mismatch`] if the matrix's shape is not the request's.
    pub fn product_by<F: FftField + PrimeField>(
        &self,
        ctx: &Context,
        cache: DiagonalCache,
        matrix: Matrix<F>,
    ) -> Result<MatrixProduct<F>> {
        self.check()?;
        let Job::MatrixProduct { rows, columns } = self.job else {
            return Err(Error::BadRequest(format!(
                "only a matrix-product request takes a matrix ({self})"
            )));
        };
        if matrix.shape() != (rows, columns) || matrix.dim().max(2) != self.size {
            return Err(Error::Mismatch(format!(
                "the matrix is {} x {}, the request ({self}) asks for {rows} x {columns}",
                matrix.shape().0,
                matrix.shape().1
            )));
        }
        MatrixProduct::new(ctx, matrix, &self.options(cache))
    }

    /// The transform the request names, on `ctx` (the request's [`context`](Self::context)):
    /// every job but a matrix product, which needs its matrix ([`product_by`](Self::product_by)).
    pub fn transform<F: FftField + PrimeField>(
        &self,
        ctx: &Context,
        cache: DiagonalCache,
    ) -> Result<Box<dyn EncryptedTransform<F>>> {
        self.check()?;
        let options = self.options(cache);
        let h = subgroup::<F>(self.size)?;
        let coset = || {
            h.get_coset(F::GENERATOR)
                .ok_or_else(|| Error::Internal("the field's generator has no inverse".into()))
        };
        Ok(match self.job {
            Job::Fft { direction, route } => {
                let domain = match self.domain {
                    Domain::Subgroup => h,
                    Domain::Coset => coset()?,
                };
                Box::new(Fft::new(route, ctx, &domain, direction, &options)?)
            }
            Job::WitnessMap => witness_map_for::<F>(ctx, self.size, &options)?,
            Job::ClientAssistedWitnessMap => {
                Box::new(ClientAssistedWitnessMap::new(ctx, self.size)?)
            }
            Job::CosetChange => Box::new(CosetChange::new(ctx, &h, &coset()?, &options)?),
            Job::MatrixProduct { .. } => {
                return Err(Error::BadRequest(format!(
                    "a matrix product is built with its matrix (Request::product_by), not from \
                     the request alone ({self})"
                )))
            }
        })
    }

    /// [`Error::BadRequest`] for a request no server serves, whatever the context.
    fn check(&self) -> Result<()> {
        let bad = |why: String| Err(Error::BadRequest(why));
        if self.size < 2 || !self.size.is_power_of_two() || self.size > MAX_FFT_SIZE {
            return bad(format!(
                "the size must be a power of two from 2 to {MAX_FFT_SIZE}, got {}",
                self.size
            ));
        }
        let fft = matches!(self.job, Job::Fft { .. });
        if !fft && self.keys == KeyKind::Master {
            return bad("master keys serve FFT jobs only; ship the transform's Galois keys".into());
        }
        if !fft && self.domain == Domain::Coset {
            return bad("only an FFT job takes domain=coset".into());
        }
        if let Job::MatrixProduct { rows, columns } = self.job {
            let entries = rows.saturating_mul(columns);
            let size = rows.max(columns).max(2).checked_next_power_of_two();
            if rows == 0 || columns == 0 || entries > MAX_MATRIX_ENTRIES {
                return bad(format!(
                    "a matrix has from 1 to {MAX_MATRIX_ENTRIES} entries, got {rows} x {columns}"
                ));
            }
            if size != Some(self.size) {
                return bad(format!(
                    "a {rows} x {columns} matrix runs on size {}, not {}",
                    size.unwrap_or(0),
                    self.size
                ));
            }
        }
        if !(1..=64).contains(&self.parties) {
            return bad(format!(
                "parties must be from 1 to 64, got {}",
                self.parties
            ));
        }
        if !(MIN_SMUDGE_BITS..=MAX_SMUDGE_BITS).contains(&self.smudge_bits) {
            return bad(format!(
                "smudge-bits must be from {MIN_SMUDGE_BITS} to {MAX_SMUDGE_BITS}, got {}",
                self.smudge_bits
            ));
        }
        if self.parties == 1 && self.smudge_bits != MIN_SMUDGE_BITS {
            return bad("smudge-bits goes with parties (a shared key)".into());
        }
        if let Some(b) = self.baby_steps {
            if !b.is_power_of_two() || b > MAX_BABY_STEPS {
                return bad(format!(
                    "baby-steps must be a power of two up to {MAX_BABY_STEPS}, got {b}"
                ));
            }
        }
        if let Some(k) = self.baby_step_keys {
            if !(1..=MAX_BABY_STEP_KEYS).contains(&k) {
                return bad(format!(
                    "baby-step-keys must be from 1 to {MAX_BABY_STEP_KEYS}, got {k}"
                ));
            }
        }
        if let Some(c) = self.chains {
            if !(1..=MAX_CHAINS).contains(&c) {
                return bad(format!("chains must be from 1 to {MAX_CHAINS}, got {c}"));
            }
        }
        Ok(())
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.job {
            Job::Fft { direction, route } => {
                let direction = match direction {
                    Direction::Forward => "forward",
                    Direction::Inverse => "inverse",
                };
                write!(f, "job=fft direction={direction} route={route}")?
            }
            Job::WitnessMap => write!(f, "job=witness-map")?,
            Job::ClientAssistedWitnessMap => write!(f, "job=client-assisted-witness-map")?,
            Job::CosetChange => write!(f, "job=coset-change")?,
            Job::MatrixProduct { rows, columns } => {
                write!(f, "job=matrix-product rows={rows} columns={columns}")?
            }
        }
        if self.domain == Domain::Coset {
            write!(f, " domain=coset")?;
        }
        write!(f, " size={}", self.size)?;
        if self.ring == Ring::Toy {
            write!(f, " ring=toy")?;
        }
        if self.keys == KeyKind::Master {
            write!(f, " keys=master")?;
        }
        if self.parties > 1 {
            write!(f, " parties={}", self.parties)?;
            if self.smudge_bits != MIN_SMUDGE_BITS {
                write!(f, " smudge-bits={}", self.smudge_bits)?;
            }
        }
        for (name, value) in [
            ("baby-steps", self.baby_steps),
            ("baby-step-keys", self.baby_step_keys),
            ("chains", self.chains),
        ] {
            if let Some(v) = value {
                write!(f, " {name}={v}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Request {
    type Err = Error;

    /// Parses the `Display` form; fields in any order, each at most once, none unknown.
    fn from_str(text: &str) -> Result<Request> {
        let bad = |why: String| Error::BadRequest(format!("{text:?}: {why}"));
        if text.len() > MAX_REQUEST_BYTES {
            return Err(bad(format!("longer than {MAX_REQUEST_BYTES} bytes")));
        }
        let mut fields: Vec<(&str, &str)> = Vec::new();
        for token in text.split_whitespace() {
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| bad(format!("{token:?} is not key=value")))?;
            if fields.iter().any(|(k, _)| *k == key) {
                return Err(bad(format!("{key} given twice")));
            }
            fields.push((key, value));
        }
        let get = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        let number = |key: &str| -> Result<Option<usize>> {
            get(key)
                .map(|v| {
                    v.parse()
                        .map_err(|_| bad(format!("{key}={v} is not a number")))
                })
                .transpose()
        };
        let job = match get("job") {
            Some("fft") => {
                let direction = match get("direction") {
                    Some("forward") | None => Direction::Forward,
                    Some("inverse") => Direction::Inverse,
                    Some(other) => return Err(bad(format!("unknown direction {other:?}"))),
                };
                let size = number("size")?.unwrap_or(0);
                let route = match get("route") {
                    Some(name) => name.parse().map_err(|e: Error| bad(e.to_string()))?,
                    None => Route::fastest_for(size),
                };
                Job::Fft { direction, route }
            }
            Some("witness-map") => Job::WitnessMap,
            Some("client-assisted-witness-map") => Job::ClientAssistedWitnessMap,
            Some("coset-change") => Job::CosetChange,
            Some("matrix-product") => Job::MatrixProduct {
                rows: number("rows")?.ok_or_else(|| bad("no rows=".into()))?,
                columns: number("columns")?.ok_or_else(|| bad("no columns=".into()))?,
            },
            Some(other) => return Err(bad(format!("unknown job {other:?}"))),
            None => return Err(bad("no job=".into())),
        };
        let known = [
            "job",
            "direction",
            "route",
            "size",
            "ring",
            "keys",
            "domain",
            "baby-steps",
            "baby-step-keys",
            "chains",
            "rows",
            "columns",
            "parties",
            "smudge-bits",
        ];
        if let Some((key, _)) = fields.iter().find(|(k, _)| !known.contains(k)) {
            return Err(bad(format!("unknown field {key:?}")));
        }
        if !matches!(job, Job::Fft { .. }) && (get("direction").is_some() || get("route").is_some())
        {
            return Err(bad("only an FFT job has a direction and a route".into()));
        }
        if !matches!(job, Job::MatrixProduct { .. })
            && (get("rows").is_some() || get("columns").is_some())
        {
            return Err(bad("only a matrix product has rows and columns".into()));
        }
        let request = Request {
            job,
            size: number("size")?.ok_or_else(|| bad("no size=".into()))?,
            ring: match get("ring") {
                Some("secure") | None => Ring::Secure,
                Some("toy") => Ring::Toy,
                Some(other) => return Err(bad(format!("unknown ring {other:?}"))),
            },
            keys: match get("keys") {
                Some("galois") | None => KeyKind::Galois,
                Some("master") => KeyKind::Master,
                Some(other) => return Err(bad(format!("unknown keys {other:?}"))),
            },
            domain: match get("domain") {
                Some("subgroup") | None => Domain::Subgroup,
                Some("coset") => Domain::Coset,
                Some(other) => return Err(bad(format!("unknown domain {other:?}"))),
            },
            baby_steps: number("baby-steps")?,
            baby_step_keys: number("baby-step-keys")?,
            chains: number("chains")?,
            parties: match number("parties")? {
                None => 1,
                Some(k @ 2..=64) => k as u32,
                Some(k) => return Err(bad(format!("parties={k}: from 2 to 64"))),
            },
            smudge_bits: match number("smudge-bits")? {
                None => MIN_SMUDGE_BITS,
                Some(b) => u32::try_from(b).unwrap_or(u32::MAX),
            },
        };
        if request.parties == 1 && get("smudge-bits").is_some() {
            return Err(bad("smudge-bits goes with parties".into()));
        }
        request.check()?;
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_round_trips() {
        let mut r = Request::new(
            Job::Fft {
                direction: Direction::Inverse,
                route: Route::FourSteps,
            },
            1 << 16,
        );
        r.ring = Ring::Toy;
        r.keys = KeyKind::Master;
        r.baby_steps = Some(16);
        r.baby_step_keys = Some(4);
        r.chains = Some(2);
        let text = r.to_string();
        assert_eq!(
            text,
            "job=fft direction=inverse route=four-steps size=65536 ring=toy keys=master \
             baby-steps=16 baby-step-keys=4 chains=2"
        );
        assert_eq!(text.parse::<Request>().unwrap(), r);
        let w = Request::new(Job::WitnessMap, 1024);
        assert_eq!(w.to_string(), "job=witness-map size=1024");
        assert_eq!(w.to_string().parse::<Request>().unwrap(), w);
        let c = Request {
            domain: Domain::Coset,
            ..Request::forward_fft(4096)
        };
        assert_eq!(
            c.to_string(),
            "job=fft direction=forward route=two-stages domain=coset size=4096"
        );
        assert_eq!(c.to_string().parse::<Request>().unwrap(), c);
        let assisted = Request::new(Job::ClientAssistedWitnessMap, 1024);
        assert_eq!(
            assisted.to_string(),
            "job=client-assisted-witness-map size=1024"
        );
        assert_eq!(assisted.to_string().parse::<Request>().unwrap(), assisted);
        let shared = Request {
            smudge_bits: 64,
            ..Request::new(Job::WitnessMap, 1024).shared_by(3)
        };
        assert_eq!(
            shared.to_string(),
            "job=witness-map size=1024 parties=3 smudge-bits=64"
        );
        assert_eq!(shared.to_string().parse::<Request>().unwrap(), shared);
        let product = Request::matrix_product(3, 5);
        assert_eq!(
            product.to_string(),
            "job=matrix-product rows=3 columns=5 size=8"
        );
        assert_eq!(product.to_string().parse::<Request>().unwrap(), product);
        assert_eq!(Request::matrix_product(1, 1).size, 2);
        let change = Request::new(Job::CosetChange, 256);
        assert_eq!(change.to_string(), "job=coset-change size=256");
        assert_eq!(change.to_string().parse::<Request>().unwrap(), change);
        for bad in [
            "job=coset-change size=256 domain=coset",
            "job=coset-change size=256 route=one-product",
            "job=witness-map size=256 domain=coset",
            "job=fft size=256 domain=nearby",
            "job=coset-change size=256 keys=master",
        ] {
            assert!(bad.parse::<Request>().is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_requests_say_why() {
        for (text, why) in [
            ("", "no job="),
            ("job=fft", "no size="),
            ("job=fft size=1000", "power of two"),
            ("job=fft size=1", "power of two"),
            ("job=fft size=4096 size=4096", "twice"),
            ("job=fft size=4096 route=sideways", "route"),
            ("job=fft size=4096 direction=up", "direction"),
            ("job=witness-map size=4096 keys=master", "master keys"),
            (
                "job=witness-map size=4096 route=one-product",
                "only an FFT job has a direction",
            ),
            ("job=fft size=4096 baby-steps=3", "baby-steps"),
            ("job=fft size=4096 baby-step-keys=0", "baby-step-keys"),
            ("job=fft size=4096 chains=1000", "chains"),
            ("job=fft size=4096 ring=huge", "ring"),
            ("job=fft size=x", "not a number"),
            ("job=fft size=4096 extra", "key=value"),
            ("job=fft size=4096 colour=blue", "unknown field"),
            ("job=matrix-product rows=3 size=8", "no columns="),
            (
                "job=matrix-product rows=3 columns=5 size=16",
                "runs on size 8",
            ),
            ("job=matrix-product rows=0 columns=5 size=8", "from 1 to"),
            (
                "job=matrix-product rows=8192 columns=4096 size=8192",
                "from 1 to",
            ),
            ("job=fft size=8 rows=3", "only a matrix product"),
            ("job=fft size=8 parties=1", "from 2 to 64"),
            ("job=fft size=8 parties=65", "from 2 to 64"),
            ("job=fft size=8 smudge-bits=40", "goes with parties"),
            ("job=fft size=8 parties=2 smudge-bits=20", "smudge-bits"),
            (
                "job=matrix-product rows=3 columns=5 size=8 keys=master",
                "master keys",
            ),
        ] {
            match text.parse::<Request>() {
                Err(Error::BadRequest(m)) => assert!(m.contains(why), "{text:?}: {m}"),
                other => panic!("{text:?}: expected an error naming {why:?}, got {other:?}"),
            }
        }
        let long = format!("job=fft size=4096 {}", " ".repeat(MAX_REQUEST_BYTES));
        assert!(long.parse::<Request>().is_err());
    }

    #[test]
    fn the_toy_context_fits_the_transform() {
        let r = Request::forward_fft(64).on_toy_ring();
        let ctx = r.context::<ark_bn254::Fr>().unwrap();
        assert_eq!(ctx.ring_degree(), TOY_RING_DEGREE);
        let t = r
            .transform::<ark_bn254::Fr>(&ctx, DiagonalCache::Never)
            .unwrap();
        assert_eq!(t.info().len, 64);
        assert!(ctx.log2_q() >= f64::from(t.info().ciphertext_bits));
        let w = Request::new(Job::WitnessMap, 16).on_toy_ring();
        let ctx = w.context::<ark_bn254::Fr>().unwrap();
        let t = w
            .transform::<ark_bn254::Fr>(&ctx, DiagonalCache::Never)
            .unwrap();
        assert_eq!(t.info().num_inputs, 2);
    }

    #[test]
    fn a_shared_key_with_master_keys_gets_a_derivable_context() {
        for ring in [Ring::Toy, Ring::Secure] {
            let r = Request {
                keys: KeyKind::Master,
                ring,
                ..Request::forward_fft(4096).shared_by(3)
            };
            let ctx = r.context::<ark_bn254::Fr>().unwrap();
            assert_eq!(ctx.parties(), 3);
            assert!(ctx.derivation_level().is_some(), "{ring:?}");
            if ring == Ring::Secure {
                assert!(ctx.security_bits() >= 128.0, "{}", ctx.security_bits());
            }
        }
    }
}
