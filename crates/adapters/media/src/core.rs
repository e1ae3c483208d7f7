//! The shared HTTP core of the three servers: the token header each one takes, the instance's
//! timeouts, no redirects, errors that name method and path only, and every token scrubbed from
//! an answer's bytes before it is decoded (a server that echoes what it was sent shows it to no
//! one).

use domain::Secret;
use httpx::reqwest::{self, header::HeaderValue};
use serde::de::DeserializeOwned;

use crate::{Error, Server};

/// One media server's connection.
pub(crate) struct Core {
    client: reqwest::Client,
    base: url::Url,
    server: Server,
    token: Secret,
    /// Every token this instance knows (its own, managed users'), scrubbed from its answers.
    secrets: Vec<Secret>,
}

impl Core {
    pub fn new(
        server: Server,
        base: url::Url,
        token: Secret,
        others: &[Secret],
        timeouts: httpx::Timeouts,
    ) -> Result<Core, Error> {
        if token.expose().trim().is_empty() {
            return Err(Error::Config(
                "the instance has no api_key (its token)".into(),
            ));
        }
        let client = httpx::builder(timeouts)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| {
                Error::Config(format!(
                    "cannot build the HTTP client: {}",
                    httpx::redact(&e.to_string())
                ))
            })?;
        let mut secrets = vec![token.clone()];
        secrets.extend(others.iter().cloned());
        Ok(Core {
            client,
            base,
            server,
            token,
            secrets,
        })
    }

    /// `GET path?query` with the instance's own token, decoded.
    pub async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, Error> {
        self.get_as(path, query, &self.token).await
    }

    /// `GET path?query` with `token` (a Plex managed user's), decoded.
    pub async fn get_as<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
        token: &Secret,
    ) -> Result<T, Error> {
        let bytes = self
            .send(reqwest::Method::GET, path, query, token, None)
            .await?;
        decode("GET", path, &bytes)
    }

    /// `GET path` as bytes (an image), at most `limit` of them.
    pub async fn get_bytes(&self, path: &str, limit: usize) -> Result<Vec<u8>, Error> {
        let bytes = self
            .send(reqwest::Method::GET, path, &[], &self.token, None)
            .await?;
        if bytes.len() > limit {
            return Err(Error::Invalid(format!(
                "the server's answer to GET {path} is over {limit} bytes"
            )));
        }
        Ok(bytes)
    }

    /// A write with a body (`content type`, bytes) and the instance's token: the answer's bytes.
    pub async fn write_body(
        &self,
        method: reqwest::Method,
        path: &str,
        query: &[(&str, String)],
        body: (&'static str, Vec<u8>),
    ) -> Result<Vec<u8>, Error> {
        self.send(method, path, query, &self.token, Some(body))
            .await
    }

    /// A write (no body) with `token` (a Plex managed user's).
    pub async fn write_as(
        &self,
        method: reqwest::Method,
        path: &str,
        query: &[(&str, String)],
        token: &Secret,
    ) -> Result<Vec<u8>, Error> {
        self.send(method, path, query, token, None).await
    }

    /// A write (`POST`, `PUT` or `DELETE` of `path?query`, no body) with the instance's token:
    /// the answer's bytes, tokens scrubbed (empty for a `204`).
    pub async fn write(
        &self,
        method: reqwest::Method,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<u8>, Error> {
        self.send(method, path, query, &self.token, None).await
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        query: &[(&str, String)],
        token: &Secret,
        body: Option<(&'static str, Vec<u8>)>,
    ) -> Result<Vec<u8>, Error> {
        let name_of = method_name(&method);
        let fail = |source: httpx::Error| Error::Http {
            method: name_of,
            path: path.to_string(),
            source,
        };
        let (name, value) = self.auth(token).map_err(fail)?;
        let mut req = self
            .client
            .request(method, httpx::join(&self.base, path))
            .header(name, value)
            .header(reqwest::header::ACCEPT, "application/json");
        if self.server == Server::Plex {
            // Plex asks every client to name itself (its API document requires the identifier
            // on the library, hub and history reads).
            req = req
                .header("X-Plex-Client-Identifier", "marquee")
                .header("X-Plex-Product", "Marquee");
        }
        if !query.is_empty() {
            req = req.query(query);
        }
        if let Some((kind, bytes)) = body {
            req = req.header(reqwest::header::CONTENT_TYPE, kind).body(bytes);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| fail(without_url(httpx::Error::from_reqwest(&e))))?;
        let status = resp.status();
        if !status.is_success() {
            // The upstream body is never passed on: it may echo what we sent.
            return Err(fail(httpx::Error::from_status(
                status.as_u16(),
                "its body is not passed on",
            )));
        }
        let mut bytes = resp
            .bytes()
            .await
            .map_err(|e| fail(without_url(httpx::Error::from_reqwest(&e))))?
            .to_vec();
        for secret in &self.secrets {
            if let Some(scrubbed) = httpx::scrub_secret(&bytes, secret.expose()) {
                bytes = scrubbed;
            }
        }
        Ok(bytes)
    }

    /// The header the server takes its token in; marked sensitive so no log of the request
    /// shows it.
    fn auth(&self, token: &Secret) -> Result<(&'static str, HeaderValue), httpx::Error> {
        let (name, text) = match self.server {
            Server::Jellyfin => (
                "Authorization",
                format!(
                    "MediaBrowser Client=\"Marquee\", Device=\"Marquee\", DeviceId=\"marquee\", Version=\"1\", Token=\"{}\"",
                    token.expose()
                ),
            ),
            Server::Emby => ("X-Emby-Token", token.expose().to_string()),
            Server::Plex => ("X-Plex-Token", token.expose().to_string()),
        };
        let mut value =
            HeaderValue::from_str(&text).map_err(|_| httpx::Error::Unauthorized { status: 0 })?;
        value.set_sensitive(true);
        Ok((name, value))
    }
}

/// An answer decoded, or an error naming the method and path and where the JSON broke.
pub(crate) fn decode<T: DeserializeOwned>(
    method: &'static str,
    path: &str,
    bytes: &[u8],
) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| Error::Http {
        method,
        path: path.to_string(),
        source: httpx::Error::Decode {
            detail: format!(
                "not the JSON expected (line {}, column {})",
                e.line(),
                e.column()
            ),
        },
    })
}

fn method_name(method: &reqwest::Method) -> &'static str {
    match *method {
        reqwest::Method::POST => "POST",
        reqwest::Method::PUT => "PUT",
        reqwest::Method::DELETE => "DELETE",
        _ => "GET",
    }
}

/// Transport errors from reqwest carry the full URL (query string included); keep the class.
fn without_url(e: httpx::Error) -> httpx::Error {
    match e {
        httpx::Error::Unreachable { detail } => httpx::Error::Unreachable {
            detail: httpx::redact(
                &detail
                    .split_whitespace()
                    .filter(|w| !w.contains("://"))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        },
        httpx::Error::Decode { .. } => httpx::Error::Decode {
            detail: "the answer could not be read".into(),
        },
        other => other,
    }
}
