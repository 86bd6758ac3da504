//! [`EncodedTransform`]: the plaintext side of a transform, encoded once or on demand.

use std::fmt;

use ark_ff::PrimeField;
use helib_rs::{Context, EncodedPtxt, PeriodicEncoder};
use rayon::prelude::*;

use crate::bsgs::plan::{DiagonalSet, Term};
use crate::error::{Error, Result};
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
/// prime, no transform) and are always cached, whatever the policy. A matrix invariant under
/// a shift of both indices by `q` (the second stage of a [`TwoStageFft`](crate::TwoStageFft))
/// likewise encodes its diagonals with period `q`.
///
/// Diagonals are data-independent: build this once per matrix and reuse it for every input.
pub struct EncodedTransform<F: PrimeField> {
    ctx: Context,
    matrix: Matrix<F>,
    encoder: PeriodicEncoder<F>,
    /// For diagonals of a shorter period than the layout's (the matrix's shift period on a
    /// replicated layout; 1 for a circulant).
    periodic: Option<PeriodicEncoder<F>>,
    baby: usize,
    giant: usize,
    terms: Vec<Term>,
    set: DiagonalSet,
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
        if matrix.dim() != plan.matrix_dim() {
            return Err(Error::InvalidArgument(format!(
                "the matrix is {0}x{0} but the plan is for dimension {1}",
                matrix.dim(),
                plan.matrix_dim()
            )));
        }
        let d = plan.input_layout().row_period();
        let encoder = PeriodicEncoder::new(ctx, d, None)?;
        // Replicated, every block starts at (0, 0) with period d = n: diag'(g, b) at row i,
        // slot j is entry ((j + a) mod n, (j + b') mod n) for the row's offsets a, b', which
        // repeats in j with the matrix's shift period q (for a circulant, q = 1: the same
        // entry for every j).
        let q = matrix.shift_period();
        let periodic = if q < d && plan.input_layout().is_replicated() {
            Some(PeriodicEncoder::new(ctx, q, None)?)
        } else {
            None
        };
        let cache = match &periodic {
            Some(e) if e.period() == 1 => DiagonalCache::Always,
            _ => cache,
        };
        let mut t = EncodedTransform {
            ctx: ctx.clone(),
            matrix,
            encoder,
            periodic,
            baby: plan.baby_steps(),
            giant: plan.giant_steps(),
            terms: plan.terms().to_vec(),
            set: plan.diagonal_set(),
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
                    t.encode_diagonal(t.diagonal_encoder(), tg / t.giant, tg % t.giant, b)
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
            && self.set == plan.diagonal_set()
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
        let d = self.diagonal_encoder().period().max(2) as u64;
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
                self.diagonal_encoder().period(),
                Some(level),
            )?)
        };
        Ok(DiagonalSource {
            encoded: self,
            on_demand,
        })
    }

    /// The encoder of the diagonals at the top level: the layout's, or a shorter period's.
    fn diagonal_encoder(&self) -> &PeriodicEncoder<F> {
        self.periodic.as_ref().unwrap_or(&self.encoder)
    }

    /// diag'(g, b) for one block product, by `encoder` (of the diagonals' period): slot `j`
    /// of row `i` is entry `(R_i + (j - o) mod d, C_i + (j + s b) mod d)` of the matrix, with
    /// `o = first + s g n1` the giant step's offset (`s` the diagonal set's stride, `d` the
    /// layout's row period), for `j` below the encoder's period.
    fn encode_diagonal(
        &self,
        encoder: &PeriodicEncoder<F>,
        term: usize,
        g: usize,
        b: usize,
    ) -> Result<EncodedPtxt> {
        let d = self.encoder.period();
        let DiagonalSet { first, stride, .. } = self.set;
        let shift = d - (first + g * self.baby * stride) % d;
        let column = b * stride;
        let Term { blocks, shifts, .. } = self.terms[term];
        let row = |i: usize| -> Vec<F> {
            let ((r0, c0), (rs, cs)) = (blocks[i], shifts[i]);
            (0..encoder.period())
                .map(|j| {
                    self.matrix
                        .at(r0 + (j + shift + rs) % d, c0 + (j + column + cs) % d)
                })
                .collect()
        };
        let row0 = row(0);
        if blocks[1] == blocks[0] && shifts[1] == shifts[0] {
            Ok(encoder.encode(&row0, &row0)?)
        } else {
            Ok(encoder.encode(&row0, &row(1))?)
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
                let encoder = self.on_demand.as_ref().unwrap_or(t.diagonal_encoder());
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
