//! [`EncryptedTransform`]: what every encrypted transform offers, whatever its route, and
//! [`Progress`], how a long computation reports how far it is.

use ark_ff::{FftField, PrimeField};
use helib_rs::{Context, Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, Result, SecKey};

/// Reports progress as `(giant steps done, giant steps in all)`; called from worker threads.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// A linear (or, for the witness maps, bilinear) map computed on ciphertexts:
/// the owner encrypts, the server applies, the owner decrypts.
///
/// Implemented by every FFT route ([`Fft`](crate::Fft), [`OneProductFft`](crate::OneProductFft),
/// [`TwoStageFft`](crate::TwoStageFft), [`FourStepFft`](crate::FourStepFft)), by a plain
/// [`MatrixProduct`](crate::MatrixProduct), by the [`CosetChange`](crate::CosetChange) and
/// by the witness maps
/// ([`WitnessMap`](crate::WitnessMap), [`FourStepWitnessMap`](crate::FourStepWitnessMap),
/// [`ClientAssistedWitnessMap`](crate::ClientAssistedWitnessMap)).
///
/// A transform of several vectors (a witness map reads `a`
/// and `b`) encrypts each with [`encrypt`](Self::encrypt) and takes their ciphertexts one
/// vector after the other in [`apply`](Self::apply) ([`num_inputs`](Self::num_inputs)
/// vectors of [`num_input_ciphertexts`](Self::num_input_ciphertexts) ciphertexts each).
///
/// Implementations write [`compute`](Self::compute); callers use [`apply`](Self::apply),
/// which checks the input count before and the noise budget after, in one place for all.
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{Direction, EncryptedTransform, FftOptions, OneProductFft, TwoStageFft};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::two_stage_ciphertext_bits(2048, 254, 16))
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
    /// Values per input vector (the domain size of an FFT, the columns of a matrix).
    fn len(&self) -> usize;

    /// Always false: every transform takes at least one value.
    fn is_empty(&self) -> bool {
        false
    }

    /// Values [`decrypt`](Self::decrypt) returns (the rows of a matrix; `len` otherwise).
    fn output_len(&self) -> usize {
        self.len()
    }

    /// The context the transform was built for.
    fn context(&self) -> &Context;

    /// What the transform is, for messages ("the two-stage FFT").
    fn name(&self) -> &'static str;

    /// Multiplicative levels [`apply`](Self::apply) consumes.
    fn levels(&self) -> u32;

    /// Ciphertext-modulus bits the transform needs at its size on its context's ring (what
    /// the context helper named by [`context_helper`](Self::context_helper) provides).
    fn ciphertext_bits(&self) -> u32;

    /// The `he_fft` function that builds a secure context for this transform.
    fn context_helper(&self) -> &'static str;

    /// Exactly the Galois keys [`apply`](Self::apply) needs.
    fn galois_steps(&self) -> GaloisSteps;

    /// What [`apply_with_progress`](Self::apply_with_progress)'s callback counts to.
    fn progress_total(&self) -> usize;

    /// Memory held by diagonals kept encoded between runs, in bytes.
    fn cache_bytes(&self) -> u64 {
        0
    }

    /// Input vectors [`apply`](Self::apply) reads (1; 2 for a witness map; 3 for the
    /// quotient).
    fn num_inputs(&self) -> usize {
        1
    }

    /// Ciphertexts per encrypted input vector.
    fn num_input_ciphertexts(&self) -> usize {
        1
    }

    /// Encrypts one input vector (exactly [`len`](Self::len) values, natural order) in the
    /// layout [`apply`](Self::apply) reads.
    fn encrypt(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>>;

    /// [`encrypt`](Self::encrypt) with the secret key, straight to bytes for the server (one
    /// string per ciphertext, read with [`Ctxt::from_bytes`]): about half the upload of
    /// public-key ciphertexts, and more noise budget left after the transform.
    fn encrypt_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>>;

    /// The [`output_len`](Self::output_len) values of a result, in natural order.
    fn decrypt(&self, sk: &SecKey, y: &[Ctxt]) -> Result<Vec<F>>;

    /// The server's work, without the checks [`apply`](Self::apply) adds: what implementations
    /// write, and what callers should not call directly.
    fn compute(&self, gk: &GaloisKeys, x: &[Ctxt], progress: Progress<'_>) -> Result<Vec<Ctxt>>;

    /// The transform of the encrypted inputs (every input vector's ciphertexts, one vector
    /// after the other).
    ///
    /// Fails with [`Error::InvalidLength`] for the wrong number of ciphertexts and
    /// [`Error::MissingKey`] (naming the step) for a key missing from `gk`, both before any
    /// work, and with [`Error::NoiseBudgetExhausted`] at the end on a context without room
    /// for [`levels`](Self::levels) levels.
    fn apply(&self, gk: &GaloisKeys, x: &[Ctxt]) -> Result<Vec<Ctxt>> {
        self.apply_with_progress(gk, x, &|_, _| {})
    }

    /// [`apply`](Self::apply) with a progress callback `(steps done, total)`, called from
    /// worker threads.
    fn apply_with_progress(
        &self,
        gk: &GaloisKeys,
        x: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let expected = self.num_inputs() * self.num_input_ciphertexts();
        if x.len() != expected {
            return Err(Error::InvalidLength(format!(
                "{} takes {} input vector(s) of {} ciphertext(s) each ({expected} in all), got {}",
                self.name(),
                self.num_inputs(),
                self.num_input_ciphertexts(),
                x.len()
            )));
        }
        let y = self.compute(gk, x, progress)?;
        ensure_budget(self, &y)?;
        Ok(y)
    }
}

/// [`Error::NoiseBudgetExhausted`] when a result has no budget left: decrypting would give
/// garbage, so the caller learns now and why, with the helper that sizes a context that fits.
pub(crate) fn ensure_budget<F: FftField + PrimeField, T: EncryptedTransform<F> + ?Sized>(
    transform: &T,
    results: &[Ctxt],
) -> Result<()> {
    let budget = results
        .iter()
        .map(Ctxt::noise_budget)
        .fold(f64::INFINITY, f64::min);
    if budget.is_nan() || budget <= 0.0 {
        return Err(Error::NoiseBudgetExhausted(format!(
            "{} used up the noise budget ({budget:.0} bits left): its context has {:.0} bits of \
             modulus, and {} level(s) at this size need about {} (he_fft::{} sizes one)",
            transform.name(),
            transform.context().log2_q(),
            transform.levels(),
            transform.ciphertext_bits(),
            transform.context_helper(),
        )));
    }
    Ok(())
}

/// The one ciphertext of a single-ciphertext input or result.
pub(crate) fn single<'a>(x: &'a [Ctxt], what: &str) -> Result<&'a Ctxt> {
    match x {
        [one] => Ok(one),
        _ => Err(Error::InvalidLength(format!(
            "{what} is one ciphertext on this route, got {}",
            x.len()
        ))),
    }
}
