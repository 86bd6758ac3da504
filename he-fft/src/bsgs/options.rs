//! [`FftOptions`]: the options every transform takes.

use crate::{DiagonalCache, PlanOptions};

/// Options of every transform: the BSGS shape and the diagonal cache.
///
/// ```
/// use he_fft::{DiagonalCache, FftOptions, PlanOptions};
///
/// let options = FftOptions::default()
///     .with_cache(DiagonalCache::Never)
///     .with_plan(PlanOptions::default().with_baby_steps(8));
/// assert_eq!(options.plan.baby_steps, Some(8));
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct FftOptions {
    /// BSGS shape (baby steps, parallel chains).
    pub plan: PlanOptions,
    /// Whether the diagonals stay encoded between runs.
    pub cache: DiagonalCache,
}

impl FftOptions {
    /// These options with the BSGS shape `plan`.
    pub fn with_plan(mut self, plan: PlanOptions) -> Self {
        self.plan = plan;
        self
    }

    /// These options with the diagonal cache policy `cache`.
    pub fn with_cache(mut self, cache: DiagonalCache) -> Self {
        self.cache = cache;
        self
    }
}
