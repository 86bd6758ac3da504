//! A plaintext matrix as bytes, for a matrix-product request: its entries row by row, each
//! in ark-serialize's compressed form (32 bytes for BN254's `Fr`). The shape is the
//! request's (`rows=`, `columns=`), so the length is known before anything is read.

use ark_ff::{FftField, PrimeField};

use crate::error::{Error, Result};
use crate::Matrix;

/// The most entries a shipped matrix may have: `2^24` (512 MiB of BN254 entries, a square
/// matrix of side 4096). Larger structured matrices (DFTs, circulants) have routes of their
/// own.
pub const MAX_MATRIX_ENTRIES: usize = 1 << 24;

/// Bytes of one entry of `F`.
fn entry_len<F: PrimeField>() -> usize {
    F::zero().compressed_size()
}

/// The length of a `rows x columns` matrix's bytes.
pub fn matrix_len<F: PrimeField>(rows: usize, columns: usize) -> u64 {
    (rows as u64)
        .saturating_mul(columns as u64)
        .saturating_mul(entry_len::<F>() as u64)
}

/// `matrix`'s bytes: every entry of its shape, row by row.
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::protocol::{matrix_bytes, matrix_from_bytes};
/// use he_fft::Matrix;
///
/// let m = Matrix::from_rows(vec![[1u64, 2, 3].map(Fr::from).to_vec()])?;
/// let bytes = matrix_bytes(&m)?;
/// assert_eq!(bytes.len(), 3 * 32);
/// let back = matrix_from_bytes::<Fr>(&bytes, 1, 3)?;
/// assert_eq!(back.entry(0, 2), Some(Fr::from(3u64)));
/// # Ok::<(), he_fft::Error>(())
/// ```
pub fn matrix_bytes<F: FftField + PrimeField>(matrix: &Matrix<F>) -> Result<Vec<u8>> {
    let (rows, columns) = matrix.shape();
    if rows.saturating_mul(columns) > MAX_MATRIX_ENTRIES {
        return Err(Error::InvalidArgument(format!(
            "a {rows} x {columns} matrix has more than the {MAX_MATRIX_ENTRIES} entries a \
             request ships"
        )));
    }
    let mut bytes = Vec::with_capacity(matrix_len::<F>(rows, columns) as usize);
    for r in 0..rows {
        for c in 0..columns {
            let entry = matrix.entry(r, c).unwrap_or_else(F::zero);
            entry
                .serialize_compressed(&mut bytes)
                .map_err(|e| Error::Internal(format!("serializing a field element: {e}")))?;
        }
    }
    Ok(bytes)
}

/// The `rows x columns` matrix in `bytes` ([`matrix_bytes`]'s form): a
/// [`Error::BadRequest`] for a wrong length (checked before anything is allocated) or an
/// entry that is not a canonical element of `F`.
pub fn matrix_from_bytes<F: FftField + PrimeField>(
    bytes: &[u8],
    rows: usize,
    columns: usize,
) -> Result<Matrix<F>> {
    if rows == 0 || columns == 0 || rows.saturating_mul(columns) > MAX_MATRIX_ENTRIES {
        return Err(Error::BadRequest(format!(
            "a matrix has from 1 to {MAX_MATRIX_ENTRIES} entries, got {rows} x {columns}"
        )));
    }
    let expected = matrix_len::<F>(rows, columns);
    if bytes.len() as u64 != expected {
        return Err(Error::BadRequest(format!(
            "a {rows} x {columns} matrix takes {expected} bytes, got {}",
            bytes.len()
        )));
    }
    let each = entry_len::<F>();
    let entries = bytes
        .chunks_exact(each)
        .enumerate()
        .map(|(i, chunk)| {
            F::deserialize_compressed(chunk).map_err(|e| {
                Error::BadRequest(format!(
                    "the matrix's entry ({}, {}) is not an element of the field: {e}",
                    i / columns,
                    i % columns
                ))
            })
        })
        .collect::<Result<Vec<F>>>()?;
    Matrix::from_row_major(rows, columns, entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn a_matrix_round_trips_and_bad_bytes_say_why() {
        let rows: Vec<Vec<Fr>> = (0..3u64)
            .map(|r| (0..5u64).map(|c| Fr::from(10 * r + c)).collect())
            .collect();
        let m = Matrix::from_rows(rows.clone()).unwrap();
        let bytes = matrix_bytes(&m).unwrap();
        assert_eq!(bytes.len() as u64, matrix_len::<Fr>(3, 5));
        let back = matrix_from_bytes::<Fr>(&bytes, 3, 5).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                assert_eq!(back.entry(r, c), Some(*v));
            }
        }
        let message = |r: Result<Matrix<Fr>>| match r {
            Err(Error::BadRequest(m)) => m,
            other => panic!("expected a refusal, got {:?}", other.map(|m| m.shape())),
        };
        assert!(message(matrix_from_bytes::<Fr>(&bytes[1..], 3, 5)).contains("takes 480 bytes"));
        // The bytes carry no shape: read as 5 x 3, the fourth entry starts the second row.
        let reshaped = matrix_from_bytes::<Fr>(&bytes, 5, 3).unwrap();
        assert_eq!(reshaped.entry(1, 0), Some(Fr::from(3u64)));
        assert!(message(matrix_from_bytes::<Fr>(&bytes, 0, 5)).contains("from 1"));
        // The modulus itself is not a canonical element.
        let mut foreign = bytes.clone();
        foreign[32..64].copy_from_slice(&[0xff; 32]);
        assert!(message(matrix_from_bytes::<Fr>(&foreign, 3, 5)).contains("entry (0, 1)"));
    }
}
