//! The server's side: ciphertext bytes in, ciphertext bytes out, public keys only.

use ark_ff::{FftField, PrimeField};
use he_fft::{ClientAssistedWitnessMap, FftOptions, WitnessMap};
use helib_rs::{Context, Ctxt, GaloisKeys, PubKey};

use crate::Error;

/// Who interpolates `a` and `b`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Route {
    /// The server, on ciphertexts ([`WitnessMap`]): the owner encrypts the evaluations as they
    /// are and ships Galois keys.
    #[default]
    ServerOnly,
    /// The owner, in the clear ([`ClientAssistedWitnessMap`]: two inverse FFTs of size `n`);
    /// the server multiplies once, with no Galois keys.
    ClientAssisted,
}

/// The server's computation for either route.
pub(crate) enum ServerMap<F: FftField + PrimeField> {
    ServerOnly(Box<WitnessMap<F>>, GaloisKeys),
    ClientAssisted(ClientAssistedWitnessMap<F>),
}

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
    map: ServerMap<F>,
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
        Ok(InProcessServer {
            pk,
            map: ServerMap::ServerOnly(Box::new(map), gk),
        })
    }

    /// A server for the client-assisted route: the public key (for its relinearization key)
    /// is all it holds.
    pub fn client_assisted(ctx: &Context, pk: PubKey, n: usize) -> Result<Self, Error> {
        Ok(InProcessServer {
            pk,
            map: ServerMap::ClientAssisted(ClientAssistedWitnessMap::new(ctx, n)?),
        })
    }

    /// The route it serves.
    pub fn route(&self) -> Route {
        match self.map {
            ServerMap::ServerOnly(..) => Route::ServerOnly,
            ServerMap::ClientAssisted(_) => Route::ClientAssisted,
        }
    }
}

impl<F: FftField + PrimeField> WitnessServer for InProcessServer<F> {
    fn witness_map(&self, a: &[u8], b: &[u8]) -> Result<Vec<u8>, Error> {
        let a = Ctxt::from_bytes(&self.pk, a)?;
        let b = Ctxt::from_bytes(&self.pk, b)?;
        let mut h = match &self.map {
            ServerMap::ServerOnly(map, gk) => map.apply(gk, &a, &b)?,
            ServerMap::ClientAssisted(map) => map.apply(&a, &b)?,
        };
        // Fewer primes on the way back, the budget kept.
        h.mod_switch_to_natural_level()?;
        Ok(h.to_bytes()?)
    }
}
