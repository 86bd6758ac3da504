//! [`EncryptedWitnessMap`]: what every witness-map route offers, and [`witness_map_for`], the
//! server-only route for a domain size.

use ark_ff::{FftField, PrimeField};
use helib_rs::{Context, Ctxt, Error, GaloisKeys, GaloisSteps, PubKey, Result, SecKey};

use crate::{ClientAssistedWitnessMap, FftOptions, FourStepWitnessMap, Progress, WitnessMap};

/// Groth16's witness map `h = (A B - C) / Z_H` on ciphertexts, whichever route computes it:
/// the owner encrypts `a` and `b` (the evaluations of `A` and `B` on `H`), the server
/// computes, the owner decrypts `h`. Inputs and results are slices of ciphertexts, one long
/// for the routes that fit one ciphertext.
///
/// Implemented by [`WitnessMap`] (`n <= N/2`), [`FourStepWitnessMap`] (`n >= N`) and
/// [`ClientAssistedWitnessMap`] (the owner interpolates; no Galois keys).
///
/// ```
/// use ark_bn254::Fr;
/// use ark_poly::EvaluationDomain;
/// use he_fft::{witness_map_for, EncryptedWitnessMap, FftOptions};
/// use helib_rs::{Context, GaloisKeys, PubKey, SecKey};
///
/// # fn main() -> Result<(), helib_rs::Error> {
/// let ctx = Context::builder().ring_degree(1024).plaintext_field::<Fr>()
///     .ciphertext_bits(he_fft::witness_map_ciphertext_bits(1024, 254, 1024))
///     .allow_insecure(true).build()?; // toy size, insecure
/// for n in [8, 1024] { // one ciphertext, then two rows of 512 (one per input)
///     let map = witness_map_for::<Fr>(&ctx, n, &FftOptions::default())?;
///     let sk = SecKey::generate(&ctx)?;
///     let pk = PubKey::generate(&sk)?;
///     let gk = GaloisKeys::generate(&sk, &map.galois_steps())?;
///     let a: Vec<Fr> = (0..n as u64).map(Fr::from).collect();
///     let b: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * i + 1)).collect();
///     let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
///     let [ea, eb] = [&a, &b].map(|v| map.encrypt_input(&pk, v));
///     let h = map.compute(Some(&gk), &ea?, &eb?, &|_, _| {})?;
///     let h = map.decrypt_quotient(&sk, &h)?;
///     let domain = ark_poly::Radix2EvaluationDomain::<Fr>::new(n).unwrap();
///     he_fft::check::quotient(&domain, &a, &b, &c, &h).expect("h is the quotient");
/// }
/// # Ok(())
/// # }
/// ```
pub trait EncryptedWitnessMap<F: FftField + PrimeField>: Send + Sync {
    /// The domain size `n`.
    fn len(&self) -> usize;

    /// Always false (domains have at least two points).
    fn is_empty(&self) -> bool {
        false
    }

    /// The context the map was built for.
    fn context(&self) -> &Context;

    /// A short name of the route, for reports.
    fn route_name(&self) -> &'static str;

    /// Multiplicative levels the server's computation consumes.
    fn levels(&self) -> u32;

    /// Ciphertexts per encrypted input (`a` or `b`).
    fn num_input_ciphertexts(&self) -> usize {
        1
    }

    /// Ciphertexts in the encrypted result.
    fn num_result_ciphertexts(&self) -> usize {
        1
    }

    /// The Galois keys the server needs (none for the client-assisted route).
    fn galois_steps(&self) -> GaloisSteps;

    /// Encrypts `a` or `b` (exactly `n` values) as the server's input.
    fn encrypt_input(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>>;

    /// [`encrypt_input`](Self::encrypt_input) with the secret key, straight to bytes (one
    /// string per ciphertext, about half a public-key ciphertext's size).
    fn encrypt_input_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>>;

    /// The server's computation: the encrypted `h` from the encrypted `a` and `b`, with the
    /// Galois keys of [`galois_steps`](Self::galois_steps) (`None` is
    /// [`Error::MissingKey`] on the routes that need some) and a progress callback
    /// `(steps done, total)`.
    fn compute(
        &self,
        gk: Option<&GaloisKeys>,
        a: &[Ctxt],
        b: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>>;

    /// The `n` coefficients of `h` from [`compute`](Self::compute)'s result.
    fn decrypt_quotient(&self, sk: &SecKey, h: &[Ctxt]) -> Result<Vec<F>>;
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

fn needed(gk: Option<&GaloisKeys>) -> Result<&GaloisKeys> {
    gk.ok_or_else(|| {
        Error::MissingKey(
            "the server-only witness map needs Galois keys, and none were given".into(),
        )
    })
}

/// The one ciphertext of a single-ciphertext route's input or result.
fn single<'a>(x: &'a [Ctxt], what: &str) -> Result<&'a Ctxt> {
    match x {
        [one] => Ok(one),
        _ => Err(Error::InvalidLength(format!(
            "{what} is one ciphertext on this route, got {}",
            x.len()
        ))),
    }
}

impl<F: FftField + PrimeField> EncryptedWitnessMap<F> for WitnessMap<F> {
    fn len(&self) -> usize {
        WitnessMap::len(self)
    }
    fn context(&self) -> &Context {
        WitnessMap::context(self)
    }
    fn route_name(&self) -> &'static str {
        "server-only, one ciphertext"
    }
    fn levels(&self) -> u32 {
        WitnessMap::levels(self)
    }
    fn galois_steps(&self) -> GaloisSteps {
        WitnessMap::galois_steps(self)
    }
    fn encrypt_input(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        Ok(vec![self.encrypt(pk, x)?])
    }
    fn encrypt_input_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        Ok(vec![self.encrypt_to_bytes(sk, x)?])
    }
    fn compute(
        &self,
        gk: Option<&GaloisKeys>,
        a: &[Ctxt],
        b: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let (a, b) = (single(a, "an input")?, single(b, "an input")?);
        Ok(vec![self.apply_with_progress(
            needed(gk)?,
            a,
            b,
            progress,
        )?])
    }
    fn decrypt_quotient(&self, sk: &SecKey, h: &[Ctxt]) -> Result<Vec<F>> {
        self.decrypt(sk, single(h, "the result")?)
    }
}

impl<F: FftField + PrimeField> EncryptedWitnessMap<F> for FourStepWitnessMap<F> {
    fn len(&self) -> usize {
        FourStepWitnessMap::len(self)
    }
    fn context(&self) -> &Context {
        FourStepWitnessMap::context(self)
    }
    fn route_name(&self) -> &'static str {
        "server-only, four-step"
    }
    fn num_input_ciphertexts(&self) -> usize {
        FourStepWitnessMap::num_input_ciphertexts(self)
    }
    fn num_result_ciphertexts(&self) -> usize {
        self.num_rows()
    }
    fn levels(&self) -> u32 {
        FourStepWitnessMap::levels(self)
    }
    fn galois_steps(&self) -> GaloisSteps {
        FourStepWitnessMap::galois_steps(self)
    }
    fn encrypt_input(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        self.encrypt(pk, x)
    }
    fn encrypt_input_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        self.encrypt_to_bytes(sk, x)
    }
    fn compute(
        &self,
        gk: Option<&GaloisKeys>,
        a: &[Ctxt],
        b: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        self.apply_with_progress(needed(gk)?, a, b, progress)
    }
    fn decrypt_quotient(&self, sk: &SecKey, h: &[Ctxt]) -> Result<Vec<F>> {
        self.decrypt(sk, h)
    }
}

impl<F: FftField + PrimeField> EncryptedWitnessMap<F> for ClientAssistedWitnessMap<F> {
    fn len(&self) -> usize {
        ClientAssistedWitnessMap::len(self)
    }
    fn context(&self) -> &Context {
        ClientAssistedWitnessMap::context(self)
    }
    fn route_name(&self) -> &'static str {
        "client-assisted"
    }
    fn levels(&self) -> u32 {
        1
    }
    fn galois_steps(&self) -> GaloisSteps {
        GaloisSteps::new()
    }
    fn encrypt_input(&self, pk: &PubKey, x: &[F]) -> Result<Vec<Ctxt>> {
        Ok(vec![self.encrypt(pk, x)?])
    }
    fn encrypt_input_to_bytes(&self, sk: &SecKey, x: &[F]) -> Result<Vec<Vec<u8>>> {
        Ok(vec![self.encrypt_to_bytes(sk, x)?])
    }
    fn compute(
        &self,
        _gk: Option<&GaloisKeys>,
        a: &[Ctxt],
        b: &[Ctxt],
        progress: Progress<'_>,
    ) -> Result<Vec<Ctxt>> {
        let h = self.apply(single(a, "an input")?, single(b, "an input")?)?;
        progress(1, 1);
        Ok(vec![h])
    }
    fn decrypt_quotient(&self, sk: &SecKey, h: &[Ctxt]) -> Result<Vec<F>> {
        self.decrypt(sk, single(h, "the result")?)
    }
}
