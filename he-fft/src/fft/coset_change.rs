//! [`CosetChange`]: evaluations on one coset to evaluations on another, in one product.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::Context;

use crate::error::Result;
use crate::transform::{DelegatingTransform, TransformInfo};
use crate::{coset_change_matrix, EncryptedTransform, FftOptions, MatrixProduct, TransformPlan};

/// Evaluations on coset `from` to evaluations on coset `to` of the same size (either may be
/// the subgroup itself): decrypting gives `to.fft(&from.ifft(e))` exactly.
///
/// This is a prover's move from the evaluation domain to the coset its quotient is computed
/// on (an inverse FFT and a coset FFT) as one plaintext-matrix product. The matrix is
/// circulant ([`coset_change_matrix`]): for `n <= N/2` its diagonals are constants per slot
/// row, encoded in no time and held in 4 words per prime each (7 MiB for all of them at
/// `n = 32768`), so the server's work is the rotations and products alone. At `n > N/2` it
/// takes the general route and costs as much as an FFT;
/// [`secure_context`](Self::secure_context) picks a ring that avoids that.
///
/// ```
/// use ark_bn254::Fr;
/// use ark_ff::FftField;
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
/// use he_fft::{CosetChange, EncryptedTransform, FftOptions};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::OneProductFft::<Fr>::ciphertext_bits(2048, 8))
///     .allow_insecure(true).build()?; // toy size, insecure
/// let h = Radix2EvaluationDomain::<Fr>::new(8).unwrap();
/// let coset = h.get_coset(Fr::GENERATOR).unwrap();
/// let change = CosetChange::new(&ctx, &h, &coset, &FftOptions::default())?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &change.galois_steps())?;
///
/// let e: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
/// let y = change.apply(&gk, &change.encrypt(&pk, &e)?)?;
/// assert_eq!(change.decrypt(&sk, &y)?, coset.fft(&h.ifft(&e)));
/// # Ok(())
/// # }
/// ```
pub struct CosetChange<F: FftField + PrimeField> {
    from: Radix2EvaluationDomain<F>,
    to: Radix2EvaluationDomain<F>,
    product: MatrixProduct<F>,
}

impl<F: FftField + PrimeField> CosetChange<F> {
    /// Plans and encodes the change from `from` to `to` on `ctx`.
    pub fn new(
        ctx: &Context,
        from: &Radix2EvaluationDomain<F>,
        to: &Radix2EvaluationDomain<F>,
        options: &FftOptions,
    ) -> Result<Self> {
        let n = from.size();
        let product =
            MatrixProduct::with_matrix(ctx, n, (n, n), options, || coset_change_matrix(from, to))?;
        Ok(CosetChange {
            from: *from,
            to: *to,
            product,
        })
    }

    /// The domain the input's evaluations are on.
    pub fn from_domain(&self) -> &Radix2EvaluationDomain<F> {
        &self.from
    }

    /// The domain the output's evaluations are on.
    pub fn to_domain(&self) -> &Radix2EvaluationDomain<F> {
        &self.to
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

/// Sizing: the secure context of a coset change.
impl<F: FftField + PrimeField> CosetChange<F> {
    /// A >= 128-bit secure context for a coset change of size `n`: ring degree `2n` (at least
    /// [`FFT_RING_DEGREE`](crate::FFT_RING_DEGREE), at most 65536) so that up to `n = 32768`
    /// the vector is replicated and the circulant diagonals are constants per row, and the
    /// modulus of one level ([`MatrixProduct::ciphertext_bits`](crate::MatrixProduct::ciphertext_bits)).
    ///
    /// ```
    /// use he_fft::CosetChange;
    /// assert_eq!(CosetChange::<ark_bn254::Fr>::secure_context(32768)?.ring_degree(), 65536);
    /// # Ok::<(), he_fft::Error>(())
    /// ```
    pub fn secure_context(n: usize) -> Result<Context> {
        crate::params::coset_change_context::<F>(n)
    }
}

impl<F: FftField + PrimeField> DelegatingTransform for CosetChange<F> {
    type Field = F;
    fn inner(&self) -> &dyn EncryptedTransform<F> {
        &self.product
    }
    fn describe(&self, inner: TransformInfo) -> TransformInfo {
        TransformInfo {
            name: "the coset change",
            context_helper: "CosetChange::secure_context",
            ..inner
        }
    }
}

impl<F: FftField + PrimeField> fmt::Debug for CosetChange<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CosetChange")
            .field("n", &self.info().len)
            .field("product", &self.product)
            .finish()
    }
}
