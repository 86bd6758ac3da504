//! [`WitnessMap`]: Groth16's witness map `h = (A B - C) / Z_H` on ciphertexts, through the
//! plaintext ring's own polynomial product.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use ark_ff::{FftField, PrimeField};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps};

use crate::bsgs::key_levels::{staged_galois_steps, KeyStage};
use crate::bsgs::layout::Order;
use crate::bsgs::plan::{DiagonalSet, Rows};
use crate::error::{Error, Result};
use crate::fft::matrices::subgroup;
use crate::transform::single;
use crate::transform::{required_keys, TransformInfo};
use crate::witness_map::matrices::{points_pow, slot_points, stage_matrices};
use crate::witness_map::owner_stage::OwnerStage;
use crate::{
    EncodedTransform, EncryptedTransform, FftOptions, PlanOptions, Progress, TransformPlan,
};

/// A QAP prover's quotient `h` (Groth16's witness map) from the encrypted evaluations `a`, `b`
/// of `A`, `B` on the subgroup `H` of size `n`, computed with the plaintext ring's product.
///
/// The plaintext ring is `F[X] / (X^N + 1)`. With `Y = X^(N / 2n)` its elements of the form
/// `m(Y)` make the subring `F[Y] / (Y^(2n) + 1)`, whose slots (each value repeated along the
/// rows) are the values of `m` at the `2n` roots of `Y^(2n) + 1`. [`apply`](EncryptedTransform::apply)
/// turns each of `a` and `b` into the ciphertext whose plaintext *polynomial* is `A(Y)`
/// (resp. `B(Y)`), in sparse plaintext-matrix products, then multiplies the two
/// ciphertexts once: `A B` has degree at most `2n - 2 < 2n`, so the ring product does not wrap
/// around and is `A B` itself. When the constraints hold (`a_i b_i = c_i`),
/// `A B - C = h (Y^n - 1)` with `deg C < n`, so `h` is exactly the top half of `A B`'s
/// coefficients: [`decrypt`](EncryptedTransform::decrypt) reads them off the decrypted polynomial. `c` is
/// not needed, and no coset, no final inverse FFT and no slot decoding are involved.
///
/// Three stages evaluate `A` at every slot's point `P` without leaving the slots:
/// with `n = n1 n2`, `A(P) = sum_{i < n2} P^i A_i(P^n2)`, `A_i(W) = sum_{l < n1} Â_(i + n2 l)
/// W^l` (`Â` the coefficients of `A`).
/// 1. the first stage of a two-stage inverse FFT (`n2` strided diagonals);
/// 2. the second stage fused with the evaluation of every `A_i` at the `n1` distinct values
///    of `P^n2` in each slot row (a geometric sum in closed form: `2 n1` diagonals that repeat
///    with period `n1`, so they encode small);
/// 3. `sum_i P^i A_i(P^n2)` (`n2` strided diagonals).
///
/// Stages 2 and 3 differ between the two slot rows, whose points lie on the two cosets of the
/// roots of `Y^(2n) + 1`. Where `a` and `b` run the stages in ciphertexts of their own
/// ([`unpacked`](Self::unpacked)), the owner applies stage 1 in the clear inside
/// [`encode`](EncryptedTransform::encode) (an inverse DFT of size `n2` down each residue class
/// modulo `n1` and a twiddle: about `(n/2) log2 n2 + 3n` field multiplications), and the server
/// runs stages 2 and 3: one level fewer, and no key switches at the top of the modulus.
/// [`new`](Self::new) builds this map at every size.
///
/// [`packed`](Self::packed) puts `a` and `b` into one ciphertext as the two halves of a vector
/// of `2n` slots (`n <= N/4`), so the stages run once for both. They then make `T = (A(Y) + Z B(Y)) / 2` with `Z^2 = Y`. The rotation by `n` maps `Z`
/// to `-Z` and fixes `Y`, so one product `(T + rot(T)) (T - rot(T)) = Z A(Y) B(Y)` ends it:
/// about 40% fewer rotations; the server runs all three stages, since `b` joins `a` before the
/// first.
///
/// That is four multiplicative levels packed and three unpacked
/// ([`witness_map_context`](crate::witness_map_context): `N = 65536` for BN254 up to
/// `n = 32768`), against three coset changes of `n` diagonals each and an inverse FFT for the
/// same `h` in the slots (a route this crate no longer offers: slower at every size measured).
///
/// The result equals ark-groth16's `LibsnarkReduction` witness map for constraints that hold.
/// For constraints that do not, no proof can verify anyway, and
/// [`check::quotient`](crate::check::quotient) tells the owner so in `O(n)`.
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use ark_ff::{FftField, Field};
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{EncryptedTransform, FftOptions, WitnessMap};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// // A toy ring (insecure, for the example's speed); see he_fft::witness_map_context.
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::witness_map_ciphertext_bits::<Fr>(2048, 8))
///     .allow_insecure(true).build()?;
/// let map = WitnessMap::<Fr>::new(&ctx, 8, &FftOptions::default())?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &map.galois_steps())?;
///
/// // Eight constraints a_i * b_i = c_i that hold.
/// let a: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
/// let b: Vec<Fr> = (11..=18u64).map(Fr::from).collect();
/// let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
/// let mut x = map.encrypt(&pk, &a)?;
/// x.extend(map.encrypt(&pk, &b)?);
/// let h = map.apply(&gk, &x)?;
/// let h = map.decrypt(&sk, &h)?;
///
/// // The plain computation, as ark-groth16 does it.
/// let domain = Radix2EvaluationDomain::<Fr>::new(8).unwrap();
/// let coset = domain.get_coset(Fr::GENERATOR).unwrap();
/// let [pa, pb, pc] = [&a, &b, &c].map(|v| coset.fft(&domain.ifft(v)));
/// let z_inv = domain.evaluate_vanishing_polynomial(Fr::GENERATOR).inverse().unwrap();
/// let q: Vec<Fr> = (0..8).map(|i| (pa[i] * pb[i] - pc[i]) * z_inv).collect();
/// assert_eq!(h, coset.ifft(&q));
/// # Ok(())
/// # }
/// ```
pub struct WitnessMap<F: FftField + PrimeField> {
    ctx: Context,
    n: usize,
    n1: usize,
    /// 2 when `a` and `b` share one ciphertext (halves of a vector of `2n`), 1 when each has
    /// its own.
    copies: usize,
    /// The stages the server runs: all three, or the last two where the owner applies the
    /// first ([`owner_stage`](Self::owner_stage)).
    stages: Vec<(TransformPlan, EncodedTransform<F>)>,
    /// The first stage, in the clear inside [`encode`](EncryptedTransform::encode), where the
    /// owner applies it.
    owner_stage: Option<OwnerStage<F>>,
}

impl<F: FftField + PrimeField> WitnessMap<F> {
    /// The server's stages, for the levels their keys serve.
    pub(crate) fn key_stages(&self) -> Vec<KeyStage> {
        let mut stages: Vec<KeyStage> = self.stages.iter().map(|(p, _)| KeyStage::of(p)).collect();
        if self.is_packed() {
            // The row swap joins a and b before the first stage (which swaps rows too), the
            // rotation by n separates A from B after the last.
            stages[0].steps = stages[0].steps.clone().row_swap();
            if let Some(last) = stages.last_mut() {
                last.steps = last.steps.clone().step(self.n as i64);
            }
        }
        stages
    }

    /// The witness map for constraints on the subgroup of size `n` (a power of two,
    /// `2 <= n <= N/2`): [`unpacked`](Self::unpacked), the owner applying the first stage.
    /// It beat [`packed`](Self::packed) at every size measured, with less than half the
    /// Galois keys' memory (`N = 65536`, two threads, alternating: 1.62-1.66 against
    /// 1.88-1.92 s at `n = 1024`, 2.45-2.52 against 2.64-2.68 s at 4096; 4 keys in 0.38 GB
    /// against 9-10 in 1.7-1.8 GB).
    ///
    /// `options.plan.baby_steps`, when set, bounds every stage's baby steps (more giant
    /// steps, which run one after the other), and `options.plan.baby_step_keys` the Galois
    /// keys each stage's baby steps use (by default one per giant-step chain, so one per thread
    /// of an input's share of the pool, the baby steps coming in rounds;
    /// [`PlanOptions::baby_step_keys`](crate::PlanOptions)).
    pub fn new(ctx: &Context, n: usize, options: &FftOptions) -> Result<Self> {
        Self::unpacked(ctx, n, options)
    }

    /// The map in which `a` and `b` share one ciphertext through the stages, as the two
    /// halves of a vector of `2n` slots (`n <= N/4`): one run of the stages instead of two.
    /// The row swap joins the two inputs; after the stages one rotation and one product
    /// separate and multiply them. Four levels: its context needs
    /// [`packed_ciphertext_bits`](Self::packed_ciphertext_bits), more than what
    /// [`new`](Self::new)'s map needs.
    pub fn packed(ctx: &Context, n: usize, options: &FftOptions) -> Result<Self> {
        check_size(ctx, n)?;
        if 4 * n > ctx.ring_degree() {
            return Err(Error::InvalidArgument(format!(
                "the packed witness map holds a and b in one ciphertext, so n <= N/4 = {}; \
                 got n = {n} (use WitnessMap::unpacked or WitnessMap::new)",
                ctx.ring_degree() / 4
            )));
        }
        Self::build(ctx, n, options, 2)
    }

    /// The map in which `a` and `b` each run the stages in a ciphertext of their own, side by
    /// side, the first stage applied by the owner inside
    /// [`encode`](EncryptedTransform::encode): what [`new`](Self::new) builds, and the
    /// four-step map's row map. Three levels.
    ///
    /// Where the caller did not choose the chains, each input's stages get half the pool
    /// ([`witness_map_chains`](crate::witness_map_chains)): on two threads one thread each,
    /// with one chain per stage and no chain-joining rotations. That measured as fast as
    /// splitting the pool (n = 4096, two threads, alternating: 5.0-5.8 s warm either way) with
    /// two Galois keys fewer, and at 65536 as fast as running a four-step component's inputs
    /// one after the other on the whole pool, with four keys instead of seven.
    pub fn unpacked(ctx: &Context, n: usize, options: &FftOptions) -> Result<Self> {
        let mut options = options.clone();
        if options.plan.chains.is_none() {
            options.plan.chains = Some(crate::witness_map_chains(ctx, n));
        }
        Self::build(ctx, n, &options, 1)
    }

    /// Whether `a` and `b` share one ciphertext through the stages.
    pub fn is_packed(&self) -> bool {
        self.copies == 2
    }

    /// The stages on vectors of `copies * n` slots: `a` alone (1), whose first stage the owner
    /// applies in the clear, or `a` then `b` (2), which the server joins before the first
    /// stage and so runs all three.
    fn build(ctx: &Context, n: usize, options: &FftOptions, copies: usize) -> Result<Self> {
        check_size(ctx, n)?;
        let owner_first_stage = copies == 1;
        let dim = copies * n;
        let domain = subgroup::<F>(n)?;
        let n1 = 1 << n.ilog2().div_ceil(2);
        let n2 = n / n1;
        let points = slot_points::<F>(ctx, dim)?;
        // Stage 2 needs P^n2 (P = p^copies the point of A and B) to depend only on the slot
        // modulo n1 in each row (true of the slot order of X^N + 1; checked, not assumed).
        let q = points_pow(&points, copies * n2);
        for row in &q {
            if (0..dim).any(|t| row[t] != row[t % n1]) {
                return Err(Error::Internal(
                    "the slot order does not have the structure the witness map relies on".into(),
                ));
            }
        }

        // Stage 1 acts alike on both rows, which split its diagonals between them: the input
        // comes half-rotated (row 1 holds it rotated by n/2, which encryption lays out), and
        // the output with identical rows, as the per-row stages take it.
        let mut first = options.plan.clone();
        first.half_rotated_input = copies * n2 >= 2;
        // Baby steps in rounds of one rotation per chain unless the caller chose: a handful
        // of keys instead of one per baby step (n = 4096: 9 keys and 1.7 GB against 19 and
        // 3.6 GB). Time: slower at 1024, and at 4096 when the host is quiet (4.2 against
        // 3.7 s), faster at 8192 and 16384 (BENCHMARKS.md).
        first.baby_step_keys = options.plan.baby_step_keys.or_else(|| {
            Some(
                options
                    .plan
                    .chains
                    .unwrap_or_else(rayon::current_num_threads),
            )
        });
        let mut opts = first.clone();
        opts.half_rotated_input = false;
        // The caller's baby steps bound every stage's (the stages differ in size). Where the
        // caller did not choose: fewer baby steps than giant steps, as many rotations as a
        // square split, and the two strided stages then share their giant step's key.
        let capped = |per_row: usize| options.plan.baby_steps.map(|b| b.min(per_row));
        let fewer_babies =
            |per_row: usize| capped(per_row).or(Some(1 << (per_row.trailing_zeros() / 2)));
        let strided = DiagonalSet {
            first: 0,
            stride: n1,
            count: copies * n2,
        };
        // Stage 2's diagonals lie within n1 of the main one. Stage 1 writes its output
        // rotated by n1 (its strided set is closed under that shift), which moves them to
        // 0 .. 2 n1: stage 2 then needs no rotation to its first diagonal, nor its key.
        let (block, shift) = if 2 * n1 >= dim {
            (DiagonalSet::all(dim), 0)
        } else {
            (
                DiagonalSet {
                    first: 0,
                    stride: 1,
                    count: 2 * n1,
                },
                n1,
            )
        };
        // Stage 1's rows split its diagonals when it has two or more.
        let first_per_row = (strided.count / 2).max(1);
        first.baby_steps = if copies == 2 {
            // Packed, stage 1 splits its diagonals as stage 3 does, so they share keys.
            fewer_babies(first_per_row)
        } else {
            capped(first_per_row)
        };
        let p2 = TransformPlan::with_diagonals(
            ctx,
            dim,
            block,
            &PlanOptions {
                baby_steps: fewer_babies(block.count),
                ..opts.clone()
            },
            Rows::PerRow,
        )?;
        let p3 = TransformPlan::with_diagonals(
            ctx,
            dim,
            strided,
            &PlanOptions {
                baby_steps: fewer_babies(strided.count),
                ..opts
            },
            Rows::PerRow,
        )?;
        let [m1, m2, m3] = stage_matrices(&domain, n1, copies, shift, &points, &q)?;
        let mut stages = Vec::with_capacity(3);
        // Inputs of the owner's first stage carry a tag of their own: in memory, a ciphertext
        // laid out for another transform is refused.
        let p2 = if owner_first_stage {
            p2.with_orders(Order::witness_first_stage(n1), Order::NATURAL)
        } else {
            p2
        };
        let owner_stage = if owner_first_stage {
            Some(OwnerStage::new(&domain, n1, shift)?)
        } else {
            let p1 = TransformPlan::with_diagonals(ctx, dim, strided, &first, Rows::Shared)?;
            if p1.output_layout() != p2.input_layout() {
                return Err(Error::Internal(
                    "the witness map's first stage must leave the layout the second takes".into(),
                ));
            }
            let e1 = EncodedTransform::new(ctx, &p1, m1, options.cache)?;
            stages.push((p1, e1));
            None
        };
        let e2 = EncodedTransform::new(ctx, &p2, m2, options.cache)?;
        let e3 = EncodedTransform::new(ctx, &p3, m3, options.cache)?;
        stages.extend([(p2, e2), (p3, e3)]);
        Ok(WitnessMap {
            ctx: ctx.clone(),
            n,
            n1,
            copies,
            stages,
            owner_stage,
        })
    }

    /// The split `(n1, n2)` of the stages.
    pub fn split(&self) -> (usize, usize) {
        (self.n1, self.n / self.n1)
    }

    /// The plans and encoded matrices of the stages the server runs, in execution order (each
    /// runs on `a` and on `b`): all three, or the last two where the owner applies the first
    /// (the row map of a [`FourStepWitnessMap`](crate::FourStepWitnessMap)).
    pub fn stages(&self) -> Vec<(&TransformPlan, &EncodedTransform<F>)> {
        self.stages.iter().map(|(p, e)| (p, e)).collect()
    }

    /// Whether [`encode`](EncryptedTransform::encode) applies the first stage in the clear.
    pub fn owner_applies_first_stage(&self) -> bool {
        self.owner_stage.is_some()
    }

    /// Rotations one [`apply`](EncryptedTransform::apply) performs (both inputs; packed, the
    /// two that join and separate `a` and `b` included).
    pub fn num_rotations(&self) -> usize {
        let stages: usize = self.stages.iter().map(|(p, _)| p.num_rotations()).sum();
        if self.is_packed() {
            stages + 2
        } else {
            2 * stages
        }
    }

    /// Runs of the server's stages per witness map: 1 packed, 2 otherwise.
    fn runs(&self) -> usize {
        3 - self.copies
    }

    /// `x` as the first stage reads it: packed, followed by `n` zeros (the server moves
    /// `b`'s copy into the second half).
    fn input_vector<'a>(&self, x: &'a [F]) -> Result<std::borrow::Cow<'a, [F]>> {
        if x.len() != self.n {
            return Err(Error::wrong_length(
                "the witness map's evaluations",
                self.n,
                x.len(),
            ));
        }
        if !self.is_packed() {
            return Ok(x.into());
        }
        let mut padded = x.to_vec();
        padded.resize(self.copies * self.n, F::zero());
        Ok(padded.into())
    }
}

/// Sizing: the modulus of the one-ciphertext witness map
/// ([`witness_map_context`](crate::witness_map_context) sizes a context for either route).
impl<F: FftField + PrimeField> WitnessMap<F> {
    /// Ciphertext-modulus bits for the witness map of size `n <= N/2` on the ring
    /// `ring_degree`, as [`new`](Self::new) builds it: the server's two plaintext-matrix stages
    /// (the first as a one-level transform, the second as the second stage of
    /// [`TwoStageFft::ciphertext_bits`](crate::TwoStageFft::ciphertext_bits))
    /// and a ciphertext product of their results, whose operands are switched down to the
    /// floor first and which costs about one more such stage.
    pub fn ciphertext_bits(ring_degree: usize, n: usize) -> u32 {
        crate::params::one_ciphertext_witness_map_bits(ring_degree, F::MODULUS_BIT_SIZE, n)
    }

    /// Ciphertext-modulus bits for [`packed`](Self::packed) at size `n`, whatever
    /// [`new`](Self::new) would build there (three server stages and the product).
    pub fn packed_ciphertext_bits(ring_degree: usize, n: usize) -> u32 {
        crate::params::row_map_bits(ring_degree, F::MODULUS_BIT_SIZE, n, 3)
    }
}

impl<F: FftField + PrimeField> EncryptedTransform<F> for WitnessMap<F> {
    /// The domain size `n` is the length of `a`, `b` and of the result `h`; four levels packed
    /// (three plaintext products and one ciphertext product), three where the owner applies
    /// the first stage.
    fn info(&self) -> TransformInfo {
        TransformInfo {
            name: "the witness map",
            len: self.n,
            output_len: self.n,
            num_inputs: 2,
            input_ciphertexts: 1,
            output_ciphertexts: 1,
            levels: self.stages.len() as u32 + 1,
            ciphertext_bits: crate::params::row_map_bits(
                self.ctx.ring_degree(),
                self.ctx.plaintext_bits(),
                self.n,
                self.stages.len() as u32,
            ),
            // The packed map needs a stage more than the context helper gives.
            context_helper: if self.is_packed() {
                "WitnessMap::packed_ciphertext_bits"
            } else {
                "witness_map_context"
            },
            progress_total: self.total_steps(),
            layout_tag: self.input_tag(),
        }
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
    fn cache_bytes(&self) -> u64 {
        self.stages.iter().map(|(_, e)| e.cache_bytes()).sum()
    }
    /// The server's stages' keys, each for the levels its stages run at (the product needs the
    /// relinearization key every public key carries).
    fn galois_steps(&self) -> GaloisSteps {
        staged_galois_steps(&self.ctx, &self.key_stages())
    }
    /// `a` or `b` (exactly `n` values, the evaluations on `H` in natural order), through the
    /// first stage where the owner applies it.
    fn encode(&self, x: &[F]) -> Result<Vec<Vec<F>>> {
        let x = self.input_vector(x)?;
        let x = match &self.owner_stage {
            Some(stage) => stage.apply(&x)?.into(),
            None => x,
        };
        let (plan, encoded) = &self.stages[0];
        plan.input_layout().encode_with(encoded.encoder(), &x)
    }
    /// The `n` coefficients of `h` (the last is 0 when the constraints hold, as in
    /// ark-groth16's result).
    fn decode(&self, h: &[Vec<F>]) -> Result<Vec<F>> {
        let h = single(h, "the result")?;
        if self.is_packed() {
            packed_quotient(&self.ctx, h, self.n)
        } else {
            quotient(&self.ctx, h, self.n)
        }
    }
    /// The encrypted quotient from the encrypted `a` and `b` (one ciphertext each, in that
    /// order, under one public key).
    fn compute(&self, gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>> {
        let gk = required_keys(gk, self.info().name)?;
        self.check_keys(gk)?;
        let [a, b] = x else {
            return Err(Error::wrong_length(
                "the witness map's ciphertexts (a, b)",
                2,
                x.len(),
            ));
        };
        let total = self.total_steps();
        if self.is_packed() {
            return Ok(vec![
                self.packed_product(gk, a, b, &|d, _| report(d, total))?
            ]);
        }
        let (mut h, b_of_y) =
            self.interpolate_both(gk, a.try_clone()?, b.try_clone()?, &|d, _| report(d, total))?;
        h.mul_assign(&b_of_y)?;
        Ok(vec![h])
    }
}

impl<F: FftField + PrimeField> WitnessMap<F> {
    /// [`MissingKey`](Error::MissingKey) unless `gk` has every key of the server's stages.
    pub(crate) fn check_keys(&self, gk: &GaloisKeys) -> Result<()> {
        self.stages
            .iter()
            .try_for_each(|(plan, _)| plan.check_keys(gk))?;
        if self.is_packed() && !gk.has_step(self.n as i64) {
            return Err(Error::MissingKey(format!(
                "no Galois key for the row rotation by {}, which this witness map needs; \
                 generate the keys from its galois_steps()",
                self.n
            )));
        }
        Ok(())
    }

    /// Giant steps in all, both inputs.
    pub(crate) fn total_steps(&self) -> usize {
        self.runs()
            * self
                .stages
                .iter()
                .map(|(p, _)| p.progress_total())
                .sum::<usize>()
    }

    /// The layout tag the first stage's input must carry.
    pub(crate) fn input_tag(&self) -> u64 {
        self.stages[0].0.input_tag()
    }

    /// Packed: the stages on `a` and `b` in one ciphertext (`b` moved into the second half),
    /// giving `T = (A(Y) + Z B(Y)) / 2` with `Z^2 = Y`. The rotation by `n` maps `Z` to `-Z`
    /// and fixes `Y`, so `(T + rot(T)) (T - rot(T)) = Z A(Y) B(Y)`.
    fn packed_product(
        &self,
        gk: &GaloisKeys,
        a: &Ctxt,
        b: &Ctxt,
        progress: Progress<'_>,
    ) -> Result<Ctxt> {
        // Each input sits as (x, 0) in row 0 and (0, x) in row 1, so the row swap (whose key
        // the first stage needs anyway) moves b into the second half.
        // The join and the separation are single rotations: the pool's threads share each.
        let mut x = crate::bsgs::execute::swapped_by_pool(b, gk)?;
        x.add_assign(a)?;
        let t = self.interpolate(gk, x, progress)?;
        let flipped = crate::bsgs::execute::rotated_by_pool(&t, self.n as i64, gk)?;
        let a_of_y = t.checked_add(&flipped)?;
        let mut z_b_of_y = t.checked_sub(&flipped)?;
        z_b_of_y.mul_assign(&a_of_y)?;
        Ok(z_b_of_y)
    }

    /// The server's stages on one encrypted vector: the ciphertext whose plaintext polynomial
    /// is `A(Y)`, for `x` the evaluations of `A` on `H` (progress counted from 0 to half of
    /// [`progress_total`](TransformInfo::progress_total)).
    pub(crate) fn interpolate(
        &self,
        gk: &GaloisKeys,
        x: Ctxt,
        progress: Progress<'_>,
    ) -> Result<Ctxt> {
        let mut y = vec![x];
        let mut done = 0;
        for (plan, encoded) in &self.stages {
            y = plan.execute_with_progress(encoded, gk, &y, &|d, _| progress(done + d, 0))?;
            done += plan.progress_total();
        }
        y.pop()
            .ok_or_else(|| Error::Internal("a stage gave no ciphertext".into()))
    }

    /// [`interpolate`](Self::interpolate) on `a` and `b` side by side, each on its share of
    /// the pool: `(A(Y), B(Y))`. `progress(done, _)` counts both inputs' giant steps once
    /// each, up to [`total_steps`](Self::total_steps); the calls come from two threads, so
    /// they may arrive a little out of order.
    pub(crate) fn interpolate_both(
        &self,
        gk: &GaloisKeys,
        a: Ctxt,
        b: Ctxt,
        progress: Progress<'_>,
    ) -> Result<(Ctxt, Ctxt)> {
        let done = AtomicUsize::new(0);
        let step = |_, t| progress(done.fetch_add(1, Ordering::Relaxed) + 1, t);
        let (a_of_y, b_of_y) = rayon::join(
            || self.interpolate(gk, a, &step),
            || self.interpolate(gk, b, &step),
        );
        Ok((a_of_y?, b_of_y?))
    }
}

/// `h` from an encrypted `A(Y) B(Y)` with `Y = X^(N / 2n)`: the coefficients of `Y^n` to
/// `Y^(2n - 1)` of the decrypted polynomial (both routes' last step).
pub(crate) fn quotient<F: PrimeField>(ctx: &Context, coeffs: &[F], n: usize) -> Result<Vec<F>> {
    crate::transform::check_poly_len(coeffs, ctx.ring_degree())?;
    let step = ctx.ring_degree() / (2 * n);
    Ok((0..n).map(|i| coeffs[step * (n + i)]).collect())
}

/// `h` from an encrypted `Z A(Y) B(Y)` with `Z = X^(N / 4n)`, `Y = Z^2`: the coefficients of
/// `Z^(2n + 1)`, `Z^(2n + 3)`, ... of the decrypted polynomial (the packed map's last step).
fn packed_quotient<F: PrimeField>(ctx: &Context, coeffs: &[F], n: usize) -> Result<Vec<F>> {
    crate::transform::check_poly_len(coeffs, ctx.ring_degree())?;
    let step = ctx.ring_degree() / (4 * n);
    Ok((0..n).map(|i| coeffs[step * (2 * (n + i) + 1)]).collect())
}

/// An error unless `n` is a power of two from 2 to `N/2`.
fn check_size(ctx: &Context, n: usize) -> Result<()> {
    let half = ctx.ring_degree() / 2;
    if n < 2 || !n.is_power_of_two() || n > half {
        return Err(Error::InvalidArgument(format!(
            "this witness map takes a power of two from 2 to N/2 = {half} constraints' \
             domain, got n = {n}"
        )));
    }
    Ok(())
}

impl<F: FftField + PrimeField> fmt::Debug for WitnessMap<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WitnessMap")
            .field("n", &self.n)
            .field("split", &self.split())
            .finish()
    }
}
