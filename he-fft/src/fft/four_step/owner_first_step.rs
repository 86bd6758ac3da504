//! The four-step FFT's first step in the clear, for an owner who encrypts the data anyway
//! ([`FirstStep::Owner`]): the server is left with the row FFTs, one level fewer.

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rayon::prelude::*;

use super::FourStepFft;
use crate::error::{Error, Result};
use crate::fft::matrices::powers_of;
use crate::Direction;

/// Who runs a [`FourStepFft`]'s first step, the transform across slot rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FirstStep {
    /// The server, on ciphertexts: `c^2 / 2` slot-wise products and one level. Any
    /// ciphertexts in the natural layout serve as input, the outputs of other
    /// transforms among them.
    #[default]
    Server,
    /// The owner, on the values it encrypts: a size-`c` FFT down each of the `R` columns and
    /// the twiddles, about `(n/2) log2 c + 4n` field multiplications inside
    /// [`encode`](crate::EncryptedTransform::encode) (fewer than the encoding's own
    /// `n log2 N`). The server runs only the row FFTs, two levels, on a smaller modulus.
    /// The inputs must come from this transform's own `encode`/`encrypt`: ciphertexts of
    /// the natural order would give a wrong result. In memory they carry a layout tag of
    /// their own, which [`apply`](crate::EncryptedTransform::apply) checks; ciphertexts read
    /// back from bytes carry none, so a server cannot tell them apart.
    Owner,
}

impl<F: FftField + PrimeField> FourStepFft<F> {
    /// What the server's first step would leave in the rows, computed in the clear: row `k1`
    /// (values `k1 R .. (k1 + 1) R`) slot `r` holds
    /// `s a^k1 (b u^k1)^r sum_rho x[r + R rho] b^(R rho) (u^R)^(rho k1)`, the sum a DFT of size
    /// `c` down column `r` (`u^R` is the size-`c` subgroup's generator, or its inverse).
    pub(super) fn owner_first_step(&self, x: &[F]) -> Result<Vec<F>> {
        if x.len() != self.n {
            return Err(Error::wrong_length(
                "the four-step FFT's input",
                self.n,
                x.len(),
            ));
        }
        let (row, c) = (self.row_len(), self.num_rows());
        let across = Radix2EvaluationDomain::<F>::new(c)
            .ok_or_else(|| Error::Internal(format!("no subgroup of size {c}")))?;
        let column_root = self.root.pow([row as u64]);
        let expected = match self.direction {
            Direction::Forward => across.group_gen(),
            Direction::Inverse => across.group_gen_inv(),
        };
        if column_root != expected {
            return Err(Error::Internal(
                "the domain's generator is not the row subgroup's".into(),
            ));
        }
        // The inverse DFT of ark-poly divides by c, which the scale then need not.
        let dft_scale = match self.direction {
            Direction::Forward => F::one(),
            Direction::Inverse => F::from(c as u64),
        };
        let down_column = powers_of(self.input_factor.pow([row as u64]), F::one(), c);
        let per_output_row = powers_of(self.output_factor, self.scale * dft_scale, c);
        let per_slot = powers_of(self.input_factor, F::one(), row);
        let slot_roots = powers_of(self.root, F::one(), row);

        // Column-major first (column r at r c .. (r + 1) c), then transposed into rows.
        let mut columns = vec![F::zero(); self.n];
        columns.par_chunks_mut(c).enumerate().for_each_init(
            || Vec::with_capacity(c),
            |scratch, (r, column)| {
                scratch.clear();
                scratch.extend((0..c).map(|rho| x[r + row * rho] * down_column[rho]));
                match self.direction {
                    Direction::Forward => across.fft_in_place(scratch),
                    Direction::Inverse => across.ifft_in_place(scratch),
                }
                // (b u^k1)^r = b^r (u^r)^k1.
                let mut twiddle = per_slot[r];
                for ((out, v), factor) in column.iter_mut().zip(scratch.iter()).zip(&per_output_row)
                {
                    *out = *v * twiddle * factor;
                    twiddle *= slot_roots[r];
                }
            },
        );
        let mut rows = vec![F::zero(); self.n];
        rows.par_chunks_mut(row).enumerate().for_each(|(k1, out)| {
            for (r, v) in out.iter_mut().enumerate() {
                *v = columns[r * c + k1];
            }
        });
        Ok(rows)
    }
}
