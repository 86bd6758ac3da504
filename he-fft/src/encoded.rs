//! [`EncodedTransform`]: the plaintext side of a transform, encoded once or on demand.

use std::fmt;

use ark_ff::PrimeField;
use helib_rs::{Context, EncodedPtxt, PeriodicEncoder, Result};
use rayon::prelude::*;

use crate::plan::Term;
use crate::{Matrix, TransformPlan};

/// Whether the BSGS diagonals are kept encoded between executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagonalCache {
    /// Encode every diagonal once, up front, and keep it (fastest repeated execution).
    Always,
    /// Encode each diagonal when a giant step needs it and drop it right after (least memory).
    Never,
    /// Cache if the encodings take at most this many bytes, else encode on demand.
    UpTo(u64),
}

impl Default for DiagonalCache {
    /// Cache up to 2 GiB.
    fn default() -> Self {
        DiagonalCache::UpTo(2 << 30)
    }
}

/// The matrix of a [`TransformPlan`] prepared for execution: a [`PeriodicEncoder`] for the
/// row period (so a diagonal of a short vector costs a short transform and little memory)
/// and, depending on the [`DiagonalCache`] policy, every diagonal already encoded.
///
/// A circulant matrix ([`Matrix::is_circulant`]) on a replicated layout (`n <= N/2`) has a
/// constant on each slot row of every diagonal: those encode with period 1 (4 words per
/// prime, no transform) and are always cached, whatever the policy.
///
/// Diagonals are data-independent: build this once per matrix and reuse it for every input.
pub struct EncodedTransform<F: PrimeField> {
    ctx: Context,
    matrix: Matrix<F>,
    encoder: PeriodicEncoder<F>,
    /// Period 1, for a circulant matrix on a replicated layout.
    constant_rows: Option<PeriodicEncoder<F>>,
    baby: usize,
    giant: usize,
    terms: Vec<Term>,
    cache: Option<Vec<EncodedPtxt>>,
}

impl<F: PrimeField> EncodedTransform<F> {
    /// Prepares `matrix` (of the plan's dimension) for `plan` on `ctx`; encodes all diagonals
    /// now (in parallel) if `cache` says so.
    pub fn new(
        ctx: &Context,
        plan: &TransformPlan,
        matrix: Matrix<F>,
        cache: DiagonalCache,
    ) -> Result<Self> {
        if matrix.dim() != plan.input_layout().len() {
            return Err(helib_rs::Error::InvalidArgument(format!(
                "the matrix is {0}x{0} but the plan is for dimension {1}",
                matrix.dim(),
                plan.input_layout().len()
            )));
        }
        let d = plan.input_layout().row_period();
        let encoder = PeriodicEncoder::new(ctx, d, None)?;
        // Replicated, every block starts at (0, 0) with period d = n: diag'(g, b) at row i,
        // slot j is column[((j + a) mod n - (j + b') mod n) mod n] = column[(a - b') mod n]
        // for the row's offsets a, b', the same for every j.
        let constant_rows = if matrix.is_circulant() && plan.input_layout().is_replicated() {
            Some(PeriodicEncoder::new(ctx, 1, None)?)
        } else {
            None
        };
        let cache = if constant_rows.is_some() {
            DiagonalCache::Always
        } else {
            cache
        };
        let mut t = EncodedTransform {
            ctx: ctx.clone(),
            matrix,
            encoder,
            constant_rows,
            baby: plan.baby_steps(),
            giant: plan.giant_steps(),
            terms: plan.terms().to_vec(),
            cache: None,
        };
        let wanted = match cache {
            DiagonalCache::Always => true,
            DiagonalCache::Never => false,
            DiagonalCache::UpTo(limit) => t.estimated_cache_bytes(ctx) <= limit,
        };
        if wanted {
            let count = t.terms.len() * t.giant * t.baby;
            let all: Result<Vec<EncodedPtxt>> = (0..count)
                .into_par_iter()
                .map(|i| {
                    let (tg, b) = (i / t.baby, i % t.baby);
                    t.encode_diagonal(&t.encoder, tg / t.giant, tg % t.giant, b)
                })
                .collect();
            t.cache = Some(all?);
        }
        Ok(t)
    }

    /// Whether this encoding was built for `plan`'s shape.
    pub(crate) fn fits(&self, plan: &TransformPlan) -> bool {
        self.baby == plan.baby_steps()
            && self.giant == plan.giant_steps()
            && self.terms == plan.terms()
    }

    pub(crate) fn encoder(&self) -> &PeriodicEncoder<F> {
        &self.encoder
    }

    /// Whether all diagonals are held encoded.
    pub fn is_cached(&self) -> bool {
        self.cache.is_some()
    }

    /// Memory held by cached diagonals, in bytes (0 when encoding on demand).
    pub fn cache_bytes(&self) -> u64 {
        self.cache
            .as_ref()
            .map_or(0, |c| c.iter().map(EncodedPtxt::size_bytes).sum())
    }

    /// What caching every diagonal would take: `2d` words per chain prime per diagonal (`d`
    /// the period of the diagonals' encoder, at least 2).
    pub fn estimated_cache_bytes(&self, ctx: &Context) -> u64 {
        let d = self
            .constant_rows
            .as_ref()
            .unwrap_or(&self.encoder)
            .period()
            .max(2) as u64;
        let per = 2 * d * u64::from(ctx.num_ctxt_primes()) * 8;
        per * (self.terms.len() * self.giant * self.baby) as u64
    }

    /// Where one execution on ciphertexts at `level` takes its diagonals from: the cache
    /// (encoded at the top level, which serves every level), or encodings made on demand for
    /// that level, so each converts to the primes the ciphertexts kept and no others.
    pub(crate) fn source(&self, level: u32) -> Result<DiagonalSource<'_, F>> {
        let on_demand = if self.cache.is_some() || level >= self.ctx.num_ctxt_primes() {
            None
        } else {
            Some(PeriodicEncoder::new(
                &self.ctx,
                self.encoder.period(),
                Some(level),
            )?)
        };
        Ok(DiagonalSource {
            encoded: self,
            on_demand,
        })
    }

    /// diag'(g, b) for one block product, by `encoder` (of the layout's row period) unless
    /// the rows are constant: slot `j` of row `i` is entry `(R_i + (j - g n1) mod d, C_i +
    /// (j + b) mod d)` of the matrix (`d` the layout's row period; only `j = 0` when the rows
    /// are constant).
    fn encode_diagonal(
        &self,
        encoder: &PeriodicEncoder<F>,
        term: usize,
        g: usize,
        b: usize,
    ) -> Result<EncodedPtxt> {
        let d = self.encoder.period();
        let shift = d - (g * self.baby) % d;
        let Term { blocks, shifts, .. } = self.terms[term];
        let encoder = self.constant_rows.as_ref().unwrap_or(encoder);
        let row = |i: usize| -> Vec<F> {
            let ((r0, c0), (rs, cs)) = (blocks[i], shifts[i]);
            (0..encoder.period())
                .map(|j| {
                    self.matrix
                        .at(r0 + (j + shift + rs) % d, c0 + (j + b + cs) % d)
                })
                .collect()
        };
        let row0 = row(0);
        if blocks[1] == blocks[0] && shifts[1] == shifts[0] {
            encoder.encode(&row0, &row0)
        } else {
            encoder.encode(&row0, &row(1))
        }
    }
}

/// The diagonals of an [`EncodedTransform`] for one execution ([`EncodedTransform::source`]).
pub(crate) struct DiagonalSource<'a, F: PrimeField> {
    encoded: &'a EncodedTransform<F>,
    /// For ciphertexts below the top level, when nothing is cached.
    on_demand: Option<PeriodicEncoder<F>>,
}

impl<F: PrimeField> DiagonalSource<'_, F> {
    /// The diagonals giant step `g` of block product `term` multiplies the baby steps by
    /// (borrowed from the cache or encoded now).
    pub(crate) fn diagonals(&self, term: usize, g: usize) -> Result<Diagonals<'_>> {
        let t = self.encoded;
        match &t.cache {
            Some(all) => {
                let first = (term * t.giant + g) * t.baby;
                Ok(Diagonals::Cached(&all[first..first + t.baby]))
            }
            None => {
                let encoder = self.on_demand.as_ref().unwrap_or(&t.encoder);
                (0..t.baby)
                    .map(|b| t.encode_diagonal(encoder, term, g, b))
                    .collect::<Result<Vec<_>>>()
                    .map(Diagonals::Fresh)
            }
        }
    }
}

impl<F: PrimeField> fmt::Debug for EncodedTransform<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodedTransform")
            .field("dim", &self.matrix.dim())
            .field("cached", &self.is_cached())
            .field("cache_bytes", &self.cache_bytes())
            .finish()
    }
}

/// The `n1` diagonals of one giant step.
pub(crate) enum Diagonals<'a> {
    Cached(&'a [EncodedPtxt]),
    Fresh(Vec<EncodedPtxt>),
}

impl Diagonals<'_> {
    pub(crate) fn as_slice(&self) -> &[EncodedPtxt] {
        match self {
            Diagonals::Cached(s) => s,
            Diagonals::Fresh(v) => v,
        }
    }
}
