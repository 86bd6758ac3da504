//! [`serve_directory`]: the server's step of a file exchange, for every job a [`Request`]
//! names.

use std::time::Duration;

use ark_ff::{FftField, PrimeField};

use crate::error::{Error, Result};
use crate::protocol::exchange_dir::ExchangeDir;
use crate::protocol::request::{Job, Request, Ring};
use crate::protocol::server_keys::ServerKeys;
use crate::{DiagonalCache, Progress, Route};

/// What the server is willing to do with a request: by default, FFT and witness-map jobs on
/// secure rings, each FFT by the route [`Route::fastest_for`] its size (or
/// [`Route::RowFfts`] where that is the four steps), and no diagonals kept between runs.
#[derive(Clone, Copy, Debug)]
pub struct ServePolicy {
    /// Serve requests on the insecure toy ring (tests and demonstrations), by any route.
    pub allow_toy_ring: bool,
    /// Serve FFT jobs and the other linear transforms (the coset change, matrix products).
    pub serve_fft: bool,
    /// Serve witness-map jobs.
    pub serve_witness_map: bool,
    /// Whether the transform keeps its encoded diagonals in memory.
    pub cache: DiagonalCache,
}

impl Default for ServePolicy {
    fn default() -> Self {
        ServePolicy {
            allow_toy_ring: false,
            serve_fft: true,
            serve_witness_map: true,
            cache: DiagonalCache::Never,
        }
    }
}

impl ServePolicy {
    /// [`Error::InvalidArgument`] for a request this policy does not serve. On a secure ring
    /// an FFT must take the route its size calls for: a slower route (one product of a million
    /// points, say) would cost the server far more than any owner needs.
    pub fn check(&self, request: &Request) -> Result<()> {
        let refuse = |why: String| Err(Error::InvalidArgument(format!("{why} ({request})")));
        match request.job {
            Job::Fft { .. } | Job::CosetChange | Job::MatrixProduct { .. } if !self.serve_fft => {
                return refuse("this server runs no FFTs or matrix products".into())
            }
            Job::WitnessMap | Job::ClientAssistedWitnessMap if !self.serve_witness_map => {
                return refuse("this server runs no witness maps".into())
            }
            _ => {}
        }
        if request.ring == Ring::Toy {
            if !self.allow_toy_ring {
                return refuse(
                    "the request is on the insecure toy ring, which this server serves only \
                     when allowed to (--small)"
                        .into(),
                );
            }
            return Ok(());
        }
        let fastest = Route::fastest_for(request.size);
        match request.job {
            // The owner's first step changes only what the owner sends, at a smaller cost here.
            Job::Fft {
                route: Route::RowFfts,
                ..
            } if fastest == Route::FourSteps => Ok(()),
            Job::Fft { route, .. } if route != fastest => refuse(format!(
                "{} points take the {fastest} route here, not {route}",
                request.size,
            )),
            _ => Ok(()),
        }
    }
}

/// What [`serve_directory`] did.
#[derive(Debug)]
pub struct ServerReport {
    /// The request it served.
    pub request: Request,
    /// Galois keys read or derived.
    pub keys: usize,
    /// Master keys the Galois keys were derived from (0: every key was shipped).
    pub masters: usize,
    /// Reading (and deriving) the keys: ready for the first transform.
    pub keys_ready_time: Duration,
    /// Deriving the Galois keys from the masters, within `keys_ready_time`.
    pub derive_time: Option<Duration>,
    /// Reading and validating the context, the public key and the ciphertexts.
    pub load_time: Duration,
    /// Building the transform (its plans and, when cached, its encoded diagonals).
    pub setup_time: Duration,
    /// The transform and writing the outputs.
    pub run_time: Duration,
    /// Bytes of the outputs, as the owner downloads them.
    pub download_bytes: u64,
}

/// The server's step: reads `public/` only and writes the encrypted result there
/// ([`ServerKeys::open`], then [`ServerKeys::serve`] on the same directory).
///
/// It refuses a request `policy` does not serve ([`ServePolicy::check`]), builds the context
/// the request calls for and refuses a [`CONTEXT_FILE`](super::CONTEXT_FILE) with other bytes before building
/// anything from it; every other file is read no further than its kind allows under that
/// context. The outputs are switched down to the fewest primes the owner's decryption needs.
pub fn serve_directory<F: FftField + PrimeField>(
    dir: &ExchangeDir,
    policy: ServePolicy,
    progress: Progress<'_>,
) -> Result<ServerReport> {
    let keys = ServerKeys::<F>::open(dir, policy)?;
    let run = keys.serve(dir, progress)?;
    Ok(ServerReport {
        request: keys.request,
        keys: keys.gk.as_ref().map_or(0, |k| k.elements().len()),
        masters: keys.masters,
        keys_ready_time: keys.keys_ready_time,
        derive_time: keys.derive_time,
        load_time: keys.load_time + run.read_time,
        setup_time: keys.setup_time,
        run_time: run.run_time,
        download_bytes: run.download_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Direction;

    fn fft(route: Route, size: usize) -> Request {
        Request::new(
            Job::Fft {
                direction: Direction::Forward,
                route,
            },
            size,
        )
    }

    #[test]
    fn the_policy_refuses_what_it_does_not_serve() {
        let policy = ServePolicy::default();
        assert!(policy.check(&Request::forward_fft(4096)).is_ok());
        assert!(policy.check(&Request::new(Job::WitnessMap, 4096)).is_ok());
        // One product of 2^21 points would be 8192 block products: refused on a secure ring.
        let slow = fft(Route::OneProduct, 1 << 21);
        match policy.check(&slow) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains("four-steps route"), "{m}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
        let toy = fft(Route::OneProduct, 4096).on_toy_ring();
        assert!(policy.check(&toy).is_err());
        assert!(policy.check(&fft(Route::RowFfts, 1 << 20)).is_ok());
        assert!(policy.check(&fft(Route::RowFfts, 4096)).is_err());
        let tests = ServePolicy {
            allow_toy_ring: true,
            ..ServePolicy::default()
        };
        assert!(tests.check(&toy).is_ok());
        let fft_only = ServePolicy {
            serve_witness_map: false,
            ..ServePolicy::default()
        };
        assert!(fft_only.check(&Request::new(Job::WitnessMap, 64)).is_err());
        let maps_only = ServePolicy {
            serve_fft: false,
            ..ServePolicy::default()
        };
        assert!(maps_only.check(&Request::forward_fft(64)).is_err());
    }

    /// The owner's first step through the files: the owner's `encrypt` runs it, the server
    /// the row FFTs, and the owner reads the FFT.
    #[test]
    fn the_owners_first_step_round_trips_through_a_directory() {
        use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
        type Fr = ark_bn254::Fr;
        let tmp = tempfile::tempdir().unwrap();
        let dir = ExchangeDir::new(tmp.path());
        let n = 4 * super::super::TOY_RING_DEGREE;
        let request = fft(Route::RowFfts, n).on_toy_ring();
        let x: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * i + 3)).collect();
        crate::protocol::OwnerJob::<Fr>::new(&request)
            .unwrap()
            .write(&dir, &[&x])
            .unwrap();
        let policy = ServePolicy {
            allow_toy_ring: true,
            ..ServePolicy::default()
        };
        let report = serve_directory::<Fr>(&dir, policy, &|_, _| {}).unwrap();
        assert_eq!((report.request.job, report.request.size), (request.job, n));
        let (y, _) = crate::protocol::OwnerKeys::open::<Fr>(&dir)
            .unwrap()
            .decrypt_outputs::<Fr>(&dir)
            .unwrap();
        assert_eq!(y, Radix2EvaluationDomain::<Fr>::new(n).unwrap().fft(&x));
    }

    /// A witness-map request names its chains when the owner writes it, so a server with
    /// another thread count builds the owner's plan and has every key it needs: an owner on
    /// four threads (two chains per input), a server on two (one, had the request not said).
    #[test]
    fn a_witness_map_request_fixes_the_chains_for_the_server() {
        use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
        type Fr = ark_bn254::Fr;
        let tmp = tempfile::tempdir().unwrap();
        let dir = ExchangeDir::new(tmp.path());
        let n = 2 * super::super::TOY_RING_DEGREE;
        let request = Request::new(Job::WitnessMap, n).on_toy_ring();
        let a: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * 7 + 1)).collect();
        let b: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * i + 5)).collect();
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let pool = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
        };
        let written = pool(4).install(|| {
            let job = crate::protocol::OwnerJob::<Fr>::new(&request).unwrap();
            job.write(&dir, &[&a, &b]).unwrap();
            *job.request()
        });
        assert_eq!(written.chains, Some(2));
        let policy = ServePolicy {
            allow_toy_ring: true,
            ..ServePolicy::default()
        };
        let report = pool(2)
            .install(|| serve_directory::<Fr>(&dir, policy, &|_, _| {}))
            .unwrap();
        assert_eq!(report.request, written);
        let (h, _) = crate::protocol::OwnerKeys::open::<Fr>(&dir)
            .unwrap()
            .decrypt_outputs::<Fr>(&dir)
            .unwrap();
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        crate::check::quotient(&domain, &a, &b, &c, &h).expect("the owner's check");
    }
}
