//! The encrypted FFT: [`Fft`] and [`Route`] (whichever of three routes suits its size), the
//! routes themselves (one product, two stages, four steps), the coset change, and the
//! matrices they use.

pub(crate) mod coset_change;
pub(crate) mod four_step;
pub(crate) mod matrices;
pub(crate) mod one_product;
pub(crate) mod two_stage;

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::Context;

use crate::error::{Error, Result};
use crate::transform::DelegatingTransform;
use crate::{
    Direction, EncryptedTransform, FftOptions, FirstStep, FourStepFft, OneProductFft, TwoStageFft,
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
    /// [`OneProductFft`]: one product of `n` diagonals, one level; the fastest up to
    /// `n = 2048`.
    OneProduct,
    /// [`TwoStageFft`]: two sparse products in one slot row (`n <= N/2`), two levels.
    TwoStages,
    /// [`FourStepFft`]: across `n / (N/2)` slot rows (two per ciphertext), then a two-stage
    /// FFT of each row, three levels.
    FourSteps,
    /// [`FourStepFft`] with [`FirstStep::Owner`]: the step across rows done by the owner's
    /// encoding (`n log2 c` field operations), the server running the row FFTs alone, two
    /// levels. For data the owner encrypts: its inputs are not natural-order ciphertexts.
    RowFfts,
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Route {
    type Err = Error;

    /// A route by its [`name`](Route::name); anything else is an `InvalidArgument` that lists
    /// the names.
    fn from_str(name: &str) -> Result<Route> {
        ROUTE_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(r, _)| *r)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown route {name:?} (one-product, two-stages, four-steps or row-ffts)"
                ))
            })
    }
}

/// The routes by the names requests and command lines use.
const ROUTE_NAMES: [(Route, &str); 4] = [
    (Route::OneProduct, "one-product"),
    (Route::TwoStages, "two-stages"),
    (Route::FourSteps, "four-steps"),
    (Route::RowFfts, "row-ffts"),
];

impl Route {
    /// The route's name in requests and on command lines: `one-product`, `two-stages`,
    /// `four-steps` or `row-ffts` (also its [`Display`](fmt::Display); [`FromStr`](std::str::FromStr) reads
    /// it back).
    ///
    /// ```
    /// use he_fft::Route;
    ///
    /// assert_eq!(Route::TwoStages.name(), "two-stages");
    /// assert_eq!("four-steps".parse::<Route>().unwrap(), Route::FourSteps);
    /// assert!("fastest".parse::<Route>().is_err());
    /// ```
    pub fn name(self) -> &'static str {
        ROUTE_NAMES
            .iter()
            .find(|(r, _)| *r == self)
            .map_or("one-product", |(_, name)| name)
    }

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
    /// ([`OneProductFft::secure_context`], [`TwoStageFft::secure_context`] or
    /// [`FourStepFft::secure_context`]).
    pub fn context<F: PrimeField>(self, n: usize) -> Result<Context> {
        match self {
            Route::OneProduct => crate::params::one_level_context::<F>(n),
            Route::TwoStages => crate::params::two_stage_context::<F>(n),
            Route::FourSteps => crate::params::four_step_context::<F>(n),
            Route::RowFfts => crate::params::row_ffts_context::<F>(n),
        }
    }

    /// [`context`](Self::context) with room for derived Galois keys
    /// ([`ContextBuilder::derivable_keys`](helib_rs::ContextBuilder::derivable_keys)): the same
    /// modulus and digits with extra primes above them, so that the owner ships
    /// [`MasterKeys`](helib_rs::MasterKeys) and the server derives the route's keys. Where the
    /// extra primes do not fit the ring's 128-bit bound, the next larger ring (up to 131072)
    /// that holds them: for BN254 the two-stage sizes keep `N = 65536`, while one-product
    /// sizes move from 32768 to 65536 and four-step sizes from 65536 to 131072, slower
    /// per transform.
    ///
    /// ```
    /// use he_fft::Route;
    /// let ctx = Route::TwoStages.derivable_context::<ark_bn254::Fr>(32768)?;
    /// assert!(ctx.security_bits() >= 128.0);
    /// assert_eq!(ctx.derivation_level(), Some(Route::TwoStages.context::<ark_bn254::Fr>(32768)?.num_ctxt_primes()));
    /// # Ok::<(), he_fft::Error>(())
    /// ```
    pub fn derivable_context<F: PrimeField>(self, n: usize) -> Result<Context> {
        let plain = self.context::<F>(n)?;
        let mut ring = plain.ring_degree();
        let mut digits = plain.ks_digits();
        loop {
            let built = Context::builder()
                .ring_degree(ring as u64)
                .plaintext_field::<F>()
                .ciphertext_bits(self.ciphertext_bits::<F>(ring, n))
                .ks_digits(digits)
                .derivable_keys(true)
                .build();
            match built {
                // A larger ring has room for the extra primes (and its own default digits).
                Err(helib_rs::Error::InsecureParameters(_)) if ring < crate::params::MAX_RING => {
                    ring *= 2;
                    digits = helib_rs::DEFAULT_KS_DIGITS;
                }
                built => return Ok(built?),
            }
        }
    }

    /// The ciphertext-modulus bits this route needs at size `n` over `F` on ring degree
    /// `ring_degree` ([`OneProductFft::ciphertext_bits`], [`TwoStageFft::ciphertext_bits`] or
    /// [`FourStepFft::ciphertext_bits`]), for a context of your own.
    pub fn ciphertext_bits<F: PrimeField>(self, ring_degree: usize, n: usize) -> u32 {
        let p_bits = F::MODULUS_BIT_SIZE;
        match self {
            Route::OneProduct => crate::params::one_level_bits(ring_degree, p_bits, n),
            Route::TwoStages => crate::params::two_stage_bits(ring_degree, p_bits, n),
            Route::FourSteps => crate::params::four_step_bits(ring_degree, p_bits, n),
            Route::RowFfts => crate::params::row_ffts_bits(ring_degree, p_bits, n),
        }
    }
}

/// The encrypted FFT (or inverse) of a radix-2 domain, on the [`Route`] of your choice or
/// the fastest for its size: the type to reach for first.
///
/// [`fastest`](Self::fastest) picks the route for the domain's size
/// ([`Route::fastest_for`]) and builds a context for it, secure to at least 128 bits;
/// [`new`](Self::new) runs a route of your choice on a context of your own, and
/// `Fft::from(two_stage)` wraps a transform already built.
///
/// Either way, [`encrypt`](EncryptedTransform::encrypt) takes and
/// [`decrypt`](EncryptedTransform::decrypt) gives the natural order, and decrypting
/// [`apply`](EncryptedTransform::apply)'s result gives exactly `domain.fft(x)` (or `ifft`).
///
/// ```no_run
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{Direction, EncryptedTransform, Fft, FftOptions, Route};
/// use helib_rs::{GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// let domain = Radix2EvaluationDomain::<Fr>::new(32768).unwrap();
/// let fft = Fft::fastest(&domain, Direction::Forward, &FftOptions::default())?;
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
pub struct Fft<F: FftField + PrimeField> {
    transform: Inner<F>,
}

enum Inner<F: FftField + PrimeField> {
    OneProduct(Box<OneProductFft<F>>),
    TwoStages(Box<TwoStageFft<F>>),
    FourSteps(Box<FourStepFft<F>>),
}

/// The transform an [`Fft`] runs, as its own type: for what only that route has (its plan,
/// stages or rows).
#[derive(Debug)]
pub enum RouteTransform<'a, F: FftField + PrimeField> {
    /// [`Route::OneProduct`].
    OneProduct(&'a OneProductFft<F>),
    /// [`Route::TwoStages`].
    TwoStages(&'a TwoStageFft<F>),
    /// [`Route::FourSteps`] and [`Route::RowFfts`] (see [`FourStepFft::first_step`]).
    FourSteps(&'a FourStepFft<F>),
}

impl<F: FftField + PrimeField> Fft<F> {
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
            Route::OneProduct => OneProductFft::on_domain(ctx, domain, direction, options)?.into(),
            Route::TwoStages => TwoStageFft::on_domain(ctx, domain, direction, options)?.into(),
            Route::FourSteps => FourStepFft::on_domain(ctx, domain, direction, options)?.into(),
            Route::RowFfts => FourStepFft::on_domain(ctx, domain, direction, options)?
                .with_first_step(FirstStep::Owner)
                .into(),
        })
    }

    /// The route this transform runs.
    pub fn route(&self) -> Route {
        match &self.transform {
            Inner::OneProduct(_) => Route::OneProduct,
            Inner::TwoStages(_) => Route::TwoStages,
            Inner::FourSteps(f) => match f.first_step() {
                FirstStep::Server => Route::FourSteps,
                FirstStep::Owner => Route::RowFfts,
            },
        }
    }

    /// The route's own transform.
    pub fn route_transform(&self) -> RouteTransform<'_, F> {
        match &self.transform {
            Inner::OneProduct(f) => RouteTransform::OneProduct(f),
            Inner::TwoStages(f) => RouteTransform::TwoStages(f),
            Inner::FourSteps(f) => RouteTransform::FourSteps(f),
        }
    }
}

/// Every call goes to the route's own transform.
impl<F: FftField + PrimeField> DelegatingTransform for Fft<F> {
    type Field = F;
    fn inner(&self) -> &dyn EncryptedTransform<F> {
        match &self.transform {
            Inner::OneProduct(f) => f.as_ref(),
            Inner::TwoStages(f) => f.as_ref(),
            Inner::FourSteps(f) => f.as_ref(),
        }
    }
}

macro_rules! fft_from_route {
    ($ty:ident, $route:ident) => {
        impl<F: FftField + PrimeField> From<$ty<F>> for Fft<F> {
            fn from(f: $ty<F>) -> Self {
                Fft {
                    transform: Inner::$route(Box::new(f)),
                }
            }
        }
    };
}
fft_from_route!(OneProductFft, OneProduct);
fft_from_route!(TwoStageFft, TwoStages);
fft_from_route!(FourStepFft, FourSteps);

impl<F: FftField + PrimeField> fmt::Debug for Fft<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fft")
            .field("route", &self.route())
            .field("n", &self.info().len)
            .finish()
    }
}
