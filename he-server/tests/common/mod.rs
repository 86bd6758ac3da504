//! A real `he-server` process on a loopback port, and an owner's toy-ring FFT key set.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use ark_bn254::Fr;
use he_client::Client;
use he_fft::protocol::{matrix_bytes, Job, KeyKind, KeySetParts, Request, TOY_RING_DEGREE};
use he_fft::{DiagonalCache, EncryptedTransform, Matrix};
use he_fft::{Direction, Route};
use helib_rs::{Context, Ctxt, GaloisKeys, MasterKeys, PubKey, SecKey};

pub const ALICE: &str = "alice-token-0123456789abcdef0123456789";
pub const BOB: &str = "bob-token-fedcba9876543210fedcba98765";

/// A server process; killed when dropped.
pub struct Server {
    child: Option<Child>,
    pub url: String,
    pub dir: PathBuf,
}

impl Server {
    /// Starts the server binary on `dir` (state and tokens beneath it), toy rings allowed.
    pub fn start(dir: &Path, extra: &[&str]) -> Server {
        let tokens = dir.join("tokens");
        if !tokens.exists() {
            std::fs::write(&tokens, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_he-server"))
            .args([
                "--listen",
                "127.0.0.1:0",
                "--allow-toy-ring",
                "--memory-budget",
                "4G",
            ])
            .arg("--state")
            .arg(dir.join("state"))
            .arg("--tokens")
            .arg(&tokens)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server binary starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("he-server listening on ")
            .unwrap_or_else(|| panic!("the server did not start: {line:?}"))
            .to_string();
        Server {
            child: Some(child),
            url: format!("http://{addr}"),
            dir: dir.to_path_buf(),
        }
    }

    /// `kill -9`, and waits for the process to end.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub fn client(&self, token: &str) -> Client {
        let mut c = Client::new(&self.url, token).unwrap();
        c.poll = std::time::Duration::from_millis(20);
        c
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// An owner's FFT of size `n` on the toy ring: its request, keys and transform.
pub struct Owner {
    pub request: Request,
    pub ctx: Context,
    pub sk: SecKey,
    pub pk: PubKey,
    pub transform: Box<dyn EncryptedTransform<Fr>>,
    pub context_bytes: Vec<u8>,
    pub pk_bytes: Vec<u8>,
    pub keys: Vec<u8>,
    /// A matrix product's matrix, as shipped (empty for other jobs).
    pub matrix: Vec<u8>,
}

impl Owner {
    pub fn fft(n: usize) -> Owner {
        // The toy ring's rows hold 1024 values: past them, the four steps.
        let route = if n > TOY_RING_DEGREE / 2 {
            Route::FourSteps
        } else {
            Route::fastest_for(n)
        };
        let job = Job::Fft {
            direction: Direction::Forward,
            route,
        };
        Owner::for_request(Request {
            chains: Some(1),
            ..Request::new(job, n).on_toy_ring()
        })
    }

    /// The product by `matrix` on the toy ring.
    pub fn matrix_product(matrix: Matrix<Fr>) -> Owner {
        let (rows, columns) = matrix.shape();
        let request = Request {
            chains: Some(1),
            ..Request::matrix_product(rows, columns).on_toy_ring()
        };
        let ctx = request.context::<Fr>().unwrap();
        let bytes = matrix_bytes(&matrix).unwrap();
        let product = request
            .product_by(&ctx, DiagonalCache::Never, matrix)
            .unwrap();
        Owner::with_transform(request, ctx, Box::new(product), bytes)
    }

    /// Fresh keys for `request` (Galois or master keys, as it says).
    pub fn for_request(request: Request) -> Owner {
        let ctx = request.context::<Fr>().unwrap();
        let transform = request.transform::<Fr>(&ctx, DiagonalCache::Never).unwrap();
        Owner::with_transform(request, ctx, transform, Vec::new())
    }

    fn with_transform(
        request: Request,
        ctx: Context,
        transform: Box<dyn EncryptedTransform<Fr>>,
        matrix: Vec<u8>,
    ) -> Owner {
        let sk = SecKey::generate(&ctx).unwrap();
        let pk = PubKey::generate(&sk).unwrap();
        let keys = match request.keys {
            KeyKind::Galois => GaloisKeys::generate(&sk, &transform.galois_steps())
                .unwrap()
                .to_bytes()
                .unwrap(),
            KeyKind::Master => MasterKeys::generate(&sk).unwrap().to_bytes().unwrap(),
        };
        Owner {
            request,
            context_bytes: ctx.to_bytes().unwrap(),
            pk_bytes: if request.needs_relinearization() {
                pk.to_bytes().unwrap()
            } else {
                pk.to_bytes_without_relinearization().unwrap()
            },
            ctx,
            sk,
            pk,
            transform,
            keys,
            matrix,
        }
    }

    pub fn parts(&self) -> KeySetParts<'_> {
        KeySetParts {
            request: self.request,
            context: &self.context_bytes,
            public_key: &self.pk_bytes,
            keys: &self.keys,
            matrix: &self.matrix,
        }
    }

    pub fn inputs(&self, x: &[Fr]) -> Vec<Vec<u8>> {
        self.transform.encrypt_to_bytes(&self.sk, x).unwrap()
    }

    pub fn decrypt(&self, outputs: &[Vec<u8>]) -> Vec<Fr> {
        let cts: Vec<Ctxt> = outputs
            .iter()
            .map(|b| Ctxt::from_bytes(&self.pk, b).unwrap())
            .collect();
        self.transform.decrypt(&self.sk, &cts).unwrap()
    }

    pub fn outputs(&self) -> usize {
        self.transform.info().output_ciphertexts
    }
}

pub fn values(n: usize, seed: u64) -> Vec<Fr> {
    (0..n as u64).map(|i| Fr::from(i * i + seed)).collect()
}
