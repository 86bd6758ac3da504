//! `he-client`: the owner's side of `he-server`, blocking.
//!
//! - [`Client`] speaks the server's HTTP API: [`upload_key_set`](Client::upload_key_set)
//!   (once per key set: it asks first whether the server has it, by its SHA-256),
//!   [`submit`](Client::submit), [`wait`](Client::wait), [`result`](Client::result),
//!   [`run`](Client::run) for the three in one. Requests that can be repeated without harm
//!   are retried on connection failures and `502`/`503`/`504` (a job submission carries an
//!   `Idempotency-Key`, so a retried one is not queued twice).
//! - [`RemoteWitnessServer`] is a [`he_groth16::WitnessServer`] on a remote server, and
//!   [`remote_witness_session`] the whole set-up: keys made here, the key set uploaded, an
//!   [`Outsourcing`](he_groth16::Outsourcing) session whose witness maps run remotely, so that
//!   `Groth16::<E, EncryptedReduction>::prove` runs unchanged, with the owner's `O(n)` check.
//! - [`RemoteTransform`] is an FFT (any route, either direction, subgroup or coset), coset
//!   change or product by a matrix of the owner's choosing on a remote server: keys made and
//!   uploaded once, then each result decrypted and checked here.
//!
//! ```no_run
//! use he_client::{remote_witness_session, Client};
//! use he_fft::protocol::Ring;
//!
//! # fn main() -> Result<(), he_client::ClientError> {
//! let client = Client::with_token_file("http://127.0.0.1:8700", "target/he-server/token".as_ref())?;
//! let route = he_groth16::WitnessMapRoute::ServerOnly;
//! let (session, setup) = remote_witness_session::<ark_bn254::Fr>(client, 4096, Ring::Secure, route)?;
//! println!("key set {} uploaded in {:?}", setup.key_set, setup.upload_time);
//! let session = std::sync::Arc::new(session);
//! let _guard = session.enter(); // then prove with he_groth16::EncryptedReduction
//! # Ok(())
//! # }
//! ```

mod client;
mod remote;
mod remote_transform;

pub use client::{Client, ClientError, JobStatus, Progress, Transfer};
pub use remote::{remote_witness_session, RemoteSetup, RemoteWitnessServer};
pub use remote_transform::RemoteTransform;
