//! The server's errors: [`ApiError`], what a request gets back (a status and a message, as
//! JSON), and [`StartError`], why the server could not start.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// A request's failure: its HTTP status and a message for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The status code.
    pub status: StatusCode,
    /// What went wrong, for the client.
    pub message: String,
    /// Seconds after which to retry (`503` for a full queue).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with `status` and `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    /// `400`: a body or parameter that does not parse or does not fit.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// `401`: no token, or one no tenant has.
    pub fn unauthorized() -> ApiError {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "a bearer token of a tenant is required (Authorization: Bearer TOKEN)",
        )
    }

    /// `404`: nothing of that name for this tenant (whether another tenant has one is not
    /// said).
    pub fn not_found(what: &str) -> ApiError {
        Self::new(StatusCode::NOT_FOUND, format!("no such {what}"))
    }

    /// `500`: the server's own failure.
    pub fn internal(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for ApiError {}

impl From<he_fft::Error> for ApiError {
    /// The protocol's checks are the client's fault (`400` for framing and sizes, `422` for
    /// contents that parse but do not fit the request); a file the server could not write is
    /// its own (`500`).
    fn from(e: he_fft::Error) -> ApiError {
        match e {
            // The server's own paths and failures are for its log, not for its tenants.
            he_fft::Error::Io { .. } | he_fft::Error::Internal(_) => {
                tracing::error!(error = %e, "a request failed on the server's side");
                Self::internal("the server failed to read or write its own files; see its log")
            }
            he_fft::Error::BadRequest(_) | he_fft::Error::WrongLength { .. } => {
                Self::bad_request(e.to_string())
            }
            _ => Self::new(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
        }
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> ApiError {
        Self::internal(format!("the server's database: {e}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message });
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(seconds) = self.retry_after {
            if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

/// Why the server did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The tokens file is missing or malformed.
    #[error("the tokens file: {0}")]
    Tokens(String),
    /// The state directory or its database could not be opened.
    #[error("the state directory: {0}")]
    State(String),
    /// The listening address could not be bound.
    #[error("listening on {addr}: {message}")]
    Listen {
        /// The address asked for.
        addr: String,
        /// The system's reason.
        message: String,
    },
}
