//! The HTTP edge of `POST /mcp`: readiness, Host and Origin checks, body limit, credentials,
//! batch and parse policy, then one call into the dispatcher. Stateless: no session ids.

use std::{
    sync::{Arc, OnceLock},
    time::Instant,
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::{Request, State},
    http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::post,
};
use rmcp::model::ErrorCode;
use serde_json::{Value, json};

use crate::{
    Peers, ToolHost,
    dispatch::{self, Headers, Link, Reply},
    forwarded::{self, Source, TrustedProxies},
    throttle::Throttle,
};

/// The MCP headers the edge reads, named once (a `&str` name is parsed at every lookup).
const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
const X_API_KEY: HeaderName = HeaderName::from_static("x-api-key");

/// Settings of the edge, fixed at start.
#[derive(Clone, Debug)]
pub struct EdgeConfig {
    /// Host names (without port) a request's `Host` may carry; guards against DNS rebinding.
    pub allowed_hosts: Vec<String>,
    /// Origins (`scheme://host[:port]`) a browser may call from, besides the allowed hosts'.
    pub allowed_origins: Vec<String>,
    /// Largest request body accepted, in bytes.
    pub body_limit: usize,
    /// Peers whose `X-Forwarded-For` names the client (`forwarded.rs`); none by default.
    pub trusted_proxies: TrustedProxies,
}

impl Default for EdgeConfig {
    fn default() -> EdgeConfig {
        EdgeConfig {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: Vec::new(),
            body_limit: 1 << 20,
            trusted_proxies: TrustedProxies::default(),
        }
    }
}

/// The host, once the store is open and migrations have run; until then every route is 503.
pub type Readiness<H> = Arc<OnceLock<Arc<H>>>;

/// Shared state of the MCP route.
pub struct Edge<H> {
    pub ready: Readiness<H>,
    pub config: EdgeConfig,
    /// Failed authentications by source, shared with every route that authenticates.
    pub throttle: Arc<Throttle>,
    /// Open questions to clients and what each credential's client said in `initialize`.
    pub peers: Arc<Peers>,
}

/// `POST /mcp`; GET and DELETE answer 405 with `Allow: POST`.
pub fn router<H: ToolHost>(edge: Arc<Edge<H>>) -> Router {
    Router::new()
        .route(
            "/mcp",
            post(handle::<H>)
                .get(method_not_allowed)
                .delete(method_not_allowed),
        )
        .with_state(edge)
}

/// 503 with `Retry-After: 5`, for every route while the store is not open.
pub fn not_ready() -> Response {
    let mut r = (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({"error": "starting", "message": "marquee is starting; try again in a few seconds"}))).into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    r
}

async fn method_not_allowed() -> Response {
    let mut r = (
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed; MCP over HTTP here is POST only\n",
    )
        .into_response();
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

async fn handle<H: ToolHost>(State(edge): State<Arc<Edge<H>>>, request: Request) -> Response {
    let started = Instant::now();
    let Some(host) = edge.ready.get() else {
        return not_ready();
    };
    let (reply, method) = match serve(host, &edge, request).await {
        Ok(Served::Plain(mut reply)) => {
            let method = std::mem::take(&mut reply.method);
            (render(reply), method)
        }
        Ok(Served::Stream(response)) => (response, "tools/call".to_string()),
        Err(response) => (response, "-".to_string()),
    };
    host.observe(&method, reply.status().as_u16(), started.elapsed());
    reply
}

/// A plain JSON answer, or an SSE stream of notifications and questions ending with it.
enum Served {
    Plain(Reply),
    Stream(Response),
}

async fn serve<H: ToolHost>(
    host: &Arc<H>,
    edge: &Edge<H>,
    request: Request,
) -> Result<Served, Response> {
    let config = &edge.config;
    let (parts, body) = request.into_parts();
    check_host_and_origin(config, &parts.headers)?;
    let too_large = || {
        plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body is over the size limit\n",
        )
    };
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > config.body_limit) {
        return Err(too_large());
    }
    let source = forwarded::source_of(&config.trusted_proxies, &parts);
    let presented = credential(&parts.headers, parts.uri.query());
    let caller = authenticate(
        host.as_ref(),
        &edge.throttle,
        &parts.headers,
        presented.as_ref(),
        source,
        "/mcp",
    )
    .await?;
    let owner = edge
        .peers
        .owner_of(presented.as_ref().map(|p| p.secret.as_str()));
    // Required: a browser cannot send it to another origin without asking first (a CORS
    // preflight this server never grants), so no page can post a call here on its own.
    let json = parts.headers.get(header::CONTENT_TYPE).is_some_and(|ct| {
        ct.to_str().is_ok_and(|v| {
            v.get(..16)
                .is_some_and(|p| p.eq_ignore_ascii_case("application/json"))
        })
    });
    if !json {
        return Err(plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "content type must be application/json\n",
        ));
    }
    let bytes: Bytes = axum::body::to_bytes(body, config.body_limit)
        .await
        .map_err(|e| {
            if e.into_inner().is::<http_body_util::LengthLimitError>() {
                too_large()
            } else {
                // The listener's body read timeout, or a client that went away mid-body.
                plain(
                    StatusCode::REQUEST_TIMEOUT,
                    "the request body did not arrive in time\n",
                )
            }
        })?;
    let message: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => {
            return Ok(Served::Plain(Reply::error(
                400,
                None,
                ErrorCode::PARSE_ERROR,
                "parse error: the body is not valid JSON",
                None,
            )));
        }
    };
    if message.is_array() {
        return Ok(Served::Plain(Reply::error(
            400,
            None,
            ErrorCode::INVALID_REQUEST,
            "invalid request: batches are not supported; send one JSON-RPC message per POST",
            None,
        )));
    }
    if accepts_event_stream(&parts.headers)
        && dispatch::wants_stream(host.as_ref(), &message)
        && dispatch::passes_checks(&message, read_headers(&parts.headers))
    {
        return Ok(Served::Stream(stream(
            host.clone(),
            edge.peers.clone(),
            owner,
            caller,
            message,
            &parts.headers,
        )));
    }
    let headers = read_headers(&parts.headers);
    let link = Link {
        peers: &edge.peers,
        owner,
        out: None,
        tells_list_changes: false,
    };
    Ok(Served::Plain(
        dispatch::dispatch(host, &caller, message, headers, link).await,
    ))
}

fn accepts_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',')
                .any(|t| t.trim().starts_with("text/event-stream"))
        })
}

/// Answers a long call as `text/event-stream`: every notification or question the call sends,
/// then its JSON-RPC answer, each as one `message` event. The call runs on its own task, so a
/// client that goes away does not cancel a call that already started to act.
fn stream<H: ToolHost>(
    host: Arc<H>,
    peers: Arc<Peers>,
    owner: u64,
    caller: H::Caller,
    message: Value,
    headers: &HeaderMap,
) -> Response {
    let malformed = read_headers(headers).malformed;
    let protocol_version = header_text(headers, MCP_PROTOCOL_VERSION);
    let mcp_method = header_text(headers, MCP_METHOD);
    let mcp_name = header_text(headers, MCP_NAME);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        let mut headers = Headers {
            http: true,
            malformed,
            ..Headers::default()
        };
        headers.protocol_version = protocol_version.as_deref();
        headers.mcp_method = mcp_method.as_deref();
        headers.mcp_name = mcp_name.as_deref();
        let link = Link {
            peers: &peers,
            owner,
            out: Some(tx.clone()),
            tells_list_changes: false,
        };
        let reply = dispatch::dispatch(&host, &caller, message, headers, link).await;
        if let Some(body) = reply.body {
            let _ = tx.send(body);
        }
    });
    let events = futures::stream::poll_fn(move |cx| {
        rx.poll_recv(cx).map(|m| {
            m.map(|json| {
                let mut frame = Vec::with_capacity(json.len() + 24);
                frame.extend_from_slice(b"event: message\ndata: ");
                frame.extend_from_slice(&json);
                frame.extend_from_slice(b"\n\n");
                Ok::<_, std::convert::Infallible>(Bytes::from(frame))
            })
        })
    });
    let mut r = Response::new(Body::from_stream(events));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// A header's text when it is sent once; the dispatcher's own checks see the rest.
fn header_text(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?.to_str().ok()?;
    values
        .next()
        .is_none()
        .then(|| first.trim_matches([' ', '\t']).to_string())
}

fn render(reply: Reply) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match reply.body {
        None => status.into_response(),
        Some(bytes) => {
            let mut r = Response::new(Body::from(bytes));
            *r.status_mut() = status;
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        }
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    (status, text).into_response()
}

/// Authenticates a request to the host's resource at `resource` (a path: `/mcp`): a presented
/// credential must be valid; without one, a request from this machine (a loopback peer, not a
/// trusted proxy) is let in only when the host offers local access. `presented` is
/// [`credential`] of the request, read once by the caller (which also needs it).
///
/// A valid credential is let in whatever others failed from the same address: keys and tokens
/// are long and random, so the throttle has no guessing to slow down there, and behind a
/// proxy (or a household's one public address) a stale key elsewhere must not lock the owner
/// out. An invalid one counts against its source, which is answered 429 with `Retry-After`
/// once it has failed too often.
pub async fn authenticate<H: ToolHost>(
    host: &H,
    throttle: &Throttle,
    headers: &HeaderMap,
    presented: Option<&Presented>,
    source: Option<Source>,
    resource: &str,
) -> Result<H::Caller, Response> {
    let failed = |e: crate::HostError| {
        tracing::error!(error = %e, "authentication failed");
        plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error; the server log has the details\n",
        )
    };
    let unauthorized = |why: &str| unauthorized(headers, host.resource_metadata_url(resource), why);
    let client = source.map(|s| s.client);
    match presented {
        Some(p) => {
            let found = match p.via {
                Via::Bearer => host.authenticate_bearer(&p.secret, resource).await,
                Via::ApiKeyHeader | Via::Query => host.authenticate(&p.secret).await,
            };
            match found.map_err(failed)? {
                Some(caller) => Ok(caller),
                None => match match client {
                    Some(ip) => throttle.failed_shared(ip).await,
                    None => None,
                } {
                    Some(wait) => {
                        tracing::warn!(source = %client.map(|ip| ip.to_string()).unwrap_or_default(), wait, "too many failed authentications; the source waits");
                        Err(too_many_failures(wait))
                    }
                    None => {
                        tracing::info!(target: "marquee::calls", source = %client.map(|ip| ip.to_string()).unwrap_or_default(), outcome = "401", "credential refused");
                        Err(unauthorized(
                            "the credential is not valid (unknown, revoked, expired, or a token issued for another resource)",
                        ))
                    }
                },
            }
        }
        // A browser always sends Origin with a POST: key-less local access is for programs on
        // this machine, never for a page another site (or another local port) serves.
        None if headers.contains_key(header::ORIGIN) => Err(unauthorized(
            "a credential is required: key-less local access does not answer browsers; send Authorization: Bearer <key>",
        )),
        None => {
            if let Some(wait) = client.and_then(|ip| throttle.blocked(ip)) {
                return Err(too_many_failures(wait));
            }
            let local = match source {
                Some(s) if s.is_local() => host.authenticate_local().await.map_err(failed)?,
                _ => None,
            };
            local.ok_or_else(|| unauthorized("a credential is required: send Authorization: Bearer <key or OAuth access token>, X-Api-Key or ?apikey="))
        }
    }
}

/// 429 with `Retry-After`: this source presented too many invalid credentials.
fn too_many_failures(wait: u64) -> Response {
    let mut r = (
        StatusCode::TOO_MANY_REQUESTS,
        axum::Json(json!({
            "error": "too_many_failed_authentications",
            "error_description": format!("too many invalid credentials from this address; try again in {wait} seconds"),
        })),
    )
        .into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(wait));
    r
}

/// How a request presented its credential. OAuth access tokens count only in the
/// `Authorization` header (the MCP authorization spec); keys come any of these ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// `Authorization: Bearer`.
    Bearer,
    /// `X-Api-Key`.
    ApiKeyHeader,
    /// `?apikey=` in the query string.
    Query,
}

/// A credential as a request presented it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presented {
    pub secret: String,
    pub via: Via,
}

/// The presented credential: `Authorization: Bearer`, then `X-Api-Key`, then `?apikey=`
/// (form-decoded, so a key with reserved characters can be sent percent-encoded).
pub fn credential(headers: &HeaderMap, query: Option<&str>) -> Option<Presented> {
    let presented = |secret: String, via| Some(Presented { secret, via });
    if let Some(v) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        let (scheme, token) = v.split_once(' ')?;
        return if scheme.eq_ignore_ascii_case("bearer") {
            presented(token.trim().to_string(), Via::Bearer)
        } else {
            None
        };
    }
    if let Some(v) = headers.get(X_API_KEY).and_then(|v| v.to_str().ok()) {
        return presented(v.trim().to_string(), Via::ApiKeyHeader);
    }
    url::form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "apikey")
        .and_then(|(_, v)| presented(v.into_owned(), Via::Query))
}

/// 401 with the protected-resource metadata pointer of RFC 9728 and a JSON body. `metadata`
/// is the host's URL of that document; without one it is derived from the `Host` header.
pub fn unauthorized(headers: &HeaderMap, metadata: Option<String>, why: &str) -> Response {
    let metadata = metadata.unwrap_or_else(|| {
        let authority = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("localhost");
        format!("http://{authority}/.well-known/oauth-protected-resource")
    });
    let mut r = (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({"error": "invalid_token", "error_description": why})),
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("Bearer resource_metadata=\"{metadata}\"")) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}

/// DNS-rebinding guard: the `Host` must be an allowed name; a present `Origin` must be
/// listed or be one of the allowed hosts (a page served by this machine itself).
pub fn check_host_and_origin(config: &EdgeConfig, headers: &HeaderMap) -> Result<(), Response> {
    let forbidden = |why: &'static str| plain(StatusCode::FORBIDDEN, why);
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| forbidden("a Host header is required\n"))?;
    if !host_allowed(config, host) {
        return Err(forbidden(
            "this host name is not allowed; add it to allowed_hosts\n",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin
            .to_str()
            .map_err(|_| forbidden("origin not allowed\n"))?;
        let listed = config
            .allowed_origins
            .iter()
            .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin));
        // The same origin as the request's own Host, port included: a page served by another
        // program on this machine (another port) is another origin and must be listed.
        let same_origin = origin
            .split_once("://")
            .is_some_and(|(_, authority)| authority.eq_ignore_ascii_case(host));
        if !(listed || same_origin) {
            return Err(forbidden("origin not allowed; add it to allowed_origins\n"));
        }
    }
    Ok(())
}

fn host_allowed(config: &EdgeConfig, authority: &str) -> bool {
    let name = strip_port(authority);
    config
        .allowed_hosts
        .iter()
        .any(|h| strip_port(h).eq_ignore_ascii_case(name))
}

fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority.find(']').map_or(authority, |i| &authority[..=i]);
    }
    match authority.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => authority,
    }
}

fn read_headers(headers: &HeaderMap) -> Headers<'_> {
    let mut malformed = None;
    let mut single = |name: HeaderName, why: &'static str| {
        let mut values = headers.get_all(name).iter();
        let first = values.next()?;
        if values.next().is_some() {
            malformed = Some(why);
            return None;
        }
        match first.to_str() {
            Ok(v) => Some(v.trim_matches([' ', '\t'])),
            Err(_) => {
                malformed = Some(why);
                None
            }
        }
    };
    let protocol_version = single(
        MCP_PROTOCOL_VERSION,
        "duplicate or unreadable MCP-Protocol-Version header",
    );
    let mcp_method = single(MCP_METHOD, "duplicate or unreadable Mcp-Method header");
    let mcp_name = single(MCP_NAME, "duplicate or unreadable Mcp-Name header");
    Headers {
        protocol_version,
        mcp_method,
        mcp_name,
        malformed,
        http: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> EdgeConfig {
        EdgeConfig::default()
    }

    fn h(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        m
    }

    #[test]
    fn host_and_origin_rules() {
        assert!(check_host_and_origin(&cfg(), &h(&[("host", "127.0.0.1:8765")])).is_ok());
        assert!(check_host_and_origin(&cfg(), &h(&[("host", "[::1]:8765")])).is_ok());
        assert!(check_host_and_origin(&cfg(), &h(&[("host", "evil.example.com")])).is_err());
        assert!(check_host_and_origin(&cfg(), &h(&[])).is_err());
        assert!(
            check_host_and_origin(
                &cfg(),
                &h(&[
                    ("host", "localhost:8765"),
                    ("origin", "http://localhost:8765")
                ])
            )
            .is_ok(),
            "the same origin as the Host"
        );
        assert!(
            check_host_and_origin(
                &cfg(),
                &h(&[
                    ("host", "localhost:8765"),
                    ("origin", "http://localhost:6274")
                ])
            )
            .is_err(),
            "a page another program on this machine serves is another origin"
        );
        assert!(
            check_host_and_origin(
                &cfg(),
                &h(&[("host", "localhost"), ("origin", "http://evil.example.com")])
            )
            .is_err()
        );
        let mut lan = cfg();
        lan.allowed_origins.push("https://chat.example.org".into());
        assert!(
            check_host_and_origin(
                &lan,
                &h(&[
                    ("host", "localhost"),
                    ("origin", "https://chat.example.org")
                ])
            )
            .is_ok()
        );
    }

    fn secret(p: Option<Presented>) -> Option<String> {
        p.map(|p| p.secret)
    }

    #[test]
    fn credential_sources() {
        assert_eq!(
            secret(credential(&h(&[("authorization", "Bearer mq_a")]), None)).as_deref(),
            Some("mq_a")
        );
        assert_eq!(
            credential(&h(&[("authorization", "Basic xyz")]), None),
            None
        );
        assert_eq!(
            secret(credential(&h(&[("x-api-key", "mq_b")]), None)).as_deref(),
            Some("mq_b")
        );
        assert_eq!(
            secret(credential(&h(&[]), Some("x=1&apikey=mq_c"))).as_deref(),
            Some("mq_c")
        );
        assert_eq!(credential(&h(&[]), Some("x=1")), None);
    }

    #[test]
    fn each_credential_says_how_it_came() {
        let via =
            |headers: &[(&'static str, &str)], query| credential(&h(headers), query).map(|p| p.via);
        assert_eq!(
            via(&[("authorization", "bearer t")], None),
            Some(Via::Bearer)
        );
        assert_eq!(via(&[("x-api-key", "k")], None), Some(Via::ApiKeyHeader));
        assert_eq!(via(&[], Some("apikey=k")), Some(Via::Query));
    }

    #[test]
    fn the_query_key_is_form_decoded() {
        assert_eq!(
            secret(credential(&h(&[]), Some("apikey=mq_a%2Bb%2Fc%3D&x=1"))).as_deref(),
            Some("mq_a+b/c=")
        );
        assert_eq!(
            secret(credential(&h(&[]), Some("ap%69key=mq_d"))).as_deref(),
            Some("mq_d"),
            "the name is decoded too"
        );
    }
}
