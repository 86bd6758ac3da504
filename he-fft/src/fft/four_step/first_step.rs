//! The first step of the four-step FFT, in pieces a distributed server can share out:
//! [`FirstStepInputs`] (inputs at one level with their row-swapped partners) and
//! [`FirstStepSum`] (one output ciphertext's sum, a batch of terms at a time), and the
//! lowering and row swaps that make its terms.

use ark_ff::{FftField, PrimeField};
use helib_rs::{Ctxt, EncodedPtxt, GaloisKeys, GaloisSteps};
use rayon::prelude::*;

use super::FourStepFft;
use crate::error::{Error, Result};

/// Some input ciphertexts of a [`FourStepFft`] prepared for step 1
/// ([`FourStepFft::first_step_inputs`]).
pub struct FirstStepInputs<'x> {
    pub(super) x: &'x [Ctxt],
    pub(super) lowered: Vec<Option<Ctxt>>,
    pub(super) swapped: Vec<Ctxt>,
}

impl FirstStepInputs<'_> {
    /// The inputs at the common level, then the same with their rows swapped.
    pub fn terms(&self) -> Vec<&Ctxt> {
        self.aligned().chain(&self.swapped).collect()
    }

    /// The inputs at the common level.
    pub fn aligned(&self) -> impl Iterator<Item = &Ctxt> {
        self.x
            .iter()
            .zip(&self.lowered)
            .map(|(ct, low)| low.as_ref().unwrap_or(ct))
    }

    /// The inputs with their rows swapped.
    pub fn swapped(&self) -> &[Ctxt] {
        &self.swapped
    }
}

/// Step 1 of a [`FourStepFft`] for one output ciphertext: `sum_rho x_rho * t(rho, k1)` in each
/// of its rows `k1`, built up from the terms (inputs, then their row-swapped copies) in
/// order, a batch at a time ([`FourStepFft::first_step_sum`]).
///
/// Slot `r` of `t(rho, k1)` is `s(rho, k1) v_k1^r` with `v_k1 = b u^k1` and
/// `s(rho, k1) = s a^k1 v_k1^(R rho)` (`s`, `a`, `b`, `u` the scale, output and input factors
/// and root). Encoding is linear, so each product's plaintext polynomial is
/// `s(rho0, k1) q0 + s(rho1, k1 + 1) q1`, with `q0`, `q1` the polynomials of the powers alone
/// in one row each: two slot transforms per output instead of one per product (a third less
/// work per plaintext at `N = 65536`).
pub struct FirstStepSum<'a, F: FftField + PrimeField> {
    pub(super) fft: &'a FourStepFft<F>,
    pub(super) ks: [usize; 2],
    pub(super) ratios: [F; 2],
    pub(super) q0: Vec<F>,
    pub(super) q1: Vec<F>,
    pub(super) next: usize,
    pub(super) sum: Option<Ctxt>,
}

impl<F: FftField + PrimeField> FirstStepSum<'_, F> {
    /// Adds terms `first ..first + terms.len()` (at most
    /// [`FourStepFft::FIRST_STEP_BATCH`], starting where the previous batch ended).
    pub fn add_terms(&mut self, first: usize, terms: &[&Ctxt]) -> Result<()> {
        let fft = self.fft;
        let (row, cts) = (fft.row_len(), fft.num_ciphertexts());
        if first != self.next
            || terms.is_empty()
            || terms.len() > FourStepFft::<F>::FIRST_STEP_BATCH
            || first + terms.len() > 2 * cts
        {
            return Err(Error::InvalidArgument(format!(
                "terms {first}..{} added to a first-step sum that expects term {} next, in \
                 batches of 1 to {} of its {} terms",
                first + terms.len(),
                self.next,
                FourStepFft::<F>::FIRST_STEP_BATCH,
                2 * cts
            )));
        }
        let scale = |rho: usize, slot_row: usize| {
            let k = self.ks[slot_row] as u64;
            fft.scale * fft.output_factor.pow([k]) * self.ratios[slot_row].pow([(row * rho) as u64])
        };
        let pts: Vec<EncodedPtxt> = (first..first + terms.len())
            .map(|t| {
                // Input ciphertext i holds rows 2i and 2i + 1; its swapped copy the reverse.
                let (i, swapped) = (t % cts, t >= cts);
                let rho = |slot_row: usize| 2 * i + (slot_row ^ usize::from(swapped));
                let (s0, s1) = (scale(rho(0), 0), scale(rho(1), 1));
                let coeffs: Vec<F> = self
                    .q0
                    .iter()
                    .zip(&self.q1)
                    .map(|(a, b)| s0 * a + s1 * b)
                    .collect();
                EncodedPtxt::from_poly(&fft.ctx, &coeffs, None)
            })
            .collect::<helib_rs::Result<_>>()?;
        let part = Ctxt::inner_product(terms, &pts.iter().collect::<Vec<_>>())?;
        match &mut self.sum {
            Some(s) => s.add_assign(&part)?,
            none => *none = Some(part),
        }
        self.next = first + terms.len();
        Ok(())
    }

    /// The sum, once every term is in.
    pub fn finish(self) -> Result<Ctxt> {
        let terms = 2 * self.fft.num_ciphertexts();
        match self.sum {
            Some(sum) if self.next == terms => Ok(sum),
            _ => Err(Error::InvalidArgument(format!(
                "a first-step sum finished after {} of its {terms} terms",
                self.next
            ))),
        }
    }
}

/// The four-step FFT's first step: the inputs `x` switched down to `level`, or to
/// the highest level the keys of `steps` serve if lower (copies only of the inputs above
/// it; `None` for the others), and each input's partner, made by `partner` from its lowered
/// copy (or itself).
pub(super) fn lowered_with_partners(
    gk: &GaloisKeys,
    x: &[Ctxt],
    level: u32,
    steps: &GaloisSteps,
    partner: impl Fn(&mut Ctxt) -> Result<()> + Sync,
) -> Result<(Vec<Option<Ctxt>>, Vec<Ctxt>)> {
    // Derived keys, and keys made for the lower levels only, rotate up to their level.
    let level = gk.max_level_for(steps).map_or(level, |top| level.min(top));
    let lowered: Vec<Option<Ctxt>> = x
        .par_iter()
        .map(|ct| {
            if ct.level() <= level {
                return Ok(None);
            }
            let mut low = ct.try_clone()?;
            low.mod_switch_to(level)?;
            Ok(Some(low))
        })
        .collect::<Result<_>>()?;
    let partners: Vec<Ctxt> = x
        .par_iter()
        .zip(&lowered)
        .map(|(ct, low)| {
            let mut p = low.as_ref().unwrap_or(ct).try_clone()?;
            partner(&mut p)?;
            Ok(p)
        })
        .collect::<Result<_>>()?;
    Ok((lowered, partners))
}
