//! Execution of a [`TransformPlan`] on ciphertexts.

use std::sync::atomic::{AtomicUsize, Ordering};

use ark_ff::PrimeField;
use helib_rs::{Ctxt, EncodedPtxt, GaloisKeys, HornerChain};
use rayon::prelude::*;

use crate::bsgs::encoded::DiagonalSource;
use crate::bsgs::plan::Finish;
use crate::error::{Error, Result};
use crate::{EncodedTransform, Progress, TransformPlan};

impl TransformPlan {
    /// `y = M x` for the encrypted `x` (laid out as [`input_layout`](Self::input_layout)
    /// says); the result is laid out as [`output_layout`](Self::output_layout) says.
    ///
    /// The input is first switched down to its natural level
    /// ([`Ctxt::mod_switch_to_natural_level`]): a fresh ciphertext stays where it is, one
    /// whose noise grew (the output of a product or an earlier transform) drops the primes it
    /// no longer needs, keeping its budget, before the rotations and products run on it.
    ///
    /// Runs on the current rayon pool: baby steps in rounds of parallel rotations,
    /// giant-step chains in parallel, and nothing nested, so a pool of `T` threads keeps `T`
    /// cores busy and no more.
    ///
    /// Fails with [`Error::MissingKey`] (naming the step) before any work if `gk` lacks a key
    /// of [`galois_steps`](Self::galois_steps), and with [`Error::WrongLength`] for the
    /// wrong number of ciphertexts.
    pub fn execute<F: PrimeField>(
        &self,
        encoded: &EncodedTransform<F>,
        gk: &GaloisKeys,
        x: &[Ctxt],
    ) -> Result<Vec<Ctxt>> {
        self.execute_with_progress(encoded, gk, x, &|_, _| {})
    }

    /// [`execute`](Self::execute) with a progress callback.
    pub fn execute_with_progress<F: PrimeField>(
        &self,
        encoded: &EncodedTransform<F>,
        gk: &GaloisKeys,
        x: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let k = self.input_layout().num_ciphertexts();
        if x.len() != k {
            return Err(Error::wrong_length(
                "the plan's input ciphertexts",
                k,
                x.len(),
            ));
        }
        if !encoded.fits(self) {
            return Err(Error::InvalidArgument(
                "the encoded transform was built for a different plan (size or BSGS shape)".into(),
            ));
        }
        self.check_keys(gk)?;
        let expected = self.input_tag();
        if let Some(ct) = x
            .iter()
            .find(|ct| ct.layout_tag() != 0 && ct.layout_tag() != expected)
        {
            // Chains of plans must match layouts (TwoStageFft::with_order,
            // PlanOptions::half_rotated_input).
            return Err(Error::Layout {
                transform: "the BSGS plan",
                expected,
                got: ct.layout_tag(),
            });
        }
        let babies = self.baby_steps_of(x, gk)?;
        // Diagonals encoded on demand need only the primes the (switched) input kept.
        let level = babies
            .first()
            .and_then(|b| b.first())
            .map_or(u32::MAX, Ctxt::level);
        let source = encoded.source(level)?;

        let total = self.progress_total();
        let done = AtomicUsize::new(0);
        let jobs: Vec<(usize, usize)> = (0..k)
            .flat_map(|a| (0..self.chains().len()).map(move |c| (a, c)))
            .collect();
        // Plans whose baby steps come in rounds (the witness maps' by default) also share the
        // key switch of a lone offset rotation (two chains, one output) among the threads,
        // after the chains, instead of one thread running it while the others wait. For
        // hoisted plans (the FFTs') that measured 4% slower on two threads (2.60-2.63 against
        // 2.46-2.50 s at 32768 points); for the witness map at 4096, 4% faster.
        let offsets = jobs
            .iter()
            .filter(|&&(_, c)| self.chain_offset(self.chains()[c].start).is_some())
            .count();
        let offsets_after = offsets == 1 && self.shares_lone_rotations();
        let partial: Vec<(usize, Ctxt)> = jobs
            .par_iter()
            .map(|&(a, c)| {
                let mut ct = self.chain(&source, gk, &babies, a, c, &|| {
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, total)
                })?;
                match self.chain_offset(self.chains()[c].start) {
                    Some(step) if !offsets_after => ct.rotate_rows(step, gk)?,
                    _ => {}
                }
                Ok((a, c, ct))
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .map(
                |(a, c, ct)| match self.chain_offset(self.chains()[c].start) {
                    Some(step) if offsets_after => Ok((a, rotated_by_pool(&ct, step, gk)?)),
                    _ => Ok((a, ct)),
                },
            )
            .collect::<Result<_>>()?;

        let mut out: Vec<Option<Ctxt>> = (0..k).map(|_| None).collect();
        for (a, ct) in partial {
            match &mut out[a] {
                Some(acc) => acc.add_assign(&ct)?,
                slot => *slot = Some(ct),
            }
        }
        out.into_iter()
            .map(|c| {
                let ct = c.ok_or_else(|| {
                    Error::Internal("a transform output received no giant step".into())
                })?;
                let mut ct = self.finish_rows(ct, gk)?;
                ct.set_layout_tag(self.output_tag());
                Ok(ct)
            })
            .collect()
    }

    /// Adds the two rows' halves of the work (see [`Finish`]).
    fn finish_rows(&self, mut ct: Ctxt, gk: &GaloisKeys) -> Result<Ctxt> {
        let rotate = match self.finish() {
            Finish::None => return Ok(ct),
            Finish::Swap => None,
            Finish::SwapRotate(h) => Some(h as i64),
        };
        let other = if self.shares_lone_rotations() {
            let swapped = swapped_by_pool(&ct, gk)?;
            match rotate {
                Some(h) => rotated_by_pool(&swapped, h, gk)?,
                None => swapped,
            }
        } else {
            let mut other = ct.try_clone()?;
            other.swap_rows(gk)?;
            if let Some(h) = rotate {
                other.rotate_rows(h, gk)?;
            }
            other
        };
        ct.add_assign(&other)?;
        Ok(ct)
    }

    /// Whether the rotations that run alone after the chains (a lone offset, the rows'
    /// finish) share their key switch among the pool's threads: for plans whose baby steps
    /// come in rounds, on a pool of two threads or more (see `execute_with_progress`).
    fn shares_lone_rotations(&self) -> bool {
        self.baby_step_keys() < self.baby_steps().saturating_sub(1)
            && rayon::current_num_threads() >= 2
    }

    pub(crate) fn check_keys(&self, gk: &GaloisKeys) -> Result<()> {
        let steps = self.galois_steps();
        if let Some(&k) = steps.requested_steps().iter().find(|&&k| !gk.has_step(k)) {
            return Err(Error::MissingKey(format!(
                "no Galois key for the row rotation by {k}, which this transform needs; \
                 generate the keys from TransformPlan::galois_steps()"
            )));
        }
        if steps.includes_row_swap() && !gk.has_row_swap() {
            return Err(Error::MissingKey(
                "no Galois key for the row swap, which this transform needs; generate the keys \
                 from TransformPlan::galois_steps()"
                    .into(),
            ));
        }
        Ok(())
    }

    /// `rot(b, input)` for b < n1, for every (input, swapped) variant the block products read.
    fn baby_steps_of(&self, x: &[Ctxt], gk: &GaloisKeys) -> Result<Vec<Vec<Ctxt>>> {
        // An input whose noise grew (a product's, say) has primes it no longer needs: dropping
        // them keeps the budget and makes every rotation and product cheaper. All inputs go
        // to the lowest such level, since one inner product may combine several.
        let mut switched: Vec<Ctxt> = x
            .par_iter()
            .map(|c| {
                let mut c = c.try_clone()?;
                c.mod_switch_to_natural_level()?;
                Ok(c)
            })
            .collect::<Result<_>>()?;
        // Derived keys, and keys made for the lower levels only, rotate up to their level.
        let level = switched.iter().map(Ctxt::level).min().unwrap_or(1);
        let level = gk
            .max_level_for(&self.galois_steps())
            .map_or(level, |top| level.min(top));
        for c in switched.iter_mut().filter(|c| c.level() > level) {
            c.mod_switch_to(level)?;
        }
        let bases: Vec<Ctxt> = self
            .inputs()
            .par_iter()
            .map(|&(i, swapped)| {
                let mut c = switched[i].try_clone()?;
                if swapped {
                    c.swap_rows(gk)?;
                }
                Ok(c)
            })
            .collect::<Result<_>>()?;
        let n1 = self.baby_steps();
        let stride = self.diagonal_set().stride as i64;
        let keys = self.baby_step_keys().max(1);
        let mut out: Vec<Vec<Ctxt>> = bases.into_iter().map(|b| vec![b]).collect();
        // Round by round (one round when every baby step has its key), the last baby step so
        // far is rotated by 1 ..= keys strides. A round's rotations are cut into as many
        // hoisted calls as the plan has giant-step chains (its share of the pool), each call
        // sharing one digit decomposition.
        let mut done = 1;
        while done < n1 {
            let count = keys.min(n1 - done);
            let steps: Vec<i64> = (1..=count as i64).map(|j| j * stride).collect();
            if count >= 2 && count < n1 - 1 && rayon::current_num_threads() >= 2 {
                // A round of a few rotations of one ciphertext: the threads share each key
                // switch, lifting the digits once for all of the round's keys.
                for v in &mut out {
                    let rotated = v[done - 1].rotated_rows_parallel(&steps, gk)?;
                    v.extend(rotated);
                }
                done += count;
                continue;
            }
            let per_call = count.div_ceil(self.chains().len().clamp(1, count));
            let jobs: Vec<(usize, &[i64])> = (0..out.len())
                .flat_map(|v| steps.chunks(per_call).map(move |s| (v, s)))
                .collect();
            let rotated: Vec<Vec<Ctxt>> = jobs
                .par_iter()
                .map(|&(v, s)| out[v][done - 1].rotate_rows_many(s, gk))
                .collect::<helib_rs::Result<_>>()?;
            for ((v, _), r) in jobs.iter().zip(rotated) {
                out[*v].extend(r);
            }
            done += count;
        }
        Ok(out)
    }

    /// Horner over chain `c`'s giant steps for output `a` (the caller rotates it by the
    /// chain's offset).
    fn chain<F: PrimeField>(
        &self,
        source: &DiagonalSource<'_, F>,
        gk: &GaloisKeys,
        babies: &[Vec<Ctxt>],
        a: usize,
        c: usize,
        step_done: &(dyn Fn() + Sync),
    ) -> Result<Ctxt> {
        let mut giant_steps = self.chains()[c].clone().rev();
        let last = giant_steps
            .next()
            .ok_or_else(|| Error::Internal("empty giant-step chain".into()))?;
        let inner = self.giant_inner(source, babies, a, last)?;
        step_done();
        if giant_steps.len() == 0 {
            return Ok(inner);
        }
        // The accumulator stays over the key-switching basis between the steps (HornerChain):
        // each step then mod-downs one polynomial instead of two.
        let mut acc = HornerChain::new(&inner, self.giant_step(), gk)?;
        drop(inner);
        for g in giant_steps {
            acc.rotate_add(&self.giant_inner(source, babies, a, g)?)?;
            step_done();
        }
        Ok(acc.result()?)
    }

    /// sum over block products into output `a` and baby steps b of diag'(g, b) * rot(b, input).
    fn giant_inner<F: PrimeField>(
        &self,
        source: &DiagonalSource<'_, F>,
        babies: &[Vec<Ctxt>],
        a: usize,
        g: usize,
    ) -> Result<Ctxt> {
        let mut held = Vec::new();
        let mut cts: Vec<&Ctxt> = Vec::new();
        for (t, term) in self
            .terms()
            .iter()
            .enumerate()
            .filter(|(_, t)| t.output == a)
        {
            let v = self
                .inputs()
                .iter()
                .position(|&i| i == (term.input, term.swapped))
                .ok_or_else(|| Error::Internal("block product without its input".into()))?;
            cts.extend(babies[v].iter());
            held.push(source.diagonals(t, g)?);
        }
        let pts: Vec<&EncodedPtxt> = held.iter().flat_map(|d| d.as_slice().iter()).collect();
        Ok(Ctxt::inner_product(&cts, &pts)?)
    }
}

/// `ct` with its rows swapped, for a single rotation while the pool has nothing else to do
/// (the witness map's join and separation, a plan's finish): with two threads or more they
/// share the key switch.
pub(crate) fn swapped_by_pool(ct: &Ctxt, gk: &GaloisKeys) -> Result<Ctxt> {
    if rayon::current_num_threads() >= 2 {
        Ok(ct.swapped_rows_parallel(gk)?)
    } else {
        let mut out = ct.try_clone()?;
        out.swap_rows(gk)?;
        Ok(out)
    }
}

/// `ct` with its rows rotated by `k`, as [`swapped_by_pool`] does the swap.
pub(crate) fn rotated_by_pool(ct: &Ctxt, k: i64, gk: &GaloisKeys) -> Result<Ctxt> {
    if rayon::current_num_threads() >= 2 {
        ct.rotated_rows_parallel(&[k], gk)?
            .pop()
            .ok_or_else(|| Error::Internal("the engine returned no rotation".into()))
    } else {
        Ok(ct.rotated_rows(k, gk)?)
    }
}
