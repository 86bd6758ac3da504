//! [`FourStepFft`]: FFTs larger than a ciphertext's slot row, across several ciphertexts.

mod first_step;
mod owner_first_step;

use first_step::lowered_with_partners;
pub use first_step::{FirstStepInputs, FirstStepSum};
pub use owner_first_step::FirstStep;

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{
    BatchEncoder, Computation, Context, Ctxt, GaloisKeys, GaloisSteps, PeriodicEncoder,
};
use rayon::prelude::*;

use crate::bsgs::key_levels::{staged_galois_steps, KeyStage};
use crate::error::{Error, Result};
use crate::fft::matrices::subgroup;
use crate::transform::{required_keys, TransformInfo};
use crate::{Direction, EncryptedTransform, FftOptions, Layout, Progress, TwoStageFft};

/// Plaintexts encoded at once per output ciphertext: bounds the memory of the first step
/// (each is a full-size encoding, 12 MiB at `N = 65536`) while keeping the products batched.
const PRODUCTS_PER_BATCH: usize = 8;

/// The most slot rows a vector may span: two per ciphertext, at most
/// [`Layout::MAX_CIPHERTEXTS`] ciphertexts.
const MAX_ROWS: usize = 2 * Layout::MAX_CIPHERTEXTS;

/// An exact encrypted FFT (or inverse) of a size `n` larger than a slot row holds, as Bailey's
/// four-step FFT over `c = n / R` slot rows of `R` values each (`R = N/2` by default), two
/// rows per ciphertext: with input index `j = r + R rho` (row `rho`, slot `r`) and output
/// index `k = k1 + c k2`,
///
/// ```text
/// y[k1 + c k2] = sum_r w_R^(r k2) * ( sum_rho w^((r + R rho) k1) x[r + R rho] )
/// ```
///
/// 1. across rows, with the twiddles folded in: output row `k1` is the sum of the `c` input
///    rows times plaintext rows (`c^2 / 2` slot-wise products of ciphertexts, the other half
///    of the rows reached by one row swap per input ciphertext), one level;
/// 2. within each ciphertext, a size-`R` FFT of each of its two rows
///    ([`TwoStageFft`], two levels; the rows share the rotations).
///
/// Three levels in all; [`secure_context`](Self::secure_context) sizes the
/// modulus (for BN254, `N = 65536`, `R = 32768`). The `c / 2` ciphertexts' row FFTs are
/// independent, so they run in parallel, and their cost grows linearly in `n`; the first
/// step's products and plaintexts grow as `c^2`, so from `n = 2^20` on doubling `n` costs
/// 2.2-2.3 times as much. At most `c = 128` (`n = 2^22` at `N = 65536`, 64 ciphertexts:
/// [`Layout::MAX_CIPHERTEXTS`]).
///
/// [`encrypt`](Self::encrypt) takes and [`decrypt`](Self::decrypt) gives the natural order;
/// between them, row `k1` (row `k1 mod 2` of ciphertext `k1 / 2`) holds the outputs
/// `k1 + c k2` (in the order of its row FFT's output). Cosets work as for the other routes.
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{EncryptedTransform, Direction, FftOptions, FourStepFft};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// // A toy ring (insecure, for the example's speed): four rows of 8 slots, two ciphertexts.
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::FourStepFft::<Fr>::ciphertext_bits(2048, 32))
///     .allow_insecure(true).build()?;
/// let domain = Radix2EvaluationDomain::<Fr>::new(32).unwrap();
/// let fft = FourStepFft::with_rows(&ctx, &domain, 8, Direction::Forward, &FftOptions::default())?;
/// assert_eq!((fft.num_rows(), fft.num_ciphertexts()), (4, 2));
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
///
/// let x: Vec<Fr> = (0..32u64).map(Fr::from).collect();
/// let y = fft.apply(&gk, &fft.encrypt(&pk, &x)?)?;
/// assert_eq!(fft.decrypt(&sk, &y)?, domain.fft(&x));
/// # Ok(())
/// # }
/// ```
pub struct FourStepFft<F: FftField + PrimeField> {
    ctx: Context,
    direction: Direction,
    n: usize,
    /// `w` (forward) or `w^-1` (inverse), `w` the domain's generator.
    root: F,
    /// Forward: the domain's offset `g` (input factors `g^j`); inverse: 1.
    input_factor: F,
    /// Inverse: `g^-1` (output factors `g^-k1`, the rest in the row FFT); forward: 1.
    output_factor: F,
    /// Inverse: `1/c` (the row FFT has `1/R`); forward: 1.
    scale: F,
    /// Transforms each of a ciphertext's two rows on its own.
    row_fft: TwoStageFft<F>,
    /// Row pairs into plaintext polynomials (the inputs' and the first step's).
    encoder: PeriodicEncoder<F>,
    /// The server's, or the owner's while encoding.
    first_step: FirstStep,
}

impl<F: FftField + PrimeField> FourStepFft<F> {
    /// The transform on `domain` (the subgroup or a coset) with rows of `N/2` values: for
    /// `n > N/2`, from `n = N` up to `128 N/2`.
    pub fn on_domain(
        ctx: &Context,
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        Self::with_rows(ctx, domain, ctx.ring_degree() / 2, direction, options)
    }

    /// The size-`n` transform on the subgroup, rows of `N/2` values.
    pub fn new(
        ctx: &Context,
        n: usize,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        Self::on_domain(ctx, &subgroup(n)?, direction, options)
    }

    /// The transform with rows of `row` values (`4 <= row <= N/2`, a power of two, and
    /// `2 <= n / row <= 128`): smaller rows for tests and small rings.
    pub fn with_rows(
        ctx: &Context,
        domain: &Radix2EvaluationDomain<F>,
        row: usize,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        let n = domain.size();
        if !row.is_power_of_two() || row < 4 || row > ctx.ring_degree() / 2 {
            return Err(Error::InvalidArgument(format!(
                "a four-step FFT's rows hold a power of two of 4 to N/2 = {} values, got {row}",
                ctx.ring_degree() / 2
            )));
        }
        let c = n / row;
        if n % row != 0 || !(2..=MAX_ROWS).contains(&c) {
            return Err(Error::InvalidArgument(format!(
                "a four-step FFT spans 2 to {MAX_ROWS} rows of {row} values, but n = {n} makes {}",
                n as f64 / row as f64
            )));
        }
        let rows = subgroup::<F>(row)?;
        let (root, input_factor, output_factor, scale, row_domain) = match direction {
            Direction::Forward => (
                domain.group_gen(),
                domain.coset_offset(),
                F::one(),
                F::one(),
                rows,
            ),
            Direction::Inverse => {
                let c_inv = F::from(c as u64).inverse().ok_or_else(|| {
                    Error::InvalidArgument(
                        "the field's characteristic divides the row count".into(),
                    )
                })?;
                let offset_c = domain.coset_offset().pow([c as u64]);
                let row_coset = rows.get_coset(offset_c).ok_or_else(|| {
                    Error::InvalidArgument("the coset offset must not be 0".into())
                })?;
                (
                    domain.group_gen_inv(),
                    F::one(),
                    domain.coset_offset_inv(),
                    c_inv,
                    row_coset,
                )
            }
        };
        let row_fft = TwoStageFft::for_row_pairs(ctx, &row_domain, direction, options)?;
        let encoder = PeriodicEncoder::new(ctx, row_fft.input_layout().row_period(), None)?;
        Ok(FourStepFft {
            ctx: ctx.clone(),
            direction,
            n,
            root,
            input_factor,
            output_factor,
            scale,
            row_fft,
            encoder,
            first_step: FirstStep::Server,
        })
    }

    /// This transform with its first step run by `by` ([`FirstStep::Owner`]: in the clear
    /// inside [`encode`](EncryptedTransform::encode), the server running the row FFTs only).
    pub fn with_first_step(mut self, by: FirstStep) -> Self {
        self.first_step = by;
        self
    }

    /// Who runs the first step.
    pub fn first_step(&self) -> FirstStep {
        self.first_step
    }

    /// Forward or inverse.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The row length `R`.
    pub fn row_len(&self) -> usize {
        self.row_fft.input_layout().len()
    }

    /// The slot rows a vector spans, `c = n / R`.
    pub fn num_rows(&self) -> usize {
        self.n / self.row_len()
    }

    /// The ciphertexts a vector spans, `c / 2`.
    pub fn num_ciphertexts(&self) -> usize {
        self.num_rows() / 2
    }

    /// The size-`R` FFT each ciphertext's rows go through in the second step.
    pub fn row_fft(&self) -> &TwoStageFft<F> {
        &self.row_fft
    }

    /// The plaintext polynomial of each ciphertext of `x`.
    fn row_pairs<'a>(&'a self, x: &'a [F]) -> Result<impl Iterator<Item = Result<Vec<F>>> + 'a> {
        if x.len() != self.n {
            return Err(Error::wrong_length(
                "the four-step FFT's input",
                self.n,
                x.len(),
            ));
        }
        let row = self.row_len();
        Ok(x.chunks(2 * row)
            .map(move |pair| Ok(self.encoder.encode_poly(&pair[..row], &pair[row..])?)))
    }

    /// Per ciphertext, its first-step sum (on the server) and its row FFTs' giant steps.
    fn total_steps(&self) -> usize {
        let first = usize::from(self.first_step == FirstStep::Server);
        self.num_ciphertexts() * (first + self.row_fft.total_steps())
    }

    fn check_count<T>(&self, cts: &[T]) -> Result<()> {
        let c = self.num_ciphertexts();
        if cts.len() != c {
            return Err(Error::wrong_length(
                format!("the ciphertexts of a four-step FFT of size {}", self.n),
                c,
                cts.len(),
            ));
        }
        Ok(())
    }

    /// Both steps (row `k1` of the result holding the outputs `k1 + c k2`, which
    /// [`decrypt`](EncryptedTransform::decrypt) puts in order).
    fn run_steps(&self, gk: &GaloisKeys, x: &[Ctxt], progress: Progress<'_>) -> Result<Vec<Ctxt>> {
        self.check_count(x)?;
        if self.first_step == FirstStep::Owner {
            return self.run_row_ffts(gk, x, progress);
        }
        self.check_step_keys(gk)?;
        let total = self.total_steps();
        let done = AtomicUsize::new(0);
        let tick = || progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        let level = x.iter().map(Ctxt::level).min().unwrap_or(0);
        let inputs = self.first_step_inputs(gk, x, level)?;
        let terms = inputs.terms();
        // One task per output ciphertext: its sum across the inputs, then its row FFTs.
        let y: Vec<Ctxt> = (0..self.num_ciphertexts())
            .into_par_iter()
            .map(|out| {
                let mut sum = self.first_step_sum(out)?;
                for (b, batch) in terms.chunks(Self::FIRST_STEP_BATCH).enumerate() {
                    sum.add_terms(b * Self::FIRST_STEP_BATCH, batch)?;
                }
                let sum = sum.finish()?;
                tick();
                self.second_step_with_progress(gk, sum, &|_, _| tick())
            })
            .collect::<Result<_>>()?;
        Ok(y)
    }

    /// The second step alone, on inputs the owner's encoding ran the first step on.
    fn run_row_ffts(
        &self,
        gk: &GaloisKeys,
        x: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        self.row_fft.check_keys(gk)?;
        let total = self.total_steps();
        let done = AtomicUsize::new(0);
        let tick = || progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        let row_input_tag = self.row_fft.info().layout_tag;
        x.par_iter()
            .map(|ct| {
                // The tag told this route's inputs from natural-order ones; the rows are what
                // the row FFT reads.
                let mut rows = ct.try_clone()?;
                rows.set_layout_tag(row_input_tag);
                self.second_step_with_progress(gk, rows, &|_, _| tick())
            })
            .collect()
    }

    /// The first step's pieces belong to the server's first step: with the owner's, the
    /// inputs have been through it already.
    fn check_server_first_step(&self) -> Result<()> {
        match self.first_step {
            FirstStep::Server => Ok(()),
            FirstStep::Owner => Err(Error::InvalidArgument(
                "the owner ran this four-step FFT's first step: its inputs go to the row \
                 FFTs (second_step) directly"
                    .into(),
            )),
        }
    }

    /// The tag of the owner's first-step outputs, the inputs of [`FirstStep::Owner`].
    fn owner_input_tag(&self) -> u64 {
        self.row_fft
            .input_layout()
            .tag(crate::bsgs::layout::Order::owner_rows(self.num_rows()))
    }

    /// Whether `gk` holds every key of both steps.
    fn check_step_keys(&self, gk: &GaloisKeys) -> Result<()> {
        self.row_fft.check_keys(gk)?;
        if !gk.has_row_swap() {
            return Err(Error::MissingKey(
                "no Galois key for the row swap, which the four-step FFT's first step needs \
                 (generate the keys of FourStepFft::galois_steps)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Terms per inner product in step 1's sums ([`FirstStepSum::add_terms`] takes at most
    /// this many at once); a run split across processes batches its terms the same way, so
    /// its sums, and so its results, are byte for byte those of one process.
    pub const FIRST_STEP_BATCH: usize = PRODUCTS_PER_BATCH;

    /// Step 1's terms, in the order its sums take them: the `c / 2` input ciphertexts, then
    /// the same with their slot rows swapped (`c` terms).
    pub fn first_step_terms(&self) -> usize {
        2 * self.num_ciphertexts()
    }

    /// Step 1's terms from some input ciphertexts: `x` switched down to `level` (the lowest
    /// level among *all* the inputs, which one inner product needs; copies only of those
    /// above it), and each with its slot rows swapped. Input `i`'s two terms are `i` and
    /// `c / 2 + i`. [`apply`](EncryptedTransform::apply) does this for every input; a run
    /// split across processes does it per process, on the inputs it holds.
    pub fn first_step_inputs<'x>(
        &self,
        gk: &GaloisKeys,
        x: &'x [Ctxt],
        level: u32,
    ) -> Result<FirstStepInputs<'x>> {
        self.check_server_first_step()?;
        self.check_step_keys(gk)?;
        let (lowered, swapped) =
            lowered_with_partners(gk, x, level, &GaloisSteps::new().row_swap(), |s| {
                Ok(s.swap_rows(gk)?)
            })?;
        Ok(FirstStepInputs {
            x,
            lowered,
            swapped,
        })
    }

    /// Step 1's sum for output ciphertext `out` (rows `2 out`, `2 out + 1`), to which the
    /// terms are added batch by batch.
    pub fn first_step_sum(&self, out: usize) -> Result<FirstStepSum<'_, F>> {
        self.check_server_first_step()?;
        if out >= self.num_ciphertexts() {
            return Err(Error::InvalidArgument(format!(
                "output ciphertext {out} of a four-step FFT with {}",
                self.num_ciphertexts()
            )));
        }
        let row = self.row_len();
        let ks = [2 * out, 2 * out + 1];
        let ratios = ks.map(|k| self.input_factor * self.root.pow([k as u64]));
        let powers = |v: F| -> Vec<F> {
            let mut t = F::one();
            (0..row)
                .map(|_| {
                    let p = t;
                    t *= v;
                    p
                })
                .collect()
        };
        let zero = vec![F::zero(); row];
        Ok(FirstStepSum {
            fft: self,
            ks,
            ratios,
            q0: self.encoder.encode_poly(&powers(ratios[0]), &zero)?,
            q1: self.encoder.encode_poly(&zero, &powers(ratios[1]))?,
            next: 0,
            sum: None,
        })
    }

    /// Step 2 on one output ciphertext's step-1 sum: the FFTs of its two rows.
    pub fn second_step(&self, gk: &GaloisKeys, sum: Ctxt) -> Result<Ctxt> {
        self.second_step_with_progress(gk, sum, &|_, _| {})
    }

    fn second_step_with_progress(
        &self,
        gk: &GaloisKeys,
        sum: Ctxt,
        progress: Progress<'_>,
    ) -> Result<Ctxt> {
        self.row_fft
            .run_stages(gk, &[sum], progress)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::Internal("a row FFT returned no ciphertext".into()))
    }
}

/// Sizing: the modulus and the secure context of a four-step FFT.
impl<F: FftField + PrimeField> FourStepFft<F> {
    /// Ciphertext-modulus bits for a four-step FFT of size `n` on the ring `ring_degree`: its
    /// first step as a one-level transform of up to 128 terms (the most slot rows it spans),
    /// then its row FFT's two stages, each from the natural level the previous step's output
    /// is switched down to (as the second stage of
    /// [`TwoStageFft::ciphertext_bits`], with rows of `N/2`).
    pub fn ciphertext_bits(ring_degree: usize, n: usize) -> u32 {
        crate::params::four_step_bits(ring_degree, F::MODULUS_BIT_SIZE, n)
    }

    /// A >= 128-bit secure context for a four-step FFT of size `n`: the smallest ring from
    /// twice [`FFT_RING_DEGREE`](crate::FFT_RING_DEGREE) up on which `n` spans at most 128
    /// rows of `N/2` (64 ciphertexts), with the modulus of
    /// [`ciphertext_bits`](Self::ciphertext_bits). For BN254 that is `N = 65536` (rows of
    /// 32768) from `n = 65536` to `n = 2^22`. Smaller `n` fit one row: an error names
    /// [`TwoStageFft::secure_context`] instead.
    ///
    /// ```
    /// use he_fft::FourStepFft;
    /// assert_eq!(FourStepFft::<ark_bn254::Fr>::secure_context(1 << 20)?.ring_degree(), 65536);
    /// # Ok::<(), he_fft::Error>(())
    /// ```
    pub fn secure_context(n: usize) -> Result<Context> {
        crate::params::four_step_context::<F>(n)
    }
}

impl<F: FftField + PrimeField> EncryptedTransform<F> for FourStepFft<F> {
    fn info(&self) -> TransformInfo {
        let (ring, p_bits) = (self.ctx.ring_degree(), self.ctx.plaintext_bits());
        match self.first_step {
            FirstStep::Server => TransformInfo {
                name: "the four-step FFT",
                len: self.n,
                output_len: self.n,
                num_inputs: 1,
                input_ciphertexts: self.num_ciphertexts(),
                output_ciphertexts: self.num_ciphertexts(),
                // The step across rows, then the row FFT's two.
                levels: 1 + self.row_fft.info().levels,
                ciphertext_bits: crate::params::four_step_bits(ring, p_bits, self.n),
                context_helper: "FourStepFft::secure_context",
                progress_total: self.total_steps(),
                layout_tag: 0,
            },
            FirstStep::Owner => TransformInfo {
                name: "the four-step FFT with the owner's first step",
                len: self.n,
                output_len: self.n,
                num_inputs: 1,
                input_ciphertexts: self.num_ciphertexts(),
                output_ciphertexts: self.num_ciphertexts(),
                levels: self.row_fft.info().levels,
                ciphertext_bits: crate::params::row_ffts_bits(ring, p_bits, self.n),
                context_helper: "Route::RowFfts.context",
                progress_total: self.total_steps(),
                layout_tag: self.owner_input_tag(),
            },
        }
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
    fn cache_bytes(&self) -> u64 {
        self.row_fft.cache_bytes()
    }
    /// The row swap of the first step (on the server), then the row FFTs' keys for the
    /// levels they run at.
    fn galois_steps(&self) -> GaloisSteps {
        let first = KeyStage {
            steps: GaloisSteps::new().row_swap(),
            terms: 4 * self.num_ciphertexts(),
        };
        let stages: Vec<KeyStage> = std::iter::once(first)
            .filter(|_| self.first_step == FirstStep::Server)
            .chain(self.row_fft.key_stages())
            .collect();
        staged_galois_steps(self.row_fft.context(), &stages)
    }
    /// Row `rho` holds `x[R rho .. R (rho + 1)]`, rows `2i` and `2i + 1` in ciphertext `i`;
    /// with [`FirstStep::Owner`], the rows of the first step's result instead.
    fn encode(&self, x: &[F]) -> Result<Vec<Vec<F>>> {
        match self.first_step {
            FirstStep::Server => self.row_pairs(x)?.collect(),
            FirstStep::Owner => self.row_pairs(&self.owner_first_step(x)?)?.collect(),
        }
    }
    fn result_computation(&self) -> Computation {
        Computation::Linear
    }
    fn decode(&self, polys: &[Vec<F>]) -> Result<Vec<F>> {
        self.check_count(polys)?;
        let (c, row, half) = (self.num_rows(), self.row_len(), self.ctx.ring_degree() / 2);
        let slots = BatchEncoder::<F>::for_context(&self.ctx)?;
        let mut out = vec![F::zero(); self.n];
        for (i, poly) in polys.iter().enumerate() {
            let decoded = slots.decode(poly);
            for (k1, start) in [(2 * i, 0), (2 * i + 1, half)] {
                let values = self
                    .row_fft
                    .natural_order(decoded[start..start + row].to_vec());
                for (k2, v) in values.into_iter().enumerate() {
                    out[k1 + c * k2] = v;
                }
            }
        }
        Ok(out)
    }
    fn compute(&self, gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>> {
        self.run_steps(required_keys(gk, self.info().name)?, x, report)
    }
}

impl<F: FftField + PrimeField> fmt::Debug for FourStepFft<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FourStepFft")
            .field("n", &self.n)
            .field("direction", &self.direction)
            .field("first_step", &self.first_step)
            .field("ciphertexts", &self.num_ciphertexts())
            .field("row_fft", &self.row_fft)
            .finish()
    }
}
