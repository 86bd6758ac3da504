//! [`TwoStageFft`]: the FFT as two sparse matrix products, two levels deep.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps};

use crate::bsgs::key_levels::{staged_galois_steps, KeyStage};
use crate::bsgs::layout::Order;
use crate::bsgs::plan::{DiagonalSet, Rows};
use crate::error::{Error, Result};
use crate::fft::matrices::{powers_of, subgroup};
use crate::transform::{required_keys, TransformInfo};
use crate::{
    Direction, EncodedTransform, EncryptedTransform, FftOptions, Matrix, Progress, TransformPlan,
};

/// An exact encrypted FFT (or inverse) of size `n` as one radix-`sqrt(n)` Cooley-Tukey step:
/// two plaintext-matrix products whose matrices each have few nonzero diagonals, at the cost
/// of a second multiplicative level.
///
/// With `n = n1 n2`, input index `j = j1 + n1 j2` and output index `k = k2 + n2 k1`,
/// `w^(jk) = w^(j1 k2) (w^n2)^(j1 k1) (w^n1)^(j2 k2)`, so
/// - stage 1 does the `n1` interleaved size-`n2` transforms and the twiddles `w^(j1 k2)`: its
///   matrix is nonzero only where row and column agree modulo `n1`, which is `n2` diagonals
///   (at a stride of `n1`) instead of `n`;
/// - stage 2 does the `n2` size-`n1` transforms on contiguous blocks: `2 n1` diagonals around
///   the main one, each repeating with period `n1`, so they encode as short sparse
///   polynomials (like a circulant's constants).
///
/// Against [`OneProductFft`](crate::OneProductFft)'s one stage of `n` diagonals this is `n2/2 + 2 n1` products
/// instead of `n/2`, about `2 sqrt(n)` rotations more, and only the `n2/2` stage-1 diagonals
/// cost a full-size encoding. The price is the level: the context needs about twice the
/// modulus ([`secure_context`](Self::secure_context): `N = 65536` for BN254),
/// which makes every rotation and product dearer, so it pays at large `n` (it runs only where
/// the vector fits one slot row, `n <= N/2`).
///
/// One side holds the vector in the *transposed* order of the two index halves (slot
/// `k1 + n1 k2` holds entry `k2 + n2 k1`): by default the output
/// ([`Transposed::Output`]), which [`decrypt`](Self::decrypt) undoes. The mirrored form
/// ([`Transposed::Input`], [`with_order`](Self::with_order)) runs the stages the other way
/// round and reads that order, so a transform of one kind chains into one of the other on the
/// server: `ifft(fft(a) * fft(b))` is a cyclic convolution without leaving the ciphertexts.
/// [`encrypt`](Self::encrypt) and `decrypt` take and give natural order either way; slot-wise
/// operations are unaffected by the order.
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{EncryptedTransform, Direction, FftOptions, TwoStageFft};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// // A toy ring (insecure, for the example's speed); TwoStageFft::secure_context sizes real ones.
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::TwoStageFft::<Fr>::ciphertext_bits(2048, 64))
///     .allow_insecure(true).build()?;
/// let fft = TwoStageFft::<Fr>::new(&ctx, 64, Direction::Forward, &FftOptions::default())?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
///
/// let x: Vec<Fr> = (0..64u64).map(Fr::from).collect();
/// let y = fft.apply(&gk, &fft.encrypt(&pk, &x)?)?;
/// let expected = Radix2EvaluationDomain::<Fr>::new(64).unwrap().fft(&x);
/// assert_eq!(fft.decrypt(&sk, &y)?, expected);
/// # Ok(())
/// # }
/// ```
pub struct TwoStageFft<F: FftField + PrimeField> {
    ctx: Context,
    direction: Direction,
    transposed: Transposed,
    n1: usize,
    stages: [(TransformPlan, EncodedTransform<F>); 2],
}

/// Which side of a [`TwoStageFft`] holds the vector in transposed order on the ciphertexts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Transposed {
    /// Natural input, transposed output (the strided stage first).
    #[default]
    Output,
    /// Transposed input (as a [`Transposed::Output`] transform leaves it), natural output
    /// (the block stage first).
    Input,
}

impl<F: FftField + PrimeField> TwoStageFft<F> {
    /// The two stages, for the levels their keys serve.
    pub(crate) fn key_stages(&self) -> Vec<KeyStage> {
        self.stages.iter().map(|(p, _)| KeyStage::of(p)).collect()
    }

    /// The size-`n` transform (`n` a power of two, `4 <= n <= N/2`) on the subgroup.
    pub fn new(
        ctx: &Context,
        n: usize,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        Self::on_domain(ctx, &subgroup(n)?, direction, options)
    }

    /// The transform on `domain`, which may be a coset: decrypting gives `domain.fft(x)`
    /// (forward) or `domain.ifft(x)` (inverse) exactly. The offset's powers fold into the
    /// stage-1 matrix and a per-block factor into stage 2, so a coset costs nothing more.
    pub fn on_domain(
        ctx: &Context,
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        Self::with_order(ctx, domain, direction, Transposed::Output, options)
    }

    /// [`on_domain`](Self::on_domain) with the transposed order on the side `transposed`
    /// says. To chain after a transform of the other kind, set
    /// `options.plan.half_rotated_input` to its output layout's flavour, as for
    /// [`OneProductFft`](crate::OneProductFft).
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
    /// use he_fft::{EncryptedTransform, Direction, FftOptions, Transposed, TwoStageFft};
    /// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), he_fft::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(2 * he_fft::TwoStageFft::<Fr>::ciphertext_bits(2048, 16))
    ///     .allow_insecure(true).build()?; // toy size, insecure
    /// let h = Radix2EvaluationDomain::<Fr>::new(16).unwrap();
    /// let fft = TwoStageFft::on_domain(&ctx, &h, Direction::Forward, &FftOptions::default())?;
    /// let mut options = FftOptions::default();
    /// options.plan.half_rotated_input = fft.output_layout().is_half_rotated();
    /// let ifft = TwoStageFft::with_order(&ctx, &h, Direction::Inverse, Transposed::Input, &options)?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let gk = GaloisKeys::generate(&sk, &fft.galois_steps().union(&ifft.galois_steps()))?;
    ///
    /// let x: Vec<Fr> = (1..=16u64).map(Fr::from).collect();
    /// let back = ifft.apply(&gk, &fft.apply(&gk, &fft.encrypt(&pk, &x)?)?)?;
    /// assert_eq!(ifft.decrypt(&sk, &back)?, x);
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_order(
        ctx: &Context,
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        transposed: Transposed,
        options: &FftOptions,
    ) -> Result<Self> {
        Self::build(ctx, domain, direction, transposed, options, Rows::Shared)
    }

    /// The transform of each slot row on its own: a ciphertext whose two rows hold two
    /// vectors of `n = N/2` values (identical-rows flavour) comes out with both transformed.
    /// No row splits the work, so every product serves data.
    pub(crate) fn for_row_pairs(
        ctx: &Context,
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        let mut options = options.clone();
        options.plan.half_rotated_input = false;
        Self::build(
            ctx,
            domain,
            direction,
            Transposed::Output,
            &options,
            Rows::Independent,
        )
    }

    fn build(
        ctx: &Context,
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        transposed: Transposed,
        options: &FftOptions,
        rows: Rows,
    ) -> Result<Self> {
        let n = domain.size();
        if n < 4 || n > ctx.ring_degree() / 2 {
            return Err(Error::InvalidArgument(format!(
                "a two-stage FFT needs 4 <= n <= N/2 = {}, got n = {n} (use Fft otherwise)",
                ctx.ring_degree() / 2
            )));
        }
        let n1 = 1 << n.ilog2().div_ceil(2);
        let n2 = n / n1;
        let strided = DiagonalSet {
            first: 0,
            stride: n1,
            count: n2,
        };
        let block = DiagonalSet {
            first: n - n1,
            stride: 1,
            count: 2 * n1,
        };
        let sets = match transposed {
            Transposed::Output => [strided, block],
            Transposed::Input => [block, strided],
        };
        let (outside, between) = (Order::transposed(n1), Order::between_stages(n1));
        let (input_order, output_order) = match transposed {
            Transposed::Output => (Order::NATURAL, outside),
            Transposed::Input => (outside, Order::NATURAL),
        };
        let first = TransformPlan::with_diagonals(ctx, n, sets[0], &options.plan, rows)?
            .with_orders(input_order, between);
        let mut second_options = options.plan.clone();
        second_options.half_rotated_input = first.output_layout().is_half_rotated();
        let second = TransformPlan::with_diagonals(ctx, n, sets[1], &second_options, rows)?
            .with_orders(between, output_order);
        let [m1, m2] = stage_matrices(domain, direction, n1, transposed)?;
        let e1 = EncodedTransform::new(ctx, &first, m1, options.cache)?;
        let e2 = EncodedTransform::new(ctx, &second, m2, options.cache)?;
        Ok(TwoStageFft {
            ctx: ctx.clone(),
            direction,
            transposed,
            n1,
            stages: [(first, e1), (second, e2)],
        })
    }

    /// Forward or inverse.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// Which side holds the transposed order.
    pub fn transposed(&self) -> Transposed {
        self.transposed
    }

    /// The layout [`encrypt`](Self::encrypt) writes (the first stage's input).
    pub fn input_layout(&self) -> &crate::Layout {
        self.stages[0].0.input_layout()
    }

    /// The layout of the output ciphertexts (its row flavour is what a transform chained
    /// after this one reads, through `PlanOptions::half_rotated_input`).
    pub fn output_layout(&self) -> &crate::Layout {
        self.stages[1].0.output_layout()
    }

    /// The split `(n1, n2)`: stage 1 does `n1` transforms of size `n2`, stage 2 `n2` of
    /// size `n1`.
    pub fn split(&self) -> (usize, usize) {
        (self.n1, self.input_layout().len() / self.n1)
    }

    /// The two stages' plans and encoded matrices, in execution order.
    pub fn stages(&self) -> [(&TransformPlan, &EncodedTransform<F>); 2] {
        [0, 1].map(|i| (&self.stages[i].0, &self.stages[i].1))
    }

    /// Rotations one execution performs (both stages).
    pub fn num_rotations(&self) -> usize {
        self.stages.iter().map(|(p, _)| p.num_rotations()).sum()
    }

    /// Diagonal products one execution performs (both stages).
    pub fn num_diagonals(&self) -> usize {
        self.stages.iter().map(|(p, _)| p.num_diagonals()).sum()
    }

    /// `x` as the first stage reads it: transposed for [`Transposed::Input`].
    fn input_order(&self, x: &[F]) -> Result<Vec<F>> {
        let n = self.input_layout().len();
        if x.len() != n {
            return Err(Error::wrong_length("the two-stage FFT's input", n, x.len()));
        }
        if self.transposed == Transposed::Output {
            return Ok(x.to_vec());
        }
        let (n1, n2) = self.split();
        // Slot k1 + n1 k2 holds x[k2 + n2 k1].
        Ok((0..n).map(|t| x[t / n1 + n2 * (t % n1)]).collect())
    }

    /// The `n` output slots of a row in natural order.
    pub(crate) fn natural_order(&self, slots: Vec<F>) -> Vec<F> {
        if self.transposed == Transposed::Input {
            return slots;
        }
        let (n1, n2) = self.split();
        // Slot k1 + n1 k2 holds y[k2 + n2 k1].
        let mut y = vec![F::zero(); slots.len()];
        for (t, v) in slots.into_iter().enumerate() {
            y[t / n1 + n2 * (t % n1)] = v;
        }
        y
    }

    /// Giant steps of both stages: what the progress callback counts to.
    pub(crate) fn total_steps(&self) -> usize {
        self.stages.iter().map(|(p, _)| p.progress_total()).sum()
    }

    /// Fails with [`Error::MissingKey`] unless `gk` holds every key of both stages.
    pub(crate) fn check_keys(&self, gk: &GaloisKeys) -> Result<()> {
        self.stages.iter().try_for_each(|(p, _)| p.check_keys(gk))
    }

    /// Both stages on `x`, without the check of the budget left that
    /// [`apply`](EncryptedTransform::apply) ends with (a caller inside a longer circuit checks its own).
    pub(crate) fn run_stages(
        &self,
        gk: &GaloisKeys,
        x: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let [(p1, e1), (p2, e2)] = &self.stages;
        let total = self.total_steps();
        let done = p1.progress_total();
        let z = p1.execute_with_progress(e1, gk, x, &|d, _| progress(d, total))?;
        p2.execute_with_progress(e2, gk, &z, &|d, _| progress(done + d, total))
    }
}

/// Sizing: the modulus and the secure context of a two-stage FFT.
impl<F: FftField + PrimeField> TwoStageFft<F> {
    /// Ciphertext-modulus bits for a two-stage FFT of size `n` on the ring `ring_degree`: the
    /// first stage as a one-level transform, then the second stage's growth from the natural
    /// level the first one's output is switched down to: a plaintext of canonical norm about
    /// `p sqrt(N)` summed over fewer than `n` terms, and 10 bits for key switching and
    /// rounding (the fresh-encryption term does not recur).
    pub fn ciphertext_bits(ring_degree: usize, n: usize) -> u32 {
        crate::params::two_stage_bits(ring_degree, F::MODULUS_BIT_SIZE, n)
    }

    /// A >= 128-bit secure context for a two-stage FFT of size `n`: the smallest ring of at
    /// least `2n` (and twice [`FFT_RING_DEGREE`](crate::FFT_RING_DEGREE)) whose security bound
    /// holds the modulus of [`ciphertext_bits`](Self::ciphertext_bits). For BN254 that is
    /// `N = 65536` up to `n = 32768`; the two stages need the vector in one slot row, so
    /// `n <= N/2`.
    ///
    /// ```
    /// use he_fft::TwoStageFft;
    /// assert_eq!(TwoStageFft::<ark_bn254::Fr>::secure_context(32768)?.ring_degree(), 65536);
    /// # Ok::<(), he_fft::Error>(())
    /// ```
    pub fn secure_context(n: usize) -> Result<Context> {
        crate::params::two_stage_context::<F>(n)
    }
}

impl<F: FftField + PrimeField> EncryptedTransform<F> for TwoStageFft<F> {
    fn info(&self) -> TransformInfo {
        let n = self.stages[0].0.input_layout().len();
        TransformInfo {
            name: "the two-stage FFT",
            len: n,
            output_len: n,
            num_inputs: 1,
            input_ciphertexts: self.input_layout().num_ciphertexts(),
            output_ciphertexts: self.output_layout().num_ciphertexts(),
            levels: self.stages.iter().map(|(p, _)| p.levels()).sum(),
            ciphertext_bits: crate::params::two_stage_bits(
                self.ctx.ring_degree(),
                self.ctx.plaintext_bits(),
                n,
            ),
            context_helper: "TwoStageFft::secure_context",
            progress_total: self.total_steps(),
            layout_tag: self.stages[0].0.input_tag(),
        }
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
    fn cache_bytes(&self) -> u64 {
        self.stages.iter().map(|(_, e)| e.cache_bytes()).sum()
    }
    /// Each stage's keys for the levels it runs at (the second stage's one level lower).
    fn galois_steps(&self) -> GaloisSteps {
        staged_galois_steps(&self.ctx, &self.key_stages())
    }
    /// `x` (natural order) laid out for the first stage, in transposed order for a
    /// [`Transposed::Input`] transform.
    fn encode(&self, x: &[F]) -> Result<Vec<Vec<F>>> {
        let (plan, encoded) = &self.stages[0];
        plan.input_layout()
            .encode_with(encoded.encoder(), &self.input_order(x)?)
    }
    /// The `n` values of `domain.fft(x)` (or `ifft`) in natural order.
    fn decode(&self, polys: &[Vec<F>]) -> Result<Vec<F>> {
        let slots: Vec<F> = self.output_layout().decode(&self.ctx, polys)?;
        Ok(self.natural_order(slots))
    }
    fn compute(&self, gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>> {
        let gk = required_keys(gk, self.info().name)?;
        self.check_keys(gk)?;
        self.run_stages(gk, x, report)
    }
}

/// The two stage matrices of `domain`'s transform for the split `n = n1 n2`, in execution
/// order.
///
/// The transform is `y[k] = a r^k sum_j c^j w^(jk) x[j]`: forward `a = r = 1`, `c` the coset
/// offset; inverse `w` the inverse root, `a = 1/n`, `r` the inverse offset, `c = 1`. Slot `t`
/// is the row, slot `s` the column.
///
/// [`Transposed::Output`], `j = j1 + n1 j2`, `k = k2 + n2 k1`, with `r^k = r^k2 (r^n2)^k1`:
/// - the strided stage, `t = s mod n1`: `r^k2 w^(k2 s) c^s` (`k2 = t / n1`);
/// - the block stage, `t` and `s` in one block of `n1`: `a (r^n2)^k1 (w^n2)^(j1 k1)`
///   (`k1 = t mod n1`, `j1 = s mod n1`), the same in every block (shift period `n1`).
///
/// [`Transposed::Input`] is the same split with the roles of `j` and `k` exchanged
/// (`c^j = c^j2 (c^n2)^j1`):
/// - the block stage: `(c^n2)^k1 (w^n2)^(j1 k1)` (`j1 = t mod n1`, `k1 = s mod n1`);
/// - the strided stage: `a r^t w^(k2 t) c^k2` (`k2 = s / n1`).
fn stage_matrices<F: FftField + PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    direction: Direction,
    n1: usize,
    transposed: Transposed,
) -> Result<[Matrix<F>; 2]> {
    let n = domain.size();
    let n2 = n / n1;
    let (w, a, r, c) = match direction {
        Direction::Forward => (
            domain.group_gen(),
            F::one(),
            F::one(),
            domain.coset_offset(),
        ),
        Direction::Inverse => (
            domain.group_gen_inv(),
            domain.size_inv(),
            domain.coset_offset_inv(),
            F::one(),
        ),
    };
    let w_pow = powers_of(w, F::one(), n);
    let w_block = w_pow.clone();
    let block_entry =
        move |scale: &[F], k1: usize, j1: usize| scale[k1] * w_block[(n2 * j1 * k1) % n];
    match transposed {
        Transposed::Output => {
            let r_pow = powers_of(r, F::one(), n);
            let c_pow = powers_of(c, F::one(), n);
            // (r^n2)^k1 = r^(n2 k1), with n2 k1 < n.
            let scale: Vec<F> = (0..n1).map(|k1| a * r_pow[n2 * k1]).collect();
            let strided = Matrix::from_fn(n, move |t, s| {
                if t % n1 != s % n1 {
                    return F::zero();
                }
                let k2 = t / n1;
                r_pow[k2] * w_pow[(k2 * s) % n] * c_pow[s]
            })?;
            let block = Matrix::from_fn(n, move |t, s| {
                if t / n1 != s / n1 {
                    return F::zero();
                }
                block_entry(&scale, t % n1, s % n1)
            })?
            .with_shift_period(n1);
            Ok([strided, block])
        }
        Transposed::Input => {
            let r_pow = powers_of(r, a, n);
            let c_pow = powers_of(c, F::one(), n);
            let scale: Vec<F> = (0..n1).map(|k1| c_pow[n2 * k1]).collect();
            let block = Matrix::from_fn(n, move |t, s| {
                if t / n1 != s / n1 {
                    return F::zero();
                }
                block_entry(&scale, s % n1, t % n1)
            })?
            .with_shift_period(n1);
            let strided = Matrix::from_fn(n, move |t, s| {
                if t % n1 != s % n1 {
                    return F::zero();
                }
                let k2 = s / n1;
                r_pow[t] * w_pow[(k2 * t) % n] * c_pow[k2]
            })?;
            Ok([block, strided])
        }
    }
}

impl<F: FftField + PrimeField> fmt::Debug for TwoStageFft<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TwoStageFft")
            .field("n", &self.input_layout().len())
            .field("split", &self.split())
            .field("direction", &self.direction)
            .field("transposed", &self.transposed)
            .finish()
    }
}
