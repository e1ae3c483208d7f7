//! Transmission RPC plumbing: basic auth, the 409 session-id handshake, `result` checking.

use std::{fmt, sync::Arc};

use domain::Secret;
use httpx::reqwest::{self, StatusCode, header::HeaderValue};
use serde::{Serialize, de::DeserializeOwned};
use url::Url;

use crate::error::{Error, Result};

const SESSION_HEADER: &str = "X-Transmission-Session-Id";

/// A Transmission RPC client for one instance. Cheap to share behind an `Arc`.
pub struct TrClient {
    http: reqwest::Client,
    /// The RPC endpoint, e.g. `http://127.0.0.1:9091/transmission/rpc`.
    rpc_url: Url,
    username: Option<String>,
    password: Option<Secret>,
    /// The CSRF token the daemon hands out with a 409; refreshed whenever it answers 409.
    session_id: parking_lot::Mutex<Option<HeaderValue>>,
    /// The session's `download-dir`, learned on first need: categories are its sub-folders.
    pub(crate) download_dir: parking_lot::Mutex<Option<Arc<str>>>,
}

impl fmt::Debug for TrClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrClient")
            .field("rpc_url", &self.rpc_url.as_str())
            .field("username", &self.username)
            .field("password", &self.password)
            .finish()
    }
}

#[derive(serde::Deserialize)]
struct Answer<T> {
    result: String,
    arguments: Option<T>,
}

impl TrClient {
    /// `url` may be the RPC endpoint (`…/transmission/rpc`), the web UI (`…/transmission/`)
    /// or the bare host (`http://host:9091`). Credentials written into it are taken out and used
    /// when `username` is `None`.
    pub fn new(
        url: Url,
        username: Option<String>,
        password: Option<Secret>,
        timeouts: httpx::Timeouts,
    ) -> Result<TrClient> {
        let http = httpx::client(timeouts)?;
        let mut url = url;
        let (mut username, mut password) = (username, password);
        if let Some((u, p)) = crate::metainfo::take_userinfo(&mut url)
            && username.is_none()
        {
            (username, password) = (Some(u), Some(Secret::new(p)));
        }
        Ok(TrClient {
            http,
            rpc_url: rpc_url(url),
            username,
            password,
            session_id: parking_lot::Mutex::new(None),
            download_dir: parking_lot::Mutex::new(None),
        })
    }

    /// Calls `method`. A 409 means the call did not run: it is sent once more with the new
    /// session id, whatever the method. A `result` other than `success` is a refusal.
    pub(crate) async fn call<T: DeserializeOwned + Default>(
        &self,
        method: &str,
        arguments: impl Serialize,
    ) -> Result<T> {
        let body =
            serde_json::to_vec(&serde_json::json!({ "method": method, "arguments": arguments }))
                .map_err(|e| Error::invalid(format!("cannot encode {method}: {e}")))?;
        for attempt in 0..2 {
            let mut req = self
                .http
                .post(self.rpc_url.clone())
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
            if let Some(user) = &self.username {
                req = req.basic_auth(user, self.password.as_ref().map(Secret::expose));
            }
            if let Some(sid) = self.session_id.lock().clone() {
                req = req.header(SESSION_HEADER, sid);
            }
            let resp = req.send().await.map_err(|e| Error::transport(&e))?;
            let status = resp.status();
            if status == StatusCode::CONFLICT {
                let Some(sid) = resp.headers().get(SESSION_HEADER).cloned() else {
                    return Err(Error::Upstream {
                        status: 409,
                        detail: "409 without a session id".into(),
                    });
                };
                tracing::debug!(attempt, "transmission handed out a new session id");
                *self.session_id.lock() = Some(sid);
                continue;
            }
            let bytes = resp.bytes().await.map_err(|e| Error::transport(&e))?;
            // A daemon that echoes the password it was sent shows it to no one.
            let scrubbed = self
                .password
                .as_ref()
                .and_then(|p| httpx::scrub_secret(&bytes, p.expose()));
            let bytes = scrubbed.as_deref().unwrap_or(&bytes);
            return match status.as_u16() {
                200..=299 => decode(method, bytes),
                401 | 403 | 421 => Err(refusal(status.as_u16(), bytes)),
                s => Err(Error::status(s, &String::from_utf8_lossy(bytes))),
            };
        }
        Err(Error::Upstream {
            status: 409,
            detail: "the session id handshake failed twice".into(),
        })
    }
}

/// The daemon's refusal page, classified by its own words and shown as it said it: a lock-out
/// after too many failed sign-ins (403, until the daemon restarts), the address whitelist
/// (403), the host whitelist (421), or wrong credentials (401).
fn refusal(status: u16, body: &[u8]) -> Error {
    let said = page_text(&String::from_utf8_lossy(body));
    let said_or = |fallback: &str| {
        if said.is_empty() {
            fallback.to_string()
        } else {
            said.clone()
        }
    };
    if said.contains("Too many unsuccessful login attempts") {
        return Error::LockedOut { detail: said };
    }
    let detail = match status {
        401 => format!(
            "Transmission refused the username or password ({})",
            said_or("HTTP 401")
        ),
        421 => format!(
            "Transmission does not accept the host name in the instance's url (rpc-host-whitelist): {}",
            said_or("HTTP 421")
        ),
        _ if said.contains("Unauthorized IP Address") => {
            format!("Transmission refused this address (rpc-whitelist): {said}")
        }
        _ => format!("Transmission refused the request: {}", said_or("HTTP 403")),
    };
    Error::Unauthorized { detail }
}

/// The words of an HTML error page: tags dropped, whitespace folded, at most 300 characters,
/// redacted.
fn page_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                text.push(' ');
            }
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let folded: String = words.join(" ").chars().take(300).collect();
    httpx::redact(&folded)
}

fn decode<T: DeserializeOwned + Default>(method: &str, bytes: &[u8]) -> Result<T> {
    let answer: Answer<T> = serde_json::from_slice(bytes).map_err(|e| Error::decode(method, e))?;
    if answer.result != "success" {
        return Err(Error::Refused {
            detail: httpx::redact(&answer.result),
        });
    }
    Ok(answer.arguments.unwrap_or_default())
}

fn rpc_url(mut url: Url) -> Url {
    let path = url.path().trim_end_matches('/').to_string();
    if path.ends_with("/rpc") {
        return url;
    }
    let path = if path.ends_with("/transmission") {
        format!("{path}/rpc")
    } else {
        format!("{path}/transmission/rpc")
    };
    url.set_path(&path);
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_page_is_classified_by_the_daemons_own_words() {
        // The pages transmission-daemon 3.00 sends, word for word.
        let locked = refusal(
            403,
            b"<h1>403: Forbidden</h1><p>Too many unsuccessful login attempts. Please restart transmission-daemon.</p>",
        );
        assert!(
            matches!(&locked, Error::LockedOut { detail } if detail == "403: Forbidden Too many unsuccessful login attempts. Please restart transmission-daemon."),
            "{locked:?}"
        );
        assert!(
            locked.to_string().contains("restart the daemon"),
            "{locked}"
        );
        let whitelist = refusal(
            403,
            b"<h1>403: Forbidden</h1><p>Unauthorized IP Address.</p><p>Either disable the IP address whitelist or add your address to it.</p>",
        );
        assert!(
            matches!(&whitelist, Error::Unauthorized { detail } if detail.contains("rpc-whitelist") && detail.contains("Unauthorized IP Address.")),
            "{whitelist:?}"
        );
        let user = refusal(
            401,
            b"<h1>401: Unauthorized</h1><p>Unauthorized User. 3 unsuccessful login attempts.</p>",
        );
        assert!(
            matches!(&user, Error::Unauthorized { detail } if detail.contains("username or password") && detail.contains("3 unsuccessful login attempts")),
            "{user:?}"
        );
        let host = refusal(421, b"<h1>421: Misdirected Request</h1><p>Transmission received your request, but the hostname was unrecognized.</p>");
        assert!(
            matches!(&host, Error::Unauthorized { detail } if detail.contains("rpc-host-whitelist")),
            "{host:?}"
        );
    }

    #[test]
    fn finds_the_rpc_endpoint() {
        for (given, want) in [
            ("http://h:9091", "http://h:9091/transmission/rpc"),
            (
                "http://h:9091/transmission/",
                "http://h:9091/transmission/rpc",
            ),
            (
                "http://h:9091/transmission/rpc",
                "http://h:9091/transmission/rpc",
            ),
            (
                "http://h/tr/transmission/rpc/",
                "http://h/tr/transmission/rpc/",
            ),
        ] {
            assert_eq!(rpc_url(given.parse().unwrap()).as_str(), want);
        }
    }

    #[test]
    fn debug_does_not_show_the_password() {
        let c = TrClient::new(
            "http://127.0.0.1:9/".parse().unwrap(),
            Some("mcp".into()),
            Some(Secret::new("hunter2-tr")),
            httpx::Timeouts::default(),
        )
        .unwrap();
        let d = format!("{c:?}");
        assert!(!d.contains("hunter2"), "{d}");
        assert!(d.contains("mcp"), "{d}");
    }

    #[test]
    fn non_success_results_are_refusals() {
        let e = decode::<serde_json::Value>(
            "torrent-add",
            br#"{"result":"invalid or corrupt torrent file"}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the download client refused the request: invalid or corrupt torrent file"
        );
        assert!(matches!(
            decode::<serde_json::Value>("x", b"<html>"),
            Err(Error::Decode { .. })
        ));
    }
}
