//! [`Route`] and [`FftRoute`]: the three ways to run an encrypted FFT, and the choice among
//! them by size.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps, PubKey, Result, SecKey};

use crate::{
    fft_context, four_step_ciphertext_bits, four_step_fft_context, required_ciphertext_bits,
    two_stage_ciphertext_bits, two_stage_fft_context, Direction, Fft, FftOptions, FourStepFft,
    Progress, TwoStageFft,
};

/// The smallest size at which two stages beat one product on their own contexts (docs/fft-routes.md,
/// "Two stages": at `n = 2048` the two routes tie, at `n = 4096` two stages are 1.5-1.9x
/// faster, and at `n = 32768` 42x).
const TWO_STAGES_FROM: usize = 4096;

/// The smallest size run in four steps: two slot rows of `N = 65536`, where four steps beat
/// two stages on `N = 131072` (docs/fft-routes.md, "Four steps": 4.5-5.5 s against 11.4-13.2 s on two
/// threads).
const FOUR_STEPS_FROM: usize = 65536;

/// The largest FFT size any route takes: four steps over 128 rows of 65536 values (64
/// ciphertexts on the ring `N = 131072`). Callers can refuse larger sizes before they build
/// inputs of that size.
pub const MAX_FFT_SIZE: usize = 1 << 23;

/// The three ways to run an encrypted FFT of size `n`, each exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// [`Fft`]: one product of `n` diagonals, one level; the fastest up to `n = 2048`.
    OneProduct,
    /// [`TwoStageFft`]: two sparse products in one slot row (`n <= N/2`), two levels.
    TwoStages,
    /// [`FourStepFft`]: across `n / (N/2)` slot rows (two per ciphertext), then a two-stage
    /// FFT of each row, three levels.
    FourSteps,
}

impl Route {
    /// The faster route for size `n` on its own context (measured for BN254, see docs/fft-routes.md):
    /// one product up to 2048, two stages from 4096 to 32768, four steps from 65536 on.
    pub fn fastest_for(n: usize) -> Route {
        if n < TWO_STAGES_FROM {
            Route::OneProduct
        } else if n < FOUR_STEPS_FROM {
            Route::TwoStages
        } else {
            Route::FourSteps
        }
    }

    /// A >= 128-bit secure context for this route at size `n` over `F`
    /// ([`fft_context`], [`two_stage_fft_context`] or [`four_step_fft_context`]).
    pub fn context<F: PrimeField>(self, n: usize) -> Result<Context> {
        match self {
            Route::OneProduct => fft_context::<F>(n),
            Route::TwoStages => two_stage_fft_context::<F>(n),
            Route::FourSteps => four_step_fft_context::<F>(n),
        }
    }

    /// The ciphertext-modulus bits this route needs at size `n` on ring degree
    /// `ring_degree` ([`required_ciphertext_bits`], [`two_stage_ciphertext_bits`] or
    /// [`four_step_ciphertext_bits`]), for a context of your own.
    pub fn ciphertext_bits(self, ring_degree: usize, p_bits: u32, n: usize) -> u32 {
        match self {
            Route::OneProduct => required_ciphertext_bits(ring_degree, p_bits, n),
            Route::TwoStages => two_stage_ciphertext_bits(ring_degree, p_bits, n),
            Route::FourSteps => four_step_ciphertext_bits(ring_degree, p_bits, n),
        }
    }
}

/// An encrypted FFT (or inverse) of a radix-2 domain on any [`Route`], with the same calls.
///
/// [`fastest`](Self::fastest) picks the route for the domain's size
/// ([`Route::fastest_for`]) and builds a context for it, secure to at least 128 bits;
/// [`new`](Self::new) runs a route of your choice on a context of your own, and
/// `FftRoute::from(fft)` wraps a transform already built.
///
/// Either way, [`encrypt`](Self::encrypt) takes and [`decrypt`](Self::decrypt) gives the
/// natural order, and decrypting [`apply`](Self::apply)'s result gives exactly
/// `domain.fft(x)` (or `ifft`).
///
/// ```no_run
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{Direction, FftOptions, FftRoute, Route};
/// use helib_rs::{GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let domain = Radix2EvaluationDomain::<Fr>::new(32768).unwrap();
/// let fft = FftRoute::fastest(&domain, Direction::Forward, &FftOptions::default())?;
/// assert_eq!(fft.route(), Route::TwoStages);
/// let sk = SecKey::generate(fft.context())?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
///
/// let x: Vec<Fr> = (0..32768u64).map(Fr::from).collect();
/// let y = fft.apply(&gk, &fft.encrypt(&pk, &x)?)?; // 3.5 s on two cores
/// assert_eq!(fft.decrypt(&sk, &y)?, domain.fft(&x));
/// # Ok(())
/// # }
/// ```
pub enum FftRoute<F: FftField + PrimeField> {
    /// One product of `n` diagonals, one level.
    OneProduct(Box<Fft<F>>),
    /// Two sparse products, two levels.
    TwoStages(Box<TwoStageFft<F>>),
    /// Across slot rows, then two stages within each; three levels.
    FourSteps(Box<FourStepFft<F>>),
}

impl<F: FftField + PrimeField> FftRoute<F> {
    /// The transform on `domain` (the subgroup or a coset) on the faster route for its size,
    /// on a >= 128-bit context sized for it ([`Route::context`]).
    pub fn fastest(
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        let route = Route::fastest_for(domain.size());
        Self::new(
            route,
            &route.context::<F>(domain.size())?,
            domain,
            direction,
            options,
        )
    }

    /// The transform on `domain` by `route` on `ctx` (sized with
    /// [`Route::ciphertext_bits`]).
    pub fn new(
        route: Route,
        ctx: &Context,
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        Ok(match route {
            Route::OneProduct => Fft::on_domain(ctx, domain, direction, options)?.into(),
            Route::TwoStages => TwoStageFft::on_domain(ctx, domain, direction, options)?.into(),
            Route::FourSteps => FourStepFft::on_domain(ctx, domain, direction, options)?.into(),
        })
    }

    /// The route this transform runs.
    pub fn route(&self) -> Route {
        match self {
            FftRoute::OneProduct(_) => Route::OneProduct,
            FftRoute::TwoStages(_) => Route::TwoStages,
            FftRoute::FourSteps(_) => Route::FourSteps,
        }
    }

    /// The size `n`.
    pub fn len(&self) -> usize {
        match self {
            FftRoute::OneProduct(f) => f.len(),
            FftRoute::TwoStages(f) => f.len(),
            FftRoute::FourSteps(f) => f.len(),
        }
    }

    /// Always false (the smallest transform has size 1).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The context the transform was built for.
    pub fn context(&self) -> &Context {
        match self {
            FftRoute::OneProduct(f) => f.context(),
            FftRoute::TwoStages(f) => f.context(),
            FftRoute::FourSteps(f) => f.context(),
        }
    }

    /// Multiplicative levels [`apply`](Self::apply) consumes: 1, 2 or 3.
    pub fn levels(&self) -> u32 {
        match self {
            FftRoute::OneProduct(f) => f.plan().levels(),
            FftRoute::TwoStages(f) => f.levels(),
            FftRoute::FourSteps(f) => f.levels(),
        }
    }

    /// Whether every diagonal is held encoded (every stage's).
    pub fn is_cached(&self) -> bool {
        match self {
            FftRoute::OneProduct(f) => f.encoded().is_cached(),
            FftRoute::TwoStages(f) => f.stages().iter().all(|(_, e)| e.is_cached()),
            FftRoute::FourSteps(f) => f.row_fft().stages().iter().all(|(_, e)| e.is_cached()),
        }
    }

    /// Memory held by cached diagonals, in bytes.
    pub fn cache_bytes(&self) -> u64 {
        match self {
            FftRoute::OneProduct(f) => f.encoded().cache_bytes(),
            FftRoute::TwoStages(f) => f.cache_bytes(),
            FftRoute::FourSteps(f) => f.row_fft().cache_bytes(),
        }
    }

    /// The Galois keys [`apply`](Self::apply) needs, and no others.
    pub fn galois_steps(&self) -> GaloisSteps {
        match self {
            FftRoute::OneProduct(f) => f.galois_steps(),
            FftRoute::TwoStages(f) => f.galois_steps(),
            FftRoute::FourSteps(f) => f.galois_steps(),
        }
    }

    /// Giant steps [`apply`](Self::apply) runs in all, what its progress callback counts to.
    pub fn progress_total(&self) -> usize {
        match self {
            FftRoute::OneProduct(f) => f.plan().progress_total(),
            FftRoute::TwoStages(f) => f.progress_total(),
            FftRoute::FourSteps(f) => f.progress_total(),
        }
    }

    /// Encrypts `x` (exactly `n` values, natural order) for [`apply`](Self::apply).
    pub fn encrypt(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        match self {
            FftRoute::OneProduct(f) => f.encrypt(pk, x),
            FftRoute::TwoStages(f) => f.encrypt(pk, x),
            FftRoute::FourSteps(f) => f.encrypt(pk, x),
        }
    }

    /// [`encrypt`](Self::encrypt) with the secret key, straight to bytes for the server (see
    /// [`Fft::encrypt_to_bytes`]).
    pub fn encrypt_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        match self {
            FftRoute::OneProduct(f) => f.encrypt_to_bytes(sk, x),
            FftRoute::TwoStages(f) => f.encrypt_to_bytes(sk, x),
            FftRoute::FourSteps(f) => f.encrypt_to_bytes(sk, x),
        }
    }

    /// Decrypts a result into natural order.
    pub fn decrypt(&self, sk: &SecKey, cts: &[Ctxt]) -> Result<Vec<F>> {
        match self {
            FftRoute::OneProduct(f) => f.decrypt(sk, cts),
            FftRoute::TwoStages(f) => f.decrypt(sk, cts),
            FftRoute::FourSteps(f) => f.decrypt(sk, cts),
        }
    }

    /// The transform of the encrypted vector.
    pub fn apply(&self, gk: &GaloisKeys, x: &[Ctxt]) -> Result<Vec<Ctxt>> {
        match self {
            FftRoute::OneProduct(f) => f.apply(gk, x),
            FftRoute::TwoStages(f) => f.apply(gk, x),
            FftRoute::FourSteps(f) => f.apply(gk, x),
        }
    }

    /// [`apply`](Self::apply) with a progress callback `(giant steps done, total)`.
    pub fn apply_with_progress(
        &self,
        gk: &GaloisKeys,
        x: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        match self {
            FftRoute::OneProduct(f) => f.apply_with_progress(gk, x, progress),
            FftRoute::TwoStages(f) => f.apply_with_progress(gk, x, progress),
            FftRoute::FourSteps(f) => f.apply_with_progress(gk, x, progress),
        }
    }
}

impl<F: FftField + PrimeField> From<Fft<F>> for FftRoute<F> {
    fn from(f: Fft<F>) -> Self {
        FftRoute::OneProduct(Box::new(f))
    }
}

impl<F: FftField + PrimeField> From<TwoStageFft<F>> for FftRoute<F> {
    fn from(f: TwoStageFft<F>) -> Self {
        FftRoute::TwoStages(Box::new(f))
    }
}

impl<F: FftField + PrimeField> From<FourStepFft<F>> for FftRoute<F> {
    fn from(f: FourStepFft<F>) -> Self {
        FftRoute::FourSteps(Box::new(f))
    }
}

impl<F: FftField + PrimeField> fmt::Debug for FftRoute<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FftRoute::OneProduct(t) => f.debug_tuple("OneProduct").field(t).finish(),
            FftRoute::TwoStages(t) => f.debug_tuple("TwoStages").field(t).finish(),
            FftRoute::FourSteps(t) => f.debug_tuple("FourSteps").field(t).finish(),
        }
    }
}
