//! [`Client`]: the HTTP calls, their retries, and what they moved.

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use he_fft::protocol::{ciphertexts_reader, read_ciphertexts, KeySetParts};
use helib_rs::Context;
use serde::Deserialize;

/// What went wrong talking to the server.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with an error status.
    #[error("the server answered {status}: {message}")]
    Server {
        /// The HTTP status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// The connection failed, after the retries.
    #[error("the connection to the server failed: {0}")]
    Transport(String),
    /// A body from the server did not parse.
    #[error("the server's answer: {0}")]
    Protocol(#[from] he_fft::Error),
    /// A job ended without outputs.
    #[error("job {job} {state}: {message}")]
    Job {
        /// The job.
        job: String,
        /// `failed` or `cancelled`.
        state: String,
        /// Why.
        message: String,
    },
    /// The owner's check refused a result: not the computation asked for.
    #[error("the result was rejected: {0}")]
    Rejected(he_fft::Error),
    /// The token file, or an argument, is unusable.
    #[error("{0}")]
    Invalid(String),
    /// Making the keys or the session failed.
    #[error(transparent)]
    Groth16(#[from] he_groth16::Error),
    /// The engine refused an operation.
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),
}

type Result<T> = std::result::Result<T, ClientError>;

/// A job as the server reports it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct JobStatus {
    /// The job's name.
    pub job: String,
    /// The key set it runs on.
    pub key_set: String,
    /// `queued`, `running`, `done`, `failed` or `cancelled`.
    pub state: String,
    /// Why it failed.
    pub error: Option<String>,
    /// Steps done and in all, while running.
    pub progress: Option<Progress>,
    /// Output ciphertexts, once done.
    pub outputs: Option<u64>,
    /// Their bytes, once done.
    pub output_bytes: Option<u64>,
    /// The server's computation in seconds, once done.
    pub server_s: Option<f64>,
}

/// A running job's progress.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub struct Progress {
    /// Steps done.
    pub done: usize,
    /// Steps in all.
    pub total: usize,
}

/// Bytes moved and time spent on the wire, summed over calls.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transfer {
    /// Bytes of request bodies sent (key sets and inputs).
    pub upload_bytes: u64,
    /// Bytes of result bodies received.
    pub download_bytes: u64,
    /// Time spent sending and receiving bodies.
    pub network: Duration,
    /// The server's computation, as it reports it, for the jobs [`Client::run`] ran.
    pub server: Duration,
}

/// A blocking client of one server, as one tenant. Clones share their connections and their
/// [`transfer`](Self::transfer) count.
#[derive(Clone)]
pub struct Client {
    base: String,
    auth: String,
    agent: ureq::Agent,
    /// Attempts after the first for requests that are safe to repeat.
    pub retries: u32,
    /// How long each of [`wait`](Self::wait)'s questions may wait on the server for the job
    /// to end (whole seconds, at least one): how often a progress callback hears of it.
    pub poll: Duration,
    transfer: Arc<Mutex<Transfer>>,
}

impl Client {
    /// A client of the server at `base_url` (`http://host:port`, or `https://` through a
    /// TLS-terminating proxy, checked against the web's root certificates) with the bearer
    /// `token`.
    pub fn new(base_url: &str, token: &str) -> Result<Client> {
        let base = base_url.trim_end_matches('/').to_string();
        if !base.starts_with("http://") && !base.starts_with("https://") {
            return Err(ClientError::Invalid(format!(
                "{base_url:?}: a server URL starts with http:// or https://"
            )));
        }
        let token = token.trim();
        if token.is_empty() || token.contains(char::is_whitespace) {
            return Err(ClientError::Invalid(
                "a token is one word, not empty".into(),
            ));
        }
        // A server that stops answering is an error, not a hang: answers come within the
        // longest long poll (60 s) and a submission's checks; bodies may take longer.
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_recv_response(Some(Duration::from_secs(300)))
            .timeout_recv_body(Some(Duration::from_secs(3600)))
            .build()
            .into();
        Ok(Client {
            base,
            auth: format!("Bearer {token}"),
            agent,
            retries: 5,
            poll: Duration::from_secs(1),
            transfer: Arc::default(),
        })
    }

    /// [`new`](Self::new) with the token read from `path` (the token alone, surrounding
    /// whitespace ignored).
    pub fn with_token_file(base_url: &str, path: &Path) -> Result<Client> {
        let token = std::fs::read_to_string(path)
            .map_err(|e| ClientError::Invalid(format!("the token file {}: {e}", path.display())))?;
        Self::new(base_url, &token)
    }

    /// What the calls so far moved.
    pub fn transfer(&self) -> Transfer {
        self.transfer.lock().map(|t| *t).unwrap_or_default()
    }

    fn count(&self, up: u64, down: u64, time: Duration) {
        if let Ok(mut t) = self.transfer.lock() {
            t.upload_bytes += up;
            t.download_bytes += down;
            t.network += time;
        }
    }

    /// `GET /v1/health`.
    pub fn health(&self) -> Result<serde_json::Value> {
        let mut response =
            self.retrying(|| self.agent.get(format!("{}/v1/health", self.base)).call())?;
        json(&mut response)
    }

    /// The key sets this tenant has stored (id, request, bytes, ...), oldest first.
    pub fn key_sets(&self) -> Result<Vec<serde_json::Value>> {
        json(&mut self.get("/v1/key-sets")?)
    }

    /// Stores `parts` on the server unless it already has them (it is asked first, by the
    /// key set's SHA-256), and returns the key set's id.
    pub fn upload_key_set(&self, parts: &KeySetParts<'_>) -> Result<String> {
        let id = parts.id();
        let url = format!("{}/v1/key-sets/{id}", self.base);
        let head = self.send(|| {
            self.agent
                .head(&url)
                .header("authorization", &self.auth)
                .call()
        })?;
        match head.status().as_u16() {
            200 => return Ok(id),
            404 => {}
            _ => {
                check(head)?;
            }
        }
        let mut response =
            self.send_body(|| self.agent.put(&url), parts.len(), || parts.reader())?;
        let _: serde_json::Value = json(&mut response)?;
        Ok(id)
    }

    /// Queues the key set's transform on `inputs` (their bytes, in the order the transform
    /// takes them). Retried with one `Idempotency-Key`, so it queues one job at most.
    pub fn submit<T: AsRef<[u8]>>(&self, key_set: &str, inputs: &[T]) -> Result<JobStatus> {
        let key = random_key()?;
        let url = format!("{}/v1/key-sets/{key_set}/jobs", self.base);
        let len = he_fft::protocol::ciphertexts_len(
            inputs.len(),
            inputs.iter().map(|c| c.as_ref().len() as u64).sum(),
        );
        let mut response = self.send_body(
            || self.agent.post(&url).header("idempotency-key", &key),
            len,
            || ciphertexts_reader(inputs),
        )?;
        json(&mut response)
    }

    /// The job's status.
    pub fn status(&self, job: &str) -> Result<JobStatus> {
        json(&mut self.get(&format!("/v1/jobs/{job}"))?)
    }

    /// Asks until the job has ended, calling `seen` with each status; a failed or cancelled
    /// job is [`ClientError::Job`]. Each question waits on the server for up to
    /// [`poll`](Self::poll) (rounded up to a second) for the job to end, so the answer comes
    /// as soon as it does.
    pub fn wait(&self, job: &str, seen: &mut dyn FnMut(&JobStatus)) -> Result<JobStatus> {
        let hold = self.poll.as_secs().max(1);
        loop {
            let status: JobStatus = json(&mut self.get(&format!("/v1/jobs/{job}?wait={hold}"))?)?;
            seen(&status);
            match status.state.as_str() {
                "done" => return Ok(status),
                "failed" | "cancelled" => {
                    return Err(ClientError::Job {
                        job: job.to_string(),
                        state: status.state.clone(),
                        message: status.error.unwrap_or_default(),
                    })
                }
                _ => {}
            }
        }
    }

    /// A done job's outputs, each checked to be no longer than a ciphertext of `ctx` may be,
    /// at most `max_outputs` of them.
    pub fn result(&self, job: &str, ctx: &Context, max_outputs: usize) -> Result<Vec<Vec<u8>>> {
        let start = Instant::now();
        let mut response = self.get(&format!("/v1/jobs/{job}/result"))?;
        let most = he_fft::protocol::max_ciphertexts_len(ctx, max_outputs)?;
        let mut body = Vec::new();
        response
            .body_mut()
            .as_reader()
            .take(most)
            .read_to_end(&mut body)
            .map_err(|e| ClientError::Transport(e.to_string()))?;
        self.count(0, body.len() as u64, start.elapsed());
        Ok(read_ciphertexts(&body[..], ctx, max_outputs)?)
    }

    /// Cancels a queued or running job, or forgets a finished one.
    pub fn cancel(&self, job: &str) -> Result<()> {
        self.retrying(|| {
            self.agent
                .delete(format!("{}/v1/jobs/{job}", self.base))
                .header("authorization", &self.auth)
                .call()
        })?;
        Ok(())
    }

    /// [`submit`](Self::submit), [`wait`](Self::wait) and [`result`](Self::result): the
    /// outputs and the final status. The job is forgotten on the server once read.
    pub fn run<T: AsRef<[u8]>>(
        &self,
        key_set: &str,
        inputs: &[T],
        ctx: &Context,
        max_outputs: usize,
    ) -> Result<(Vec<Vec<u8>>, JobStatus)> {
        let job = self.submit(key_set, inputs)?;
        let status = self.wait(&job.job, &mut |_| {})?;
        let outputs = self.result(&job.job, ctx, max_outputs)?;
        if let Ok(mut t) = self.transfer.lock() {
            t.server += Duration::from_secs_f64(status.server_s.unwrap_or(0.0).max(0.0));
        }
        let _ = self.cancel(&job.job);
        Ok((outputs, status))
    }

    /// `GET` of `path` as this tenant, retried, error statuses turned into errors.
    fn get(&self, path: &str) -> Result<ureq::http::Response<ureq::Body>> {
        self.retrying(|| {
            self.agent
                .get(format!("{}{path}", self.base))
                .header("authorization", &self.auth)
                .call()
        })
    }

    /// A body of `len` bytes from `body()` sent with `request()` as this tenant, retried
    /// (each attempt from the start of the body), and counted in [`transfer`](Self::transfer).
    fn send_body<'b>(
        &self,
        request: impl Fn() -> ureq::RequestBuilder<ureq::typestate::WithBody>,
        len: u64,
        body: impl Fn() -> he_fft::protocol::PiecesReader<'b>,
    ) -> Result<ureq::http::Response<ureq::Body>> {
        let start = Instant::now();
        let response = self.retrying(|| {
            let mut reader = body();
            request()
                .header("authorization", &self.auth)
                .header("content-type", "application/octet-stream")
                .header("content-length", len.to_string())
                .send(ureq::SendBody::from_reader(&mut reader))
        })?;
        self.count(len, 0, start.elapsed());
        Ok(response)
    }

    /// Sends, then turns an error status into [`ClientError::Server`].
    fn retrying(
        &self,
        send: impl Fn() -> std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<ureq::http::Response<ureq::Body>> {
        check(self.send(send)?)
    }

    /// Sends with retries on connection failures and `502`/`503`/`504` (waiting as
    /// `Retry-After` says, else doubling from half a second).
    fn send(
        &self,
        send: impl Fn() -> std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<ureq::http::Response<ureq::Body>> {
        let mut wait = Duration::from_millis(500);
        let mut attempt = 0;
        loop {
            let outcome = send();
            let retry = match &outcome {
                Err(_) => true,
                Ok(r) => matches!(r.status().as_u16(), 502..=504),
            };
            if !retry || attempt >= self.retries {
                return outcome.map_err(|e| ClientError::Transport(e.to_string()));
            }
            if let Ok(r) = &outcome {
                if let Some(s) = r
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok())
                {
                    wait = Duration::from_secs(s.min(60));
                }
            }
            std::thread::sleep(wait);
            wait = (wait * 2).min(Duration::from_secs(30));
            attempt += 1;
        }
    }
}

/// The response, or [`ClientError::Server`] with the server's message for an error status.
fn check(
    mut response: ureq::http::Response<ureq::Body>,
) -> Result<ureq::http::Response<ureq::Body>> {
    let status = response.status().as_u16();
    if status < 400 {
        return Ok(response);
    }
    let message = response
        .body_mut()
        .with_config()
        .limit(64 * 1024)
        .read_to_string()
        .ok()
        .map(|t| {
            serde_json::from_str::<serde_json::Value>(&t)
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_string))
                .unwrap_or(t)
        })
        .unwrap_or_default();
    Err(ClientError::Server { status, message })
}

fn json<T: serde::de::DeserializeOwned>(
    response: &mut ureq::http::Response<ureq::Body>,
) -> Result<T> {
    let text = response
        .body_mut()
        .with_config()
        .limit(16 << 20)
        .read_to_string()
        .map_err(|e| ClientError::Transport(e.to_string()))?;
    serde_json::from_str(&text)
        .map_err(|e| ClientError::Invalid(format!("the server's answer {text:?}: {e}")))
}

/// 128 random bits as hex, from the OS.
fn random_key() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ClientError::Invalid(format!("the OS random generator: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
