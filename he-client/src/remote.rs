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
    /// Making the secret, public and relinearization keys.
    pub keygen_time: Duration,
    /// Making the Galois keys.
    pub galois_keygen_time: Duration,
    /// How many Galois keys.
    pub galois_keys: usize,
    /// Their bytes in the key set.
    pub galois_key_bytes: u64,
    /// Their bytes in memory.
    pub galois_key_memory: u64,
    /// The public key's bytes in the key set.
    pub public_key_bytes: u64,
    /// Uploading the key set and the server's check of it (nothing if the server had it).
    pub upload_time: Duration,
    /// Bytes of the key set's body.
    pub key_set_bytes: u64,
}

/// The owner's session for Groth16 witness maps of domain size `n` on a remote server by
/// `route`: a context for `n` (`ring`: secure, or the insecure toy ring a test server may
/// allow), a fresh key pair and the witness map's Galois keys (none on the client-assisted
/// route), uploaded as one key set, and an [`Outsourcing`] session whose server is a
/// [`RemoteWitnessServer`].
///
/// On the server-only route the key set's request names the plan's chains this machine's
/// default takes ([`he_fft::witness_map_chains`]), so the server builds the plan an
/// in-process run would build here (and needs exactly these keys), whatever its own thread
/// count.
pub fn remote_witness_session<F: FftField + PrimeField>(
    client: Client,
    n: usize,
    ring: Ring,
    route: WitnessMapRoute,
) -> Result<(Outsourcing<F>, RemoteSetup), ClientError> {
    let job = match route {
        WitnessMapRoute::ServerOnly => Job::WitnessMap,
        WitnessMapRoute::ClientAssisted => Job::ClientAssistedWitnessMap,
    };
    let unpinned = Request {
        ring,
        ..Request::new(job, n)
    };
    let ctx = unpinned.context::<F>()?;
    let request = match route {
        WitnessMapRoute::ServerOnly => Request {
            chains: Some(he_fft::witness_map_chains(&ctx, n).clamp(1, 64)),
            ..unpinned
        },
        WitnessMapRoute::ClientAssisted => unpinned,
    };
    let options = request.options(DiagonalCache::Never);
    let map = request.transform::<F>(&ctx, DiagonalCache::Never)?;
    let start = Instant::now();
    let sk = SecKey::generate(&ctx)?;
    let pk = PubKey::generate(&sk)?;
    let keygen_time = start.elapsed();
    let start = Instant::now();
    let steps = map.galois_steps();
    let (keys, galois_keys, galois_key_memory) = if steps.max_keys() == 0 {
        (Vec::new(), 0, 0)
    } else {
        let gk = GaloisKeys::generate(&sk, &steps)?;
        (gk.to_bytes()?, gk.elements().len(), gk.size_bytes())
    };
    let galois_keygen_time = start.elapsed();
    let (context_bytes, pk_bytes) = (ctx.to_bytes()?, pk.to_bytes()?);
    let parts = KeySetParts {
        request,
        context: &context_bytes,
        public_key: &pk_bytes,
        keys: &keys,
        matrix: &[],
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
        galois_keygen_time,
        galois_keys,
        galois_key_bytes: keys.len() as u64,
        galois_key_memory,
        public_key_bytes: pk_bytes.len() as u64,
        upload_time,
        key_set_bytes: parts.len(),
    };
    let server = RemoteWitnessServer::new(client, key_set, ctx, outputs);
    let session = Outsourcing::with_options(sk, pk, Box::new(server), n, route, &options)?;
    Ok((session, setup))
}
