//! Receiving a request body into a file: never more than its limit, never waiting longer than
//! the idle timeout for the next bytes, and the limit known from the body's first bytes where
//! they decide it (a key set's request line).

use std::path::Path;
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use http_body_util::BodyExt;
use tokio::io::AsyncWriteExt;

use crate::error::ApiError;

/// Reads a body's first bytes and returns its limit once they tell it (`Ok(None)`: not yet).
pub type DecideLimit<'a> = &'a mut (dyn FnMut(&[u8]) -> Result<Option<u64>, ApiError> + Send);

/// What decides a body's limit: known up front, or from its first bytes.
pub enum Limit<'a> {
    /// At most this many bytes.
    Bytes(u64),
    /// Called with the bytes so far (up to `prefix_max` of them) until it returns the limit;
    /// an error refuses the body.
    FromPrefix {
        /// The most bytes of prefix that must suffice.
        prefix_max: usize,
        /// The limit, once the prefix tells it (`Ok(None)`: not yet).
        decide: DecideLimit<'a>,
    },
}

/// The most bytes read and dropped after a body is refused, so that a client still sending
/// reads the refusal instead of a broken connection; past it, the connection is closed.
pub const DRAIN_LIMIT: u64 = 64 << 20;

/// Bytes gathered before each write of a body to its file.
const WRITE_BUFFER: usize = 8 << 20;

/// Writes `body` to a new file at `path` (synced before returning) and returns its length.
/// `413` past the limit, `408` when no bytes come for `idle`, `400` when the client stops
/// sending midway. On error the file is removed and the rest of the body drained.
pub async fn receive(
    mut body: Body,
    path: &Path,
    mut limit: Limit<'_>,
    idle: Duration,
) -> Result<u64, ApiError> {
    let result = receive_into(&mut body, path, &mut limit, idle).await;
    if result.is_err() {
        let _ = tokio::fs::remove_file(path).await;
        drain(body, idle).await;
    }
    result
}

/// Reads and drops what is left of a refused body, up to [`DRAIN_LIMIT`] bytes and while
/// bytes keep coming within `idle`.
pub async fn drain(mut body: Body, idle: Duration) {
    let mut dropped = 0u64;
    while dropped <= DRAIN_LIMIT {
        match tokio::time::timeout(idle, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    dropped += data.len() as u64;
                }
            }
            _ => return,
        }
    }
}

async fn receive_into(
    body: &mut Body,
    path: &Path,
    limit: &mut Limit<'_>,
    idle: Duration,
) -> Result<u64, ApiError> {
    let file = tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .await
        .map_err(|e| ApiError::internal(format!("a body's file: {e}")))?;
    // Frames are a few kilobytes; each write to a tokio file is a trip to the blocking pool,
    // so they are gathered into large writes (the difference between 60 MB/s and disk speed).
    let mut file = tokio::io::BufWriter::with_capacity(WRITE_BUFFER, file);
    let mut cap = match limit {
        Limit::Bytes(n) => Some(*n),
        Limit::FromPrefix { .. } => None,
    };
    let mut prefix = Vec::new();
    let mut written = 0u64;
    loop {
        let frame = match tokio::time::timeout(idle, body.frame()).await {
            Err(_) => {
                return Err(ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    format!("no bytes for {} s; the body was dropped", idle.as_secs()),
                ))
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(ApiError::bad_request(format!(
                    "the body was cut short: {e}"
                )))
            }
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if cap.is_none() {
            if let Limit::FromPrefix { prefix_max, decide } = limit {
                let take = (*prefix_max - prefix.len()).min(data.len());
                prefix.extend_from_slice(&data[..take]);
                cap = decide(&prefix)?;
                if cap.is_none() && prefix.len() >= *prefix_max {
                    return Err(ApiError::bad_request(
                        "the body's first bytes do not say what it is",
                    ));
                }
            }
        }
        written += data.len() as u64;
        if let Some(most) = cap {
            if written > most {
                return Err(too_large(most));
            }
        }
        file.write_all(&data)
            .await
            .map_err(|e| ApiError::internal(format!("writing a body: {e}")))?;
    }
    if cap.is_none() {
        if let Limit::FromPrefix { decide, .. } = limit {
            if decide(&prefix)?.is_none() {
                return Err(ApiError::bad_request(
                    "the body ends before it says what it is",
                ));
            }
        }
    }
    file.flush()
        .await
        .map_err(|e| ApiError::internal(format!("writing a body: {e}")))?;
    file.get_ref()
        .sync_all()
        .await
        .map_err(|e| ApiError::internal(format!("writing a body: {e}")))?;
    Ok(written)
}

fn too_large(most: u64) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the body is longer than the {most} bytes it may take"),
    )
}
