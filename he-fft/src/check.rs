//! Checks the data owner runs on what an untrusted server returns, in `O(n)` field operations
//! instead of redoing the `O(n log n)` transform.
//!
//! Each check evaluates both sides of a polynomial identity at one point `r` drawn from the OS
//! CSPRNG after the result arrived. A wrong result makes the two sides different polynomials of
//! degree below `2n`, which agree at a random point with probability at most `2n / p`
//! (Schwartz-Zippel): about `2^-232` for BN254 at `n = 2^20`. The server never learns `r`, so it
//! cannot aim at it; run the check on the decrypted result, on the owner's side only, and do not
//! tell the server whether it passed (see the threat model in docs/security.md).
//!
//! The interpolation side uses the barycentric form on the coset `D = g H` (`g = 1` for the
//! subgroup itself): the polynomial with values `v_k` at `x_k = g w^k` is, at `r` outside `D`,
//!
//! ```text
//! V(r) = (r^n - g^n) / (n g^n) * sum_k v_k x_k / (r - x_k)
//! ```
//!
//! whose `n` inverses cost one field inversion and `3n` products together (batch inversion).
//!
//! ```
//! use ark_bn254::Fr;
//! use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
//! use he_fft::{check, Direction};
//!
//! let domain = Radix2EvaluationDomain::<Fr>::new(8).unwrap();
//! let x: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
//! let mut y = domain.fft(&x);
//! assert!(check::fft(&domain, Direction::Forward, &x, &y).is_ok());
//! y[3] += Fr::from(1u64); // what a cheating server might return
//! assert!(check::fft(&domain, Direction::Forward, &x, &y).is_err());
//! ```

use ark_ff::{batch_inversion, FftField, Field, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};

use crate::error::{Error, Result};
use crate::{Direction, Matrix};

/// Checks that `output` is the transform `direction` of `input` on `domain` (a subgroup or a
/// coset, as ark-poly's [`EvaluationDomain::fft`] / [`EvaluationDomain::ifft`] compute it).
///
/// Fails with [`Error::ResultRejected`] if it is not (with probability at least
/// `1 - 2n/p` for a wrong output), and with [`Error::WrongLength`] if either vector is not of
/// the domain's size.
pub fn fft<F: FftField + PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    direction: Direction,
    input: &[F],
    output: &[F],
) -> Result<()> {
    let n = domain.size();
    expect_len("input", input.len(), n)?;
    expect_len("output", output.len(), n)?;
    // Forward: the output holds the values of the input's polynomial; inverse: the reverse.
    let (coeffs, values) = match direction {
        Direction::Forward => (input, output),
        Direction::Inverse => (output, input),
    };
    let r = challenge(domain)?;
    let weights = Barycentric::new(domain, r);
    if horner(coeffs, r) == weights.interpolate(values) {
        Ok(())
    } else {
        Err(Error::ResultRejected(format!(
            "the {n}-point {} does not match its input",
            match direction {
                Direction::Forward => "FFT",
                Direction::Inverse => "inverse FFT",
            }
        )))
    }
}

/// Checks that `h` (coefficients, length `n`) is the quotient of a QAP prover's witness map:
/// `h(X) Z_H(X) = A(X) B(X) - C(X)`, where `A`, `B`, `C` take the values `a`, `b`, `c` on the
/// subgroup `domain = H` of size `n` and `Z_H = X^n - 1`.
///
/// This holds for one `h` exactly when the constraints hold (`a_i b_i = c_i`), so a failure
/// means a wrong `h` or an unsatisfied witness. Fails with [`Error::ResultRejected`] then, and
/// with [`Error::WrongLength`] for vectors not of length `n`.
pub fn quotient<F: FftField + PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    a: &[F],
    b: &[F],
    c: &[F],
    h: &[F],
) -> Result<()> {
    let n = domain.size();
    for (name, v) in [("a", a), ("b", b), ("c", c), ("h", h)] {
        expect_len(name, v.len(), n)?;
    }
    let r = challenge(domain)?;
    let weights = Barycentric::new(domain, r);
    let [ar, br, cr] = [a, b, c].map(|v| weights.interpolate(v));
    if horner(h, r) * domain.evaluate_vanishing_polynomial(r) == ar * br - cr {
        Ok(())
    } else {
        Err(Error::ResultRejected(format!(
            "h Z_H differs from A B - C for the {n}-point domain: a wrong quotient, or \
             constraints the witness does not satisfy"
        )))
    }
}

/// Checks that `output` (values on `coset`) and `input` (values on `subgroup`, of the same
/// size) are one polynomial's: what [`CosetChange`](crate::CosetChange) computes. Both
/// interpolants are evaluated at one random point, `O(n)`.
pub fn coset_change<F: FftField + PrimeField>(
    subgroup: &Radix2EvaluationDomain<F>,
    coset: &Radix2EvaluationDomain<F>,
    input: &[F],
    output: &[F],
) -> Result<()> {
    let n = subgroup.size();
    expect_len("input", input.len(), n)?;
    expect_len("output", output.len(), coset.size())?;
    let r = loop {
        let r = challenge(subgroup)?;
        if !coset.evaluate_vanishing_polynomial(r).is_zero() {
            break r;
        }
    };
    if Barycentric::new(subgroup, r).interpolate(input)
        == Barycentric::new(coset, r).interpolate(output)
    {
        Ok(())
    } else {
        Err(Error::ResultRejected(format!(
            "the {n} values on the coset are not the input's polynomial's"
        )))
    }
}

/// Freivalds' check of products by one matrix `M` (`m x n`): a secret random `r` of `m`
/// values drawn once, `u = M^T r` computed once (`O(mn)`, one plain product's work), then
/// each claimed `y = M x` checked as `r . y == u . x` in `O(m + n)`.
///
/// A wrong `y` passes with probability at most `1/p` per check, as long as the server does
/// not learn `r` or which checks passed (it never sees either: `r` stays here).
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{check::MatrixCheck, Matrix};
///
/// let m = Matrix::from_rows(vec![[1u64, 2].map(Fr::from).to_vec(), [3u64, 4].map(Fr::from).to_vec()])?;
/// let check = MatrixCheck::new(&m)?;
/// let x = [5u64, 6].map(Fr::from);
/// assert!(check.check(&x, &[17u64, 39].map(Fr::from)).is_ok());
/// assert!(check.check(&x, &[17u64, 40].map(Fr::from)).is_err());
/// # Ok::<(), he_fft::Error>(())
/// ```
pub struct MatrixCheck<F> {
    r: Vec<F>,
    u: Vec<F>,
}

impl<F: FftField + PrimeField> MatrixCheck<F> {
    /// Draws `r` from the OS CSPRNG and computes `u = M^T r`.
    pub fn new(matrix: &Matrix<F>) -> Result<Self> {
        let (rows, columns) = matrix.shape();
        let r = (0..rows)
            .map(|_| random_element())
            .collect::<Result<Vec<F>>>()?;
        let mut u = vec![F::zero(); columns];
        for (i, &ri) in r.iter().enumerate() {
            for (j, uj) in u.iter_mut().enumerate() {
                *uj += ri * matrix.entry(i, j).unwrap_or_default();
            }
        }
        Ok(MatrixCheck { r, u })
    }

    /// Checks that `y` is `M x`: [`Error::ResultRejected`] if not (with probability at least
    /// `1 - 1/p`), [`Error::WrongLength`] for vectors not of the matrix's shape.
    pub fn check(&self, x: &[F], y: &[F]) -> Result<()> {
        expect_len("input", x.len(), self.u.len())?;
        expect_len("output", y.len(), self.r.len())?;
        let dot = |a: &[F], b: &[F]| a.iter().zip(b).map(|(p, q)| *p * q).sum::<F>();
        if dot(&self.r, y) == dot(&self.u, x) {
            Ok(())
        } else {
            Err(Error::ResultRejected(format!(
                "the {} values are not the {} x {} matrix times the input",
                y.len(),
                self.r.len(),
                self.u.len()
            )))
        }
    }
}

fn expect_len(name: &str, len: usize, n: usize) -> Result<()> {
    if len == n {
        Ok(())
    } else {
        Err(Error::wrong_length(format!("{name}'s values"), n, len))
    }
}

/// A uniform point of the field outside `domain` (where the barycentric form is defined),
/// from the OS CSPRNG: 64 bytes reduced mod p, so the bias is below 2^-250.
fn challenge<F: FftField + PrimeField>(domain: &Radix2EvaluationDomain<F>) -> Result<F> {
    loop {
        let r = random_element()?;
        if !domain.evaluate_vanishing_polynomial(r).is_zero() {
            return Ok(r);
        }
    }
}

/// A uniform element of `F` from the OS CSPRNG (64 bytes reduced mod p).
fn random_element<F: PrimeField>() -> Result<F> {
    let mut bytes = [0u8; 64];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::Internal(format!("the OS random number generator failed: {e}")))?;
    Ok(F::from_le_bytes_mod_order(&bytes))
}

/// `sum_i coeffs[i] r^i`.
fn horner<F: Field>(coeffs: &[F], r: F) -> F {
    coeffs.iter().rev().fold(F::zero(), |acc, &c| acc * r + c)
}

/// The weights `1 / (r - x_k)` and the factor in front of the barycentric sum, at one `r`.
struct Barycentric<F: Field> {
    inverses: Vec<F>,
    /// `(r^n - g^n) / (n g^n)`.
    scale: F,
    r: F,
}

impl<F: FftField + PrimeField> Barycentric<F> {
    fn new(domain: &Radix2EvaluationDomain<F>, r: F) -> Self {
        let n = domain.size();
        let g = domain.coset_offset();
        let mut x = g;
        let mut inverses = Vec::with_capacity(n);
        for _ in 0..n {
            inverses.push(r - x);
            x *= domain.group_gen();
        }
        batch_inversion(&mut inverses);
        let g_n = domain.coset_offset_pow_size();
        let scale = domain.evaluate_vanishing_polynomial(r)
            * (domain.size_as_field_element() * g_n)
                .inverse()
                .unwrap_or_default();
        Barycentric { inverses, scale, r }
    }

    /// The interpolant of `values` (on the domain, in its order) at `r`, using
    /// `x_k / (r - x_k) = r / (r - x_k) - 1`.
    fn interpolate(&self, values: &[F]) -> F {
        let (weighted, plain) = values
            .iter()
            .zip(&self.inverses)
            .fold((F::zero(), F::zero()), |(w, s), (&v, &inv)| {
                (w + v * inv, s + v)
            });
        self.scale * (self.r * weighted - plain)
    }
}
