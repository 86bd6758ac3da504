//! `he-server`: an HTTP server that runs the encrypted FFTs and Groth16 witness maps of
//! [`he_fft`] for its tenants, over BN254's scalar field.
//!
//! An owner uploads a *key set* once (the request line naming the job, the context, the public
//! key, the Galois or master keys; [`he_fft::protocol::KeySetParts`]), named by the SHA-256 of
//! its bytes, then submits *jobs* on it: input ciphertexts in, output ciphertexts out. The
//! server never holds a secret key; the owner checks what comes back (`he_fft::check`).
//!
//! - **Tenants** authenticate with bearer tokens from a file ([`Tenants`]); a tenant never
//!   sees another's key sets or jobs (they answer `404`, as if absent).
//! - **Memory**: every job is admitted against a budget with an estimate of its keys and
//!   working memory ([`scheduler::working_memory`]); jobs wait in a bounded queue, and a full
//!   queue is a `503` with `Retry-After`.
//! - **Bodies** are limited by what the key set's context allows and dropped when they stall.
//! - **State** survives crashes: SQLite for metadata and files written whole for bytes
//!   ([`Store`]); after a restart, key sets and finished results are intact and jobs that were
//!   queued or running are reported failed.
//!
//! The routes, bodies and status codes are in docs/server.md; `he-client` is the Rust client.
//!
//! ```no_run
//! # async fn demo() -> Result<(), he_server::StartError> {
//! let config = he_server::Config {
//!     listen: "127.0.0.1:8700".into(),
//!     state: "/var/lib/he-server".into(),
//!     tokens: "/etc/he-server/tokens".into(),
//!     ..he_server::Config::default()
//! };
//! he_server::serve(config).await
//! # }
//! ```

pub mod api;
pub mod body;
pub mod error;
pub mod memory;
pub mod scheduler;
pub mod store;
pub mod tenants;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use he_fft::protocol::ServePolicy;
use he_fft::DiagonalCache;

pub use error::{ApiError, StartError};
pub use memory::MemoryGate;
pub use scheduler::Scheduler;
pub use store::Store;
pub use tenants::Tenants;

/// How a server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The address to listen on (`127.0.0.1:0` picks a free port).
    pub listen: String,
    /// The state directory (created if missing, readable by the server's user only).
    pub state: PathBuf,
    /// The tokens file: `TENANT TOKEN` per line.
    pub tokens: PathBuf,
    /// Bytes of memory the loaded keys and running jobs may take together.
    pub memory_budget: u64,
    /// Jobs that may wait; more are refused with `503`.
    pub max_queue: usize,
    /// Worker threads (jobs run at once, memory permitting; each uses every core).
    pub workers: usize,
    /// Serve requests on the insecure toy ring (tests and demonstrations only).
    pub allow_toy_ring: bool,
    /// How long a connection may wait before sending a request's headers, and a request's
    /// body may pause, before it is closed.
    pub idle_timeout: Duration,
}

impl Default for Config {
    /// Loopback port 8700, `state/` and `tokens` in the working directory, three quarters of
    /// the machine's memory, 16 queued jobs, one worker, secure rings only, 60 s idle.
    fn default() -> Self {
        Config {
            listen: "127.0.0.1:8700".into(),
            state: "state".into(),
            tokens: "tokens".into(),
            memory_budget: default_memory_budget(),
            max_queue: 16,
            workers: 1,
            allow_toy_ring: false,
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// Three quarters of the machine's memory (`/proc/meminfo`), or 8 GiB where that cannot be
/// read.
pub fn default_memory_budget() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    total.map_or(8 << 30, |t| t / 4 * 3)
}

/// Runs the server until Ctrl-C or SIGTERM: binds `config.listen`, prints
/// `he-server listening on ADDR` on standard output (the address actually bound), and serves;
/// connections idle for `config.idle_timeout` are closed.
pub async fn serve(config: Config) -> Result<(), StartError> {
    let tenants = Tenants::from_file(&config.tokens)?;
    let store = Arc::new(Store::open(&config.state)?);
    let policy = ServePolicy {
        allow_toy_ring: config.allow_toy_ring,
        cache: DiagonalCache::Never,
        ..ServePolicy::default()
    };
    let gate = Arc::new(MemoryGate::new(config.memory_budget));
    let scheduler = Scheduler::start(
        Arc::clone(&store),
        policy,
        gate,
        config.workers,
        config.max_queue,
    )?;
    let state = Arc::new(api::AppState {
        store,
        tenants,
        scheduler: Arc::clone(&scheduler),
        policy,
        idle_timeout: config.idle_timeout,
    });
    let listener = tokio::net::TcpListener::bind(&config.listen)
        .await
        .map_err(|e| StartError::Listen {
            addr: config.listen.clone(),
            message: e.to_string(),
        })?;
    let addr = listener.local_addr().map_err(|e| StartError::Listen {
        addr: config.listen.clone(),
        message: e.to_string(),
    })?;
    tracing::info!(%addr, budget = config.memory_budget, "listening");
    println!("he-server listening on {addr}");
    accept(listener, api::router(state), config.idle_timeout).await;
    scheduler.stop();
    Ok(())
}

/// Serves connections until Ctrl-C or SIGTERM, then lets the open ones finish their requests
/// (for at most a minute). A connection that sends no request headers within `idle` (a new
/// one, or a kept-alive one between requests) is closed: axum's own `serve` sets no timer
/// and would keep it forever.
async fn accept(listener: tokio::net::TcpListener, router: axum::Router, idle: Duration) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let stop = shutdown();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        // Out of descriptors, say: wait a little rather than spin.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let service = hyper_util::service::TowerToHyperService::new(router.clone());
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(idle)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!(error = %e, "connection closed");
                    }
                });
            }
            () = &mut stop => break,
        }
    }
    drop(listener);
    if tokio::time::timeout(Duration::from_secs(60), graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after a minute; stopping anyway");
    }
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down");
}
