//! [`MatrixProduct`]: a plaintext matrix of any shape times an encrypted vector, in one
//! level.

use std::fmt;

use ark_ff::{FftField, PrimeField};
use helib_rs::{Context, Ctxt, GaloisKeys, GaloisSteps};

use crate::error::{Error, Result};
use crate::transform::required_keys;
use crate::{
    EncodedTransform, EncryptedTransform, FftOptions, Matrix, Progress, TransformInfo,
    TransformPlan,
};

/// `y = M x` for a plaintext `m x n` matrix `M` and an encrypted vector `x` of `n` values:
/// one BSGS product ([`TransformPlan`]) at one multiplicative level.
///
/// The matrix may have any shape up to the slot count: the product runs on the least square
/// power-of-two size holding it ([`Matrix::dim`]), [`encrypt`](EncryptedTransform::encrypt)
/// pads `x` with zeros, and [`decrypt`](EncryptedTransform::decrypt) returns the `m` values
/// of `y`. [`plan`](Self::plan) reports the cost (rotations, diagonals, keys).
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{EncryptedTransform, FftOptions, Matrix, MatrixProduct};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::OneProductFft::<Fr>::ciphertext_bits(2048, 4))
///     .allow_insecure(true).build()?; // toy size, insecure
/// // A 2 x 3 matrix: y = (x0 + 2 x1 + 3 x2, 4 x0 + 5 x1 + 6 x2).
/// let m = Matrix::from_rows(vec![
///     [1u64, 2, 3].map(Fr::from).to_vec(),
///     [4u64, 5, 6].map(Fr::from).to_vec(),
/// ])?;
/// let product = MatrixProduct::new(&ctx, m, &FftOptions::default())?;
/// let sk = SecKey::generate(&ctx)?;
/// let pk = PubKey::generate(&sk)?;
/// let gk = GaloisKeys::generate(&sk, &product.galois_steps())?;
/// let x = product.encrypt(&pk, &[1u64, 1, 2].map(Fr::from))?;
/// let y = product.decrypt(&sk, &product.apply(&gk, &x)?)?;
/// assert_eq!(y, [9u64, 21].map(Fr::from).to_vec());
/// # Ok(())
/// # }
/// ```
pub struct MatrixProduct<F: FftField + PrimeField> {
    ctx: Context,
    shape: (usize, usize),
    plan: TransformPlan,
    encoded: EncodedTransform<F>,
}

impl<F: FftField + PrimeField> MatrixProduct<F> {
    /// Plans and encodes the product by `matrix` on `ctx`.
    pub fn new(ctx: &Context, matrix: Matrix<F>, options: &FftOptions) -> Result<Self> {
        let (dim, shape) = (matrix.dim(), matrix.shape());
        Self::with_matrix(ctx, dim, shape, options, || Ok(matrix))
    }

    /// The plan first, so a size no layout takes is refused before the matrix is built.
    pub(crate) fn with_matrix(
        ctx: &Context,
        dim: usize,
        shape: (usize, usize),
        options: &FftOptions,
        matrix: impl FnOnce() -> Result<Matrix<F>>,
    ) -> Result<Self> {
        let plan = TransformPlan::new(ctx, dim, &options.plan)?;
        let matrix = matrix()?;
        if matrix.dim() != dim || matrix.shape() != shape {
            return Err(Error::Internal(
                "the matrix differs from the shape it was planned for".into(),
            ));
        }
        let encoded = EncodedTransform::new(ctx, &plan, matrix, options.cache)?;
        Ok(MatrixProduct {
            ctx: ctx.clone(),
            shape,
            plan,
            encoded,
        })
    }

    /// `(rows, columns)` of the matrix.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// The BSGS plan (layout, steps, rotations, diagonals).
    pub fn plan(&self) -> &TransformPlan {
        &self.plan
    }

    /// The encoded diagonals.
    pub fn encoded(&self) -> &EncodedTransform<F> {
        &self.encoded
    }
}

/// Sizing: the modulus and the secure context a product needs.
impl<F: FftField + PrimeField> MatrixProduct<F> {
    /// Ciphertext-modulus bits for a product of size `n` (the power-of-two size holding the
    /// matrix) on the ring `ring_degree`: a fresh ciphertext's noise (about `p N`), times a
    /// plaintext diagonal (canonical norm about `p sqrt(N)`), summed over up to `n` diagonals,
    /// plus key switching and a margin.
    ///
    /// ```
    /// use he_fft::MatrixProduct;
    /// assert_eq!(MatrixProduct::<ark_bn254::Fr>::ciphertext_bits(32768, 4096), 582);
    /// ```
    pub fn ciphertext_bits(ring_degree: usize, n: usize) -> u32 {
        crate::params::one_level_bits(ring_degree, F::MODULUS_BIT_SIZE, n)
    }

    /// A >= 128-bit secure context for products of size `n`: ring degree
    /// [`FFT_RING_DEGREE`](crate::FFT_RING_DEGREE), the modulus of
    /// [`ciphertext_bits`](Self::ciphertext_bits), and the fewest key-switching digits that
    /// keep `log2 QP` within the security bound.
    pub fn secure_context(n: usize) -> Result<Context> {
        crate::params::one_level_context::<F>(n)
    }
}

impl<F: FftField + PrimeField> EncryptedTransform<F> for MatrixProduct<F> {
    fn info(&self) -> TransformInfo {
        TransformInfo {
            name: "the matrix product",
            len: self.shape.1,
            output_len: self.shape.0,
            num_inputs: 1,
            input_ciphertexts: self.plan.input_layout().num_ciphertexts(),
            output_ciphertexts: self.plan.output_layout().num_ciphertexts(),
            levels: self.plan.levels(),
            ciphertext_bits: crate::params::one_level_bits(
                self.ctx.ring_degree(),
                self.ctx.plaintext_bits(),
                self.plan.input_layout().len(),
            ),
            context_helper: "MatrixProduct::secure_context",
            progress_total: self.plan.progress_total(),
            layout_tag: self.plan.input_tag(),
        }
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
    fn cache_bytes(&self) -> u64 {
        self.encoded.cache_bytes()
    }
    fn galois_steps(&self) -> GaloisSteps {
        self.plan.galois_steps()
    }
    fn encode(&self, x: &[F]) -> Result<Vec<Vec<F>>> {
        // The transform's encoder has the layout's row period: no second set of tables.
        self.plan
            .input_layout()
            .encode_with(self.encoded.encoder(), &self.padded(x)?)
    }
    fn decode(&self, polys: &[Vec<F>]) -> Result<Vec<F>> {
        let mut values: Vec<F> = self.plan.output_layout().decode(&self.ctx, polys)?;
        values.truncate(self.shape.0);
        Ok(values)
    }
    fn compute(&self, gk: Option<&GaloisKeys>, x: &[Ctxt], report: Progress) -> Result<Vec<Ctxt>> {
        let gk = required_keys(gk, self.info().name)?;
        self.plan
            .execute_with_progress(&self.encoded, gk, x, report)
    }
}

impl<F: FftField + PrimeField> MatrixProduct<F> {
    /// `x` (exactly `n` values) with zeros up to the plan's size.
    fn padded<'a>(&self, x: &'a [F]) -> Result<std::borrow::Cow<'a, [F]>> {
        let (n, dim) = (self.shape.1, self.plan.input_layout().len());
        if x.len() != n {
            return Err(Error::wrong_length(
                "the matrix product's input",
                n,
                x.len(),
            ));
        }
        if n == dim {
            return Ok(x.into());
        }
        let mut padded = x.to_vec();
        padded.resize(dim, F::zero());
        Ok(padded.into())
    }
}

impl<F: FftField + PrimeField> fmt::Debug for MatrixProduct<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MatrixProduct")
            .field("shape", &self.shape)
            .field("plan", &self.plan)
            .field("encoded", &self.encoded)
            .finish()
    }
}
