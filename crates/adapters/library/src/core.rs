//! The shared HTTP core of the four services: the `X-Api-Key` header, timeouts (longer for an
//! interactive release search), no redirects, errors that name method and path only, complete
//! paged reads, and every answer decoded into a [`Redact`] type and redacted before it is handed
//! on (typed answers straight from the bytes, with no JSON tree in between).

use std::time::Duration;

use domain::Secret;
use httpx::reqwest::{self, Method};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::Value;

use crate::{
    Error,
    redact::{self, Redact},
};

/// How long an interactive release search may take: indexers are slow.
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(90);

/// Largest page asked for; a queue of a few thousand items is two or three requests.
const PAGE_SIZE: u64 = 1000;
/// The most records a paged read collects before it gives up.
const MAX_RECORDS: u64 = 100_000;

/// One service instance's connection.
pub struct Core {
    client: reqwest::Client,
    base: url::Url,
    key: Secret,
    /// `/api/v3` or `/api/v1`; for Sonarr, the root its `system/status` says it serves.
    api: Root,
}

/// Where an instance's API lives.
pub enum Root {
    Fixed(&'static str),
    /// Sonarr: `/api/v3` up to v4, `/api/v5` from v5 on; found once, on first use.
    Sonarr(tokio::sync::OnceCell<&'static str>),
}

/// One page of a paged resource, as every *arr answers it; its records are redacted one by one
/// as they are collected.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page<T> {
    /// Signed: a service (or a mock of one) may answer a negative placeholder; that is counted
    /// as zero, so any record read makes the page `Incomplete`.
    #[serde(default)]
    total_records: i64,
    #[serde(default = "Vec::new")]
    records: Vec<T>,
}

impl Core {
    pub fn new(
        base: url::Url,
        key: Secret,
        api: Root,
        timeouts: httpx::Timeouts,
    ) -> Result<Core, Error> {
        if key.expose().trim().is_empty() {
            return Err(Error::Config("the instance has no api_key".into()));
        }
        let client = httpx::builder(timeouts)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| {
                Error::Config(format!(
                    "cannot build the HTTP client: {}",
                    redact::text(&e.to_string())
                ))
            })?;
        Ok(Core {
            client,
            base,
            key,
            api,
        })
    }

    /// `GET {api}/{path}?query`, decoded and redacted.
    pub async fn get<T: DeserializeOwned + Redact>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, Error> {
        self.send(Method::GET, path, query, None::<&()>, None).await
    }

    /// Interactive release search: a GET with the longer timeout whose answer is handed back
    /// *before* redaction, because grabbing needs each release's GUID verbatim. Only
    /// `releases.rs` calls it, and it redacts every release itself after taking the GUID out.
    pub async fn get_slow_unredacted<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, Error> {
        let bytes = self
            .send_raw(Method::GET, path, query, None::<&()>, Some(SEARCH_TIMEOUT))
            .await?;
        self.decode("GET", path, &bytes)
    }

    /// Whether the instance speaks Sonarr's v5 API (its root is found on first use; any other
    /// service answers `false` without a request).
    pub async fn v5(&self) -> Result<bool, Error> {
        self.root().await?;
        Ok(matches!(&self.api, Root::Sonarr(found) if found.get() == Some(&"/api/v5")))
    }

    /// The instance's API key, as the secret that keys release references.
    pub fn key(&self) -> &Secret {
        &self.key
    }

    /// `DELETE {api}/{path}?query`; the answer (usually empty) is dropped.
    pub async fn delete(&self, path: &str, query: &[(&str, String)]) -> Result<(), Error> {
        self.send_raw(Method::DELETE, path, query, None::<&()>, None)
            .await
            .map(|_| ())
    }

    /// `POST {api}/{path}` with a JSON body.
    pub async fn post<T: DeserializeOwned + Redact>(
        &self,
        path: &str,
        body: &impl Serialize,
    ) -> Result<T, Error> {
        self.send(Method::POST, path, &[], Some(body), None).await
    }

    /// `PUT {api}/{path}` with a JSON body.
    pub async fn put<T: DeserializeOwned + Redact>(
        &self,
        path: &str,
        body: &impl Serialize,
    ) -> Result<T, Error> {
        self.send(Method::PUT, path, &[], Some(body), None).await
    }

    /// `GET {api}/{path}` for a resource that will be written back whole: answered only when the
    /// redaction boundary leaves it unchanged, so a masked or cut value is never sent back.
    pub async fn get_exact(&self, path: &str) -> Result<Value, Error> {
        let bytes = self
            .send_raw(Method::GET, path, &[], None::<&()>, None)
            .await?;
        let raw: Value = self.decode("GET", path, &bytes)?;
        let mut scrubbed = raw.clone();
        redact::value(&mut scrubbed);
        if scrubbed != raw {
            return Err(Error::Unsupported(format!(
                "GET {} holds values that look like secrets or URLs with credentials; it is not edited through Marquee",
                self.full(path)
            )));
        }
        Ok(raw)
    }

    /// Every record of a paged resource. A page that comes back short of what `totalRecords`
    /// promised is [`Error::Incomplete`], never a shorter list.
    pub async fn paged<T: DeserializeOwned + Redact + Send + 'static>(
        &self,
        what: &'static str,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<T>, Error> {
        let mut out: Vec<T> = Vec::new();
        let mut page = 1u64;
        loop {
            let mut q: Vec<(&str, String)> = query.to_vec();
            q.push(("page", page.to_string()));
            q.push(("pageSize", PAGE_SIZE.to_string()));
            let bytes = self
                .send_raw(Method::GET, path, &q, None::<&()>, None)
                .await?;
            let got = decode_page::<T>(self.full(path), bytes).await?;
            let total = u64::try_from(got.total_records).unwrap_or(0);
            let n = got.records.len() as u64;
            out.extend(got.records);
            let read = out.len() as u64;
            if read >= total {
                if read > total {
                    return Err(Error::Incomplete { what, total, read });
                }
                return Ok(out);
            }
            // More promised: a page that was not full means records went missing.
            if n < PAGE_SIZE || read >= MAX_RECORDS {
                return Err(Error::Incomplete { what, total, read });
            }
            page += 1;
        }
    }

    fn full(&self, path: &str) -> String {
        let root = match &self.api {
            Root::Fixed(root) => root,
            Root::Sonarr(found) => found.get().unwrap_or(&"/api/v3"),
        };
        format!("{root}/{}", path.trim_start_matches('/'))
    }

    /// Finds the API root once: fixed, or (Sonarr) the one whose `system/status` answers, v5
    /// preferred when v3 is missing or reports a version 5 or later. A failure is not kept.
    async fn root(&self) -> Result<(), Error> {
        let Root::Sonarr(found) = &self.api else {
            return Ok(());
        };
        found
            .get_or_try_init(|| async {
                let major = |v: &Value| -> Option<u64> {
                    v["version"].as_str()?.split('.').next()?.parse().ok()
                };
                let v3 = self.status("/api/v3").await;
                match &v3 {
                    Ok(v) if major(v).is_some_and(|m| m < 5) => return Ok("/api/v3"),
                    Ok(_) => {}
                    Err(Error::Http {
                        source: httpx::Error::NotFound,
                        ..
                    }) => {}
                    Err(_) => return v3.map(|_| "/api/v3"),
                }
                match (self.status("/api/v5").await, v3) {
                    (Ok(_), _) => Ok("/api/v5"),
                    (Err(_), Ok(_)) => Ok("/api/v3"),
                    (Err(e), Err(_)) => Err(e),
                }
            })
            .await
            .map(|_| ())
    }

    /// The instance's own `GET {api}/system/status`, the cheapest authenticated call every
    /// service has: what `diagnose` asks. Answers the app name and version it reports.
    pub async fn system_status(&self) -> Result<(String, String), Error> {
        self.root().await?;
        let root = match &self.api {
            Root::Fixed(root) => root,
            Root::Sonarr(found) => found.get().unwrap_or(&"/api/v3"),
        };
        let v = self.status(root).await?;
        let text = |key: &str| v[key].as_str().unwrap_or_default().to_string();
        Ok((text("appName"), text("version")))
    }

    /// `GET {root}/system/status`, only to read the version.
    async fn status(&self, root: &str) -> Result<Value, Error> {
        let full = format!("{root}/system/status");
        let bytes = self
            .request(Method::GET, &full, &[], None::<&()>, None)
            .await?;
        let mut v: Value = decode_at("GET", &full, &bytes)?;
        v.redact();
        Ok(v)
    }

    /// One request, its answer decoded and redacted: the only way a decoded answer leaves here.
    async fn send<T: DeserializeOwned + Redact>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&impl Serialize>,
        timeout: Option<Duration>,
    ) -> Result<T, Error> {
        let name = method_name(&method);
        let bytes = self.send_raw(method, path, query, body, timeout).await?;
        let mut v: T = self.decode(name, path, &bytes)?;
        v.redact();
        Ok(v)
    }

    /// An answer's bytes decoded, not yet redacted; an empty answer reads as JSON `null`.
    fn decode<T: DeserializeOwned>(
        &self,
        method: &'static str,
        path: &str,
        bytes: &[u8],
    ) -> Result<T, Error> {
        decode_at(method, &self.full(path), bytes)
    }

    /// One request below the API root; the answer's bytes as the service sent them.
    async fn send_raw(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&impl Serialize>,
        timeout: Option<Duration>,
    ) -> Result<bytes::Bytes, Error> {
        self.root().await?;
        let full = self.full(path);
        self.request(method, &full, query, body, timeout).await
    }

    /// One request to `full` (root and path).
    async fn request(
        &self,
        method: Method,
        full: &str,
        query: &[(&str, String)],
        body: Option<&impl Serialize>,
        timeout: Option<Duration>,
    ) -> Result<bytes::Bytes, Error> {
        let full = full.to_string();
        let name = method_name(&method);
        let fail = |source: httpx::Error| Error::Http {
            method: name,
            path: full.clone(),
            source,
        };
        let mut req = self
            .client
            .request(method.clone(), httpx::join(&self.base, &full))
            .header("X-Api-Key", self.key.expose())
            .header(reqwest::header::ACCEPT, "application/json");
        if !query.is_empty() {
            req = req.query(query);
        }
        if let Some(body) = body {
            req = req.json(body);
        }
        if let Some(t) = timeout {
            req = req.timeout(t);
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
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| fail(without_url(httpx::Error::from_reqwest(&e))))?;
        // A service that echoes the key it was sent shows it to no one.
        Ok(match httpx::scrub_secret(&bytes, self.key.expose()) {
            Some(scrubbed) => bytes::Bytes::from(scrubbed),
            None => bytes,
        })
    }
}

fn method_name(m: &Method) -> &'static str {
    match *m {
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        _ => "GET",
    }
}

/// Transport errors from reqwest carry the full URL (query string included); keep only the class.
fn without_url(e: httpx::Error) -> httpx::Error {
    match e {
        httpx::Error::Unreachable { detail } => httpx::Error::Unreachable {
            detail: redact::text(&strip_urls(&detail)),
        },
        httpx::Error::Decode { .. } => httpx::Error::Decode {
            detail: "the answer was not valid JSON".into(),
        },
        other => other,
    }
}

fn strip_urls(s: &str) -> String {
    s.split_whitespace()
        .filter(|w| !w.contains("://"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A page decoded and its records redacted on a task of their own, so the pages of several
/// instances read at once (a merged queue) are decoded on every core, not one after another on
/// the caller's.
async fn decode_page<T: DeserializeOwned + Redact + Send + 'static>(
    full: String,
    bytes: bytes::Bytes,
) -> Result<Page<T>, Error> {
    let failed = Error::Http {
        method: "GET",
        path: full.clone(),
        source: httpx::Error::Decode {
            detail: "the answer could not be decoded".into(),
        },
    };
    tokio::spawn(async move {
        let mut page: Page<T> = decode_at("GET", &full, &bytes)?;
        page.records.iter_mut().for_each(Redact::redact);
        Ok(page)
    })
    .await
    .unwrap_or(Err(failed))
}

/// Decodes an answer's bytes (empty: JSON `null`). A failure names what did not fit and where,
/// never a value: serde quotes the unexpected text, and it has not been redacted yet.
fn decode_at<T: DeserializeOwned>(
    method: &'static str,
    full: &str,
    bytes: &[u8],
) -> Result<T, Error> {
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"null"
    } else {
        bytes
    };
    serde_json::from_slice(bytes).map_err(|e| Error::Http {
        method,
        path: full.to_string(),
        source: httpx::Error::Decode {
            detail: without_quoted(&e.to_string()),
        },
    })
}

/// A decode error's text with every quoted value cut out (`invalid type: string "…"`).
fn without_quoted(detail: &str) -> String {
    let mut out = String::with_capacity(detail.len());
    let mut quoted = false;
    for c in detail.chars() {
        match (c, quoted) {
            ('"', false) => {
                quoted = true;
                out.push_str("\"…");
            }
            ('"', true) => {
                quoted = false;
                out.push('"');
            }
            (_, false) => out.push(c),
            (_, true) => {}
        }
    }
    out
}

/// A count or size the services declare as a signed int (`int32`/`int64`): a negative value (a
/// placeholder, or a service's own "unknown") reads as zero instead of failing the whole answer.
pub(crate) fn non_negative<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i64> + Default,
{
    let v = Option::<i64>::deserialize(d)?.unwrap_or(0);
    Ok(T::try_from(v.max(0)).unwrap_or_default())
}
