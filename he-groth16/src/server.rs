//! The server's side: ciphertext bytes in, ciphertext bytes out, public keys only.

use ark_ff::{FftField, PrimeField};
use he_fft::{FftOptions, WitnessMap};
use helib_rs::{Context, Ctxt, GaloisKeys, PubKey};

use crate::Error;

/// Whoever computes the witness map on ciphertexts: it receives the encrypted evaluations `a`
/// and `b` (bytes from [`WitnessMap::encrypt_to_bytes`]) and returns the encrypted `h` (bytes
/// of a [`Ctxt`]). It never sees the secret key. Implement it to send the bytes to a remote
/// server; [`InProcessServer`] computes in this process.
pub trait WitnessServer: Send + Sync {
    /// The encrypted `h` for the encrypted `a` and `b`.
    fn witness_map(&self, a: &[u8], b: &[u8]) -> Result<Vec<u8>, Error>;
}

/// A [`WitnessServer`] in this process, holding what a remote server would: the context, the
/// public key (for the relinearization key and to read ciphertexts), the Galois keys, and the
/// witness map's encoded plaintext matrices.
pub struct InProcessServer<F: FftField + PrimeField> {
    pk: PubKey,
    gk: GaloisKeys,
    map: WitnessMap<F>,
}

impl<F: FftField + PrimeField> InProcessServer<F> {
    /// A server for domain size `n` on `ctx`, with the owner's public and Galois keys (the
    /// latter for at least [`WitnessMap::galois_steps`]).
    pub fn new(
        ctx: &Context,
        pk: PubKey,
        gk: GaloisKeys,
        n: usize,
        options: &FftOptions,
    ) -> Result<Self, Error> {
        let map = WitnessMap::new(ctx, n, options)?;
        Ok(InProcessServer { pk, gk, map })
    }

    /// The witness map the server runs.
    pub fn map(&self) -> &WitnessMap<F> {
        &self.map
    }

    /// The Galois keys it holds.
    pub fn galois_keys(&self) -> &GaloisKeys {
        &self.gk
    }
}

impl<F: FftField + PrimeField> WitnessServer for InProcessServer<F> {
    fn witness_map(&self, a: &[u8], b: &[u8]) -> Result<Vec<u8>, Error> {
        let a = Ctxt::from_bytes(&self.pk, a)?;
        let b = Ctxt::from_bytes(&self.pk, b)?;
        let mut h = self.map.apply(&self.gk, &a, &b)?;
        // Fewer primes on the way back, the budget kept.
        h.mod_switch_to_natural_level()?;
        Ok(h.to_bytes()?)
    }
}
