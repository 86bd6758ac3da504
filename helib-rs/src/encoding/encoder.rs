//! SIMD packing: [`BatchEncoder`] maps vectors of `N` field elements ("slots") to plaintext
//! polynomials of `F_p[X] / (X^N + 1)` and back. The slot layout is documented on the type
//! (it is public API: the engine's rotations rely on it).

use std::fmt;
use zeroize::Zeroizing;

use ark_ff::{FftField, PrimeField};

use crate::context::Context;
use crate::encoding::ntt::field::NegacyclicNtt;
use crate::encoding::ntt::mont::{Limbs, MontNtt};
use crate::error::{Error, Result};
use crate::field_limbs::{check_field, to_limbs};
use crate::keys::galois_elements::{rotation_element_of_degree, row_swap_element_of_degree};

/// BN254's scalar field without conversions: arkworks keeps an element `x` as `x R mod p`
/// (Montgomery form, `R = 2^256`), and the transforms are linear, so the encoder takes and
/// gives that form directly instead of converting every value (each conversion is a Montgomery
/// reduction or product, a third to two thirds of a butterfly's cost). Other fields take the
/// generic path.
#[cfg(feature = "bn254")]
mod montgomery {
    use std::any::TypeId;
    use std::marker::PhantomData;

    use ark_bn254::Fr;
    use ark_ff::PrimeField;

    use crate::limbs::Limbs;

    /// Values of a field type `F` that is BN254's scalar field: only [`as_bn254`] makes one,
    /// after checking the type.
    pub(super) struct Bn254<'a, F> {
        values: &'a [Fr],
        field: PhantomData<F>,
    }

    /// `values` seen as BN254 scalars, when `F` is that type.
    pub(super) fn as_bn254<F: PrimeField>(values: &[F]) -> Option<Bn254<'_, F>> {
        (TypeId::of::<F>() == TypeId::of::<Fr>()).then(|| Bn254 {
            // SAFETY: F is Fr, so this is the same slice under its own type.
            values: unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), values.len()) },
            field: PhantomData,
        })
    }

    impl<F> Bn254<'_, F> {
        /// The values' Montgomery-form limbs (each below `p`).
        pub(super) fn limbs(&self) -> impl Iterator<Item = Limbs> + '_ {
            self.values.iter().map(|x| x.0 .0)
        }

        /// Field elements `F` from Montgomery-form limbs below `p`.
        pub(super) fn collect(&self, limbs: impl Iterator<Item = Limbs>) -> Vec<F> {
            let out: Vec<Fr> = limbs
                .map(|l| Fr::new_unchecked(ark_ff::BigInt(l)))
                .collect();
            let mut out = std::mem::ManuallyDrop::new(out);
            // SAFETY: F is Fr (a `Bn254` exists): the same allocation under its own type.
            unsafe { Vec::from_raw_parts(out.as_mut_ptr().cast(), out.len(), out.capacity()) }
        }
    }
}

/// Packs `N` field elements ("slots") into one plaintext polynomial of `F_p[X] / (X^N + 1)`
/// and unpacks them, in `O(N log N)`, so that one ciphertext operation acts on all slots.
///
/// Needs `p = 1 mod 2N` (BN254's scalar field: `N <= 2^27`). All tables are computed once by
/// [`new`](Self::new); an encoder is immutable afterwards, so one instance can serve many
/// threads.
///
/// # Slot layout (a contract)
///
/// When `p = 1 mod 2N`, the field has a primitive `2N`-th root of unity `zeta` and
/// `X^N + 1 = prod (X - zeta^e)` over the `N` odd exponents `e mod 2N`. By the Chinese
/// remainder theorem a polynomial `m` is the same thing as its `N` values `m(zeta^e)`: these
/// are the slots. Sums and (negacyclic) products of polynomials are slotwise sums and
/// products.
///
/// - `zeta = g^(2^(TWO_ADICITY - log2(2N)))` with `g = F::TWO_ADIC_ROOT_OF_UNITY`
///   ([`root_of_unity`](Self::root_of_unity)).
/// - The slots form two rows of `N/2`. Row 0, column `j` holds `m(zeta^(3^j mod 2N))`; row 1,
///   column `j` holds `m(zeta^(-3^j mod 2N))`. The flat index is `row * N/2 + j`
///   ([`slot_exponents`](Self::slot_exponents)).
///
/// So the automorphism `X -> X^3` (Galois element 3) rotates both rows left by one (the new
/// slot `j` is the old slot `j + 1`, cyclically within its row), `X -> X^(3^k mod 2N)` rotates
/// left by `k`, and `X -> X^(2N - 1)` swaps the rows: see
/// [`galois_element_for_rotation`](Self::galois_element_for_rotation),
/// [`galois_element_row_swap`](Self::galois_element_row_swap) and the plaintext reference
/// [`apply_galois`](Self::apply_galois). The engine's rotations rely on this layout.
///
/// # Algorithm
///
/// [`decode`](Self::decode) is a negacyclic NTT over `F` (precomputed twiddles, in place,
/// bit-reversed output), then one precomputed gather from NTT order to slot order.
/// [`encode`](Self::encode) runs the same steps backwards, with the `1/N` folded into the
/// transform. A call allocates its output and one work buffer, nothing per element.
///
/// Fields below `2^254` held in four limbs (BN254's scalar field among them) take a fast path
/// that transforms plain integers with lazily reduced Montgomery arithmetic; any other field
/// uses arkworks' arithmetic. Both give the same results.
///
/// # Example
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::BatchEncoder;
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let enc = BatchEncoder::<Fr>::new(8)?;
/// let a: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
/// let coeffs = enc.encode(&a)?;       // 8 polynomial coefficients
/// assert_eq!(enc.decode(&coeffs), a); // 8 slot values again
///
/// // X -> X^3 rotates each row of 4 slots left by one.
/// let rotated = enc.apply_galois(&coeffs, enc.galois_element_for_rotation(1));
/// let expect: Vec<Fr> = [2, 3, 4, 1, 6, 7, 8, 5].map(Fr::from).to_vec();
/// assert_eq!(enc.decode(&rotated), expect);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct BatchEncoder<F: PrimeField> {
    ntt: Transform<F>,
    zeta: F,
    /// `slot_pos[s]`: where the NTT's bit-reversed output holds slot `s`.
    slot_pos: Vec<usize>,
}

/// The NTT behind an encoder: the integer fast path when `F` fits it, else field arithmetic.
#[derive(Clone)]
enum Transform<F: PrimeField> {
    Limbs(MontNtt),
    Field(NegacyclicNtt<F>),
}

impl<F: PrimeField> fmt::Debug for BatchEncoder<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchEncoder")
            .field("ring_degree", &self.ring_degree())
            .field("field_bits", &F::MODULUS_BIT_SIZE)
            .finish_non_exhaustive()
    }
}

impl<F: PrimeField> BatchEncoder<F> {
    /// An encoder for the ring `F[X] / (X^N + 1)`, `N = ring_degree`.
    ///
    /// Fails with [`Error::InvalidArgument`] unless `N` is a power of two and at least 2, and
    /// with [`Error::NoSlots`] unless `p = 1 mod 2N` (the field's two-adicity is at least
    /// `log2(2N)`). Checks come before any allocation, so an absurd `N` costs nothing.
    ///
    /// # Example
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Error};
    ///
    /// let enc = BatchEncoder::<Fr>::new(4096).unwrap();
    /// assert_eq!(enc.slot_count(), 4096);
    /// assert!(matches!(BatchEncoder::<Fr>::new(3000), Err(Error::InvalidArgument(_))));
    /// // BN254's p - 1 is divisible by 2^28, not 2^29.
    /// assert!(matches!(BatchEncoder::<Fr>::new(1 << 28), Err(Error::NoSlots(_))));
    /// ```
    pub fn new(ring_degree: usize) -> Result<Self> {
        let n = ring_degree;
        if n < 2 || !n.is_power_of_two() {
            return Err(Error::InvalidArgument(format!(
                "batch encoding needs a ring degree N that is a power of two and at least 2, \
                 got {n}"
            )));
        }
        // 2N = 2^log_m divides p - 1 iff log_m <= two-adicity.
        let log_m = n.trailing_zeros() + 1;
        if log_m > F::TWO_ADICITY {
            return Err(Error::NoSlots(format!(
                "N = {n} needs p = 1 mod 2N = 2^{log_m}, but p - 1 is divisible by 2^{} at most",
                F::TWO_ADICITY
            )));
        }
        let zeta = root_of_unity_2n::<F>(log_m);
        let ntt = match MontNtt::new(n, zeta) {
            Some(fast) => Transform::Limbs(fast),
            None => Transform::Field(NegacyclicNtt::new(n, zeta)),
        };

        // Slot s holds m(zeta^e) with e = 2k + 1, which the NTT leaves at bitrev(k).
        let bits = n.trailing_zeros();
        let bitrev = |k: usize| k.reverse_bits() >> (usize::BITS - bits);
        let slot_pos = slot_exponents_for(n)
            .map(|e| bitrev(((e - 1) / 2) as usize))
            .collect();
        Ok(BatchEncoder {
            ntt,
            zeta,
            slot_pos,
        })
    }

    /// An encoder for `ctx`'s ring, checking that `F` is its plaintext field.
    ///
    /// Fails with [`Error::FieldMismatch`] when `F`'s modulus is not the context's `p`, and
    /// with [`Error::NoSlots`] when the context has no slots (`p != 1 mod 2N`, see
    /// [`Context::slots_available`]).
    ///
    /// # Example
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context};
    ///
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let ctx = Context::builder()
    ///     .ring_degree(2048)
    ///     .plaintext_field::<Fr>()
    ///     .ciphertext_bits(600)
    ///     .allow_insecure(true) // a toy size; see Context::bn254 for real parameters
    ///     .build()?;
    /// let enc = BatchEncoder::<Fr>::for_context(&ctx)?;
    /// assert_eq!(enc.slot_count(), ctx.ring_degree());
    /// # Ok(())
    /// # }
    /// ```
    pub fn for_context(ctx: &Context) -> Result<Self> {
        check_field::<F>(ctx)?;
        Self::new(ctx.ring_degree())
    }

    /// The ring degree `N`.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::BatchEncoder;
    /// assert_eq!(BatchEncoder::<Fr>::new(16).unwrap().ring_degree(), 16);
    /// ```
    pub fn ring_degree(&self) -> usize {
        match &self.ntt {
            Transform::Limbs(ntt) => ntt.len(),
            Transform::Field(ntt) => ntt.len(),
        }
    }

    /// The number of slots, `N`: two rows of [`row_size`](Self::row_size).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::BatchEncoder;
    /// assert_eq!(BatchEncoder::<Fr>::new(16).unwrap().slot_count(), 16);
    /// ```
    pub fn slot_count(&self) -> usize {
        self.ring_degree()
    }

    /// The length of a row, `N / 2`: rotations act on each row separately.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::BatchEncoder;
    /// assert_eq!(BatchEncoder::<Fr>::new(16).unwrap().row_size(), 8);
    /// ```
    pub fn row_size(&self) -> usize {
        self.ring_degree() / 2
    }

    /// The primitive `2N`-th root of unity `zeta` the slots are defined with
    /// (`F::TWO_ADIC_ROOT_OF_UNITY^(2^(TWO_ADICITY - log2(2N)))`).
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use ark_ff::{Field, One};
    /// # use helib_rs::BatchEncoder;
    /// let zeta = BatchEncoder::<Fr>::new(16).unwrap().root_of_unity();
    /// assert_eq!(zeta.pow([16u64]), -Fr::one());
    /// ```
    pub fn root_of_unity(&self) -> F {
        self.zeta
    }

    /// The exponent `e` of every slot, in slot order: slot `s` holds `m(zeta^e)`. Row 0 is
    /// `3^j mod 2N`, row 1 is `-3^j mod 2N`, `j < N/2`.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::BatchEncoder;
    /// let enc = BatchEncoder::<Fr>::new(8).unwrap();
    /// assert_eq!(enc.slot_exponents(), vec![1, 3, 9, 11, 15, 13, 7, 5]);
    /// ```
    pub fn slot_exponents(&self) -> Vec<u64> {
        slot_exponents_for(self.ring_degree()).collect()
    }

    /// The polynomial whose slots are `values`: `N` coefficients.
    ///
    /// A slice shorter than `N` is zero-padded (the remaining slots hold 0); a longer one fails
    /// with [`Error::InvalidLength`].
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use ark_ff::Zero;
    /// # use helib_rs::BatchEncoder;
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let enc = BatchEncoder::<Fr>::new(8)?;
    /// // All slots 1 is the constant polynomial 1.
    /// let ones = enc.encode(&[Fr::from(1u64); 8])?;
    /// assert_eq!(ones[0], Fr::from(1u64));
    /// assert!(ones[1..].iter().all(|c| c.is_zero()));
    /// assert!(enc.encode(&[Fr::from(1u64); 9]).is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn encode(&self, values: &[F]) -> Result<Vec<F>> {
        self.check_len(values)?;
        match &self.ntt {
            Transform::Limbs(ntt) => {
                #[cfg(feature = "bn254")]
                if let Some(fr) = montgomery::as_bn254(values) {
                    // Montgomery form in and out (the plain last stage would divide R out).
                    let mut a = self.scatter(fr.limbs());
                    ntt.inverse_from_bitrev(&mut a);
                    return Ok(fr.collect(a.into_iter()));
                }
                let a = self.encode_fast(ntt, values);
                Ok(a.iter().map(|x| field_from_limbs(ntt, x)).collect())
            }
            Transform::Field(ntt) => {
                let mut a = vec![F::zero(); self.ring_degree()];
                for (value, &pos) in values.iter().zip(&self.slot_pos) {
                    a[pos] = *value;
                }
                ntt.inverse_from_bitrev(&mut a);
                Ok(a)
            }
        }
    }

    /// [`encode`](Self::encode) laid out as the engine takes plaintexts: `limbs_per_value`
    /// little-endian limbs per coefficient (enough for `p`, which the caller checked). The
    /// fast path never builds field elements.
    pub(crate) fn encode_to_limbs(&self, values: &[F], limbs_per_value: usize) -> Result<Vec<u64>> {
        self.check_len(values)?;
        let Transform::Limbs(ntt) = &self.ntt else {
            return Ok(to_limbs(&self.encode(values)?, limbs_per_value));
        };
        if limbs_per_value == 4 {
            return Ok(self.encode_fast(ntt, values).into_flattened());
        }
        let keep = limbs_per_value.min(4);
        let mut out = vec![0u64; self.ring_degree() * limbs_per_value];
        for (x, dst) in self
            .encode_fast(ntt, values)
            .iter()
            .zip(out.chunks_exact_mut(limbs_per_value))
        {
            dst[..keep].copy_from_slice(&x[..keep]);
        }
        Ok(out)
    }

    fn check_len(&self, values: &[F]) -> Result<()> {
        let n = self.ring_degree();
        if values.len() > n {
            return Err(Error::InvalidLength(format!(
                "{} values do not fit in {n} slots",
                values.len()
            )));
        }
        Ok(())
    }

    /// The fast path's encode: canonical coefficients as limbs.
    fn encode_fast(&self, ntt: &MontNtt, values: &[F]) -> Vec<Limbs> {
        #[cfg(feature = "bn254")]
        if let Some(fr) = montgomery::as_bn254(values) {
            let mut a = self.scatter(fr.limbs());
            ntt.inverse_from_bitrev_montgomery(&mut a);
            return a;
        }
        let mut a = self.scatter(values.iter().map(limbs_from_field));
        ntt.inverse_from_bitrev(&mut a);
        a
    }

    /// Slot values (at most `N`) to the inverse transform's input order, zero-padded.
    fn scatter(&self, values: impl Iterator<Item = Limbs>) -> Vec<Limbs> {
        let mut a = vec![[0u64; 4]; self.ring_degree()];
        for (x, &pos) in values.zip(&self.slot_pos) {
            a[pos] = x;
        }
        a
    }

    /// The `N` slot values of the polynomial with coefficients `coeffs` (as
    /// [`SecKey::decrypt_poly`](crate::SecKey::decrypt_poly) returns them).
    ///
    /// Any length works: a short slice is a polynomial of lower degree, and coefficients from
    /// `N` on are reduced modulo `X^N + 1` (`X^N = -1`), which does not change the values at
    /// the roots of `X^N + 1`.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::BatchEncoder;
    /// # fn main() -> Result<(), helib_rs::Error> {
    /// let enc = BatchEncoder::<Fr>::new(8)?;
    /// let v: Vec<Fr> = (10..18u64).map(Fr::from).collect();
    /// assert_eq!(enc.decode(&enc.encode(&v)?), v);
    /// // The constant polynomial 5 has 5 in every slot.
    /// assert_eq!(enc.decode(&[Fr::from(5u64)]), vec![Fr::from(5u64); 8]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn decode(&self, coeffs: &[F]) -> Vec<F> {
        let n = self.ring_degree();
        let folded;
        let coeffs = if coeffs.len() <= n {
            coeffs
        } else {
            folded = Zeroizing::new(fold_negacyclic(coeffs, n));
            &folded[..]
        };
        match &self.ntt {
            Transform::Limbs(ntt) => {
                // Scratch that holds the slot values: wiped when dropped, as decrypted data.
                let mut a = Zeroizing::new(vec![[0u64; 4]; n]);
                #[cfg(feature = "bn254")]
                if let Some(fr) = montgomery::as_bn254(coeffs) {
                    // The transform is linear: Montgomery form in, Montgomery form out.
                    for (x, c) in a.iter_mut().zip(fr.limbs()) {
                        *x = c;
                    }
                    ntt.forward_bitrev(&mut a);
                    return fr.collect(self.slot_pos.iter().map(|&pos| {
                        let mut y = a[pos];
                        ntt.canonical(&mut y);
                        y
                    }));
                }
                for (x, c) in a.iter_mut().zip(coeffs) {
                    *x = limbs_from_field(c);
                }
                ntt.forward_bitrev(&mut a);
                self.slot_pos
                    .iter()
                    .map(|&pos| field_from_limbs(ntt, &a[pos]))
                    .collect()
            }
            Transform::Field(ntt) => {
                let mut a = Zeroizing::new(vec![F::zero(); n]);
                a[..coeffs.len()].copy_from_slice(coeffs);
                ntt.forward_bitrev(&mut a);
                self.slot_pos.iter().map(|&pos| a[pos]).collect()
            }
        }
    }

    /// The Galois element `3^k mod 2N` whose automorphism `X -> X^(3^k)` rotates both rows
    /// left by `k` slots. A negative `k` rotates right by `|k|` (the same as left by
    /// `N/2 - |k|`); `k` is taken modulo the row size.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::BatchEncoder;
    /// let enc = BatchEncoder::<Fr>::new(16).unwrap(); // 2N = 32, rows of 8
    /// assert_eq!(enc.galois_element_for_rotation(0), 1);
    /// assert_eq!(enc.galois_element_for_rotation(1), 3);
    /// assert_eq!(enc.galois_element_for_rotation(2), 9);
    /// assert_eq!(enc.galois_element_for_rotation(-1), enc.galois_element_for_rotation(7));
    /// assert_eq!(enc.galois_element_for_rotation(8), 1);
    /// ```
    pub fn galois_element_for_rotation(&self, k: i64) -> u64 {
        rotation_element_of_degree(self.ring_degree(), k)
    }

    /// The Galois element `2N - 1` whose automorphism `X -> X^(-1)` swaps the two rows.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::BatchEncoder;
    /// assert_eq!(BatchEncoder::<Fr>::new(16).unwrap().galois_element_row_swap(), 31);
    /// ```
    pub fn galois_element_row_swap(&self) -> u64 {
        row_swap_element_of_degree(self.ring_degree())
    }

    /// `m(X^g) mod (X^N + 1)` computed on the plaintext: the reference for what the engine's
    /// automorphism by Galois element `g` does to an encrypted polynomial.
    ///
    /// Coefficient `i` moves to `i * g mod 2N`, negated when that lands at `N` or above
    /// (`X^N = -1`). For odd `g` this is an automorphism and permutes the slots (see
    /// [`galois_element_for_rotation`](Self::galois_element_for_rotation)); an even `g` is
    /// still the substitution `X -> X^g`, though not invertible. Inputs shorter than `N` are
    /// zero-padded and longer ones reduced as in [`decode`](Self::decode); the result has `N`
    /// coefficients.
    ///
    /// ```
    /// # use ark_bn254::Fr;
    /// # use helib_rs::BatchEncoder;
    /// let enc = BatchEncoder::<Fr>::new(4).unwrap(); // X^4 = -1
    /// let x = [Fr::from(0u64), Fr::from(1u64)];       // the polynomial X
    /// let x_cubed = [0u64, 0, 0, 1].map(Fr::from).to_vec();
    /// assert_eq!(enc.apply_galois(&x, 3), x_cubed);
    /// // X -> X^7 = X^4 * X^3 = -X^3
    /// let minus_x_cubed: Vec<Fr> = x_cubed.iter().map(|c| -*c).collect();
    /// assert_eq!(enc.apply_galois(&x, 7), minus_x_cubed);
    /// ```
    pub fn apply_galois(&self, coeffs: &[F], g: u64) -> Vec<F> {
        let n = self.ring_degree() as u128;
        let m = 2 * n;
        let g = u128::from(g) % m;
        let mut out = vec![F::zero(); n as usize];
        for (i, c) in coeffs.iter().enumerate() {
            let e = (i as u128 % m) * g % m;
            if e < n {
                out[e as usize] += c;
            } else {
                out[(e - n) as usize] -= c;
            }
        }
        out
    }
}

/// Reduces a polynomial of any length modulo `X^n + 1`: chunk `c` of `n` coefficients is
/// multiplied by `X^(cn) = (-1)^c`.
fn fold_negacyclic<F: PrimeField>(coeffs: &[F], n: usize) -> Vec<F> {
    let mut a = vec![F::zero(); n];
    for (c, chunk) in coeffs.chunks(n).enumerate() {
        if c % 2 == 0 {
            a.iter_mut().zip(chunk).for_each(|(x, y)| *x += y);
        } else {
            a.iter_mut().zip(chunk).for_each(|(x, y)| *x -= y);
        }
    }
    a
}

/// The canonical integer of a field element of the fast path (four limbs, checked when the
/// encoder chose the path).
fn limbs_from_field<F: PrimeField>(x: &F) -> Limbs {
    let mut out = [0u64; 4];
    for (dst, src) in out.iter_mut().zip(x.into_bigint().as_ref()) {
        *dst = *src;
    }
    out
}

/// The field element of a fast-path value below `2p`.
fn field_from_limbs<F: PrimeField>(ntt: &MontNtt, x: &Limbs) -> F {
    let mut y = *x;
    ntt.canonical(&mut y);
    let mut big = F::BigInt::default();
    for (dst, src) in big.as_mut().iter_mut().zip(&y) {
        *dst = *src;
    }
    // A canonical value below p always converts; zero is unreachable but keeps this total.
    F::from_bigint(big).unwrap_or_default()
}

/// `F::TWO_ADIC_ROOT_OF_UNITY` squared down to a primitive `2^log_m`-th root of unity; the
/// caller checks `log_m <= TWO_ADICITY`.
fn root_of_unity_2n<F: FftField>(log_m: u32) -> F {
    let mut zeta = F::TWO_ADIC_ROOT_OF_UNITY;
    for _ in log_m..F::TWO_ADICITY {
        zeta.square_in_place();
    }
    zeta
}

/// The slot exponents of ring degree `n` in slot order (see the module documentation).
fn slot_exponents_for(n: usize) -> impl Iterator<Item = u64> {
    let m = 2 * n as u64;
    let row: Vec<u64> = std::iter::successors(Some(1u64), |&e| {
        Some((u128::from(e) * 3 % u128::from(m)) as u64)
    })
    .take(n / 2)
    .collect();
    let second: Vec<u64> = row.iter().map(|e| m - e).collect();
    row.into_iter().chain(second)
}
