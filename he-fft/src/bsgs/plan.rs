//! [`TransformPlan`]: the shape of a baby-step giant-step (BSGS) matrix-vector product.

use std::ops::Range;

use helib_rs::{Context, GaloisSteps};

use crate::bsgs::layout::Order;
use crate::error::{Error, Result};
use crate::Layout;

/// Knobs of a plan; `Default` picks them from the dimension and the rayon pool.
///
/// ```
/// let options = he_fft::PlanOptions::default().with_baby_steps(16).with_chains(2);
/// assert_eq!((options.baby_steps, options.chains), (Some(16), Some(2)));
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct PlanOptions {
    /// Baby steps `n1` (a power of two dividing the diagonals per row); default about the
    /// square root. More baby steps mean fewer giant steps; how many Galois keys they take
    /// is [`baby_step_keys`](Self::baby_step_keys).
    pub baby_steps: Option<usize>,
    /// Independent giant-step chains run in parallel; each costs one extra Galois key.
    /// Default: the current rayon pool's thread count.
    pub chains: Option<usize>,
    /// For a replicated vector: whether the input is half-rotated (see [`Layout`]); the
    /// output is then identical-rows, and the other way round.
    pub half_rotated_input: bool,
    /// Galois keys the baby steps use, `k >= 1` (more than `n1 - 1` count as `n1 - 1`). The
    /// baby steps come in rounds: round `r` rotates baby step `r k` by `1 ..= k` strides, so
    /// there are as many rotations whatever `k`. Default: a key per baby step, all of them
    /// rotations of the input that share one digit decomposition per thread (hoisting); the
    /// witness maps default to one key per giant-step chain instead
    /// ([`WitnessMap`](crate::WitnessMap)).
    ///
    /// A single rotation streams its key switch a row at a time; a hoisted batch saves the
    /// decomposition's NTTs but holds it and reads it back for each rotation, and needs a key
    /// for each. Which is faster depends on the size and on how busy the memory is
    /// (measurements in BENCHMARKS.md); fewer keys always take less memory and upload.
    pub baby_step_keys: Option<usize>,
}

impl PlanOptions {
    /// These options with `n1` baby steps.
    pub fn with_baby_steps(mut self, n1: usize) -> Self {
        self.baby_steps = Some(n1);
        self
    }

    /// These options with `chains` parallel giant-step chains.
    pub fn with_chains(mut self, chains: usize) -> Self {
        self.chains = Some(chains);
        self
    }

    /// These options with baby steps that use at most `k` Galois keys (see
    /// [`baby_step_keys`](Self::baby_step_keys)).
    pub fn with_baby_step_keys(mut self, k: usize) -> Self {
        self.baby_step_keys = Some(k);
        self
    }

    /// These options reading a half-rotated input (see [`Layout`]) or not.
    pub fn with_half_rotated_input(mut self, half_rotated: bool) -> Self {
        self.half_rotated_input = half_rotated;
        self
    }
}

/// What runs after the giant steps, combining the two rows' halves of the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Finish {
    None,
    /// `z + swap(z)`
    Swap,
    /// `z + rot(h, swap(z))`
    SwapRotate(usize),
}

/// The generalized diagonals a plan runs over: offsets `first + stride * m` (mod `n`) for
/// `m < count`, every other diagonal of the matrix being zero. A dense matrix has all `n`
/// (`first` 0, `stride` 1); the two stages of [`TwoStageFft`](crate::TwoStageFft) have `n2`
/// at a stride of `n1`, and `2 n1` consecutive ones around the main diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DiagonalSet {
    pub first: usize,
    pub stride: usize,
    pub count: usize,
}

impl DiagonalSet {
    /// All `n` diagonals.
    pub(crate) fn all(n: usize) -> Self {
        DiagonalSet {
            first: 0,
            stride: 1,
            count: n,
        }
    }
}

/// What the two slot rows of a replicated layout hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rows {
    /// The same vector, so a dense set of diagonals splits between them.
    Shared,
    /// Two vectors (identical-rows flavour, each row its own): the matrix acts on each row
    /// alone, both rows doing all the diagonals.
    Independent,
    /// As [`Rows::Independent`], but each row by its own matrix: the plan takes a `2n x 2n`
    /// block-diagonal matrix whose block `r` (rows and columns `r n .. (r + 1) n`) acts on
    /// slot row `r`.
    PerRow,
}

/// One block product: rows of the output ciphertext `output` receive the `d x d` blocks of
/// the matrix times the rows of input ciphertext `input` (its rows swapped if `swapped`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Term {
    pub input: usize,
    pub swapped: bool,
    pub output: usize,
    /// Per slot row: (first matrix row, first matrix column) of its block.
    pub blocks: [(usize, usize); 2],
    /// Per slot row: cyclic (row, column) shifts within the block.
    pub shifts: [(usize, usize); 2],
}

/// The plan of `y = M x` on encrypted `x` with the BSGS diagonal method:
///
/// ```text
/// y = sum_g rot(g n1, sum_b diag'(g, b) * rot(b, x)),   diag'(g, b) = rot(-g n1, diag(g n1 + b))
/// ```
///
/// (For a matrix known to have fewer nonzero diagonals, at offsets `first + stride m`, every
/// rotation is by `stride` times as much and the chains end with a rotation by `first`.)
///
/// `n1 - 1` baby-step rotations of the input (in rounds, see [`PlanOptions::baby_step_keys`]),
/// `n2` giant steps, each an inner product of the baby steps with `n1` plaintext diagonals
/// followed by a rotation: one multiplicative level in all. Giant steps run as Horner chains (`acc =
/// rot(n1, acc) + inner`), so they need the key for `n1` plus one key per chain offset
/// instead of one key per giant step.
///
/// A replicated vector (`n <= N/2`) has its data in both slot rows, and each row does half
/// the diagonals: row 0 the offsets `0..n/2`, row 1 the offsets `n/2..n` (it reads `x`
/// shifted by `n/2`, through the half-rotated layout on one side). A row swap then adds
/// the halves: `n/2` encoded diagonals and products instead of `n`, and half the giant
/// steps. The output comes in the other row flavour than the input ([`Layout`]).
///
/// The plan says exactly which Galois keys execution needs ([`galois_steps`]), so the key
/// owner generates only those.
///
/// [`galois_steps`]: TransformPlan::galois_steps
#[derive(Clone, Debug)]
pub struct TransformPlan {
    input: Layout,
    output: Layout,
    finish: Finish,
    baby: usize,
    baby_keys: usize,
    giant: usize,
    chains: Vec<Range<usize>>,
    terms: Vec<Term>,
    inputs: Vec<(usize, bool)>,
    set: DiagonalSet,
    matrix_dim: usize,
    orders: [Order; 2],
}

impl TransformPlan {
    /// The plan for an `n x n` matrix on `ctx`'s slots.
    pub fn new(ctx: &Context, n: usize, options: &PlanOptions) -> Result<Self> {
        Self::with_diagonals(ctx, n, DiagonalSet::all(n), options, Rows::Shared)
    }

    /// The plan for an `n x n` matrix whose nonzero diagonals all lie in `set`. Other sets
    /// than all diagonals need a replicated layout (`n <= N/2`); the rows split the work
    /// (as for a dense matrix) when the set's second half starts at `n/2`, and otherwise both
    /// rows do all of it, the input's row flavour passing through. With [`Rows::Independent`]
    /// both rows always do all of it, each on its own vector.
    pub(crate) fn with_diagonals(
        ctx: &Context,
        n: usize,
        set: DiagonalSet,
        options: &PlanOptions,
        rows: Rows,
    ) -> Result<Self> {
        let layout = Layout::new(n, ctx.ring_degree())?;
        if rows != Rows::Shared && (!layout.is_replicated() || options.half_rotated_input) {
            return Err(Error::Internal(format!(
                "independent rows need a vector of at most N/2 values in identical-rows \
                 flavour (n = {n})"
            )));
        }
        let dense = set == DiagonalSet::all(n);
        if !dense && !layout.is_replicated() {
            return Err(Error::InvalidArgument(format!(
                "a sparse set of diagonals needs a vector of at most N/2 = {} values, got {n}",
                ctx.ring_degree() / 2
            )));
        }
        if set.count == 0
            || !set.count.is_power_of_two()
            || set.stride.saturating_mul(set.count) > n
        {
            return Err(Error::Internal(format!(
                "bad diagonal set {set:?} for n = {n}"
            )));
        }
        let d = layout.row_period();
        let two_rows = rows == Rows::Shared
            && layout.is_replicated()
            && set.count >= 2
            && set.stride * set.count == n;
        let h = n / 2;
        let (input, output, finish, shifts) = if !two_rows {
            let flavour = if options.half_rotated_input {
                layout.half_rotated()
            } else {
                layout
            };
            (flavour, flavour, Finish::None, [(0, 0); 2])
        } else if options.half_rotated_input {
            (
                layout.half_rotated(),
                layout,
                Finish::Swap,
                [(0, 0), (0, h)],
            )
        } else {
            (
                layout,
                layout.half_rotated(),
                Finish::SwapRotate(h),
                [(0, 0), (h, 0)],
            )
        };
        let per_row = if dense { d } else { set.count };
        let per_row = if two_rows { per_row / 2 } else { per_row };
        let baby = match options.baby_steps {
            Some(b) if b == 0 || !b.is_power_of_two() || b > per_row => {
                return Err(Error::InvalidArgument(format!(
                    "baby steps must be a power of two dividing {per_row}, got {b}"
                )))
            }
            Some(b) => b,
            None => 1 << per_row.trailing_zeros().div_ceil(2),
        };
        let threads = options.chains.unwrap_or_else(rayon::current_num_threads);
        let baby_keys = match options.baby_step_keys {
            Some(0) => {
                return Err(Error::InvalidArgument(
                    "baby steps need at least one Galois key (baby_step_keys >= 1)".into(),
                ))
            }
            Some(k) => k.min(baby - 1),
            None => baby - 1,
        };
        let giant = per_row / baby;
        let chains = split_range(giant, threads.clamp(1, giant));
        let terms = if two_rows {
            vec![Term {
                input: 0,
                swapped: false,
                output: 0,
                blocks: [(0, 0); 2],
                shifts,
            }]
        } else if rows == Rows::PerRow {
            vec![Term {
                input: 0,
                swapped: false,
                output: 0,
                blocks: [(0, 0), (n, n)],
                shifts: [(0, 0); 2],
            }]
        } else {
            block_terms(&layout)
        };
        let mut inputs: Vec<(usize, bool)> = terms.iter().map(|t| (t.input, t.swapped)).collect();
        inputs.sort_unstable();
        inputs.dedup();
        Ok(TransformPlan {
            input,
            output,
            finish,
            baby,
            baby_keys,
            giant,
            chains,
            terms,
            inputs,
            set,
            matrix_dim: if rows == Rows::PerRow { 2 * n } else { n },
            orders: [Order::NATURAL; 2],
        })
    }

    /// The same plan reading its input in order `input` and writing its output in `output`
    /// (what the ciphertexts' layout tags say; natural both ways by default).
    pub(crate) fn with_orders(mut self, input: Order, output: Order) -> Self {
        self.orders = [input, output];
        self
    }

    /// The layout tag inputs must carry (or 0, for ciphertexts nothing is known about).
    pub(crate) fn input_tag(&self) -> u64 {
        self.input.tag(self.orders[0])
    }

    /// The layout tag the outputs get.
    pub(crate) fn output_tag(&self) -> u64 {
        self.output.tag(self.orders[1])
    }

    /// The dimension of the matrix the plan takes: `n`, or `2n` for one matrix per slot row.
    pub(crate) fn matrix_dim(&self) -> usize {
        self.matrix_dim
    }

    /// The slot layout the input must have.
    pub fn input_layout(&self) -> &Layout {
        &self.input
    }

    /// The slot layout of the output (for a replicated vector, the other row flavour than
    /// the input's).
    pub fn output_layout(&self) -> &Layout {
        &self.output
    }

    /// Baby steps `n1`.
    pub fn baby_steps(&self) -> usize {
        self.baby
    }

    /// Galois keys the baby steps use: `n1 - 1` when each has its own, fewer when they come
    /// in rounds ([`PlanOptions::baby_step_keys`]).
    pub fn baby_step_keys(&self) -> usize {
        self.baby_keys
    }

    /// Giant steps `n2`.
    pub fn giant_steps(&self) -> usize {
        self.giant
    }

    /// Giant steps one execution runs in all (per output ciphertext): what its progress
    /// callback counts to.
    pub fn progress_total(&self) -> usize {
        self.giant * self.input.num_ciphertexts()
    }

    /// Multiplicative levels the transform consumes: one plaintext multiplication.
    pub fn levels(&self) -> u32 {
        1
    }

    /// Plaintext diagonals to encode (each covers both slot rows).
    pub fn num_diagonals(&self) -> usize {
        self.terms.len() * self.baby * self.giant
    }

    /// Rotations (key switches) one execution performs, row swaps included.
    pub fn num_rotations(&self) -> usize {
        let swaps = self.inputs.iter().filter(|(_, s)| *s).count();
        let babies = self.inputs.len() * (self.baby - 1);
        let offsets = self
            .chains
            .iter()
            .filter(|c| self.chain_offset(c.start).is_some())
            .count();
        let finish = match self.finish {
            Finish::None => 0,
            Finish::Swap => 1,
            Finish::SwapRotate(_) => 2,
        };
        let per_output = (self.giant - self.chains.len()) + offsets + finish;
        swaps + babies + self.output.num_ciphertexts() * per_output
    }

    /// Exactly the Galois keys execution uses.
    pub fn galois_steps(&self) -> GaloisSteps {
        let u = self.set.stride;
        let mut steps = GaloisSteps::new().steps((1..=self.baby_keys).map(|b| (b * u) as i64));
        if self.giant > 1 {
            steps = steps.step(self.giant_step());
        }
        for c in &self.chains {
            if let Some(k) = self.chain_offset(c.start) {
                steps = steps.step(k);
            }
        }
        if self.inputs.iter().any(|(_, s)| *s) || self.finish != Finish::None {
            steps = steps.row_swap();
        }
        if let Finish::SwapRotate(h) = self.finish {
            steps = steps.step(h as i64);
        }
        steps
    }

    /// The rotation between consecutive giant steps: `n1` diagonals further.
    pub(crate) fn giant_step(&self) -> i64 {
        (self.baby * self.set.stride) as i64
    }

    /// The rotation that ends the chain starting at giant step `start`, if any: to the
    /// chain's first diagonal offset.
    pub(crate) fn chain_offset(&self, start: usize) -> Option<i64> {
        let d = self.input.row_period();
        let k = (self.set.first + start * self.baby * self.set.stride) % d;
        (k != 0).then_some(k as i64)
    }

    pub(crate) fn diagonal_set(&self) -> DiagonalSet {
        self.set
    }

    pub(crate) fn terms(&self) -> &[Term] {
        &self.terms
    }

    pub(crate) fn inputs(&self) -> &[(usize, bool)] {
        &self.inputs
    }

    pub(crate) fn chains(&self) -> &[Range<usize>] {
        &self.chains
    }

    pub(crate) fn finish(&self) -> Finish {
        self.finish
    }
}

/// The block products of a layout: one for a replicated vector; for a split one, every
/// (output, input) pair twice, once with the rows as they are and once swapped.
fn block_terms(layout: &Layout) -> Vec<Term> {
    let no_shift = [(0, 0); 2];
    if layout.is_replicated() {
        return vec![Term {
            input: 0,
            swapped: false,
            output: 0,
            blocks: [(0, 0); 2],
            shifts: no_shift,
        }];
    }
    let k = layout.num_ciphertexts();
    let mut terms = Vec::with_capacity(2 * k * k);
    for output in 0..k {
        for input in 0..k {
            for swapped in [false, true] {
                let block = |row: usize| {
                    let in_row = row ^ usize::from(swapped);
                    (
                        layout.segment_offset(output, row),
                        layout.segment_offset(input, in_row),
                    )
                };
                terms.push(Term {
                    input,
                    swapped,
                    output,
                    blocks: [block(0), block(1)],
                    shifts: no_shift,
                });
            }
        }
    }
    terms
}

/// `0..len` cut into `parts` contiguous ranges whose sizes differ by at most one.
fn split_range(len: usize, parts: usize) -> Vec<Range<usize>> {
    (0..parts)
        .map(|i| (i * len / parts)..((i + 1) * len / parts))
        .collect()
}
