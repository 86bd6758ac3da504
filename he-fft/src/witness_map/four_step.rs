//! [`FourStepWitnessMap`]: Groth16's witness map for domains larger than half a ring, across
//! several ciphertexts.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps};
use rayon::prelude::*;

use crate::bsgs::layout::Order;
use crate::error::{Error, Result};
use crate::fft::matrices::{powers_of, subgroup};
use crate::transform::{check_input, ensure_budget, required_keys, TransformInfo};
use crate::witness_map::component_products::ComponentTransform;
use crate::{EncryptedTransform, FftOptions, Layout, Progress, WitnessMap};

/// Groth16's witness map `h = (A B - C) / Z_H` for a domain `H` of size `n = c R` larger than
/// a slot row (`R = N/2`), one ciphertext per component and input.
///
/// It splits `A` into its `c` polyphase components, `A(Y) = sum_k Y^k A_k(Y^c)` with
/// `deg A_k < R`, and likewise `B`. Then `A B = sum_s Y^s Q_s(Y^c)` with
/// `Q_s = sum_(k + l = s) A_k B_l`, and each `A_k B_l` is one ring product without
/// wraparound (degree `< 2R = N`).
/// 1. **Across rows, by the owner**: the values of `A_k` on the subgroup of size `R` are
///    `v_k[r] = (1/c) w^(-r k) sum_rho w_c^(-rho k) a[r + R rho]`, an inverse FFT of size `c`
///    down each of the `R` columns of `a` laid out in `c` rows, and a twiddle. The owner
///    computes them while encoding ([`encode`](EncryptedTransform::encode)), then the row
///    map's first stage on each (an inverse DFT of size `n2` down each residue class modulo
///    `n1`, `R = n1 n2`, and a twiddle), and encrypts one ciphertext per component: about
///    `(n/2) log2(c n2) + 6n` field multiplications per input: fewer than the
///    encoding's own `n log2 N` (`c` slot vectors of `N`), and little time beside the
///    encryption. Done on the server, each would take a multiplicative level, and the first
///    stage's key switches run at the top of the modulus (server time at `n = 65536`, two
///    threads, medians of three: 14.5 s with the first stage on the server, 9.9 s without).
/// 2. **Within a row** (two levels): [`WitnessMap`]'s last two stages at size `R` turn each
///    encrypted first-stage output into the ciphertext whose plaintext *polynomial* is
///    `A_k(X)`.
/// 3. **Products** (one level): `T_i = Q_i + X Q_(i + c)` for `i < c`, through a transform of
///    length `2c` across the components whose roots of unity are the monomials `X^(j N / c)`:
///    `2c` ciphertext products instead of `c^2`; the transforms cost additions and monomial
///    shifts (plaintext products by `±X^e` at the components' few primes), and no noise.
///    `h`'s entries `i + c j` are the coefficients `R + j` of `T_i`, which
///    [`decrypt`](EncryptedTransform::decrypt) reads off (and divides by `2c`, the inverse
///    transform's scale).
///
/// Three levels, as the one-ciphertext map
/// ([`witness_map_context`](crate::witness_map_context): `N = 65536` for BN254, from
/// `n = 65536` to `2^24`). The upload is `c` ciphertexts per input
/// and the result `c` ciphertexts. The row map's Galois keys are all it needs, whatever `c`.
/// The result equals ark-groth16's `LibsnarkReduction` witness map for constraints that hold.
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
    /// The subgroup of size `c`, whose inverse FFT runs down the columns.
    across: Radix2EvaluationDomain<F>,
    /// The last step's transform across the components.
    products: ComponentTransform,
    /// The layout tag of this map's inputs: one component per ciphertext.
    input_tag: u64,
}

impl<F: FftField + PrimeField> FourStepWitnessMap<F> {
    /// The most components (`c = n / R`): `n = 2^24` at `N = 65536`, which the modulus of
    /// [`ciphertext_bits`](Self::ciphertext_bits) is sized for.
    pub const MAX_COMPONENTS: usize = crate::params::MAX_COMPONENTS;

    /// The witness map for constraints on the subgroup of size `n`: a power of two from `N`
    /// to `MAX_COMPONENTS N / 2` (smaller domains fit one ciphertext: [`WitnessMap`]).
    pub fn new(ctx: &Context, n: usize, options: &FftOptions) -> Result<Self> {
        let row = ctx.ring_degree() / 2;
        if row < 4 || !n.is_power_of_two() || n < 2 * row || n > Self::MAX_COMPONENTS * row {
            return Err(Error::InvalidArgument(format!(
                "the four-step witness map takes a power of two from N = {} to {} \
                 constraints' domain (and N >= 8), got n = {n}",
                2 * row,
                Self::MAX_COMPONENTS * row
            )));
        }
        let domain = subgroup::<F>(n)?;
        let c = n / row;
        Ok(FourStepWitnessMap {
            ctx: ctx.clone(),
            n,
            // A component's a and b side by side, each on its share of the pool.
            rows: WitnessMap::unpacked(ctx, row, options)?,
            root_inv: domain.group_gen_inv(),
            across: subgroup::<F>(c)?,
            products: ComponentTransform::new(ctx.ring_degree(), c)?,
            input_tag: Layout::new(row, ctx.ring_degree())?.tag(Order::components(c)),
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
        self.num_rows() * self.rows.num_rotations()
    }

    /// The values `v_k` of every component `A_k` on the subgroup of size `R`, `k < c`, from
    /// the evaluations `x` on `H`: an inverse FFT of size `c` down each column, then the
    /// twiddles `w^(-r k)`.
    pub fn component_values(&self, x: &[F]) -> Result<Vec<Vec<F>>> {
        if x.len() != self.n {
            return Err(Error::wrong_length(
                "the witness map's evaluations",
                self.n,
                x.len(),
            ));
        }
        let (row, c) = (self.row_len(), self.num_rows());
        // Column r holds x[r + R rho], rho < c; transformed and twiddled in place.
        let column_roots = powers_of(self.root_inv, F::one(), row);
        let mut columns = vec![F::zero(); self.n];
        columns
            .par_chunks_mut(c)
            .zip(column_roots.par_iter())
            .enumerate()
            .for_each_init(
                || Vec::with_capacity(c),
                |scratch, (r, (column, root))| {
                    scratch.clear();
                    scratch.extend((0..c).map(|rho| x[r + row * rho]));
                    self.across.ifft_in_place(scratch);
                    let mut twiddle = F::one();
                    for (out, v) in column.iter_mut().zip(scratch.iter()) {
                        *out = *v * twiddle;
                        twiddle *= root;
                    }
                },
            );
        Ok((0..c)
            .into_par_iter()
            .map(|k| (0..row).map(|r| columns[r * c + k]).collect())
            .collect())
    }

    /// Component `k`'s row map on both inputs (`a_k` and `b_k`, the `k`-th input ciphertext of
    /// each), side by side: the ciphertexts of `A_k(X)` and `B_k(X)`, each switched down to
    /// its natural level. `progress(done, _)` counts the row map's giant steps of both inputs,
    /// each once; the two inputs' calls come from two threads, so they may arrive a little out
    /// of order, and the second argument carries nothing.
    pub fn component(
        &self,
        gk: &GaloisKeys,
        a_k: &Ctxt,
        b_k: &Ctxt,
        progress: Progress<'_>,
    ) -> Result<(Ctxt, Ctxt)> {
        self.component_of(gk, a_k.try_clone()?, b_k.try_clone()?, progress)
    }

    fn component_of(
        &self,
        gk: &GaloisKeys,
        mut a_k: Ctxt,
        mut b_k: Ctxt,
        progress: Progress<'_>,
    ) -> Result<(Ctxt, Ctxt)> {
        a_k.set_layout_tag(self.rows.input_tag());
        b_k.set_layout_tag(self.rows.input_tag());
        // Side by side rather than each on the whole pool: on two threads one giant-step chain
        // per input and stage, so no offset rotation joins chains, and the baby steps' rounds
        // take one key instead of two (at 65536: 4 keys against 7, the same time within the
        // noise).
        let (mut ak, mut bk) = self.rows.interpolate_both(gk, a_k, b_k, progress)?;
        ak.mod_switch_to_natural_level()?;
        bk.mod_switch_to_natural_level()?;
        Ok((ak, bk))
    }

    /// Every component from its inputs (`inputs(k)`: `a_k` and `b_k`, read or copied when
    /// needed), one at a time, then the products.
    fn run(
        &self,
        gk: Option<&GaloisKeys>,
        inputs: &dyn Fn(usize) -> Result<(Ctxt, Ctxt)>,
        report: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let gk = required_keys(gk, self.info().name)?;
        self.rows.check_keys(gk)?;
        let c = self.num_rows();
        let total = self.total_steps();
        let per_row = self.rows.total_steps();
        let mut components = Vec::with_capacity(c);
        for k in 0..c {
            let (a_k, b_k) = inputs(k)?;
            let base = k * per_row;
            components.push(self.component_of(gk, a_k, b_k, &|d, _| report(base + d, total))?);
        }
        let done = AtomicUsize::new(c * per_row);
        self.products(components, &|_| {
            report(done.fetch_add(1, Ordering::Relaxed) + 1, total)
        })
    }

    /// The `c` result ciphertexts from every component, in order ([`component`](Self::component)
    /// for `k < c`), which it consumes as it goes. `done(j)` is called as each of the `2c`
    /// products finishes.
    pub fn products(
        &self,
        components: Vec<(Ctxt, Ctxt)>,
        done: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Ctxt>> {
        if components.len() != self.num_rows() {
            return Err(Error::wrong_length(
                "the witness map's components",
                self.num_rows(),
                components.len(),
            ));
        }
        self.products.products::<F>(components, done)
    }

    /// The products' forward transforms, for a run split across processes: every process
    /// transforms all components (additions and monomial shifts), multiplies its share of the `2c`
    /// positions ([`spectrum_products`](Self::spectrum_products)) and gathers everyone's
    /// products for [`results`](Self::results). Returns `a`'s transform and `b`'s.
    pub fn spectra(&self, components: Vec<(Ctxt, Ctxt)>) -> Result<(Vec<Ctxt>, Vec<Ctxt>)> {
        let (a, b): (Vec<Ctxt>, Vec<Ctxt>) = components.into_iter().unzip();
        Ok((
            self.products.forward::<F>(a)?,
            self.products.forward::<F>(b)?,
        ))
    }

    /// The products of the two transforms at `positions` (of `2c`).
    pub fn spectrum_products(
        &self,
        spectra: (Vec<Ctxt>, Vec<Ctxt>),
        positions: std::ops::Range<usize>,
    ) -> Result<Vec<Ctxt>> {
        self.products
            .pointwise(spectra.0, &spectra.1, positions, &|_| {})
    }

    /// The `c` result ciphertexts from all `2c` products, in order.
    pub fn results(&self, products: Vec<Ctxt>) -> Result<Vec<Ctxt>> {
        self.products.results::<F>(products)
    }

    /// Every component's two stages on both inputs, and the `2c` products.
    fn total_steps(&self) -> usize {
        self.num_rows() * (self.rows.total_steps() + 2)
    }
}

/// Sizing: the modulus of the four-step witness map
/// ([`witness_map_context`](crate::witness_map_context) sizes a context for either route).
impl<F: FftField + PrimeField> FourStepWitnessMap<F> {
    /// Ciphertext-modulus bits for the four-step witness map of size `n` on the ring
    /// `ring_degree`: the row map's at `R = N/2` (its last two stages and the product) and the
    /// growth of the products' transforms across the `c = n / R` components (`3 log2(c) + 1`
    /// bits).
    pub fn ciphertext_bits(ring_degree: usize, n: usize) -> u32 {
        crate::params::four_step_witness_map_bits(ring_degree, F::MODULUS_BIT_SIZE, n)
    }
}

impl<F: FftField + PrimeField> EncryptedTransform<F> for FourStepWitnessMap<F> {
    /// The domain size `n` is the length of `a`, `b` and of the result `h`, whose `c`
    /// ciphertexts come from `c` per input; the levels are the row map's two stages and the
    /// product.
    fn info(&self) -> TransformInfo {
        TransformInfo {
            name: "the four-step witness map",
            len: self.n,
            output_len: self.n,
            num_inputs: 2,
            input_ciphertexts: self.num_rows(),
            output_ciphertexts: self.num_rows(),
            levels: self.rows.info().levels,
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
    /// The row map's keys: the products' transforms need none.
    fn galois_steps(&self) -> GaloisSteps {
        self.rows.galois_steps()
    }
    /// `a` or `b` (exactly `n` values, the evaluations on `H` in natural order) in `c`
    /// ciphertexts: ciphertext `k` holds the row map's first stage applied to the values of
    /// the component `A_k` on the subgroup of size `R`
    /// ([`component_values`](Self::component_values)), laid out as its second stage takes
    /// its input.
    fn encode(&self, x: &[F]) -> Result<Vec<Vec<F>>> {
        let values = self.component_values(x)?;
        values
            .par_iter()
            .map(|v| {
                let mut encoded = self.rows.encode(v)?;
                encoded
                    .pop()
                    .ok_or_else(|| Error::Internal("the row map encoded nothing".into()))
            })
            .collect()
    }
    /// The `n` coefficients of `h` from the `c` results: coefficient `R + j` of result `i`,
    /// divided by `2c`, is `h`'s entry `i + c j`.
    fn decode(&self, h: &[Vec<F>]) -> Result<Vec<F>> {
        let (c, row) = (self.num_rows(), self.row_len());
        if h.len() != c {
            return Err(Error::wrong_length(
                "the witness map's result ciphertexts",
                c,
                h.len(),
            ));
        }
        let scale = F::from(2 * c as u64).inverse().ok_or_else(|| {
            Error::InvalidArgument("the field's characteristic divides 2c".into())
        })?;
        let mut out = vec![F::zero(); self.n];
        for (i, coeffs) in h.iter().enumerate() {
            crate::transform::check_poly_len(coeffs, 2 * row)?;
            for (j, v) in coeffs[row..2 * row].iter().enumerate() {
                out[i + c * j] = *v * scale;
            }
        }
        Ok(out)
    }
    /// The encrypted quotient (`c` ciphertexts) from the encrypted `a` and `b` (`c`
    /// ciphertexts each, `a`'s first, under one public key): every component's row maps, one
    /// component at a time, then the products.
    fn compute(&self, gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>> {
        let c = self.num_rows();
        if x.len() != 2 * c {
            return Err(Error::wrong_length(
                "the witness map's input ciphertexts (a's, then b's)",
                2 * c,
                x.len(),
            ));
        }
        self.run(
            gk,
            &|k| Ok((x[k].try_clone()?, x[c + k].try_clone()?)),
            report,
        )
    }
    /// Reads component `k` of `a` and of `b` (inputs `k` and `c + k`) when its row maps run,
    /// and drops them after: two inputs in memory at a time.
    fn apply_reading(
        &self,
        gk: Option<&GaloisKeys>,
        read: &(dyn Fn(usize) -> Result<Ctxt> + Sync),
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let info = self.info();
        let c = self.num_rows();
        let y = self.run(
            gk,
            &|k| {
                let (a_k, b_k) = (read(k)?, read(c + k)?);
                check_input(&self.ctx, &info, &a_k)?;
                check_input(&self.ctx, &info, &b_k)?;
                Ok((a_k, b_k))
            },
            progress,
        )?;
        ensure_budget(&self.ctx, &info, &y)?;
        Ok(y)
    }
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
