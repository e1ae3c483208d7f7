//! `/authorize`: the authorization code flow's consent on the owner pages. The signed-in owner
//! sees which application asks, for which resource, and chooses the person and grant its
//! tokens act as; the form carries the session's CSRF token; `state` is passed through.

use askama::Template;
use axum::{
    body::Bytes,
    extract::{RawQuery, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Redirect, Response},
};
use store::{NewCode, OAuthClient, Session};
use url::Url;

use super::{OAuthError, Params, base, disabled, form_pairs, lifetimes, resources, rules};
use crate::{
    Web,
    pages::{self, PageError},
};

/// Fields of the consent form that are not part of the authorization request.
const CONSENT_FIELDS: [&str; 4] = ["csrf", "person", "grant", "decision"];

#[derive(Template)]
#[template(path = "consent.html")]
struct Consent {
    signed_in: bool,
    csrf: String,
    client_name: String,
    client_id: String,
    redirect_origin: String,
    resource: String,
    people: Vec<(String, String)>,
    grants: Vec<String>,
    /// The authorization request, carried through the form unchanged.
    hidden: Vec<(&'static str, String)>,
}

/// The validated request as hidden form fields.
fn hidden(a: &rules::Authorization) -> Vec<(&'static str, String)> {
    let mut out = vec![
        ("response_type", "code".to_owned()),
        ("client_id", a.client_id.clone()),
        ("redirect_uri", a.redirect_uri.clone()),
        ("code_challenge", a.code_challenge.clone()),
        ("code_challenge_method", "S256".to_owned()),
        ("resource", a.resource.clone()),
    ];
    if let Some(s) = &a.state {
        out.push(("state", s.clone()));
    }
    if let Some(s) = &a.scope {
        out.push(("scope", s.clone()));
    }
    out
}

/// The redirect URI with the answer's parameters added, then `state` and `iss` (RFC 9207).
fn back_to_client(
    redirect_uri: &str,
    answer: &[(&str, &str)],
    state: Option<&str>,
    issuer: &str,
) -> Response {
    let Ok(mut url) = Url::parse(redirect_uri) else {
        return PageError::new(StatusCode::BAD_REQUEST, "the redirect URI cannot be read")
            .into_response();
    };
    {
        let mut q = url.query_pairs_mut();
        for (k, v) in answer {
            q.append_pair(k, v);
        }
        if let Some(s) = state {
            q.append_pair("state", s);
        }
        q.append_pair("iss", issuer);
    }
    Redirect::to(url.as_str()).into_response()
}

/// Checks a request's parameters for its client; a refusal is a page or a redirect back.
async fn validate(
    web: &Web,
    headers: &HeaderMap,
    pairs: &[(String, String)],
) -> Result<(rules::Authorization, OAuthClient), Response> {
    let p: Params = rules::params(pairs)
        .map_err(|r| PageError::new(StatusCode::BAD_REQUEST, r.description).into_response())?;
    let host = pages::host(web).map_err(IntoResponse::into_response)?;
    let client = match p.get("client_id") {
        Some(id) => host
            .app
            .store()
            .oauth_client(id)
            .await
            .map_err(|e| PageError::from(e).into_response())?,
        None => None,
    };
    let base = base(web, headers);
    let request =
        rules::authorization(&p, client.as_ref(), &resources(&base)).map_err(|e| match e {
            rules::AuthorizeError::Page(m) => {
                PageError::new(StatusCode::BAD_REQUEST, m).into_response()
            }
            rules::AuthorizeError::Redirect {
                redirect_uri,
                state,
                refusal,
            } => back_to_client(
                &redirect_uri,
                &[
                    ("error", refusal.error.as_str()),
                    ("error_description", &refusal.description),
                ],
                state.as_deref(),
                &base,
            ),
        })?;
    // `rules::authorization` refuses a request without a registered client.
    let client = client.ok_or_else(|| {
        PageError::new(StatusCode::BAD_REQUEST, "the client is not registered here").into_response()
    })?;
    Ok((request, client))
}

/// The owner's session, or a redirect to sign in that comes back to this request.
async fn owner_or_sign_in(web: &Web, headers: &HeaderMap, back: &str) -> Result<Session, Response> {
    match pages::owner(web, headers).await {
        Ok(s) => Ok(s),
        Err(r) if r.status().is_redirection() => {
            let next: String = url::form_urlencoded::byte_serialize(back.as_bytes()).collect();
            Err(Redirect::to(&format!("/sign-in?next={next}")).into_response())
        }
        Err(r) => Err(r),
    }
}

pub(crate) async fn page(
    State(web): State<Web>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    if lifetimes(&web).is_none() {
        return disabled();
    }
    let query = query.unwrap_or_default();
    let pairs = form_pairs(query.as_bytes());
    let (request, client) = match validate(&web, &headers, &pairs).await {
        Ok(v) => v,
        Err(r) => return r,
    };
    let session = match owner_or_sign_in(&web, &headers, &format!("/authorize?{query}")).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let result = async {
        let store = pages::host(&web)?.app.store();
        let people = store.people().await?;
        let now = chrono::Utc::now().timestamp_millis();
        let grants = store.grants().await?;
        let origin = Url::parse(&request.redirect_uri)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_default();
        let page = Consent {
            signed_in: true,
            csrf: session.csrf.clone(),
            client_name: crate::pages::shown(&client.name),
            client_id: client.client_id.clone(),
            redirect_origin: origin.clone(),
            resource: request.resource.clone(),
            people: people
                .iter()
                .map(|p| (p.name.clone(), p.role.to_string()))
                .collect(),
            grants: grants
                .iter()
                .filter(|g| !g.is_expired(now))
                .map(|g| g.name.clone())
                .collect(),
            hidden: hidden(&request),
        };
        pages::render_sending_forms_to(&page, &origin)
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

pub(crate) async fn decide(State(web): State<Web>, headers: HeaderMap, body: Bytes) -> Response {
    let session = match pages::owner(&web, &headers).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    if lifetimes(&web).is_none() {
        return disabled();
    }
    let fields = pages::form(&body);
    if let Err(e) = pages::check_csrf(&session, &fields) {
        return e.into_response();
    }
    let pairs: Vec<(String, String)> = form_pairs(&body)
        .into_iter()
        .filter(|(k, _)| !CONSENT_FIELDS.contains(&k.as_str()))
        .collect();
    let (request, client) = match validate(&web, &headers, &pairs).await {
        Ok(v) => v,
        Err(r) => return r,
    };
    let issuer = base(&web, &headers);
    let state = request.state.as_deref();
    let field = |name: &str| fields.get(name).map(|v| v.trim()).unwrap_or_default();
    match field("decision") {
        "deny" => {
            tracing::info!(client = %client.client_id, "the owner denied an OAuth client");
            return back_to_client(
                &request.redirect_uri,
                &[
                    ("error", OAuthError::AccessDenied.as_str()),
                    ("error_description", "the owner denied the request"),
                ],
                state,
                &issuer,
            );
        }
        "allow" => {}
        _ => {
            return PageError::new(
                StatusCode::BAD_REQUEST,
                "unknown decision; valid decisions: allow, deny",
            )
            .into_response();
        }
    }
    let result = async {
        let store = pages::host(&web)?.app.store();
        let person = store.person_by_name(field("person")).await?.ok_or_else(|| {
            PageError::new(StatusCode::BAD_REQUEST, format!("no person named \"{}\"; choose one of the list", field("person")))
        })?;
        let grant = store.grant_by_name(field("grant")).await?;
        let now = chrono::Utc::now().timestamp_millis();
        if grant.as_ref().is_some_and(|g| g.is_expired(now)) {
            return Err(PageError::new(StatusCode::BAD_REQUEST, format!("grant \"{}\" is revoked or expired; choose another", field("grant"))));
        }
        let code = store
            .create_code(&NewCode {
                client: &client,
                person: person.id,
                grant: field("grant"),
                redirect_uri: &request.redirect_uri,
                code_challenge: &request.code_challenge,
                resource: &request.resource,
            })
            .await?;
        tracing::info!(client = %client.client_id, person = %person.name, grant = %field("grant"), "the owner allowed an OAuth client");
        Ok(back_to_client(&request.redirect_uri, &[("code", code.expose())], state, &issuer))
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}
