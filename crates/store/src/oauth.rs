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
/// A client the owner never consented to is forgotten after this long: registration is open
/// to anyone, and a connector that is set up goes through consent within minutes.
pub const UNUSED_CLIENT_MS: i64 = 10 * 60 * 1000;
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

/// A registered client as the owner's list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientListing {
    pub client: OAuthClient,
    /// Its connections (consents whose code was exchanged) not revoked.
    pub live_connections: i64,
    /// Its connections ever made, revoked ones included.
    pub connections: i64,
    /// When one of its connections was last used, if ever.
    pub last_used_at: Option<i64>,
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

/// Forgets the clients never consented to (no connection made, no code waiting for its
/// exchange) registered over ten minutes before `now`, with their spent codes.
async fn forget_unused(conn: &mut sqlx::SqliteConnection, now: i64) -> Result<(), Error> {
    let unused = "SELECT id FROM oauth_clients WHERE created_at < ?1 \
         AND id NOT IN (SELECT oauth_client_id FROM credentials WHERE oauth_client_id IS NOT NULL) \
         AND id NOT IN (SELECT client_id FROM oauth_codes WHERE expires_at > ?2 AND used_at IS NULL)";
    sqlx::query(&format!(
        "DELETE FROM oauth_codes WHERE client_id IN ({unused})"
    ))
    .bind(now - UNUSED_CLIENT_MS)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    sqlx::query(&format!("DELETE FROM oauth_clients WHERE id IN ({unused})"))
        .bind(now - UNUSED_CLIENT_MS)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

impl Store {
    /// Registers a client and returns it with its new `client_id`. Clients that never completed
    /// an authorization within ten minutes are forgotten first; past 1,000 clients, `Conflict`.
    pub async fn register_client(&self, new: &NewClient) -> Result<OAuthClient, Error> {
        let now = now_ms();
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        forget_unused(&mut tx, now).await?;
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM oauth_clients")
            .fetch_one(&mut *tx)
            .await?;
        if count >= MAX_CLIENTS {
            return Err(Error::Conflict(format!(
                "this server already has {count} registered clients; unused registrations are forgotten after ten minutes, try again later"
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

    /// Every registered client, oldest first, with its connections. Clients never consented to
    /// and past their ten minutes are forgotten first, as at registration.
    pub async fn oauth_clients(&self) -> Result<Vec<ClientListing>, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        forget_unused(&mut tx, now_ms()).await?;
        let rows = sqlx::query(
            "SELECT cl.id, cl.client_id, cl.client_name, cl.redirect_uris, cl.grant_types, \
             cl.created_at, COUNT(c.id) AS connections, \
             COUNT(c.id) FILTER (WHERE c.revoked_at IS NULL) AS live, \
             MAX(c.last_used_at) AS last_used_at \
             FROM oauth_clients cl LEFT JOIN credentials c ON c.oauth_client_id = cl.id \
             GROUP BY cl.id ORDER BY cl.created_at, cl.id",
        )
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.iter()
            .map(|row| {
                Ok(ClientListing {
                    client: OAuthClient {
                        id: row.try_get("id")?,
                        client_id: row.try_get("client_id")?,
                        name: row.try_get("client_name")?,
                        redirect_uris: json_list(&row.try_get::<String, _>("redirect_uris")?)?,
                        grant_types: json_list(&row.try_get::<String, _>("grant_types")?)?,
                        created_at: row.try_get("created_at")?,
                    },
                    live_connections: row.try_get("live")?,
                    connections: row.try_get("connections")?,
                    last_used_at: row.try_get("last_used_at")?,
                })
            })
            .collect()
    }

    /// Removes a registered client: its connections are revoked with every token (they stay
    /// listed as revoked credentials, for the audit), its codes go, and so does the client.
    /// Returns how many live connections were revoked; `NotFound` for an unknown `client_id`.
    pub async fn remove_oauth_client(&self, client_id: &str) -> Result<u64, Error> {
        let now = now_ms();
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let id: Option<i64> =
            sqlx::query_scalar("SELECT id FROM oauth_clients WHERE client_id = ?")
                .bind(client_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some(id) = id else {
            return Err(Error::NotFound(format!(
                "no registered client has the id \"{client_id}\"; marquee oauth clients list shows them"
            )));
        };
        let connections: Vec<(i64, Option<i64>)> =
            sqlx::query_as("SELECT id, revoked_at FROM credentials WHERE oauth_client_id = ?")
                .bind(id)
                .fetch_all(&mut *tx)
                .await?;
        let mut revoked = 0;
        for (credential, revoked_at) in &connections {
            crate::oauth_tokens::revoke_connection(&mut tx, *credential, now).await?;
            revoked += u64::from(revoked_at.is_none());
        }
        sqlx::query("UPDATE credentials SET oauth_client_id = NULL WHERE oauth_client_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM oauth_codes WHERE client_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM oauth_clients WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(revoked)
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
