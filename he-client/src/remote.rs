//! [`RemoteWitnessServer`]: ark-groth16's witness map on a remote `he-server`, and
//! [`remote_witness_session`], the owner's whole set-up for it.

use std::time::{Duration, Instant};

use ark_ff::{FftField, PrimeField};
use he_fft::protocol::{Job, KeySetParts, Request, Ring};
use he_fft::DiagonalCache;
use he_groth16::{Outsourcing, WitnessMapRoute, WitnessServer};
use helib_rs::{Context, GaloisKeys, PubKey, SecKey};

use crate::client::{Client, ClientError, Transfer};

/// A [`WitnessServer`] that sends `a` and `b` to a remote server's key set and returns what
/// it computes (the owner's session then checks it).
pub struct RemoteWitnessServer {
    client: Client,
    key_set: String,
    ctx: Context,
    outputs: usize,
}

impl RemoteWitnessServer {
    /// The witness map of the uploaded key set `key_set` (on `ctx`, returning `outputs`
    /// ciphertexts) through `client`.
    pub fn new(client: Client, key_set: String, ctx: Context, outputs: usize) -> Self {
        RemoteWitnessServer {
            client,
            key_set,
            ctx,
            outputs,
        }
    }

    /// What the witness maps so far moved over the network.
    pub fn transfer(&self) -> Transfer {
        self.client.transfer()
    }
}

impl WitnessServer for RemoteWitnessServer {
    fn witness_map(&self, a: &[Vec<u8>], b: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, he_groth16::Error> {
        let inputs: Vec<&[u8]> = a.iter().chain(b).map(Vec::as_slice).collect();
        self.client
            .run(&self.key_set, &inputs, &self.ctx, self.outputs)
            .map(|(h, _)| h)
            .map_err(|e| he_groth16::Error::Server(e.to_string()))
    }
}

/// What [`remote_witness_session`] did.
#[derive(Debug)]
pub struct RemoteSetup {
    /// The context (ring, modulus, security).
    pub context: Context,
    /// The request the key set serves.
    pub request: Request,
    /// The key set's id on the server.
    pub key_set: String,
    /// Making the key pair and the Galois keys.
    pub keygen_time: Duration,
    /// Uploading the key set (nothing if the server had it).
    pub upload_time: Duration,
    /// Bytes of the key set.
    pub key_set_bytes: u64,
}

/// The owner's session for Groth16 witness maps of domain size `n` on a remote server: a
/// context for `n` (`ring`: secure, or the insecure toy ring a test server may allow), a fresh
/// key pair and the witness map's Galois keys, uploaded as one key set, and an
/// [`Outsourcing`] session whose server is a [`RemoteWitnessServer`].
///
/// The key set's request fixes the plan's chains to this machine's thread count, so the
/// server builds the same plan (and needs exactly these keys) whatever its own.
pub fn remote_witness_session<F: FftField + PrimeField>(
    client: Client,
    n: usize,
    ring: Ring,
) -> Result<(Outsourcing<F>, RemoteSetup), ClientError> {
    let request = Request {
        ring,
        chains: Some(rayon::current_num_threads().clamp(1, 64)),
        ..Request::new(Job::WitnessMap, n)
    };
    let ctx = request.context::<F>()?;
    let options = request.options(DiagonalCache::Never);
    let map = request.transform::<F>(&ctx, DiagonalCache::Never)?;
    let start = Instant::now();
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let gk = GaloisKeys::generate(&sk, &map.galois_steps())?;
    let keygen_time = start.elapsed();
    let (context_bytes, pk_bytes, keys) = (ctx.to_bytes()?, pk.to_bytes()?, gk.to_bytes()?);
    drop(gk);
    let parts = KeySetParts {
        request,
        context: &context_bytes,
        public_key: &pk_bytes,
        keys: &keys,
    };
    let start = Instant::now();
    let key_set = client.upload_key_set(&parts)?;
    let upload_time = start.elapsed();
    let outputs = map.info().output_ciphertexts;
    let setup = RemoteSetup {
        context: ctx.clone(),
        request,
        key_set: key_set.clone(),
        keygen_time,
        upload_time,
        key_set_bytes: parts.len(),
    };
    let server = RemoteWitnessServer::new(client, key_set, ctx, outputs);
    let session = Outsourcing::with_options(
        sk,
        pk,
        Box::new(server),
        n,
        WitnessMapRoute::ServerOnly,
        &options,
    )?;
    Ok((session, setup))
}
