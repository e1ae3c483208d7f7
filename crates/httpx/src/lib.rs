//! The one outbound HTTP client builder every adapter uses: timeouts, user agent,
//! error classes named by what the caller can do, and secret redaction in messages.

use std::{sync::Once, time::Duration};

pub mod outbound;

pub use reqwest;

/// The user agent every outbound request carries.
pub const USER_AGENT: &str = concat!(
    "Marquee/",
    env!("CARGO_PKG_VERSION"),
    " (+self-hosted media MCP gateway)"
);

/// Timeouts for one backend. Reads of a healthy LAN service finish far below these.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    pub connect: Duration,
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            connect: Duration::from_secs(3),
            request: Duration::from_secs(15),
        }
    }
}

/// Builds the client for one backend instance.
pub fn client(timeouts: Timeouts) -> Result<reqwest::Client, Error> {
    builder(timeouts).build().map_err(|e| Error::Unreachable {
        detail: redact(&e.to_string()),
    })
}

/// The builder, for an adapter that needs one more setting (a cookie store, say).
///
/// An instance the owner configured is trusted, and so are redirects its answers give within
/// its own origin (scheme, host and port); a redirect anywhere else is not followed (the
/// answer is the redirect itself): a URL an upstream answer supplies goes through
/// [`outbound`]'s rule, never through an instance's client.
pub fn builder(timeouts: Timeouts) -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .connect_timeout(timeouts.connect)
        .timeout(timeouts.request)
        .pool_idle_timeout(Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            let same_origin = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if !same_origin || attempt.previous().len() > 10 {
                attempt.stop()
            } else {
                attempt.follow()
            }
        }))
}

fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Fails only when another provider was installed first, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// What went wrong talking to a backend, named by what the caller can do about it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot reach the service: {detail}")]
    Unreachable { detail: String },
    #[error("the service did not answer in time")]
    Timeout,
    #[error("the service refused the credentials (HTTP {status})")]
    Unauthorized { status: u16 },
    #[error("not found")]
    NotFound,
    #[error("conflict: {detail}")]
    Conflict { detail: String },
    #[error("rate limited by the service")]
    RateLimited { retry_after: Option<Duration> },
    #[error("the service answered HTTP {status}: {detail}")]
    Upstream { status: u16, detail: String },
    #[error("the service answered something unreadable: {detail}")]
    Decode { detail: String },
}

impl Error {
    /// Classifies a transport error. Messages are redacted: URLs may carry API keys.
    pub fn from_reqwest(e: &reqwest::Error) -> Error {
        if e.is_timeout() {
            Error::Timeout
        } else if e.is_decode() {
            Error::Decode {
                detail: redact(&e.to_string()),
            }
        } else if let Some(status) = e.status() {
            Error::from_status(status.as_u16(), "")
        } else {
            Error::Unreachable {
                detail: redact(&root_cause(e)),
            }
        }
    }

    /// Classifies a non-success status. Only a conflict keeps the body (the service's own
    /// sentence about what disagrees), trimmed and redacted; any other body is not passed on:
    /// an error page may echo the request, credentials included, and whoever reads the message
    /// (a caller, a kid, the log) has no use for it.
    pub fn from_status(status: u16, body: &str) -> Error {
        match status {
            401 | 403 => Error::Unauthorized { status },
            404 => Error::NotFound,
            409 => Error::Conflict {
                detail: redact(&body.chars().take(200).collect::<String>()),
            },
            429 => Error::RateLimited { retry_after: None },
            _ => Error::Upstream {
                status,
                detail: "its body is not passed on".into(),
            },
        }
    }

    /// True when sending the same request again cannot act twice on the backend:
    /// the request never reached it.
    pub fn never_reached(&self) -> bool {
        matches!(self, Error::Unreachable { .. })
    }
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// Names under which a credential travels, as JSON keys (`"api_key": "…"`) or headers.
const SECRET_NAMES: [&str; 10] = [
    "api_key",
    "apikey",
    "x-api-key",
    "token",
    "access_token",
    "refresh_token",
    "password",
    "secret",
    "client_secret",
    "authorization",
];

/// `bytes` with every occurrence of `secret` (an instance's own key or password, as sent and
/// as JSON writes it) replaced by `***`: a service that echoes what it was sent (an error
/// naming the key it refused) shows it to no caller, log or page. Secrets shorter than four
/// characters are left alone (they would blank ordinary text and protect nothing).
pub fn scrub_secret(bytes: &[u8], secret: &str) -> Option<Vec<u8>> {
    if secret.len() < 4 {
        return None;
    }
    let escaped = escape_json(secret);
    let mut forms = vec![secret.as_bytes()];
    if escaped != secret {
        forms.push(escaped.as_bytes());
    }
    if !forms.iter().any(|f| find(bytes, f, 0).is_some()) {
        return None;
    }
    let mut out = bytes.to_vec();
    for form in forms {
        let mut at = 0;
        while let Some(i) = find(&out, form, at) {
            out.splice(i..i + form.len(), b"***".iter().copied());
            at = i + 3;
        }
    }
    Some(out)
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i..].starts_with(needle))
}

fn escape_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Removes anything that looks like a credential from a message meant for people:
/// query parameters named like keys or tokens, userinfo in URLs, `Bearer` tokens, header
/// lines (`X-Api-Key: …`) and JSON members (`"api_key": "…"`) named like secrets.
pub fn redact(text: &str) -> String {
    redact_query_and_userinfo(&redact_by_structure(text))
}

/// `Bearer <token>`, `<Name>: <value>` header lines and `"<name>": "<value>"` JSON members
/// whose name is one of [`SECRET_NAMES`]: the value becomes `***`.
fn redact_by_structure(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let boundary = |i: usize| i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
    while i < text.len() {
        // `Bearer <token>`
        if lower[i..].starts_with("bearer ") && boundary(i) {
            out.push_str(&text[i..i + 7]);
            out.push_str("***");
            i += 7;
            while i < text.len() && !matches!(bytes[i], b' ' | b'"' | b'\'' | b',' | b'\n' | b'\r')
            {
                i += 1;
            }
            continue;
        }
        // `"name": "value"` and `Name: value`
        let quoted = bytes[i] == b'"';
        let start = i + usize::from(quoted);
        let named = SECRET_NAMES.iter().find(|n| {
            lower[start..].starts_with(*n)
                && boundary(start)
                && (!quoted || lower[start + n.len()..].starts_with('"'))
        });
        if let Some(name) = named {
            let mut j = start + name.len() + usize::from(quoted);
            while j < text.len() && bytes[j] == b' ' {
                j += 1;
            }
            if j < text.len() && bytes[j] == b':' {
                j += 1;
                while j < text.len() && bytes[j] == b' ' {
                    j += 1;
                }
                out.push_str(&text[i..j]);
                if j < text.len() && bytes[j] == b'"' {
                    // A JSON string: up to its closing quote, escapes included.
                    out.push_str("\"***\"");
                    j += 1;
                    while j < text.len() && bytes[j] != b'"' {
                        j += if bytes[j] == b'\\' { 2 } else { 1 };
                    }
                    i = (j + 1).min(text.len());
                } else if !quoted {
                    // A header line: up to its end.
                    out.push_str("***");
                    while j < text.len() && !matches!(bytes[j], b'\n' | b'\r') {
                        j += 1;
                    }
                    i = j;
                } else {
                    i = j;
                }
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

fn redact_query_and_userinfo(text: &str) -> String {
    const KEYS: [&str; 7] = [
        "apikey=",
        "api_key=",
        "token=",
        "password=",
        "access_token=",
        "key=",
        "sid=",
    ];
    let mut out = String::with_capacity(text.len());
    let lower = text.to_ascii_lowercase();
    let mut i = 0;
    while i < text.len() {
        if let Some(k) = KEYS.iter().find(|k| lower[i..].starts_with(*k)) {
            let boundary_ok = i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric();
            if boundary_ok {
                out.push_str(&text[i..i + k.len()]);
                out.push_str("***");
                i += k.len();
                while i < text.len()
                    && !matches!(
                        text.as_bytes()[i],
                        b'&' | b' ' | b'"' | b'\'' | b')' | b'\n'
                    )
                {
                    i += 1;
                }
                continue;
            }
        }
        // userinfo: scheme://user:pass@host
        if lower[i..].starts_with("://") {
            let rest = &text[i + 3..];
            let end = rest.find(['/', ' ', '"']).unwrap_or(rest.len());
            if let Some(at) = rest[..end].find('@') {
                out.push_str("://***@");
                i += 3 + at + 1;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// The base URL of an instance with a path appended, without doubling slashes.
pub fn join(base: &url::Url, path: &str) -> url::Url {
    let mut s = base.as_str().trim_end_matches('/').to_string();
    s.push('/');
    s.push_str(path.trim_start_matches('/'));
    url::Url::parse(&s).unwrap_or_else(|_| base.clone())
}

#[cfg(test)]
mod tests {

    #[test]
    fn an_instances_own_secret_is_scrubbed_as_sent_and_as_json_writes_it() {
        let body = br#"{"result":"unauthorized: s3cr\"et and s3cr\"et"}"#;
        let out = crate::scrub_secret(body, "s3cr\"et").unwrap();
        assert_eq!(out, br#"{"result":"unauthorized: *** and ***"}"#.to_vec());
        let plain = crate::scrub_secret(b"invalid api key abcd1234", "abcd1234").unwrap();
        assert_eq!(plain, b"invalid api key ***".to_vec());
        assert!(crate::scrub_secret(b"nothing here", "abcd1234").is_none());
        assert!(
            crate::scrub_secret(b"abc", "abc").is_none(),
            "too short to scrub"
        );
    }
    use super::*;

    #[test]
    fn redacts_query_keys_and_userinfo() {
        let s = redact("GET http://bob:hunter2@host:7878/api/v3/movie?apikey=abc123&x=1 failed");
        assert!(!s.contains("hunter2"), "{s}");
        assert!(!s.contains("abc123"), "{s}");
        assert!(s.contains("x=1"), "{s}");
        assert_eq!(redact("token=zzz"), "token=***");
        assert_eq!(redact("monkey=banana"), "monkey=banana");
    }

    #[test]
    fn redacts_bearer_tokens_header_lines_and_json_members_by_structure() {
        assert_eq!(
            redact("upstream said: Authorization: Bearer eyJhbGciOi.x.y"),
            "upstream said: Authorization: ***"
        );
        assert_eq!(
            redact("sent Bearer sk_live_123, got 401"),
            "sent Bearer ***, got 401"
        );
        assert_eq!(
            redact(r#"{"status":500,"api_key": "c4n4ry", "note":"x"}"#),
            r#"{"status":500,"api_key": "***", "note":"x"}"#
        );
        assert_eq!(
            redact(r#"{"password":"a\"b", "ok":1}"#),
            r#"{"password":"***", "ok":1}"#
        );
        assert_eq!(redact("X-Api-Key: abc\nnext"), "X-Api-Key: ***\nnext");
        assert_eq!(
            redact(r#"{"tokens": 3, "monkey": "banana"}"#),
            r#"{"tokens": 3, "monkey": "banana"}"#,
            "only names of secrets, whole"
        );
        for text in ["", "\"", "\"api_key", "\"api_key\":", "bearer", "token"] {
            let _ = redact(text);
        }
    }

    #[test]
    fn classifies_statuses() {
        assert!(matches!(
            Error::from_status(401, ""),
            Error::Unauthorized { status: 401 }
        ));
        assert!(matches!(Error::from_status(404, ""), Error::NotFound));
        assert!(matches!(
            Error::from_status(502, "bad"),
            Error::Upstream { status: 502, .. }
        ));
        let e = Error::from_status(500, "<html>debug: api_key=c4n4ry at /srv/secret</html>");
        assert_eq!(
            e.to_string(),
            "the service answered HTTP 500: its body is not passed on"
        );
        assert_eq!(
            Error::from_status(409, "already added; token=zzz").to_string(),
            "conflict: already added; token=***"
        );
    }

    #[test]
    fn joins_paths() {
        let base = url::Url::parse("http://h:1/sub/").unwrap();
        assert_eq!(join(&base, "/api/v2/x").as_str(), "http://h:1/sub/api/v2/x");
    }

    #[tokio::test]
    async fn unreachable_is_classified() {
        let c = client(Timeouts {
            connect: Duration::from_millis(500),
            request: Duration::from_secs(1),
        })
        .unwrap();
        // Port 9 on loopback: nothing listens there on these machines.
        let e = c.get("http://127.0.0.1:9/").send().await.unwrap_err();
        assert!(Error::from_reqwest(&e).never_reached());
    }
}
