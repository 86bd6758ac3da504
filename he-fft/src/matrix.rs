//! [`Matrix`]: a square plaintext matrix over `F`, given by entries, diagonals or a function.

use std::fmt;
use std::sync::Arc;

use helib_rs::{Error, Result};

type EntryFn<F> = Arc<dyn Fn(usize, usize) -> F + Send + Sync>;

/// A square `n x n` matrix over `F` (`n` a power of two) to apply to an encrypted vector.
///
/// Three ways to give it: dense rows, generalized diagonals (diagonal `t` holds the entries
/// `(r, (r + t) mod n)`, the form the diagonal method consumes), or a function of `(row,
/// column)` for structured matrices too large to store (a DFT of size 32768 would take 34 GB
/// dense).
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::Matrix;
///
/// let m = Matrix::from_rows(vec![
///     vec![Fr::from(1u64), Fr::from(2u64)],
///     vec![Fr::from(3u64), Fr::from(4u64)],
/// ]).unwrap();
/// assert_eq!(m.entry(1, 0), Some(Fr::from(3u64)));
/// assert_eq!(m.entry(2, 0), None); // outside the 2 x 2 matrix
/// let d = Matrix::from_diagonals(vec![
///     vec![Fr::from(1u64), Fr::from(4u64)], // main diagonal
///     vec![Fr::from(2u64), Fr::from(3u64)], // (0, 1) and (1, 0)
/// ]).unwrap();
/// assert_eq!(d.entry(1, 0), Some(Fr::from(3u64)));
/// ```
#[derive(Clone)]
pub struct Matrix<F> {
    dim: usize,
    entries: Entries<F>,
}

#[derive(Clone)]
enum Entries<F> {
    Rows(Arc<Vec<F>>),
    Diagonals(Arc<Vec<Vec<F>>>),
    Func(EntryFn<F>),
}

impl<F: Copy + Send + Sync + 'static> Matrix<F> {
    /// From `n` rows of `n` entries each.
    pub fn from_rows(rows: Vec<Vec<F>>) -> Result<Self> {
        let dim = check_dim(rows.len())?;
        check_lengths(&rows, dim, "row")?;
        Ok(Matrix {
            dim,
            entries: Entries::Rows(Arc::new(rows.concat())),
        })
    }

    /// From `n` generalized diagonals of `n` entries: `diagonals[t][r]` is entry
    /// `(r, (r + t) mod n)`.
    pub fn from_diagonals(diagonals: Vec<Vec<F>>) -> Result<Self> {
        let dim = check_dim(diagonals.len())?;
        check_lengths(&diagonals, dim, "diagonal")?;
        Ok(Matrix {
            dim,
            entries: Entries::Diagonals(Arc::new(diagonals)),
        })
    }

    /// From a function of `(row, column)`, called only for indices below `dim`.
    pub fn from_fn(
        dim: usize,
        entry: impl Fn(usize, usize) -> F + Send + Sync + 'static,
    ) -> Result<Self> {
        let dim = check_dim(dim)?;
        Ok(Matrix {
            dim,
            entries: Entries::Func(Arc::new(entry)),
        })
    }

    /// The dimension `n`.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Entry `(row, column)`, or `None` when either index is not below `n`.
    pub fn entry(&self, row: usize, column: usize) -> Option<F> {
        (row < self.dim && column < self.dim).then(|| self.at(row, column))
    }

    /// Entry `(row, column)` for indices the caller keeps below `n` (the encoder reduces
    /// them modulo the block size).
    pub(crate) fn at(&self, row: usize, column: usize) -> F {
        match &self.entries {
            Entries::Rows(e) => e[row * self.dim + column],
            Entries::Diagonals(d) => d[(column + self.dim - row) % self.dim][row],
            Entries::Func(f) => f(row, column),
        }
    }
}

impl<F> fmt::Debug for Matrix<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.entries {
            Entries::Rows(_) => "rows",
            Entries::Diagonals(_) => "diagonals",
            Entries::Func(_) => "function",
        };
        f.debug_struct("Matrix")
            .field("dim", &self.dim)
            .field("given_by", &kind)
            .finish()
    }
}

fn check_dim(dim: usize) -> Result<usize> {
    if dim == 0 || !dim.is_power_of_two() {
        return Err(Error::InvalidArgument(format!(
            "the matrix dimension must be a power of two (the slot layouts need it), got {dim}"
        )));
    }
    Ok(dim)
}

fn check_lengths<F>(vectors: &[Vec<F>], dim: usize, what: &str) -> Result<()> {
    match vectors.iter().position(|v| v.len() != dim) {
        Some(i) => Err(Error::InvalidLength(format!(
            "{what} {i} has {} entries, expected {dim}",
            vectors[i].len()
        ))),
        None => Ok(()),
    }
}
