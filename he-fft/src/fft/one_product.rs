//! [`OneProductFft`]: the exact encrypted FFT and inverse FFT of ark-poly's radix-2 domains
//! in one plaintext-matrix product.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::Context;

use crate::error::Result;
use crate::fft::matrices::{domain_matrix, subgroup};
use crate::transform::{DelegatingTransform, TransformInfo};
use crate::{Direction, EncryptedTransform, FftOptions, MatrixProduct, TransformPlan};

/// An exact encrypted FFT (or inverse FFT) of one size on one context in one
/// plaintext-matrix product: the fastest route up to `n = 2048`
/// ([`Fft`](crate::Fft) picks routes by size).
///
/// [`new`](Self::new) transforms on the subgroup of size `n`, [`on_domain`](Self::on_domain)
/// on any radix-2 domain, cosets included (the coset FFTs of a prover's quotient
/// computation). Decrypting gives ark-poly's result exactly. The route is the BSGS diagonal
/// method at one multiplicative level (see [`TransformPlan`]); the calls are those of
/// [`EncryptedTransform`].
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{Direction, EncryptedTransform, FftOptions, OneProductFft};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// // A toy ring (insecure, for the example's speed); OneProductFft::secure_context sizes real ones.
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::OneProductFft::<Fr>::ciphertext_bits(2048, 16))
///     .allow_insecure(true).build()?;
/// let fft = OneProductFft::<Fr>::new(&ctx, 16, Direction::Forward, &FftOptions::default())?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
///
/// let x: Vec<Fr> = (0..16u64).map(Fr::from).collect();
/// let y = fft.apply(&gk, &fft.encrypt(&pk, &x)?)?;
/// let expected = Radix2EvaluationDomain::<Fr>::new(16).unwrap().fft(&x);
/// assert_eq!(fft.decrypt(&sk, &y)?, expected);
/// # Ok(())
/// # }
/// ```
pub struct OneProductFft<F: FftField + PrimeField> {
    direction: Direction,
    product: MatrixProduct<F>,
}

impl<F: FftField + PrimeField> OneProductFft<F> {
    /// Plans and encodes the size-`n` transform (`n` a power of two) on `ctx`.
    pub fn new(
        ctx: &Context,
        n: usize,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        Self::on_domain(ctx, &subgroup(n)?, direction, options)
    }

    /// The transform on `domain`, which may be a coset: decrypting gives `domain.fft(x)`
    /// (forward) or `domain.ifft(x)` (inverse) exactly, offset included.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use ark_ff::FftField;
    /// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
    /// use he_fft::{Direction, EncryptedTransform, FftOptions, OneProductFft};
    /// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
    ///
    /// # fn main() -> Result<(), he_fft::Error> {
    /// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
    ///     .ciphertext_bits(he_fft::OneProductFft::<Fr>::ciphertext_bits(2048, 8))
    ///     .allow_insecure(true).build()?; // toy size, insecure
    /// // The coset ark-groth16 evaluates its quotient on.
    /// let coset = Radix2EvaluationDomain::<Fr>::new(8).unwrap().get_coset(Fr::GENERATOR).unwrap();
    /// let fft = OneProductFft::on_domain(&ctx, &coset, Direction::Forward, &FftOptions::default())?;
    /// let sk = SecKey::generate(&ctx)?;
    /// let pk = PubKey::generate(&sk)?;
    /// let gk = GaloisKeys::generate(&sk, &fft.galois_steps())?;
    ///
    /// let x: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
    /// let y = fft.apply(&gk, &fft.encrypt(&pk, &x)?)?;
    /// assert_eq!(fft.decrypt(&sk, &y)?, coset.fft(&x));
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_domain(
        ctx: &Context,
        domain: &Radix2EvaluationDomain<F>,
        direction: Direction,
        options: &FftOptions,
    ) -> Result<Self> {
        let n = domain.size();
        let product = MatrixProduct::with_matrix(ctx, n, (n, n), options, || {
            domain_matrix(domain, direction)
        })?;
        Ok(OneProductFft { direction, product })
    }

    /// Forward or inverse.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The BSGS plan (layout, steps, levels, rotations).
    pub fn plan(&self) -> &TransformPlan {
        self.product.plan()
    }

    /// The encoded diagonals.
    pub fn encoded(&self) -> &crate::EncodedTransform<F> {
        self.product.encoded()
    }
}

/// Sizing: the modulus and the secure context of a one-product FFT.
impl<F: FftField + PrimeField> OneProductFft<F> {
    /// Ciphertext-modulus bits for a one-product FFT of size `n` on the ring `ring_degree`:
    /// one level, as any [`MatrixProduct`] ([`MatrixProduct::ciphertext_bits`]).
    pub fn ciphertext_bits(ring_degree: usize, n: usize) -> u32 {
        crate::params::one_level_bits(ring_degree, F::MODULUS_BIT_SIZE, n)
    }

    /// A >= 128-bit secure context for one-product FFTs of size `n`
    /// ([`MatrixProduct::secure_context`]).
    ///
    /// ```
    /// use he_fft::OneProductFft;
    /// assert_eq!(OneProductFft::<ark_bn254::Fr>::secure_context(1024)?.ring_degree(), 32768);
    /// # Ok::<(), he_fft::Error>(())
    /// ```
    pub fn secure_context(n: usize) -> Result<Context> {
        crate::params::one_level_context::<F>(n)
    }
}

impl<F: FftField + PrimeField> DelegatingTransform for OneProductFft<F> {
    type Field = F;
    fn inner(&self) -> &dyn EncryptedTransform<F> {
        &self.product
    }
    fn describe(&self, inner: TransformInfo) -> TransformInfo {
        TransformInfo {
            name: "the one-product FFT",
            context_helper: "OneProductFft::secure_context",
            ..inner
        }
    }
}

impl<F: FftField + PrimeField> fmt::Debug for OneProductFft<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OneProductFft")
            .field("direction", &self.direction)
            .field("product", &self.product)
            .finish()
    }
}
