//! The owner/server protocol: what an owner asks for ([`Request`], one line of text), how a
//! server rebuilds the context and transform from it without trusting the owner's files, and
//! the files both exchange through a directory ([`ExchangeDir`]) with the owner's steps
//! ([`OwnerJob`], [`OwnerKeys`]) and the server's ([`serve_directory`]).
//!
//! A network server speaks the same protocol: the request line, the same blobs (context,
//! public key, Galois or master keys, input ciphertexts in, output ciphertexts out), each
//! bounded by its kind under the request's context, framed as one body per key set or
//! list of ciphertexts ([`KeySetParts`] and [`read_key_set`], [`ciphertexts_reader`] and
//! [`read_ciphertexts`]). A server loads a key set
//! once ([`ServerKeys`]) and serves inputs with it as often as asked.
//!
//! ```
//! use ark_bn254::Fr;
//! use he_fft::protocol::{serve_directory, ExchangeDir, OwnerJob, OwnerKeys, Request, ServePolicy};
//! use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
//!
//! # fn main() -> Result<(), he_fft::Error> {
//! let tmp = std::env::temp_dir().join(format!("he-fft-protocol-doc-{}", std::process::id()));
//! let dir = ExchangeDir::new(&tmp);
//! let request = Request::forward_fft(16).on_toy_ring(); // toy ring: insecure, for tests
//! let x: Vec<Fr> = (0..16u64).map(Fr::from).collect();
//! OwnerJob::<Fr>::new(&request)?.write(&dir, &[&x])?; // the owner
//! let policy = ServePolicy { allow_toy_ring: true, ..ServePolicy::default() };
//! serve_directory::<Fr>(&dir, policy, &|_, _| {})?; // the server, which reads public/ only
//! let (y, _budget) = OwnerKeys::open::<Fr>(&dir)?.decrypt_outputs::<Fr>(&dir)?; // the owner
//! assert_eq!(y, Radix2EvaluationDomain::<Fr>::new(16).unwrap().fft(&x));
//! # std::fs::remove_dir_all(&tmp).ok();
//! # Ok(())
//! # }
//! ```

mod exchange_dir;
mod file_server;
mod matrix_bytes;
mod owner;
mod request;
mod server_keys;
mod wire;

pub use exchange_dir::{
    ExchangeDir, Side, CONTEXT_FILE, GALOIS_KEYS_FILE, MASTER_KEYS_FILE, MATRIX_FILE,
    PUBLIC_KEY_FILE, REQUEST_FILE, SECRET_KEY_FILE,
};
pub use file_server::{serve_directory, ServePolicy, ServerReport};
pub use matrix_bytes::{matrix_bytes, matrix_from_bytes, matrix_len, MAX_MATRIX_ENTRIES};
pub use owner::{OwnerJob, OwnerKeys, OwnerReport};
pub use request::{Domain, Job, KeyKind, Request, Ring, MAX_REQUEST_BYTES, TOY_RING_DEGREE};
pub use server_keys::{ServeRun, ServerKeys};
pub use wire::{
    ciphertexts_len, ciphertexts_reader, key_set_request, max_ciphertexts_len, max_key_set_len,
    read_ciphertexts, read_ciphertexts_into, read_key_set, KeySetParts, PiecesReader,
    CIPHERTEXTS_MAGIC, KEY_SET_MAGIC, KEY_SET_PREFIX_MAX,
};
