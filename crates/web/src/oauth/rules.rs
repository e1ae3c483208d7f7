//! What the authorization server accepts, decided without IO: client metadata (RFC 7591),
//! redirect URIs (https, or http on the loopback only), authorization requests (code flow,
//! S256 PKCE only, RFC 8707 resources), PKCE verifiers and scopes.

use std::collections::HashMap;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde_json::Value;
use sha2::{Digest, Sha256};
use store::{NewClient, OAuthClient};
use url::{Host, Url};

use super::OAuthError;

/// Scopes a client may ask for. Authority comes from the grant the owner picks at consent, so
/// `mcp` names the whole of it; `offline_access` is accepted and changes nothing.
pub(crate) const SCOPES: [&str; 2] = ["mcp", "offline_access"];
/// The scope every token carries.
pub(crate) const GRANTED_SCOPE: &str = "mcp";
const MAX_REDIRECT_URIS: usize = 10;
const MAX_NAME_CHARS: usize = 100;
/// Longest redirect URI accepted.
const MAX_REDIRECT_URI_BYTES: usize = 2048;
const MAX_STATE_BYTES: usize = 1024;

/// A refusal in the shape of RFC 6749 §5.2: an error code and one sentence.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub error: OAuthError,
    pub description: String,
}

fn refusal(error: OAuthError, description: impl Into<String>) -> Refusal {
    Refusal {
        error,
        description: description.into(),
    }
}

/// Request parameters by name; a repeated parameter is refused (RFC 6749 §3.1).
pub(crate) fn params(pairs: &[(String, String)]) -> Result<HashMap<&str, &str>, Refusal> {
    let mut out = HashMap::new();
    for (k, v) in pairs {
        if out.insert(k.as_str(), v.as_str()).is_some() {
            return Err(refusal(
                OAuthError::InvalidRequest,
                format!("parameter \"{k}\" is given more than once"),
            ));
        }
    }
    Ok(out)
}

/// Whether `uri` may be registered: an absolute https:// URL, or http:// on the loopback
/// (127.0.0.0/8, [::1], localhost); no fragment, no user information.
pub(crate) fn check_redirect_uri(uri: &str) -> Result<Url, String> {
    // A URL parser drops tabs and line breaks, but the URI is stored and shown as given:
    // only visible ASCII, and not too much of it.
    if uri.len() > MAX_REDIRECT_URI_BYTES || !uri.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!(
            "a redirect_uri must be at most {MAX_REDIRECT_URI_BYTES} visible ASCII characters, without spaces or line breaks"
        ));
    }
    let url =
        Url::parse(uri).map_err(|_| format!("redirect_uri \"{uri}\" is not an absolute URL"))?;
    if url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "redirect_uri \"{uri}\" must not carry a fragment or user information"
        ));
    }
    match url.scheme() {
        "https" if url.host().is_some() => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        _ => Err(format!(
            "redirect_uri \"{uri}\" is refused; valid redirect URIs are https:// addresses, or http:// on the loopback (127.0.0.1, [::1], localhost)"
        )),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// Whether a requested redirect URI is one the client registered: exactly, except that an
/// http loopback URI may name any port (RFC 8252 §7.3).
pub(crate) fn redirect_matches(registered: &str, requested: &str) -> bool {
    if registered == requested {
        return true;
    }
    let (Ok(mut a), Ok(mut b)) = (Url::parse(registered), Url::parse(requested)) else {
        return false;
    };
    if a.scheme() != "http" || !is_loopback(&a) || b.scheme() != "http" || !is_loopback(&b) {
        return false;
    }
    a.set_port(None).is_ok() && b.set_port(None).is_ok() && a == b
}

/// Validates a registration request (RFC 7591 §2): unknown fields are ignored, as the RFC
/// says; a secret-based `token_endpoint_auth_method` is replaced by `none` (public clients
/// only, §3.2.1 lets the server substitute). Refusals name the field.
pub(crate) fn client_metadata(body: &Value) -> Result<NewClient, Refusal> {
    let bad = |d: String| refusal(OAuthError::InvalidClientMetadata, d);
    let Some(object) = body.as_object() else {
        return Err(bad("the registration must be a JSON object".into()));
    };
    let strings = |field: &str| -> Result<Option<Vec<String>>, Refusal> {
        match object.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| bad(format!("{field} must be a list of strings"))),
            Some(_) => Err(bad(format!("{field} must be a list of strings"))),
        }
    };
    let redirect_uris = strings("redirect_uris")?.unwrap_or_default();
    if redirect_uris.is_empty() || redirect_uris.len() > MAX_REDIRECT_URIS {
        return Err(refusal(
            OAuthError::InvalidRedirectUri,
            format!("redirect_uris must list 1 to {MAX_REDIRECT_URIS} redirect URIs"),
        ));
    }
    for uri in &redirect_uris {
        check_redirect_uri(uri).map_err(|d| refusal(OAuthError::InvalidRedirectUri, d))?;
    }
    let grant_types =
        strings("grant_types")?.unwrap_or_else(|| vec!["authorization_code".to_owned()]);
    if let Some(g) = grant_types
        .iter()
        .find(|g| !matches!(g.as_str(), "authorization_code" | "refresh_token"))
    {
        return Err(bad(format!(
            "grant type \"{g}\" is not supported; valid grant types: authorization_code, refresh_token"
        )));
    }
    if !grant_types.iter().any(|g| g == "authorization_code") {
        return Err(bad("grant_types must include authorization_code".into()));
    }
    let response_types = strings("response_types")?.unwrap_or_else(|| vec!["code".to_owned()]);
    if response_types.iter().any(|r| r != "code") {
        return Err(bad("response_types may only be [\"code\"]".into()));
    }
    let name = match object.get("client_name") {
        None | Some(Value::Null) => "unnamed client".to_owned(),
        Some(Value::String(n)) if !n.trim().is_empty() => n.trim().to_owned(),
        Some(_) => return Err(bad("client_name must be a non-empty string".into())),
    };
    if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(bad(format!(
            "client_name must be at most {MAX_NAME_CHARS} printable characters"
        )));
    }
    let mut grants = Vec::new();
    for g in ["authorization_code", "refresh_token"] {
        if grant_types.iter().any(|x| x == g) {
            grants.push(g.to_owned());
        }
    }
    Ok(NewClient {
        name,
        redirect_uris,
        grant_types: grants,
    })
}

/// An authorization request that passed every check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Authorization {
    pub client_id: String,
    pub redirect_uri: String,
    pub state: Option<String>,
    pub code_challenge: String,
    pub resource: String,
    pub scope: Option<String>,
}

/// Why an authorization request is refused, and where the refusal goes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AuthorizeError {
    /// The client or its redirect URI cannot be trusted: shown to the person, never sent on.
    Page(String),
    /// Sent back to the client's redirect URI (RFC 6749 §4.1.2.1).
    Redirect {
        redirect_uri: String,
        state: Option<String>,
        refusal: Refusal,
    },
}

/// Checks an authorization request (RFC 6749 §4.1.1 with OAuth 2.1's PKCE and RFC 8707's
/// resource) for `client` against the server's `resources` (the first is the default).
pub(crate) fn authorization(
    params: &HashMap<&str, &str>,
    client: Option<&OAuthClient>,
    resources: &[String],
) -> Result<Authorization, AuthorizeError> {
    let Some(client) = client else {
        return Err(AuthorizeError::Page(match params.get("client_id") {
            None => "the request has no client_id; start again from the application".into(),
            Some(id) => format!(
                "client_id \"{id}\" is not registered here; start again from the application"
            ),
        }));
    };
    let redirect_uri = match params.get("redirect_uri") {
        Some(uri)
            if client
                .redirect_uris
                .iter()
                .any(|r| redirect_matches(r, uri)) =>
        {
            (*uri).to_owned()
        }
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        _ => {
            return Err(AuthorizeError::Page(
                "redirect_uri is missing or not one this client registered; nothing is sent back"
                    .into(),
            ));
        }
    };
    let state = params.get("state").map(|s| (*s).to_owned());
    let back = |error, description: String| AuthorizeError::Redirect {
        redirect_uri: redirect_uri.clone(),
        state: state.clone(),
        refusal: refusal(error, description),
    };
    if state.as_ref().is_some_and(|s| s.len() > MAX_STATE_BYTES) {
        return Err(back(
            OAuthError::InvalidRequest,
            format!("state is longer than {MAX_STATE_BYTES} bytes"),
        ));
    }
    if params.get("response_type") != Some(&"code") {
        return Err(back(
            OAuthError::UnsupportedResponseType,
            "response_type must be code".into(),
        ));
    }
    match params.get("code_challenge_method") {
        Some(&"S256") => {}
        Some(other) => {
            return Err(back(
                OAuthError::InvalidRequest,
                format!("code_challenge_method \"{other}\" is refused; only S256 is accepted"),
            ));
        }
        None => {
            return Err(back(
                OAuthError::InvalidRequest,
                "code_challenge_method is required and must be S256 (plain is refused)".into(),
            ));
        }
    }
    let code_challenge = match params.get("code_challenge") {
        Some(c) if c.len() == 43 && c.bytes().all(is_base64url) => (*c).to_owned(),
        _ => {
            return Err(back(
                OAuthError::InvalidRequest,
                "code_challenge is required: the base64url SHA-256 of the code verifier (43 characters)"
                    .into(),
            ));
        }
    };
    let resource = match params.get("resource") {
        None => resources[0].clone(),
        Some(r) if resources.iter().any(|x| x == r) => (*r).to_owned(),
        Some(r) => {
            return Err(back(
                OAuthError::InvalidTarget,
                format!(
                    "resource \"{r}\" is not served here; valid resources: {}",
                    resources.join(", ")
                ),
            ));
        }
    };
    let scope = params.get("scope").map(|s| (*s).to_owned());
    if let Some(s) = &scope {
        check_scope(s).map_err(|r| back(r.error, r.description))?;
    }
    Ok(Authorization {
        client_id: client.client_id.clone(),
        redirect_uri,
        state,
        code_challenge,
        resource,
        scope,
    })
}

fn is_base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Every requested scope must be one of [`SCOPES`].
pub(crate) fn check_scope(scope: &str) -> Result<(), Refusal> {
    match scope.split(' ').find(|s| !SCOPES.contains(s)) {
        None => Ok(()),
        Some(s) => Err(refusal(
            OAuthError::InvalidScope,
            format!(
                "scope \"{s}\" is not offered; valid scopes: {}",
                SCOPES.join(", ")
            ),
        )),
    }
}

/// The S256 challenge of a PKCE code verifier (RFC 7636 §4.2), after checking the verifier's
/// shape (43 to 128 unreserved characters).
pub(crate) fn s256_of_verifier(verifier: &str) -> Result<String, Refusal> {
    let ok_char = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    if !(43..=128).contains(&verifier.len()) || !verifier.bytes().all(ok_char) {
        return Err(refusal(
            OAuthError::InvalidRequest,
            "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~",
        ));
    }
    Ok(URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())))
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
