//! The levels a multi-stage transform's Galois keys serve.
//!
//! Each stage of a transform multiplies by plaintexts and so drops primes before the next one
//! runs (every stage switches its input to its natural level first). A rotation used only by a
//! later stage therefore needs a key over the primes left at that stage, not over the whole
//! chain. The stage levels come from the engine's own noise bookkeeping
//! ([`Context::stage_levels`]) for fresh inputs, with each stage's growth bounded from above.
//! A noisier ciphertext drops more primes, so those levels are at or below the true ones, and
//! by at most one while the bounds exceed the true growth by less than a prime's bits in all
//! (3 to 11 bits a stage in the routes measured): each key serves one level more than
//! planned, which is then never too few for fresh inputs.

use helib_rs::{Context, GaloisSteps};

use crate::TransformPlan;

/// One stage of a transform, as far as its keys are concerned.
pub(crate) struct KeyStage {
    /// The rotations it makes.
    pub(crate) steps: GaloisSteps,
    /// How many plaintext terms an output of it sums, at most.
    pub(crate) terms: usize,
}

impl KeyStage {
    /// A stage that runs `plan`.
    pub(crate) fn of(plan: &TransformPlan) -> KeyStage {
        KeyStage {
            steps: plan.galois_steps(),
            // Twice the diagonals: the swapped-row variants and the rows' finish.
            terms: 2 * plan.num_diagonals(),
        }
    }
}

/// A bound on a stage's noise growth, in bits: every plaintext has canonical norm at most
/// `N p / 2` (its centred coefficients summed), times the terms, plus 2 bits for the giant
/// steps' key switches and the rows' finish.
fn growth_bound(ctx: &Context, terms: usize) -> f64 {
    f64::from(ctx.plaintext_bits()) - 1.0
        + (ctx.ring_degree() as f64).log2()
        + (terms.max(1) as f64).log2()
        + 2.0
}

/// The keys of `stages`, run one after the other on fresh inputs: each rotation's key serves
/// the levels up to the first stage that uses it. Where the levels cannot be planned, keys for
/// every level.
pub(crate) fn staged_galois_steps(ctx: &Context, stages: &[KeyStage]) -> GaloisSteps {
    let growth: Vec<f64> = stages.iter().map(|s| growth_bound(ctx, s.terms)).collect();
    match ctx.stage_levels(&growth) {
        Ok(levels) => {
            let top = levels.first().copied().unwrap_or(0);
            stages
                .iter()
                .zip(levels)
                .fold(GaloisSteps::new(), |keys, (stage, level)| {
                    keys.union(&stage.steps.clone().up_to_level((level + 1).min(top)))
                })
        }
        Err(_) => stages
            .iter()
            .fold(GaloisSteps::new(), |keys, stage| keys.union(&stage.steps)),
    }
}
