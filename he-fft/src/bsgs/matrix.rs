//! [`Matrix`]: a plaintext matrix over `F` of any shape, given by entries, diagonals or a
//! function.

use std::fmt;
use std::sync::Arc;

use crate::error::{Error, Result};
use ark_ff::Zero;

type EntryFn<F> = Arc<dyn Fn(usize, usize) -> F + Send + Sync>;

/// An `m x n` matrix over `F` to apply to an encrypted vector of `n` values
/// ([`MatrixProduct`](crate::MatrixProduct)).
///
/// Any shape is taken: the transforms run on the square power-of-two
/// [`dim`](Self::dim) at least `max(m, n)`, padded with zeros (the input's missing entries
/// and the output's extra rows are zeros; the layouts need a power of two).
///
/// Four ways to give it: dense rows (any shape), generalized diagonals (diagonal `t` holds the entries
/// `(r, (r + t) mod n)`, the form the diagonal method consumes), a function of `(row,
/// column)` for structured matrices too large to store (a DFT of size 32768 would take 34 GB
/// dense), or the first column of a circulant matrix.
///
/// A circulant matrix (every diagonal constant; rows and diagonals that are found to be so
/// count too) is the cheap case: for a vector of at most `N/2` entries its diagonals encode
/// to constants per slot row, which cost no transform to encode and 4 words per prime to
/// keep ([`EncodedTransform`](crate::EncodedTransform)).
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
///
/// // A 2 x 3 matrix runs as a 4 x 4 one.
/// let r = Matrix::from_rows(vec![vec![Fr::from(1u64); 3], vec![Fr::from(2u64); 3]]).unwrap();
/// assert_eq!((r.shape(), r.dim()), ((2, 3), 4));
/// assert_eq!(r.entry(1, 2), Some(Fr::from(2u64)));
/// assert_eq!(r.entry(2, 0), None);
/// ```
#[derive(Clone)]
pub struct Matrix<F> {
    /// The padded (power-of-two) dimension the transforms run on.
    dim: usize,
    rows: usize,
    cols: usize,
    entries: Entries<F>,
    /// The least `q` with entry `(r + q, c + q)` equal to entry `(r, c)` everywhere, as far
    /// as known (`dim` when nothing is known, 1 for a circulant): on a replicated layout
    /// every diagonal then repeats with period `q` and encodes as a short sparse polynomial.
    shift_period: usize,
}

#[derive(Clone)]
enum Entries<F> {
    Rows(Arc<Vec<F>>),
    Diagonals(Arc<Vec<Vec<F>>>),
    Func(EntryFn<F>),
    /// The first column: entry `(r, c)` is `column[(r - c) mod n]`.
    Circulant(Arc<Vec<F>>),
}

impl<F: Copy + Zero + Send + Sync + 'static> Matrix<F> {
    /// From `m` rows of `n` entries each, any `m, n >= 1` (a square power-of-two matrix is
    /// kept as one column when it is circulant).
    pub fn from_rows(rows: Vec<Vec<F>>) -> Result<Self>
    where
        F: PartialEq,
    {
        let cols = rows.first().map_or(0, Vec::len);
        check_lengths(&rows, cols, "row")?;
        Self::from_row_major(rows.len(), cols, rows.concat())
    }

    /// The `rows x cols` matrix whose entries are `entries`, row after row (`rows * cols` of
    /// them), kept as they are: no copy.
    pub(crate) fn from_row_major(rows: usize, cols: usize, entries: Vec<F>) -> Result<Self>
    where
        F: PartialEq,
    {
        let dim = padded_dim(rows, cols)?;
        if entries.len() != rows.saturating_mul(cols) {
            return Err(Error::InvalidArgument(format!(
                "a {rows} x {cols} matrix has {} entries, got {}",
                rows.saturating_mul(cols),
                entries.len()
            )));
        }
        if rows == dim && cols == dim {
            let at = |r: usize, c: usize| entries[r * cols + c];
            let circulant =
                (0..dim).all(|r| (0..dim).all(|c| at(r, c) == at((r + dim - c) % dim, 0)));
            if circulant {
                return Self::circulant((0..dim).map(|r| at(r, 0)).collect());
            }
        }
        Ok(Matrix {
            dim,
            rows,
            cols,
            entries: Entries::Rows(Arc::new(entries)),
            shift_period: dim,
        })
    }

    /// From `n` generalized diagonals of `n` entries: `diagonals[t][r]` is entry
    /// `(r, (r + t) mod n)` (kept as one column when every diagonal is constant).
    pub fn from_diagonals(diagonals: Vec<Vec<F>>) -> Result<Self>
    where
        F: PartialEq,
    {
        let dim = check_dim(diagonals.len())?;
        check_lengths(&diagonals, dim, "diagonal")?;
        if diagonals.iter().all(|d| d.iter().all(|&v| v == d[0])) {
            // Diagonal t holds (r, r + t): column[(r - (r + t)) mod n] = column[-t mod n].
            return Self::circulant((0..dim).map(|r| diagonals[(dim - r) % dim][0]).collect());
        }
        Ok(Matrix {
            dim,
            rows: dim,
            cols: dim,
            entries: Entries::Diagonals(Arc::new(diagonals)),
            shift_period: dim,
        })
    }

    /// The square `dim x dim` matrix of a function of `(row, column)`, called only for
    /// indices below `dim`.
    pub fn from_fn(
        dim: usize,
        entry: impl Fn(usize, usize) -> F + Send + Sync + 'static,
    ) -> Result<Self> {
        Self::from_fn_with_shape(dim, dim, entry)
    }

    /// The `rows x cols` matrix of a function of `(row, column)`, called only for indices
    /// below `(rows, cols)`.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use he_fft::Matrix;
    ///
    /// // The 1 x 5 row of ones: the sum of 5 values.
    /// let sum = Matrix::from_fn_with_shape(1, 5, |_, _| Fr::from(1u64)).unwrap();
    /// assert_eq!((sum.shape(), sum.dim()), ((1, 5), 8));
    /// ```
    pub fn from_fn_with_shape(
        rows: usize,
        cols: usize,
        entry: impl Fn(usize, usize) -> F + Send + Sync + 'static,
    ) -> Result<Self> {
        let dim = padded_dim(rows, cols)?;
        Ok(Matrix {
            dim,
            rows,
            cols,
            entries: Entries::Func(Arc::new(entry)),
            shift_period: dim,
        })
    }

    /// The circulant matrix with first column `column` (`n` entries): entry `(r, c)` is
    /// `column[(r - c) mod n]`, so `M x` is the cyclic convolution of `column` and `x`.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use he_fft::Matrix;
    ///
    /// let m = Matrix::circulant([1u64, 2, 3, 4].map(Fr::from).to_vec()).unwrap();
    /// assert_eq!(m.entry(0, 1), Some(Fr::from(4u64)));
    /// assert_eq!(m.entry(2, 1), Some(Fr::from(2u64)));
    /// assert!(m.is_circulant());
    /// ```
    pub fn circulant(column: Vec<F>) -> Result<Self> {
        let dim = check_dim(column.len())?;
        Ok(Matrix {
            dim,
            rows: dim,
            cols: dim,
            entries: Entries::Circulant(Arc::new(column)),
            shift_period: 1,
        })
    }

    /// Whether every diagonal is constant (made by [`circulant`](Self::circulant), or rows
    /// or diagonals found to be circulant; a function is never inspected).
    pub fn is_circulant(&self) -> bool {
        matches!(self.entries, Entries::Circulant(_))
    }

    /// The same matrix, declared unchanged by shifting both indices by `period` (a power of
    /// two dividing `n`), as `I (x) A` is for `A` of size `period`. Not checked: the caller
    /// guarantees it.
    pub(crate) fn with_shift_period(mut self, period: usize) -> Self {
        debug_assert!(period.is_power_of_two() && self.dim % period == 0);
        self.shift_period = period.min(self.shift_period);
        self
    }

    pub(crate) fn shift_period(&self) -> usize {
        self.shift_period
    }

    /// The power-of-two dimension the transforms run on: the least at least both
    /// [`shape`](Self::shape)'s sides.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// `(rows, columns)` as given.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// Entry `(row, column)`, or `None` outside the matrix's shape.
    pub fn entry(&self, row: usize, column: usize) -> Option<F> {
        (row < self.rows && column < self.cols).then(|| self.at(row, column))
    }

    /// Entry `(row, column)` of the padded `dim x dim` matrix (zero outside the shape), for
    /// indices the caller keeps below `dim` (the encoder reduces them modulo the block size).
    pub(crate) fn at(&self, row: usize, column: usize) -> F {
        if row >= self.rows || column >= self.cols {
            return F::zero();
        }
        match &self.entries {
            Entries::Rows(e) => e[row * self.cols + column],
            Entries::Diagonals(d) => d[(column + self.dim - row) % self.dim][row],
            Entries::Func(f) => f(row, column),
            Entries::Circulant(c) => c[(row + self.dim - column) % self.dim],
        }
    }
}

impl<F> fmt::Debug for Matrix<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.entries {
            Entries::Rows(_) => "rows",
            Entries::Diagonals(_) => "diagonals",
            Entries::Func(_) => "function",
            Entries::Circulant(_) => "circulant column",
        };
        f.debug_struct("Matrix")
            .field("shape", &(self.rows, self.cols))
            .field("dim", &self.dim)
            .field("given_by", &kind)
            .finish()
    }
}

fn check_dim(dim: usize) -> Result<usize> {
    if dim == 0 || !dim.is_power_of_two() {
        return Err(Error::InvalidArgument(format!(
            "a matrix given by diagonals or a circulant column needs a power-of-two dimension \
             (the diagonals are cyclic in it), got {dim}; give other sizes by rows or with \
             Matrix::from_fn_with_shape"
        )));
    }
    Ok(dim)
}

/// The least power of two holding both sides; sides must be at least 1.
fn padded_dim(rows: usize, cols: usize) -> Result<usize> {
    if rows == 0 || cols == 0 {
        return Err(Error::InvalidArgument(format!(
            "a matrix needs at least one row and one column, got {rows} x {cols}"
        )));
    }
    rows.max(cols)
        .checked_next_power_of_two()
        .ok_or_else(|| Error::InvalidArgument(format!("a {rows} x {cols} matrix is too large")))
}

fn check_lengths<F>(vectors: &[Vec<F>], dim: usize, what: &str) -> Result<()> {
    match vectors.iter().position(|v| v.len() != dim) {
        Some(i) => Err(Error::wrong_length(
            format!("{what} {i}'s entries"),
            dim,
            vectors[i].len(),
        )),
        None => Ok(()),
    }
}
