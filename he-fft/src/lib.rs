//! Exact encrypted FFT and inverse FFT over BN254 (or any FFT-friendly prime field), and the
//! general machinery under it: baby-step giant-step (BSGS) plaintext-matrix times
//! encrypted-vector products on big-plaintext BGV ciphertexts ([`helib_rs`]).
//!
//! A transform has three parts, so the expensive and the secret-dependent work can sit
//! where they belong:
//! 1. [`TransformPlan`]: the shape (layout, baby/giant steps, levels) and exactly which
//!    Galois keys execution needs ([`TransformPlan::galois_steps`]), so the key owner
//!    generates those and no others.
//! 2. [`EncodedTransform`]: the matrix's diagonals in the engine's form, data-independent,
//!    built once and reused (cached in memory or encoded on demand, see [`DiagonalCache`]).
//! 3. [`TransformPlan::execute`]: the server-side work on ciphertexts, rayon-parallel.
//!
//! Every transform built on them implements one trait, [`EncryptedTransform`] (`info`,
//! `galois_steps`, `encrypt`, `apply`, `decrypt`), with the checks in one place:
//! - [`MatrixProduct`]: any plaintext matrix ([`Matrix`], any shape up to the slot count)
//!   times an encrypted vector, in one product.
//! - [`Fft`]: ark-poly's radix-2 DFT on the fastest [`Route`] for its size
//!   ([`Fft::fastest`]), or the route of your choice: decrypting its output gives exactly
//!   `Radix2EvaluationDomain::fft` (or `ifft`) of the input, on the subgroup or on a coset.
//!   The routes are types of their own too:
//! - [`OneProductFft`]: the FFT as one product of `n` diagonals.
//! - [`CosetChange`]: evaluations on one coset to evaluations on another in one product; its
//!   matrix is circulant, the cheap case below.
//! - [`TwoStageFft`] splits the FFT into two products with sparse matrices (one
//!   radix-`sqrt(n)` Cooley-Tukey step): two levels instead of one, and about `sqrt(n)/2`
//!   full-size diagonals plus `2 sqrt(n)` short ones instead of `n/2` full-size ones, the
//!   fast route for large `n` (3.4 s instead of 146 s at `n = 32768` on two cores).
//! - [`FourStepFft`] goes past one ciphertext: a vector of `c` slot rows goes through
//!   `c^2 / 2` slot-wise products across the ciphertexts, then a two-stage FFT of each row
//!   (`n = 2^20` in 45 s on two cores).
//! - [`WitnessMap`] and [`FourStepWitnessMap`] compute a prover's whole quotient (Groth16's
//!   witness map: `h = (A B - C) / Z_H` from the evaluations of `A`, `B`, `C`) through the
//!   plaintext ring's own product ([`witness_map_for`] picks one by size, and
//!   [`EncryptedWitnessMap`] is their common interface).
//!
//! # Layouts of one product
//!
//! For ring degree `N` (slots: two rows of `N/2`), size `n`, row period `d`, one
//! [`TransformPlan`] lays the vector out as follows:
//! - `n <= N/2`: the vector is replicated along both rows; one ciphertext; `d = n`.
//!   Diagonals repeat with period `d`, so they encode as sparse polynomials with `2d`
//!   coefficients ([`helib_rs::PeriodicEncoder`]): a size-`2d` transform each, `2d` words
//!   per prime stored. Each row does half of the `n` diagonals, so `n/2` are encoded and
//!   multiplied, and one row swap adds the halves.
//! - `n = N`: row 0 holds the first half, row 1 the second; the matrix acts as 2x2 blocks,
//!   the off-diagonal blocks on the row-swapped ciphertext; `d = N/2`.
//! - `n > N`: `n/N` ciphertexts of the `n = N` form; a block matrix of `(n/N)^2` such 2x2
//!   block products.
//!
//! A circulant matrix ([`Matrix::circulant`]) on a replicated vector has diagonals that are
//! constant on each slot row: they encode with period 1 (4 words per prime, no transform).
//!
//! Every plan is one plaintext-multiplication level: `y = sum_g rot(g n1, sum_b diag'(g,b) *
//! rot(b, x))` ([`TwoStageFft`] runs two of them; [`FourStepFft`] runs its products across
//! ciphertexts, then two of them on each ciphertext's rows).
//!
//! # Example
//!
//! ```
//! use ark_bn254::Fr;
//! use he_fft::{Matrix, TransformPlan, EncodedTransform, DiagonalCache, PlanOptions};
//! use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
//!
//! # fn main() -> Result<(), he_fft::Error> {
//! let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
//!     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size, insecure
//! // y = M x for M = [[1, 2], [3, 4]]
//! let m = Matrix::from_rows(vec![vec![Fr::from(1u64), Fr::from(2u64)],
//!                                vec![Fr::from(3u64), Fr::from(4u64)]])?;
//! let plan = TransformPlan::new(&ctx, 2, &PlanOptions::default())?;
//! let encoded = EncodedTransform::new(&ctx, &plan, m, DiagonalCache::Always)?;
//!
//! let sk = SecKey::generate(&ctx)?;
//! let pk = PubKey::generate(&sk)?;
//! let gk = GaloisKeys::generate(&sk, &plan.galois_steps())?;
//! let x = plan.input_layout().encrypt(&ctx, &pk, &[Fr::from(5u64), Fr::from(6u64)])?;
//! let y = plan.execute(&encoded, &gk, &x)?;
//! let y: Vec<Fr> = plan.output_layout().decrypt(&ctx, &sk, &y)?;
//! assert_eq!(y, vec![Fr::from(17u64), Fr::from(39u64)]);
//! # Ok(())
//! # }
//! ```

mod bsgs;
pub mod check;
mod error;
mod fft;
mod params;
pub mod protocol;
mod transform;
mod witness_map;

pub use bsgs::encoded::{DiagonalCache, EncodedTransform};
pub use bsgs::layout::Layout;
pub use bsgs::matrix::Matrix;
pub use bsgs::matrix_product::MatrixProduct;
pub use bsgs::options::FftOptions;
pub use bsgs::plan::{PlanOptions, TransformPlan};
pub use error::{Error, Result};
pub use fft::coset_change::CosetChange;
pub use fft::four_step::{FirstStep, FirstStepInputs, FirstStepSum, FourStepFft};
pub use fft::matrices::{coset_change_matrix, dft_matrix, domain_matrix, Direction};
pub use fft::one_product::OneProductFft;
pub use fft::two_stage::{Transposed, TwoStageFft};
pub use fft::{Fft, Route, RouteTransform, MAX_FFT_SIZE};
pub use params::{witness_map_ciphertext_bits, witness_map_context, FFT_RING_DEGREE};
pub use transform::{
    required_keys, DelegatingTransform, EncryptedTransform, Progress, TransformInfo,
};
pub use witness_map::circom::circom_quotient;
pub use witness_map::client_assisted::ClientAssistedWitnessMap;
pub use witness_map::four_step::FourStepWitnessMap;
pub use witness_map::one_ciphertext::WitnessMap;
pub use witness_map::{witness_map_chains, witness_map_for, EncryptedWitnessMap};
