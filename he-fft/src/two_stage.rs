//! [`TwoStageFft`]: the FFT as two sparse matrix products, two levels deep.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Context, Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, Result, SecKey};

use crate::fft::{powers_of, subgroup};
use crate::plan::DiagonalSet;
use crate::{Direction, EncodedTransform, FftOptions, Matrix, Progress, TransformPlan};

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
/// Against [`Fft`](crate::Fft)'s one stage of `n` diagonals this is `n2/2 + 2 n1` products
/// instead of `n/2`, about `2 sqrt(n)` rotations more, and only the `n2/2` stage-1 diagonals
/// cost a full-size encoding. The price is the level: the context needs about twice the
/// modulus ([`two_stage_fft_context`](crate::two_stage_fft_context): `N = 65536` for BN254),
/// which makes every rotation and product dearer, so it pays at large `n` (it runs only where
/// the vector fits one slot row, `n <= N/2`).
///
/// The output comes in the transposed order of the two index halves: slot `k1 + n1 k2` holds
/// `y[k2 + n2 k1]`. [`decrypt`](Self::decrypt) undoes it, so a decrypted result equals
/// ark-poly's exactly; a server that chains another transform onto the output must account
/// for the order itself. Slot-wise operations (sums, products with other outputs of the
/// same shape) are unaffected.
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{Direction, FftOptions, TwoStageFft};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// // A toy ring (insecure, for the example's speed); two_stage_fft_context sizes real ones.
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::two_stage_ciphertext_bits(2048, 254, 64))
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
    n1: usize,
    stages: [(TransformPlan, EncodedTransform<F>); 2],
}

impl<F: FftField + PrimeField> TwoStageFft<F> {
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
        let n = domain.size();
        if n < 4 || n > ctx.ring_degree() / 2 {
            return Err(Error::InvalidArgument(format!(
                "a two-stage FFT needs 4 <= n <= N/2 = {}, got n = {n} (use Fft otherwise)",
                ctx.ring_degree() / 2
            )));
        }
        let n1 = 1 << n.ilog2().div_ceil(2);
        let n2 = n / n1;
        let first = TransformPlan::with_diagonals(
            ctx,
            n,
            DiagonalSet {
                first: 0,
                stride: n1,
                count: n2,
            },
            &options.plan,
        )?;
        let mut second_options = options.plan.clone();
        second_options.half_rotated_input = first.output_layout().is_half_rotated();
        let second = TransformPlan::with_diagonals(
            ctx,
            n,
            DiagonalSet {
                first: n - n1,
                stride: 1,
                count: 2 * n1,
            },
            &second_options,
        )?;
        let [m1, m2] = stage_matrices(domain, direction, n1)?;
        let e1 = EncodedTransform::new(ctx, &first, m1, options.cache)?;
        let e2 = EncodedTransform::new(ctx, &second, m2, options.cache)?;
        Ok(TwoStageFft {
            ctx: ctx.clone(),
            direction,
            n1,
            stages: [(first, e1), (second, e2)],
        })
    }

    /// The size `n`.
    pub fn len(&self) -> usize {
        self.stages[0].0.input_layout().len()
    }

    /// Always false (the smallest two-stage transform has size 4).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Forward or inverse.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The split `(n1, n2)`: stage 1 does `n1` transforms of size `n2`, stage 2 `n2` of
    /// size `n1`.
    pub fn split(&self) -> (usize, usize) {
        (self.n1, self.len() / self.n1)
    }

    /// The two stages' plans and encoded matrices, in execution order.
    pub fn stages(&self) -> [(&TransformPlan, &EncodedTransform<F>); 2] {
        [0, 1].map(|i| (&self.stages[i].0, &self.stages[i].1))
    }

    /// Multiplicative levels: one per stage.
    pub fn levels(&self) -> u32 {
        self.stages.iter().map(|(p, _)| p.levels()).sum()
    }

    /// Rotations one execution performs (both stages).
    pub fn num_rotations(&self) -> usize {
        self.stages.iter().map(|(p, _)| p.num_rotations()).sum()
    }

    /// Diagonal products one execution performs (both stages).
    pub fn num_diagonals(&self) -> usize {
        self.stages.iter().map(|(p, _)| p.num_diagonals()).sum()
    }

    /// Memory held by both stages' cached diagonals, in bytes.
    pub fn cache_bytes(&self) -> u64 {
        self.stages.iter().map(|(_, e)| e.cache_bytes()).sum()
    }

    /// The Galois keys [`apply`](Self::apply) needs (both stages'), and no others.
    pub fn galois_steps(&self) -> GaloisSteps {
        let [a, b] = &self.stages;
        a.0.galois_steps().union(&b.0.galois_steps())
    }

    /// Giant steps [`apply`](Self::apply) runs in all, what its progress callback counts to.
    pub fn progress_total(&self) -> usize {
        self.stages.iter().map(|(p, _)| p.progress_total()).sum()
    }

    /// Encrypts `x` (exactly `n` values), in natural order, for [`apply`](Self::apply).
    pub fn encrypt(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        self.stages[0]
            .0
            .input_layout()
            .encrypt_with(self.stages[0].1.encoder(), pk, x)
    }

    /// [`encrypt`](Self::encrypt) with the secret key, straight to bytes for the server (see
    /// [`Fft::encrypt_to_bytes`](crate::Fft::encrypt_to_bytes)).
    pub fn encrypt_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        self.stages[0]
            .0
            .input_layout()
            .encrypt_to_bytes_with(self.stages[0].1.encoder(), sk, x)
    }

    /// Decrypts a result into natural order: the `n` values of `domain.fft(x)` (or `ifft`).
    pub fn decrypt(&self, sk: &SecKey, cts: &[Ctxt]) -> Result<Vec<F>> {
        let slots: Vec<F> = self.stages[1]
            .0
            .output_layout()
            .decrypt(&self.ctx, sk, cts)?;
        let (n1, n2) = self.split();
        // Slot k1 + n1 k2 holds y[k2 + n2 k1].
        let mut y = vec![F::zero(); slots.len()];
        for (t, v) in slots.into_iter().enumerate() {
            y[t / n1 + n2 * (t % n1)] = v;
        }
        Ok(y)
    }

    /// The transform of the encrypted vector (in the transposed order [`decrypt`] undoes).
    ///
    /// Fails with [`Error::MissingKey`] before any work if `gk` lacks a key of
    /// [`galois_steps`](Self::galois_steps), and with [`Error::NoiseBudgetExhausted`] at the
    /// end on a context without room for two levels.
    ///
    /// [`decrypt`]: Self::decrypt
    pub fn apply(&self, gk: &GaloisKeys, x: &[Ctxt]) -> Result<Vec<Ctxt>> {
        self.apply_with_progress(gk, x, &|_, _| {})
    }

    /// [`apply`](Self::apply) with a progress callback `(giant steps done, total)` over both
    /// stages.
    pub fn apply_with_progress(
        &self,
        gk: &GaloisKeys,
        x: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let [(p1, e1), (p2, e2)] = &self.stages;
        // Refuse a missing key before the first stage's work, not after it.
        p2.check_keys(gk)?;
        let total = self.progress_total();
        let done = p1.progress_total();
        let z = p1.execute_with_progress(e1, gk, x, &|d, _| progress(d, total))?;
        let y = p2.execute_with_progress(e2, gk, &z, &|d, _| progress(done + d, total))?;
        crate::params::ensure_budget(
            &y,
            &self.ctx,
            "the two-stage FFT",
            "two levels",
            crate::two_stage_ciphertext_bits(
                self.ctx.ring_degree(),
                self.ctx.plaintext_bits(),
                self.len(),
            ),
            "two_stage_fft_context",
        )?;
        Ok(y)
    }

    /// The context the transform was built for.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
}

/// The two stage matrices of `domain`'s transform for the split `n = n1 n2`.
///
/// The transform is `y[k] = a r^k sum_j c^j w^(jk) x[j]`: forward `a = r = 1`, `c` the coset
/// offset; inverse `w` the inverse root, `a = 1/n`, `r` the inverse offset, `c = 1`. With
/// `t = j1 + n1 k2` and `s = j1 + n1 j2` (stage 1), then `t = k1 + n1 k2` and `s = j1 + n1 k2`
/// (stage 2), the factor `r^k = r^k2 (r^n2)^k1` splits between the stages:
/// - stage 1, `(t, s)` with `t = s mod n1`: `r^k2 w^(k2 s) c^s` (`k2 = t / n1`);
/// - stage 2, `(t, s)` in one block of `n1`: `a (r^n2)^k1 (w^n2)^(j1 k1)`, the same in every
///   block (shift period `n1`).
fn stage_matrices<F: FftField + PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    direction: Direction,
    n1: usize,
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
    let c_pow = powers_of(c, F::one(), n);
    let r_pow = powers_of(r, F::one(), n);
    // (w^n2)^(j1 k1) = w^(n2 j1 k1 mod n); (r^n2)^k1 = r^(n2 k1), with n2 k1 < n.
    let scale: Vec<F> = (0..n1).map(|k1| a * r_pow[n2 * k1]).collect();
    let w_second = w_pow.clone();
    let first = Matrix::from_fn(n, move |t, s| {
        if t % n1 != s % n1 {
            return F::zero();
        }
        let k2 = t / n1;
        r_pow[k2] * w_pow[(k2 * s) % n] * c_pow[s]
    })?;
    let second = Matrix::from_fn(n, move |t, s| {
        if t / n1 != s / n1 {
            return F::zero();
        }
        let (k1, j1) = (t % n1, s % n1);
        scale[k1] * w_second[(n2 * j1 * k1) % n]
    })?
    .with_shift_period(n1);
    Ok([first, second])
}

impl<F: FftField + PrimeField> fmt::Debug for TwoStageFft<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TwoStageFft")
            .field("n", &self.len())
            .field("split", &self.split())
            .field("direction", &self.direction)
            .finish()
    }
}
