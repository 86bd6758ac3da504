//! Groth16's witness map on ciphertexts: [`EncryptedWitnessMap`], what every route offers,
//! [`witness_map_for`], the server-only route for a domain size, and the routes (one
//! ciphertext, four steps, client-assisted).

pub(crate) mod circom;
pub(crate) mod client_assisted;
pub(crate) mod component_products;
pub(crate) mod four_step;
pub(crate) mod matrices;
pub(crate) mod one_ciphertext;
pub(crate) mod owner_stage;

use ark_ff::{FftField, PrimeField};
use helib_rs::Context;

use crate::error::Result;
use crate::{
    ClientAssistedWitnessMap, EncryptedTransform, FftOptions, FourStepWitnessMap, WitnessMap,
};

/// Groth16's witness map `h = (A B - C) / Z_H` on ciphertexts, whichever route computes it:
/// the owner encrypts `a` and `b` (the evaluations of `A` and `B` on `H`) with
/// [`encrypt`](EncryptedTransform::encrypt), the server runs
/// [`apply_with`](EncryptedTransform::apply_with) on their ciphertexts (`a`'s, then `b`'s;
/// no Galois keys on the client-assisted route), the owner decrypts `h` with
/// [`decrypt`](EncryptedTransform::decrypt).
///
/// Implemented by [`WitnessMap`] (`n <= N/2`), [`FourStepWitnessMap`] (`n >= N`) and
/// [`ClientAssistedWitnessMap`] (the owner interpolates; no Galois keys).
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::EvaluationDomain;
/// use he_fft::{witness_map_for, EncryptedTransform, EncryptedWitnessMap, FftOptions};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), he_fft::Error> {
/// // Toy size, insecure; room for both sizes (the four-step map needs one level fewer).
/// let bits = [8, 1024].map(|n| he_fft::witness_map_ciphertext_bits::<Fr>(1024, n));
/// let ctx = Context::builder().ring_degree(1024).plaintext_field::<Fr>()
///     .ciphertext_bits(bits[0].max(bits[1])).allow_insecure(true).build()?;
/// for n in [8, 1024] { // one ciphertext, then two components of 512 (a ciphertext each)
///     let map = witness_map_for::<Fr>(&ctx, n, &FftOptions::default())?;
///     let sk = SecKey::generate(&ctx)?;
///     let pk = PubKey::generate(&sk)?;
///     let gk = GaloisKeys::generate(&sk, &map.galois_steps())?;
///     let a: Vec<Fr> = (0..n as u64).map(Fr::from).collect();
///     let b: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * i + 1)).collect();
///     let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
///     let mut x = map.encrypt(&pk, &a)?;
///     x.extend(map.encrypt(&pk, &b)?);
///     let h = map.apply(&gk, &x)?;
///     let h = map.decrypt(&sk, &h)?;
///     let domain = ark_poly::Radix2EvaluationDomain::<Fr>::new(n).unwrap();
///     he_fft::check::quotient(&domain, &a, &b, &c, &h).expect("h is the quotient");
/// }
/// # Ok(())
/// # }
/// ```
pub trait EncryptedWitnessMap<F: FftField + PrimeField>: EncryptedTransform<F> {
    /// A short name of the route, for reports.
    fn route_name(&self) -> &'static str;
}

/// The server-only witness map for domain size `n` on `ctx`: [`WitnessMap`] when `n <= N/2`,
/// [`FourStepWitnessMap`] from `n = N` on. [`witness_map_context`](crate::witness_map_context)
/// sizes a context for either.
pub fn witness_map_for<F: FftField + PrimeField>(
    ctx: &Context,
    n: usize,
    options: &FftOptions,
) -> Result<Box<dyn EncryptedWitnessMap<F>>> {
    if n <= ctx.ring_degree() / 2 {
        Ok(Box::new(WitnessMap::new(ctx, n, options)?))
    } else {
        Ok(Box::new(FourStepWitnessMap::new(ctx, n, options)?))
    }
}

/// The giant-step chains [`witness_map_for`] gives each product when its options leave them
/// to it, on this thread pool: half the pool, since `a` and `b` run their stages side by side
/// on every route (up to `n = N/2` in one ciphertext each, past it one component of each at a
/// time). The chains decide some of the Galois keys, so an owner who names them in a request
/// ([`protocol::Request`](crate::protocol::Request)) makes a server of any thread count build
/// the plan, and need the keys, it would build here. `ctx` and `n` choose the route; both
/// routes take the same share today.
///
/// ```
/// # use ark_bn254::Fr;
/// # use he_fft::{witness_map_chains, witness_map_for, EncryptedTransform, FftOptions};
/// let ctx = he_fft::witness_map_context::<Fr>(32768)?;
/// let mut named = FftOptions::default();
/// named.plan.chains = Some(witness_map_chains(&ctx, 32768));
/// let default = witness_map_for::<Fr>(&ctx, 32768, &FftOptions::default())?;
/// let pinned = witness_map_for::<Fr>(&ctx, 32768, &named)?;
/// assert_eq!(default.galois_steps(), pinned.galois_steps());
/// # Ok::<(), he_fft::Error>(())
/// ```
pub fn witness_map_chains(_ctx: &Context, _n: usize) -> usize {
    (rayon::current_num_threads() / 2).max(1)
}

impl<F: FftField + PrimeField> EncryptedWitnessMap<F> for WitnessMap<F> {
    fn route_name(&self) -> &'static str {
        if self.is_packed() {
            "server-only, one ciphertext, a and b packed"
        } else {
            "server-only, one ciphertext"
        }
    }
}

impl<F: FftField + PrimeField> EncryptedWitnessMap<F> for FourStepWitnessMap<F> {
    fn route_name(&self) -> &'static str {
        "server-only, four-step"
    }
}

impl<F: FftField + PrimeField> EncryptedWitnessMap<F> for ClientAssistedWitnessMap<F> {
    fn route_name(&self) -> &'static str {
        "client-assisted"
    }
}
