//! [`EncryptedTransform`]: what every encrypted transform offers, whatever its route;
//! [`TransformInfo`], its static facts; [`DelegatingTransform`], a transform that runs
//! another; and [`Progress`], how a long computation reports how far it is.

use crate::error::{Error, Result};
use ark_ff::{FftField, PrimeField};
use helib_rs::{Computation, Context, Ctxt, GaloisKeys, GaloisSteps, PubKey, SecKey};

/// Reports progress as `(giant steps done, giant steps in all)`; called from worker threads.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// The static facts of a transform: what it reads, what it gives, what it costs.
///
/// Every field is fixed when the transform is built, so the owner and the server (and a
/// scheduler between them) can size work without touching a ciphertext. A transform of your
/// own fills in every field (or takes another's and changes some, as
/// [`DelegatingTransform::describe`] does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformInfo {
    /// What the transform is, for messages ("the two-stage FFT").
    pub name: &'static str,
    /// Values per input vector (the domain size of an FFT, the columns of a matrix).
    pub len: usize,
    /// Values [`decrypt`](EncryptedTransform::decrypt) returns (the rows of a matrix; `len`
    /// otherwise).
    pub output_len: usize,
    /// Input vectors the server's side reads (1; 2, `a` then `b`, for a witness map).
    pub num_inputs: usize,
    /// Ciphertexts per encrypted input vector.
    pub input_ciphertexts: usize,
    /// Ciphertexts in the encrypted result.
    pub output_ciphertexts: usize,
    /// Multiplicative levels the server's side consumes.
    pub levels: u32,
    /// Ciphertext-modulus bits the transform needs at its size on its context's ring.
    pub ciphertext_bits: u32,
    /// The `he_fft` function that builds a secure context of
    /// [`ciphertext_bits`](Self::ciphertext_bits) for this transform.
    pub context_helper: &'static str,
    /// What the progress callback counts to.
    pub progress_total: usize,
    /// The [`Ctxt::layout_tag`] [`encrypt`](EncryptedTransform::encrypt) gives each input
    /// ciphertext and the server's side expects (0: inputs are not tagged).
    pub layout_tag: u64,
}

impl TransformInfo {
    /// Ciphertexts the server's side reads: every input vector's, one vector after the other.
    pub fn total_input_ciphertexts(&self) -> usize {
        self.num_inputs * self.input_ciphertexts
    }
}

/// A linear (or, for the witness maps, bilinear) map computed on ciphertexts: the owner
/// encrypts, the server computes, the owner decrypts.
///
/// Implemented by every FFT route ([`Fft`](crate::Fft), [`OneProductFft`](crate::OneProductFft),
/// [`TwoStageFft`](crate::TwoStageFft), [`FourStepFft`](crate::FourStepFft)), by a plain
/// [`MatrixProduct`](crate::MatrixProduct), by the [`CosetChange`](crate::CosetChange) and
/// by the witness maps ([`WitnessMap`](crate::WitnessMap),
/// [`FourStepWitnessMap`](crate::FourStepWitnessMap),
/// [`ClientAssistedWitnessMap`](crate::ClientAssistedWitnessMap)).
///
/// The methods come in three groups:
/// - **facts**: [`info`](Self::info), [`context`](Self::context),
///   [`cache_bytes`](Self::cache_bytes);
/// - **the owner's side**, which holds the secret key: [`galois_steps`](Self::galois_steps)
///   (the keys to generate and send), [`encrypt`](Self::encrypt) or
///   [`encrypt_to_bytes`](Self::encrypt_to_bytes) (one call per input vector),
///   [`decrypt`](Self::decrypt);
/// - **the server's side**, which sees only ciphertexts and evaluation keys:
///   [`apply`](Self::apply), or [`apply_with`](Self::apply_with) for a progress callback
///   or a route that needs no Galois keys, or [`apply_reading`](Self::apply_reading) for
///   inputs read when needed. They check the inputs (count, context, layout) before the
///   work (`apply_reading`: each as it is read) and the noise budget after, in one place for
///   every route; each route checks the keys it needs before its work.
///
/// An implementation writes [`info`](Self::info), [`context`](Self::context),
/// [`galois_steps`](Self::galois_steps), [`encode`](Self::encode),
/// [`decode`](Self::decode) and [`compute`](Self::compute); a transform that runs another
/// implements [`DelegatingTransform`] instead.
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{Direction, EncryptedTransform, FftOptions, OneProductFft, TwoStageFft};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::TwoStageFft::<Fr>::ciphertext_bits(2048, 16))
///     .allow_insecure(true).build()?; // toy size, insecure
/// let options = FftOptions::default();
/// let routes: Vec<Box<dyn EncryptedTransform<Fr>>> = vec![
///     Box::new(OneProductFft::new(&ctx, 16, Direction::Forward, &options)?),
///     Box::new(TwoStageFft::new(&ctx, 16, Direction::Forward, &options)?),
/// ];
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let x: Vec<Fr> = (0..16u64).map(Fr::from).collect();
/// for fft in &routes {
///     let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
///     let y = fft.apply(&gk, &fft.encrypt(&pk, &x)?)?;
///     assert_eq!(fft.decrypt(&sk, &y)?, Radix2EvaluationDomain::<Fr>::new(16).unwrap().fft(&x));
/// }
/// # Ok(())
/// # }
/// ```
pub trait EncryptedTransform<F: FftField + PrimeField>: Send + Sync {
    /// The transform's static facts.
    fn info(&self) -> TransformInfo;

    /// The context the transform was built for.
    fn context(&self) -> &Context;

    /// Memory held by diagonals kept encoded between runs, in bytes.
    fn cache_bytes(&self) -> u64 {
        0
    }

    /// Exactly the Galois keys the server's side needs (none on some routes).
    fn galois_steps(&self) -> GaloisSteps;

    /// The plaintext polynomial (coefficients, at most the ring degree) of each ciphertext of
    /// one input vector (exactly [`len`](TransformInfo::len) values, natural order): what
    /// [`encrypt`](Self::encrypt) and [`encrypt_to_bytes`](Self::encrypt_to_bytes) encrypt.
    fn encode(&self, x: &[F]) -> Result<Vec<Vec<F>>>;

    /// Encrypts one input vector (exactly [`len`](TransformInfo::len) values, natural order)
    /// in the layout the server's side reads, each ciphertext tagged with
    /// [`layout_tag`](TransformInfo::layout_tag).
    fn encrypt(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        same_context(self.context(), pk.context())?;
        let tag = self.info().layout_tag;
        self.encode(x)?
            .iter()
            .map(|poly| {
                let mut ct = pk.encrypt_poly(poly)?;
                ct.set_layout_tag(tag);
                Ok(ct)
            })
            .collect()
    }

    /// [`encrypt`](Self::encrypt) with the secret key, straight to bytes for the server (one
    /// string per ciphertext, read with [`Ctxt::from_bytes`]): about half the upload of
    /// public-key ciphertexts, and more noise budget left after the transform.
    fn encrypt_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        same_context(self.context(), sk.context())?;
        self.encode(x)?
            .iter()
            .map(|poly| Ok(sk.encrypt_poly_to_bytes(poly)?))
            .collect()
    }

    /// The computation a result's plaintext factor must come from: by default
    /// [`Computation::OneProduct`] (which every route's results satisfy; the witness maps
    /// need it), [`Computation::Linear`] for the four-step FFT. [`decrypt`](Self::decrypt)
    /// checks it before decoding.
    fn result_computation(&self) -> Computation {
        Computation::OneProduct
    }

    /// The [`output_len`](TransformInfo::output_len) values of a result, in natural order,
    /// from the plaintext polynomials of its ciphertexts (one per ciphertext, as
    /// [`SecKey::decrypt_poly`] returns them). It is linear: decoding each party's additive
    /// shares of the polynomials (a masked joint decryption, [`helib_rs::threshold`]) gives
    /// additive shares of the values.
    fn decode(&self, polys: &[Vec<F>]) -> Result<Vec<F>>;

    /// The [`output_len`](TransformInfo::output_len) values of a result, in natural order:
    /// each ciphertext decrypted, its plaintext factor checked against
    /// [`result_computation`](Self::result_computation), then [`decode`](Self::decode)d.
    fn decrypt(&self, sk: &SecKey, y: &[Ctxt]) -> Result<Vec<F>> {
        let computation = self.result_computation();
        let polys = y
            .iter()
            .map(|c| Ok(sk.decrypt_poly_expecting(c, computation)?))
            .collect::<Result<Vec<Vec<F>>>>()?;
        self.decode(&polys)
    }

    /// The server's work on inputs [`apply_with`](Self::apply_with) has checked: what
    /// implementations write, and what callers do not call directly. A route that needs
    /// Galois keys takes them with [`required_keys`].
    fn compute(&self, gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>>;

    /// The transform of the encrypted inputs (every input vector's ciphertexts, one vector
    /// after the other): [`apply_with`](Self::apply_with) with keys and no progress report.
    fn apply(&self, gk: &GaloisKeys, x: &[Ctxt]) -> Result<Vec<Ctxt>> {
        self.apply_with(Some(gk), x, &|_, _| {})
    }

    /// The server's side: the transform of the encrypted inputs, with the Galois keys of
    /// [`galois_steps`](Self::galois_steps) (`None` on a route that needs none) and a
    /// progress callback `(steps done, total)` called from worker threads.
    ///
    /// Fails before any work with [`Error::WrongLength`] for the wrong number of
    /// ciphertexts, [`Error::Mismatch`] for a ciphertext of another context,
    /// [`Error::Layout`] for one laid out for another transform, and [`Error::MissingKey`]
    /// (naming the step) for a key missing
    /// from `gk`; after the work with [`Error::NoiseBudgetExhausted`] on a context without
    /// room for [`levels`](TransformInfo::levels) levels.
    fn apply_with(
        &self,
        gk: Option<&GaloisKeys>,
        x: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let info = self.info();
        check_inputs(self.context(), &info, x)?;
        let y = self.compute(gk, x, progress)?;
        ensure_budget(self.context(), &info, &y)?;
        Ok(y)
    }

    /// [`apply_with`](Self::apply_with) on inputs read when needed: `read(i)` gives input
    /// ciphertext `i` of [`total_input_ciphertexts`](TransformInfo::total_input_ciphertexts)
    /// (every input vector's, one vector after the other), from bytes or a file. A route that
    /// uses each input at its own time reads them as it goes, so a server holds a few inputs
    /// instead of all: the four-step witness map reads component `k` of `a` and `b` when it
    /// runs that component's row maps (at `n = 2^22`, 2 input ciphertexts in memory instead
    /// of 256). Every other route reads them all first. The same checks as `apply_with`, each
    /// input checked as it is read.
    fn apply_reading(
        &self,
        gk: Option<&GaloisKeys>,
        read: &(dyn Fn(usize) -> Result<Ctxt> + Sync),
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let x = (0..self.info().total_input_ciphertexts())
            .map(read)
            .collect::<Result<Vec<_>>>()?;
        self.apply_with(gk, &x, progress)
    }
}

/// A transform that runs another one, under its own name if it likes: [`Fft`](crate::Fft)
/// runs its route's transform, [`OneProductFft`](crate::OneProductFft) and
/// [`CosetChange`](crate::CosetChange) a [`MatrixProduct`](crate::MatrixProduct). Every
/// [`EncryptedTransform`] method goes to [`inner`](Self::inner), with the facts passed
/// through [`describe`](Self::describe).
///
/// A product by a matrix of your own, under its own name:
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{
///     DelegatingTransform, EncryptedTransform, FftOptions, Matrix, MatrixProduct, TransformInfo,
/// };
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// /// Swaps the two values of a pair.
/// struct Swap(MatrixProduct<Fr>);
///
/// impl DelegatingTransform for Swap {
///     type Field = Fr;
///     fn inner(&self) -> &dyn EncryptedTransform<Fr> {
///         &self.0
///     }
///     fn describe(&self, inner: TransformInfo) -> TransformInfo {
///         TransformInfo { name: "the swap", ..inner }
///     }
/// }
///
/// # fn main() -> Result<(), he_fft::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size, insecure
/// let (zero, one) = (Fr::from(0u64), Fr::from(1u64));
/// let m = Matrix::from_rows(vec![vec![zero, one], vec![one, zero]])?;
/// let swap = Swap(MatrixProduct::new(&ctx, m, &FftOptions::default())?);
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &swap.galois_steps())?;
/// let y = swap.apply(&gk, &swap.encrypt(&pk, &[Fr::from(5u64), Fr::from(7u64)])?)?;
/// assert_eq!(swap.decrypt(&sk, &y)?, vec![Fr::from(7u64), Fr::from(5u64)]);
/// assert_eq!(swap.info().name, "the swap");
/// # Ok(())
/// # }
/// ```
pub trait DelegatingTransform: Send + Sync {
    /// The field the transform works in.
    type Field: FftField + PrimeField;

    /// The transform that does the work.
    fn inner(&self) -> &dyn EncryptedTransform<Self::Field>;

    /// This transform's facts from the inner one's (the inner one's, by default).
    fn describe(&self, inner: TransformInfo) -> TransformInfo {
        inner
    }
}

impl<T: DelegatingTransform> EncryptedTransform<T::Field> for T {
    fn info(&self) -> TransformInfo {
        self.describe(self.inner().info())
    }
    fn context(&self) -> &Context {
        self.inner().context()
    }
    fn cache_bytes(&self) -> u64 {
        self.inner().cache_bytes()
    }
    fn galois_steps(&self) -> GaloisSteps {
        self.inner().galois_steps()
    }
    fn encode(&self, x: &[T::Field]) -> Result<Vec<Vec<T::Field>>> {
        self.inner().encode(x)
    }
    fn result_computation(&self) -> Computation {
        self.inner().result_computation()
    }
    fn decode(&self, polys: &[Vec<T::Field>]) -> Result<Vec<T::Field>> {
        self.inner().decode(polys)
    }
    fn compute(&self, gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>> {
        // Checked here so that a missing key names this transform, not the one inside.
        if gk.is_none() && self.galois_steps().max_keys() > 0 {
            required_keys(gk, self.info().name)?;
        }
        self.inner().compute(gk, x, report)
    }
}

/// [`Error::WrongLength`] unless a decrypted polynomial has at least `len` coefficients
/// (a decryption gives the ring degree's).
pub(crate) fn check_poly_len<F>(poly: &[F], len: usize) -> Result<()> {
    if poly.len() < len {
        return Err(Error::wrong_length(
            "a result's plaintext coefficients",
            len,
            poly.len(),
        ));
    }
    Ok(())
}

/// The Galois keys of a route that needs some: [`Error::MissingKey`] when none were given.
/// `name` is the transform's, for the message.
pub fn required_keys<'a>(gk: Option<&'a GaloisKeys>, name: &str) -> Result<&'a GaloisKeys> {
    gk.ok_or_else(|| {
        Error::MissingKey(format!(
            "{name} needs Galois keys (generate them from its galois_steps()), and none were \
             given"
        ))
    })
}

/// [`Error::Mismatch`] unless a key's context is the transform's.
fn same_context(ours: &Context, theirs: &Context) -> Result<()> {
    if ours.same_as(theirs) {
        Ok(())
    } else {
        Err(Error::Mismatch(
            "the key belongs to another context than the transform's".into(),
        ))
    }
}

/// The checks every route's inputs pass before any work: their count, their context and
/// their layout tags.
fn check_inputs(ctx: &Context, info: &TransformInfo, x: &[Ctxt]) -> Result<()> {
    let expected = info.total_input_ciphertexts();
    if x.len() != expected {
        return Err(Error::wrong_length(
            format!(
                "{}'s input ciphertexts ({} vector(s) of {} each)",
                info.name, info.num_inputs, info.input_ciphertexts
            ),
            expected,
            x.len(),
        ));
    }
    x.iter().try_for_each(|ct| check_input(ctx, info, ct))
}

/// [`Error::Mismatch`] for an input of another context, [`Error::Layout`] for one laid out
/// for another transform (untagged inputs, read from bytes, pass).
pub(crate) fn check_input(ctx: &Context, info: &TransformInfo, ct: &Ctxt) -> Result<()> {
    if !ct.context().same_as(ctx) {
        return Err(Error::Mismatch(format!(
            "an input of {} is a ciphertext of another context",
            info.name
        )));
    }
    let tag = info.layout_tag;
    if tag != 0 && ct.layout_tag() != 0 && ct.layout_tag() != tag {
        return Err(Error::Layout {
            transform: info.name,
            expected: tag,
            got: ct.layout_tag(),
        });
    }
    Ok(())
}

/// [`Error::NoiseBudgetExhausted`] when a result has no budget left: decrypting would give
/// garbage, so the caller learns now and why, with the helper that sizes a context that fits.
pub(crate) fn ensure_budget(ctx: &Context, info: &TransformInfo, results: &[Ctxt]) -> Result<()> {
    let budget = results
        .iter()
        .map(Ctxt::noise_budget)
        .fold(f64::INFINITY, f64::min);
    if budget.is_nan() || budget <= 0.0 {
        return Err(Error::NoiseBudgetExhausted {
            transform: info.name,
            // NaN (no result) counts as none left.
            budget_bits: if budget.is_nan() {
                0
            } else {
                budget.floor() as i64
            },
            modulus_bits: ctx.log2_q().round() as u32,
            levels: info.levels,
            needed_bits: info.ciphertext_bits,
            context_helper: info.context_helper,
        });
    }
    Ok(())
}

/// The one ciphertext of a single-ciphertext input or result.
pub(crate) fn single<'a, T>(x: &'a [T], what: &str) -> Result<&'a T> {
    match x {
        [one] => Ok(one),
        _ => Err(Error::wrong_length(
            format!("{what}'s ciphertexts on this route"),
            1,
            x.len(),
        )),
    }
}
