//! [`circom_quotient`]: circom's (snarkjs's) form of Groth16's quotient, from the `h` every
//! witness map returns.

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};

use crate::error::{Error, Result};

/// The quotient in circom's form from `h`'s coefficients: the values of `A B - C` on the coset
/// `w H`, `w` a primitive `2n`-th root of unity, in the coset's natural order. The owner's step
/// after decrypting and checking `h`: one FFT of size `n` in the clear.
///
/// snarkjs's proving key expects these values (its H query holds the odd Lagrange basis
/// polynomials of the domain of size `2n`), not `h`'s coefficients. On `w H`, where
/// `X^n = -1`, `Z_H = X^n - 1` is the constant `-2`, so `A B - C = -2 h` there: the result is
/// `-2 h(w w_n^i)` for `i < n`, equal to what ark-circom's `CircomReduction` computes from the
/// same evaluations, since both take `C` as the interpolant of `a_i b_i` on `H` (as the
/// encrypted witness maps do).
///
/// Fails with [`Error::WrongLength`] unless `h` has `n = domain.size()` coefficients, and with
/// [`Error::InvalidArgument`] when the field has no `2n`-th root of unity or `domain` is a
/// coset.
///
/// ```
/// use ark_bn254::Fr;
/// use ark_ff::{FftField, Field};
/// use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// let domain = Radix2EvaluationDomain::<Fr>::new(4).unwrap();
/// let h = [Fr::from(1u64), Fr::from(2u64), Fr::from(0u64), Fr::from(0u64)]; // 1 + 2X
/// let values = he_fft::circom_quotient(&domain, &h)?;
/// let w = Fr::get_root_of_unity(8).unwrap();
/// let x = w * domain.element(3);
/// assert_eq!(values[3], -Fr::from(2u64) * (Fr::from(1u64) + Fr::from(2u64) * x));
/// # Ok(())
/// # }
/// ```
pub fn circom_quotient<F: FftField + PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    h: &[F],
) -> Result<Vec<F>> {
    let n = domain.size();
    if h.len() != n {
        return Err(Error::WrongLength {
            what: "the quotient's coefficients".into(),
            expected: n,
            got: h.len(),
        });
    }
    if domain.coset_offset() != F::one() {
        return Err(Error::InvalidArgument(
            "circom's quotient is defined on the subgroup H, not a coset of it".into(),
        ));
    }
    let w = n
        .checked_mul(2)
        .and_then(|two_n| F::get_root_of_unity(two_n as u64))
        .ok_or_else(|| {
            Error::InvalidArgument(format!("the field has no root of unity of order 2 * {n}"))
        })?;
    let coset = domain
        .get_coset(w)
        .ok_or_else(|| Error::InvalidArgument(format!("no coset of the {n}-point domain by w")))?;
    let minus_two = -F::from(2u64);
    let mut values = coset.fft(h);
    for v in &mut values {
        *v *= minus_two;
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn a_wrong_length_or_a_coset_is_refused() {
        let domain = Radix2EvaluationDomain::<Fr>::new(8).unwrap();
        let e = circom_quotient(&domain, &[Fr::from(1u64); 7]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::WrongLength {
                    expected: 8,
                    got: 7,
                    ..
                }
            ),
            "{e}"
        );
        let coset = domain.get_coset(Fr::from(7u64)).unwrap();
        let e = circom_quotient(&coset, &[Fr::from(1u64); 8]).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }

    #[test]
    fn the_values_are_minus_two_h_on_the_odd_roots() {
        let n = 16;
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let h: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * i + 3)).collect();
        let w = Radix2EvaluationDomain::<Fr>::new(2 * n).unwrap();
        let values = circom_quotient(&domain, &h).unwrap();
        for (i, v) in values.iter().enumerate() {
            let x = w.element(2 * i + 1);
            let hx = h.iter().rev().fold(Fr::from(0u64), |acc, c| acc * x + c);
            assert_eq!(*v, -Fr::from(2u64) * hx, "point {i}");
        }
    }
}
