//! [`ClientAssistedWitnessMap`]: the witness map with the owner's two inverse FFTs in the
//! clear and one ciphertext product on the server, no Galois keys at all.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps};

use crate::error::{Error, Result};
use crate::fft::matrices::subgroup;
use crate::transform::single;
use crate::{EncryptedTransform, Progress, TransformInfo};

/// Groth16's witness map with the client's help: the owner interpolates `a` and `b` itself
/// (two inverse FFTs of size `n` in the clear, `O(n log n)`) and encrypts the coefficients of
/// `A` and `B` as plaintext polynomials in `Y = X^(N / 2n)`; the server multiplies the two
/// ciphertexts once, which gives `A B` without wraparound (degree `2n - 2 < 2n`), and the
/// owner reads `h` off the top half of the decrypted coefficients, as
/// [`WitnessMap`](crate::WitnessMap) does.
///
/// Against the server-only [`WitnessMap`](crate::WitnessMap): no Galois keys (the upload is
/// the public key with its relinearization key and two ciphertexts), one level instead of three
/// (a smaller modulus: [`secure_context`](Self::secure_context)), and a
/// server step of one product; the price is the owner's two inverse FFTs, which are two of
/// the seven FFTs the plain witness map runs.
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{ClientAssistedWitnessMap, EncryptedTransform};
/// use helib_rs::{Context, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::ClientAssistedWitnessMap::<Fr>::ciphertext_bits(2048))
///     .allow_insecure(true).build()?; // toy size, insecure
/// let map = ClientAssistedWitnessMap::<Fr>::new(&ctx, 8)?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let a: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
/// let b: Vec<Fr> = (11..=18u64).map(Fr::from).collect();
/// let mut x = map.encrypt(&pk, &a)?;
/// x.extend(map.encrypt(&pk, &b)?);
/// let h = map.apply_with(None, &x, &|_, _| {})?; // the server's step: no Galois keys
/// let h = map.decrypt(&sk, &h)?;
/// assert_eq!(h.len(), 8);
/// # Ok(())
/// # }
/// ```
pub struct ClientAssistedWitnessMap<F: FftField + PrimeField> {
    ctx: Context,
    domain: Radix2EvaluationDomain<F>,
}

impl<F: FftField + PrimeField> ClientAssistedWitnessMap<F> {
    /// The map for the subgroup of size `n` (a power of two, `2 <= n <= N/2`).
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let half = ctx.ring_degree() / 2;
        if n < 2 || !n.is_power_of_two() || n > half {
            return Err(Error::InvalidArgument(format!(
                "this witness map takes a power of two from 2 to N/2 = {half} constraints' \
                 domain, got n = {n}"
            )));
        }
        Ok(ClientAssistedWitnessMap {
            ctx: ctx.clone(),
            domain: subgroup::<F>(n)?,
        })
    }

    /// The plaintext polynomial `A(Y)` of the evaluations `x` on the subgroup: the owner's
    /// inverse FFT, with coefficient `i` at `X^(k i)`, `k = N / 2n`.
    fn polynomial(&self, x: &[F]) -> Result<Vec<F>> {
        let n = self.domain.size();
        if x.len() != n {
            return Err(Error::wrong_length(
                "the witness map's evaluations",
                n,
                x.len(),
            ));
        }
        let k = self.ctx.ring_degree() / (2 * n);
        let mut poly = vec![F::zero(); k * (n - 1) + 1];
        for (i, c) in self.domain.ifft(x).into_iter().enumerate() {
            poly[k * i] = c;
        }
        Ok(poly)
    }
}

/// Sizing: the modulus and the secure context of the client-assisted witness map.
impl<F: FftField + PrimeField> ClientAssistedWitnessMap<F> {
    /// Ciphertext-modulus bits on the ring `ring_degree`: one product of two fresh
    /// ciphertexts (each about `p sqrt(N)` after switching down to the floor), key switching,
    /// and the margin; the size does not enter.
    pub fn ciphertext_bits(ring_degree: usize) -> u32 {
        crate::params::client_assisted_bits(ring_degree, F::MODULUS_BIT_SIZE)
    }

    /// A >= 128-bit secure context for the map of size `n`: the smallest ring of at least
    /// `2n` (and [`FFT_RING_DEGREE`](crate::FFT_RING_DEGREE)) whose security bound holds
    /// [`ciphertext_bits`](Self::ciphertext_bits). For BN254 that is `N = 32768` up to
    /// `n = 16384`.
    ///
    /// ```
    /// use he_fft::ClientAssistedWitnessMap;
    /// let ctx = ClientAssistedWitnessMap::<ark_bn254::Fr>::secure_context(4096)?;
    /// assert_eq!(ctx.ring_degree(), 32768);
    /// # Ok::<(), he_fft::Error>(())
    /// ```
    pub fn secure_context(n: usize) -> Result<Context> {
        crate::params::client_assisted_context::<F>(n)
    }
}

impl<F: FftField + PrimeField> EncryptedTransform<F> for ClientAssistedWitnessMap<F> {
    /// The domain size `n`; one level, the product.
    fn info(&self) -> TransformInfo {
        let n = self.domain.size();
        TransformInfo {
            name: "the client-assisted witness map",
            len: n,
            output_len: n,
            num_inputs: 2,
            input_ciphertexts: 1,
            output_ciphertexts: 1,
            levels: 1,
            ciphertext_bits: crate::params::client_assisted_bits(
                self.ctx.ring_degree(),
                self.ctx.plaintext_bits(),
            ),
            context_helper: "ClientAssistedWitnessMap::secure_context",
            progress_total: 1,
            layout_tag: 0,
        }
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
    /// None.
    fn galois_steps(&self) -> GaloisSteps {
        GaloisSteps::new()
    }
    /// `a` or `b` (the `n` evaluations on the subgroup): the owner's inverse FFT.
    fn encode(&self, x: &[F]) -> Result<Vec<Vec<F>>> {
        Ok(vec![self.polynomial(x)?])
    }
    /// The `n` coefficients of `h`.
    fn decode(&self, h: &[Vec<F>]) -> Result<Vec<F>> {
        crate::witness_map::one_ciphertext::quotient(
            &self.ctx,
            single(h, "the result")?,
            self.domain.size(),
        )
    }
    /// The product of the encrypted `A` and `B` (one ciphertext each, in that order); any
    /// keys given are not used.
    fn compute(&self, _gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>> {
        let [a, b] = x else {
            return Err(Error::wrong_length(
                "the client-assisted witness map's ciphertexts (a, b)",
                2,
                x.len(),
            ));
        };
        let mut h = a.checked_mul(b)?;
        h.mod_switch_to_natural_level()?;
        report(1, 1);
        Ok(vec![h])
    }
}

impl<F: FftField + PrimeField> fmt::Debug for ClientAssistedWitnessMap<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientAssistedWitnessMap")
            .field("n", &self.domain.size())
            .finish()
    }
}
