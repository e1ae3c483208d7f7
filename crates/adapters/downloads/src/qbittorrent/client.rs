//! qBittorrent HTTP plumbing: cookie login, one re-login on 403, and the WebAPI version.

use std::{
    fmt,
    sync::atomic::{AtomicU64, Ordering},
};

use domain::Secret;
use httpx::reqwest::{self, RequestBuilder, StatusCode, header};
use url::Url;

use crate::error::{Error, Result};

/// Whether a request may be sent again after a 403 and a new login.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Reads: sent again after a re-login.
    Read,
    /// Writes: never sent twice. (Every bulk write starts with an existence read, which renews
    /// an expired session first, so in practice only a write racing an expiry sees the 403.)
    Write,
}

/// The WebAPI version (`app/webapiVersion`), e.g. 2.8.19 for qBittorrent 4.5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ApiVersion(pub u32, pub u32, pub u32);

impl ApiVersion {
    pub fn parse(s: &str) -> Option<ApiVersion> {
        let mut it = s.trim().split('.').map(|p| p.parse::<u32>());
        let major = it.next()?.ok()?;
        let minor = it.next().unwrap_or(Ok(0)).ok()?;
        let patch = it.next().unwrap_or(Ok(0)).ok()?;
        Some(ApiVersion(major, minor, patch))
    }

    /// qBittorrent 5 (WebAPI 2.11) renamed pause/resume to stop/start and `paused` to `stopped`.
    pub fn uses_stop_start(self) -> bool {
        self >= ApiVersion(2, 11, 0)
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// A qBittorrent WebAPI v2 client for one instance. Cheap to share behind an `Arc`.
pub struct QbClient {
    pub(crate) http: reqwest::Client,
    /// Base URL ending in `/`; the API lives at `api/v2/` below it.
    base: Url,
    username: String,
    password: Secret,
    /// Serializes logins so a burst of 403s logs in once.
    login_lock: tokio::sync::Mutex<()>,
    /// Bumped by every successful login; 0 until the first.
    generation: AtomicU64,
    api: parking_lot::Mutex<Option<ApiVersion>>,
}

impl fmt::Debug for QbClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QbClient")
            .field("base", &self.base.as_str())
            .field("username", &self.username)
            .field("password", &self.password)
            .field("api", &*self.api.lock())
            .finish()
    }
}

impl QbClient {
    /// `base` is the WebUI address, e.g. `http://127.0.0.1:8080/` (a reverse-proxy sub-path is fine).
    /// Credentials written into it (`http://user:pass@host/`) are taken out and used when
    /// `username` is empty.
    pub fn new(
        base: Url,
        username: impl Into<String>,
        password: Secret,
        timeouts: httpx::Timeouts,
    ) -> Result<QbClient> {
        let http = httpx::builder(timeouts)
            .cookie_store(true)
            .build()
            .map_err(|e| Error::transport(&e))?;
        let mut base = base;
        let mut username = username.into();
        let mut password = password;
        if let Some((u, p)) = crate::metainfo::take_userinfo(&mut base)
            && username.is_empty()
        {
            (username, password) = (u, Secret::new(p));
        }
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        Ok(QbClient {
            http,
            base,
            username,
            password,
            login_lock: tokio::sync::Mutex::new(()),
            generation: AtomicU64::new(0),
            api: parking_lot::Mutex::new(None),
        })
    }

    pub(crate) fn url(&self, path: &str) -> Url {
        httpx::join(&self.base, &format!("api/v2/{path}"))
    }

    /// The WebAPI version, learned at login.
    pub async fn api_version(&self) -> Result<ApiVersion> {
        if let Some(v) = *self.api.lock() {
            return Ok(v);
        }
        self.ensure_login().await?;
        let text = self
            .send(Effect::Read, |c| c.get(self.url("app/webapiVersion")))
            .await?;
        let v = ApiVersion::parse(&text)
            .ok_or_else(|| Error::decode("app/webapiVersion", format!("{text:?}")))?;
        *self.api.lock() = Some(v);
        Ok(v)
    }

    /// Sends a request built by `build` (called again for a retry) and returns the body of a 2xx answer.
    pub(crate) async fn send(
        &self,
        effect: Effect,
        build: impl Fn(&reqwest::Client) -> RequestBuilder,
    ) -> Result<String> {
        let generation = self.ensure_login().await?;
        let (status, body) = self.exec(build(&self.http)).await?;
        if status != StatusCode::FORBIDDEN {
            return finish(status, body);
        }
        tracing::debug!(base = %self.base, "qbittorrent session expired; logging in again");
        self.relogin(generation).await?;
        if effect == Effect::Write {
            return Err(Error::Unauthorized {
                detail:
                    "the qBittorrent session had expired and was renewed; the write was not sent \
                         again, so send it once more"
                        .into(),
            });
        }
        let (status, body) = self.exec(build(&self.http)).await?;
        if status == StatusCode::FORBIDDEN {
            return Err(Error::Unauthorized {
                detail: "qBittorrent refused the request right after a new login".into(),
            });
        }
        finish(status, body)
    }

    /// Like [`QbClient::send`] for a read, but hands back a successful answer unread, so a
    /// large body can be parsed as it arrives.
    pub(crate) async fn send_streamed(
        &self,
        build: impl Fn(&reqwest::Client) -> RequestBuilder,
    ) -> Result<reqwest::Response> {
        let generation = self.ensure_login().await?;
        let mut resp = build(&self.http)
            .send()
            .await
            .map_err(|e| Error::transport(&e))?;
        if resp.status() == StatusCode::FORBIDDEN {
            tracing::debug!(base = %self.base, "qbittorrent session expired; logging in again");
            self.relogin(generation).await?;
            resp = build(&self.http)
                .send()
                .await
                .map_err(|e| Error::transport(&e))?;
            if resp.status() == StatusCode::FORBIDDEN {
                return Err(Error::Unauthorized {
                    detail: "qBittorrent refused the request right after a new login".into(),
                });
            }
        }
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let body = resp.text().await.map_err(|e| Error::transport(&e))?;
        Err(Error::status(status.as_u16(), &self.scrubbed(body)))
    }

    async fn exec(&self, req: RequestBuilder) -> Result<(StatusCode, String)> {
        let resp = req.send().await.map_err(|e| Error::transport(&e))?;
        let status = resp.status();
        let body = resp.text().await.map_err(|e| Error::transport(&e))?;
        Ok((status, self.scrubbed(body)))
    }

    /// `body` without the password, had the daemon echoed it: shown to no one.
    fn scrubbed(&self, body: String) -> String {
        match httpx::scrub_secret(body.as_bytes(), self.password.expose()) {
            Some(v) => String::from_utf8_lossy(&v).into_owned(),
            None => body,
        }
    }

    async fn ensure_login(&self) -> Result<u64> {
        let generation = self.generation.load(Ordering::Acquire);
        if generation != 0 {
            return Ok(generation);
        }
        self.relogin(0).await?;
        Ok(self.generation.load(Ordering::Acquire))
    }

    /// Logs in unless someone else already did since `seen` generation.
    async fn relogin(&self, seen: u64) -> Result<()> {
        let _guard = self.login_lock.lock().await;
        if self.generation.load(Ordering::Acquire) != seen {
            return Ok(());
        }
        self.login().await?;
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    async fn login(&self) -> Result<()> {
        // Some versions refuse a login whose Referer/Origin do not match the host.
        let origin = self.base.origin().ascii_serialization();
        let form = [
            ("username", self.username.as_str()),
            ("password", self.password.expose()),
        ];
        let req = self
            .http
            .post(self.url("auth/login"))
            .header(header::REFERER, self.base.as_str())
            .header(header::ORIGIN, origin)
            .form(&form);
        let (status, body) = self.exec(req).await?;
        match (status.as_u16(), body.trim()) {
            (200, "Ok.") => Ok(()),
            (200, "Fails.") => Err(Error::Unauthorized {
                detail: "qBittorrent refused the username or password".into(),
            }),
            // qBittorrent bans an address after failed logins (its own words in the body).
            (403, said) => Err(Error::LockedOut {
                detail: if said.is_empty() {
                    "qBittorrent banned this address after too many failed logins".into()
                } else {
                    trim(said)
                },
            }),
            (200, other) => Err(Error::decode(
                "auth/login",
                format!("unexpected answer {:?}", trim(other)),
            )),
            (s, b) => Err(Error::status(s, b)),
        }
    }

    /// Ends the session on the server (the next call logs in again).
    pub async fn logout(&self) -> Result<()> {
        self.send(Effect::Write, |c| c.post(self.url("auth/logout")))
            .await
            .map(drop)
    }
}

fn finish(status: StatusCode, body: String) -> Result<String> {
    if status.is_success() {
        Ok(body)
    } else {
        Err(Error::status(status.as_u16(), &body))
    }
}

fn trim(s: &str) -> String {
    s.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_api_versions() {
        assert_eq!(ApiVersion::parse("2.8.19"), Some(ApiVersion(2, 8, 19)));
        assert_eq!(ApiVersion::parse("2.11"), Some(ApiVersion(2, 11, 0)));
        assert!(!ApiVersion::parse("2.8.19").unwrap().uses_stop_start());
        assert!(ApiVersion::parse("2.11.2").unwrap().uses_stop_start());
        assert!(ApiVersion::parse("v2").is_none());
    }

    #[test]
    fn debug_does_not_show_the_password() {
        let c = QbClient::new(
            "http://127.0.0.1:9/".parse().unwrap(),
            "admin",
            Secret::new("hunter2-qb"),
            httpx::Timeouts::default(),
        )
        .unwrap();
        let d = format!("{c:?}");
        assert!(!d.contains("hunter2"), "{d}");
        assert!(d.contains("admin"), "{d}");
    }

    #[tokio::test]
    async fn an_answer_echoing_the_password_shows_it_to_no_one() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf).await;
            let body = "Fails. wrong password hunter2-qb";
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            s.write_all(answer.as_bytes()).await.unwrap();
        });
        let c = QbClient::new(
            format!("http://{addr}/").parse().unwrap(),
            "admin",
            Secret::new("hunter2-qb"),
            httpx::Timeouts::default(),
        )
        .unwrap();
        let (_, body) = c.exec(c.http.get(c.url("app/version"))).await.unwrap();
        assert_eq!(body, "Fails. wrong password ***");
    }
}
