//! What every remote catalogue does with an answer: a refusal becomes the error class the caller
//! can act on (rate limits keep their `Retry-After`), and a success is decoded or named unreadable.

use std::time::Duration;

use httpx::reqwest::{self, header::RETRY_AFTER};
use serde::de::DeserializeOwned;

use crate::{Error, Result};

pub(crate) fn backend(service: &'static str, error: httpx::Error) -> Error {
    Error::Backend { service, error }
}

/// The client built from `builder` (httpx's, with any headers of the service's own).
pub(crate) fn client(
    service: &'static str,
    builder: reqwest::ClientBuilder,
) -> Result<reqwest::Client> {
    builder.build().map_err(|e| {
        backend(
            service,
            httpx::Error::Unreachable {
                detail: httpx::redact(&e.to_string()),
            },
        )
    })
}

/// Reads the answer to `sent` (a request to `path` of `service`) as JSON. `limits` are the
/// statuses the service uses for "too many requests" (429, and 503 for MusicBrainz). The body
/// of a refusal is not passed on (see `httpx::Error::from_status`).
pub(crate) async fn read_json<T: DeserializeOwned>(
    service: &'static str,
    path: &str,
    limits: &[u16],
    sent: std::result::Result<reqwest::Response, reqwest::Error>,
) -> Result<T> {
    let response = sent.map_err(|e| backend(service, httpx::Error::from_reqwest(&e)))?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .map(Duration::from_secs);
        let body = response.text().await.unwrap_or_default();
        tracing::debug!(service, path, status, "catalogue refused");
        return Err(backend(
            service,
            if limits.contains(&status) {
                httpx::Error::RateLimited { retry_after }
            } else {
                httpx::Error::from_status(status, &body)
            },
        ));
    }
    let bytes = response
        .bytes()
        .await
        .map_err(|e| backend(service, httpx::Error::from_reqwest(&e)))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        backend(
            service,
            httpx::Error::Decode {
                detail: format!("{path}: {e}"),
            },
        )
    })
}
