//! The four-step witness map's last step: from the components `A_k`, `B_k` (`k < c`, each
//! of degree below `N/2`) the `c` results `T_i = sum_(k + l = i) A_k B_l + X sum_(k + l = i + c)
//! A_k B_l`, in `2c` ciphertext products instead of `c^2`.
//!
//! The sums over `k + l` are a convolution of the sequences `A_0 .. A_(c-1)` and `B_0 ..`, so a
//! transform of length `M = 2c` across the components turns them into `M` products. Its root
//! of unity is the monomial `w = X^(N/c)`: `w^M = X^(2N) = 1`, and `w^m - 1` is a unit of the
//! plaintext ring for every `m` not divisible by `M` (at a slot's point `zeta^e`, `e` odd, it
//! is `zeta^(e m N / c) - 1`, zero only when `2c` divides `e m`, i.e. `m`), so
//! `sum_(j < M) w^(j m)` is `M` or `0` as for a root of unity in a field. Multiplying by a
//! monomial only permutes the coefficients and flips signs, so the transforms cost additions
//! and monomial shifts (each a plaintext product by `±X^e`: an encoding and NTTs at the
//! components' few primes) and no noise beyond the sums' own; the products' sums grow the noise by about
//! `3 log2(c) + 1` bits instead of `log2(c)`.

use ark_ff::PrimeField;
use helib_rs::Ctxt;
use rayon::prelude::*;

use crate::error::{Error, Result};

/// The transform of length `M = 2c` across the components, on the ring of degree `N`.
pub(crate) struct ComponentTransform {
    ring: usize,
    len: usize,
}

impl ComponentTransform {
    /// The transform for `c` components (a power of two, `2c <= 2N`).
    pub(crate) fn new(ring: usize, components: usize) -> Result<Self> {
        let len = 2 * components;
        if !components.is_power_of_two() || len > 2 * ring {
            return Err(Error::InvalidArgument(format!(
                "a transform across {components} components on the ring of degree {ring}"
            )));
        }
        Ok(ComponentTransform { ring, len })
    }

    /// `c`, the components in and results out.
    fn components(&self) -> usize {
        self.len / 2
    }

    /// The results `M T_i` (`i < c`) from the components, in order: the forward transform of
    /// each input, the `M` products, the inverse transform, then `T_i = Q_i + X Q_(i + c)`.
    /// `done(j)` is called as product `j` of the `M` finishes.
    /// Consumes the components (the transforms take their place: twice their memory at the
    /// peak, not three times).
    pub(crate) fn products<F: PrimeField>(
        &self,
        components: Vec<(Ctxt, Ctxt)>,
        done: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Ctxt>> {
        let (a, b): (Vec<Ctxt>, Vec<Ctxt>) = components.into_iter().unzip();
        let (fa, fb) = rayon::join(|| self.forward::<F>(a), || self.forward::<F>(b));
        let products = self.pointwise(fa?, &fb?, 0..self.len, done)?;
        self.results::<F>(products)
    }

    /// The forward transform of `c` components (zero-padded to `M`), in bit-reversed order.
    pub(crate) fn forward<F: PrimeField>(&self, x: Vec<Ctxt>) -> Result<Vec<Ctxt>> {
        let c = self.components();
        if x.len() != c {
            return Err(Error::wrong_length("the components", c, x.len()));
        }
        // The first stage pairs x_k with the zero padding: (x_k, w^k x_k).
        let upper: Vec<Ctxt> = x
            .par_iter()
            .enumerate()
            .map(|(k, ct)| {
                let mut t = ct.try_clone()?;
                self.twiddle::<F>(&mut t, k)?;
                Ok(t)
            })
            .collect::<Result<_>>()?;
        let mut v = x;
        v.extend(upper);
        let mut half = c / 2;
        while half >= 1 {
            let stride = self.len / (2 * half);
            stage(&mut v, half, |i, x, y| {
                sum_and_difference(x, y)?;
                self.twiddle::<F>(y, i * stride)
            })?;
            half /= 2;
        }
        Ok(v)
    }

    /// The products of the two transforms at positions `range` (of `M`), relinearized.
    pub(crate) fn pointwise(
        &self,
        mut fa: Vec<Ctxt>,
        fb: &[Ctxt],
        range: std::ops::Range<usize>,
        done: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Ctxt>> {
        if fa.len() != self.len
            || fb.len() != self.len
            || range.start > range.end
            || range.end > self.len
        {
            return Err(Error::InvalidArgument(format!(
                "products {range:?} of two transforms of length {} (got {} and {})",
                self.len,
                fa.len(),
                fb.len()
            )));
        }
        let start = range.start;
        fa.truncate(range.end);
        fa.drain(..start);
        fa.par_iter_mut().enumerate().try_for_each(|(j, x)| {
            x.mul_assign(&fb[start + j])?;
            done(start + j);
            Ok::<_, Error>(())
        })?;
        Ok(fa)
    }

    /// `M T_i` for `i < c` from all `M` products (in the transforms' bit-reversed order): the
    /// inverse transform (unscaled) gives `M Q_s` for `s < M` in natural order.
    pub(crate) fn results<F: PrimeField>(&self, mut v: Vec<Ctxt>) -> Result<Vec<Ctxt>> {
        if v.len() != self.len {
            return Err(Error::wrong_length(
                "the products across components",
                self.len,
                v.len(),
            ));
        }
        let mut half = 1;
        while half < self.len {
            let stride = self.len / (2 * half);
            stage(&mut v, half, |i, x, y| {
                self.twiddle::<F>(y, self.len - i * stride)?;
                sum_and_difference(x, y)
            })?;
            half *= 2;
        }
        let c = self.components();
        let high = v.split_off(c);
        v.into_par_iter()
            .zip(high)
            .map(|(mut low, mut high)| {
                // X Q_(i + c): a monomial again, no noise.
                high.mul_poly(&[F::zero(), F::one()])?;
                low.add_assign(&high)?;
                low.set_layout_tag(0);
                Ok(low)
            })
            .collect()
    }

    /// `ct <- w^e ct` with `w = X^(N/c)`: the monomial `X^(e N / c)`, `-X^(e N / c - N)` from
    /// `N` on.
    fn twiddle<F: PrimeField>(&self, ct: &mut Ctxt, e: usize) -> Result<()> {
        let power = (e % self.len) * (2 * self.ring / self.len);
        if power == 0 {
            return Ok(());
        }
        let (at, sign) = if power >= self.ring {
            (power - self.ring, -F::one())
        } else {
            (power, F::one())
        };
        let mut monomial = vec![F::zero(); at + 1];
        monomial[at] = sign;
        Ok(ct.mul_poly(&monomial)?)
    }
}

/// One radix-2 stage: `butterfly(i, x, y)` on every pair `x = v[s + i]`, `y = v[s + i + half]`
/// of every block of `2 half` starting at `s`.
fn stage(
    v: &mut [Ctxt],
    half: usize,
    butterfly: impl Fn(usize, &mut Ctxt, &mut Ctxt) -> Result<()> + Sync,
) -> Result<()> {
    v.par_chunks_mut(2 * half).try_for_each(|block| {
        let (lo, hi) = block.split_at_mut(half);
        lo.par_iter_mut()
            .zip(hi.par_iter_mut())
            .enumerate()
            .try_for_each(|(i, (x, y))| butterfly(i, x, y))
    })
}

/// `(x, y) <- (x + y, x - y)`.
fn sum_and_difference(x: &mut Ctxt, y: &mut Ctxt) -> Result<()> {
    let mut difference = x.try_clone()?;
    difference.sub_assign(y)?;
    x.add_assign(y)?;
    *y = difference;
    Ok(())
}
