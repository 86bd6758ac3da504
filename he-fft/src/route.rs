//! [`FftRoute`]: an encrypted FFT on the faster of the two routes for its size.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps, PubKey, Result, SecKey};

use crate::{
    fft_context, two_stage_fft_context, Direction, Fft, FftOptions, Progress, TwoStageFft,
};

/// The smallest size at which two stages beat one product on their own contexts (README,
/// "Two stages": at `n = 2048` the two routes tie, at `n = 4096` two stages are 1.5-1.9x
/// faster, and at `n = 32768` 42x).
const TWO_STAGES_FROM: usize = 4096;

/// The largest two-stage size: the vector fills one slot row of the largest ring the
/// contexts try (`N = 131072`).
const TWO_STAGES_UP_TO: usize = 65536;

/// An encrypted FFT (or inverse) of a radix-2 domain on either route, with the same calls:
/// one plaintext-matrix product ([`Fft`]) or two sparse ones ([`TwoStageFft`]).
///
/// [`fastest`](Self::fastest) picks the route for the domain's size and builds a context for
/// it, secure to at least 128 bits: one product up to `n = 2048`, two stages from `n = 4096`
/// to `n = 65536` (where they are 1.5x to 40x faster; measured for BN254, see the README),
/// one product again beyond (no ring holds a larger vector in one slot row; that route is
/// slow). To run a route of your choice, or on a context of your own, convert the
/// transform: `FftRoute::from(fft)`.
///
/// Either way, [`encrypt`](Self::encrypt) takes and [`decrypt`](Self::decrypt) gives the
/// natural order, and decrypting [`apply`](Self::apply)'s result gives exactly
/// `domain.fft(x)` (or `ifft`).
///
/// ```no_run
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{Direction, FftOptions, FftRoute};
/// use helib_rs::{GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let domain = Radix2EvaluationDomain::<Fr>::new(32768).unwrap();
/// let fft = FftRoute::fastest(&domain, Direction::Forward, &FftOptions::default())?;
/// assert!(matches!(fft, FftRoute::TwoStages(_)));
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
}

impl<F: FftField + PrimeField> FftRoute<F> {
    /// Whether [`fastest`](Self::fastest) runs size `n` in two stages: `4096 <= n <= 65536`.
    pub fn prefers_two_stages(n: usize) -> bool {
        (TWO_STAGES_FROM..=TWO_STAGES_UP_TO).contains(&n)
    }

    /// The transform on `domain` (the subgroup or a coset) on the faster route for its size,
    /// on a >= 128-bit context sized for it ([`two_stage_fft_context`] or [`fft_context`]).
    pub fn fastest(
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        let n = domain.size();
        Ok(if Self::prefers_two_stages(n) {
            let ctx = two_stage_fft_context::<F>(n)?;
            TwoStageFft::on_domain(&ctx, domain, direction, options)?.into()
        } else {
            let ctx = fft_context::<F>(n)?;
            Fft::on_domain(&ctx, domain, direction, options)?.into()
        })
    }

    /// The size `n`.
    pub fn len(&self) -> usize {
        match self {
            FftRoute::OneProduct(f) => f.len(),
            FftRoute::TwoStages(f) => f.len(),
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
        }
    }

    /// Multiplicative levels [`apply`](Self::apply) consumes: 1 or 2.
    pub fn levels(&self) -> u32 {
        match self {
            FftRoute::OneProduct(f) => f.plan().levels(),
            FftRoute::TwoStages(f) => f.levels(),
        }
    }

    /// Whether every diagonal is held encoded (both stages' for two stages).
    pub fn is_cached(&self) -> bool {
        match self {
            FftRoute::OneProduct(f) => f.encoded().is_cached(),
            FftRoute::TwoStages(f) => f.stages().iter().all(|(_, e)| e.is_cached()),
        }
    }

    /// Memory held by cached diagonals, in bytes.
    pub fn cache_bytes(&self) -> u64 {
        match self {
            FftRoute::OneProduct(f) => f.encoded().cache_bytes(),
            FftRoute::TwoStages(f) => f.cache_bytes(),
        }
    }

    /// The Galois keys [`apply`](Self::apply) needs, and no others.
    pub fn galois_steps(&self) -> GaloisSteps {
        match self {
            FftRoute::OneProduct(f) => f.galois_steps(),
            FftRoute::TwoStages(f) => f.galois_steps(),
        }
    }

    /// Giant steps [`apply`](Self::apply) runs in all, what its progress callback counts to.
    pub fn progress_total(&self) -> usize {
        match self {
            FftRoute::OneProduct(f) => f.plan().progress_total(),
            FftRoute::TwoStages(f) => f.progress_total(),
        }
    }

    /// Encrypts `x` (exactly `n` values, natural order) for [`apply`](Self::apply).
    pub fn encrypt(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        match self {
            FftRoute::OneProduct(f) => f.encrypt(pk, x),
            FftRoute::TwoStages(f) => f.encrypt(pk, x),
        }
    }

    /// [`encrypt`](Self::encrypt) with the secret key, straight to bytes for the server (see
    /// [`Fft::encrypt_to_bytes`]).
    pub fn encrypt_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        match self {
            FftRoute::OneProduct(f) => f.encrypt_to_bytes(sk, x),
            FftRoute::TwoStages(f) => f.encrypt_to_bytes(sk, x),
        }
    }

    /// Decrypts a result into natural order.
    pub fn decrypt(&self, sk: &SecKey, cts: &[Ctxt]) -> Result<Vec<F>> {
        match self {
            FftRoute::OneProduct(f) => f.decrypt(sk, cts),
            FftRoute::TwoStages(f) => f.decrypt(sk, cts),
        }
    }

    /// The transform of the encrypted vector.
    pub fn apply(&self, gk: &GaloisKeys, x: &[Ctxt]) -> Result<Vec<Ctxt>> {
        match self {
            FftRoute::OneProduct(f) => f.apply(gk, x),
            FftRoute::TwoStages(f) => f.apply(gk, x),
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

impl<F: FftField + PrimeField> fmt::Debug for FftRoute<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FftRoute::OneProduct(t) => f.debug_tuple("OneProduct").field(t).finish(),
            FftRoute::TwoStages(t) => f.debug_tuple("TwoStages").field(t).finish(),
        }
    }
}
