//! [`Quotient`]: a QAP prover's quotient polynomial (Groth16's witness map) on encrypted
//! evaluations.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Context, Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, Result, SecKey};
use rayon::prelude::*;

use crate::fft::{scaled_domain_matrix, subgroup};
use crate::{Direction, Fft, FftOptions, Progress};

/// The quotient polynomial `h = (A B - C) / Z_H` of a QAP-based SNARK prover, computed on
/// encrypted evaluations: all the FFT work of Groth16's witness map in one server call.
///
/// From the evaluations `a`, `b`, `c` of `A`, `B`, `C` on the subgroup `H` of size `n` (the
/// constraints' left, right and output values), ark-groth16's
/// `LibsnarkReduction::witness_map` computes
///
/// ```text
/// a' = coset.fft(H.ifft(a)), and b', c' likewise    (coset = g H, g = F::GENERATOR)
/// h  = coset.ifft((a' * b' - c') / Z_H(g))           (Z_H(x) = x^n - 1 is g^n - 1 on the coset)
/// ```
///
/// and [`apply`](Self::apply) does the same on ciphertexts: three coset changes
/// ([`Fft::coset_change`], circulant products that cost no encoding for `n <= N/2`), one
/// ciphertext product and subtraction in the slots, and one coset iFFT with `1/Z_H(g)` folded
/// into its matrix. That is three multiplicative levels, which for a 254-bit field takes the
/// ring `N = 65536` ([`quotient_context`](crate::quotient_context)). Decrypting gives exactly
/// ark-groth16's `n` coefficients (when the constraints hold, `h` has degree at most `n - 2`
/// and the last one is 0).
///
/// The product needs the relinearization key of the public key that encrypted `a`, `b` and
/// `c`, which every [`Ctxt`] carries; the rotations need the Galois keys of
/// [`galois_steps`](Self::galois_steps).
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use ark_ff::{FftField, Field};
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{FftOptions, Quotient};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// // A toy ring (insecure, for the example's speed); see he_fft::quotient_context.
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::quotient_ciphertext_bits(2048, 254, 8))
///     .allow_insecure(true).build()?;
/// let quotient = Quotient::<Fr>::new(&ctx, 8, &FftOptions::default())?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &quotient.galois_steps())?;
///
/// // Eight constraints a_i * b_i = c_i that hold.
/// let a: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
/// let b: Vec<Fr> = (11..=18u64).map(Fr::from).collect();
/// let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
/// let [ea, eb, ec] = [&a, &b, &c].map(|v| quotient.encrypt(&pk, v));
/// let h = quotient.apply(&gk, &ea?, &eb?, &ec?)?;
/// let h = quotient.decrypt(&sk, &h)?;
///
/// // The plain computation, as ark-groth16 does it.
/// let domain = Radix2EvaluationDomain::<Fr>::new(8).unwrap();
/// let coset = domain.get_coset(Fr::GENERATOR).unwrap();
/// let [pa, pb, pc] = [&a, &b, &c].map(|v| coset.fft(&domain.ifft(v)));
/// let z_inv = domain.evaluate_vanishing_polynomial(Fr::GENERATOR).inverse().unwrap();
/// let q: Vec<Fr> = (0..8).map(|i| (pa[i] * pb[i] - pc[i]) * z_inv).collect();
/// assert_eq!(h, coset.ifft(&q));
/// assert_eq!(h[7], Fr::from(0u64)); // deg h <= n - 2
/// # Ok(())
/// # }
/// ```
pub struct Quotient<F: FftField + PrimeField> {
    ctx: Context,
    coset: Radix2EvaluationDomain<F>,
    to_coset: Fft<F>,
    from_coset: Fft<F>,
}

impl<F: FftField + PrimeField> Quotient<F> {
    /// The quotient for constraints on the subgroup of size `n` (a power of two), evaluated
    /// on the coset `F::GENERATOR * H`, as ark-groth16 does.
    pub fn new(ctx: &Context, n: usize, options: &FftOptions) -> Result<Self> {
        Self::with_offset(ctx, n, F::GENERATOR, options)
    }

    /// The same on the coset `offset * H`, for a prover that uses another one. Fails for an
    /// offset in `H` (where `Z_H` vanishes, so nothing can be divided by it) and for 0.
    pub fn with_offset(ctx: &Context, n: usize, offset: F, options: &FftOptions) -> Result<Self> {
        let domain = subgroup::<F>(n)?;
        let z_inv = domain
            .evaluate_vanishing_polynomial(offset)
            .inverse()
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "the coset offset lies in the subgroup of size {n}: Z_H is 0 on that coset, \
                     so the quotient cannot be evaluated there"
                ))
            })?;
        let coset = domain
            .get_coset(offset)
            .ok_or_else(|| Error::InvalidArgument("the coset offset must not be 0".into()))?;
        let to_coset = Fft::coset_change(ctx, &domain, &coset, options)?;
        // The iFFT reads the product in the layout the coset changes leave it in.
        let mut back = options.clone();
        back.plan.half_rotated_input = to_coset.plan().output_layout().is_half_rotated();
        let from_coset = Fft::with_matrix(ctx, n, Some(Direction::Inverse), &back, || {
            scaled_domain_matrix(&coset, Direction::Inverse, z_inv)
        })?;
        if from_coset.plan().input_layout() != to_coset.plan().output_layout() {
            return Err(Error::Internal(
                "the coset iFFT's input layout differs from the coset changes' output".into(),
            ));
        }
        Ok(Quotient {
            ctx: ctx.clone(),
            coset,
            to_coset,
            from_coset,
        })
    }

    /// The size `n`: of the evaluation vectors and of the result.
    pub fn len(&self) -> usize {
        self.to_coset.len()
    }

    /// Always false (the smallest domain has size 1).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The coset the quotient is evaluated on.
    pub fn coset(&self) -> &Radix2EvaluationDomain<F> {
        &self.coset
    }

    /// The coset change each of `a`, `b`, `c` goes through (`H` to the coset).
    pub fn to_coset(&self) -> &Fft<F> {
        &self.to_coset
    }

    /// The final coset iFFT, with `1/Z_H(g)` folded into its matrix.
    pub fn from_coset(&self) -> &Fft<F> {
        &self.from_coset
    }

    /// The Galois keys [`apply`](Self::apply) needs (both transforms'), and no others.
    pub fn galois_steps(&self) -> GaloisSteps {
        self.to_coset
            .galois_steps()
            .union(&self.from_coset.galois_steps())
    }

    /// Encrypts one of `a`, `b`, `c` (exactly `n` values) in the layout `apply` takes.
    pub fn encrypt(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        self.to_coset.encrypt(pk, x)
    }

    /// [`encrypt`](Self::encrypt) with the secret key, straight to bytes for the server (see
    /// [`Fft::encrypt_to_bytes`]).
    pub fn encrypt_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        self.to_coset.encrypt_to_bytes(sk, x)
    }

    /// Decrypts the `n` coefficients of `h`.
    pub fn decrypt(&self, sk: &SecKey, h: &[Ctxt]) -> Result<Vec<F>> {
        self.from_coset.decrypt(sk, h)
    }

    /// The encrypted coefficients of `h` from the encrypted evaluations of `A`, `B`, `C` on
    /// `H` (each from [`encrypt`](Self::encrypt), all under one public key).
    ///
    /// Fails with [`Error::MissingKey`] before any work if `gk` lacks a key of
    /// [`galois_steps`](Self::galois_steps), and with [`Error::NoiseBudgetExhausted`] at the
    /// end on a context without room for three levels.
    pub fn apply(&self, gk: &GaloisKeys, a: &[Ctxt], b: &[Ctxt], c: &[Ctxt]) -> Result<Vec<Ctxt>> {
        self.apply_with_progress(gk, a, b, c, &|_, _| {})
    }

    /// [`apply`](Self::apply) with a progress callback `(giant steps done, total)` over the
    /// four transforms.
    pub fn apply_with_progress(
        &self,
        gk: &GaloisKeys,
        a: &[Ctxt],
        b: &[Ctxt],
        c: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        // Refuse a missing key or a wrong count before three transforms' work, not after.
        for f in [&self.to_coset, &self.from_coset] {
            f.plan().check_keys(gk)?;
        }
        let k = self.to_coset.plan().input_layout().num_ciphertexts();
        if [a, b, c].iter().any(|x| x.len() != k) {
            return Err(Error::InvalidLength(format!(
                "a quotient of size {} takes {k} ciphertext(s) for each of a, b, c, got {}, {}, {}",
                self.len(),
                a.len(),
                b.len(),
                c.len()
            )));
        }
        let per_change = self.to_coset.plan().progress_total();
        let total = self.progress_total();
        let change = |i: usize, x: &[Ctxt]| {
            self.to_coset
                .apply_with_progress(gk, x, &|d, _| progress(i * per_change + d, total))
        };
        let (a2, b2, c2) = (change(0, a)?, change(1, b)?, change(2, c)?);
        let q: Vec<Ctxt> = a2
            .into_par_iter()
            .zip(b2)
            .zip(c2)
            .map(|((mut x, y), z)| {
                x.mul_assign(&y)?;
                x.sub_assign(&z)?;
                Ok(x)
            })
            .collect::<Result<_>>()?;
        let base = 3 * per_change;
        let h = self
            .from_coset
            .apply_with_progress(gk, &q, &|d, _| progress(base + d, total))?;
        crate::params::ensure_budget(
            &h,
            &self.ctx,
            "the quotient",
            "three levels",
            crate::quotient_ciphertext_bits(
                self.ctx.ring_degree(),
                self.ctx.plaintext_bits(),
                self.len(),
            ),
            "quotient_context",
        )?;
        Ok(h)
    }

    /// Giant steps [`apply`](Self::apply) runs in all, what its progress callback counts to:
    /// the three coset changes' first, then the coset iFFT's.
    pub fn progress_total(&self) -> usize {
        3 * self.to_coset.plan().progress_total() + self.from_coset.plan().progress_total()
    }

    /// The context the quotient was built for.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
}

impl<F: FftField + PrimeField> fmt::Debug for Quotient<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Quotient")
            .field("n", &self.len())
            .field("to_coset", &self.to_coset)
            .field("from_coset", &self.from_coset)
            .finish()
    }
}
