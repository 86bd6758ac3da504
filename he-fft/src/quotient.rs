//! [`Quotient`]: a QAP prover's quotient polynomial (Groth16's witness map) on encrypted
//! evaluations.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Context, Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, Result, SecKey};
use rayon::prelude::*;

use crate::fft::{scaled_domain_matrix, subgroup};
use crate::{CosetChange, Direction, EncryptedTransform, FftOptions, MatrixProduct, Progress};

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
/// and [`apply`](EncryptedTransform::apply) does the same on ciphertexts (`a`, `b` and `c`'s
/// ciphertexts one after the other): three coset changes ([`CosetChange`], circulant products that cost no encoding for `n <= N/2`), one
/// ciphertext product and subtraction in the slots, and one coset iFFT with `1/Z_H(g)` folded
/// into its matrix. That is three multiplicative levels, which for a 254-bit field takes the
/// ring `N = 65536` ([`quotient_context`](crate::quotient_context)). Decrypting gives exactly
/// ark-groth16's `n` coefficients (when the constraints hold, `h` has degree at most `n - 2`
/// and the last one is 0).
///
/// The product needs the relinearization key of the public key that encrypted `a`, `b` and
/// `c`, which every [`Ctxt`] carries; the rotations need the Galois keys of
/// [`galois_steps`](EncryptedTransform::galois_steps).
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use ark_ff::{FftField, Field};
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{EncryptedTransform, FftOptions, Quotient};
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
/// let mut x = Vec::new();
/// for v in [&a, &b, &c] {
///     x.extend(quotient.encrypt(&pk, v)?);
/// }
/// let h = quotient.apply(&gk, &x)?;
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
    to_coset: CosetChange<F>,
    from_coset: MatrixProduct<F>,
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
        let to_coset = CosetChange::new(ctx, &domain, &coset, options)?;
        // The iFFT reads the product in the layout the coset changes leave it in.
        let mut back = options.clone();
        back.plan.half_rotated_input = to_coset.plan().output_layout().is_half_rotated();
        let from_coset = MatrixProduct::with_matrix(ctx, n, (n, n), &back, || {
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

    /// The coset the quotient is evaluated on.
    pub fn coset(&self) -> &Radix2EvaluationDomain<F> {
        &self.coset
    }

    /// The coset change each of `a`, `b`, `c` goes through (`H` to the coset).
    pub fn to_coset(&self) -> &CosetChange<F> {
        &self.to_coset
    }

    /// The final coset iFFT, with `1/Z_H(g)` folded into its matrix.
    pub fn from_coset(&self) -> &MatrixProduct<F> {
        &self.from_coset
    }
}

impl<F: FftField + PrimeField> EncryptedTransform<F> for Quotient<F> {
    /// The size `n`: of the evaluation vectors and of the result.
    fn len(&self) -> usize {
        self.to_coset.len()
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
    fn name(&self) -> &'static str {
        "the quotient"
    }
    /// 3: the coset changes, the product, the coset iFFT.
    fn levels(&self) -> u32 {
        3
    }
    fn ciphertext_bits(&self) -> u32 {
        crate::quotient_ciphertext_bits(
            self.ctx.ring_degree(),
            self.ctx.plaintext_bits(),
            self.len(),
        )
    }
    fn context_helper(&self) -> &'static str {
        "quotient_context"
    }
    /// Both transforms' keys.
    fn galois_steps(&self) -> GaloisSteps {
        self.to_coset
            .galois_steps()
            .union(&self.from_coset.galois_steps())
    }
    /// The three coset changes' giant steps first, then the coset iFFT's.
    fn progress_total(&self) -> usize {
        3 * self.to_coset.progress_total() + self.from_coset.progress_total()
    }
    fn cache_bytes(&self) -> u64 {
        self.to_coset.cache_bytes() + self.from_coset.cache_bytes()
    }
    /// `a`, `b` and `c`.
    fn num_inputs(&self) -> usize {
        3
    }
    fn num_input_ciphertexts(&self) -> usize {
        self.to_coset.num_input_ciphertexts()
    }
    /// Encrypts one of `a`, `b`, `c`.
    fn encrypt(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        self.to_coset.encrypt(pk, x)
    }
    fn encrypt_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        self.to_coset.encrypt_to_bytes(sk, x)
    }
    /// The `n` coefficients of `h`.
    fn decrypt(&self, sk: &SecKey, h: &[Ctxt]) -> Result<Vec<F>> {
        self.from_coset.decrypt(sk, h)
    }
    /// The encrypted coefficients of `h` from the encrypted evaluations of `A`, `B`, `C` on
    /// `H`, given in that order (each from [`encrypt`](EncryptedTransform::encrypt), all
    /// under one public key).
    fn compute(&self, gk: &GaloisKeys, x: &[Ctxt], progress: Progress<'_>) -> Result<Vec<Ctxt>> {
        // Refuse a missing key before three transforms' work, not after.
        self.to_coset.plan().check_keys(gk)?;
        self.from_coset.plan().check_keys(gk)?;
        let k = self.num_input_ciphertexts();
        if x.len() != 3 * k {
            return Err(Error::InvalidLength(format!(
                "a quotient of size {} takes {k} ciphertext(s) for each of a, b, c, got {} in all",
                self.len(),
                x.len()
            )));
        }
        let per_change = self.to_coset.progress_total();
        let total = self.progress_total();
        let change = |i: usize| {
            self.to_coset.compute(gk, &x[i * k..(i + 1) * k], &|d, _| {
                progress(i * per_change + d, total)
            })
        };
        let (a2, b2, c2) = (change(0)?, change(1)?, change(2)?);
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
        self.from_coset
            .compute(gk, &q, &|d, _| progress(base + d, total))
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
