//! OAuth 2.1 for remote connectors, the store's side: registered clients (RFC 7591) and
//! authorization codes. Codes are stored only as verifiers. Tokens live in `oauth_tokens.rs`.
//!
//! What makes a request valid (redirect URI rules, PKCE S256, resources) is decided by the
//! authorization server in `web::oauth` before anything is written here; this module keeps the
//! state, binds a code to what it was issued for, and uses it once.

use domain::{PersonId, Secret};
use rand::{Rng, distr::Alphanumeric};
use sha2::{Digest, Sha256};
use sqlx::Row;

use crate::{Error, Store, grants::grant_id_by_name, now_ms};

/// Prefix of an authorization code.
pub(crate) const CODE_PREFIX: &str = "mqc_";
/// How long a code may wait for its exchange.
const CODE_MS: i64 = 60 * 1000;
/// Registered clients at most; past this, registration is refused until unused ones expire.
const MAX_CLIENTS: i64 = 1000;
/// A client that never completed an authorization is forgotten after this long.
const UNUSED_CLIENT_MS: i64 = 24 * 60 * 60 * 1000;
/// Versions the verifiers, so the scheme can change without confusing old rows for new ones.
const VERIFIER_CONTEXT: &str = "marquee-oauth-v1:";

/// A fresh random secret: `prefix` and 43 alphanumeric characters (about 256 bits) from the
/// thread RNG, a CSPRNG seeded from the OS.
pub(crate) fn fresh_secret(prefix: &str) -> String {
    let tail: String = rand::rng()
        .sample_iter(Alphanumeric)
        .take(43)
        .map(char::from)
        .collect();
    format!("{prefix}{tail}")
}

/// What the store keeps instead of a code or token: hex SHA-256 of the context and the value.
pub(crate) fn verifier(value: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(VERIFIER_CONTEXT.as_bytes());
    hash.update(value.as_bytes());
    hex::encode(hash.finalize())
}

/// A client as it asked to be registered, already validated.
#[derive(Clone, Debug)]
pub struct NewClient {
    pub name: String,
    pub redirect_uris: Vec<String>,
    /// `authorization_code`, and `refresh_token` when the client asked for it.
    pub grant_types: Vec<String>,
}

/// A registered client. Public: it has no secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuthClient {
    /// The row id.
    pub id: i64,
    pub client_id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub grant_types: Vec<String>,
    pub created_at: i64,
}

impl OAuthClient {
    pub fn may_refresh(&self) -> bool {
        self.grant_types.iter().any(|g| g == "refresh_token")
    }
}

/// What the owner consented to, for one code.
#[derive(Clone, Debug)]
pub struct NewCode<'a> {
    pub client: &'a OAuthClient,
    pub person: PersonId,
    /// The grant's name, as chosen on the consent page.
    pub grant: &'a str,
    pub redirect_uri: &'a str,
    /// The S256 code challenge (base64url of the SHA-256 of the client's verifier).
    pub code_challenge: &'a str,
    /// The resource the tokens will be bound to (RFC 8707).
    pub resource: &'a str,
}

fn json_list(text: &str) -> Result<Vec<String>, Error> {
    serde_json::from_str(text)
        .map_err(|e| crate::error::corrupt(format!("an oauth client's list is not JSON: {e}")))
}

impl Store {
    /// Registers a client and returns it with its new `client_id`. Clients that never completed
    /// an authorization within a day are forgotten first; past 1,000 clients, `Conflict`.
    pub async fn register_client(&self, new: &NewClient) -> Result<OAuthClient, Error> {
        let now = now_ms();
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query(
            "DELETE FROM oauth_clients WHERE created_at < ? \
             AND id NOT IN (SELECT oauth_client_id FROM credentials WHERE oauth_client_id IS NOT NULL)",
        )
        .bind(now - UNUSED_CLIENT_MS)
        .execute(&mut *tx)
        .await?;
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM oauth_clients")
            .fetch_one(&mut *tx)
            .await?;
        if count >= MAX_CLIENTS {
            return Err(Error::Conflict(format!(
                "this server already has {count} registered clients; unused registrations are forgotten after a day, try again later"
            )));
        }
        let client_id = crate::changes::fresh_id("mqcl_");
        let uris = serde_json::to_string(&new.redirect_uris).unwrap_or_else(|_| "[]".into());
        let grants = serde_json::to_string(&new.grant_types).unwrap_or_else(|_| "[]".into());
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, created_at) \
             VALUES (?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(&client_id)
        .bind(&new.name)
        .bind(uris)
        .bind(grants)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(OAuthClient {
            id,
            client_id,
            name: new.name.clone(),
            redirect_uris: new.redirect_uris.clone(),
            grant_types: new.grant_types.clone(),
            created_at: now,
        })
    }

    /// The registered client with this `client_id`, if any.
    pub async fn oauth_client(&self, client_id: &str) -> Result<Option<OAuthClient>, Error> {
        let row = sqlx::query(
            "SELECT id, client_id, client_name, redirect_uris, grant_types, created_at \
             FROM oauth_clients WHERE client_id = ?",
        )
        .bind(client_id)
        .fetch_optional(self.pool())
        .await?;
        row.map(|row| {
            Ok(OAuthClient {
                id: row.try_get("id")?,
                client_id: row.try_get("client_id")?,
                name: row.try_get("client_name")?,
                redirect_uris: json_list(&row.try_get::<String, _>("redirect_uris")?)?,
                grant_types: json_list(&row.try_get::<String, _>("grant_types")?)?,
                created_at: row.try_get("created_at")?,
            })
        })
        .transpose()
    }

    /// Issues an authorization code for what the owner consented to; the returned secret is
    /// the only copy. `NotFound` for an unknown grant (naming the valid ones).
    pub async fn create_code(&self, new: &NewCode<'_>) -> Result<Secret, Error> {
        let mut conn = self.pool().acquire().await?;
        let grant_id = grant_id_by_name(&mut conn, new.grant).await?;
        let code = fresh_secret(CODE_PREFIX);
        let now = now_ms();
        sqlx::query(
            "INSERT INTO oauth_codes (verifier, client_id, person_id, grant_id, redirect_uri, \
             code_challenge, resource, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(verifier(&code))
        .bind(new.client.id)
        .bind(new.person.0)
        .bind(grant_id)
        .bind(new.redirect_uri)
        .bind(new.code_challenge)
        .bind(new.resource)
        .bind(now)
        .bind(now + CODE_MS)
        .execute(&mut *conn)
        .await?;
        Ok(Secret::new(code))
    }
}
