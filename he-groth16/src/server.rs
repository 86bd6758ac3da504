//! The server's side: ciphertext bytes in, ciphertext bytes out, public keys only.

use ark_ff::{FftField, PrimeField};
use he_fft::{ClientAssistedWitnessMap, EncryptedWitnessMap, FftOptions};
use helib_rs::{Context, Ctxt, GaloisKeys, PubKey};

use crate::Error;

/// Who interpolates `a` and `b`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WitnessMapRoute {
    /// The server, on ciphertexts ([`he_fft::WitnessMap`] up to `n = N/2`,
    /// [`he_fft::FourStepWitnessMap`] beyond): the owner encrypts the evaluations (past one
    /// ciphertext, their polyphase components' values, an inverse FFT of size `n/R` down the
    /// columns) and ships Galois keys.
    #[default]
    ServerOnly,
    /// The owner, in the clear ([`ClientAssistedWitnessMap`]: two inverse FFTs of size `n`);
    /// the server multiplies once, with no Galois keys.
    ClientAssisted,
}

/// Whoever computes the witness map on ciphertexts: it receives the encrypted evaluations `a`
/// and `b` (one byte string per ciphertext, from
/// [`EncryptedTransform::encrypt_to_bytes`](he_fft::EncryptedTransform::encrypt_to_bytes)) and returns the encrypted `h` (one byte
/// string per [`Ctxt`]). It never sees the secret key. Implement it to send the bytes to a
/// remote server; [`InProcessServer`] computes in this process.
pub trait WitnessServer: Send + Sync {
    /// The encrypted `h` for the encrypted `a` and `b`.
    fn witness_map(&self, a: &[Vec<u8>], b: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, Error>;
}

/// A [`WitnessServer`] in this process, holding what a remote server would: the context, the
/// public key (for the relinearization key and to read ciphertexts), the Galois keys, and the
/// witness map's encoded plaintext matrices.
pub struct InProcessServer<F: FftField + PrimeField> {
    pk: PubKey,
    map: Box<dyn EncryptedWitnessMap<F>>,
    /// None on the client-assisted route, which needs no Galois keys.
    gk: Option<GaloisKeys>,
    route: WitnessMapRoute,
    /// The noise budget results keep for their decryption (one owner's, or the parties'
    /// smudging room on a shared key's context).
    margin_bits: f64,
}

impl<F: FftField + PrimeField> InProcessServer<F> {
    /// A server for domain size `n` on `ctx`, with the owner's public and Galois keys (the
    /// latter for at least the map's [`galois_steps`](he_fft::EncryptedTransform::galois_steps)):
    /// [`he_fft::WitnessMap`] up to `n = N/2`, [`he_fft::FourStepWitnessMap`] beyond.
    pub fn new(
        ctx: &Context,
        pk: PubKey,
        gk: GaloisKeys,
        n: usize,
        options: &FftOptions,
    ) -> Result<Self, Error> {
        Ok(InProcessServer {
            pk,
            map: he_fft::witness_map_for(ctx, n, options)?,
            gk: Some(gk),
            route: WitnessMapRoute::ServerOnly,
            margin_bits: default_margin(ctx),
        })
    }

    /// A server for the client-assisted route: the public key (for its relinearization key)
    /// is all it holds.
    pub fn client_assisted(ctx: &Context, pk: PubKey, n: usize) -> Result<Self, Error> {
        Ok(InProcessServer {
            pk,
            map: Box::new(ClientAssistedWitnessMap::new(ctx, n)?),
            gk: None,
            route: WitnessMapRoute::ClientAssisted,
            margin_bits: default_margin(ctx),
        })
    }

    /// The same server leaving room in its results for parties' decryption shares with
    /// `smudge_bits` of smudging (the default: [`helib_rs::threshold::MIN_SMUDGE_BITS`]);
    /// nothing changes for one owner's key.
    pub fn with_smudge_bits(self, smudge_bits: u32) -> Self {
        let margin_bits =
            helib_rs::threshold::decryption_margin_bits(self.pk.context(), smudge_bits);
        InProcessServer {
            margin_bits,
            ..self
        }
    }

    /// The route it serves.
    pub fn route(&self) -> WitnessMapRoute {
        self.route
    }

    /// The witness map it computes.
    pub fn map(&self) -> &dyn EncryptedWitnessMap<F> {
        self.map.as_ref()
    }
}

/// One owner's decryption margin, or on a shared key's context the parties' at the least
/// smudging.
fn default_margin(ctx: &Context) -> f64 {
    helib_rs::threshold::decryption_margin_bits(ctx, helib_rs::threshold::MIN_SMUDGE_BITS)
}

impl<F: FftField + PrimeField> WitnessServer for InProcessServer<F> {
    fn witness_map(&self, a: &[Vec<u8>], b: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, Error> {
        // Counted before anything is parsed: each ciphertext costs its rows.
        let count = self.map.info().input_ciphertexts;
        if a.len() != count || b.len() != count {
            return Err(Error::InvalidInput(format!(
                "{} and {} ciphertexts for a and b, where the witness map takes {count} each",
                a.len(),
                b.len()
            )));
        }
        // Every input parsed once up front, so a malformed one is refused before any work (a
        // few milliseconds each), then again when the map needs it: past one ciphertext, two
        // at a time in memory.
        for bytes in a.iter().chain(b) {
            Ctxt::from_bytes(&self.pk, bytes)?;
        }
        let read = |i: usize| -> he_fft::Result<Ctxt> {
            let bytes = if i < count { &a[i] } else { &b[i - count] };
            Ok(Ctxt::from_bytes(&self.pk, bytes)?)
        };
        let h = self
            .map
            .apply_reading(self.gk.as_ref(), &read, &|_, _| {})?;
        h.into_iter()
            .map(|mut t| {
                // The fewest primes the decryption needs: the smallest download.
                t.compact_for_decryption(self.margin_bits)?;
                Ok(t.to_bytes()?)
            })
            .collect()
    }
}
