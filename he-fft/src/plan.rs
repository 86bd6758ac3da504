//! [`TransformPlan`]: the shape of a baby-step giant-step (BSGS) matrix-vector product.

use std::ops::Range;

use helib_rs::{Context, Error, GaloisSteps, Result};

use crate::Layout;

/// Knobs of a plan; `Default` picks them from the dimension and the rayon pool.
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// Baby steps `n1` (a power of two dividing the row period `d`); default
    /// `2^ceil(log2(d) / 2)`. More baby steps mean more (cheap, hoisted) rotations and
    /// Galois keys, fewer giant steps.
    pub baby_steps: Option<usize>,
    /// Independent giant-step chains run in parallel; each costs one extra Galois key.
    /// Default: the current rayon pool's thread count.
    pub chains: Option<usize>,
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
}

/// The plan of `y = M x` on encrypted `x` with the BSGS diagonal method:
///
/// ```text
/// y = sum_g rot(g n1, sum_b diag'(g, b) * rot(b, x)),   diag'(g, b) = rot(-g n1, diag(g n1 + b))
/// ```
///
/// `n1` baby-step rotations of the input (hoisted: one digit decomposition), `n2 = d / n1`
/// giant steps, each an inner product of the baby steps with `n1` plaintext diagonals
/// followed by a rotation, and `d = n1 n2` plaintext multiplications per block: one
/// multiplicative level in all. Giant steps run as Horner chains (`acc = rot(n1, acc) +
/// inner`), so they need the key for `n1` plus one key per chain offset instead of one key
/// per giant step.
///
/// The plan says exactly which Galois keys execution needs ([`galois_steps`]), so the key
/// owner generates only those.
///
/// [`galois_steps`]: TransformPlan::galois_steps
#[derive(Clone, Debug)]
pub struct TransformPlan {
    layout: Layout,
    baby: usize,
    giant: usize,
    chains: Vec<Range<usize>>,
    terms: Vec<Term>,
    inputs: Vec<(usize, bool)>,
}

impl TransformPlan {
    /// The plan for an `n x n` matrix on `ctx`'s slots.
    pub fn new(ctx: &Context, n: usize, options: &PlanOptions) -> Result<Self> {
        let layout = Layout::new(n, ctx.ring_degree())?;
        let d = layout.row_period();
        let baby = match options.baby_steps {
            Some(b) if b == 0 || !b.is_power_of_two() || b > d => {
                return Err(Error::InvalidArgument(format!(
                    "baby steps must be a power of two dividing the row period {d}, got {b}"
                )))
            }
            Some(b) => b,
            None => 1 << d.trailing_zeros().div_ceil(2),
        };
        let giant = d / baby;
        let threads = options.chains.unwrap_or_else(rayon::current_num_threads);
        let chains = split_range(giant, threads.clamp(1, giant));
        let terms = block_terms(&layout);
        let mut inputs: Vec<(usize, bool)> = terms.iter().map(|t| (t.input, t.swapped)).collect();
        inputs.sort_unstable();
        inputs.dedup();
        Ok(TransformPlan {
            layout,
            baby,
            giant,
            chains,
            terms,
            inputs,
        })
    }

    /// The slot layout of input and output.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Baby steps `n1`.
    pub fn baby_steps(&self) -> usize {
        self.baby
    }

    /// Giant steps `n2`.
    pub fn giant_steps(&self) -> usize {
        self.giant
    }

    /// Multiplicative levels the transform consumes: one plaintext multiplication.
    pub fn levels(&self) -> u32 {
        1
    }

    /// Plaintext diagonals (`d` per block product).
    pub fn num_diagonals(&self) -> usize {
        self.terms.len() * self.layout.row_period()
    }

    /// Rotations one execution performs (row swaps included).
    pub fn num_rotations(&self) -> usize {
        let swaps = self.inputs.iter().filter(|(_, s)| *s).count();
        let babies = self.inputs.len() * (self.baby - 1);
        let giants_per_output =
            (self.giant - self.chains.len()) + self.chains.iter().filter(|c| c.start > 0).count();
        swaps + babies + self.layout.num_ciphertexts() * giants_per_output
    }

    /// Exactly the Galois keys execution uses.
    pub fn galois_steps(&self) -> GaloisSteps {
        let mut steps = GaloisSteps::new().steps((1..self.baby).map(|b| b as i64));
        if self.giant > 1 {
            steps = steps.step(self.baby as i64);
        }
        for c in self.chains.iter().filter(|c| c.start > 0) {
            steps = steps.step((c.start * self.baby) as i64);
        }
        if self.inputs.iter().any(|(_, s)| *s) {
            steps = steps.row_swap();
        }
        steps
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
}

/// The block products of a layout: one for a replicated vector; for a split one, every
/// (output, input) pair twice, once with the rows as they are and once swapped.
fn block_terms(layout: &Layout) -> Vec<Term> {
    if layout.is_replicated() {
        return vec![Term {
            input: 0,
            swapped: false,
            output: 0,
            blocks: [(0, 0); 2],
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
