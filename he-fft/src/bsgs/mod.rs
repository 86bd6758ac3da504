//! The generic layer: baby-step giant-step products of a plaintext matrix with an encrypted
//! vector. A [`TransformPlan`](crate::TransformPlan) fixes the shape and the keys, an
//! [`EncodedTransform`](crate::EncodedTransform) holds the matrix's diagonals, execution runs
//! on ciphertexts, and [`MatrixProduct`](crate::MatrixProduct) packages the three as a
//! transform of its own. Nothing here knows about FFTs.

pub(crate) mod encoded;
pub(crate) mod execute;
pub(crate) mod key_levels;
pub(crate) mod layout;
pub(crate) mod matrix;
pub(crate) mod matrix_product;
pub(crate) mod options;
pub(crate) mod plan;
