//! [`FourStepWitnessMap`]: Groth16's witness map for domains larger than half a ring, across
//! several ciphertexts.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::EvaluationDomain;
use helib_rs::{
    Computation, Context, Ctxt, EncodedPtxt, GaloisKeys, GaloisSteps, PeriodicEncoder, SecKey,
};
use rayon::prelude::*;

use crate::bsgs::key_levels::{staged_galois_steps, KeyStage};
use crate::bsgs::layout::Order;
use crate::error::{Error, Result};
use crate::fft::four_step::lowered_with_partners;
use crate::fft::matrices::subgroup;
use crate::transform::{required_keys, TransformInfo};
use crate::{EncryptedTransform, FftOptions, Layout, Progress, WitnessMap};

/// Plaintexts encoded at once in the first step: bounds its memory (each is a full-size
/// encoding, 47 MiB at `N = 131072`) while keeping the products batched.
const PRODUCTS_PER_BATCH: usize = 8;

/// The most slot rows a vector may span (two per ciphertext).
const MAX_ROWS: usize = 2 * Layout::MAX_CIPHERTEXTS;

/// Groth16's witness map `h = (A B - C) / Z_H` for a domain `H` of size `n = c R` larger than
/// a slot row (`R = N/2`), on `c / 2` ciphertexts per input.
///
/// It splits `A` into its `c` polyphase components, `A(Y) = sum_k Y^k A_k(Y^c)` with
/// `deg A_k < R`, and likewise `B`. Then `A B = sum_s Y^s Q_s(Y^c)` with
/// `Q_s = sum_(k + l = s) A_k B_l`, and each `A_k B_l` is one ring product without
/// wraparound (degree `< 2R = N`). So:
/// 1. **Across rows** (one level): the values of `A_k` on the subgroup of size `R` are a
///    twiddled sum of the `c` rows of `a` (the first step of a four-step inverse FFT). Each
///    `k` takes `c` slot-wise products, with the inputs and their row-swapped, half-rotated
///    copies.
/// 2. **Within a row** (three levels): [`WitnessMap`]'s three stages at size `R` turn those
///    values into the ciphertext whose plaintext *polynomial* is `A_k(X)`.
/// 3. **Products** (one level): `T_i = Q_i + X Q_(i + c)` for `i < c`, `c^2` ciphertext
///    products in all; `h`'s entries `i + c j` are the coefficients `R + j` of `T_i`, which
///    [`decrypt`](EncryptedTransform::decrypt) reads off.
///
/// Five levels ([`witness_map_context`](crate::witness_map_context): `N = 131072` for BN254,
/// from `n = 131072` up). The upload is `c / 2` ciphertexts per input and the result `c`
/// ciphertexts. The result equals ark-groth16's `LibsnarkReduction` witness map for
/// constraints that hold.
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::EvaluationDomain;
/// use he_fft::{EncryptedTransform, FftOptions, FourStepWitnessMap};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// // A toy ring (insecure, for the example's speed): n = 2048 over four rows of 512.
/// let ctx = Context::builder().ring_degree(1024).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::FourStepWitnessMap::<Fr>::ciphertext_bits(1024, 2048))
///     .allow_insecure(true).build()?;
/// let map = FourStepWitnessMap::<Fr>::new(&ctx, 2048, &FftOptions::default())?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &map.galois_steps())?;
///
/// let a: Vec<Fr> = (1..=2048u64).map(Fr::from).collect();
/// let b: Vec<Fr> = (5001..=7048u64).map(Fr::from).collect();
/// let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
/// let mut x = map.encrypt(&pk, &a)?; // a's ciphertexts, then b's
/// x.extend(map.encrypt(&pk, &b)?);
/// let h = map.apply(&gk, &x)?;
/// let h = map.decrypt(&sk, &h)?;
/// let domain = ark_poly::Radix2EvaluationDomain::<Fr>::new(2048).unwrap();
/// he_fft::check::quotient(&domain, &a, &b, &c, &h).expect("h is the quotient");
/// # Ok(())
/// # }
/// ```
pub struct FourStepWitnessMap<F: FftField + PrimeField> {
    ctx: Context,
    n: usize,
    /// The witness map of one row's polyphase component.
    rows: WitnessMap<F>,
    /// `w^-1` for `w` the generator of `H`.
    root_inv: F,
    /// `1 / c`.
    c_inv: F,
    /// Row pairs into plaintext polynomials.
    encoder: PeriodicEncoder<F>,
    /// The layout tag of this map's inputs: row pairs, the odd row half-rotated.
    input_tag: u64,
}

impl<F: FftField + PrimeField> FourStepWitnessMap<F> {
    /// The witness map for constraints on the subgroup of size `n`: a power of two from `N`
    /// to `64 N` (smaller domains fit one ciphertext: [`WitnessMap`]).
    pub fn new(ctx: &Context, n: usize, options: &FftOptions) -> Result<Self> {
        let row = ctx.ring_degree() / 2;
        if row < 4 || !n.is_power_of_two() || n < 2 * row || n > MAX_ROWS * row {
            return Err(Error::InvalidArgument(format!(
                "the four-step witness map takes a power of two from N = {} to {} \
                 constraints' domain (and N >= 8), got n = {n}",
                2 * row,
                MAX_ROWS * row
            )));
        }
        let domain = subgroup::<F>(n)?;
        let c = n / row;
        Ok(FourStepWitnessMap {
            ctx: ctx.clone(),
            n,
            // One component's a and b after the other: each takes the whole pool.
            rows: WitnessMap::for_inputs_at_once(ctx, row, options, 1)?,
            root_inv: domain.group_gen_inv(),
            c_inv: F::from(c as u64).inverse().ok_or_else(|| {
                Error::InvalidArgument("the field's characteristic divides c".into())
            })?,
            encoder: PeriodicEncoder::new(ctx, row, None)?,
            input_tag: Layout::new(n, ctx.ring_degree())?.tag(Order::pairs_half_rotated()),
        })
    }

    /// The row length `R = N/2`.
    pub fn row_len(&self) -> usize {
        self.rows.info().len
    }

    /// The polyphase components (slot rows) `c = n / R`.
    pub fn num_rows(&self) -> usize {
        self.n / self.row_len()
    }

    /// The row map: [`WitnessMap`] at size `R`, whose stages run on every component.
    pub fn row_map(&self) -> &WitnessMap<F> {
        &self.rows
    }

    /// Rotations one [`apply`](EncryptedTransform::apply) performs (both inputs).
    pub fn num_rotations(&self) -> usize {
        self.num_rows() * (self.rows.num_rotations() + 2)
    }

    fn half_row(&self) -> usize {
        self.row_len() / 2
    }

    fn row_pairs<'a>(&'a self, x: &'a [F]) -> Result<impl Iterator<Item = Result<Vec<F>>> + 'a> {
        if x.len() != self.n {
            return Err(Error::wrong_length(
                "the witness map's evaluations",
                self.n,
                x.len(),
            ));
        }
        let (row, half) = (self.row_len(), self.half_row());
        Ok(x.chunks(2 * row).map(move |pair| {
            let mut odd = pair[row..].to_vec();
            odd.rotate_left(half);
            Ok(self.encoder.encode_poly(&pair[..row], &odd)?)
        }))
    }

    /// The encrypted quotient (`c` ciphertexts) from the encrypted `a` and `b`.
    fn run(
        &self,
        gk: &GaloisKeys,
        a: &[Ctxt],
        b: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        self.check_keys(gk)?;
        let total = self.total_steps();
        let per_row = self.rows.total_steps();
        let level = |x: &[Ctxt]| x.iter().map(Ctxt::level).min().unwrap_or(0);
        let (low_a, partners_a) = self.with_partners(gk, a, level(a))?;
        let (low_b, partners_b) = self.with_partners(gk, b, level(b))?;
        let (ta, tb) = (terms(a, &low_a, &partners_a), terms(b, &low_b, &partners_b));
        // One component at a time: what is live is the inputs, the finished components
        // (switched down to where their noise is) and one component's stages.
        let mut components: Vec<(Ctxt, Ctxt)> = Vec::with_capacity(self.num_rows());
        for k in 0..self.num_rows() {
            let base = k * per_row;
            components.push(self.component(gk, &ta, &tb, k, &|d, _| progress(base + d, total))?);
        }
        drop((ta, tb));
        drop((low_a, low_b, partners_a, partners_b));
        self.products(&components, 0..self.num_rows(), &|i| {
            progress(self.num_rows() * per_row + i + 1, total)
        })
    }

    /// Step 1's terms of one input, or of a block of its ciphertexts: each ciphertext at
    /// `level` (switched down where it is above it, and no higher than derived keys serve),
    /// then each one's partner (slot rows swapped, rotated by `R/2`). A run split across
    /// processes makes them for the ciphertexts it holds and gathers everyone's, in the order
    /// of the whole input: every ciphertext, then every partner.
    pub fn first_step_terms(&self, gk: &GaloisKeys, x: &[Ctxt], level: u32) -> Result<Vec<Ctxt>> {
        let (lowered, partners) = self.with_partners(gk, x, level)?;
        let mut out = x
            .iter()
            .zip(lowered)
            .map(|(ct, low)| low.map_or_else(|| ct.try_clone(), Ok))
            .collect::<helib_rs::Result<Vec<_>>>()?;
        out.extend(partners);
        Ok(out)
    }

    /// Component `k` of both inputs (`k < c`): step 1's sum over the terms `ta` and `tb` (all
    /// of [`first_step_terms`](Self::first_step_terms) of `a` and of `b`, in order), then the
    /// row map's three stages, each result switched down to its natural level.
    /// `progress(done, _)` counts the row map's giant steps of both inputs.
    pub fn component(
        &self,
        gk: &GaloisKeys,
        ta: &[&Ctxt],
        tb: &[&Ctxt],
        k: usize,
        progress: Progress<'_>,
    ) -> Result<(Ctxt, Ctxt)> {
        let terms = self.num_rows();
        if k >= self.num_rows() || ta.len() != terms || tb.len() != terms {
            return Err(Error::InvalidArgument(format!(
                "component {k} of {} from {} and {} terms ({terms} each expected)",
                self.num_rows(),
                ta.len(),
                tb.len()
            )));
        }
        let per_row = self.rows.total_steps();
        let (va, vb) = self.across(ta, tb, k)?;
        // One input after the other: each stage already runs its giant-step chains on every
        // thread. Measured at n = 131072 on two threads: 17.9 GB peak this way against
        // 18.6 GB side by side, the times (132 s; 116 s and 133 s side by side) within the
        // run-to-run noise; at n = 2^20 the peak is what limits.
        let mut ak = self.rows.interpolate(gk, va, &|d, t| progress(d, t))?;
        let mut bk = self
            .rows
            .interpolate(gk, vb, &|d, t| progress(per_row / 2 + d, t))?;
        ak.mod_switch_to_natural_level()?;
        bk.mod_switch_to_natural_level()?;
        Ok((ak, bk))
    }

    /// The result ciphertexts `outputs` (of `c`) from every component, in order:
    /// `T_i = sum_(k + l = i) A_k B_l + X sum_(k + l = i + c) A_k B_l`. `done(i)` is called
    /// as each finishes.
    pub fn products(
        &self,
        components: &[(Ctxt, Ctxt)],
        outputs: std::ops::Range<usize>,
        done: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Ctxt>> {
        if components.len() != self.num_rows() || outputs.end > self.num_rows() {
            return Err(Error::InvalidArgument(format!(
                "the products take all {} components and outputs below it, got {} and {outputs:?}",
                self.num_rows(),
                components.len()
            )));
        }
        self.products_of(components, outputs, done)
    }

    /// Every component's three stages on both inputs, and one per result.
    fn total_steps(&self) -> usize {
        self.num_rows() * (self.rows.total_steps() + 1)
    }

    fn check_keys(&self, gk: &GaloisKeys) -> Result<()> {
        self.rows.check_keys(gk)?;
        if !gk.has_row_swap() || !gk.has_step(self.half_row() as i64) {
            return Err(Error::MissingKey(format!(
                "the four-step witness map's first step needs the row swap and the rotation by \
                 {} (generate the keys of FourStepWitnessMap::galois_steps)",
                self.half_row()
            )));
        }
        Ok(())
    }

    /// The inputs switched to one level where they differ (copies only of those), and each
    /// one's partner: rows swapped and rotated by `R/2`, so that slot row 0 holds row
    /// `2q + 1` and slot row 1 row `2q`, half-rotated.
    fn with_partners(
        &self,
        gk: &GaloisKeys,
        x: &[Ctxt],
        level: u32,
    ) -> Result<(Vec<Option<Ctxt>>, Vec<Ctxt>)> {
        let half = self.half_row() as i64;
        let steps = GaloisSteps::new().row_swap().step(half);
        lowered_with_partners(gk, x, level, &steps, |s| {
            s.swap_rows(gk)?;
            Ok(s.rotate_rows(half, gk)?)
        })
    }

    /// Step 1 for component `k` of both inputs (each given as its ciphertexts, then their
    /// partners): the values `v_k[r] = (1/c) sum_rho w^(-(r + R rho) k) x[r + R rho]` in
    /// slot row 0 and the same rotated by `R/2` in slot row 1, the row map's input.
    ///
    /// With `u = w^-k`, the twiddle of row `rho` is `s_rho u^r`, `s_rho = u^(R rho) / c`.
    /// Encoding is linear, so each product's plaintext is `s q0 + s' q1`, `q0` and `q1`
    /// the polynomials of the powers of `u` alone in slot row 0, and half-rotated alone in
    /// slot row 1: two slot transforms per component instead of one per product.
    fn across(&self, a: &[&Ctxt], b: &[&Ctxt], k: usize) -> Result<(Ctxt, Ctxt)> {
        let (row, cts) = (self.row_len(), a.len() / 2);
        let u = self.root_inv.pow([k as u64]);
        let mut powers = Vec::with_capacity(row);
        let mut t = F::one();
        for _ in 0..row {
            powers.push(t);
            t *= u;
        }
        let zero = vec![F::zero(); row];
        let q0 = self.encoder.encode_poly(&powers, &zero)?;
        powers.rotate_left(self.half_row());
        let q1 = self.encoder.encode_poly(&zero, &powers)?;
        drop(powers);
        let u_row = u.pow([row as u64]);
        let scale = |rho: usize| self.c_inv * u_row.pow([rho as u64]);
        let level = a[0].level().min(b[0].level());
        let tag = self.rows.input_tag();
        let mut sums: [Option<Ctxt>; 2] = [None, None];
        let terms: Vec<usize> = (0..2 * cts).collect();
        for batch in terms.chunks(PRODUCTS_PER_BATCH) {
            let pts: Vec<EncodedPtxt> = batch
                .par_iter()
                .map(|&t| {
                    // Input q holds rows 2q (slot row 0) and 2q + 1 (slot row 1); its partner
                    // the reverse.
                    let (q, partner) = (t % cts, t >= cts);
                    let rho = |slot_row: usize| 2 * q + (slot_row ^ usize::from(partner));
                    let (s0, s1) = (scale(rho(0)), scale(rho(1)));
                    let coeffs: Vec<F> = q0.iter().zip(&q1).map(|(x, y)| s0 * x + s1 * y).collect();
                    EncodedPtxt::from_poly(&self.ctx, &coeffs, Some(level))
                })
                .collect::<helib_rs::Result<_>>()?;
            let pts: Vec<&EncodedPtxt> = pts.iter().collect();
            for (sum, x) in sums.iter_mut().zip([a, b]) {
                let cts: Vec<&Ctxt> = batch.iter().map(|&t| x[t]).collect();
                let part = Ctxt::inner_product(&cts, &pts)?;
                match sum {
                    Some(s) => s.add_assign(&part)?,
                    none => *none = Some(part),
                }
            }
        }
        let [sa, sb] = sums.map(|s| {
            let mut s = s.ok_or_else(|| Error::Internal("no input ciphertext".into()))?;
            s.set_layout_tag(tag);
            Ok::<_, Error>(s)
        });
        Ok((sa?, sb?))
    }

    /// `T_i = sum_(k + l = i) A_k B_l + X sum_(k + l = i + c) A_k B_l` for `i` in `outputs`.
    fn products_of(
        &self,
        components: &[(Ctxt, Ctxt)],
        outputs: std::ops::Range<usize>,
        done: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Ctxt>> {
        let c = components.len();
        // X A_k: multiplying by a monomial only permutes the coefficients (no noise growth).
        let shifted: Vec<Ctxt> = components
            .par_iter()
            .map(|(ak, _)| {
                let mut s = ak.try_clone()?;
                s.mul_poly(&[F::zero(), F::one()])?;
                Ok(s)
            })
            .collect::<Result<_>>()?;
        outputs
            .into_par_iter()
            .map(|i| {
                let mut t: Option<Ctxt> = None;
                for k in 0..c {
                    let (a, l) = if k <= i {
                        (&components[k].0, i - k)
                    } else {
                        (&shifted[k], i + c - k)
                    };
                    let p = a.checked_mul(&components[l].1)?;
                    match &mut t {
                        Some(t) => t.add_assign(&p)?,
                        none => *none = Some(p),
                    }
                }
                let mut t = t.ok_or_else(|| Error::Internal("no component".into()))?;
                t.set_layout_tag(0);
                done(i);
                Ok(t)
            })
            .collect()
    }
}

/// Sizing: the modulus of the four-step witness map
/// ([`witness_map_context`](crate::witness_map_context) sizes a context for either route).
impl<F: FftField + PrimeField> FourStepWitnessMap<F> {
    /// Ciphertext-modulus bits for the four-step witness map of size `n` on the ring
    /// `ring_degree`: the row map's ([`WitnessMap::ciphertext_bits`] at `R = N/2`), one more
    /// plaintext level for the step across the `c = n / R` rows (a sum of `c` products), and
    /// the growth of the sums of `c` products in both.
    pub fn ciphertext_bits(ring_degree: usize, n: usize) -> u32 {
        crate::params::four_step_witness_map_bits(ring_degree, F::MODULUS_BIT_SIZE, n)
    }
}

impl<F: FftField + PrimeField> EncryptedTransform<F> for FourStepWitnessMap<F> {
    /// The domain size `n` is the length of `a`, `b` and of the result `h`, whose `c`
    /// ciphertexts come from `c / 2` per input; the levels are the step across rows, the
    /// three stages and the product.
    fn info(&self) -> TransformInfo {
        TransformInfo {
            name: "the four-step witness map",
            len: self.n,
            output_len: self.n,
            num_inputs: 2,
            input_ciphertexts: self.num_rows() / 2,
            output_ciphertexts: self.num_rows(),
            levels: 1 + self.rows.info().levels,
            ciphertext_bits: crate::params::four_step_witness_map_bits(
                self.ctx.ring_degree(),
                self.ctx.plaintext_bits(),
                self.n,
            ),
            context_helper: "witness_map_context",
            progress_total: self.total_steps(),
            layout_tag: self.input_tag,
        }
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
    fn cache_bytes(&self) -> u64 {
        self.rows.cache_bytes()
    }
    /// The first step's row swap and rotation by `R/2`, then the row map's keys for the
    /// levels its stages run at.
    fn galois_steps(&self) -> GaloisSteps {
        let first = KeyStage {
            steps: GaloisSteps::new().row_swap().step(self.half_row() as i64),
            terms: 2 * self.num_rows(),
        };
        let stages: Vec<KeyStage> = std::iter::once(first)
            .chain(self.rows.key_stages())
            .collect();
        staged_galois_steps(self.rows.context(), &stages)
    }
    /// `a` or `b` (exactly `n` values, the evaluations on `H` in natural order) in `c / 2`
    /// ciphertexts: ciphertext `q` holds row `2q` (values `2qR ..`) in slot row 0 and row
    /// `2q + 1` rotated by `R/2` in slot row 1.
    fn encode(&self, x: &[F]) -> Result<Vec<Vec<F>>> {
        self.row_pairs(x)?.collect()
    }
    /// The `n` coefficients of `h` from the `c` results.
    fn decrypt(&self, sk: &SecKey, h: &[Ctxt]) -> Result<Vec<F>> {
        let (c, row) = (self.num_rows(), self.row_len());
        if h.len() != c {
            return Err(Error::wrong_length(
                "the witness map's result ciphertexts",
                c,
                h.len(),
            ));
        }
        let mut out = vec![F::zero(); self.n];
        for (i, t) in h.iter().enumerate() {
            let coeffs: Vec<F> = sk.decrypt_poly_expecting(t, Computation::OneProduct)?;
            for (j, v) in coeffs[row..2 * row].iter().enumerate() {
                out[i + c * j] = *v;
            }
        }
        Ok(out)
    }
    /// The encrypted quotient (`c` ciphertexts) from the encrypted `a` and `b` (`c / 2`
    /// ciphertexts each, `a`'s first, under one public key).
    fn compute(&self, gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>> {
        let gk = required_keys(gk, self.info().name)?;
        let (a, b) = x.split_at(x.len() / 2);
        self.run(gk, a, b, report)
    }
}

/// Each input (at the common level), then the partners: the first step's terms.
fn terms<'x>(x: &'x [Ctxt], low: &'x [Option<Ctxt>], partners: &'x [Ctxt]) -> Vec<&'x Ctxt> {
    x.iter()
        .zip(low)
        .map(|(ct, low)| low.as_ref().unwrap_or(ct))
        .chain(partners)
        .collect()
}

impl<F: FftField + PrimeField> fmt::Debug for FourStepWitnessMap<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FourStepWitnessMap")
            .field("n", &self.n)
            .field("rows", &self.num_rows())
            .field("row_map", &self.rows)
            .finish()
    }
}
