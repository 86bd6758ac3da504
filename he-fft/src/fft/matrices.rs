//! [`Direction`] and the matrices of ark-poly's radix-2 transforms: the DFT of a domain, on
//! the subgroup or a coset, and the change from one coset to another.

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};

use crate::error::{Error, Result};
use crate::Matrix;

/// Which transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `y_j = sum_k x_k w^(jk)`, as [`EvaluationDomain::fft`].
    Forward,
    /// `x_k = n^-1 sum_j y_j w^(-jk)`, as [`EvaluationDomain::ifft`].
    Inverse,
}

/// The `n x n` DFT matrix of ark-poly's `Radix2EvaluationDomain` of size `n` (`w` its
/// `group_gen`), or its inverse: entry `(r, c)` is `w^(rc)`, resp. `n^-1 w^(-rc)`.
///
/// Entries are looked up in a table of the `n` powers, so the matrix costs `n` field
/// elements whatever its size (allocated here: [`OneProductFft`](crate::OneProductFft)'s constructors build it only after
/// the plan has accepted `n`).
pub fn dft_matrix<F: FftField + PrimeField>(n: usize, direction: Direction) -> Result<Matrix<F>> {
    domain_matrix(&subgroup(n)?, direction)
}

/// The matrix of ark-poly's transform on `domain`, a subgroup `H = <w>` of size `n` or a
/// coset `g H` of one ([`EvaluationDomain::get_coset`]): forward is `domain.fft`
/// (coefficients to evaluations at `g w^r`; entry `(r, c)` is `g^c w^(rc)`), inverse is
/// `domain.ifft` (entry `(r, c)` is `n^-1 g^-r w^(-rc)`).
///
/// One table of `n` powers, and on a proper coset a second one of the offset's powers.
pub fn domain_matrix<F: FftField + PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    direction: Direction,
) -> Result<Matrix<F>> {
    scaled_domain_matrix(domain, direction, F::one())
}

/// [`domain_matrix`] times `factor` (folded into the table of powers, so it costs nothing).
pub(crate) fn scaled_domain_matrix<F: FftField + PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    direction: Direction,
    factor: F,
) -> Result<Matrix<F>> {
    let n = domain.size();
    let (root, scale, offset) = match direction {
        Direction::Forward => (domain.group_gen(), factor, domain.coset_offset()),
        Direction::Inverse => (
            domain.group_gen_inv(),
            domain.size_inv() * factor,
            domain.coset_offset_inv(),
        ),
    };
    let powers = powers_of(root, scale, n);
    // r c mod n: both are below n <= 2^32 on any field we can encode, so r * c fits a u64.
    let at = move |r: usize, c: usize| ((r as u64 * c as u64) % n as u64) as usize;
    // Encoding on demand evaluates all n^2 entries per run: no product by 1 on the subgroup.
    if offset.is_one() {
        return Matrix::from_fn(n, move |r, c| powers[at(r, c)]);
    }
    let offsets = powers_of(offset, F::one(), n);
    match direction {
        Direction::Forward => Matrix::from_fn(n, move |r, c| offsets[c] * powers[at(r, c)]),
        Direction::Inverse => Matrix::from_fn(n, move |r, c| offsets[r] * powers[at(r, c)]),
    }
}

/// The matrix taking a polynomial's evaluations on `from` to its evaluations on `to` (two
/// cosets of one subgroup of size `n`, either possibly the subgroup itself):
/// `to.fft(&from.ifft(e))` in one product.
///
/// It is circulant (entry `(r, c)` depends on `r - c` only), so its diagonals are constants:
/// on a replicated layout they cost nothing to encode ([`Matrix::circulant`]). Column:
/// `n^-1 sum_k s^k w^(kt)` with `s = g_to / g_from`.
pub fn coset_change_matrix<F: FftField + PrimeField>(
    from: &Radix2EvaluationDomain<F>,
    to: &Radix2EvaluationDomain<F>,
) -> Result<Matrix<F>> {
    let n = from.size();
    if to.size() != n || to.group_gen() != from.group_gen() {
        return Err(Error::InvalidArgument(format!(
            "a coset change needs two cosets of one subgroup, got sizes {n} and {}{}",
            to.size(),
            if to.size() == n {
                " with different generators"
            } else {
                ""
            }
        )));
    }
    let s = to.coset_offset() * from.coset_offset_inv();
    // from's own subgroup (offset 1), whose generator both share.
    let h = Radix2EvaluationDomain {
        offset: F::one(),
        offset_inv: F::one(),
        offset_pow_size: F::one(),
        ..*from
    };
    Matrix::circulant(h.fft(&powers_of(s, from.size_inv(), n)))
}

/// ark-poly's subgroup of size exactly `n`.
pub(crate) fn subgroup<F: FftField>(n: usize) -> Result<Radix2EvaluationDomain<F>> {
    Radix2EvaluationDomain::<F>::new(n)
        .filter(|d| d.size() == n)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "no radix-2 domain of size {n} in this field (needs a power of two up to 2^{})",
                F::TWO_ADICITY
            ))
        })
}

/// `scale * base^i` for `i < n`.
pub(crate) fn powers_of<F: FftField>(base: F, scale: F, n: usize) -> Vec<F> {
    let mut powers = Vec::with_capacity(n);
    let mut p = scale;
    for _ in 0..n {
        powers.push(p);
        p *= base;
    }
    powers
}
